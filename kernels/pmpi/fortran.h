/* The Fortran bindings of Open MPI, wrapped (fortran.c, and the wrappers that wrappers.py writes).
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

/* Open MPI's Fortran PMPI routines that fortran.c calls (it installs no header for them; the generated
 * wrappers declare their own). F is a Fortran INTEGER, MPI_Fint, short so that the prototypes stay readable. */
typedef MPI_Fint F;
void pmpi_init_(F *ierr);
void pmpi_init_thread_(F *required, F *provided, F *ierr);
void pmpi_finalize_(F *ierr);
void pmpi_pcontrol_(F *level);
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

/* What the generated wrappers call in fortran.c: a receive's trace unless from MPI_ANY_SOURCE or MPI_ANY_TAG,
 * and an Alltoallw's bytes. */
hp_traced hp_f_trace_irecv(hp_call *c, const F *src, const F *tag, const F *count, const F *type, const F *comm);
hp_traced hp_f_trace_recv_init(hp_call *c, const F *src, const F *tag, const F *count, const F *type, const F *comm);
long long hp_f_alltoallw_bytes(const void *sbuf, const F *scounts, const F *stypes, const F *rcounts, const F *rtypes,
                               const F *comm);

#endif
