/* The per-call histogram of hp_calltimes.h. */
#include "hp_calltimes.h"

#include <math.h>

/* 100 ns x 10^(k/4): the quarter-decade steps written once, each decade a power of ten times them. */
#define DECADE(x) (x), 1.7782794100389228 * (x), 3.1622776601683795 * (x), 5.6234132519034912 * (x)
static const double edges[HP_CALLTIMES_BINS - 1] = {DECADE(1e-7), DECADE(1e-6), DECADE(1e-5),
                                                    DECADE(1e-4), DECADE(1e-3), DECADE(1e-2),
                                                    DECADE(1e-1), DECADE(1e0),  DECADE(1e1),
                                                    1e2};

double hp_calltimes_low(int bin) { return bin == 0 ? 0.0 : edges[bin - 1]; }

double hp_calltimes_high(int bin) { return bin == HP_CALLTIMES_BINS - 1 ? INFINITY : edges[bin]; }

/* The number of edges at or below `seconds`, by bisection without branches: each halving is a conditional move,
 * so a call costs the same ~6 ns whatever its time (a branchy search mispredicts on varied times, ~28 ns here). */
int hp_calltimes_bin(double seconds)
{
    const double *base = edges;
    int n = HP_CALLTIMES_BINS - 1;
    while (n > 1) {
        const int half = n / 2;
        base = seconds < base[half] ? base : base + half;
        n -= half;
    }
    return (int)(base - edges) + (seconds >= *base);
}

void hp_calltimes_add(hp_calltimes *h, double seconds)
{
    if (h->count == 0 || seconds < h->min) h->min = seconds;
    if (h->count == 0 || seconds > h->max) h->max = seconds;
    h->count++;
    h->sum += seconds;
    h->bins[hp_calltimes_bin(seconds)]++;
}

void hp_calltimes_merge(hp_calltimes *into, const hp_calltimes *from)
{
    if (from->count == 0) return;
    if (into->count == 0 || from->min < into->min) into->min = from->min;
    if (into->count == 0 || from->max > into->max) into->max = from->max;
    into->count += from->count;
    into->sum += from->sum;
    for (int b = 0; b < HP_CALLTIMES_BINS; b++) into->bins[b] += from->bins[b];
}
