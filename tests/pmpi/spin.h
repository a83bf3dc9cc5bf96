/* Busy work of a known length, for the programs whose POP factors are known in closed form. The tools time
 * everything on the wall clock (CLOCK_MONOTONIC), so a section spins -- burns its core, never sleeps -- until a
 * wall-clock deadline: its length is then the one asked for whatever else shares the cores, and a factor that
 * is a ratio of such lengths holds on a busy machine too. What a deadline cannot fix is the time around the
 * spins (a thread descheduled as its deadline passes, a thread that starts its part of a region late): the
 * programs read the clock around their MPI calls and report that time themselves. */
#ifndef SPIN_H
#define SPIN_H

#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void spin(double seconds)
{
    const double deadline = now() + seconds;
    while (now() < deadline) {
    }
}

#endif
