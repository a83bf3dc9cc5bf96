/* Full neighbour lists, built from the cells (cells.c).
 *
 * The thesis's force loop walked the cells' linked lists every step. Here the cells are used only
 * every --neigh-every steps, to build a Verlet list of all atoms within cutoff + skin, which the
 * force loop then reads every step. The list is *full* -- each pair appears under both atoms -- so
 * the force loop writes only to atom i: it needs no atomics, no per-thread force copies and no
 * reverse communication of ghost forces, threads scale without contention, and the inner loop
 * vectorises. The cost is computing each pair twice, which SIMD more than repays.
 *
 * The candidates of an atom are the atoms of the stencil rows around its bin; each row is one
 * contiguous range of the bin-ordered coordinate copies, so candidates stream through memory and
 * the distance test vectorises (neighbor_avx512.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "md.h"

void md_neighbor_init(md_sim *s)
{
    md_neighbor *n = &s->nl;
    const double cut = s->ghost_cut;
    md_cells_init(s);
    /* First guess at the list length: the atoms in a sphere of the list cutoff at the mean density. */
    double volume = s->box_len[0] * s->box_len[1] * s->box_len[2];
    n->maxneigh = (int)(1.3 * (double)s->natoms / volume * 4.0 / 3.0 * M_PI * cut * cut * cut) + 16;
}

/* Candidates p in [first, last) of the bin-ordered copies within the list cutoff of xi, appended
 * to list from position count; returns the new count (entries past limit are counted, not stored). */
static inline int filter_row_plain(const md_neighbor *restrict n, int first, int last, const double *xi, int self,
                                   int *restrict list, int count, int limit)
{
    for (int p = first; p < last; p++) {
        const double dx = xi[0] - n->bx[p], dy = xi[1] - n->by[p], dz = xi[2] - n->bz[p];
        const double rsq = dx * dx + dy * dy + dz * dz;
        const int j = n->bidx[p];
        /* Branch-free append: about three candidates in four are rejected, at random, which a
         * branch would mispredict; the store goes to a spare slot when the list is full. */
        list[count < limit ? count : limit] = j;
        count += (rsq < n->cutsq) & (j != self);
    }
    return count;
}

#if defined(__AVX512F__) && defined(__AVX512VL__)
#include "neighbor_avx512.h"
#define HAVE_FILTER_AVX512 1
#endif

/* Builds atom i's list from the stencil rows around its bin; returns its length. The list is then
 * padded with the sentinel to a whole number of SIMD vectors, so the force loop has no remainder. */
static inline __attribute__((always_inline)) int build_one(const md_neighbor *restrict n, const md_atoms *restrict a,
                                                           int i, int *restrict list, const int use_avx512)
{
    const double *xi = a->x + MD_VEC * (size_t)i;
    const int b = n->bin_of[i], limit = n->maxneigh;
    int count = 0;
    for (int r = 0; r < n->nrows; r++) {
        const int first = n->bin_start[b + n->rows[r].offset + n->rows[r].dx_lo];
        const int last = n->bin_start[b + n->rows[r].offset + n->rows[r].dx_hi + 1];
#ifdef HAVE_FILTER_AVX512
        if (use_avx512) {
            count = filter_row_avx512(n, first, last, xi, i, list, count, limit);
            continue;
        }
#endif
        (void)use_avx512;
        count = filter_row_plain(n, first, last, xi, i, list, count, limit);
    }
    if (count <= limit)
        for (int k = count; k % MD_LIST_PAD; k++) list[k] = n->sentinel;
    return count;
}

/* Builds every owned atom's list; returns the longest. One loop per form, for the reason given
 * above PAIR_LOOP in lj.c (OpenMP outlines before constants propagate); timed as PAIR_LOOP is. */
#define BUILD_LISTS(use_avx512)                                                                                        \
    _Pragma("omp parallel reduction(max : longest)")                                                                   \
    {                                                                                                                  \
        hp_omp_idle_enter(&s->omp);                                                                                    \
        _Pragma("omp for schedule(static) nowait") for (int i = 0; i < nlocal; i++)                                    \
        {                                                                                                              \
            int len = build_one(n, a, i, n->neigh + (size_t)i * n->list_stride, use_avx512);                           \
            n->numneigh[i] = len;                                                                                      \
            if (len > longest) longest = len;                                                                          \
        }                                                                                                              \
        hp_omp_idle_done(&s->omp);                                                                                     \
    }

/* A dummy atom after the ghosts, so far away that it never interacts; it pads the lists. */
static void place_sentinel(md_atoms *a, md_neighbor *n)
{
    n->sentinel = a->nlocal + a->nghost;
    md_atoms_reserve(a, n->sentinel + 1);
    double *x = a->x + MD_VEC * (size_t)n->sentinel;
    x[0] = x[1] = x[2] = 1e10;
    x[3] = 0.0;
    a->type[n->sentinel] = 1;
}

static int round_up(int v, int multiple) { return (v + multiple - 1) / multiple * multiple; }

void md_neighbor_build(md_sim *s)
{
    md_neighbor *n = &s->nl;
    md_atoms *a = &s->atoms;
    const int total = a->nlocal + a->nghost, nlocal = a->nlocal;
    place_sentinel(a, n);
    md_cells_sort(s, total);
    hp_omp_idle_begin(&s->omp);
#pragma omp parallel
    {
        hp_omp_idle_enter(&s->omp);
#pragma omp for schedule(static) nowait
        for (int m = 0; m < total; m++) {
            const int i = n->perm[m];
            n->bx[m] = a->x[MD_VEC * i];
            n->by[m] = a->x[MD_VEC * i + 1];
            n->bz[m] = a->x[MD_VEC * i + 2];
            n->bidx[m] = i;
        }
        hp_omp_idle_done(&s->omp);
    }
    hp_omp_idle_end(&s->omp);
    if (nlocal > n->list_atoms) {
        free(n->numneigh);
        n->numneigh = malloc(((size_t)nlocal + 16) * sizeof *n->numneigh);
        n->list_atoms = nlocal + 16;
        n->list_stride = 0; /* forces reallocation of the lists below */
    }
    for (;;) {
        if (n->list_stride != round_up(n->maxneigh + 1, MD_LIST_PAD)) {
            free(n->neigh);
            n->list_stride = round_up(n->maxneigh + 1, MD_LIST_PAD);
            n->neigh = aligned_alloc(64, ((size_t)n->list_atoms * n->list_stride * sizeof(int) + 63) / 64 * 64);
        }
        int longest = 0;
        hp_omp_idle_begin(&s->omp);
        if (s->p.pair_kernel == MD_PAIR_AVX512) {
            BUILD_LISTS(1)
        } else {
            BUILD_LISTS(0)
        }
        hp_omp_idle_end(&s->omp);
        if (longest <= n->maxneigh) break;
        n->maxneigh = longest + longest / 8 + 8;
    }
    n->builds++;
}

void md_neighbor_free(md_neighbor *n)
{
    void *arrays[] = {n->bin_start, n->bin_next, n->bin_of,   n->bx,    n->by,      n->bz,
                      n->bidx,      n->rows,     n->numneigh, n->neigh, n->scratch, n->perm};
    for (size_t k = 0; k < sizeof arrays / sizeof *arrays; k++) free(arrays[k]);
    memset(n, 0, sizeof *n);
}
