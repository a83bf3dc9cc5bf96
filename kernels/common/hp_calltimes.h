/* Per-call times: how long each call took, kept as a bounded histogram rather than as a list.
 *
 * Chow & Hysom (2001, Fig. 3) sorted 100 communication timings and found them spread from ~5 ms to ~300 ms:
 * a total or a mean hides that tail, and the tail is what makes a configuration scale badly. Keeping every
 * timing would cost memory proportional to the run, and allocating in the timed path would disturb what it
 * times, so each counted thing (a communication class, a region) holds a fixed 38-bin histogram instead:
 * 4 bins per decade from 100 ns to 100 s (a bin is a factor 10^(1/4) = 1.78 wide), one bin below 100 ns and
 * one from 100 s up, plus the exact count, sum, minimum and maximum. The price is resolution: a percentile
 * read from the bins is known only to within its bin (a factor 1.78), which separates a 5 ms call from a
 * 300 ms one but not 5 ms from 6 ms. 38 counters of 8 bytes: 336 bytes with the four exact figures.
 *
 * Adding a call is a branch-free binary search over the 37 edges (six conditional moves, ~6 ns) and two
 * compares for the extremes: no division, no logarithm, no allocation; the two clock reads that time the call
 * cost more (~28 ns each here). The edges are one constant table, and the profile writes each
 * bin's edges out, so a reader never recomputes them. Plain counters, not thread-safe: see hp_counts.h. */
#ifndef HP_CALLTIMES_H
#define HP_CALLTIMES_H

/* Whether the counters keep them: 1 unless the build says otherwise (CMake's HYBRIDPERF_CALL_TIMES=OFF, which
 * exists to measure what keeping them costs: bench/call_times_overhead.py). */
#ifndef HP_CALL_TIMES
#define HP_CALL_TIMES 1
#endif

#define HP_CALLTIMES_PER_DECADE 4
#define HP_CALLTIMES_BINS 38 /* below 100 ns, 9 decades of 4, from 100 s up */

typedef struct {
    long long count;
    double sum, min, max; /* seconds; min and max mean something only when count > 0 */
    long long bins[HP_CALLTIMES_BINS];
} hp_calltimes;

/* Bin k holds [hp_calltimes_low(k), hp_calltimes_high(k)): bin 0 starts at 0, the last ends at infinity. */
double hp_calltimes_low(int bin);
double hp_calltimes_high(int bin);
int hp_calltimes_bin(double seconds);
void hp_calltimes_add(hp_calltimes *h, double seconds);
/* Adds every call of `from` into `into`. */
void hp_calltimes_merge(hp_calltimes *into, const hp_calltimes *from);

#endif
