/* The kernels' counting switch and their point-to-point calls; see hp_comm.h for what is counted and why (the
 * collectives are in hp_collectives.c). Every function records into exactly one class, so a kernel's profile
 * adds up: the class totals are the whole of its MPI. */
#include "hp_comm.h"

#include <stdio.h>
#include <stdlib.h>

#include "hp_counters.h"

void hp_comm_count(hp_comm *c, int on)
{
    c->counting = on;
    hp_counters_window(on);
    MPI_Pcontrol(on);
}

void hp_sendrecv(hp_comm *c, const void *sbuf, int scount, MPI_Datatype type, int dest, void *rbuf, int rcount, int src,
                 int tag, MPI_Comm comm)
{
    double t0 = hp_comm_begin(c);
    MPI_Sendrecv(sbuf, scount, type, dest, tag, rbuf, rcount, type, src, tag, comm, MPI_STATUS_IGNORE);
    hp_comm_record(c, HP_P2P, t0, 1, hp_comm_bytes(scount, type));
}

size_t hp_sendrecv_grow(hp_comm *c, const void *sbuf, size_t sbytes, int dest, void **rbuf, size_t *rcap, int src,
                        int tag, MPI_Comm comm)
{
    if (sbytes > (size_t)0x7fffffff) {
        fprintf(stderr, "hybridperf: error: a message of %zu bytes exceeds MPI's int count\n", sbytes);
        MPI_Abort(comm, 1);
    }
    /* Four MPI calls, each counted as itself (as an interposed library counts them). */
    MPI_Request req;
    MPI_Status status;
    int rbytes;
    hp_isend(c, sbuf, (int)sbytes, MPI_BYTE, dest, tag, comm, &req);
    double t0 = hp_comm_begin(c);
    MPI_Probe(src, tag, comm, &status);
    hp_comm_record(c, HP_P2P, t0, 0, 0);
    MPI_Get_count(&status, MPI_BYTE, &rbytes);
    if ((size_t)rbytes > *rcap) {
        size_t cap = (size_t)rbytes + (size_t)rbytes / 4 + 64;
        void *grown = realloc(*rbuf, cap);
        if (!grown) {
            fprintf(stderr, "hybridperf: error: out of memory for a %d-byte message\n", rbytes);
            MPI_Abort(comm, 1);
        }
        *rbuf = grown;
        *rcap = cap;
    }
    hp_recv(c, *rbuf, rbytes, MPI_BYTE, src, tag, comm);
    hp_waitall(c, 1, &req);
    return (size_t)rbytes;
}

void hp_send(hp_comm *c, const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    double t0 = hp_comm_begin(c);
    MPI_Send(buf, count, type, dest, tag, comm);
    hp_comm_record(c, HP_P2P, t0, 1, hp_comm_bytes(count, type));
}

void hp_recv(hp_comm *c, void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm)
{
    double t0 = hp_comm_begin(c);
    MPI_Recv(buf, count, type, src, tag, comm, MPI_STATUS_IGNORE);
    hp_comm_record(c, HP_P2P, t0, 0, 0);
}

void hp_isend(hp_comm *c, const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    double t0 = hp_comm_begin(c);
    MPI_Isend(buf, count, type, dest, tag, comm, req);
    hp_comm_record(c, HP_P2P, t0, 1, hp_comm_bytes(count, type));
}

void hp_irecv(hp_comm *c, void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req)
{
    double t0 = hp_comm_begin(c);
    MPI_Irecv(buf, count, type, src, tag, comm, req);
    hp_comm_record(c, HP_P2P, t0, 0, 0);
}

void hp_waitall(hp_comm *c, int n, MPI_Request *reqs)
{
    /* Real statuses rather than MPI_STATUSES_IGNORE: GCC 12 reads MPICH's (MPI_Status *)1 as a
     * zero-length array and fails a -Werror build with -Wstringop-overflow. */
    enum { LOCAL = 32 };
    MPI_Status local[LOCAL], *statuses = n <= LOCAL ? local : malloc((size_t)n * sizeof *statuses);
    double t0 = hp_comm_begin(c);
    MPI_Waitall(n, reqs, statuses);
    hp_comm_record(c, HP_P2P, t0, 0, 0);
    if (statuses != local) free(statuses);
}

void hp_wait(hp_comm *c, MPI_Request *req)
{
    double t0 = hp_comm_begin(c);
    MPI_Wait(req, MPI_STATUS_IGNORE);
    hp_comm_record(c, HP_P2P, t0, 0, 0);
}

int hp_test(hp_comm *c, MPI_Request *req)
{
    double t0 = hp_comm_begin(c);
    int done;
    MPI_Test(req, &done, MPI_STATUS_IGNORE);
    hp_comm_record(c, HP_P2P, t0, 0, 0);
    return done;
}

void hp_subcomm_create(MPI_Comm comm, int size, MPI_Comm *out)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_split(comm, rank < size ? 0 : MPI_UNDEFINED, rank, out);
}

void hp_subcomm_free(MPI_Comm *comm)
{
    if (*comm != MPI_COMM_NULL) MPI_Comm_free(comm);
}
