/* Binning, spatial sorting and full neighbour lists.
 *
 * The thesis's code looped over cells and their linked lists every step. Here the cells (bins) are
 * used every --neigh-every steps to build a Verlet list of all atoms within cutoff + skin, which the
 * force loop then reads every step. The list is *full* -- each pair appears under both atoms -- so
 * the force loop writes only to atom i: it needs no atomics, no per-thread force copies and no
 * reverse communication of ghost forces, threads scale without contention, and the inner loop
 * vectorises. The cost is computing each pair twice, which SIMD more than repays.
 *
 * Bins are at least half the list cutoff wide, and are laid out x-fastest, so one stencil row
 * (fixed y and z offsets) is a run of consecutive bins, and the atoms of those bins are one
 * contiguous range of the bin-ordered coordinate copies: candidate atoms stream through memory.
 * Owned atoms are also physically reordered by bin at each rebuild (md_neighbor_sort_locals), which
 * keeps neighbours close in memory for the force loop's gathers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "md.h"

/* Bin of position r. Owned atoms are clamped to the inner bins, so the stencil around them never
 * leaves the grid even for an atom that strayed out of its brick (which fails a check anyway);
 * ghosts may use the padding bins. */
static int bin_index(const md_neighbor *n, const hp_decomp *d, const double *r, int owned)
{
    int b[3];
    for (int k = 0; k < 3; k++) {
        const int first = owned ? n->pad3[k] : 0, last = owned ? n->nbins[k] - n->pad3[k] - 1 : n->nbins[k] - 1;
        /* + pad keeps the argument non-negative for ghosts, so truncation is floor; the comparison
         * is done in floating point so that positions far away (or NaN) clamp safely */
        const double v = (r[k] - d->lo[k]) * n->inv_width[k] + n->pad3[k];
        b[k] = v >= first ? (v < last ? (int)v : last) : first;
    }
    return b[0] + n->nbins[0] * (b[1] + n->nbins[1] * b[2]);
}

/* Smallest distance between points of two bins `offset` bins apart along an axis of bin width w. */
static double gap(int offset, double w)
{
    int o = abs(offset);
    return o > 1 ? (o - 1) * w : 0.0;
}

void md_neighbor_init(md_sim *s)
{
    md_neighbor *n = &s->nl;
    const hp_decomp *d = &s->decomp;
    const double cut = s->ghost_cut;
    double width[3];
    n->cutsq = cut * cut;
    n->bins = 1;
    for (int k = 0; k < 3; k++) {
        double extent = d->hi[k] - d->lo[k];
        int inner = (int)(extent / (0.5 * cut));
        if (inner < 1) inner = 1;
        width[k] = extent / inner;
        n->inv_width[k] = inner / extent;
        n->pad3[k] = (int)ceil(cut / width[k]);
        n->nbins[k] = inner + 2 * n->pad3[k];
        n->bins *= n->nbins[k];
    }
    n->rows = malloc((size_t)(2 * n->pad3[1] + 1) * (2 * n->pad3[2] + 1) * sizeof *n->rows);
    n->nrows = 0;
    for (int dz = -n->pad3[2]; dz <= n->pad3[2]; dz++)
        for (int dy = -n->pad3[1]; dy <= n->pad3[1]; dy++) {
            double yz = gap(dy, width[1]) * gap(dy, width[1]) + gap(dz, width[2]) * gap(dz, width[2]);
            if (yz >= n->cutsq) continue;
            int reach = 0;
            while (reach < n->pad3[0] && gap(reach + 1, width[0]) * gap(reach + 1, width[0]) + yz < n->cutsq) reach++;
            n->rows[n->nrows++] = (md_stencil_row){dy * n->nbins[0] + dz * n->nbins[0] * n->nbins[1], -reach, reach};
        }
    n->bin_start = malloc((size_t)(n->bins + 1) * sizeof *n->bin_start);
    n->bin_next = malloc((size_t)n->bins * sizeof *n->bin_next);
    /* First guess at the list length: the atoms in a sphere of the list cutoff at the mean density. */
    double volume = s->box_len[0] * s->box_len[1] * s->box_len[2];
    n->maxneigh = (int)(1.3 * (double)s->natoms / volume * 4.0 / 3.0 * M_PI * cut * cut * cut) + 16;
}

static void reserve_atoms(md_neighbor *n, int atoms)
{
    if (atoms <= n->capacity) return;
    int cap = atoms + atoms / 4 + 16;
    n->bin_of = realloc(n->bin_of, (size_t)cap * sizeof *n->bin_of);
    n->bidx = realloc(n->bidx, (size_t)cap * sizeof *n->bidx);
    n->perm = realloc(n->perm, (size_t)cap * sizeof *n->perm);
    n->bx = realloc(n->bx, (size_t)cap * sizeof *n->bx);
    n->by = realloc(n->by, (size_t)cap * sizeof *n->by);
    n->bz = realloc(n->bz, (size_t)cap * sizeof *n->bz);
    n->scratch = realloc(n->scratch, (size_t)cap * MD_VEC * sizeof *n->scratch);
    n->capacity = cap;
}

/* Counting sort of atoms [0, count) by bin: fills bin_of, bin_start and perm (atoms in bin order). */
static void sort_by_bin(md_sim *s, int count)
{
    md_neighbor *n = &s->nl;
    const md_atoms *a = &s->atoms;
    reserve_atoms(n, count);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < count; i++) n->bin_of[i] = bin_index(n, &s->decomp, a->x + MD_VEC * (size_t)i, i < a->nlocal);
    memset(n->bin_start, 0, (size_t)(n->bins + 1) * sizeof *n->bin_start);
    for (int i = 0; i < count; i++) n->bin_start[n->bin_of[i] + 1]++;
    for (int b = 0; b < n->bins; b++) n->bin_start[b + 1] += n->bin_start[b];
    memcpy(n->bin_next, n->bin_start, (size_t)n->bins * sizeof *n->bin_next);
    for (int i = 0; i < count; i++) n->perm[n->bin_next[n->bin_of[i]]++] = i;
}

static void permute_vectors(double *v, const int *perm, double *tmp, int count)
{
#pragma omp parallel for schedule(static)
    for (int m = 0; m < count; m++)
        for (int d = 0; d < MD_VEC; d++) tmp[MD_VEC * m + d] = v[MD_VEC * perm[m] + d];
    memcpy(v, tmp, (size_t)count * MD_VEC * sizeof *v);
}

void md_neighbor_sort_locals(md_sim *s)
{
    md_atoms *a = &s->atoms;
    md_neighbor *n = &s->nl;
    const int count = a->nlocal;
    sort_by_bin(s, count);
    permute_vectors(a->x, n->perm, n->scratch, count);
    permute_vectors(a->v, n->perm, n->scratch, count);
    int64_t *ids = (int64_t *)n->scratch; /* same size as a double */
    for (int m = 0; m < count; m++) ids[m] = a->id[n->perm[m]];
    memcpy(a->id, ids, (size_t)count * sizeof *ids);
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
 * above PAIR_LOOP in lj.c (OpenMP outlines before constants propagate). */
#define BUILD_LISTS(use_avx512)                                                                                        \
    _Pragma("omp parallel for schedule(static) reduction(max : longest)") for (int i = 0; i < nlocal; i++)             \
    {                                                                                                                  \
        int len = build_one(n, a, i, n->neigh + (size_t)i * n->list_stride, use_avx512);                               \
        n->numneigh[i] = len;                                                                                          \
        if (len > longest) longest = len;                                                                              \
    }

/* A dummy atom after the ghosts, so far away that it never interacts; it pads the lists. */
static void place_sentinel(md_atoms *a, md_neighbor *n)
{
    n->sentinel = a->nlocal + a->nghost;
    md_atoms_reserve(a, n->sentinel + 1);
    double *x = a->x + MD_VEC * (size_t)n->sentinel;
    x[0] = x[1] = x[2] = 1e10;
    x[3] = 0.0;
}

static int round_up(int v, int multiple) { return (v + multiple - 1) / multiple * multiple; }

void md_neighbor_build(md_sim *s)
{
    md_neighbor *n = &s->nl;
    md_atoms *a = &s->atoms;
    const int total = a->nlocal + a->nghost, nlocal = a->nlocal;
    place_sentinel(a, n);
    sort_by_bin(s, total);
#pragma omp parallel for schedule(static)
    for (int m = 0; m < total; m++) {
        const int i = n->perm[m];
        n->bx[m] = a->x[MD_VEC * i];
        n->by[m] = a->x[MD_VEC * i + 1];
        n->bz[m] = a->x[MD_VEC * i + 2];
        n->bidx[m] = i;
    }
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
        if (s->p.pair_kernel == MD_PAIR_AVX512) BUILD_LISTS(1) else BUILD_LISTS(0) if (longest <= n->maxneigh) break;
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
