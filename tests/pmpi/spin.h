/* Busy work of a known length, for the programs whose POP factors are known in closed form. The tools time
 * everything on the wall clock (CLOCK_MONOTONIC), so a section spins -- burns its core, never sleeps -- until a
 * wall-clock deadline: its length is then the one asked for whatever else shares the cores, and a factor that
 * is a ratio of such lengths holds on a busy machine too. Except where the thread is descheduled when its
 * deadline passes (another process took its core) and returns late: spin says by how much, so that a program
 * can report the time it did not control. */
#ifndef SPIN_H
#define SPIN_H

#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Spins `seconds`; returns how late it ended (from the deadline to the clock's last reading). */
static double spin(double seconds)
{
    const double deadline = now() + seconds;
    double t;
    while ((t = now()) < deadline) {
    }
    return t - deadline;
}

#endif
