/* Open MPI's Fortran binding, part one: start and end, point-to-point, and completion; counted as
 * their C counterparts are (lifecycle.c, p2p.c, completion.c). See fortran.h for why and how. */
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

void mpi_send_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr)
{
    HP_COUNTED(HP_P2P, 1, hp_bytes(*count, hp_f_type(type)),
               (pmpi_send_(buf, count, type, dest, tag, comm, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_send, MPI_SEND)

void mpi_ssend_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr)
{
    HP_COUNTED(HP_P2P, 1, hp_bytes(*count, hp_f_type(type)),
               (pmpi_ssend_(buf, count, type, dest, tag, comm, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_ssend, MPI_SSEND)

void mpi_bsend_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr)
{
    HP_COUNTED(HP_P2P, 1, hp_bytes(*count, hp_f_type(type)),
               (pmpi_bsend_(buf, count, type, dest, tag, comm, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_bsend, MPI_BSEND)

void mpi_rsend_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr)
{
    HP_COUNTED(HP_P2P, 1, hp_bytes(*count, hp_f_type(type)),
               (pmpi_rsend_(buf, count, type, dest, tag, comm, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_rsend, MPI_RSEND)

void mpi_recv_(void *buf, F *count, F *type, F *src, F *tag, F *comm, F *status, F *ierr)
{
    HP_COUNTED(HP_P2P, 0, 0, (pmpi_recv_(buf, count, type, src, tag, comm, status, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_recv, MPI_RECV)

void mpi_sendrecv_(void *sbuf, F *scount, F *stype, F *dest, F *stag, void *rbuf, F *rcount, F *rtype, F *src,
                   F *rtag, F *comm, F *status, F *ierr)
{
    HP_COUNTED(HP_P2P, 1, hp_bytes(*scount, hp_f_type(stype)),
               (pmpi_sendrecv_(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, status, ierr),
                hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_sendrecv, MPI_SENDRECV)

void mpi_sendrecv_replace_(void *buf, F *count, F *type, F *dest, F *stag, F *src, F *rtag, F *comm, F *status,
                           F *ierr)
{
    HP_COUNTED(HP_P2P, 1, hp_bytes(*count, hp_f_type(type)),
               (pmpi_sendrecv_replace_(buf, count, type, dest, stag, src, rtag, comm, status, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_sendrecv_replace, MPI_SENDRECV_REPLACE)

void mpi_probe_(F *src, F *tag, F *comm, F *status, F *ierr)
{
    HP_COUNTED(HP_P2P, 0, 0, (pmpi_probe_(src, tag, comm, status, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_probe, MPI_PROBE)

void mpi_iprobe_(F *src, F *tag, F *comm, F *flag, F *status, F *ierr)
{
    HP_COUNTED(HP_P2P, 0, 0, (pmpi_iprobe_(src, tag, comm, flag, status, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_iprobe, MPI_IPROBE)

void mpi_isend_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr)
{
    HP_STARTED(HP_P2P, 1, hp_bytes(*count, hp_f_type(type)), hp_f_request(req),
               (pmpi_isend_(buf, count, type, dest, tag, comm, req, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_isend, MPI_ISEND)

void mpi_issend_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr)
{
    HP_STARTED(HP_P2P, 1, hp_bytes(*count, hp_f_type(type)), hp_f_request(req),
               (pmpi_issend_(buf, count, type, dest, tag, comm, req, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_issend, MPI_ISSEND)

void mpi_ibsend_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr)
{
    HP_STARTED(HP_P2P, 1, hp_bytes(*count, hp_f_type(type)), hp_f_request(req),
               (pmpi_ibsend_(buf, count, type, dest, tag, comm, req, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_ibsend, MPI_IBSEND)

void mpi_irsend_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr)
{
    HP_STARTED(HP_P2P, 1, hp_bytes(*count, hp_f_type(type)), hp_f_request(req),
               (pmpi_irsend_(buf, count, type, dest, tag, comm, req, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_irsend, MPI_IRSEND)

void mpi_irecv_(void *buf, F *count, F *type, F *src, F *tag, F *comm, F *req, F *ierr)
{
    HP_STARTED(HP_P2P, 0, 0, hp_f_request(req),
               (pmpi_irecv_(buf, count, type, src, tag, comm, req, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_irecv, MPI_IRECV)

void mpi_send_init_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr)
{
    HP_PERSISTENT(1, hp_bytes(*count, hp_f_type(type)), hp_f_request(req),
                  (pmpi_send_init_(buf, count, type, dest, tag, comm, req, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_send_init, MPI_SEND_INIT)

void mpi_ssend_init_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr)
{
    HP_PERSISTENT(1, hp_bytes(*count, hp_f_type(type)), hp_f_request(req),
                  (pmpi_ssend_init_(buf, count, type, dest, tag, comm, req, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_ssend_init, MPI_SSEND_INIT)

void mpi_bsend_init_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr)
{
    HP_PERSISTENT(1, hp_bytes(*count, hp_f_type(type)), hp_f_request(req),
                  (pmpi_bsend_init_(buf, count, type, dest, tag, comm, req, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_bsend_init, MPI_BSEND_INIT)

void mpi_rsend_init_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr)
{
    HP_PERSISTENT(1, hp_bytes(*count, hp_f_type(type)), hp_f_request(req),
                  (pmpi_rsend_init_(buf, count, type, dest, tag, comm, req, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_rsend_init, MPI_RSEND_INIT)

void mpi_recv_init_(void *buf, F *count, F *type, F *src, F *tag, F *comm, F *req, F *ierr)
{
    HP_PERSISTENT(0, 0, hp_f_request(req),
                  (pmpi_recv_init_(buf, count, type, src, tag, comm, req, ierr), hp_f_rc(ierr)));
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

void mpi_wait_(F *req, F *status, F *ierr)
{
    MPI_Request before = hp_f_request(req);
    hp_call c = hp_enter(__func__);
    pmpi_wait_(req, status, ierr);
    int record = hp_leave(&c, hp_f_rc(ierr));
    MPI_Request after = hp_f_request(req);
    hp_completed(&c, record, 1, &before, &after, 0);
}
HP_FORTRAN_NAMES(mpi_wait, MPI_WAIT)

void mpi_test_(F *req, F *flag, F *status, F *ierr)
{
    MPI_Request before = hp_f_request(req);
    hp_call c = hp_enter(__func__);
    pmpi_test_(req, flag, status, ierr);
    int record = hp_leave(&c, hp_f_rc(ierr));
    MPI_Request after = hp_f_request(req);
    hp_completed(&c, record, 1, &before, &after, 0);
}
HP_FORTRAN_NAMES(mpi_test, MPI_TEST)

/* Waitall, Testall, Waitany, Testany, Waitsome, Testsome: `call` runs the routine; `done` (read after
 * it) is the 0-based index of a request it completed, or -1. Fortran indices count from 1. */
#define HP_F_COMPLETION(n, reqs, call, done)                                                               \
    do {                                                                                                   \
        MPI_Request local_before[HP_LOCAL_REQUESTS], local_after[HP_LOCAL_REQUESTS];                        \
        MPI_Request *before = hp_handles(n, local_before), *after = hp_handles(n, local_after);             \
        hp_f_requests(reqs, n, before);                                                                    \
        hp_call c = hp_enter(__func__);                                                                            \
        call;                                                                                              \
        int record = hp_leave(&c, hp_f_rc(ierr));                                                          \
        hp_f_requests(reqs, n, after);                                                                     \
        hp_completed(&c, record, n, before, after, done);                                                  \
        hp_handles_free(before, local_before);                                                             \
        hp_handles_free(after, local_after);                                                               \
    } while (0)

static int one_done(const F *index) { return *index == MPI_UNDEFINED ? -1 : *index - 1; }
static int some_done(const F *outcount, const F *indices)
{
    return *outcount == MPI_UNDEFINED || *outcount == 0 ? -1 : indices[0] - 1;
}

void mpi_waitall_(F *n, F *reqs, F *statuses, F *ierr)
{
    HP_F_COMPLETION(*n, reqs, pmpi_waitall_(n, reqs, statuses, ierr), -1);
}
HP_FORTRAN_NAMES(mpi_waitall, MPI_WAITALL)

void mpi_testall_(F *n, F *reqs, F *flag, F *statuses, F *ierr)
{
    HP_F_COMPLETION(*n, reqs, pmpi_testall_(n, reqs, flag, statuses, ierr), -1);
}
HP_FORTRAN_NAMES(mpi_testall, MPI_TESTALL)

void mpi_waitany_(F *n, F *reqs, F *index, F *status, F *ierr)
{
    HP_F_COMPLETION(*n, reqs, pmpi_waitany_(n, reqs, index, status, ierr), one_done(index));
}
HP_FORTRAN_NAMES(mpi_waitany, MPI_WAITANY)

void mpi_testany_(F *n, F *reqs, F *index, F *flag, F *status, F *ierr)
{
    HP_F_COMPLETION(*n, reqs, pmpi_testany_(n, reqs, index, flag, status, ierr), one_done(index));
}
HP_FORTRAN_NAMES(mpi_testany, MPI_TESTANY)

void mpi_waitsome_(F *n, F *reqs, F *outcount, F *indices, F *statuses, F *ierr)
{
    HP_F_COMPLETION(*n, reqs, pmpi_waitsome_(n, reqs, outcount, indices, statuses, ierr), some_done(outcount, indices));
}
HP_FORTRAN_NAMES(mpi_waitsome, MPI_WAITSOME)

void mpi_testsome_(F *n, F *reqs, F *outcount, F *indices, F *statuses, F *ierr)
{
    HP_F_COMPLETION(*n, reqs, pmpi_testsome_(n, reqs, outcount, indices, statuses, ierr), some_done(outcount, indices));
}
HP_FORTRAN_NAMES(mpi_testsome, MPI_TESTSOME)
