/* The counters of hp_counts.h and how a call is recorded into them. */
#include "hp_counts.h"

#include <string.h>

#include "hp_counters.h"
#include "hp_timer.h"

const char *const hp_comm_class_names[HP_NCLASSES] = {"p2p", "collective", "barrier"};

void hp_comm_init(hp_comm *c, int timing)
{
    memset(c, 0, sizeof *c);
    c->timing = timing;
}

/* The bit length of `bytes` (capped): one instruction rather than a loop, as it runs on every message. */
int hp_histogram_bin(long long bytes)
{
    if (bytes <= 0) return 0;
    int bin = 64 - __builtin_clzll((unsigned long long)bytes);
    return bin < HP_HIST_BINS - 1 ? bin : HP_HIST_BINS - 1;
}

void hp_counts_call(hp_comm_counts *n, double seconds)
{
    n->calls++;
    n->seconds += seconds;
    if (HP_CALL_TIMES) hp_calltimes_add(&n->times, seconds);
}

void hp_counts_message(hp_comm_counts *n, long long bytes)
{
    n->messages++;
    n->bytes += bytes;
    n->histogram[hp_histogram_bin(bytes)]++;
}

void hp_counts_merge(hp_comm_counts *into, const hp_comm_counts *from)
{
    into->calls += from->calls;
    into->messages += from->messages;
    into->bytes += from->bytes;
    into->seconds += from->seconds;
    for (int bin = 0; bin < HP_HIST_BINS; bin++) into->histogram[bin] += from->histogram[bin];
    hp_calltimes_merge(&into->times, &from->times);
}

void hp_comm_merge(hp_comm *into, const hp_comm *from)
{
    for (int k = 0; k < HP_NCLASSES; k++) hp_counts_merge(&into->cls[k], &from->cls[k]);
}

/* The counters pause inside the timed call, so what switching them costs is MPI time, not useful time. */
double hp_comm_begin(const hp_comm *c)
{
    if (!c->counting) return 0.0;
    const double t0 = c->timing ? hp_now() : 0.0;
    hp_counters_mpi(1);
    return t0;
}

void hp_comm_record(hp_comm *c, hp_comm_class k, double t0, int messages, long long bytes)
{
    if (!c->counting) return;
    hp_counters_mpi(0);
    hp_comm_counts *n = &c->cls[k];
    hp_counts_call(n, c->timing ? hp_now() - t0 : 0.0);
    for (int m = 0; m < messages; m++) hp_counts_message(n, bytes);
}

void hp_comm_record_loop(hp_comm *c, hp_comm_class k, long long calls, long long messages, long long bytes)
{
    if (!c->counting) return;
    hp_comm_counts *n = &c->cls[k];
    n->calls += calls;
    if (HP_CALL_TIMES) /* untimed, each call 0 s: the first bin's (below 100 ns) */
        hp_calltimes_merge(&n->times, &(hp_calltimes){.count = calls, .bins = {[0] = calls}});
    n->messages += messages;
    n->bytes += messages * bytes;
    n->histogram[hp_histogram_bin(bytes)] += messages;
}

long long hp_comm_bytes(int count, MPI_Datatype type)
{
    int size;
    MPI_Type_size(type, &size);
    return (long long)count * size;
}
