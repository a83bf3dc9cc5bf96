/* The counting switch and each thread's counters.
 *
 * A thread's state is allocated at its first MPI call (or OpenMP region) and linked into a list that
 * only grows, under a lock taken once per thread; it is never freed, so the counts of a thread that
 * has exited are still there to add up at MPI_Finalize. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmpi.h"

int hp_pmpi_on;
_Thread_local hp_thread *hp_pmpi_self;

static pthread_mutex_t registry = PTHREAD_MUTEX_INITIALIZER;
static hp_thread *threads;
static int nthreads;

hp_thread *hp_thread_new(void)
{
    hp_thread *t = calloc(1, sizeof *t);
    if (!t) {
        fputs("hybridperf-mpi: error: out of memory for a thread's counters\n", stderr);
        abort();
    }
    hp_comm_init(&t->comm, 1);
    pthread_mutex_lock(&registry);
    t->id = nthreads++;
    t->next = threads;
    threads = t;
    pthread_mutex_unlock(&registry);
    hp_pmpi_self = t;
    return t;
}

hp_thread *hp_threads_all(void)
{
    pthread_mutex_lock(&registry);
    hp_thread *first = threads;
    pthread_mutex_unlock(&registry);
    return first;
}

/* How long counting was on, this rank: the window whose MPI time the counts hold (POP's elapsed time). The
 * switch is thrown by MPI_Init, MPI_Pcontrol and MPI_Finalize, on the thread that calls them. */
static double window_start, window_seconds;

void hp_switch(int on)
{
    const int was = __atomic_load_n(&hp_pmpi_on, __ATOMIC_RELAXED);
    const double now = hp_now();
    if (on && !was) window_start = now;
    if (!on && was) window_seconds += now - window_start;
    if (on != was) hp_trace_window(on, now);
    hp_counters_window(on);
    __atomic_store_n(&hp_pmpi_on, on, __ATOMIC_RELAXED);
}

double hp_counted_seconds(void) { return window_seconds; }

static hp_comm_counts *counts_of(hp_thread *t, int cls)
{
    return cls == HP_ONE_SIDED ? &t->one_sided : &t->comm.cls[cls];
}

/* Straight into the counts: whether to count was decided by the global switch in hp_enter, so the
 * per-thread hp_comm's own switch is never consulted (it stays off, which also keeps the reductions
 * at MPI_Finalize, made through it, out of the counts). */
void hp_record(const hp_call *c, int cls, int messages, long long bytes)
{
    hp_comm_counts *n = counts_of(c->self, cls);
    hp_counts_call(n, c->seconds);
    if (messages) hp_counts_message(n, bytes);
    if (hp_trace_on) hp_trace_event(c, bytes);
}

void hp_record_message(const hp_call *c, int cls, long long bytes)
{
    hp_counts_message(counts_of(c->self, cls), bytes);
}

void hp_threads_total(hp_comm *comm, hp_comm_counts *one_sided)
{
    hp_comm_init(comm, 1);
    *one_sided = (hp_comm_counts){0};
    for (hp_thread *t = hp_threads_all(); t; t = t->next) {
        hp_comm_merge(comm, &t->comm);
        hp_counts_merge(one_sided, &t->one_sided);
    }
}
