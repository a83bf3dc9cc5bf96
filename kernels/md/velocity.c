/* Initial velocities, bit-identical whatever the number of ranks and threads.
 *
 * Each component is a 16-bit signed integer drawn from a counter-based generator keyed on (seed,
 * atom id, component) -- a SplitMix64 hash, so no generator state is shared or ordered. The net
 * momentum and the kinetic energy are then sums of integers, which MPI adds exactly in any order;
 * every rank therefore derives the same mean and the same scale factor, and every atom the same
 * velocity, on any decomposition. (Floating-point sums would differ in the last bits with the
 * number of ranks.) With several atom types the integer sums are kept per type and weighted by the
 * masses afterwards, in the same order on every rank. 16 bits keep sum of squares below 2^63 up to 2^31 atoms; the distribution is
 * uniform, like LAMMPS's "velocity create" default. */
#include <math.h>
#include <stdlib.h>

#include "md.h"

static uint64_t splitmix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int draw(uint64_t key, int64_t id, int component)
{
    return (int)(splitmix64(key ^ splitmix64((uint64_t)id * 3u + (uint64_t)component)) >> 48) - 32768;
}

/* Per type: the count, the sum of r per component and the sum of r^2 -- integers, summed exactly. */
enum { SUMS = 5 };

void md_velocity_create(md_sim *s)
{
    md_atoms *a = &s->atoms;
    const md_species *sp = &s->species;
    const uint64_t key = splitmix64((uint64_t)s->p.seed);
    int64_t local[(MD_MAX_TYPES + 1) * SUMS] = {0}, global[(MD_MAX_TYPES + 1) * SUMS];
    int *raw = malloc((size_t)(3 * a->nlocal + 1) * sizeof *raw);

    for (int i = 0; i < a->nlocal; i++) {
        int64_t *sums = local + a->type[i] * SUMS;
        sums[0]++;
        for (int c = 0; c < 3; c++) {
            int r = draw(key, a->id[i], c);
            raw[3 * i + c] = r;
            sums[1 + c] += r;
            sums[4] += (int64_t)r * r;
        }
    }
    const int count = (sp->ntypes + 1) * SUMS;
    hp_allreduce(&s->comm, local, global, count, MPI_INT64_T, MPI_SUM, s->decomp.cart);

    /* The mass-weighted mean is removed (zero net momentum), then all is scaled to the temperature:
     * sum m (r - mean)^2 = sum over types of m (sum r^2 - 2 mean . sum r + n mean^2). */
    double mass_total = 0.0, mean[3] = {0.0, 0.0, 0.0}, mv2 = 0.0;
    for (int t = 1; t <= sp->ntypes; t++) {
        mass_total += sp->mass[t] * (double)global[t * SUMS];
        for (int c = 0; c < 3; c++) mean[c] += sp->mass[t] * (double)global[t * SUMS + 1 + c];
    }
    for (int c = 0; c < 3; c++) mean[c] /= mass_total;
    for (int t = 1; t <= sp->ntypes; t++) {
        const int64_t *g = global + t * SUMS;
        double sq = (double)g[4];
        for (int c = 0; c < 3; c++) sq += mean[c] * ((double)g[0] * mean[c] - 2.0 * (double)g[1 + c]);
        mv2 += sp->mass[t] * sq;
    }
    const md_units *u = s->p.units;
    const double dof = 3.0 * (double)s->natoms - 3.0;
    const double scale = mv2 > 0.0 ? sqrt(s->p.temperature * dof * u->boltz / (u->mvv2e * mv2)) : 0.0;
    for (int i = 0; i < a->nlocal; i++)
        for (int c = 0; c < 3; c++) a->v[MD_VEC * i + c] = (raw[3 * i + c] - mean[c]) * scale;
    free(raw);
}
