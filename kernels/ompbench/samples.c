/* Statistics of the outer repetitions: EPCC's summary and the confidence interval of a mean.
 *
 * EPCC prints, per construct, the mean, median, min, max, standard deviation and the number of
 * "outliers" (samples more than 3 sd from the mean), and gives its overhead as
 * (test mean - reference mean) +/- 1.96 (sd_test + sd_ref). That interval has the width of the
 * samples' spread, not of the mean's uncertainty: it does not shrink with more repetitions. Here
 * the same summary is kept, and the overhead's uncertainty is a confidence interval of the mean
 * of paired differences, t(n-1) sd / sqrt(n), which is what a reader comparing two overheads
 * needs. The Student t quantiles are tabulated for up to 30 degrees of freedom and beyond that
 * taken from the Cornish-Fisher expansion around the normal quantile (error < 1e-3 there). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ompbench.h"

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void omb_summarise(const double *x, int n, omb_stats *s)
{
    double *sorted = malloc((size_t)n * sizeof *sorted);
    memcpy(sorted, x, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, compare_doubles);
    double sum = 0.0;
    for (int k = 0; k < n; k++) sum += x[k];
    s->mean = sum / n;
    double squares = 0.0;
    for (int k = 0; k < n; k++) squares += (x[k] - s->mean) * (x[k] - s->mean);
    s->sd = n > 1 ? sqrt(squares / (n - 1)) : 0.0;
    s->min = sorted[0];
    s->max = sorted[n - 1];
    s->median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    s->outliers = 0;
    for (int k = 0; k < n; k++)
        if (fabs(x[k] - s->mean) > 3.0 * s->sd) s->outliers++;
    free(sorted);
}

/* Two-sided quantiles t(df) with P(|T| <= t) = 0.95 and 0.999, df = 1..30. */
static const double t95[30] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                               2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                               2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
static const double t999[30] = {636.619, 31.599, 12.924, 8.610, 6.869, 5.959, 5.408, 5.041, 4.781, 4.587,
                                4.437,   4.318,  4.221,  4.140, 4.073, 4.015, 3.965, 3.922, 3.883, 3.850,
                                3.819,   3.792,  3.768,  3.745, 3.725, 3.707, 3.690, 3.674, 3.659, 3.646};

double omb_t_quantile(double level, int df)
{
    const int high = level > 0.99;
    if (df < 1) df = 1;
    if (df <= 30) return high ? t999[df - 1] : t95[df - 1];
    const double z = high ? 3.2905267 : 1.9599640, n = df;
    const double z2 = z * z, z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2, z9 = z7 * z2;
    return z + (z3 + z) / (4 * n) + (5 * z5 + 16 * z3 + 3 * z) / (96 * n * n) +
           (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * n * n * n) +
           (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / (92160 * n * n * n * n);
}
