/* Each MPI routine as the action(s) SimGrid's replayer (smpirun -replay, SimGrid 3.32) takes, written by
 * trace.c. The replayer runs every action on MPI_COMM_WORLD, names peers and roots by world rank and
 * takes sizes as counts of a datatype: every size here is in bytes, with MPI_BYTE's code, so no
 * datatype of the program needs a SimGrid name.
 *
 * What cannot be replayed faithfully is left out and counted by reason (trace.c): a collective on a
 * communicator whose group is not the world's in the world's order (SimGrid would run it over all
 * ranks), a message to or from MPI_PROC_NULL. A point-to-point peer on another communicator is
 * translated to its world rank. A receive from MPI_ANY_SOURCE or MPI_ANY_TAG is written with the source
 * and tag it matched: a blocking one from its status, a non-blocking one as blanks that the wait which
 * completes it fills in (trace.c holds the text until then). SimGrid names the request a `wait` completes
 * by sender, receiver and tag, kept in the request table from the isend or irecv. A Waitall that completes
 * every outstanding traced request is SimGrid's `waitall` (which waits for all of them); any other is one
 * `wait` per request. A persistent request is an isend or irecv at each start. A non-blocking collective is
 * written as its blocking form when it is posted. */
#include <stdio.h>
#include <stdlib.h>

#include "pmpi.h"

/* The world rank of `rank` of comm (of its remote group on an intercommunicator); negative ranks
 * (MPI_PROC_NULL, MPI_ANY_SOURCE) as they are; MPI_UNDEFINED when it is not in the world. */
static int world_of(MPI_Comm comm, int rank)
{
    if (rank < 0 || comm == MPI_COMM_WORLD) return rank;
    MPI_Group group, world;
    int inter, out;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        PMPI_Comm_remote_group(comm, &group);
    else
        PMPI_Comm_group(comm, &group);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_translate_ranks(group, 1, &rank, world, &out);
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    return out;
}

/* The peer of a point-to-point call as a world rank, or -1 with the call counted as untraced. */
static int peer_of(const hp_call *c, MPI_Comm comm, int rank)
{
    if (rank == MPI_PROC_NULL) {
        hp_trace_skip(c, HP_UNTRACED_PROC_NULL);
        return -1;
    }
    int world = world_of(comm, rank);
    if (world == MPI_UNDEFINED || world < 0) {
        hp_trace_skip(c, HP_UNTRACED_COMMUNICATOR);
        return -1;
    }
    return world;
}

int hp_trace_send(hp_call *c, const char *action, int dest, int tag, int count, MPI_Datatype type, MPI_Comm comm)
{
    if (!hp_trace_mine(c)) return 0;
    int peer = peer_of(c, comm, dest);
    if (peer < 0) return 0;
    c->peer = peer;
    return hp_trace_action(c, "%s %d %d %lld %d", action, peer, tag, hp_bytes(count, type), HP_TRACE_BYTE) !=
           HP_TRACE_NOWHERE;
}

int hp_trace_recv(hp_call *c, int src, int tag, int count, MPI_Datatype type, MPI_Comm comm, const MPI_Status *st)
{
    if (!hp_trace_mine(c)) return 0;
    if (src == MPI_ANY_SOURCE) src = st->MPI_SOURCE;
    if (tag == MPI_ANY_TAG) tag = st->MPI_TAG;
    int peer = peer_of(c, comm, src);
    if (peer < 0) return 0;
    c->peer = peer;
    return hp_trace_action(c, "recv %d %d %lld %d", peer, tag, hp_bytes(count, type), HP_TRACE_BYTE) !=
           HP_TRACE_NOWHERE;
}

/* An isend (t.dst, t.tag, t.bytes) written: t as the request's, or none. */
static hp_traced write_isend(hp_call *c, hp_traced t)
{
    c->peer = t.dst;
    if (hp_trace_action(c, "isend %d %d %lld %d", t.dst, t.tag, t.bytes, HP_TRACE_BYTE) == HP_TRACE_NOWHERE)
        return (hp_traced){0};
    t.written = 1;
    hp_trace_outstanding(1);
    return t;
}

/* An irecv (t.src a world rank or MPI_ANY_SOURCE, t.tag maybe MPI_ANY_TAG, t.bytes) written: t as the
 * request's, or none. Blanks where the source or tag is not known yet, filled by the wait (hp_trace_fill). */
static hp_traced write_irecv(hp_call *c, hp_traced t)
{
    size_t at;
    t.blanks = t.src == MPI_ANY_SOURCE || t.tag == MPI_ANY_TAG;
    if (t.blanks) {
        at =
            hp_trace_action(c, "irecv %*s %*s %lld %d", HP_TRACE_BLANK, "", HP_TRACE_BLANK, "", t.bytes, HP_TRACE_BYTE);
        t.at = at + sizeof "irecv " - 1;
    } else {
        c->peer = t.src;
        at = hp_trace_action(c, "irecv %d %d %lld %d", t.src, t.tag, t.bytes, HP_TRACE_BYTE);
    }
    if (at == HP_TRACE_NOWHERE) return (hp_traced){0};
    if (t.blanks) hp_trace_hold(1);
    t.written = 1;
    hp_trace_outstanding(1);
    return t;
}

/* What an isend (sends) or irecv from or to `peer` of comm writes; `ok` 0 when it is not written (counted). */
static hp_traced request_of(hp_call *c, int sends, int peer, int tag, int count, MPI_Datatype type, MPI_Comm comm,
                            int *ok)
{
    const int me = hp_trace_rank();
    const int any = !sends && peer == MPI_ANY_SOURCE;
    const int world = any ? peer : peer_of(c, comm, peer);
    *ok = any || world >= 0;
    return sends ? (hp_traced){me, world, tag, 0, 0, 0, hp_bytes(count, type), 0, comm}
                 : (hp_traced){world, me, tag, 0, 0, 0, hp_bytes(count, type), 0, comm};
}

hp_traced hp_trace_isend(hp_call *c, int dest, int tag, int count, MPI_Datatype type, MPI_Comm comm)
{
    int ok = 0;
    hp_traced t = hp_trace_mine(c) ? request_of(c, 1, dest, tag, count, type, comm, &ok) : (hp_traced){0};
    return ok ? write_isend(c, t) : (hp_traced){0};
}

hp_traced hp_trace_irecv(hp_call *c, int src, int tag, int count, MPI_Datatype type, MPI_Comm comm)
{
    int ok = 0;
    hp_traced t = hp_trace_mine(c) ? request_of(c, 0, src, tag, count, type, comm, &ok) : (hp_traced){0};
    return ok ? write_irecv(c, t) : (hp_traced){0};
}

hp_traced hp_trace_persistent(hp_call *c, int sends, int peer, int tag, int count, MPI_Datatype type, MPI_Comm comm)
{
    int ok = 0;
    hp_traced t = hp_trace_mine(c) ? request_of(c, sends, peer, tag, count, type, comm, &ok) : (hp_traced){0};
    t.persistent = (unsigned char)ok;
    return t;
}

void hp_trace_starts(hp_call *c, int n, const MPI_Request *reqs)
{
    if (!hp_trace_mine(c)) return;
    int unknown = 0;
    for (int i = 0; i < n; i++) {
        hp_request *r = hp_requests_get(&c->self->requests, reqs[i]);
        if (!r || !r->traced.persistent) {
            unknown = 1;
            continue;
        }
        hp_traced t = r->sends ? write_isend(c, r->traced) : write_irecv(c, r->traced);
        if (t.written) r->traced = t;
    }
    if (unknown) hp_trace_skip(c, HP_UNTRACED_ROUTINE); /* a request made untraced (another thread, Fortran) */
}

/* SimGrid's sendRecv tags both messages 0; a half whose peer is MPI_PROC_NULL is a send or a recv, tagged
 * 0 too, so that it matches the sendRecv of the rank at its other end. */
int hp_trace_sendrecv(hp_call *c, long long sbytes, int dest, long long rbytes, int src, MPI_Comm comm,
                      const MPI_Status *st)
{
    if (!hp_trace_mine(c)) return 0;
    if (src == MPI_ANY_SOURCE) src = st->MPI_SOURCE;
    const int to = peer_of(c, comm, dest), from = peer_of(c, comm, src);
    c->peer = to >= 0 ? to : from;
    if (to >= 0 && from >= 0)
        return hp_trace_action(c, "sendRecv %lld %d %lld %d %d %d", sbytes, to, rbytes, from, HP_TRACE_BYTE,
                               HP_TRACE_BYTE) != HP_TRACE_NOWHERE;
    if (to >= 0) return hp_trace_action(c, "send %d 0 %lld %d", to, sbytes, HP_TRACE_BYTE) != HP_TRACE_NOWHERE;
    if (from >= 0) return hp_trace_action(c, "recv %d 0 %lld %d", from, rbytes, HP_TRACE_BYTE) != HP_TRACE_NOWHERE;
    return 0;
}

/* The sender, receiver and tag of a completed request; an irecv's blanks filled from its status. */
static hp_traced completed(const hp_request *r, const MPI_Status *st)
{
    hp_traced t = r->traced;
    if (t.blanks) {
        if (t.src == MPI_ANY_SOURCE) t.src = st ? world_of(t.comm, st->MPI_SOURCE) : -1;
        if (t.tag == MPI_ANY_TAG) t.tag = st ? st->MPI_TAG : -1;
        hp_trace_fill(t.at, t.src, t.tag);
    }
    return t;
}

/* The traced request a wait or test completed, as its k-th: NULL when it is not one of the trace's. */
static hp_request *traced_at(hp_requests *m, const MPI_Request *before, const int *which, int base, int k)
{
    hp_request *r = hp_requests_get(m, before[which ? which[k] - base : k]);
    return r && r->traced.written ? r : NULL;
}

void hp_trace_completed(hp_call *c, const MPI_Request *before, const int *which, int base, int count,
                        const MPI_Status *statuses, int all)
{
    if (!hp_trace_mine(c)) return;
    hp_requests *m = &c->self->requests;
    long long n = 0;
    for (int k = 0; k < count; k++) n += traced_at(m, before, which, base, k) != NULL;
    if (!n) return; /* nothing of the trace's: the call's time stays in the next compute burst */
    const int one_waitall = all && n == hp_trace_outstanding(0);
    for (int k = 0; k < count; k++) {
        hp_request *r = traced_at(m, before, which, base, k);
        if (!r) continue;
        hp_traced t = completed(r, statuses ? &statuses[k] : NULL);
        if (!one_waitall) hp_trace_action(c, "wait %d %d %d", t.src, t.dst, t.tag);
        r->traced.written = r->traced.blanks = 0; /* a persistent request stays, inactive, for its next start */
    }
    if (one_waitall) hp_trace_action(c, "waitall");
    hp_trace_outstanding(-n);
}

/* ---- collectives ---- */

/* Whether a collective on comm can be written: on the tracing thread, and comm is the world's group in
 * its order (else it is counted as untraced). */
static int on_world(const hp_call *c, MPI_Comm comm)
{
    if (!hp_trace_mine(c)) return 0;
    int same = MPI_IDENT;
    if (comm != MPI_COMM_WORLD) PMPI_Comm_compare(comm, MPI_COMM_WORLD, &same);
    if (same == MPI_IDENT || same == MPI_CONGRUENT) return 1;
    hp_trace_skip(c, HP_UNTRACED_COMMUNICATOR);
    return 0;
}

int hp_trace_barrier(hp_call *c, MPI_Comm comm)
{
    return on_world(c, comm) && hp_trace_action(c, "barrier") != HP_TRACE_NOWHERE;
}

int hp_trace_bcast(hp_call *c, long long bytes, int root, MPI_Comm comm)
{
    return on_world(c, comm) && hp_trace_action(c, "bcast %lld %d %d", bytes, root, HP_TRACE_BYTE) != HP_TRACE_NOWHERE;
}

int hp_trace_reduce(hp_call *c, const char *action, long long bytes, int root, MPI_Comm comm)
{
    if (!on_world(c, comm)) return 0;
    if (root >= 0) return hp_trace_action(c, "%s %lld 0 %d %d", action, bytes, root, HP_TRACE_BYTE) != HP_TRACE_NOWHERE;
    return hp_trace_action(c, "%s %lld 0 %d", action, bytes, HP_TRACE_BYTE) != HP_TRACE_NOWHERE;
}

int hp_trace_gather(hp_call *c, const char *action, long long sbytes, long long rbytes, int root, MPI_Comm comm)
{
    if (!on_world(c, comm)) return 0;
    if (root >= 0)
        return hp_trace_action(c, "%s %lld %lld %d %d %d", action, sbytes, rbytes, root, HP_TRACE_BYTE,
                               HP_TRACE_BYTE) != HP_TRACE_NOWHERE;
    return hp_trace_action(c, "%s %lld %lld %d %d", action, sbytes, rbytes, HP_TRACE_BYTE, HP_TRACE_BYTE) !=
           HP_TRACE_NOWHERE;
}

/* The per-rank byte counts of a v-collective, " n0 n1 ...", in one of two buffers (`slot`: an alltoallv
 * needs both) kept from call to call -- only the tracing thread writes actions, and a buffer grows only
 * for a larger world; zeros where the counts are not significant (NULL). */
static const char *counts_text(int slot, const int *counts, MPI_Datatype type, int ranks)
{
    static char *text[2];
    static size_t capacity[2];
    size_t need = (size_t)ranks * 21 + 1;
    if (need > capacity[slot]) {
        char *grown = realloc(text[slot], need);
        if (!grown) return NULL;
        text[slot] = grown, capacity[slot] = need;
    }
    size_t used = 0;
    text[slot][0] = '\0';
    for (int r = 0; r < ranks; r++)
        used += (size_t)snprintf(text[slot] + used, capacity[slot] - used, " %lld",
                                 counts ? hp_bytes(counts[r], type) : 0LL);
    return text[slot];
}

static int world_size(void)
{
    int n;
    PMPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

int hp_trace_gatherv(hp_call *c, const char *action, long long sbytes, const int *rcounts, MPI_Datatype rtype, int root,
                     MPI_Comm comm)
{
    if (!on_world(c, comm)) return 0;
    const char *counts = counts_text(0, rcounts, rtype, world_size());
    if (!counts) return 0;
    if (root >= 0)
        return hp_trace_action(c, "%s %lld%s %d %d %d", action, sbytes, counts, root, HP_TRACE_BYTE, HP_TRACE_BYTE) !=
               HP_TRACE_NOWHERE;
    return hp_trace_action(c, "%s %lld%s %d %d", action, sbytes, counts, HP_TRACE_BYTE, HP_TRACE_BYTE) !=
           HP_TRACE_NOWHERE;
}

int hp_trace_scatterv(hp_call *c, const int *scounts, MPI_Datatype stype, long long rbytes, int root, MPI_Comm comm)
{
    if (!on_world(c, comm)) return 0;
    const char *counts = counts_text(0, scounts, stype, world_size());
    return counts && hp_trace_action(c, "scatterv%s %lld %d %d %d", counts, rbytes, root, HP_TRACE_BYTE,
                                     HP_TRACE_BYTE) != HP_TRACE_NOWHERE;
}

static long long sum_bytes(const int *counts, MPI_Datatype type, int ranks)
{
    long long sum = 0;
    for (int r = 0; r < ranks; r++) sum += hp_bytes(counts[r], type);
    return sum;
}

int hp_trace_alltoallv(hp_call *c, const int *scounts, MPI_Datatype stype, const int *rcounts, MPI_Datatype rtype,
                       MPI_Comm comm)
{
    if (!on_world(c, comm)) return 0;
    const int ranks = world_size();
    const long long sent = sum_bytes(scounts, stype, ranks), received = sum_bytes(rcounts, rtype, ranks);
    const char *sends = counts_text(0, scounts, stype, ranks), *receives = counts_text(1, rcounts, rtype, ranks);
    return sends && receives &&
           hp_trace_action(c, "alltoallv %lld%s %lld%s %d %d", sent, sends, received, receives, HP_TRACE_BYTE,
                           HP_TRACE_BYTE) != HP_TRACE_NOWHERE;
}

int hp_trace_reduce_scatter(hp_call *c, const int *rcounts, int rcount, MPI_Datatype type, MPI_Comm comm)
{
    if (!on_world(c, comm)) return 0;
    const int ranks = world_size();
    const char *counts;
    if (rcounts) {
        counts = counts_text(0, rcounts, type, ranks);
    } else { /* Reduce_scatter_block: the same count for every rank */
        static int *same;
        static int size;
        if (size < ranks) {
            int *grown = realloc(same, (size_t)ranks * sizeof *grown);
            if (!grown) return 0;
            same = grown, size = ranks;
        }
        for (int r = 0; r < ranks; r++) same[r] = rcount;
        counts = counts_text(0, same, type, ranks);
    }
    return counts && hp_trace_action(c, "reducescatter%s 0 %d", counts, HP_TRACE_BYTE) != HP_TRACE_NOWHERE;
}
