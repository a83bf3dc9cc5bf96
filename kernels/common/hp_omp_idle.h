/* The threads' idle time inside a kernel's parallel regions, split as DLB's TALP splits it and as the MPI
 * library's OMPT tool does for any program (kernels/pmpi/ompt_idle.c, docs/pop.md): per execution of a region,
 * load imbalance = max - mean of the threads' busy seconds (the others wait for the slowest) and scheduling = the
 * region's seconds - the slowest thread's (fork, join and the runtime's own work).
 *
 * A kernel knows where each thread's share of a region's work ends, so it needs no OMPT runtime (GCC's libgomp has
 * none): a region is written `parallel` + `for nowait`, reductions on the `parallel`, and
 *
 *     hp_omp_idle_begin(o);             master, before the region: the region's clock starts
 *     #pragma omp parallel ...
 *     {   hp_omp_idle_enter(o);         each thread, first: its busy clock starts
 *         #pragma omp for nowait ...
 *         hp_omp_idle_done(o);   }      each thread, after its share: its busy seconds
 *     hp_omp_idle_end(o);               master, after the join: the execution's imbalance and scheduling, added up
 *
 * Two clock reads per thread and two on the master per execution, no allocation and no lock: each thread writes
 * only its own slot, one cache line each (no false sharing), and the region's closing barrier makes the slots
 * visible to the master. A wait at a barrier inside the region (md's private copies) counts as busy: what is split
 * is the idle time at the region's end. Disabled (outside the measured loop, or to measure this cost), each call is
 * one predictable branch. */
#ifndef HP_OMP_IDLE_H
#define HP_OMP_IDLE_H

#include <omp.h>

#include "hp_comm.h"
#include "hp_timer.h"

typedef struct {
    double entered, busy;
    char pad[64 - 2 * sizeof(double)];
} hp_omp_slot;

typedef struct {
    hp_omp_slot *slot; /* one per thread, omp_get_max_threads() at init */
    int team;          /* the last execution's team (an `if` clause may make it 1) */
    int enabled;
    double started;
    double regions, imbalance, scheduling; /* seconds summed over the executions, this rank */
} hp_omp_idle;

/* Disabled, sums zero, one slot per thread of the largest team. */
void hp_omp_idle_init(hp_omp_idle *o);
void hp_omp_idle_free(hp_omp_idle *o);

static inline void hp_omp_idle_begin(hp_omp_idle *o)
{
    if (o->enabled) o->started = hp_now();
}

static inline void hp_omp_idle_enter(hp_omp_idle *o)
{
    if (o->enabled) o->slot[omp_get_thread_num()].entered = hp_now();
}

static inline void hp_omp_idle_done(hp_omp_idle *o)
{
    if (!o->enabled) return;
    const int me = omp_get_thread_num();
    o->slot[me].busy = hp_now() - o->slot[me].entered;
    if (me == 0) o->team = omp_get_num_threads();
}

/* Master, after the join: adds this execution (hp_omp_idle_add of the region's seconds since begin), unless an `if`
 * clause ran it on a team of one while the rank has more threads: that is serial time. */
void hp_omp_idle_end(hp_omp_idle *o);
/* One execution of `seconds`, its team's busy seconds in the slots: regions += seconds, imbalance += max - mean,
 * scheduling += seconds - max (each at least 0). Pure arithmetic, for hp_omp_idle_end and the tests. */
void hp_omp_idle_add(hp_omp_idle *o, double seconds);

/* Collective: every rank's (regions, load_imbalance, scheduling, unsplit executions = 0) on rank 0 of comm, in
 * out[4 * rank + k] (NULL elsewhere; the caller frees it). */
double *hp_omp_idle_gather(hp_comm *c, const hp_omp_idle *o, MPI_Comm comm);

#endif
