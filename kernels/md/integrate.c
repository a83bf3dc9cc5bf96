/* Velocity Verlet (LAMMPS fix nve): the thesis's movea (half kick and drift, before the forces)
 * and moveb (half kick after them). Both are loops over owned atoms, threaded with a static split;
 * vectors are stored MD_VEC doubles per atom with zero padding, so each loop runs over the flat
 * arrays and vectorises without strides. */
#include "md.h"

void md_initial_integrate(md_sim *s)
{
    md_atoms *a = &s->atoms;
    const double dt = s->p.dt, half = 0.5 * s->p.dt;
    const long n = (long)MD_VEC * a->nlocal;
    double *restrict x = a->x, *restrict v = a->v;
    const double *restrict f = a->f;
#pragma omp parallel for simd schedule(static)
    for (long k = 0; k < n; k++) {
        v[k] += half * f[k];
        x[k] += dt * v[k];
    }
}

void md_final_integrate(md_sim *s)
{
    md_atoms *a = &s->atoms;
    const double half = 0.5 * s->p.dt;
    const long n = (long)MD_VEC * a->nlocal;
    double *restrict v = a->v;
    const double *restrict f = a->f;
#pragma omp parallel for simd schedule(static)
    for (long k = 0; k < n; k++) v[k] += half * f[k];
}
