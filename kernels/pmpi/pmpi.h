/* libhybridperf-mpi.so: counts an unmodified MPI program's communication the way common/ counts a
 * kernel's (hp_counts.h), by interposition (LD_PRELOAD) on the MPI profiling interface: MPI_X is ours and
 * calls PMPI_X. See docs/pmpi.md for what is counted and how to use it.
 *
 * Every wrapper is the same three steps -- hp_enter, the PMPI call, hp_leave and hp_record -- and
 * the counters it records into belong to the calling thread (hp_thread), found through one
 * thread-local pointer: threads of an MPI_THREAD_MULTIPLE program never share a counter cache line,
 * and the rank's totals are the threads' sums, added once at MPI_Finalize (hp_counts.h's reasoning).
 * The one shared word in the hot path is the on/off switch, which is read, never written, between
 * MPI_Pcontrol calls.
 *
 * Only a thread's outermost MPI call is counted (hp_thread.depth): an MPI library may implement one
 * binding through another (MPICH's Fortran routines call the C MPI_ ones; Open MPI's call PMPI_), and
 * this library's own reductions at MPI_Finalize go through its wrappers. Either way one call of the
 * program is one call in the profile. */
#ifndef HP_PMPI_H
#define HP_PMPI_H

#include <mpi.h>
#include <stddef.h>

#include "hp_counters.h"
#include "hp_counts.h"
#include "hp_json.h"
#include "hp_stats.h"
#include "hp_timer.h"

/* A fourth class beside hp_comm's three. It is written beside "comm", not in it, so that "comm"
 * keeps exactly the shape of the kernels' profiles (docs/profile-schema.md). */
enum { HP_ONE_SIDED = HP_NCLASSES, HP_PMPI_CLASSES };

/* What the trace needs of a request to write the `wait` that completes it (trace_actions.c): SimGrid names a
 * request by its sender, receiver (world ranks) and tag. */
typedef struct {
    int src, dst, tag;
    unsigned char written;    /* its isend or irecv is in the trace, not yet waited for */
    unsigned char blanks;     /* an irecv from MPI_ANY_SOURCE or MPI_ANY_TAG: its source and tag are blanks at `at` */
    unsigned char persistent; /* a persistent request: each start writes its isend (sends) or irecv of `bytes` */
    long long bytes;
    size_t at;
    MPI_Comm comm; /* where a matched source is a rank (read only when blanks) */
} hp_traced;

/* What a request is, kept from its creation to its completion (requests.c). */
typedef struct {
    unsigned char cls;   /* HP_P2P .. HP_ONE_SIDED: the class its Wait or Test is counted in */
    unsigned char sends; /* a persistent send: every MPI_Start sends one message of `bytes` */
    long long bytes;
    hp_traced traced;
} hp_request;

typedef struct {
    struct hp_request_slot *slots;
    size_t capacity, used; /* capacity: a power of two, 0 before the first request */
} hp_requests;

/* One OpenMP parallel construct as one thread saw it (ompt.c). */
typedef struct {
    const void *code; /* the construct's return address: its identity */
    long long calls;
    double seconds;
    int threads; /* the largest team asked for */
} hp_region_count;

typedef struct hp_thread {
    hp_comm comm; /* p2p, collective, barrier; its own counting switch stays off (see hp_record) */
    hp_comm_counts one_sided;
    hp_requests requests;
    hp_region_count *regions;
    int nregions, region_capacity;
    int depth;             /* MPI calls in progress on this thread */
    int id;                /* 0, 1, ... in the order the threads made their first call: the trace's thread id */
    double omp_idle[3];    /* regions it opened: seconds in them, load imbalance, scheduling (ompt_idle.c) */
    long long omp_unknown; /* regions it opened whose threads' busy time is not known */
    double region_start, region_end; /* its part of a region not yet in the trace events (ompt.c); 0: none */
    unsigned int region_thread;      /* its number in that region's team */
    struct hp_thread *next;
} hp_thread;

/* ---- the switch and the threads (threads.c) ---- */

extern int hp_pmpi_on;
/* initial-exec: the library is loaded at start-up (LD_PRELOAD), so its TLS is static and reading this
 * pointer is one load, not a __tls_get_addr call per MPI call. */
extern _Thread_local hp_thread *hp_pmpi_self __attribute__((tls_model("initial-exec")));

hp_thread *hp_thread_new(void);
void hp_switch(int on);
/* Seconds counting has been on, this rank, up to its last switch-off. */
double hp_counted_seconds(void);
/* The rank's totals: every thread's counters added (hp_comm_merge). */
void hp_threads_total(hp_comm *comm, hp_comm_counts *one_sided);
/* Every thread's state, newest first (the list only grows). */
hp_thread *hp_threads_all(void);

static inline hp_thread *hp_self(void)
{
    hp_thread *t = hp_pmpi_self;
    return t ? t : hp_thread_new();
}

/* ---- one call ---- */

typedef struct {
    hp_thread *self;
    const char *name; /* the routine (the wrapper's __func__): the trace event's name */
    double start, seconds;
    int counted; /* counting is on and this is the thread's outermost MPI call */
    int peer;    /* for the trace event: the world rank it sent to or received from, -1 none */
} hp_call;

static inline hp_call hp_enter(const char *name)
{
    hp_call c;
    c.self = hp_self();
    c.name = name;
    c.counted = c.self->depth++ == 0 && __atomic_load_n(&hp_pmpi_on, __ATOMIC_RELAXED);
    c.start = c.counted ? hp_now() : 0.0;
    if (c.counted) hp_counters_mpi(1); /* inside the timed call: switching them is MPI time (hp_counts.c) */
    c.seconds = 0.0;
    c.peer = -1;
    return c;
}

/* Stops the clock. Nonzero when the call is to be recorded: counted, and it succeeded. */
static inline int hp_leave(hp_call *c, int rc)
{
    c->self->depth--;
    if (!c->counted) return 0;
    hp_counters_mpi(0);
    c->seconds = hp_now() - c->start;
    return rc == MPI_SUCCESS;
}

/* The call in class cls, sending `messages` (0 or 1) message of `bytes`. */
void hp_record(const hp_call *c, int cls, int messages, long long bytes);
/* One more message sent by the call (MPI_Startall's sends, each its own size). */
void hp_record_message(const hp_call *c, int cls, long long bytes);
/* A request the call created (kept whether or not counting is on, so the table is always exact). */
void hp_track(const hp_call *c, MPI_Request r, hp_request what);
/* After a Wait or Test over n requests: when `record` (hp_leave's answer), records the call in the
 * class of the request it completed (index `done`, -1 when none or not known which), else of the first
 * active one, else p2p; forgets the requests it freed (handle now MPI_REQUEST_NULL). */
void hp_completed(const hp_call *c, int record, int n, const MPI_Request *before, const MPI_Request *after, int done);
/* Room for n request handles: `local` when they fit, else the heap. */
enum { HP_LOCAL_REQUESTS = 32 };
MPI_Request *hp_handles(int n, MPI_Request *local);
void hp_handles_free(MPI_Request *h, const MPI_Request *local);

/* The wrappers' bodies: `call`, whose value is the MPI return code, counted in cls with `messages`
 * messages of `bytes` (evaluated only when the call is recorded). HP_TRACED also evaluates `trace`, a
 * trace_actions.c call that writes the call's action (it names the call `&c_`), when the rank traces;
 * HP_COUNTED's calls are not written in the trace and are counted as untraced there. HP_STARTED keeps the
 * request `handle` (an expression read after the call) in cls; HP_STARTED_TRACED also keeps what its
 * `trace` returns (an hp_traced) for the wait that completes it; HP_PERSISTENT keeps a persistent request
 * that will send `sends` (0 or 1) message of `bytes` at each start, and sends nothing itself (with _TRACED,
 * what its starts will write in the trace). GNU statement
 * expressions, so that each wrapper reads as one statement; a Fortran wrapper passes
 * `(pmpi_x_(..., ierr), hp_f_rc(ierr))` as its call. */
#define HP_TRACED(cls, messages, bytes, call, trace)                                                                   \
    ({                                                                                                                 \
        hp_call c_ = hp_enter(__func__);                                                                               \
        int rc_ = (call);                                                                                              \
        if (hp_leave(&c_, rc_)) {                                                                                      \
            if (hp_trace_on) (void)(trace);                                                                            \
            hp_record(&c_, (cls), (messages), (bytes));                                                                \
        }                                                                                                              \
        rc_;                                                                                                           \
    })
#define HP_COUNTED(cls, messages, bytes, call)                                                                         \
    HP_TRACED(cls, messages, bytes, call, hp_trace_skip(&c_, hp_untraced_class(cls)))
#define HP_STARTED_TRACED(cls, messages, bytes, handle, call, trace)                                                   \
    ({                                                                                                                 \
        hp_call c_ = hp_enter(__func__);                                                                               \
        hp_request what_ = {(cls), 0, 0, {0}};                                                                         \
        int rc_ = (call);                                                                                              \
        if (hp_leave(&c_, rc_)) {                                                                                      \
            if (hp_trace_on) what_.traced = (trace);                                                                   \
            hp_record(&c_, (cls), (messages), (bytes));                                                                \
        }                                                                                                              \
        if (rc_ == MPI_SUCCESS) hp_track(&c_, (handle), what_);                                                        \
        rc_;                                                                                                           \
    })
#define HP_STARTED(cls, messages, bytes, handle, call)                                                                 \
    HP_STARTED_TRACED(cls, messages, bytes, handle, call, hp_trace_skipped(&c_, HP_UNTRACED_ROUTINE))
#define HP_PERSISTENT_TRACED(sends, size, handle, call, trace)                                                         \
    ({                                                                                                                 \
        hp_call c_ = hp_enter(__func__);                                                                               \
        hp_request what_ = {HP_P2P, (sends), 0, {0}};                                                                  \
        int rc_ = (call);                                                                                              \
        if (hp_leave(&c_, rc_)) {                                                                                      \
            if (hp_trace_on) what_.traced = (trace);                                                                   \
            hp_record(&c_, HP_P2P, 0, 0);                                                                              \
        }                                                                                                              \
        if (rc_ == MPI_SUCCESS) {                                                                                      \
            what_.bytes = (size);                                                                                      \
            hp_track(&c_, (handle), what_);                                                                            \
        }                                                                                                              \
        rc_;                                                                                                           \
    })
#define HP_PERSISTENT(sends, bytes, handle, call)                                                                      \
    HP_PERSISTENT_TRACED(sends, bytes, handle, call, hp_trace_skipped(&c_, HP_UNTRACED_ROUTINE))

/* MPI_Start / MPI_Startall of n requests: one p2p call, and the message of each persistent send. */
void hp_record_start(hp_call *c, int n, const MPI_Request *reqs);

/* ---- the trace (trace.c: files, compute bursts; trace_budget.c: the limit; trace_actions.c: SimGrid's actions;
 * trace_perfetto.c: the trace events; docs/pmpi.md "Traces") ---- */

/* Why a counted call is not in the trace (trace.c names them). */
enum {
    HP_UNTRACED_THREAD,       /* made by another thread than the one that initialised MPI */
    HP_UNTRACED_COMMUNICATOR, /* a collective on a communicator that is not the world's group in its order */
    HP_UNTRACED_PROC_NULL,    /* a peer MPI_PROC_NULL */
    HP_UNTRACED_ONE_SIDED,    /* one-sided communication: SimGrid's replay has no action for it */
    HP_UNTRACED_ROUTINE,      /* a routine without an action: probes, Alltoallw, some of Open MPI's Fortran binding */
    HP_UNTRACED_REASONS
};

/* This rank writes its trace: read in the wrappers, written at MPI_Init and when the trace stops. */
extern int hp_trace_on;

static inline int hp_untraced_class(int cls)
{
    return cls == HP_ONE_SIDED ? HP_UNTRACED_ONE_SIDED : HP_UNTRACED_ROUTINE;
}
/* The status a call that must report its matched source is given: `own` when the program ignores it. */
static inline MPI_Status *hp_trace_status(MPI_Status *given, MPI_Status *own)
{
    return hp_trace_on && given == MPI_STATUS_IGNORE ? own : given;
}

void hp_trace_start(void);                /* at MPI_Init, collective: HYBRIDPERF_MPI_TRACE read on rank 0 */
void hp_trace_window(int on, double now); /* the counting switch thrown: compute is measured while it is on */
void hp_trace_finish(void);               /* at MPI_Finalize, collective: files closed, merged, summed up */
/* The "trace" object of the profile, rank 0, after hp_trace_finish; nothing when the run was not traced. */
void hp_trace_json(hp_json *j);

/* Whether the call is written: nonzero on the tracing thread, else counted as untraced (another thread). */
int hp_trace_mine(const hp_call *c);
void hp_trace_skip(const hp_call *c, int reason);
hp_traced hp_trace_skipped(const hp_call *c, int reason);
/* A blocking probe, untraced: its time is spent waiting for the message that the receive after it gets, and the
 * replay's receive waits for it again, so it is left out of the compute bursts (not counted twice). */
void hp_trace_waited(const hp_call *c);
/* One action of the call (printf-style, without the rank and newline), after the compute burst since the
 * previous one; returns the offset in the held text where the action (after "<rank> ") starts. */
size_t hp_trace_action(const hp_call *c, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* The blanks of an irecv's source and tag filled in (their width: HP_TRACE_BLANK). */
enum { HP_TRACE_BLANK = 11 };
void hp_trace_fill(size_t at, int src, int tag);
int hp_trace_hold(int delta);         /* irecvs whose blanks are not filled yet, after adding delta */
#define HP_TRACE_NOWHERE ((size_t)-1) /* hp_trace_action's answer when nothing was written */
enum { HP_TRACE_BYTE = 6 };           /* SimGrid's code of MPI_BYTE in a trace: every size is written in bytes */
int hp_trace_rank(void);
/* Traced requests not yet completed, after adding delta. */
long long hp_trace_outstanding(long long delta);
/* trace_budget.c: what this rank's files (text and events) may take, and why its trace stopped. */
void hp_trace_budget(long long limit); /* at MPI_Init: HYBRIDPERF_MPI_TRACE_LIMIT, nothing spent */
/* `bytes` more of this rank's files: 0 when that passes the limit, and the trace stops. */
int hp_trace_spend(long long bytes);
void hp_trace_stop(int state); /* 1: cut at the limit; 2: a file could not be written (the first reason stays) */
long long hp_trace_spent(void);
long long hp_trace_limit(void);
int hp_trace_state(void); /* 0 whole, 1 cut at the limit, 2 a file could not be written */

/* trace_actions.c: each routine's action(s); peers and roots as world ranks, sizes in bytes (MPI_BYTE). */
int hp_trace_send(hp_call *c, const char *action, int dest, int tag, int count, MPI_Datatype type, MPI_Comm comm);
hp_traced hp_trace_isend(hp_call *c, int dest, int tag, int count, MPI_Datatype type, MPI_Comm comm);
int hp_trace_recv(hp_call *c, int src, int tag, int count, MPI_Datatype type, MPI_Comm comm, const MPI_Status *st);
hp_traced hp_trace_irecv(hp_call *c, int src, int tag, int count, MPI_Datatype type, MPI_Comm comm);
/* Send_init (sends) or Recv_init: what each start of the request will write. */
hp_traced hp_trace_persistent(hp_call *c, int sends, int peer, int tag, int count, MPI_Datatype type, MPI_Comm comm);
/* MPI_Start / MPI_Startall: each persistent request's isend or irecv. */
void hp_trace_starts(hp_call *c, int n, const MPI_Request *reqs);
int hp_trace_sendrecv(hp_call *c, long long sbytes, int dest, long long rbytes, int src, MPI_Comm comm,
                      const MPI_Status *st);
/* The requests a wait or test completed: before[which[k] - base] (which NULL: before[k]) with status
 * statuses[k] (NULL: none); `all`: a Waitall, written as SimGrid's waitall when it completes every
 * outstanding request. `base`: 0 for C's indices, 1 for Fortran's. */
void hp_trace_completed(hp_call *c, const MPI_Request *before, const int *which, int base, int count,
                        const MPI_Status *statuses, int all);
int hp_trace_barrier(hp_call *c, MPI_Comm comm);
int hp_trace_bcast(hp_call *c, long long bytes, int root, MPI_Comm comm);
/* reduce (root >= 0) and allreduce (root -1); scan and exscan by `action` */
int hp_trace_reduce(hp_call *c, const char *action, long long bytes, int root, MPI_Comm comm);
/* gather, scatter (root), allgather and alltoall (root -1): per-rank send and receive bytes */
int hp_trace_gather(hp_call *c, const char *action, long long sbytes, long long rbytes, int root, MPI_Comm comm);
/* gatherv and allgatherv (counts: what each rank sends to the root; NULL where not significant), scatterv */
int hp_trace_gatherv(hp_call *c, const char *action, long long sbytes, const int *rcounts, MPI_Datatype rtype, int root,
                     MPI_Comm comm);
int hp_trace_scatterv(hp_call *c, const int *scounts, MPI_Datatype stype, long long rbytes, int root, MPI_Comm comm);
int hp_trace_alltoallv(hp_call *c, const int *scounts, MPI_Datatype stype, const int *rcounts, MPI_Datatype rtype,
                       MPI_Comm comm);
int hp_trace_reduce_scatter(hp_call *c, const int *rcounts, int rcount, MPI_Datatype type, MPI_Comm comm);
/* A non-blocking collective is written as its blocking form when it is posted; its request names nothing. */
static inline hp_traced hp_trace_posted(int written)
{
    (void)written;
    return (hp_traced){0};
}

/* trace_perfetto.c: the rank's trace events (Chrome's trace-event format, which ui.perfetto.dev opens) */
int hp_events_open(const char *dir, int rank);
void hp_trace_event(const hp_call *c, long long bytes); /* a counted call, any thread */
/* The thread's part of an OpenMP region (ompt.c keeps it in the hp_thread), when it has one: written, then cleared. */
void hp_trace_region(hp_thread *t);
void hp_events_close(void);
/* Rank 0, after every rank closed: the ranks' files joined into DIR/trace.json (then removed). */
void hp_events_merge(const char *dir, int ranks);

/* ---- the request table (requests.c) ---- */

void hp_requests_put(hp_requests *m, MPI_Request r, hp_request what);
const hp_request *hp_requests_find(const hp_requests *m, MPI_Request r); /* NULL: not known */
hp_request *hp_requests_get(hp_requests *m, MPI_Request r);              /* the same, to change it */
void hp_requests_forget(hp_requests *m, MPI_Request r);

/* ---- what a call sends (contribution.c): hp_counts.h's conventions for every routine ---- */

long long hp_bytes(int count, MPI_Datatype type);
/* A send buffer given as MPI_IN_PLACE (fortran.h: hp_f_in_place, the Fortran binding's). */
static inline int hp_in_place(const void *buf) { return buf == MPI_IN_PLACE; }
/* The ranks a send buffer is spread over: the group, or an intercommunicator's remote group. */
int hp_peers(MPI_Comm comm);
int hp_is_root(int root, MPI_Comm comm);
long long hp_bytes_gather(int in_place, int scount, MPI_Datatype stype, int rcount, MPI_Datatype rtype);
long long hp_bytes_gatherv(int in_place, int scount, MPI_Datatype stype, const int *rcounts, MPI_Datatype rtype,
                           MPI_Comm comm);
long long hp_bytes_scatter(int root, int scount, MPI_Datatype stype, MPI_Comm comm);
long long hp_bytes_scatterv(int root, const int *scounts, MPI_Datatype stype, MPI_Comm comm);
long long hp_bytes_alltoall(int in_place, int scount, MPI_Datatype stype, int rcount, MPI_Datatype rtype,
                            MPI_Comm comm);
long long hp_bytes_alltoallv(int in_place, const int *scounts, MPI_Datatype stype, const int *rcounts,
                             MPI_Datatype rtype, MPI_Comm comm);
long long hp_bytes_alltoallw(int in_place, const int *scounts, const MPI_Datatype *stypes, const int *rcounts,
                             const MPI_Datatype *rtypes, MPI_Comm comm);
long long hp_bytes_reduce_scatter(const int *rcounts, MPI_Datatype type, MPI_Comm comm);
long long hp_bytes_reduce_scatter_block(int rcount, MPI_Datatype type, MPI_Comm comm);

/* ---- start and end (lifecycle.c, profile.c) ---- */

/* After MPI is initialised with thread level `requested` asked for. */
void hp_started(int requested);
void hp_pcontrol(int level);
/* Before MPI_Finalize: counting stops and the profile is written (collective over MPI_COMM_WORLD). */
void hp_finishing(void);
void hp_profile_write(int requested, int provided, int pcontrol);

/* ---- OpenMP parallel regions through OMPT (ompt.c) ---- */

typedef struct {
    char *name;
    long long calls;
    int threads;
    hp_stat seconds;
} hp_omp_region;

int hp_ompt_active(void);
/* Whether the threads' busy time in parallel regions is measured too (ompt_idle.c). */
int hp_ompt_idle_active(void);
/* ompt_idle.c, called from ompt.c's callbacks. begin: the opening thread's team record (NULL: not split). */
void *hp_ompt_idle_begin(int requested, double now);
void hp_ompt_idle_end(void *record, double now);
void hp_ompt_idle_task(int endpoint, void *record, unsigned int team_size, unsigned int index, int flags);
void hp_ompt_idle_wait(int endpoint, int in_region);
/* Collective: the regions of every rank, by name, with cross-rank statistics (calls and threads:
 * the largest on any rank). Returns how many; free with hp_ompt_free. */
int hp_ompt_reduce(hp_comm *quiet, MPI_Comm comm, hp_omp_region **out);
void hp_ompt_free(hp_omp_region *r, int n);

/* ---- the affinity read-back (busy.c) ---- */

/* CPUs this process's threads may run on, all together; -1 when unknown. */
int hp_cpus_allowed(void);
/* Threads of this process that did work (a fiftieth of the busiest one's CPU time or more); -1 when the
 * process has run too briefly to tell. */
int hp_busy_threads(void);

#endif
