/* Counting communication: what a call is worth in the profile, whoever made it.
 *
 * Each MPI call is classed as point-to-point, collective or barrier (the thesis's three classes) and
 * counted: calls, messages sent, bytes sent, time, a histogram of message sizes and one of the calls' times
 * (hp_calltimes.h). Byte conventions:
 * point-to-point counts bytes sent by the caller; a collective counts the caller's own contribution (its
 * send buffer); barriers move none. "messages" counts operations that carry data: each point-to-point send
 * and each collective call (whose size goes in the histogram); barriers carry none. The halves of a message
 * (send, receive, their non-blocking forms) count like the rest: a send is one message of its bytes; a receive,
 * a wait or a test is a call that sends nothing, so a rank's bytes are always what it sent. Creating or freeing
 * a communicator moves no user data and is not counted.
 *
 * Two layers count this way: the kernels' wrappers (hp_comm.h) and the PMPI library (kernels/pmpi), which
 * counts any program's MPI calls exactly as the wrappers count a kernel's. This file is what they share, kept
 * apart from the wrappers so the library is built without the kernels' point-to-point layer; the counted
 * collectives (hp_collectives.c) come with it only because the cross-rank statistics reduce through them.
 *
 * Threads: an hp_comm is plain counters, not thread-safe. Code that calls MPI from several threads
 * at once (MPI_THREAD_MULTIPLE) gives each thread its own hp_comm and adds them into the rank's
 * with hp_comm_merge after the parallel region. Per-thread accumulation rather than atomics: the
 * threads whose concurrent MPI calls are being measured must not also contend on shared counter
 * cache lines, and the totals come out exactly as if one thread had made every call. */
#ifndef HP_COUNTS_H
#define HP_COUNTS_H

#include <mpi.h>

#include "hp_calltimes.h"

typedef enum { HP_P2P, HP_COLLECTIVE, HP_BARRIER, HP_NCLASSES } hp_comm_class;

/* Bin 0 holds empty messages; bin k >= 1 holds sizes in [2^(k-1), 2^k) bytes. */
#define HP_HIST_BINS 40

typedef struct {
    long long calls;
    long long messages;
    long long bytes;
    double seconds;
    long long histogram[HP_HIST_BINS];
    hp_calltimes times; /* each call's seconds (kept when built with HP_CALL_TIMES, the default) */
} hp_comm_counts;

typedef struct {
    int counting; /* calls are recorded only while set (hp_comm_count) */
    int timing;   /* and timed only while this is set too */
    hp_comm_counts cls[HP_NCLASSES];
} hp_comm;

extern const char *const hp_comm_class_names[HP_NCLASSES];

void hp_comm_init(hp_comm *c, int timing);
int hp_histogram_bin(long long bytes);
/* One call that took `seconds`; one message of `bytes` sent by a call. Every count is made of these. */
void hp_counts_call(hp_comm_counts *n, double seconds);
void hp_counts_message(hp_comm_counts *n, long long bytes);
/* Adds every counter of `from` into `into`. */
void hp_counts_merge(hp_comm_counts *into, const hp_comm_counts *from);
/* Adds every counter of `from` into `into` (per-thread counters after an MPI_THREAD_MULTIPLE region). */
void hp_comm_merge(hp_comm *into, const hp_comm *from);

/* How a wrapper counts its call: t0 = hp_comm_begin(c) before it, hp_comm_record after it, with the call's
 * class and the `messages` messages of `bytes` bytes each it sent (hp_comm_bytes: of count elements of type). */
double hp_comm_begin(const hp_comm *c);
void hp_comm_record(hp_comm *c, hp_comm_class k, double t0, int messages, long long bytes);
long long hp_comm_bytes(int count, MPI_Datatype type);
/* A loop whose calls are counted after it rather than one by one, so that its timed part holds the MPI calls and
 * nothing else (a microbenchmark set against a peer's bare loop, as mixbench's chain against IMB's): `calls` calls
 * of class k that sent `messages` messages of `bytes` bytes each, counted exactly as hp_comm_record would count
 * them untimed (each call 0 s, in the per-call histogram's first bin). Nothing while counting is off. */
void hp_comm_record_loop(hp_comm *c, hp_comm_class k, long long calls, long long messages, long long bytes);

#endif
