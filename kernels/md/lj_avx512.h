/* The AVX-512 form of the pair loop in lj.c: eight neighbours per iteration.
 *
 * Why intrinsics here, against the house rule of plain loops: the compiler turns the plain loop's
 * neighbour loads into gathers, and gathers cost most of the force time on the cores we measured
 * (82 vs 150-170 ns/atom-step for the bare loop). Each neighbour's (x, y, z, 0) is instead one
 * aligned 32-byte load; eight such rows are transposed into x, y and z vectors (avx512_rows.h).
 * Everything after the transpose is the plain loop's arithmetic, expression for expression, with the
 * cutoff test as a mask. Included only when __AVX512F__. */
#include "avx512_rows.h"

static inline __attribute__((always_inline)) void load_neighbours(const double *restrict x, const int *restrict j,
                                                                  __m512d *xj, __m512d *yj, __m512d *zj)
{
    const double *row[8];
    for (int m = 0; m < 8; m++) row[m] = x + MD_VEC * j[m]; /* (x, y, z, 0) */
    __m512d col[4];
    rows8x4(row, col);
    *xj = col[0];
    *yj = col[1];
    *zj = col[2];
}

static inline __attribute__((always_inline)) void atom_forces_avx512(const pair_inputs *in, int i, const lj_form form,
                                                                     const int want_energy, double *epot,
                                                                     double *virial)
{
    const double *restrict x = in->x;
    const int *restrict list = in->neigh + (size_t)i * in->stride;
    const int count = padded(in->numneigh[i]);
    const __m512d xi = _mm512_set1_pd(x[MD_VEC * i]), yi = _mm512_set1_pd(x[MD_VEC * i + 1]),
                  zi = _mm512_set1_pd(x[MD_VEC * i + 2]);
    const __m512d cutsq = _mm512_set1_pd(in->cutsq), one = _mm512_set1_pd(1.0), c48 = _mm512_set1_pd(48.0),
                  c24 = _mm512_set1_pd(24.0), c4 = _mm512_set1_pd(4.0), f_cut = _mm512_set1_pd(in->f_cut),
                  e_cut = _mm512_set1_pd(in->e_cut), rc = _mm512_set1_pd(in->rc);
    __m512d fx = _mm512_setzero_pd(), fy = fx, fz = fx, ev = fx, wv = fx;
    for (int k = 0; k < count; k += MD_LIST_PAD) {
        __m512d xj, yj, zj;
        load_neighbours(x, list + k, &xj, &yj, &zj);
        const __m512d dx = _mm512_sub_pd(xi, xj), dy = _mm512_sub_pd(yi, yj), dz = _mm512_sub_pd(zi, zj);
        const __m512d rsq =
            _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)), _mm512_mul_pd(dz, dz));
        const __mmask8 inside = _mm512_cmp_pd_mask(rsq, cutsq, _CMP_LT_OQ);
        const __m512d r2inv = _mm512_div_pd(one, rsq);
        const __m512d r6inv = _mm512_mul_pd(_mm512_mul_pd(r2inv, r2inv), r2inv);
        const __m512d lj = _mm512_mul_pd(r6inv, _mm512_sub_pd(_mm512_mul_pd(c48, r6inv), c24));
        __m512d fpair, e = _mm512_setzero_pd();
        if (form == LJ_CUT) {
            fpair = _mm512_mul_pd(lj, r2inv);
        } else {
            const __m512d rinv = _mm512_sqrt_pd(r2inv);
            fpair = _mm512_mul_pd(_mm512_sub_pd(_mm512_mul_pd(rinv, lj), f_cut), rinv);
        }
        if (want_energy) {
            e = _mm512_mul_pd(r6inv, _mm512_sub_pd(_mm512_mul_pd(c4, r6inv), c4));
            if (form == LJ_SF)
                e = _mm512_add_pd(_mm512_sub_pd(e, e_cut),
                                  _mm512_mul_pd(_mm512_sub_pd(_mm512_sqrt_pd(rsq), rc), f_cut));
        }
        fpair = _mm512_maskz_mov_pd(inside, fpair);
        fx = _mm512_add_pd(fx, _mm512_mul_pd(dx, fpair));
        fy = _mm512_add_pd(fy, _mm512_mul_pd(dy, fpair));
        fz = _mm512_add_pd(fz, _mm512_mul_pd(dz, fpair));
        if (want_energy) {
            ev = _mm512_add_pd(ev, _mm512_maskz_mov_pd(inside, e));
            wv = _mm512_add_pd(wv, _mm512_mul_pd(rsq, fpair));
        }
    }
    store_force(in, i, _mm512_reduce_add_pd(fx), _mm512_reduce_add_pd(fy), _mm512_reduce_add_pd(fz));
    if (want_energy) {
        *epot += 0.5 * _mm512_reduce_add_pd(ev); /* each pair is in both atoms' lists */
        *virial += 0.5 * _mm512_reduce_add_pd(wv);
    }
}
