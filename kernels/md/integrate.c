/* Velocity Verlet (LAMMPS fix nve): the thesis's movea (half kick and drift, before the forces)
 * and moveb (half kick after them). Both are loops over owned atoms, threaded with a static split.
 * Vectors are stored MD_VEC doubles per atom with zero padding; with one atom type every atom has the
 * same dt / 2m, so the loops run over the flat arrays and vectorise without strides. With several
 * types the factor is looked up per atom. The half kick and the drift share one pass over memory. */
#include "md.h"

/* dt / 2m of each type, in the units' force-to-velocity conversion (LAMMPS's dtf / mass) */
static void half_kicks(const md_sim *s, double dtf[MD_MAX_TYPES + 1])
{
    for (int t = 1; t <= s->species.ntypes; t++) dtf[t] = 0.5 * s->p.dt * s->p.units->ftm2v / s->species.mass[t];
}

/* v += dt/2m f, then x += dt v when drift */
static void advance(md_sim *s, int drift)
{
    md_atoms *a = &s->atoms;
    double *restrict x = a->x, *restrict v = a->v, dtf[MD_MAX_TYPES + 1];
    const double *restrict f = a->f;
    const double dt = s->p.dt;
    half_kicks(s, dtf);
    if (s->species.ntypes == 1) {
        const double h = dtf[1];
        const long n = (long)MD_VEC * a->nlocal;
        hp_omp_idle_begin(&s->omp);
#pragma omp parallel
        {
            hp_omp_idle_enter(&s->omp);
#pragma omp for simd schedule(static) nowait
            for (long k = 0; k < n; k++) {
                v[k] += h * f[k];
                if (drift) x[k] += dt * v[k]; /* loop-invariant: -O3 unswitches it */
            }
            hp_omp_idle_done(&s->omp);
        }
        hp_omp_idle_end(&s->omp);
        return;
    }
    const int *restrict type = a->type;
    hp_omp_idle_begin(&s->omp);
#pragma omp parallel
    {
        hp_omp_idle_enter(&s->omp);
#pragma omp for schedule(static) nowait
        for (int i = 0; i < a->nlocal; i++)
            for (int d = 0; d < MD_VEC; d++) {
                v[MD_VEC * i + d] += dtf[type[i]] * f[MD_VEC * i + d];
                if (drift) x[MD_VEC * i + d] += dt * v[MD_VEC * i + d];
            }
        hp_omp_idle_done(&s->omp);
    }
    hp_omp_idle_end(&s->omp);
}

void md_initial_integrate(md_sim *s) { advance(s, 1); }

void md_final_integrate(md_sim *s) { advance(s, 0); }
