/* Collective wrappers (C binding), blocking and non-blocking: each call is one message of the
 * caller's contribution (contribution.c); barriers are calls that move nothing. A non-blocking
 * collective counts when it is posted, like MPI_Isend, and its request makes the wait that completes
 * it collective (or barrier) time. Each is also written in the rank's trace, when it traces, as the
 * action SimGrid's replay takes (trace_actions.c); a non-blocking one as its blocking form when posted, and
 * the Alltoallw forms, which have no action, not at all (HP_COUNTED, HP_STARTED: untraced). */
#include "pmpi.h"

int MPI_Barrier(MPI_Comm comm) { return HP_TRACED(HP_BARRIER, 0, 0, PMPI_Barrier(comm), hp_trace_barrier(&c_, comm)); }

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    return HP_STARTED_TRACED(HP_BARRIER, 0, 0, *req, PMPI_Ibarrier(comm, req),
                             hp_trace_posted(hp_trace_barrier(&c_, comm)));
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    return HP_TRACED(HP_COLLECTIVE, 1, hp_bytes(count, type), PMPI_Bcast(buf, count, type, root, comm),
                     hp_trace_bcast(&c_, hp_bytes(count, type), root, comm));
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req)
{
    return HP_STARTED_TRACED(HP_COLLECTIVE, 1, hp_bytes(count, type), *req,
                             PMPI_Ibcast(buf, count, type, root, comm, req),
                             hp_trace_posted(hp_trace_bcast(&c_, hp_bytes(count, type), root, comm)));
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
    return HP_TRACED(HP_COLLECTIVE, 1, hp_bytes(count, type), PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm),
                     hp_trace_reduce(&c_, "reduce", hp_bytes(count, type), root, comm));
}

int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                MPI_Request *req)
{
    return HP_STARTED_TRACED(HP_COLLECTIVE, 1, hp_bytes(count, type), *req,
                             PMPI_Ireduce(sbuf, rbuf, count, type, op, root, comm, req),
                             hp_trace_posted(hp_trace_reduce(&c_, "reduce", hp_bytes(count, type), root, comm)));
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    return HP_TRACED(HP_COLLECTIVE, 1, hp_bytes(count, type), PMPI_Allreduce(sbuf, rbuf, count, type, op, comm),
                     hp_trace_reduce(&c_, "allreduce", hp_bytes(count, type), -1, comm));
}

int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   MPI_Request *req)
{
    return HP_STARTED_TRACED(HP_COLLECTIVE, 1, hp_bytes(count, type), *req,
                             PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, req),
                             hp_trace_posted(hp_trace_reduce(&c_, "allreduce", hp_bytes(count, type), -1, comm)));
}

int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    return HP_TRACED(HP_COLLECTIVE, 1, hp_bytes(count, type), PMPI_Scan(sbuf, rbuf, count, type, op, comm),
                     hp_trace_reduce(&c_, "scan", hp_bytes(count, type), -1, comm));
}

int MPI_Iscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    return HP_STARTED_TRACED(HP_COLLECTIVE, 1, hp_bytes(count, type), *req,
                             PMPI_Iscan(sbuf, rbuf, count, type, op, comm, req),
                             hp_trace_posted(hp_trace_reduce(&c_, "scan", hp_bytes(count, type), -1, comm)));
}

int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    return HP_TRACED(HP_COLLECTIVE, 1, hp_bytes(count, type), PMPI_Exscan(sbuf, rbuf, count, type, op, comm),
                     hp_trace_reduce(&c_, "exscan", hp_bytes(count, type), -1, comm));
}

int MPI_Iexscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    return HP_STARTED_TRACED(HP_COLLECTIVE, 1, hp_bytes(count, type), *req,
                             PMPI_Iexscan(sbuf, rbuf, count, type, op, comm, req),
                             hp_trace_posted(hp_trace_reduce(&c_, "exscan", hp_bytes(count, type), -1, comm)));
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root,
               MPI_Comm comm)
{
    return HP_TRACED(HP_COLLECTIVE, 1, hp_bytes_gather(sbuf == MPI_IN_PLACE, scount, stype, rcount, rtype),
                     PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm),
                     hp_trace_gather(&c_, "gather", hp_bytes_gather(sbuf == MPI_IN_PLACE, scount, stype, rcount, rtype),
                                     hp_bytes(rcount, rtype), root, comm));
}

int MPI_Igather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root,
                MPI_Comm comm, MPI_Request *req)
{
    return HP_STARTED_TRACED(HP_COLLECTIVE, 1, hp_bytes_gather(sbuf == MPI_IN_PLACE, scount, stype, rcount, rtype),
                             *req, PMPI_Igather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req),
                             hp_trace_posted(hp_trace_gather(
                                 &c_, "gather", hp_bytes_gather(sbuf == MPI_IN_PLACE, scount, stype, rcount, rtype),
                                 hp_bytes(rcount, rtype), root, comm)));
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[], const int displs[],
                MPI_Datatype rtype, int root, MPI_Comm comm)
{
    return HP_TRACED(HP_COLLECTIVE, 1, hp_bytes_gatherv(sbuf == MPI_IN_PLACE, scount, stype, rcounts, rtype, comm),
                     PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm),
                     hp_trace_gatherv(&c_, "gatherv",
                                      hp_bytes_gatherv(sbuf == MPI_IN_PLACE, scount, stype, rcounts, rtype, comm),
                                      hp_is_root(root, comm) ? rcounts : NULL, rtype, root, comm));
}

int MPI_Igatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[], const int displs[],
                 MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
    return HP_STARTED_TRACED(
        HP_COLLECTIVE, 1, hp_bytes_gatherv(sbuf == MPI_IN_PLACE, scount, stype, rcounts, rtype, comm), *req,
        PMPI_Igatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, req),
        hp_trace_posted(hp_trace_gatherv(&c_, "gatherv",
                                         hp_bytes_gatherv(sbuf == MPI_IN_PLACE, scount, stype, rcounts, rtype, comm),
                                         hp_is_root(root, comm) ? rcounts : NULL, rtype, root, comm)));
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                  MPI_Comm comm)
{
    return HP_TRACED(HP_COLLECTIVE, 1, hp_bytes_gather(sbuf == MPI_IN_PLACE, scount, stype, rcount, rtype),
                     PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm),
                     hp_trace_gather(&c_, "allgather",
                                     hp_bytes_gather(sbuf == MPI_IN_PLACE, scount, stype, rcount, rtype),
                                     hp_bytes(rcount, rtype), -1, comm));
}

int MPI_Iallgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                   MPI_Comm comm, MPI_Request *req)
{
    return HP_STARTED_TRACED(HP_COLLECTIVE, 1, hp_bytes_gather(sbuf == MPI_IN_PLACE, scount, stype, rcount, rtype),
                             *req, PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, req),
                             hp_trace_posted(hp_trace_gather(
                                 &c_, "allgather", hp_bytes_gather(sbuf == MPI_IN_PLACE, scount, stype, rcount, rtype),
                                 hp_bytes(rcount, rtype), -1, comm)));
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
                   const int displs[], MPI_Datatype rtype, MPI_Comm comm)
{
    return HP_TRACED(HP_COLLECTIVE, 1, hp_bytes_gatherv(sbuf == MPI_IN_PLACE, scount, stype, rcounts, rtype, comm),
                     PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm),
                     hp_trace_gatherv(&c_, "allgatherv",
                                      hp_bytes_gatherv(sbuf == MPI_IN_PLACE, scount, stype, rcounts, rtype, comm),
                                      rcounts, rtype, -1, comm));
}

int MPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
                    const int displs[], MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    return HP_STARTED_TRACED(
        HP_COLLECTIVE, 1, hp_bytes_gatherv(sbuf == MPI_IN_PLACE, scount, stype, rcounts, rtype, comm), *req,
        PMPI_Iallgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req),
        hp_trace_posted(hp_trace_gatherv(&c_, "allgatherv",
                                         hp_bytes_gatherv(sbuf == MPI_IN_PLACE, scount, stype, rcounts, rtype, comm),
                                         rcounts, rtype, -1, comm)));
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root,
                MPI_Comm comm)
{
    return HP_TRACED(HP_COLLECTIVE, 1, hp_bytes_scatter(root, scount, stype, comm),
                     PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm),
                     hp_trace_gather(&c_, "scatter", hp_bytes(scount, stype), hp_bytes(rcount, rtype), root, comm));
}

int MPI_Iscatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root,
                 MPI_Comm comm, MPI_Request *req)
{
    return HP_STARTED_TRACED(
        HP_COLLECTIVE, 1, hp_bytes_scatter(root, scount, stype, comm), *req,
        PMPI_Iscatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req),
        hp_trace_posted(hp_trace_gather(&c_, "scatter", hp_bytes(scount, stype), hp_bytes(rcount, rtype), root, comm)));
}

int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, int root, MPI_Comm comm)
{
    return HP_TRACED(
        HP_COLLECTIVE, 1, hp_bytes_scatterv(root, scounts, stype, comm),
        PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm),
        hp_trace_scatterv(&c_, hp_is_root(root, comm) ? scounts : NULL, stype, hp_bytes(rcount, rtype), root, comm));
}

int MPI_Iscatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
    return HP_STARTED_TRACED(HP_COLLECTIVE, 1, hp_bytes_scatterv(root, scounts, stype, comm), *req,
                             PMPI_Iscatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, req),
                             hp_trace_posted(hp_trace_scatterv(&c_, hp_is_root(root, comm) ? scounts : NULL, stype,
                                                               hp_bytes(rcount, rtype), root, comm)));
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                 MPI_Comm comm)
{
    return HP_TRACED(
        HP_COLLECTIVE, 1, hp_bytes_alltoall(sbuf == MPI_IN_PLACE, scount, stype, rcount, rtype, comm),
        PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm),
        hp_trace_gather(&c_, "alltoall",
                        hp_bytes(sbuf == MPI_IN_PLACE ? rcount : scount, sbuf == MPI_IN_PLACE ? rtype : stype),
                        hp_bytes(rcount, rtype), -1, comm));
}

int MPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                  MPI_Comm comm, MPI_Request *req)
{
    return HP_STARTED_TRACED(
        HP_COLLECTIVE, 1, hp_bytes_alltoall(sbuf == MPI_IN_PLACE, scount, stype, rcount, rtype, comm), *req,
        PMPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, req),
        hp_trace_posted(hp_trace_gather(
            &c_, "alltoall", hp_bytes(sbuf == MPI_IN_PLACE ? rcount : scount, sbuf == MPI_IN_PLACE ? rtype : stype),
            hp_bytes(rcount, rtype), -1, comm)));
}

int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void *rbuf,
                  const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm)
{
    return HP_TRACED(HP_COLLECTIVE, 1, hp_bytes_alltoallv(sbuf == MPI_IN_PLACE, scounts, stype, rcounts, rtype, comm),
                     PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm),
                     hp_trace_alltoallv(&c_, sbuf == MPI_IN_PLACE ? rcounts : scounts,
                                        sbuf == MPI_IN_PLACE ? rtype : stype, rcounts, rtype, comm));
}

int MPI_Ialltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void *rbuf,
                   const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    return HP_STARTED_TRACED(
        HP_COLLECTIVE, 1, hp_bytes_alltoallv(sbuf == MPI_IN_PLACE, scounts, stype, rcounts, rtype, comm), *req,
        PMPI_Ialltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req),
        hp_trace_posted(hp_trace_alltoallv(&c_, sbuf == MPI_IN_PLACE ? rcounts : scounts,
                                           sbuf == MPI_IN_PLACE ? rtype : stype, rcounts, rtype, comm)));
}

int MPI_Alltoallw(const void *sbuf, const int scounts[], const int sdispls[], const MPI_Datatype stypes[], void *rbuf,
                  const int rcounts[], const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm)
{
    return HP_COUNTED(HP_COLLECTIVE, 1,
                      hp_bytes_alltoallw(sbuf == MPI_IN_PLACE, scounts, stypes, rcounts, rtypes, comm),
                      PMPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm));
}

int MPI_Ialltoallw(const void *sbuf, const int scounts[], const int sdispls[], const MPI_Datatype stypes[], void *rbuf,
                   const int rcounts[], const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
                   MPI_Request *req)
{
    return HP_STARTED(HP_COLLECTIVE, 1,
                      hp_bytes_alltoallw(sbuf == MPI_IN_PLACE, scounts, stypes, rcounts, rtypes, comm), *req,
                      PMPI_Ialltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, req));
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    return HP_TRACED(HP_COLLECTIVE, 1, hp_bytes_reduce_scatter(rcounts, type, comm),
                     PMPI_Reduce_scatter(sbuf, rbuf, rcounts, type, op, comm),
                     hp_trace_reduce_scatter(&c_, rcounts, 0, type, comm));
}

int MPI_Ireduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                        MPI_Request *req)
{
    return HP_STARTED_TRACED(HP_COLLECTIVE, 1, hp_bytes_reduce_scatter(rcounts, type, comm), *req,
                             PMPI_Ireduce_scatter(sbuf, rbuf, rcounts, type, op, comm, req),
                             hp_trace_posted(hp_trace_reduce_scatter(&c_, rcounts, 0, type, comm)));
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    return HP_TRACED(HP_COLLECTIVE, 1, hp_bytes_reduce_scatter_block(rcount, type, comm),
                     PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, type, op, comm),
                     hp_trace_reduce_scatter(&c_, NULL, rcount, type, comm));
}

int MPI_Ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                              MPI_Request *req)
{
    return HP_STARTED_TRACED(HP_COLLECTIVE, 1, hp_bytes_reduce_scatter_block(rcount, type, comm), *req,
                             PMPI_Ireduce_scatter_block(sbuf, rbuf, rcount, type, op, comm, req),
                             hp_trace_posted(hp_trace_reduce_scatter(&c_, NULL, rcount, type, comm)));
}
