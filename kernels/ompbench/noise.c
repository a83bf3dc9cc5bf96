/* OS noise, measured as a fixed work quantum (FWQ, as LLNL's benchmark of that name does): every thread of
 * every rank runs the same calibrated delay of --noise-quantum-us back to back, --noise-quanta times, timing
 * each. On a core nothing else wants, every quantum takes the same time; an interruption (a daemon, an
 * interrupt, another process) lengthens the quantum it falls in by what it took. A quantum's slowdown is its
 * time over its thread's fastest quantum, less 1: what the simulator's noise means by x, a node running at
 * 1/(1 + x) of its speed for one interval (docs/clusters.md). Each thread is judged against its own fastest
 * quantum, so a core that is slower throughout (another clock) is not counted as noise.
 *
 * Rank 0 pools every thread's slowdowns and keeps their distribution as NOISE_PERCENTILES equally likely
 * values, the percentiles at 0.5%, 1.5%, ... 99.5% (nearest rank): `hybridperf cluster measure` writes them into
 * the machine's description as its noise, whose slowdowns are drawn with equal probability. */
#include <stdlib.h>

#include "ompbench.h"

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One thread's quanta, timed, then turned into slowdowns against the fastest of them. */
static void time_quanta(long delay_length, int quanta, double *t)
{
    for (int k = 0; k < quanta; k++) {
        const double start = hp_now();
        omb_delay(delay_length);
        t[k] = hp_now() - start;
    }
    double fastest = t[0];
    for (int k = 1; k < quanta; k++)
        if (t[k] < fastest) fastest = t[k];
    for (int k = 0; k < quanta; k++) t[k] = t[k] / fastest - 1.0;
}

/* Rank 0: the pooled slowdowns' percentiles, mean and largest (sorts x). */
static void summarise(double *x, long n, omb_noise *out)
{
    qsort(x, (size_t)n, sizeof *x, compare_doubles);
    double sum = 0.0;
    for (long k = 0; k < n; k++) sum += x[k];
    for (int k = 0; k < OMB_NOISE_PERCENTILES; k++) {
        const long at = (long)((k + 0.5) / OMB_NOISE_PERCENTILES * (double)n);
        out->slowdown[k] = x[at < n ? at : n - 1];
    }
    out->mean = sum / (double)n;
    out->max = x[n - 1];
}

int omb_measure_noise(omb_bench *b, omb_noise *out)
{
    const int quanta = b->p.noise_quanta;
    *out = (omb_noise){.quanta = quanta};
    const long delay_length = omb_delay_length(1e-6 * b->p.noise_quantum_us, &out->quantum_s);
    const long mine = (long)quanta * b->threads;
    double *times = malloc((size_t)mine * sizeof *times);
    double *all = b->rank == 0 ? malloc((size_t)(mine * b->nranks) * sizeof *all) : NULL;
    const int ok = times != NULL && (b->rank != 0 || all != NULL);
    if (hp_any_error(&b->comm, MPI_COMM_WORLD, ok, OMB_KERNEL, "out of memory for the noise's quanta")) {
        free(times);
        free(all);
        return -1;
    }
    hp_barrier(&b->comm, MPI_COMM_WORLD);
#pragma omp parallel
    time_quanta(delay_length, quanta, times + (long)omp_get_thread_num() * quanta);
    hp_gather(&b->comm, times, (int)mine, MPI_DOUBLE, all, 0, MPI_COMM_WORLD);
    out->samples = mine * b->nranks;
    if (b->rank == 0) summarise(all, out->samples, out);
    free(times);
    free(all);
    return 0;
}
