/* The initial lattices, built as LAMMPS's "lattice" and "create_atoms" build them, in a cubic box
 * [0, size * a) of size^3 unit cells:
 *   fcc         4 sites, type 1: the LJ benchmark (a = (4 / density)^(1/3) in reduced units)
 *   bcc         2 sites, type 1: Fe (DL_POLY's Test 30: 50^3 cells = 250,000 atoms)
 *   l12         L1_2, 4 sites: type 2 at the cube corner, type 1 at the face centres, so
 *               --elements Cu,Au is Cu3Au (Test 20: 40^3 cells = 256,000 atoms)
 *   zincblende  3C, 8 sites: type 1 on an fcc lattice, type 2 shifted by (1/4, 1/4, 1/4), so
 *               --elements Si,C is 3C-SiC (Test 10: 35^3 cells = 343,000 atoms)
 *   diamond     the same 8 sites, all type 1 (Si, Ge, C)
 *
 * Each rank creates only the sites inside its own brick, using the same lo <= x < hi test as
 * migration, so no site is created twice or lost however the box is divided. A site's id depends on
 * its lattice indices alone, which is what makes the initial velocities decomposition-independent. */
#include <math.h>

#include "md.h"

typedef struct {
    int sites;
    double basis[8][3];
    int type[8];
} unit_cell;

/* the 8 sites of the diamond structure: an fcc lattice and the same shifted by a quarter diagonal */
#define DIAMOND_SITES                                                                                                  \
    {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5},                                                           \
     {0.25, 0.25, 0.25}, {0.75, 0.75, 0.25}, {0.75, 0.25, 0.75}, {0.25, 0.75, 0.75}}

static const unit_cell cells[] = {
    [MD_FCC] = {4, {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}}, {1, 1, 1, 1}},
    [MD_BCC] = {2, {{0, 0, 0}, {0.5, 0.5, 0.5}}, {1, 1}},
    [MD_L12] = {4, {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}}, {2, 1, 1, 1}},
    [MD_ZINCBLENDE] = {8, DIAMOND_SITES, {1, 1, 1, 1, 2, 2, 2, 2}},
    [MD_DIAMOND] = {8, DIAMOND_SITES, {1, 1, 1, 1, 1, 1, 1, 1}},
};

int md_lattice_types(md_lattice lattice)
{
    const unit_cell *c = &cells[lattice];
    int most = 1;
    for (int b = 0; b < c->sites; b++) most = c->type[b] > most ? c->type[b] : most;
    return most;
}

double md_lattice_spacing(const md_params *p)
{
    return p->lattice_constant > 0.0 ? p->lattice_constant : cbrt(cells[p->lattice].sites / p->density);
}

long long md_lattice_atoms(const md_params *p)
{
    return (long long)cells[p->lattice].sites * p->size * p->size * p->size;
}

void md_lattice_box(const md_params *p, double lo[3], double len[3])
{
    const double a = md_lattice_spacing(p);
    for (int d = 0; d < 3; d++) {
        lo[d] = 0.0;
        len[d] = p->size * a;
    }
}

/* Unit cells whose sites can fall in [lo, hi) along one dimension. */
static void cell_range(double lo, double hi, double a, int size, int *first, int *last)
{
    *first = (int)floor(lo / a) - 1;
    *last = (int)ceil(hi / a) + 1;
    if (*first < 0) *first = 0;
    if (*last > size - 1) *last = size - 1;
}

static int inside(const hp_decomp *d, const double r[3])
{
    for (int k = 0; k < 3; k++)
        if (r[k] < d->lo[k] || r[k] >= d->hi[k]) return 0;
    return 1;
}

void md_lattice_fill(const md_params *p, const hp_decomp *d, md_atoms *at)
{
    const unit_cell *c = &cells[p->lattice];
    const double a = md_lattice_spacing(p);
    const long long n = p->size;
    int first[3], last[3];
    for (int k = 0; k < 3; k++) cell_range(d->lo[k], d->hi[k], a, p->size, &first[k], &last[k]);

    long long span = (long long)(last[0] - first[0] + 1) * (last[1] - first[1] + 1) * (last[2] - first[2] + 1);
    const double at_rest[3] = {0.0, 0.0, 0.0};
    md_atoms_reserve(at, (int)(c->sites * span));
    for (int k = first[2]; k <= last[2]; k++)
        for (int j = first[1]; j <= last[1]; j++)
            for (int i = first[0]; i <= last[0]; i++)
                for (int b = 0; b < c->sites; b++) {
                    double r[3] = {(i + c->basis[b][0]) * a, (j + c->basis[b][1]) * a, (k + c->basis[b][2]) * a};
                    if (!inside(d, r)) continue;
                    const long long cell = i + n * (j + n * k);
                    md_atoms_append(at, c->sites * cell + b + 1, c->type[b], r, at_rest);
                }
}

void md_lattice_create(md_sim *s)
{
    md_lattice_fill(&s->p, &s->decomp, &s->atoms);
    s->natoms = md_lattice_atoms(&s->p);
}
