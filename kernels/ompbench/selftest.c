/* Constructs that test the method itself: their true overheads are known.
 *
 * EMPTY runs exactly its reference (the same function), so any overhead it shows is measurement
 * error: it must come out as zero within its confidence interval. KNOWN_DELAY runs the reference's
 * delays and then spins on the clock for reps x --test-extra-delay-us, so its overhead per
 * repetition is exactly that time. The spin is one per sample, not one per repetition, because a
 * clock read costs tens of nanoseconds on virtual machines and per-repetition spins would add an
 * unknown number of them; and it waits on the clock rather than running a calibrated loop, because
 * the clock rate of a shared or virtual machine drifts by several percent within a run, which
 * would move a loop's length but not a time read from the clock. */
#include "ompbench.h"

static void test_known_delay(omb_work *w, long reps)
{
    const long length = w->delay_length;
    for (long j = 0; j < reps; j++) omb_delay(length);
    const double end = hp_now() + (double)reps * w->extra_delay_s;
    while (hp_now() < end) {
    }
}

const omb_construct omb_selftest_constructs[] = {
    {"EMPTY", "selftest", omb_reference_delay, omb_reference_delay, "delay", 0, OMB_ONCE,
     "self-test: the reference itself, overhead 0"},
    {"KNOWN_DELAY", "selftest", test_known_delay, omb_reference_delay, "delay", 0, OMB_ONCE,
     "self-test: the delay plus --test-extra-delay-us of spinning per repetition"},
};
const int omb_selftest_count = (int)(sizeof omb_selftest_constructs / sizeof *omb_selftest_constructs);
