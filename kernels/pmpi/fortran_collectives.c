/* Open MPI's Fortran binding, part two: collectives, blocking and non-blocking, and the one-sided
 * calls most programs use (put, get, accumulate and their synchronisation); counted as their C
 * counterparts are (collectives.c, one_sided.c, contribution.c). See fortran.h for why and how. */
#include <stdlib.h>

#include "fortran.h"

/* The bytes a Gatherv or Allgatherv moves, as the C wrappers count them. */
static long long gatherv_bytes(const void *sbuf, const F *scount, const F *stype, const F *rcounts, const F *rtype,
                               const F *comm)
{
    return hp_bytes_gatherv(hp_f_in_place(sbuf), *scount, hp_f_type(stype), rcounts, hp_f_type(rtype), hp_f_comm(comm));
}

void mpi_barrier_(F *comm, F *ierr)
{
    HP_TRACED(HP_BARRIER, 0, 0, (pmpi_barrier_(comm, ierr), hp_f_rc(ierr)), hp_trace_barrier(&c_, hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_barrier, MPI_BARRIER)

void mpi_ibarrier_(F *comm, F *req, F *ierr)
{
    HP_STARTED_TRACED(HP_BARRIER, 0, 0, hp_f_request(req), (pmpi_ibarrier_(comm, req, ierr), hp_f_rc(ierr)),
                      hp_trace_posted(hp_trace_barrier(&c_, hp_f_comm(comm))));
}
HP_FORTRAN_NAMES(mpi_ibarrier, MPI_IBARRIER)

void mpi_bcast_(void *buf, F *count, F *type, F *root, F *comm, F *ierr)
{
    HP_TRACED(HP_COLLECTIVE, 1, hp_bytes(*count, hp_f_type(type)),
              (pmpi_bcast_(buf, count, type, root, comm, ierr), hp_f_rc(ierr)),
              hp_trace_bcast(&c_, hp_bytes(*count, hp_f_type(type)), *root, hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_bcast, MPI_BCAST)

void mpi_ibcast_(void *buf, F *count, F *type, F *root, F *comm, F *req, F *ierr)
{
    HP_STARTED_TRACED(HP_COLLECTIVE, 1, hp_bytes(*count, hp_f_type(type)), hp_f_request(req),
                      (pmpi_ibcast_(buf, count, type, root, comm, req, ierr), hp_f_rc(ierr)),
                      hp_trace_posted(hp_trace_bcast(&c_, hp_bytes(*count, hp_f_type(type)), *root, hp_f_comm(comm))));
}
HP_FORTRAN_NAMES(mpi_ibcast, MPI_IBCAST)

void mpi_reduce_(void *sbuf, void *rbuf, F *count, F *type, F *op, F *root, F *comm, F *ierr)
{
    HP_TRACED(HP_COLLECTIVE, 1, hp_bytes(*count, hp_f_type(type)),
              (pmpi_reduce_(sbuf, rbuf, count, type, op, root, comm, ierr), hp_f_rc(ierr)),
              hp_trace_reduce(&c_, "reduce", hp_bytes(*count, hp_f_type(type)), *root, hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_reduce, MPI_REDUCE)

void mpi_ireduce_(void *sbuf, void *rbuf, F *count, F *type, F *op, F *root, F *comm, F *req, F *ierr)
{
    HP_STARTED_TRACED(
        HP_COLLECTIVE, 1, hp_bytes(*count, hp_f_type(type)), hp_f_request(req),
        (pmpi_ireduce_(sbuf, rbuf, count, type, op, root, comm, req, ierr), hp_f_rc(ierr)),
        hp_trace_posted(hp_trace_reduce(&c_, "reduce", hp_bytes(*count, hp_f_type(type)), *root, hp_f_comm(comm))));
}
HP_FORTRAN_NAMES(mpi_ireduce, MPI_IREDUCE)

void mpi_allreduce_(void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm, F *ierr)
{
    HP_TRACED(HP_COLLECTIVE, 1, hp_bytes(*count, hp_f_type(type)),
              (pmpi_allreduce_(sbuf, rbuf, count, type, op, comm, ierr), hp_f_rc(ierr)),
              hp_trace_reduce(&c_, "allreduce", hp_bytes(*count, hp_f_type(type)), -1, hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_allreduce, MPI_ALLREDUCE)

void mpi_iallreduce_(void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm, F *req, F *ierr)
{
    HP_STARTED_TRACED(
        HP_COLLECTIVE, 1, hp_bytes(*count, hp_f_type(type)), hp_f_request(req),
        (pmpi_iallreduce_(sbuf, rbuf, count, type, op, comm, req, ierr), hp_f_rc(ierr)),
        hp_trace_posted(hp_trace_reduce(&c_, "allreduce", hp_bytes(*count, hp_f_type(type)), -1, hp_f_comm(comm))));
}
HP_FORTRAN_NAMES(mpi_iallreduce, MPI_IALLREDUCE)

void mpi_scan_(void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm, F *ierr)
{
    HP_TRACED(HP_COLLECTIVE, 1, hp_bytes(*count, hp_f_type(type)),
              (pmpi_scan_(sbuf, rbuf, count, type, op, comm, ierr), hp_f_rc(ierr)),
              hp_trace_reduce(&c_, "scan", hp_bytes(*count, hp_f_type(type)), -1, hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_scan, MPI_SCAN)

void mpi_iscan_(void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm, F *req, F *ierr)
{
    HP_STARTED_TRACED(
        HP_COLLECTIVE, 1, hp_bytes(*count, hp_f_type(type)), hp_f_request(req),
        (pmpi_iscan_(sbuf, rbuf, count, type, op, comm, req, ierr), hp_f_rc(ierr)),
        hp_trace_posted(hp_trace_reduce(&c_, "scan", hp_bytes(*count, hp_f_type(type)), -1, hp_f_comm(comm))));
}
HP_FORTRAN_NAMES(mpi_iscan, MPI_ISCAN)

void mpi_exscan_(void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm, F *ierr)
{
    HP_TRACED(HP_COLLECTIVE, 1, hp_bytes(*count, hp_f_type(type)),
              (pmpi_exscan_(sbuf, rbuf, count, type, op, comm, ierr), hp_f_rc(ierr)),
              hp_trace_reduce(&c_, "exscan", hp_bytes(*count, hp_f_type(type)), -1, hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_exscan, MPI_EXSCAN)

void mpi_iexscan_(void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm, F *req, F *ierr)
{
    HP_STARTED_TRACED(
        HP_COLLECTIVE, 1, hp_bytes(*count, hp_f_type(type)), hp_f_request(req),
        (pmpi_iexscan_(sbuf, rbuf, count, type, op, comm, req, ierr), hp_f_rc(ierr)),
        hp_trace_posted(hp_trace_reduce(&c_, "exscan", hp_bytes(*count, hp_f_type(type)), -1, hp_f_comm(comm))));
}
HP_FORTRAN_NAMES(mpi_iexscan, MPI_IEXSCAN)

void mpi_gather_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm, F *ierr)
{
    HP_TRACED(
        HP_COLLECTIVE, 1, hp_bytes_gather(hp_f_in_place(sbuf), *scount, hp_f_type(stype), *rcount, hp_f_type(rtype)),
        (pmpi_gather_(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr), hp_f_rc(ierr)),
        hp_trace_gather(&c_, "gather",
                        hp_bytes_gather(hp_f_in_place(sbuf), *scount, hp_f_type(stype), *rcount, hp_f_type(rtype)),
                        hp_bytes(*rcount, hp_f_type(rtype)), *root, hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_gather, MPI_GATHER)

void mpi_igather_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm, F *req, F *ierr)
{
    HP_STARTED_TRACED(
        HP_COLLECTIVE, 1, hp_bytes_gather(hp_f_in_place(sbuf), *scount, hp_f_type(stype), *rcount, hp_f_type(rtype)),
        hp_f_request(req),
        (pmpi_igather_(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req, ierr), hp_f_rc(ierr)),
        hp_trace_posted(hp_trace_gather(
            &c_, "gather", hp_bytes_gather(hp_f_in_place(sbuf), *scount, hp_f_type(stype), *rcount, hp_f_type(rtype)),
            hp_bytes(*rcount, hp_f_type(rtype)), *root, hp_f_comm(comm))));
}
HP_FORTRAN_NAMES(mpi_igather, MPI_IGATHER)

void mpi_gatherv_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs, F *rtype, F *root, F *comm,
                  F *ierr)
{
    HP_TRACED(HP_COLLECTIVE, 1, gatherv_bytes(sbuf, scount, stype, rcounts, rtype, comm),
              (pmpi_gatherv_(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, ierr), hp_f_rc(ierr)),
              hp_trace_gatherv(&c_, "gatherv", gatherv_bytes(sbuf, scount, stype, rcounts, rtype, comm), hp_is_root(*root, hp_f_comm(comm)) ? rcounts : NULL,
                               hp_f_type(rtype), *root, hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_gatherv, MPI_GATHERV)

void mpi_igatherv_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs, F *rtype, F *root, F *comm,
                   F *req, F *ierr)
{
    HP_STARTED_TRACED(
        HP_COLLECTIVE, 1, gatherv_bytes(sbuf, scount, stype, rcounts, rtype, comm), hp_f_request(req),
        (pmpi_igatherv_(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, req, ierr), hp_f_rc(ierr)),
        hp_trace_posted(hp_trace_gatherv(&c_, "gatherv", gatherv_bytes(sbuf, scount, stype, rcounts, rtype, comm),
                                         hp_is_root(*root, hp_f_comm(comm)) ? rcounts : NULL, hp_f_type(rtype), *root,
                                         hp_f_comm(comm))));
}
HP_FORTRAN_NAMES(mpi_igatherv, MPI_IGATHERV)

void mpi_allgather_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm, F *ierr)
{
    HP_TRACED(
        HP_COLLECTIVE, 1, hp_bytes_gather(hp_f_in_place(sbuf), *scount, hp_f_type(stype), *rcount, hp_f_type(rtype)),
        (pmpi_allgather_(sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr), hp_f_rc(ierr)),
        hp_trace_gather(&c_, "allgather",
                        hp_bytes_gather(hp_f_in_place(sbuf), *scount, hp_f_type(stype), *rcount, hp_f_type(rtype)),
                        hp_bytes(*rcount, hp_f_type(rtype)), -1, hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_allgather, MPI_ALLGATHER)

void mpi_iallgather_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm, F *req, F *ierr)
{
    HP_STARTED_TRACED(
        HP_COLLECTIVE, 1, hp_bytes_gather(hp_f_in_place(sbuf), *scount, hp_f_type(stype), *rcount, hp_f_type(rtype)),
        hp_f_request(req), (pmpi_iallgather_(sbuf, scount, stype, rbuf, rcount, rtype, comm, req, ierr), hp_f_rc(ierr)),
        hp_trace_posted(
            hp_trace_gather(&c_, "allgather",
                            hp_bytes_gather(hp_f_in_place(sbuf), *scount, hp_f_type(stype), *rcount, hp_f_type(rtype)),
                            hp_bytes(*rcount, hp_f_type(rtype)), -1, hp_f_comm(comm))));
}
HP_FORTRAN_NAMES(mpi_iallgather, MPI_IALLGATHER)

void mpi_allgatherv_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs, F *rtype, F *comm, F *ierr)
{
    HP_TRACED(HP_COLLECTIVE, 1, gatherv_bytes(sbuf, scount, stype, rcounts, rtype, comm),
              (pmpi_allgatherv_(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, ierr), hp_f_rc(ierr)),
              hp_trace_gatherv(&c_, "allgatherv", gatherv_bytes(sbuf, scount, stype, rcounts, rtype, comm), rcounts,
                               hp_f_type(rtype), -1, hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_allgatherv, MPI_ALLGATHERV)

void mpi_iallgatherv_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs, F *rtype, F *comm, F *req,
                      F *ierr)
{
    HP_STARTED_TRACED(
        HP_COLLECTIVE, 1, gatherv_bytes(sbuf, scount, stype, rcounts, rtype, comm), hp_f_request(req),
        (pmpi_iallgatherv_(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req, ierr), hp_f_rc(ierr)),
        hp_trace_posted(hp_trace_gatherv(&c_, "allgatherv", gatherv_bytes(sbuf, scount, stype, rcounts, rtype, comm),
                                         rcounts, hp_f_type(rtype), -1, hp_f_comm(comm))));
}
HP_FORTRAN_NAMES(mpi_iallgatherv, MPI_IALLGATHERV)

void mpi_scatter_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm, F *ierr)
{
    HP_TRACED(HP_COLLECTIVE, 1, hp_bytes_scatter(*root, *scount, hp_f_type(stype), hp_f_comm(comm)),
              (pmpi_scatter_(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr), hp_f_rc(ierr)),
              hp_trace_gather(&c_, "scatter", hp_bytes(*scount, hp_f_type(stype)), hp_bytes(*rcount, hp_f_type(rtype)),
                              *root, hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_scatter, MPI_SCATTER)

void mpi_iscatter_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm, F *req, F *ierr)
{
    HP_STARTED_TRACED(
        HP_COLLECTIVE, 1, hp_bytes_scatter(*root, *scount, hp_f_type(stype), hp_f_comm(comm)), hp_f_request(req),
        (pmpi_iscatter_(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req, ierr), hp_f_rc(ierr)),
        hp_trace_posted(hp_trace_gather(&c_, "scatter", hp_bytes(*scount, hp_f_type(stype)),
                                        hp_bytes(*rcount, hp_f_type(rtype)), *root, hp_f_comm(comm))));
}
HP_FORTRAN_NAMES(mpi_iscatter, MPI_ISCATTER)

void mpi_scatterv_(void *sbuf, F *scounts, F *displs, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm,
                   F *ierr)
{
    HP_TRACED(HP_COLLECTIVE, 1, hp_bytes_scatterv(*root, scounts, hp_f_type(stype), hp_f_comm(comm)),
              (pmpi_scatterv_(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, ierr), hp_f_rc(ierr)),
              hp_trace_scatterv(&c_, hp_is_root(*root, hp_f_comm(comm)) ? scounts : NULL, hp_f_type(stype),
                                hp_bytes(*rcount, hp_f_type(rtype)), *root, hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_scatterv, MPI_SCATTERV)

void mpi_iscatterv_(void *sbuf, F *scounts, F *displs, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm,
                    F *req, F *ierr)
{
    HP_STARTED_TRACED(
        HP_COLLECTIVE, 1, hp_bytes_scatterv(*root, scounts, hp_f_type(stype), hp_f_comm(comm)), hp_f_request(req),
        (pmpi_iscatterv_(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, req, ierr), hp_f_rc(ierr)),
        hp_trace_posted(hp_trace_scatterv(&c_, hp_is_root(*root, hp_f_comm(comm)) ? scounts : NULL, hp_f_type(stype),
                                          hp_bytes(*rcount, hp_f_type(rtype)), *root, hp_f_comm(comm))));
}
HP_FORTRAN_NAMES(mpi_iscatterv, MPI_ISCATTERV)

void mpi_alltoall_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm, F *ierr)
{
    HP_TRACED(
        HP_COLLECTIVE, 1,
        hp_bytes_alltoall(hp_f_in_place(sbuf), *scount, hp_f_type(stype), *rcount, hp_f_type(rtype), hp_f_comm(comm)),
        (pmpi_alltoall_(sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr), hp_f_rc(ierr)),
        hp_trace_gather(&c_, "alltoall",
                        hp_f_in_place(sbuf) ? hp_bytes(*rcount, hp_f_type(rtype)) : hp_bytes(*scount, hp_f_type(stype)),
                        hp_bytes(*rcount, hp_f_type(rtype)), -1, hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_alltoall, MPI_ALLTOALL)

void mpi_ialltoall_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm, F *req, F *ierr)
{
    HP_STARTED_TRACED(
        HP_COLLECTIVE, 1,
        hp_bytes_alltoall(hp_f_in_place(sbuf), *scount, hp_f_type(stype), *rcount, hp_f_type(rtype), hp_f_comm(comm)),
        hp_f_request(req), (pmpi_ialltoall_(sbuf, scount, stype, rbuf, rcount, rtype, comm, req, ierr), hp_f_rc(ierr)),
        hp_trace_posted(hp_trace_gather(&c_, "alltoall",
                                        hp_f_in_place(sbuf) ? hp_bytes(*rcount, hp_f_type(rtype))
                                                            : hp_bytes(*scount, hp_f_type(stype)),
                                        hp_bytes(*rcount, hp_f_type(rtype)), -1, hp_f_comm(comm))));
}
HP_FORTRAN_NAMES(mpi_ialltoall, MPI_IALLTOALL)

void mpi_alltoallv_(void *sbuf, F *scounts, F *sdispls, F *stype, void *rbuf, F *rcounts, F *rdispls, F *rtype, F *comm,
                    F *ierr)
{
    HP_TRACED(
        HP_COLLECTIVE, 1,
        hp_bytes_alltoallv(hp_f_in_place(sbuf), scounts, hp_f_type(stype), rcounts, hp_f_type(rtype), hp_f_comm(comm)),
        (pmpi_alltoallv_(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, ierr), hp_f_rc(ierr)),
        hp_trace_alltoallv(&c_, hp_f_in_place(sbuf) ? rcounts : scounts, hp_f_type(hp_f_in_place(sbuf) ? rtype : stype),
                           rcounts, hp_f_type(rtype), hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_alltoallv, MPI_ALLTOALLV)

void mpi_ialltoallv_(void *sbuf, F *scounts, F *sdispls, F *stype, void *rbuf, F *rcounts, F *rdispls, F *rtype,
                     F *comm, F *req, F *ierr)
{
    HP_STARTED_TRACED(
        HP_COLLECTIVE, 1,
        hp_bytes_alltoallv(hp_f_in_place(sbuf), scounts, hp_f_type(stype), rcounts, hp_f_type(rtype), hp_f_comm(comm)),
        hp_f_request(req),
        (pmpi_ialltoallv_(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req, ierr),
         hp_f_rc(ierr)),
        hp_trace_posted(hp_trace_alltoallv(&c_, hp_f_in_place(sbuf) ? rcounts : scounts,
                                           hp_f_type(hp_f_in_place(sbuf) ? rtype : stype), rcounts, hp_f_type(rtype),
                                           hp_f_comm(comm))));
}
HP_FORTRAN_NAMES(mpi_ialltoallv, MPI_IALLTOALLV)

/* MPI_Alltoallw's datatypes come one per peer: converted to C handles for contribution.c. */
static long long alltoallw_bytes(const void *sbuf, const F *scounts, const F *stypes, const F *rcounts, const F *rtypes,
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

void mpi_alltoallw_(void *sbuf, F *scounts, F *sdispls, F *stypes, void *rbuf, F *rcounts, F *rdispls, F *rtypes,
                    F *comm, F *ierr)
{
    HP_COUNTED(
        HP_COLLECTIVE, 1, alltoallw_bytes(sbuf, scounts, stypes, rcounts, rtypes, comm),
        (pmpi_alltoallw_(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_alltoallw, MPI_ALLTOALLW)

void mpi_ialltoallw_(void *sbuf, F *scounts, F *sdispls, F *stypes, void *rbuf, F *rcounts, F *rdispls, F *rtypes,
                     F *comm, F *req, F *ierr)
{
    HP_STARTED(HP_COLLECTIVE, 1, alltoallw_bytes(sbuf, scounts, stypes, rcounts, rtypes, comm), hp_f_request(req),
               (pmpi_ialltoallw_(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, req, ierr),
                hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_ialltoallw, MPI_IALLTOALLW)

void mpi_reduce_scatter_(void *sbuf, void *rbuf, F *rcounts, F *type, F *op, F *comm, F *ierr)
{
    HP_TRACED(HP_COLLECTIVE, 1, hp_bytes_reduce_scatter(rcounts, hp_f_type(type), hp_f_comm(comm)),
              (pmpi_reduce_scatter_(sbuf, rbuf, rcounts, type, op, comm, ierr), hp_f_rc(ierr)),
              hp_trace_reduce_scatter(&c_, rcounts, 0, hp_f_type(type), hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_reduce_scatter, MPI_REDUCE_SCATTER)

void mpi_ireduce_scatter_(void *sbuf, void *rbuf, F *rcounts, F *type, F *op, F *comm, F *req, F *ierr)
{
    HP_STARTED_TRACED(HP_COLLECTIVE, 1, hp_bytes_reduce_scatter(rcounts, hp_f_type(type), hp_f_comm(comm)),
                      hp_f_request(req),
                      (pmpi_ireduce_scatter_(sbuf, rbuf, rcounts, type, op, comm, req, ierr), hp_f_rc(ierr)),
                      hp_trace_posted(hp_trace_reduce_scatter(&c_, rcounts, 0, hp_f_type(type), hp_f_comm(comm))));
}
HP_FORTRAN_NAMES(mpi_ireduce_scatter, MPI_IREDUCE_SCATTER)

void mpi_reduce_scatter_block_(void *sbuf, void *rbuf, F *rcount, F *type, F *op, F *comm, F *ierr)
{
    HP_TRACED(HP_COLLECTIVE, 1, hp_bytes_reduce_scatter_block(*rcount, hp_f_type(type), hp_f_comm(comm)),
              (pmpi_reduce_scatter_block_(sbuf, rbuf, rcount, type, op, comm, ierr), hp_f_rc(ierr)),
              hp_trace_reduce_scatter(&c_, NULL, *rcount, hp_f_type(type), hp_f_comm(comm)));
}
HP_FORTRAN_NAMES(mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK)

void mpi_ireduce_scatter_block_(void *sbuf, void *rbuf, F *rcount, F *type, F *op, F *comm, F *req, F *ierr)
{
    HP_STARTED_TRACED(HP_COLLECTIVE, 1, hp_bytes_reduce_scatter_block(*rcount, hp_f_type(type), hp_f_comm(comm)),
                      hp_f_request(req),
                      (pmpi_ireduce_scatter_block_(sbuf, rbuf, rcount, type, op, comm, req, ierr), hp_f_rc(ierr)),
                      hp_trace_posted(hp_trace_reduce_scatter(&c_, NULL, *rcount, hp_f_type(type), hp_f_comm(comm))));
}
HP_FORTRAN_NAMES(mpi_ireduce_scatter_block, MPI_IREDUCE_SCATTER_BLOCK)

/* ---- one-sided ---- */

void mpi_put_(void *obuf, F *ocount, F *otype, F *target, MPI_Aint *disp, F *tcount, F *ttype, F *win, F *ierr)
{
    HP_COUNTED(HP_ONE_SIDED, 1, hp_bytes(*ocount, hp_f_type(otype)),
               (pmpi_put_(obuf, ocount, otype, target, disp, tcount, ttype, win, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_put, MPI_PUT)

void mpi_get_(void *obuf, F *ocount, F *otype, F *target, MPI_Aint *disp, F *tcount, F *ttype, F *win, F *ierr)
{
    HP_COUNTED(HP_ONE_SIDED, 1, hp_bytes(*ocount, hp_f_type(otype)),
               (pmpi_get_(obuf, ocount, otype, target, disp, tcount, ttype, win, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_get, MPI_GET)

void mpi_accumulate_(void *obuf, F *ocount, F *otype, F *target, MPI_Aint *disp, F *tcount, F *ttype, F *op, F *win,
                     F *ierr)
{
    HP_COUNTED(HP_ONE_SIDED, 1, hp_bytes(*ocount, hp_f_type(otype)),
               (pmpi_accumulate_(obuf, ocount, otype, target, disp, tcount, ttype, op, win, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_accumulate, MPI_ACCUMULATE)

void mpi_win_fence_(F *assert, F *win, F *ierr)
{
    HP_COUNTED(HP_ONE_SIDED, 0, 0, (pmpi_win_fence_(assert, win, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_win_fence, MPI_WIN_FENCE)

void mpi_win_lock_(F *type, F *rank, F *assert, F *win, F *ierr)
{
    HP_COUNTED(HP_ONE_SIDED, 0, 0, (pmpi_win_lock_(type, rank, assert, win, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_win_lock, MPI_WIN_LOCK)

void mpi_win_unlock_(F *rank, F *win, F *ierr)
{
    HP_COUNTED(HP_ONE_SIDED, 0, 0, (pmpi_win_unlock_(rank, win, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_win_unlock, MPI_WIN_UNLOCK)

void mpi_win_flush_(F *rank, F *win, F *ierr)
{
    HP_COUNTED(HP_ONE_SIDED, 0, 0, (pmpi_win_flush_(rank, win, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_win_flush, MPI_WIN_FLUSH)

void mpi_win_flush_all_(F *win, F *ierr)
{
    HP_COUNTED(HP_ONE_SIDED, 0, 0, (pmpi_win_flush_all_(win, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_win_flush_all, MPI_WIN_FLUSH_ALL)

void mpi_win_post_(F *group, F *assert, F *win, F *ierr)
{
    HP_COUNTED(HP_ONE_SIDED, 0, 0, (pmpi_win_post_(group, assert, win, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_win_post, MPI_WIN_POST)

void mpi_win_start_(F *group, F *assert, F *win, F *ierr)
{
    HP_COUNTED(HP_ONE_SIDED, 0, 0, (pmpi_win_start_(group, assert, win, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_win_start, MPI_WIN_START)

void mpi_win_complete_(F *win, F *ierr)
{
    HP_COUNTED(HP_ONE_SIDED, 0, 0, (pmpi_win_complete_(win, ierr), hp_f_rc(ierr)));
}
HP_FORTRAN_NAMES(mpi_win_complete, MPI_WIN_COMPLETE)

void mpi_win_wait_(F *win, F *ierr) { HP_COUNTED(HP_ONE_SIDED, 0, 0, (pmpi_win_wait_(win, ierr), hp_f_rc(ierr))); }
HP_FORTRAN_NAMES(mpi_win_wait, MPI_WIN_WAIT)
