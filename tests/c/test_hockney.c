/* The Hockney fit: exact recovery of a synthetic series, robustness to noise, the size range, and
 * refusal of series it cannot fit. */
#include <math.h>

#include "check.h"
#include "hockney.h"

static int close_to(double a, double b, double rel) { return fabs(a - b) <= rel * fabs(b); }

int main(void)
{
    /* Open MPI on one node: 0.34 us latency, 9.9 GB/s; 1 B to 1 GiB in powers of two. */
    enum { N = 31 };
    const double alpha = 0.34e-6, beta = 1.0 / 9.9e9;
    double m[N], t[N], noisy[N];
    for (int i = 0; i < N; i++) {
        m[i] = ldexp(1.0, i);
        t[i] = alpha + beta * m[i];
        noisy[i] = t[i] * (1.0 + 0.05 * ((i % 3) - 1)); /* -5%, 0, +5%, repeating */
    }
    hockney_fit f;
    CHECK(hockney_fit_points(m, t, N, 0, 0, &f) == 0);
    CHECK(close_to(f.alpha, alpha, 1e-9));
    CHECK(close_to(f.beta, beta, 1e-9));
    CHECK(close_to(f.r2, 1.0, 1e-12));
    CHECK(f.points == N && f.min_bytes == 1 && f.max_bytes == ldexp(1.0, N - 1));

    /* +-5% noise: both parameters within a few per cent, and a fit that knows it is imperfect. */
    CHECK(hockney_fit_points(m, noisy, N, 0, 0, &f) == 0);
    CHECK(close_to(f.alpha, alpha, 0.05));
    CHECK(close_to(f.beta, beta, 0.05));
    CHECK(f.r2 < 1.0 && f.r2 > 0.9);

    /* The range: only 1 KiB .. 1 MiB count; a series that changes slope outside it does not matter. */
    double kinked[N];
    for (int i = 0; i < N; i++) kinked[i] = m[i] > 1048576 ? 3.0 * t[i] : t[i];
    CHECK(hockney_fit_points(m, kinked, N, 1024, 1048576, &f) == 0);
    CHECK(f.points == 11 && f.min_bytes == 1024 && f.max_bytes == 1048576);
    CHECK(close_to(f.beta, beta, 1e-9) && close_to(f.alpha, alpha, 1e-6));

    /* Unweighted least squares would let the largest sizes decide alpha; the relative weights do not:
     * a 1% error on the 1 GiB point moves alpha by far less than 1%. */
    double bumped[N];
    for (int i = 0; i < N; i++) bumped[i] = i == N - 1 ? 1.01 * t[i] : t[i];
    CHECK(hockney_fit_points(m, bumped, N, 0, 0, &f) == 0);
    CHECK(close_to(f.alpha, alpha, 0.01));

    /* Too few distinct sizes, or a time that is not positive: no fit. */
    const double one[2] = {8, 8}, times[2] = {1e-6, 2e-6}, bad[2] = {1e-6, 0.0}, two[2] = {8, 16};
    CHECK(hockney_fit_points(one, times, 2, 0, 0, &f) == -1);
    CHECK(hockney_fit_points(two, bad, 2, 0, 0, &f) == -1);
    CHECK(hockney_fit_points(m, t, N, 5e9, 0, &f) == -1);
    CHECK(hockney_fit_points(two, times, 2, 0, 0, &f) == 0 && close_to(f.beta, 1e-6 / 8, 1e-12));
    return CHECK_DONE();
}
