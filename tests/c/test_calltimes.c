/* Per-call time histograms (hp_calltimes.h): where known durations land, the edges, the exact figures, merging. */
#include <math.h>

#include "check.h"
#include "hp_calltimes.h"

int main(void)
{
    /* Bin 0 below 100 ns; bin k >= 1 from 100 ns x 10^((k-1)/4); the last from 100 s up. */
    CHECK(hp_calltimes_bin(0.0) == 0);
    CHECK(hp_calltimes_bin(99e-9) == 0);
    CHECK(hp_calltimes_bin(100e-9) == 1);
    CHECK(hp_calltimes_bin(150e-9) == 1);
    CHECK(hp_calltimes_bin(1e-6) == 5);   /* a decade is 4 bins: 100 ns -> 1, 1 us -> 5 */
    CHECK(hp_calltimes_bin(5e-3) == 19);  /* Chow & Hysom's ~5 ms: [3.16 ms, 5.62 ms) */
    CHECK(hp_calltimes_bin(300e-3) == 26); /* and their ~300 ms: [178 ms, 316 ms) */
    CHECK(hp_calltimes_bin(1.0) == 29);
    CHECK(hp_calltimes_bin(99.0) == 36);
    CHECK(hp_calltimes_bin(100.0) == 37);
    CHECK(hp_calltimes_bin(1e9) == HP_CALLTIMES_BINS - 1);
    CHECK(hp_calltimes_low(0) == 0.0 && hp_calltimes_high(0) == 1e-7);
    CHECK(isinf(hp_calltimes_high(HP_CALLTIMES_BINS - 1)) && hp_calltimes_low(HP_CALLTIMES_BINS - 1) == 100.0);
    for (int b = 1; b < HP_CALLTIMES_BINS; b++) {
        /* Contiguous, a factor 10^(1/4) wide, and each bin holds its own lower edge. */
        CHECK(hp_calltimes_low(b) == hp_calltimes_high(b - 1));
        CHECK(hp_calltimes_bin(hp_calltimes_low(b)) == b);
        if (b < HP_CALLTIMES_BINS - 1) CHECK(fabs(hp_calltimes_high(b) / hp_calltimes_low(b) - pow(10, 0.25)) < 1e-12);
    }

    hp_calltimes a = {0}, b = {0};
    hp_calltimes_add(&a, 2e-6);
    hp_calltimes_add(&a, 1e-3);
    hp_calltimes_add(&a, 2e-6);
    CHECK(a.count == 3 && a.min == 2e-6 && a.max == 1e-3 && fabs(a.sum - 1.004e-3) < 1e-15);
    CHECK(a.bins[hp_calltimes_bin(2e-6)] == 2 && a.bins[hp_calltimes_bin(1e-3)] == 1);
    hp_calltimes_merge(&b, &a); /* into an empty one: its extremes are taken, not compared with zeros */
    hp_calltimes_add(&b, 5.0);
    hp_calltimes_merge(&a, &(hp_calltimes){0}); /* an empty one changes nothing */
    CHECK(b.count == 4 && b.min == 2e-6 && b.max == 5.0 && a.count == 3 && a.max == 1e-3);
    long long total = 0;
    for (int k = 0; k < HP_CALLTIMES_BINS; k++) total += b.bins[k];
    CHECK(total == b.count);
    return CHECK_DONE();
}
