/* Instrumented MPI calls; see hp_comm.h for what is counted and why. Every function records into
 * exactly one class, so a kernel's profile adds up: the class totals are the whole of its MPI. */
#include "hp_comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hp_timer.h"

const char *const hp_comm_class_names[HP_NCLASSES] = {"p2p", "collective", "barrier"};

void hp_comm_init(hp_comm *c, int timing)
{
    memset(c, 0, sizeof *c);
    c->timing = timing;
}

void hp_comm_count(hp_comm *c, int on)
{
    c->counting = on;
    MPI_Pcontrol(on);
}

/* The bit length of `bytes` (capped): one instruction rather than a loop, as it runs on every message. */
int hp_histogram_bin(long long bytes)
{
    if (bytes <= 0) return 0;
    int bin = 64 - __builtin_clzll((unsigned long long)bytes);
    return bin < HP_HIST_BINS - 1 ? bin : HP_HIST_BINS - 1;
}

static double start(const hp_comm *c) { return c->counting && c->timing ? hp_now() : 0.0; }

void hp_counts_call(hp_comm_counts *n, double seconds)
{
    n->calls++;
    n->seconds += seconds;
}

void hp_counts_message(hp_comm_counts *n, long long bytes)
{
    n->messages++;
    n->bytes += bytes;
    n->histogram[hp_histogram_bin(bytes)]++;
}

/* One MPI call of class k that sent `messages` messages of `bytes` bytes each. */
static void record(hp_comm *c, hp_comm_class k, double t0, int messages, long long bytes)
{
    if (!c->counting) return;
    hp_comm_counts *n = &c->cls[k];
    hp_counts_call(n, c->timing ? hp_now() - t0 : 0.0);
    for (int m = 0; m < messages; m++) hp_counts_message(n, bytes);
}

static long long bytes_of(int count, MPI_Datatype type)
{
    int size;
    MPI_Type_size(type, &size);
    return (long long)count * size;
}

void hp_sendrecv(hp_comm *c, const void *sbuf, int scount, MPI_Datatype type, int dest, void *rbuf, int rcount, int src,
                 int tag, MPI_Comm comm)
{
    double t0 = start(c);
    MPI_Sendrecv(sbuf, scount, type, dest, tag, rbuf, rcount, type, src, tag, comm, MPI_STATUS_IGNORE);
    record(c, HP_P2P, t0, 1, bytes_of(scount, type));
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
    double t0 = start(c);
    MPI_Probe(src, tag, comm, &status);
    record(c, HP_P2P, t0, 0, 0);
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

void hp_allreduce(hp_comm *c, const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    double t0 = start(c);
    MPI_Allreduce(sbuf, rbuf, count, type, op, comm);
    record(c, HP_COLLECTIVE, t0, 1, bytes_of(count, type));
}

void hp_bcast(hp_comm *c, void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    double t0 = start(c);
    MPI_Bcast(buf, count, type, root, comm);
    record(c, HP_COLLECTIVE, t0, 1, bytes_of(count, type));
}

void hp_gather(hp_comm *c, const void *sbuf, int count, MPI_Datatype type, void *rbuf, int root, MPI_Comm comm)
{
    double t0 = start(c);
    MPI_Gather(sbuf, count, type, rbuf, count, type, root, comm);
    record(c, HP_COLLECTIVE, t0, 1, bytes_of(count, type));
}

void hp_gatherv(hp_comm *c, const void *sbuf, int scount, MPI_Datatype type, void *rbuf, const int *rcounts,
                const int *displs, int root, MPI_Comm comm)
{
    double t0 = start(c);
    MPI_Gatherv(sbuf, scount, type, rbuf, rcounts, displs, type, root, comm);
    record(c, HP_COLLECTIVE, t0, 1, bytes_of(scount, type));
}

void hp_barrier(hp_comm *c, MPI_Comm comm)
{
    double t0 = start(c);
    MPI_Barrier(comm);
    record(c, HP_BARRIER, t0, 0, 0);
}

void hp_counts_merge(hp_comm_counts *into, const hp_comm_counts *from)
{
    into->calls += from->calls;
    into->messages += from->messages;
    into->bytes += from->bytes;
    into->seconds += from->seconds;
    for (int bin = 0; bin < HP_HIST_BINS; bin++) into->histogram[bin] += from->histogram[bin];
}

void hp_comm_merge(hp_comm *into, const hp_comm *from)
{
    for (int k = 0; k < HP_NCLASSES; k++) hp_counts_merge(&into->cls[k], &from->cls[k]);
}

void hp_send(hp_comm *c, const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    double t0 = start(c);
    MPI_Send(buf, count, type, dest, tag, comm);
    record(c, HP_P2P, t0, 1, bytes_of(count, type));
}

void hp_recv(hp_comm *c, void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm)
{
    double t0 = start(c);
    MPI_Recv(buf, count, type, src, tag, comm, MPI_STATUS_IGNORE);
    record(c, HP_P2P, t0, 0, 0);
}

void hp_isend(hp_comm *c, const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    double t0 = start(c);
    MPI_Isend(buf, count, type, dest, tag, comm, req);
    record(c, HP_P2P, t0, 1, bytes_of(count, type));
}

void hp_irecv(hp_comm *c, void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req)
{
    double t0 = start(c);
    MPI_Irecv(buf, count, type, src, tag, comm, req);
    record(c, HP_P2P, t0, 0, 0);
}

void hp_waitall(hp_comm *c, int n, MPI_Request *reqs)
{
    /* Real statuses rather than MPI_STATUSES_IGNORE: GCC 12 reads MPICH's (MPI_Status *)1 as a
     * zero-length array and fails a -Werror build with -Wstringop-overflow. */
    enum { LOCAL = 32 };
    MPI_Status local[LOCAL], *statuses = n <= LOCAL ? local : malloc((size_t)n * sizeof *statuses);
    double t0 = start(c);
    MPI_Waitall(n, reqs, statuses);
    record(c, HP_P2P, t0, 0, 0);
    if (statuses != local) free(statuses);
}

int hp_test(hp_comm *c, MPI_Request *req)
{
    double t0 = start(c);
    int done;
    MPI_Test(req, &done, MPI_STATUS_IGNORE);
    record(c, HP_P2P, t0, 0, 0);
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
