/* The instrumented communication layer: every MPI call a kernel makes goes through here.
 *
 * Each call is classed as point-to-point, collective or barrier (the thesis's three classes) and
 * counted: calls, messages sent, bytes sent, time, and a histogram of message sizes. Counting is
 * switched on only around the measured loop (hp_comm_count), as the thesis timed only its main
 * loop and took message statistics in separate runs; set-up traffic such as scattering a data
 * file is therefore not in the profile. Byte conventions: point-to-point counts bytes sent by the
 * caller; a collective counts the caller's own contribution (its send buffer); barriers move none.
 * "messages" counts operations that carry data: each point-to-point send and each collective call
 * (whose size goes in the histogram); barriers carry none. Timing can be switched off
 * independently to measure what the timing itself costs.
 *
 * Threads: an hp_comm is plain counters, not thread-safe. Code that calls MPI from several threads
 * at once (MPI_THREAD_MULTIPLE) gives each thread its own hp_comm and adds them into the rank's
 * with hp_comm_merge after the parallel region. Per-thread accumulation rather than atomics: the
 * threads whose concurrent MPI calls are being measured must not also contend on shared counter
 * cache lines, and the totals come out exactly as if one thread had made every call.
 *
 * The halves of a message (send, receive, their non-blocking forms) count like the rest: a send
 * is one message of its bytes; a receive, a wait or a test is a call that sends nothing, so a
 * rank's bytes are always what it sent. Creating or freeing a communicator moves no user data
 * and is not counted.
 *
 * hp_comm_count also calls MPI_Pcontrol(on), so an interposed profiling library (our
 * libhybridperf-mpi.so, mpiP) sees the same measured loop; the counting primitives hp_counts_call
 * and hp_counts_message are exported for that library (kernels/pmpi), which counts any program's
 * MPI calls exactly as this layer counts a kernel's. */
#ifndef HP_COMM_H
#define HP_COMM_H

#include <mpi.h>
#include <stddef.h>

typedef enum { HP_P2P, HP_COLLECTIVE, HP_BARRIER, HP_NCLASSES } hp_comm_class;

/* Bin 0 holds empty messages; bin k >= 1 holds sizes in [2^(k-1), 2^k) bytes. */
#define HP_HIST_BINS 40

typedef struct {
    long long calls;
    long long messages;
    long long bytes;
    double seconds;
    long long histogram[HP_HIST_BINS];
} hp_comm_counts;

typedef struct {
    int counting;
    int timing;
    hp_comm_counts cls[HP_NCLASSES];
} hp_comm;

extern const char *const hp_comm_class_names[HP_NCLASSES];

void hp_comm_init(hp_comm *c, int timing);
/* Counting on or off, here and (MPI_Pcontrol) in an interposed profiling library. */
void hp_comm_count(hp_comm *c, int on);
int hp_histogram_bin(long long bytes);
/* One call that took `seconds`; one message of `bytes` sent by a call. Every count is made of these. */
void hp_counts_call(hp_comm_counts *n, double seconds);
void hp_counts_message(hp_comm_counts *n, long long bytes);
/* Adds every counter of `from` into `into`. */
void hp_counts_merge(hp_comm_counts *into, const hp_comm_counts *from);

/* MPI_Sendrecv of `scount` elements to `dest` and `rcount` from `src`. */
void hp_sendrecv(hp_comm *c, const void *sbuf, int scount, MPI_Datatype type, int dest, void *rbuf, int rcount, int src,
                 int tag, MPI_Comm comm);
/* Sends `sbytes` to `dest` and receives one message of unknown length from `src` into *rbuf,
 * growing it (realloc) when *rcap is too small: one message each way, so exchanges whose sizes
 * the receiver cannot know still cost exactly one message (in four calls: isend, probe, recv, wait).
 * Returns the bytes received. */
size_t hp_sendrecv_grow(hp_comm *c, const void *sbuf, size_t sbytes, int dest, void **rbuf, size_t *rcap, int src,
                        int tag, MPI_Comm comm);
void hp_allreduce(hp_comm *c, const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
void hp_bcast(hp_comm *c, void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
void hp_gather(hp_comm *c, const void *sbuf, int count, MPI_Datatype type, void *rbuf, int root, MPI_Comm comm);
void hp_gatherv(hp_comm *c, const void *sbuf, int scount, MPI_Datatype type, void *rbuf, const int *rcounts,
                const int *displs, int root, MPI_Comm comm);
void hp_barrier(hp_comm *c, MPI_Comm comm);

/* Adds every counter of `from` into `into` (per-thread counters after an MPI_THREAD_MULTIPLE region). */
void hp_comm_merge(hp_comm *into, const hp_comm *from);
/* Blocking and non-blocking halves of point-to-point messages (ping-pong, halo exchanges). */
void hp_send(hp_comm *c, const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
void hp_recv(hp_comm *c, void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm);
void hp_isend(hp_comm *c, const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *req);
void hp_irecv(hp_comm *c, void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req);
void hp_waitall(hp_comm *c, int n, MPI_Request *reqs);
/* MPI_Test: 1 when the request has completed. */
int hp_test(hp_comm *c, MPI_Request *req);
/* Collective over comm: *out holds the first `size` ranks of comm (same order), MPI_COMM_NULL on
 * the others. Not counted. Free with hp_subcomm_free. */
void hp_subcomm_create(MPI_Comm comm, int size, MPI_Comm *out);
void hp_subcomm_free(MPI_Comm *comm);

#endif
