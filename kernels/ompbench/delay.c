/* The delay: the work every construct wraps, and all that a reference times.
 *
 * It must cost the same inside a construct and in the reference, and the optimiser must neither
 * remove it nor hoist it out of the repetition loop. EPCC builds without optimisation and relies
 * on an external function with a printf that never runs. This kernel is built with -O3, so the
 * protection is in the data flow instead: each call starts its accumulator from a volatile object
 * the compiler must read again every time (so calls cannot be merged or moved out of a loop), and
 * stores the result to another volatile object under a condition it cannot decide (so the loop is
 * never dead). The accumulation is a chain of dependent floating-point adds, which may not be
 * reassociated or vectorised without -ffast-math, so a delay is a fixed number of add latencies;
 * the term added is itself a floating-point counter, because converting an integer counter lets
 * the compiler bring in 512-bit vector conversions, whose clock effects the delay should not have.
 * The function is kept out of line, so a call costs the same from every construct.
 *
 * Reading the shared volatile from all threads costs nothing measurable (the line is only read);
 * the store never happens, so threads do not fight over a cache line.
 *
 * Calibration (EPCC: lengthen the loop by 10% steps until 1000 calls reach the time) here fits the
 * time of one call as a fixed part plus a part per iteration, then corrects the length once against
 * a measurement of the call itself. Each time is the least of 9 timings of many calls: on a shared
 * machine a timing can only be lengthened by other work, never shortened, so the least disturbed
 * one is the delay's own cost. */
#include <math.h>

#include "ompbench.h"

static volatile double seed = 0.0; /* never written: every call must read it */
static volatile double sink;       /* written only when a result is negative, which never happens */

static inline double chain(long iterations)
{
    double a = seed, x = 0.0;
    for (long i = 0; i < iterations; i++) {
        a += x;
        x += 1.0;
    }
    return a;
}

__attribute__((noinline)) void omb_delay(long iterations)
{
    const double a = chain(iterations);
    if (a < 0.0) sink = a;
}

/* The array group's delay (EPCC's array_delay): the same chain, its result stored in element 0 of the
 * thread's copy, so the copy is used. */
__attribute__((noinline)) void omb_array_delay(long iterations, double *a) { a[0] = chain(iterations); }

__attribute__((noinline)) void omb_keep(double value) { sink = value; }

static double time_calls(long iterations, long calls)
{
    const double start = hp_now();
    for (long k = 0; k < calls; k++) omb_delay(iterations);
    return (hp_now() - start) / (double)calls;
}

double omb_delay_seconds(long iterations)
{
    long calls = 16;
    while (time_calls(iterations, calls) * (double)calls < 1e-3) calls *= 2; /* timings of >= 1 ms */
    double best = time_calls(iterations, calls);
    for (int trial = 1; trial < 9; trial++) {
        const double t = time_calls(iterations, calls);
        if (t < best) best = t;
    }
    return best;
}

long omb_delay_length(double seconds, double *measured)
{
    const double fixed = omb_delay_seconds(0);
    long big = 1024;
    double t_big;
    while ((t_big = omb_delay_seconds(big)) < 2e-6 && big < (1L << 40)) big *= 2;
    const double per_iteration = (t_big - fixed) / (double)big;
    if (!(per_iteration > 0)) {
        *measured = fixed;
        return 0;
    }
    long length = lround((seconds - fixed) / per_iteration);
    if (length < 0) length = 0;
    *measured = omb_delay_seconds(length);
    long corrected = length + lround((seconds - *measured) / per_iteration);
    if (corrected < 0) corrected = 0;
    if (corrected != length) {
        length = corrected;
        *measured = omb_delay_seconds(length);
    }
    return length;
}
