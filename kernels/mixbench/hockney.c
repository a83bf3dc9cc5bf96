/* Weighted least squares for the Hockney model; see hockney.h.
 *
 * Sizes span nine decades (1 B to 1 GiB), so the normal equations are solved in centred form
 * (weighted means first, then sums of products of deviations): forming S*Sxx - Sx^2 directly
 * would cancel catastrophically at m ~ 1e9. Two passes over a few dozen points cost nothing. */
#include "hockney.h"

static int in_range(double m, double lo, double hi) { return m >= lo && (hi <= 0.0 || m <= hi); }

int hockney_fit_points(const double *m, const double *t, int n, double lo, double hi, hockney_fit *out)
{
    double sw = 0.0, swm = 0.0, swt = 0.0, mmin = 0.0, mmax = 0.0;
    int points = 0;
    for (int i = 0; i < n; i++) {
        if (!in_range(m[i], lo, hi)) continue;
        if (!(t[i] > 0.0)) return -1;
        const double w = 1.0 / (t[i] * t[i]);
        sw += w;
        swm += w * m[i];
        swt += w * t[i];
        if (points == 0 || m[i] < mmin) mmin = m[i];
        if (points == 0 || m[i] > mmax) mmax = m[i];
        points++;
    }
    if (points < 2 || mmin == mmax) return -1;
    const double mbar = swm / sw, tbar = swt / sw;
    double smm = 0.0, smt = 0.0, stt = 0.0;
    for (int i = 0; i < n; i++) {
        if (!in_range(m[i], lo, hi)) continue;
        const double w = 1.0 / (t[i] * t[i]), dm = m[i] - mbar, dt = t[i] - tbar;
        smm += w * dm * dm;
        smt += w * dm * dt;
        stt += w * dt * dt;
    }
    const double beta = smt / smm, alpha = tbar - beta * mbar;
    double residual = 0.0;
    for (int i = 0; i < n; i++) {
        if (!in_range(m[i], lo, hi)) continue;
        const double w = 1.0 / (t[i] * t[i]), e = t[i] - alpha - beta * m[i];
        residual += w * e * e;
    }
    out->alpha = alpha;
    out->beta = beta;
    out->r2 = stt > 0.0 ? 1.0 - residual / stt : 1.0;
    out->min_bytes = mmin;
    out->max_bytes = mmax;
    out->points = points;
    return 0;
}
