/* The counted collectives (hp_comm.h). Apart from the point-to-point wrappers because the PMPI library needs
 * them too: the cross-rank statistics it shares with the kernels (hp_stats.c, hp_report.c) reduce through
 * hp_allreduce. Each records into exactly one class, so a kernel's profile adds up. */
#include "hp_comm.h"

void hp_allreduce(hp_comm *c, const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    double t0 = hp_comm_begin(c);
    MPI_Allreduce(sbuf, rbuf, count, type, op, comm);
    hp_comm_record(c, HP_COLLECTIVE, t0, 1, hp_comm_bytes(count, type));
}

void hp_bcast(hp_comm *c, void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    double t0 = hp_comm_begin(c);
    MPI_Bcast(buf, count, type, root, comm);
    hp_comm_record(c, HP_COLLECTIVE, t0, 1, hp_comm_bytes(count, type));
}

void hp_gather(hp_comm *c, const void *sbuf, int count, MPI_Datatype type, void *rbuf, int root, MPI_Comm comm)
{
    double t0 = hp_comm_begin(c);
    MPI_Gather(sbuf, count, type, rbuf, count, type, root, comm);
    hp_comm_record(c, HP_COLLECTIVE, t0, 1, hp_comm_bytes(count, type));
}

void hp_gatherv(hp_comm *c, const void *sbuf, int scount, MPI_Datatype type, void *rbuf, const int *rcounts,
                const int *displs, int root, MPI_Comm comm)
{
    double t0 = hp_comm_begin(c);
    MPI_Gatherv(sbuf, scount, type, rbuf, rcounts, displs, type, root, comm);
    hp_comm_record(c, HP_COLLECTIVE, t0, 1, hp_comm_bytes(scount, type));
}

void hp_barrier(hp_comm *c, MPI_Comm comm)
{
    double t0 = hp_comm_begin(c);
    MPI_Barrier(comm);
    hp_comm_record(c, HP_BARRIER, t0, 0, 0);
}
