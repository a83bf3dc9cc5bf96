/* The AVX-512 form of one stencil row of the neighbour-list build in neighbor.c.
 *
 * The plain loop tests one candidate at a time; here eight candidates' distances are computed at
 * once from the bin-ordered coordinate copies (contiguous loads), and the indices of those within
 * the list cutoff are appended with one compress-store. The rule for a full list is the plain
 * loop's: entries past `limit` are not stored but still counted, so the caller sees the overflow
 * and rebuilds with longer lists. Included only when __AVX512F__ and __AVX512VL__. */
#include <immintrin.h>

static inline int filter_row_avx512(const md_neighbor *restrict n, int first, int last, const double *xi, int self,
                                    int *restrict list, int count, int limit)
{
    const __m512d x0 = _mm512_set1_pd(xi[0]), y0 = _mm512_set1_pd(xi[1]), z0 = _mm512_set1_pd(xi[2]);
    const __m512d cutsq = _mm512_set1_pd(n->cutsq);
    const __m256i me = _mm256_set1_epi32(self);
    for (int p = first; p < last; p += 8) {
        const __mmask8 valid = last - p >= 8 ? 0xff : (__mmask8)((1u << (last - p)) - 1);
        const __m512d dx = _mm512_sub_pd(x0, _mm512_maskz_loadu_pd(valid, n->bx + p));
        const __m512d dy = _mm512_sub_pd(y0, _mm512_maskz_loadu_pd(valid, n->by + p));
        const __m512d dz = _mm512_sub_pd(z0, _mm512_maskz_loadu_pd(valid, n->bz + p));
        const __m512d rsq =
            _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)), _mm512_mul_pd(dz, dz));
        const __m256i j = _mm256_maskz_loadu_epi32(valid, n->bidx + p);
        const __mmask8 keep = _mm512_mask_cmp_pd_mask(valid, rsq, cutsq, _CMP_LT_OQ) & _mm256_cmpneq_epi32_mask(j, me);
        const int kept = __builtin_popcount(keep);
        if (count + kept <= limit) _mm256_mask_compressstoreu_epi32(list + count, keep, j);
        count += kept;
    }
    return count;
}
