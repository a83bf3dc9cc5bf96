/* Initial velocities, bit-identical whatever the number of ranks and threads.
 *
 * Each component is a 16-bit signed integer drawn from a counter-based generator keyed on (seed,
 * atom id, component) -- a SplitMix64 hash, so no generator state is shared or ordered. The net
 * momentum and the kinetic energy are then sums of integers, which MPI adds exactly in any order;
 * every rank therefore derives the same mean and the same scale factor, and every atom the same
 * velocity, on any decomposition. (Floating-point sums would differ in the last bits with the
 * number of ranks.) 16 bits keep sum of squares below 2^63 up to 2^31 atoms; the distribution is
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

void md_velocity_create(md_sim *s)
{
    md_atoms *a = &s->atoms;
    const uint64_t key = splitmix64((uint64_t)s->p.seed);
    int64_t local[4] = {0, 0, 0, 0}, global[4]; /* sums of r per component, and of r^2 */
    int *raw = malloc((size_t)(3 * a->nlocal + 1) * sizeof *raw);

    for (int i = 0; i < a->nlocal; i++)
        for (int c = 0; c < 3; c++) {
            int r = draw(key, a->id[i], c);
            raw[3 * i + c] = r;
            local[c] += r;
            local[3] += (int64_t)r * r;
        }
    hp_allreduce(&s->comm, local, global, 4, MPI_INT64_T, MPI_SUM, s->decomp.cart);

    const double n = (double)s->natoms;
    double mean[3], sum_sq = (double)global[3];
    for (int c = 0; c < 3; c++) {
        mean[c] = (double)global[c] / n;
        sum_sq -= (double)global[c] * mean[c]; /* sum (r - mean)^2 = sum r^2 - (sum r)^2 / n */
    }
    const double dof = 3.0 * n - 3.0;
    const double scale = sum_sq > 0.0 ? sqrt(s->p.temperature * dof / sum_sq) : 0.0;
    for (int i = 0; i < a->nlocal; i++)
        for (int c = 0; c < 3; c++) a->v[MD_VEC * i + c] = (raw[3 * i + c] - mean[c]) * scale;
    free(raw);
}
