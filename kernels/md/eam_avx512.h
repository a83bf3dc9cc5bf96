/* The AVX-512 form of eam.c's pair loops: eight of atom i's owned pairs per iteration.
 *
 * Why intrinsics (as lj_avx512.h): per pair the plain loop is a square root, a division and three spline
 * lookups, latency-bound in scalar code. Here positions and the pairs' 64-byte spline records are fetched with
 * whole loads and transposed in registers (avx512_rows.h), the arithmetic is the plain loop's, expression for
 * expression, on eight pairs at once, and the pairs beyond the cutoff or the list are masked out. What goes
 * to the eight neighbours j (their density share, their force) is added lane by lane, only for the pairs
 * inside the cutoff. Sums run in a different order from the plain loop's, so the two agree to rounding.
 * Included by eam.c only when __AVX512F__. */
#include "avx512_rows.h"

/* Lane m: the pair of i with list[m]; inside: among the first `count` and, when checked, inside the cutoff. */
typedef struct {
    __m512d dx, dy, dz, rsq, r, p;
    __mmask8 inside;
    int m[8]; /* spline piece per lane */
} pair_lanes;

static inline __attribute__((always_inline)) void lanes_of(const pair_inputs *in, const int *list, int count,
                                                           __m512d xi, __m512d yi, __m512d zi, const int check_cutoff,
                                                           pair_lanes *l)
{
    const double *row[8];
    for (int m = 0; m < 8; m++) row[m] = in->x + MD_VEC * list[m];
    __m512d xj[4];
    rows8x4(row, xj);
    l->dx = _mm512_sub_pd(xi, xj[0]);
    l->dy = _mm512_sub_pd(yi, xj[1]);
    l->dz = _mm512_sub_pd(zi, xj[2]);
    l->rsq = _mm512_fmadd_pd(l->dz, l->dz, _mm512_fmadd_pd(l->dy, l->dy, _mm512_mul_pd(l->dx, l->dx)));
    const __mmask8 listed = count >= 8 ? 0xff : (__mmask8)((1u << count) - 1);
    l->inside = check_cutoff ? _mm512_mask_cmp_pd_mask(listed, l->rsq, _mm512_set1_pd(in->cutsq), _CMP_LT_OQ) : listed;
    /* piece(): q = r / dr + 1, m = (int) q clamped to [1, last], p = min(q - m, 1); far lanes clamp harmlessly */
    l->r = _mm512_sqrt_pd(l->rsq);
    const __m512d q = _mm512_fmadd_pd(l->r, _mm512_set1_pd(in->rdr), _mm512_set1_pd(1.0));
    __m256i m = _mm512_cvttpd_epi32(_mm512_min_pd(q, _mm512_set1_pd((double)in->last)));
    m = _mm256_max_epi32(m, _mm256_set1_epi32(1));
    l->p = _mm512_min_pd(_mm512_sub_pd(q, _mm512_cvtepi32_pd(m)), _mm512_set1_pd(1.0));
    _mm256_storeu_si256((__m256i *)l->m, m);
}

static inline __m512d value_v(const __m512d c[4], __m512d p)
{
    return _mm512_fmadd_pd(_mm512_fmadd_pd(_mm512_fmadd_pd(c[0], p, c[1]), p, c[2]), p, c[3]);
}

static inline __m512d slope_v(const __m512d c[4], __m512d p, __m512d rdr)
{
    const __m512d three = _mm512_set1_pd(3.0), two = _mm512_set1_pd(2.0);
    return _mm512_mul_pd(_mm512_fmadd_pd(_mm512_fmadd_pd(_mm512_mul_pd(three, c[0]), p, _mm512_mul_pd(two, c[1])), p,
                                         c[2]),
                         rdr);
}

/* The density half (4 coefficients) of each lane's record of (a, b): `i_first` puts i's element first. */
static inline __attribute__((always_inline)) void densities_of(const pair_inputs *in, const int *list, int ei,
                                                               const pair_lanes *l, int i_first, const int one_element,
                                                               __m512d c[4])
{
    const double *row[8];
    for (int m = 0; m < 8; m++) {
        const int ej = one_element ? ei : in->element[in->type[list[m]]];
        row[m] = record_of(in, i_first ? ei : ej, i_first ? ej : ei, (size_t)l->m[m]) + COEFFS;
    }
    rows8x4(row, c);
}

static inline __attribute__((always_inline)) double atom_density_avx512(const pair_inputs *in, int i,
                                                                        double *restrict rho, const int one_element)
{
    const double *x = in->x + MD_VEC * (size_t)i;
    const __m512d xi = _mm512_set1_pd(x[0]), yi = _mm512_set1_pd(x[1]), zi = _mm512_set1_pd(x[2]);
    int *list = in->neigh + (size_t)i * in->stride, beyond[in->stride + 8], near = 0, far = 0;
    const int count = in->owned_pairs[i], ei = in->element[in->type[i]];
    __m512d rho_i = _mm512_setzero_pd();
    for (int k = 0; k < count; k += 8) {
        pair_lanes l;
        lanes_of(in, list + k, count - k, xi, yi, zi, 1, &l);
        const __m256i j = _mm256_loadu_si256((const __m256i *)(list + k));
        int to[8]; /* the eight j as read: the compaction below overwrites their slots */
        _mm256_storeu_si256((__m256i *)to, j);
        const __mmask8 outside = (count - k >= 8 ? 0xff : (__mmask8)((1u << (count - k)) - 1)) & ~l.inside;
        /* compressed in registers and stored whole (a compressing store to memory is slow on some cores) */
        _mm256_storeu_si256((__m256i *)(beyond + far), _mm256_maskz_compress_epi32(outside, j));
        far += __builtin_popcount(outside);
        if (!l.inside) continue;
        __m512d c[4];
        densities_of(in, to, ei, &l, 0, one_element, c); /* the density j gives i */
        const __m512d to_i = value_v(c, l.p);
        rho_i = _mm512_mask_add_pd(rho_i, l.inside, rho_i, to_i);
        __m512d to_j = to_i;
        if (!one_element) {
            densities_of(in, to, ei, &l, 1, one_element, c);
            to_j = value_v(c, l.p);
        }
        /* every lane adds, the masked ones zero, into atoms the copy holds (it reaches the padding sentinel) */
        double share[8];
        _mm512_storeu_pd(share, _mm512_maskz_mov_pd(l.inside, to_j));
        for (int m = 0; m < 8; m++) rho[to[m]] += share[m];
        /* near <= k: the eight slots written from list + near hold only pairs already read */
        _mm256_storeu_si256((__m256i *)(list + near), _mm256_maskz_compress_epi32(l.inside, j));
        near += __builtin_popcount(l.inside);
    }
    memcpy(list + near, beyond, (size_t)far * sizeof(int));
    in->near_pairs[i] = near;
    return _mm512_reduce_add_pd(rho_i);
}

static inline __attribute__((always_inline)) void atom_forces_avx512(const pair_inputs *in, int i, double *restrict f,
                                                                     const int one_element, const int want_energy,
                                                                     double *energy, double *virial)
{
    const double *x = in->x + MD_VEC * (size_t)i;
    const __m512d xi = _mm512_set1_pd(x[0]), yi = _mm512_set1_pd(x[1]), zi = _mm512_set1_pd(x[2]);
    const __m512d rdr = _mm512_set1_pd(in->rdr), fp_i = _mm512_set1_pd(in->fp[i]);
    const int *list = in->neigh + (size_t)i * in->stride, count = in->near_pairs[i];
    const int ei = in->element[in->type[i]];
    __m512d fx = _mm512_setzero_pd(), fy = fx, fz = fx, ev = fx, wv = fx;
    for (int k = 0; k < count; k += 8) {
        pair_lanes l;
        lanes_of(in, list + k, count - k, xi, yi, zi, 0, &l);
        const double *row[8];
        for (int m = 0; m < 8; m++) {
            const int ej = one_element ? ei : in->element[in->type[list[k + m]]];
            row[m] = record_of(in, ei, ej, (size_t)l.m[m]);
        }
        __m512d c[8]; /* r phi, then the density i gives j */
        rows8x8(row, c);
        const __m512d recip = _mm512_div_pd(_mm512_set1_pd(1.0), l.r);
        const __m512d phi = _mm512_mul_pd(value_v(c, l.p), recip);
        const __m512d phip = _mm512_mul_pd(_mm512_sub_pd(slope_v(c, l.p, rdr), phi), recip);
        const __m512d gives = slope_v(c + 4, l.p, rdr);
        __m512d gets = gives;
        if (!one_element) {
            __m512d d[4];
            densities_of(in, list + k, ei, &l, 0, one_element, d);
            gets = slope_v(d, l.p, rdr);
        }
        const __m256i j = _mm256_loadu_si256((const __m256i *)(list + k));
        const __m512d fp_j = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), l.inside, j, in->fp, 8);
        const __m512d psip = _mm512_fmadd_pd(fp_i, gets, _mm512_fmadd_pd(fp_j, gives, phip));
        const __m512d fpair = _mm512_maskz_mul_pd(l.inside, _mm512_sub_pd(_mm512_setzero_pd(), psip), recip);
        const __m512d ux = _mm512_mul_pd(l.dx, fpair), uy = _mm512_mul_pd(l.dy, fpair), uz = _mm512_mul_pd(l.dz, fpair);
        fx = _mm512_add_pd(fx, ux);
        fy = _mm512_add_pd(fy, uy);
        fz = _mm512_add_pd(fz, uz);
        /* each lane's (x, y, z, 0) subtracted from its j, every lane: masked lanes subtract zero from an atom the
         * copy holds (the copies reach the list's padding sentinel), and the eight j of a list are distinct */
        __m256d u[8];
        columns8x4(ux, uy, uz, _mm512_setzero_pd(), u);
        for (int m = 0; m < 8; m++) {
            double *fj = f + MD_VEC * (size_t)list[k + m];
            _mm256_store_pd(fj, _mm256_sub_pd(_mm256_load_pd(fj), u[m]));
        }
        if (want_energy) {
            ev = _mm512_mask_add_pd(ev, l.inside, ev, phi);
            wv = _mm512_fmadd_pd(l.rsq, fpair, wv);
        }
    }
    double *fi = f + MD_VEC * (size_t)i;
    fi[0] += _mm512_reduce_add_pd(fx);
    fi[1] += _mm512_reduce_add_pd(fy);
    fi[2] += _mm512_reduce_add_pd(fz);
    if (want_energy) {
        *energy += _mm512_reduce_add_pd(ev);
        *virial += _mm512_reduce_add_pd(wv);
    }
}
