/* Velocity Verlet (LAMMPS fix nve): the thesis's movea (half kick and drift, before the forces)
 * and moveb (half kick after them). Both are loops over owned atoms, threaded with a static split.
 * Vectors are stored MD_VEC doubles per atom with zero padding; with one atom type every atom has the
 * same dt / 2m, so the loops run over the flat arrays and vectorise without strides. With several
 * types the factor is looked up per atom. */
#include "md.h"

/* dt / 2m in the units' force-to-velocity conversion, of type t */
static double half_kick(const md_sim *s, int t) { return 0.5 * s->p.dt * s->p.units->ftm2v / s->species.mass[t]; }

static void kick(md_sim *s)
{
    md_atoms *a = &s->atoms;
    double *restrict v = a->v;
    const double *restrict f = a->f;
    if (s->species.ntypes == 1) {
        const double dtf = half_kick(s, 1);
        const long n = (long)MD_VEC * a->nlocal;
#pragma omp parallel for simd schedule(static)
        for (long k = 0; k < n; k++) v[k] += dtf * f[k];
        return;
    }
    double dtf[MD_MAX_TYPES + 1];
    for (int t = 1; t <= s->species.ntypes; t++) dtf[t] = half_kick(s, t);
    const int *restrict type = a->type;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < a->nlocal; i++)
        for (int d = 0; d < MD_VEC; d++) v[MD_VEC * i + d] += dtf[type[i]] * f[MD_VEC * i + d];
}

void md_initial_integrate(md_sim *s)
{
    kick(s);
    md_atoms *a = &s->atoms;
    const double dt = s->p.dt;
    const long n = (long)MD_VEC * a->nlocal;
    double *restrict x = a->x;
    const double *restrict v = a->v;
#pragma omp parallel for simd schedule(static)
    for (long k = 0; k < n; k++) x[k] += dt * v[k];
}

void md_final_integrate(md_sim *s) { kick(s); }
