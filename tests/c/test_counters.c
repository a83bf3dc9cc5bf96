/* The switching of hp_counters.h, with software events (task-clock: CPU nanoseconds) set against each thread's own
 * CPU clock: a team created after the open counts (inheritance), the opener's section marked as MPI does not, and
 * nothing counts outside the window. CPU time against CPU time, so a busy machine changes how long it takes, not the
 * answer (a check of wall-clock time would fail whenever another process took a core). */
#include <omp.h>
#include <stdlib.h>

#include "../pmpi/spin.h"
#include "check.h"
#include "hp_counters.h"

static double thread_cpu(void) { return clock_seconds(CLOCK_THREAD_CPUTIME_ID); }

/* Spends `seconds` of this thread's CPU time. */
static void burn(double seconds) { spin_on(CLOCK_THREAD_CPUTIME_ID, seconds); }

int main(void)
{
    setenv("HYBRIDPERF_COUNTERS", "software", 1);
    omp_set_num_threads(2);
    hp_counters_open();
    burn(0.05); /* before the window */
    hp_counters_window(1);
    const double opened = thread_cpu();
    hp_counters_mpi(1);
    const double mpi_start = thread_cpu();
    burn(0.05); /* "in MPI" */
    const double in_mpi = thread_cpu() - mpi_start;
    hp_counters_mpi(0);
#pragma omp parallel
    burn(0.04 * (omp_get_thread_num() + 1));
    /* each thread's CPU time so far: the workers were created inside the window, so all of theirs counts */
    double team[2] = {0.0, 0.0};
#pragma omp parallel
    team[omp_get_thread_num()] = thread_cpu();
    hp_counters_window(0);
    const double master = thread_cpu() - opened - in_mpi;
    const hp_counter_values v = hp_counters_read();
    CHECK(v.events == 2 && v.unavailable != NULL);
    const double counted = 1e-9 * (double)v.values[0], expected = master + team[1];
    fprintf(stderr, "task-clock %.4f s, the threads' CPU clocks %.4f s (master %.4f, worker %.4f)\n", counted,
            expected, master, team[1]);
    /* the worker spins between reading its clock and the window's close, and each switch costs a little: 20 ms,
     * against the 50 ms "in MPI" that must not count */
    CHECK(counted > expected - 0.02 && counted < expected + 0.02);
    CHECK(team[1] >= 0.079); /* the worker burnt its share: without inheritance it would be missing from `counted` */

    burn(0.05); /* after the window */
    const hp_counter_values after = hp_counters_read();
    CHECK(after.values[0] == v.values[0]);
    return CHECK_DONE();
}
