/* Per-thread private copies of a per-atom array, and their sum: DL_POLY's answer to threads that add into
 * atoms other threads also add into (a three-body force moves j and k; a pair visited once moves both atoms).
 *
 * Thread 0 adds into the array itself; every other thread into its own zeroed copy of the same length; after
 * the parallel region the copies are added into the array. The sum is the thesis's "private copies" overhead:
 * memory (threads - 1 copies) and one pass over them per use, nothing on one thread. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "md.h"

void md_copies_prepare(md_copies *c, size_t length)
{
    c->stride = (length + 7) / 8 * 8; /* whole 64-byte lines: every copy is as aligned as the first */
    const size_t need = (size_t)(omp_get_max_threads() - 1) * c->stride;
    if (need > c->cap) {
        free(c->data);
        c->data = aligned_alloc(64, need * sizeof(double) + 64);
        c->cap = need;
    }
    c->length = length;
    c->threads = 1;
}

double *md_copies_mine(md_copies *c, double *array)
{
    const int me = omp_get_thread_num();
    double *mine = me == 0 ? array : c->data + (size_t)(me - 1) * c->stride;
    memset(mine, 0, c->length * sizeof(double));
#pragma omp single nowait
    c->threads = omp_get_num_threads(); /* the team may be smaller than the maximum: sum only its copies */
#pragma omp barrier /* every copy, the array too, is zeroed before anyone adds into another's atoms */
    return mine;
}

void md_copies_sum(const md_copies *c, double *array, hp_omp_idle *idle)
{
    const long n = (long)c->length;
    double *restrict out = array;
    for (int k = 0; k < c->threads - 1; k++) {
        const double *restrict copy = c->data + (size_t)k * c->stride;
        hp_omp_idle_begin(idle);
#pragma omp parallel
        {
            hp_omp_idle_enter(idle);
#pragma omp for simd schedule(static) nowait
            for (long m = 0; m < n; m++) out[m] += copy[m];
            hp_omp_idle_done(idle);
        }
        hp_omp_idle_end(idle);
    }
}

void md_copies_free(md_copies *c) { free(c->data); }
