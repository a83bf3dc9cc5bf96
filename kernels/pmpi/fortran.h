/* The Fortran bindings of Open MPI, wrapped (fortran_p2p.c, fortran_collectives.c).
 *
 * Open MPI's Fortran routines (mpif.h and `use mpi`: mpi_send_; `use mpi_f08`: mpi_send_f08_) call
 * PMPI_Send, never MPI_Send, so a Fortran program's calls would pass the C wrappers by; they are
 * wrapped here, each calling Open MPI's own Fortran PMPI routine (pmpi_send_) with its arguments
 * untouched, and counted with the same rules as the C binding after converting the handles they
 * need (MPI_Type_f2c ...). MPICH's Fortran routines call the C MPI_ ones, which count them: this file
 * is built for Open MPI only.
 *
 * One body serves five names. Compilers mangle MPI_SEND as mpi_send_ (gfortran, ifort), mpi_send__
 * (g77, f2c), mpi_send or MPI_SEND. The mpi_f08 routine mpi_send_f08_ takes the same arguments in the
 * same places in Open MPI 4 -- its handles are one-integer types, its buffers bare addresses, and its
 * optional ierror is NULL when absent, which Open MPI's mpif.h routines accept -- so it is one more
 * name of the same body. */
#ifndef HP_FORTRAN_H
#define HP_FORTRAN_H

#include "pmpi.h"

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran count arrays are read as C int arrays");

#define HP_ALIAS(name, target) extern __typeof__(target) name __attribute__((alias(#target)));
#define HP_FORTRAN_NAMES(lower, UPPER)                                                                                 \
    HP_ALIAS(lower, lower##_) HP_ALIAS(lower##__, lower##_) HP_ALIAS(lower##_f08_, lower##_) HP_ALIAS(UPPER, lower##_)

/* A Fortran routine's return code: its ierror, when the caller passed one. */
static inline int hp_f_rc(const MPI_Fint *ierr) { return ierr ? *ierr : MPI_SUCCESS; }
static inline MPI_Datatype hp_f_type(const MPI_Fint *t) { return PMPI_Type_f2c(*t); }
static inline MPI_Comm hp_f_comm(const MPI_Fint *c) { return PMPI_Comm_f2c(*c); }
static inline MPI_Request hp_f_request(const MPI_Fint *r) { return PMPI_Request_f2c(*r); }

/* Fortran's MPI_IN_PLACE: the address of this common block, in every Open MPI Fortran binding. */
extern int mpi_fortran_in_place_;
static inline int hp_f_in_place(const void *buf) { return buf == (const void *)&mpi_fortran_in_place_; }

/* Fortran's MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE: common blocks too. A Fortran status is
 * sizeof(MPI_Status) / sizeof(MPI_Fint) INTEGERs in Open MPI (mpif-config.h's MPI_STATUS_SIZE, 6). */
extern int mpi_fortran_status_ignore_, mpi_fortran_statuses_ignore_;
enum { HP_F_STATUS = sizeof(MPI_Status) / sizeof(MPI_Fint) };
static inline int hp_f_status_ignored(const MPI_Fint *s) { return s == (const MPI_Fint *)&mpi_fortran_status_ignore_; }
/* The status a Fortran receive is given: `own` when the program ignores it and the trace needs the source. */
static inline MPI_Fint *hp_f_status_for(MPI_Fint *given, MPI_Fint *own)
{
    return hp_trace_on && hp_f_status_ignored(given) ? own : given;
}
/* A Fortran status in C (the trace reads its source and tag); NULL for an ignored one. */
static inline const MPI_Status *hp_f_status(const MPI_Fint *f, MPI_Status *c)
{
    return hp_f_status_ignored(f) || PMPI_Status_f2c(f, c) != MPI_SUCCESS ? NULL : c;
}

/* The C handles of n Fortran requests. */
void hp_f_requests(const MPI_Fint *f, int n, MPI_Request *c);

/* Open MPI's Fortran PMPI routines (it installs no header for them). F is a Fortran INTEGER, MPI_Fint,
 * short so that a hundred prototypes stay readable. */
typedef MPI_Fint F;
void pmpi_init_(F *ierr);
void pmpi_init_thread_(F *required, F *provided, F *ierr);
void pmpi_finalize_(F *ierr);
void pmpi_pcontrol_(F *level);
void pmpi_send_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr);
void pmpi_ssend_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr);
void pmpi_bsend_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr);
void pmpi_rsend_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr);
void pmpi_recv_(void *buf, F *count, F *type, F *src, F *tag, F *comm, F *status, F *ierr);
void pmpi_sendrecv_(void *sbuf, F *scount, F *stype, F *dest, F *stag, void *rbuf, F *rcount, F *rtype, F *src, F *rtag,
                    F *comm, F *status, F *ierr);
void pmpi_sendrecv_replace_(void *buf, F *count, F *type, F *dest, F *stag, F *src, F *rtag, F *comm, F *status,
                            F *ierr);
void pmpi_probe_(F *src, F *tag, F *comm, F *status, F *ierr);
void pmpi_iprobe_(F *src, F *tag, F *comm, F *flag, F *status, F *ierr);
void pmpi_isend_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr);
void pmpi_issend_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr);
void pmpi_ibsend_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr);
void pmpi_irsend_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr);
void pmpi_irecv_(void *buf, F *count, F *type, F *src, F *tag, F *comm, F *req, F *ierr);
void pmpi_send_init_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr);
void pmpi_ssend_init_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr);
void pmpi_bsend_init_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr);
void pmpi_rsend_init_(void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr);
void pmpi_recv_init_(void *buf, F *count, F *type, F *src, F *tag, F *comm, F *req, F *ierr);
void pmpi_start_(F *req, F *ierr);
void pmpi_startall_(F *n, F *reqs, F *ierr);
void pmpi_request_free_(F *req, F *ierr);
void pmpi_wait_(F *req, F *status, F *ierr);
void pmpi_test_(F *req, F *flag, F *status, F *ierr);
void pmpi_waitall_(F *n, F *reqs, F *statuses, F *ierr);
void pmpi_testall_(F *n, F *reqs, F *flag, F *statuses, F *ierr);
void pmpi_waitany_(F *n, F *reqs, F *index, F *status, F *ierr);
void pmpi_testany_(F *n, F *reqs, F *index, F *flag, F *status, F *ierr);
void pmpi_waitsome_(F *n, F *reqs, F *outcount, F *indices, F *statuses, F *ierr);
void pmpi_testsome_(F *n, F *reqs, F *outcount, F *indices, F *statuses, F *ierr);
void pmpi_barrier_(F *comm, F *ierr);
void pmpi_ibarrier_(F *comm, F *req, F *ierr);
void pmpi_bcast_(void *buf, F *count, F *type, F *root, F *comm, F *ierr);
void pmpi_ibcast_(void *buf, F *count, F *type, F *root, F *comm, F *req, F *ierr);
void pmpi_reduce_(void *sbuf, void *rbuf, F *count, F *type, F *op, F *root, F *comm, F *ierr);
void pmpi_ireduce_(void *sbuf, void *rbuf, F *count, F *type, F *op, F *root, F *comm, F *req, F *ierr);
void pmpi_allreduce_(void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm, F *ierr);
void pmpi_iallreduce_(void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm, F *req, F *ierr);
void pmpi_scan_(void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm, F *ierr);
void pmpi_iscan_(void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm, F *req, F *ierr);
void pmpi_exscan_(void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm, F *ierr);
void pmpi_iexscan_(void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm, F *req, F *ierr);
void pmpi_gather_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm, F *ierr);
void pmpi_igather_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm, F *req, F *ierr);
void pmpi_gatherv_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs, F *rtype, F *root, F *comm,
                   F *ierr);
void pmpi_igatherv_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs, F *rtype, F *root, F *comm,
                    F *req, F *ierr);
void pmpi_allgather_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm, F *ierr);
void pmpi_iallgather_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm, F *req, F *ierr);
void pmpi_allgatherv_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs, F *rtype, F *comm, F *ierr);
void pmpi_iallgatherv_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs, F *rtype, F *comm, F *req,
                       F *ierr);
void pmpi_scatter_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm, F *ierr);
void pmpi_iscatter_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm, F *req,
                    F *ierr);
void pmpi_scatterv_(void *sbuf, F *scounts, F *displs, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm,
                    F *ierr);
void pmpi_iscatterv_(void *sbuf, F *scounts, F *displs, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm,
                     F *req, F *ierr);
void pmpi_alltoall_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm, F *ierr);
void pmpi_ialltoall_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm, F *req, F *ierr);
void pmpi_alltoallv_(void *sbuf, F *scounts, F *sdispls, F *stype, void *rbuf, F *rcounts, F *rdispls, F *rtype,
                     F *comm, F *ierr);
void pmpi_ialltoallv_(void *sbuf, F *scounts, F *sdispls, F *stype, void *rbuf, F *rcounts, F *rdispls, F *rtype,
                      F *comm, F *req, F *ierr);
void pmpi_alltoallw_(void *sbuf, F *scounts, F *sdispls, F *stypes, void *rbuf, F *rcounts, F *rdispls, F *rtypes,
                     F *comm, F *ierr);
void pmpi_ialltoallw_(void *sbuf, F *scounts, F *sdispls, F *stypes, void *rbuf, F *rcounts, F *rdispls, F *rtypes,
                      F *comm, F *req, F *ierr);
void pmpi_reduce_scatter_(void *sbuf, void *rbuf, F *rcounts, F *type, F *op, F *comm, F *ierr);
void pmpi_ireduce_scatter_(void *sbuf, void *rbuf, F *rcounts, F *type, F *op, F *comm, F *req, F *ierr);
void pmpi_reduce_scatter_block_(void *sbuf, void *rbuf, F *rcount, F *type, F *op, F *comm, F *ierr);
void pmpi_ireduce_scatter_block_(void *sbuf, void *rbuf, F *rcount, F *type, F *op, F *comm, F *req, F *ierr);
void pmpi_put_(void *obuf, F *ocount, F *otype, F *target, MPI_Aint *disp, F *tcount, F *ttype, F *win, F *ierr);
void pmpi_get_(void *obuf, F *ocount, F *otype, F *target, MPI_Aint *disp, F *tcount, F *ttype, F *win, F *ierr);
void pmpi_accumulate_(void *obuf, F *ocount, F *otype, F *target, MPI_Aint *disp, F *tcount, F *ttype, F *op, F *win,
                      F *ierr);
void pmpi_win_fence_(F *assert, F *win, F *ierr);
void pmpi_win_lock_(F *type, F *rank, F *assert, F *win, F *ierr);
void pmpi_win_unlock_(F *rank, F *win, F *ierr);
void pmpi_win_flush_(F *rank, F *win, F *ierr);
void pmpi_win_flush_all_(F *win, F *ierr);
void pmpi_win_post_(F *group, F *assert, F *win, F *ierr);
void pmpi_win_start_(F *group, F *assert, F *win, F *ierr);
void pmpi_win_complete_(F *win, F *ierr);
void pmpi_win_wait_(F *win, F *ierr);

#endif
