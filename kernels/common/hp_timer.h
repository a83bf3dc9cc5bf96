/* Region timers.
 *
 * The thesis wrapped MPI_Wtime around every routine and kept the cumulative elapsed time of each
 * one on rank 0. We keep the same cumulative times on every rank, so the cross-rank reduction can
 * show imbalance. Regions are entered and left by the master thread outside parallel regions (the
 * master-only style all kernels use), so a region costs two clock reads and an add, with no lock.
 * When timing is disabled, start/stop are a predictable branch: this is how the instrumentation
 * overhead is measured. Each stop also puts the call's time in the region's histogram (hp_calltimes.h),
 * unless the build leaves them out (HP_CALL_TIMES 0, to measure what they cost); a region whose time a
 * kernel sets directly (the loop's total) has none. */
#ifndef HP_TIMER_H
#define HP_TIMER_H

#include <time.h>

#include "hp_calltimes.h"

#define HP_MAX_REGIONS 16

typedef struct {
    const char *name;
    long long calls;
    double seconds;
    double started;
    hp_calltimes times;
} hp_region;

typedef struct {
    hp_region region[HP_MAX_REGIONS];
    int count;
    int enabled;
} hp_timers;

static inline double hp_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void hp_timers_init(hp_timers *t, int enabled);
/* Registers a region and returns its id; names must outlive the timers. */
int hp_timer_add(hp_timers *t, const char *name);

static inline void hp_timer_start(hp_timers *t, int id)
{
    if (t->enabled) t->region[id].started = hp_now();
}

static inline void hp_timer_stop(hp_timers *t, int id)
{
    if (t->enabled) {
        hp_region *r = &t->region[id];
        const double seconds = hp_now() - r->started;
        r->seconds += seconds;
        r->calls++;
        if (HP_CALL_TIMES) hp_calltimes_add(&r->times, seconds);
    }
}

#endif
