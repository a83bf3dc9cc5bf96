/* The core clock rate, to turn overheads in microseconds into cycles.
 *
 * The CLOMP paper quotes EPCC overheads in processor cycles. A cycle count needs the rate the core
 * actually runs at, which is neither the nominal frequency (turbo and power saving move it) nor the
 * time-stamp counter's rate (x86's TSC ticks at a fixed nominal rate whatever the core does). So it
 * is measured: a chain of dependent register-to-register integer adds executes at exactly one add
 * per cycle on every x86-64 and AArch64 core, whatever its width, because each add needs the
 * previous result. (Adds of an immediate are avoided: recent Intel cores can fold those chains at
 * register renaming and run them faster than one per cycle.) The chain is written in inline
 * assembly so the compiler cannot fold it into one multiplication. The best of several trials is
 * taken, since an interruption can only make a trial slower.
 *
 * Limits: it is the rate while this thread runs alone at start-up; with all cores busy the rate can
 * be lower (turbo budgets), so cycle counts of many-thread constructs may be overstated by the
 * difference. On other architectures there is no measurement and cycles are reported as null. */
#include "ompbench.h"

#if defined(__x86_64__) || defined(__aarch64__)
const char *const omb_clock_method = "dependent register adds, one per cycle";

static volatile unsigned long step_source = 1;

/* Seconds for `blocks` blocks of 100 dependent adds. */
static double time_chain(long blocks)
{
    unsigned long x = 0, step = step_source;
    const double start = hp_now();
    for (long k = 0; k < blocks; k++) {
#if defined(__x86_64__)
        __asm__ __volatile__(".rept 100\n\taddq %1, %0\n\t.endr" : "+r"(x) : "r"(step));
#else
        __asm__ __volatile__(".rept 100\n\tadd %0, %0, %1\n\t.endr" : "+r"(x) : "r"(step));
#endif
    }
    const double seconds = hp_now() - start;
    omb_keep((double)x);
    return seconds;
}

double omb_clock_hz(void)
{
    long blocks = 1000;
    while (time_chain(blocks) < 2e-3) blocks *= 2; /* trials of >= 2 ms */
    double best = 0.0;
    for (int trial = 0; trial < 7; trial++) {
        const double hz = 100.0 * (double)blocks / time_chain(blocks);
        if (hz > best) best = hz;
    }
    return best;
}
#else
const char *const omb_clock_method = "none on this architecture";

double omb_clock_hz(void) { return 0.0; }
#endif
