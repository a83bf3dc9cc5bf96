/* Step 5, the local product y = A x, threaded over rows with a static split.
 *
 * This loop is bound by memory bandwidth: per row it streams about 27 values and 27 column indices
 * and touches x mostly in cache (neighbouring rows share 2/3 of their columns), so its speed is
 * judged against STREAM triad (bench/spmv_bandwidth.py). The byte count below is what the loop must
 * move at least: values, indices, row starts, y written once and x read once. */
#include "spmv.h"

void spmv_product(const spmv_matrix *m, const double *restrict x, double *restrict y)
{
    const int64_t *restrict start = m->row_start;
    const int32_t *restrict col = m->col;
    const double *restrict val = m->val;
    const long rows = m->rows;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < rows; i++) {
        double sum = 0.0;
        /* A SIMD reduction: a single running sum would make each row a chain of ~27 dependent adds,
         * latency-bound at about 60% of the memory bandwidth; partial sums in vector lanes are not. */
#pragma omp simd reduction(+ : sum)
        for (int64_t k = start[i]; k < start[i + 1]; k++) sum += val[k] * x[col[k]];
        y[i] = sum;
    }
}

double spmv_bytes_per_product(const spmv_matrix *m)
{
    return (double)m->nnz * (sizeof(double) + sizeof(int32_t)) + (double)(m->rows + 1) * sizeof(int64_t) +
           (double)m->rows * sizeof(double) + (double)(m->rows + m->ghosts) * sizeof(double);
}
