/* What a rank's traces may take, and whether it still traces: the switch the wrappers read (hp_trace_on), the
 * bytes its files have taken against HYBRIDPERF_MPI_TRACE_LIMIT, and why it stopped. Both writers of a rank's
 * files -- its SimGrid text (trace.c) and its trace events (trace_perfetto.c) -- spend from here, so neither
 * calls the other for it: trace.c opens, closes and merges the events, and the events know only this budget. */
#include "pmpi.h"

int hp_trace_on;

static struct {
    long long limit, spent;
    int state; /* 0 whole, 1 cut at the limit, 2 a file could not be written */
} budget;

void hp_trace_budget(long long limit)
{
    budget.limit = limit;
    budget.spent = 0;
    budget.state = 0;
}

void hp_trace_stop(int state)
{
    __atomic_store_n(&hp_trace_on, 0, __ATOMIC_RELAXED);
    if (!budget.state) budget.state = state;
}

int hp_trace_spend(long long bytes)
{
    if (__atomic_add_fetch(&budget.spent, bytes, __ATOMIC_RELAXED) <= budget.limit) return 1;
    __atomic_sub_fetch(&budget.spent, bytes, __ATOMIC_RELAXED); /* not written: not spent */
    hp_trace_stop(1);
    return 0;
}

long long hp_trace_spent(void) { return budget.spent; }
long long hp_trace_limit(void) { return budget.limit; }
int hp_trace_state(void) { return budget.state; }
