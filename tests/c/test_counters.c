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
    /* each thread's CPU time just before the window closes and just after: the workers were created inside the
     * window, so all of theirs counts up to the close. The worker spins (waiting for work) in between, and for as
     * long as the master takes to close the window -- longer on a loaded machine -- so the count is bracketed by
     * the two readings, not compared with one. */
    double before[2] = {0.0, 0.0}, after_close[2] = {0.0, 0.0};
#pragma omp parallel
    before[omp_get_thread_num()] = thread_cpu();
    hp_counters_window(0);
#pragma omp parallel
    after_close[omp_get_thread_num()] = thread_cpu();
    const hp_counter_values v = hp_counters_read();
    CHECK(v.events == 2 && v.unavailable != NULL);
    const double counted = 1e-9 * (double)v.values[0];
    const double low = before[0] - opened - in_mpi + before[1], high = after_close[0] - opened - in_mpi + after_close[1];
    fprintf(stderr, "task-clock %.4f s, the threads' CPU clocks %.4f to %.4f s\n", counted, low, high);
    /* the switches themselves cost a little: 5 ms either way, against the 50 ms "in MPI" that must not count */
    CHECK(counted > low - 0.005 && counted < high + 0.005);
    CHECK(before[1] >= 0.079); /* the worker burnt its share: without inheritance it would be missing from `counted` */

    burn(0.05); /* after the window */
    const hp_counter_values after = hp_counters_read();
    CHECK(after.values[0] == v.values[0]);
    return CHECK_DONE();
}
