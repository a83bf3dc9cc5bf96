/* Open MPI's Fortran binding, part one: start and end, point-to-point, and completion; counted as
 * their C counterparts are (lifecycle.c, p2p.c, completion.c), and traced as they are (trace_actions.c) but
 * for receives from MPI_ANY_SOURCE or MPI_ANY_TAG that do not block (below). See fortran.h for why and how. */
#include "fortran.h"

void hp_f_requests(const MPI_Fint *f, int n, MPI_Request *c)
{
    for (int i = 0; i < n; i++) c[i] = PMPI_Request_f2c(f[i]);
}

void mpi_init_(F *ierr)
{
    pmpi_init_(ierr);
    if (hp_f_rc(ierr) == MPI_SUCCESS) hp_started(MPI_THREAD_SINGLE);
}
HP_FORTRAN_NAMES(mpi_init, MPI_INIT)

void mpi_init_thread_(F *required, F *provided, F *ierr)
{
    pmpi_init_thread_(required, provided, ierr);
    if (hp_f_rc(ierr) == MPI_SUCCESS) hp_started(*required);
}
HP_FORTRAN_NAMES(mpi_init_thread, MPI_INIT_THREAD)

void mpi_finalize_(F *ierr)
{
    hp_finishing();
    pmpi_finalize_(ierr);
}
HP_FORTRAN_NAMES(mpi_finalize, MPI_FINALIZE)

void mpi_pcontrol_(F *level)
{
    hp_pcontrol(*level);
    pmpi_pcontrol_(level);
}
HP_FORTRAN_NAMES(mpi_pcontrol, MPI_PCONTROL)

/* ---- point-to-point ---- */

/* A Fortran irecv or Recv_init from MPI_ANY_SOURCE or MPI_ANY_TAG is not traced: its wait would have to fill
 * the source and tag in from Fortran statuses, which this binding does not read (counted as untraced). */
static int any_peer(const F *src, const F *tag) { return *src == MPI_ANY_SOURCE || *tag == MPI_ANY_TAG; }

static hp_traced hp_f_trace_irecv(hp_call *c, const F *src, const F *tag, const F *count, const F *type, const F *comm)
{
    if (any_peer(src, tag)) return hp_trace_skipped(c, HP_UNTRACED_ROUTINE);
    return hp_trace_irecv(c, *src, *tag, *count, hp_f_type(type), hp_f_comm(comm));
}

static hp_traced hp_f_trace_recv_init(hp_call *c, const F *src, const F *tag, const F *count, const F *type,
                                      const F *comm)
{
    if (any_peer(src, tag)) return hp_trace_skipped(c, HP_UNTRACED_ROUTINE);
    return hp_trace_persistent(c, 0, *src, *tag, *count, hp_f_type(type), hp_f_comm(comm));
}

void mpi_send_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr)
{
    HP_TRACED(HP_P2P, 1, hp_bytes(*count, hp_f_type(type)),
              (pmpi_send_(buf, count, type, dest, tag, comm, ierr), hp_f_rc(ierr)),
              hp_trace_send(&c_, "send", *dest, *tag, *count, hp_f_type(type), hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_send, MPI_SEND)

void mpi_ssend_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr)
{
    HP_TRACED(HP_P2P, 1, hp_bytes(*count, hp_f_type(type)),
              (pmpi_ssend_(buf, count, type, dest, tag, comm, ierr), hp_f_rc(ierr)),
              hp_trace_send(&c_, "send", *dest, *tag, *count, hp_f_type(type), hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_ssend, MPI_SSEND)

void mpi_bsend_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr)
{
    HP_TRACED(HP_P2P, 1, hp_bytes(*count, hp_f_type(type)),
              (pmpi_bsend_(buf, count, type, dest, tag, comm, ierr), hp_f_rc(ierr)),
              hp_trace_send(&c_, "send", *dest, *tag, *count, hp_f_type(type), hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_bsend, MPI_BSEND)

void mpi_rsend_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr)
{
    HP_TRACED(HP_P2P, 1, hp_bytes(*count, hp_f_type(type)),
              (pmpi_rsend_(buf, count, type, dest, tag, comm, ierr), hp_f_rc(ierr)),
              hp_trace_send(&c_, "send", *dest, *tag, *count, hp_f_type(type), hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_rsend, MPI_RSEND)

void mpi_recv_(void *buf, F *count, F *type, F *src, F *tag, F *comm, F *status, F *ierr)
{
    F own[HP_F_STATUS], *st = hp_f_status_for(status, own);
    MPI_Status c_status;
    HP_TRACED(HP_P2P, 0, 0, (pmpi_recv_(buf, count, type, src, tag, comm, st, ierr), hp_f_rc(ierr)),
              hp_trace_recv(&c_, *src, *tag, *count, hp_f_type(type), hp_f_comm(comm), hp_f_status(st, &c_status)));
}
HP_FORTRAN_NAMES(mpi_recv, MPI_RECV)

void mpi_sendrecv_(void *sbuf, F *scount, F *stype, F *dest, F *stag, void *rbuf, F *rcount, F *rtype, F *src, F *rtag,
                   F *comm, F *status, F *ierr)
{
    F own[HP_F_STATUS], *st = hp_f_status_for(status, own);
    MPI_Status c_status;
    HP_TRACED(HP_P2P, 1, hp_bytes(*scount, hp_f_type(stype)),
              (pmpi_sendrecv_(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, st, ierr),
               hp_f_rc(ierr)),
              hp_trace_sendrecv(&c_, hp_bytes(*scount, hp_f_type(stype)), *dest, hp_bytes(*rcount, hp_f_type(rtype)),
                                *src, hp_f_comm(comm), hp_f_status(st, &c_status)));
}
HP_FORTRAN_NAMES(mpi_sendrecv, MPI_SENDRECV)

void mpi_sendrecv_replace_(void *buf, F *count, F *type, F *dest, F *stag, F *src, F *rtag, F *comm, F *status, F *ierr)
{
    F own[HP_F_STATUS], *st = hp_f_status_for(status, own);
    MPI_Status c_status;
    HP_TRACED(HP_P2P, 1, hp_bytes(*count, hp_f_type(type)),
              (pmpi_sendrecv_replace_(buf, count, type, dest, stag, src, rtag, comm, st, ierr), hp_f_rc(ierr)),
              hp_trace_sendrecv(&c_, hp_bytes(*count, hp_f_type(type)), *dest, hp_bytes(*count, hp_f_type(type)), *src,
                                hp_f_comm(comm), hp_f_status(st, &c_status)));
}
HP_FORTRAN_NAMES(mpi_sendrecv_replace, MPI_SENDRECV_REPLACE)

void mpi_probe_(F *src, F *tag, F *comm, F *status, F *ierr)
{
    HP_TRACED(HP_P2P, 0, 0, (pmpi_probe_(src, tag, comm, status, ierr), hp_f_rc(ierr)), hp_trace_waited(&c_));
}
HP_FORTRAN_NAMES(mpi_probe, MPI_PROBE)

void mpi_iprobe_(F *src, F *tag, F *comm, F *flag, F *status, F *ierr)
{
    HP_COUNTED(HP_P2P, 0, 0, (pmpi_iprobe_(src, tag, comm, flag, status, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_iprobe, MPI_IPROBE)

void mpi_isend_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr)
{
    HP_STARTED_TRACED(HP_P2P, 1, hp_bytes(*count, hp_f_type(type)), hp_f_request(req),
                      (pmpi_isend_(buf, count, type, dest, tag, comm, req, ierr), hp_f_rc(ierr)),
                      hp_trace_isend(&c_, *dest, *tag, *count, hp_f_type(type), hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_isend, MPI_ISEND)

void mpi_issend_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr)
{
    HP_STARTED_TRACED(HP_P2P, 1, hp_bytes(*count, hp_f_type(type)), hp_f_request(req),
                      (pmpi_issend_(buf, count, type, dest, tag, comm, req, ierr), hp_f_rc(ierr)),
                      hp_trace_isend(&c_, *dest, *tag, *count, hp_f_type(type), hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_issend, MPI_ISSEND)

void mpi_ibsend_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr)
{
    HP_STARTED_TRACED(HP_P2P, 1, hp_bytes(*count, hp_f_type(type)), hp_f_request(req),
                      (pmpi_ibsend_(buf, count, type, dest, tag, comm, req, ierr), hp_f_rc(ierr)),
                      hp_trace_isend(&c_, *dest, *tag, *count, hp_f_type(type), hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_ibsend, MPI_IBSEND)

void mpi_irsend_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr)
{
    HP_STARTED_TRACED(HP_P2P, 1, hp_bytes(*count, hp_f_type(type)), hp_f_request(req),
                      (pmpi_irsend_(buf, count, type, dest, tag, comm, req, ierr), hp_f_rc(ierr)),
                      hp_trace_isend(&c_, *dest, *tag, *count, hp_f_type(type), hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_irsend, MPI_IRSEND)

void mpi_irecv_(void *buf, F *count, F *type, F *src, F *tag, F *comm, F *req, F *ierr)
{
    HP_STARTED_TRACED(HP_P2P, 0, 0, hp_f_request(req),
                      (pmpi_irecv_(buf, count, type, src, tag, comm, req, ierr), hp_f_rc(ierr)),
                      hp_f_trace_irecv(&c_, src, tag, count, type, comm));
}
HP_FORTRAN_NAMES(mpi_irecv, MPI_IRECV)

void mpi_send_init_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr)
{
    HP_PERSISTENT_TRACED(1, hp_bytes(*count, hp_f_type(type)), hp_f_request(req),
                         (pmpi_send_init_(buf, count, type, dest, tag, comm, req, ierr), hp_f_rc(ierr)),
                         hp_trace_persistent(&c_, 1, *dest, *tag, *count, hp_f_type(type), hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_send_init, MPI_SEND_INIT)

void mpi_ssend_init_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr)
{
    HP_PERSISTENT_TRACED(1, hp_bytes(*count, hp_f_type(type)), hp_f_request(req),
                         (pmpi_ssend_init_(buf, count, type, dest, tag, comm, req, ierr), hp_f_rc(ierr)),
                         hp_trace_persistent(&c_, 1, *dest, *tag, *count, hp_f_type(type), hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_ssend_init, MPI_SSEND_INIT)

void mpi_bsend_init_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr)
{
    HP_PERSISTENT_TRACED(1, hp_bytes(*count, hp_f_type(type)), hp_f_request(req),
                         (pmpi_bsend_init_(buf, count, type, dest, tag, comm, req, ierr), hp_f_rc(ierr)),
                         hp_trace_persistent(&c_, 1, *dest, *tag, *count, hp_f_type(type), hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_bsend_init, MPI_BSEND_INIT)

void mpi_rsend_init_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr)
{
    HP_PERSISTENT_TRACED(1, hp_bytes(*count, hp_f_type(type)), hp_f_request(req),
                         (pmpi_rsend_init_(buf, count, type, dest, tag, comm, req, ierr), hp_f_rc(ierr)),
                         hp_trace_persistent(&c_, 1, *dest, *tag, *count, hp_f_type(type), hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_rsend_init, MPI_RSEND_INIT)

void mpi_recv_init_(void *buf, F *count, F *type, F *src, F *tag, F *comm, F *req, F *ierr)
{
    HP_PERSISTENT_TRACED(0, 0, hp_f_request(req),
                         (pmpi_recv_init_(buf, count, type, src, tag, comm, req, ierr), hp_f_rc(ierr)),
                         hp_f_trace_recv_init(&c_, src, tag, count, type, comm));
}
HP_FORTRAN_NAMES(mpi_recv_init, MPI_RECV_INIT)

void mpi_start_(F *req, F *ierr)
{
    MPI_Request handle = hp_f_request(req);
    hp_call c = hp_enter(__func__);
    pmpi_start_(req, ierr);
    if (hp_leave(&c, hp_f_rc(ierr))) hp_record_start(&c, 1, &handle);
}
HP_FORTRAN_NAMES(mpi_start, MPI_START)

void mpi_startall_(F *n, F *reqs, F *ierr)
{
    MPI_Request local[HP_LOCAL_REQUESTS], *handles = hp_handles(*n, local);
    hp_f_requests(reqs, *n, handles);
    hp_call c = hp_enter(__func__);
    pmpi_startall_(n, reqs, ierr);
    if (hp_leave(&c, hp_f_rc(ierr))) hp_record_start(&c, *n, handles);
    hp_handles_free(handles, local);
}
HP_FORTRAN_NAMES(mpi_startall, MPI_STARTALL)

void mpi_request_free_(F *req, F *ierr)
{
    MPI_Request before = hp_f_request(req);
    pmpi_request_free_(req, ierr);
    if (hp_f_rc(ierr) == MPI_SUCCESS) hp_requests_forget(&hp_self()->requests, before);
}
HP_FORTRAN_NAMES(mpi_request_free, MPI_REQUEST_FREE)

/* ---- completion: the requests' C handles before and after the call, then completion.c's rules ---- */

/* A completion's record, after writing in the trace the `count` requests it completed, before[which[k] - 1]
 * (which NULL: before[k]); `all`: a Waitall. No statuses: the traced requests' peers are known already. */
static void completed(hp_call *c, int record, int n, const MPI_Request *before, const MPI_Request *after, int done,
                      const F *which, int count, int all)
{
    if (record && hp_trace_on && count > 0) hp_trace_completed(c, before, which, 1, count, NULL, all);
    hp_completed(c, record, n, before, after, done);
}

void mpi_wait_(F *req, F *status, F *ierr)
{
    MPI_Request before = hp_f_request(req);
    hp_call c = hp_enter(__func__);
    pmpi_wait_(req, status, ierr);
    int record = hp_leave(&c, hp_f_rc(ierr));
    MPI_Request after = hp_f_request(req);
    completed(&c, record, 1, &before, &after, 0, NULL, 1, 0);
}
HP_FORTRAN_NAMES(mpi_wait, MPI_WAIT)

void mpi_test_(F *req, F *flag, F *status, F *ierr)
{
    MPI_Request before = hp_f_request(req);
    hp_call c = hp_enter(__func__);
    pmpi_test_(req, flag, status, ierr);
    int record = hp_leave(&c, hp_f_rc(ierr));
    MPI_Request after = hp_f_request(req);
    completed(&c, record, 1, &before, &after, 0, NULL, *flag ? 1 : 0, 0);
}
HP_FORTRAN_NAMES(mpi_test, MPI_TEST)

/* Waitall, Testall, Waitany, Testany, Waitsome, Testsome: `call` runs the routine; `done` (read after
 * it) is the 0-based index of a request it completed, or -1; `which` and `count` (read after it too) the
 * requests it completed for the trace, as `completed` takes them. Fortran indices count from 1. */
#define HP_F_COMPLETION(n, reqs, call, done, which, count, all)                                                        \
    do {                                                                                                               \
        MPI_Request local_before[HP_LOCAL_REQUESTS], local_after[HP_LOCAL_REQUESTS];                                   \
        MPI_Request *before = hp_handles(n, local_before), *after = hp_handles(n, local_after);                        \
        hp_f_requests(reqs, n, before);                                                                                \
        hp_call c = hp_enter(__func__);                                                                                \
        call;                                                                                                          \
        int record = hp_leave(&c, hp_f_rc(ierr));                                                                      \
        hp_f_requests(reqs, n, after);                                                                                 \
        completed(&c, record, n, before, after, done, which, count, all);                                              \
        hp_handles_free(before, local_before);                                                                         \
        hp_handles_free(after, local_after);                                                                           \
    } while (0)

static int one_done(const F *index) { return *index == MPI_UNDEFINED ? -1 : *index - 1; }
static int some_done(const F *outcount, const F *indices)
{
    return *outcount == MPI_UNDEFINED || *outcount == 0 ? -1 : indices[0] - 1;
}

void mpi_waitall_(F *n, F *reqs, F *statuses, F *ierr)
{
    HP_F_COMPLETION(*n, reqs, pmpi_waitall_(n, reqs, statuses, ierr), -1, NULL, *n, 1);
}
HP_FORTRAN_NAMES(mpi_waitall, MPI_WAITALL)

void mpi_testall_(F *n, F *reqs, F *flag, F *statuses, F *ierr)
{
    HP_F_COMPLETION(*n, reqs, pmpi_testall_(n, reqs, flag, statuses, ierr), -1, NULL, *flag ? *n : 0, 1);
}
HP_FORTRAN_NAMES(mpi_testall, MPI_TESTALL)

void mpi_waitany_(F *n, F *reqs, F *index, F *status, F *ierr)
{
    HP_F_COMPLETION(*n, reqs, pmpi_waitany_(n, reqs, index, status, ierr), one_done(index), index,
                    *index == MPI_UNDEFINED ? 0 : 1, 0);
}
HP_FORTRAN_NAMES(mpi_waitany, MPI_WAITANY)

void mpi_testany_(F *n, F *reqs, F *index, F *flag, F *status, F *ierr)
{
    HP_F_COMPLETION(*n, reqs, pmpi_testany_(n, reqs, index, flag, status, ierr), one_done(index), index,
                    *flag && *index != MPI_UNDEFINED ? 1 : 0, 0);
}
HP_FORTRAN_NAMES(mpi_testany, MPI_TESTANY)

void mpi_waitsome_(F *n, F *reqs, F *outcount, F *indices, F *statuses, F *ierr)
{
    HP_F_COMPLETION(*n, reqs, pmpi_waitsome_(n, reqs, outcount, indices, statuses, ierr), some_done(outcount, indices),
                    indices, *outcount == MPI_UNDEFINED ? 0 : *outcount, 0);
}
HP_FORTRAN_NAMES(mpi_waitsome, MPI_WAITSOME)

void mpi_testsome_(F *n, F *reqs, F *outcount, F *indices, F *statuses, F *ierr)
{
    HP_F_COMPLETION(*n, reqs, pmpi_testsome_(n, reqs, outcount, indices, statuses, ierr), some_done(outcount, indices),
                    indices, *outcount == MPI_UNDEFINED ? 0 : *outcount, 0);
}
HP_FORTRAN_NAMES(mpi_testsome, MPI_TESTSOME)
