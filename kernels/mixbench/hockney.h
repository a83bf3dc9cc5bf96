/* The Hockney model of a message's cost, t(m) = alpha + beta m, fitted to measured points.
 *
 * Pure C, no MPI, so that it can be unit-tested alone (tests/c/test_hockney.c). */
#ifndef HOCKNEY_H
#define HOCKNEY_H

typedef struct {
    double alpha;     /* seconds: the latency, the cost of an empty message */
    double beta;      /* seconds per byte: 1/beta is the asymptotic bandwidth */
    double r2;        /* coefficient of determination of the (weighted) fit */
    double min_bytes; /* smallest and largest sizes among the points used */
    double max_bytes;
    int points;
} hockney_fit;

/* Least-squares fit of t = alpha + beta m over the points with lo <= m[i] <= hi (hi <= 0: no upper
 * limit). Each residual is weighted by 1/t[i]^2, i.e. relative errors are minimised, so that a 4 MiB
 * message does not outweigh a 1-byte one by a factor of 10^6 and both alpha and beta are determined.
 * Returns 0, or -1 (out untouched) when fewer than two distinct sizes are in range or a time is not
 * positive. */
int hockney_fit_points(const double *m, const double *t, int n, double lo, double hi, hockney_fit *out);

#endif
