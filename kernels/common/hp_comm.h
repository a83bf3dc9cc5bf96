/* The instrumented communication layer: every MPI call a kernel makes goes through here, and is counted as
 * hp_counts.h says (classes, calls, messages, bytes, time, sizes). The one exception is a timed loop that must hold
 * its MPI calls and nothing else (mixbench's chain, set against IMB's bare loop): it calls MPI directly and counts
 * the loop's calls after it with hp_comm_record_loop, to the same totals.
 *
 * Counting is switched on only around the measured loop (hp_comm_count), as the thesis timed only its main
 * loop and took message statistics in separate runs; set-up traffic such as scattering a data file is
 * therefore not in the profile. Timing can be switched off independently to measure what the timing itself
 * costs.
 *
 * hp_comm_count also calls MPI_Pcontrol(on), so an interposed profiling library (our
 * libhybridperf-mpi.so, mpiP) sees the same measured loop. The point-to-point calls and the switch are in
 * hp_comm.c, the collectives in hp_collectives.c (which the PMPI library shares; see hp_counts.h). */
#ifndef HP_COMM_H
#define HP_COMM_H

#include <mpi.h>
#include <stddef.h>

#include "hp_counts.h"

/* Counting on or off, here and (MPI_Pcontrol) in an interposed profiling library. */
void hp_comm_count(hp_comm *c, int on);

/* MPI_Sendrecv of `scount` elements to `dest` and `rcount` from `src`. */
void hp_sendrecv(hp_comm *c, const void *sbuf, int scount, MPI_Datatype type, int dest, void *rbuf, int rcount, int src,
                 int tag, MPI_Comm comm);
/* Sends `sbytes` to `dest` and receives one message of unknown length from `src` into *rbuf,
 * growing it (realloc) when *rcap is too small: one message each way, so exchanges whose sizes
 * the receiver cannot know still cost exactly one message (in four calls: isend, probe, recv, wait).
 * Returns the bytes received. */
size_t hp_sendrecv_grow(hp_comm *c, const void *sbuf, size_t sbytes, int dest, void **rbuf, size_t *rcap, int src,
                        int tag, MPI_Comm comm);
/* Blocking and non-blocking halves of point-to-point messages (ping-pong, halo exchanges). */
void hp_send(hp_comm *c, const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
void hp_recv(hp_comm *c, void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm);
void hp_isend(hp_comm *c, const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *req);
void hp_irecv(hp_comm *c, void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req);
void hp_waitall(hp_comm *c, int n, MPI_Request *reqs);
void hp_wait(hp_comm *c, MPI_Request *req);
/* MPI_Test: 1 when the request has completed. */
int hp_test(hp_comm *c, MPI_Request *req);
/* Collective over comm: *out holds the first `size` ranks of comm (same order), MPI_COMM_NULL on
 * the others. Not counted. Free with hp_subcomm_free. */
void hp_subcomm_create(MPI_Comm comm, int size, MPI_Comm *out);
void hp_subcomm_free(MPI_Comm *comm);

/* The collectives (hp_collectives.c). */
void hp_allreduce(hp_comm *c, const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
void hp_bcast(hp_comm *c, void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
void hp_gather(hp_comm *c, const void *sbuf, int count, MPI_Datatype type, void *rbuf, int root, MPI_Comm comm);
void hp_gatherv(hp_comm *c, const void *sbuf, int scount, MPI_Datatype type, void *rbuf, const int *rcounts,
                const int *displs, int root, MPI_Comm comm);
void hp_barrier(hp_comm *c, MPI_Comm comm);

#endif
