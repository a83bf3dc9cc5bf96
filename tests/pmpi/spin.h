/* Busy work of a known length, for the programs whose POP factors are known in closed form. The tools time
 * everything on the wall clock (CLOCK_MONOTONIC), so a section spins -- burns its core, never sleeps -- until a
 * wall-clock deadline: its length is then the one asked for whatever else shares the cores, and a factor that
 * is a ratio of such lengths holds on a busy machine too. What a deadline cannot fix is the time around the
 * spins (a thread descheduled as its deadline passes, a thread that starts its part of a region late): the
 * programs read the clock around their MPI calls and report that time themselves. */
#ifndef SPIN_H
#define SPIN_H

#include <time.h>

/* A clock's seconds: CLOCK_MONOTONIC here; tests/c/test_counters.c burns a thread's CPU time instead
 * (CLOCK_THREAD_CPUTIME_ID), to set it against CPU-time counters. */
static inline double clock_seconds(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline void spin_on(clockid_t clock, double seconds)
{
    const double deadline = clock_seconds(clock) + seconds;
    while (clock_seconds(clock) < deadline) {
    }
}

static inline double now(void) { return clock_seconds(CLOCK_MONOTONIC); }

static inline void spin(double seconds) { spin_on(CLOCK_MONOTONIC, seconds); }

#endif
