/* Step 5, the local product y = A x, threaded over rows with a static split. In the measured calls each thread
 * reads the clock when its rows are done (a `for nowait`, hp_omp_idle.h), so the wait at the join splits into
 * load imbalance and the runtime's scheduling cost: two clock reads per thread per call, against rows of work.
 *
 * This loop is bound by memory bandwidth: per row it streams about 27 values and 27 column indices
 * and touches x mostly in cache (neighbouring rows share 2/3 of their columns), so its speed is
 * judged against STREAM triad (bench/spmv_bandwidth.py). The byte count below is what the loop must
 * move at least: values, indices, row starts, y written once and x read once. */
#include "spmv.h"

/* How far ahead (in nonzeros) the values and column indices are prefetched: 4 KiB of values, 2 KiB of
 * indices. The hardware prefetcher alone left the loop at ~0.7 of STREAM triad on the development
 * machine; prefetching this far ahead in software raised it to ~1.0 (128 and 2,048 measured worse). */
#define PREFETCH_AHEAD 512
#define DOUBLES_PER_LINE 8
#define INDICES_PER_LINE 16

void spmv_product(const spmv_matrix *m, const double *restrict x, double *restrict y, hp_omp_idle *idle)
{
    const int64_t *restrict start = m->row_start;
    const int32_t *restrict col = m->col;
    const double *restrict val = m->val;
    const long rows = m->rows;
    const int64_t nnz = start[rows];
    hp_omp_idle_begin(idle);
#pragma omp parallel
    {
        hp_omp_idle_enter(idle);
#pragma omp for schedule(static) nowait
        for (long i = 0; i < rows; i++) {
            /* Four partial sums: one running sum would make each row a chain of ~27 dependent adds, which
             * the core cannot overlap; vector gathers of x (the SIMD alternative) measured slower here. */
            double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
            int64_t k = start[i];
            const int64_t end = start[i + 1];
            const int64_t ahead = k + PREFETCH_AHEAD,
                          ahead_end = end + PREFETCH_AHEAD < nnz ? end + PREFETCH_AHEAD : nnz;
            for (int64_t q = ahead; q < ahead_end; q += DOUBLES_PER_LINE) __builtin_prefetch(val + q);
            for (int64_t q = ahead; q < ahead_end; q += INDICES_PER_LINE) __builtin_prefetch(col + q);
            for (; k + 3 < end; k += 4) {
                s0 += val[k] * x[col[k]];
                s1 += val[k + 1] * x[col[k + 1]];
                s2 += val[k + 2] * x[col[k + 2]];
                s3 += val[k + 3] * x[col[k + 3]];
            }
            for (; k < end; k++) s0 += val[k] * x[col[k]];
            y[i] = (s0 + s1) + (s2 + s3);
        }
        hp_omp_idle_done(idle);
    }
    hp_omp_idle_end(idle);
}

double spmv_bytes_per_product(const spmv_matrix *m)
{
    return (double)m->nnz * (sizeof(double) + sizeof(int32_t)) + (double)(m->rows + 1) * sizeof(int64_t) +
           (double)m->rows * sizeof(double) + (double)(m->rows + m->ghosts) * sizeof(double);
}
