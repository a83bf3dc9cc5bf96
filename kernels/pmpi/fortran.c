/* Open MPI's Fortran binding, the routines written by hand: start and end, MPI_Start, the waits and tests,
 * counted as their C counterparts are (lifecycle.c, starts.c, completion.c); and what the wrappers that
 * wrappers.py writes from routines.py call here. See fortran.h for why and how. */
#include <stdlib.h>

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

/* ---- for the wrappers written from routines.py ---- */

/* A Fortran irecv or Recv_init from MPI_ANY_SOURCE or MPI_ANY_TAG is not traced: its wait would have to fill
 * the source and tag in from Fortran statuses, which this binding does not read (counted as untraced). */
static int any_peer(const F *src, const F *tag) { return *src == MPI_ANY_SOURCE || *tag == MPI_ANY_TAG; }

hp_traced hp_f_trace_irecv(hp_call *c, const F *src, const F *tag, const F *count, const F *type, const F *comm)
{
    if (any_peer(src, tag)) return hp_trace_skipped(c, HP_UNTRACED_ROUTINE);
    return hp_trace_irecv(c, *src, *tag, *count, hp_f_type(type), hp_f_comm(comm));
}

hp_traced hp_f_trace_recv_init(hp_call *c, const F *src, const F *tag, const F *count, const F *type,
                                      const F *comm)
{
    if (any_peer(src, tag)) return hp_trace_skipped(c, HP_UNTRACED_ROUTINE);
    return hp_trace_persistent(c, 0, *src, *tag, *count, hp_f_type(type), hp_f_comm(comm));
}

/* MPI_Alltoallw's datatypes come one per peer: converted to C handles for contribution.c. */
long long hp_f_alltoallw_bytes(const void *sbuf, const F *scounts, const F *stypes, const F *rcounts, const F *rtypes,
                               const F *comm)
{
    MPI_Comm c = hp_f_comm(comm);
    int n = hp_peers(c);
    MPI_Datatype *types = malloc(2 * (size_t)n * sizeof *types);
    if (!types) return 0; /* out of memory: the message is counted, its bytes are not */
    for (int i = 0; i < n; i++) {
        types[i] = PMPI_Type_f2c(stypes[i]);
        types[n + i] = PMPI_Type_f2c(rtypes[i]);
    }
    long long bytes = hp_bytes_alltoallw(hp_f_in_place(sbuf), scounts, types, rcounts, types + n, c);
    free(types);
    return bytes;
}

/* ---- requests ---- */

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
