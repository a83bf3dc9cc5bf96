/* EPCC's measurement of one construct on one rank: calibrated inner repetitions, timed outer
 * repetitions, overhead = test time - reference time per inner repetition.
 *
 * Two departures from EPCC, both about the reference:
 * - EPCC times each reference once, before the constructs that use it, and subtracts it from all
 *   of them; a machine whose speed drifts between the two (another job starts, the clock rate
 *   changes) then biases every overhead. Here the reference is timed again for every construct,
 *   its samples alternating with the construct's (reference first in even repetitions, test first
 *   in odd ones, so neither always follows the other). Drift hits both alike and cancels in the
 *   paired differences, whose mean is the overhead (equal to EPCC's test mean - reference mean)
 *   and whose spread gives the confidence interval.
 * - EPCC doubles the repetitions until one sample reaches the target time and then doubles them
 *   once more, so its samples last 2-4 times --test-time; here the repetitions are scaled to reach
 *   the target and kept, so samples last 1-1.2 times the target.
 * As in EPCC, one untimed run of each precedes the samples (page faults, thread creation), and
 * the reference's repetitions are calibrated separately from the test's, each sample being divided
 * by its own count. */
#include <math.h>

#include "ompbench.h"

long omb_calibrate(omb_body body, omb_work *w, double target_us, int multiple)
{
    long reps = multiple;
    body(w, reps); /* the first run may start threads or fault pages in: not a measure of anything */
    for (;;) {
        const double start = hp_now();
        body(w, reps);
        const double us = 1e6 * (hp_now() - start);
        if (us >= target_us) return reps;
        double grow = us > 0.0 ? 1.2 * target_us / us : 10.0;
        grow = grow > 10.0 ? 10.0 : grow < 1.1 ? 1.1 : grow;
        reps = (long)ceil((double)reps * grow);
        reps = (reps + multiple - 1) / multiple * multiple;
        if ((double)reps > 1e4 * target_us) return -1; /* under 0.1 ns a repetition: nothing is left to time */
    }
}

/* Microseconds per inner repetition. */
static double sample_us(omb_body body, omb_work *w, long reps)
{
    const double start = hp_now();
    body(w, reps);
    return 1e6 * (hp_now() - start) / (double)reps;
}

void omb_measure(const omb_construct *c, omb_work *w, int outer, omb_result *r, double *scratch)
{
    double *test = scratch, *ref = scratch + outer, *diff = scratch + 2 * outer;
    sample_us(c->reference, w, r->ref_reps);
    sample_us(c->test, w, r->reps);
    omb_array_reset(w); /* the array group counts the timed samples' executions only */
    for (int k = 0; k < outer; k++) {
        if (k % 2 == 0) {
            ref[k] = sample_us(c->reference, w, r->ref_reps);
            test[k] = sample_us(c->test, w, r->reps);
        } else {
            test[k] = sample_us(c->test, w, r->reps);
            ref[k] = sample_us(c->reference, w, r->ref_reps);
        }
        diff[k] = test[k] - ref[k];
    }
    r->outer = outer;
    omb_summarise(test, outer, &r->test);
    omb_summarise(ref, outer, &r->ref);
    omb_summarise(diff, outer, &r->diff);
    r->overhead_us = r->diff.mean;
    r->ci95_us = omb_t_quantile(0.95, outer - 1) * r->diff.sd / sqrt((double)outer);
    r->ci999_us = omb_t_quantile(0.999, outer - 1) * r->diff.sd / sqrt((double)outer);
    r->median_overhead_us = r->test.median - r->ref.median;
    r->epcc_pm_us = 1.96 * (r->test.sd + r->ref.sd);
}
