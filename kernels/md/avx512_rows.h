/* Eight rows of doubles in memory turned into vectors of their columns (lane m = row m), for the AVX-512 loops:
 * each row is fetched with whole 32- or 64-byte loads and transposed in registers, which measured faster than
 * gathers on the cores we have (lj_avx512.h). Included only when __AVX512F__. */
#include <immintrin.h>

/* Rows of 4 doubles, each 32-byte aligned: col[c] holds field c of the 8 rows. Every row must be readable. */
static inline __attribute__((always_inline)) void rows8x4(const double *const row[8], __m512d col[4])
{
    /* a_m pairs row m with row m + 4 in its two halves */
    const __m512i take_even = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
    const __m512i take_odd = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
    __m512d a[4];
    for (int m = 0; m < 4; m++)
        a[m] = _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_load_pd(row[m])), _mm256_load_pd(row[m + 4]), 1);
    const __m512d even01 = _mm512_unpacklo_pd(a[0], a[1]), odd01 = _mm512_unpackhi_pd(a[0], a[1]);
    const __m512d even23 = _mm512_unpacklo_pd(a[2], a[3]), odd23 = _mm512_unpackhi_pd(a[2], a[3]);
    col[0] = _mm512_permutex2var_pd(even01, take_even, even23);
    col[2] = _mm512_permutex2var_pd(even01, take_odd, even23);
    col[1] = _mm512_permutex2var_pd(odd01, take_even, odd23);
    col[3] = _mm512_permutex2var_pd(odd01, take_odd, odd23);
}

/* Rows of 8 doubles, each 64-byte aligned: col[c] holds field c of the 8 rows. */
static inline __attribute__((always_inline)) void rows8x8(const double *const row[8], __m512d col[8])
{
    __m512d r[8], t[8], u[8];
    for (int m = 0; m < 8; m++) r[m] = _mm512_load_pd(row[m]);
    for (int m = 0; m < 8; m += 2) { /* t[m]: fields 0, 2, 4, 6 of rows m, m + 1 interleaved; t[m + 1] the odd */
        t[m] = _mm512_unpacklo_pd(r[m], r[m + 1]);
        t[m + 1] = _mm512_unpackhi_pd(r[m], r[m + 1]);
    }
    /* u: rows 0-3 (or 4-7) of fields {0, 4}, {2, 6}, {1, 5}, {3, 7} */
    const __m512i low_pairs = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
    const __m512i high_pairs = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
    for (int half = 0; half < 2; half++) {
        const int m = 4 * half;
        u[m] = _mm512_permutex2var_pd(t[m], low_pairs, t[m + 2]);
        u[m + 1] = _mm512_permutex2var_pd(t[m], high_pairs, t[m + 2]);
        u[m + 2] = _mm512_permutex2var_pd(t[m + 1], low_pairs, t[m + 3]);
        u[m + 3] = _mm512_permutex2var_pd(t[m + 1], high_pairs, t[m + 3]);
    }
    const __m512i low_halves = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0);
    const __m512i high_halves = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);
    col[0] = _mm512_permutex2var_pd(u[0], low_halves, u[4]);
    col[4] = _mm512_permutex2var_pd(u[0], high_halves, u[4]);
    col[2] = _mm512_permutex2var_pd(u[1], low_halves, u[5]);
    col[6] = _mm512_permutex2var_pd(u[1], high_halves, u[5]);
    col[1] = _mm512_permutex2var_pd(u[2], low_halves, u[6]);
    col[5] = _mm512_permutex2var_pd(u[2], high_halves, u[6]);
    col[3] = _mm512_permutex2var_pd(u[3], low_halves, u[7]);
    col[7] = _mm512_permutex2var_pd(u[3], high_halves, u[7]);
}

/* The inverse of rows8x4: row[m] = (c0, c1, c2, c3) of lane m. */
static inline __attribute__((always_inline)) void columns8x4(__m512d c0, __m512d c1, __m512d c2, __m512d c3,
                                                             __m256d row[8])
{
    /* lo01 = x y of lanes 0, 2, 4, 6; hi01 the odd lanes; lo23, hi23 the same of z w */
    const __m512d lo01 = _mm512_unpacklo_pd(c0, c1), hi01 = _mm512_unpackhi_pd(c0, c1);
    const __m512d lo23 = _mm512_unpacklo_pd(c2, c3), hi23 = _mm512_unpackhi_pd(c2, c3);
    const __m512i first = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);   /* lanes m, m + 2 of a pair of 4 */
    const __m512i second = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4); /* lanes m + 4, m + 6 */
    const __m512d rows[4] = {_mm512_permutex2var_pd(lo01, first, lo23), _mm512_permutex2var_pd(hi01, first, hi23),
                             _mm512_permutex2var_pd(lo01, second, lo23), _mm512_permutex2var_pd(hi01, second, hi23)};
    /* rows[0]: lanes 0, 2; rows[1]: 1, 3; rows[2]: 4, 6; rows[3]: 5, 7 */
    for (int r = 0; r < 4; r++) {
        const int m = (r & 1) + 4 * (r >> 1);
        row[m] = _mm512_castpd512_pd256(rows[r]);
        row[m + 2] = _mm512_extractf64x4_pd(rows[r], 1);
    }
}
