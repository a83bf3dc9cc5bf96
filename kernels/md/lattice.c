/* The initial fcc lattice: 4 size^3 atoms at the standard benchmark's density, in a cubic box
 * [0, size * a) with a = (4 / density)^(1/3), as LAMMPS's "lattice fcc" and miniMD build it.
 *
 * Each rank creates only the sites inside its own brick, using the same lo <= x < hi test as
 * migration, so no site is created twice or lost however the box is divided. A site's id depends on
 * its lattice indices alone, which is what makes the initial velocities decomposition-independent. */
#include <math.h>

#include "md.h"

static const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};

void md_lattice_box(int size, double density, double lo[3], double len[3])
{
    double a = cbrt(4.0 / density);
    for (int d = 0; d < 3; d++) {
        lo[d] = 0.0;
        len[d] = size * a;
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

void md_lattice_fill(int n, double density, const hp_decomp *d, md_atoms *at)
{
    const double a = cbrt(4.0 / density);
    int first[3], last[3];
    for (int k = 0; k < 3; k++) cell_range(d->lo[k], d->hi[k], a, n, &first[k], &last[k]);

    long long cells = (long long)(last[0] - first[0] + 1) * (last[1] - first[1] + 1) * (last[2] - first[2] + 1);
    const double at_rest[3] = {0.0, 0.0, 0.0};
    md_atoms_reserve(at, (int)(4 * cells));
    for (int k = first[2]; k <= last[2]; k++)
        for (int j = first[1]; j <= last[1]; j++)
            for (int i = first[0]; i <= last[0]; i++)
                for (int b = 0; b < 4; b++) {
                    double r[3] = {(i + basis[b][0]) * a, (j + basis[b][1]) * a, (k + basis[b][2]) * a};
                    if (!inside(d, r)) continue;
                    md_atoms_append(at, 4 * ((long long)i + (long long)n * (j + (long long)n * k)) + b + 1, r, at_rest);
                }
}

void md_lattice_create(md_sim *s)
{
    md_lattice_fill(s->p.size, s->p.density, &s->decomp, &s->atoms);
    s->natoms = 4LL * s->p.size * s->p.size * s->p.size;
}
