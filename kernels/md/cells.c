/* Binning and spatial sorting of atoms into cells (bins).
 *
 * The thesis's code looped over cells and their linked lists every step. Here the bins are used
 * only at a rebuild (every --neigh-every steps), to find the candidates of the neighbour lists
 * (neighbor.c), so they are laid out for that search rather than for a per-step loop: a counting
 * sort puts the atoms of each bin in one contiguous range instead of a linked list, which costs two
 * passes over the atoms but lets the search stream through memory.
 *
 * Bins are at least half the list cutoff wide, and are laid out x-fastest, so one stencil row
 * (fixed y and z offsets) is a run of consecutive bins, and the atoms of those bins are one
 * contiguous range of the bin-ordered coordinate copies. Narrower bins would fit the cutoff sphere
 * more tightly (fewer candidates) but add bins to visit; half the cutoff is the usual balance. The
 * grid extends past the brick by enough padding bins to hold the ghosts. Owned atoms are also
 * physically reordered by bin at each rebuild (md_cells_sort_locals), which keeps neighbours close
 * in memory for the force loop's gathers, at the price of moving positions, velocities and ids. */
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

void md_cells_init(md_sim *s)
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

void md_cells_sort(md_sim *s, int count)
{
    md_neighbor *n = &s->nl;
    const md_atoms *a = &s->atoms;
    reserve_atoms(n, count);
    hp_omp_idle_begin(&s->omp);
#pragma omp parallel
    {
        hp_omp_idle_enter(&s->omp);
#pragma omp for schedule(static) nowait
        for (int i = 0; i < count; i++)
            n->bin_of[i] = bin_index(n, &s->decomp, a->x + MD_VEC * (size_t)i, i < a->nlocal);
        hp_omp_idle_done(&s->omp);
    }
    hp_omp_idle_end(&s->omp);
    memset(n->bin_start, 0, (size_t)(n->bins + 1) * sizeof *n->bin_start);
    for (int i = 0; i < count; i++) n->bin_start[n->bin_of[i] + 1]++;
    for (int b = 0; b < n->bins; b++) n->bin_start[b + 1] += n->bin_start[b];
    memcpy(n->bin_next, n->bin_start, (size_t)n->bins * sizeof *n->bin_next);
    for (int i = 0; i < count; i++) n->perm[n->bin_next[n->bin_of[i]]++] = i;
}

static void permute_vectors(double *v, const int *perm, double *tmp, int count, hp_omp_idle *idle)
{
    hp_omp_idle_begin(idle);
#pragma omp parallel
    {
        hp_omp_idle_enter(idle);
#pragma omp for schedule(static) nowait
        for (int m = 0; m < count; m++)
            for (int d = 0; d < MD_VEC; d++) tmp[MD_VEC * m + d] = v[MD_VEC * perm[m] + d];
        hp_omp_idle_done(idle);
    }
    hp_omp_idle_end(idle);
    memcpy(v, tmp, (size_t)count * MD_VEC * sizeof *v);
}

void md_cells_sort_locals(md_sim *s)
{
    md_atoms *a = &s->atoms;
    md_neighbor *n = &s->nl;
    const int count = a->nlocal;
    md_cells_sort(s, count);
    permute_vectors(a->x, n->perm, n->scratch, count, &s->omp);
    permute_vectors(a->v, n->perm, n->scratch, count, &s->omp);
    int64_t *ids = (int64_t *)n->scratch; /* same size as a double */
    for (int m = 0; m < count; m++) ids[m] = a->id[n->perm[m]];
    memcpy(a->id, ids, (size_t)count * sizeof *ids);
    int *types = (int *)n->scratch;
    for (int m = 0; m < count; m++) types[m] = a->type[n->perm[m]];
    memcpy(a->type, types, (size_t)count * sizeof *types);
}
