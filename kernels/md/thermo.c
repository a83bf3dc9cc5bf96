/* Thermodynamics: the thesis's `sum` routine. Kinetic energy, potential energy and virial are
 * summed over ranks with one MPI_Allreduce at thermo steps (with them, the count of lost atoms, so
 * an unstable run is stopped without another collective) (every step with --thermo 1, as the
 * thesis did), and reported per atom (LAMMPS's `thermo_modify norm yes`) in the run's units:
 * T = mvv2e sum m v^2 / (k_B (3N - 3)), P = nktv2p (mvv2e sum m v^2 + virial) / (3V). */
#include "md.h"

int md_is_thermo_step(const md_params *p, long long step)
{
    return step == 0 || step == p->steps || (p->thermo > 0 && step % p->thermo == 0);
}

/* Owned atoms whose position is not finite or lies beyond the ghost cut outside the brick: such an
 * atom is no longer seen by its neighbours, so the dynamics are wrong from here on. */
static double lost_atoms(md_sim *s)
{
    const md_atoms *a = &s->atoms;
    const double *lo = s->decomp.lo, *hi = s->decomp.hi, cut = s->ghost_cut;
    double lost = 0.0;
    hp_omp_idle_begin(&s->omp);
#pragma omp parallel reduction(+ : lost)
    {
        hp_omp_idle_enter(&s->omp);
#pragma omp for schedule(static) nowait
        for (int i = 0; i < a->nlocal; i++) {
            int ok = 1;
            for (int d = 0; d < 3; d++) {
                const double x = a->x[MD_VEC * i + d];
                ok &= x >= lo[d] - cut && x < hi[d] + cut; /* false for NaN too */
            }
            lost += !ok;
        }
        hp_omp_idle_done(&s->omp);
    }
    hp_omp_idle_end(&s->omp);
    return lost;
}

void md_thermo_compute(md_sim *s, long long step, md_thermo_row *row)
{
    const md_atoms *a = &s->atoms;
    const double *mass = s->species.mass;
    const int *type = a->type;
    double mv2 = 0.0;
    hp_omp_idle_begin(&s->omp);
#pragma omp parallel reduction(+ : mv2)
    {
        hp_omp_idle_enter(&s->omp);
#pragma omp for schedule(static) nowait
        for (int i = 0; i < a->nlocal; i++) {
            const double *v = a->v + MD_VEC * (size_t)i;
            mv2 += mass[type[i]] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        }
        hp_omp_idle_done(&s->omp);
    }
    hp_omp_idle_end(&s->omp);
    double local[4] = {mv2, s->epot, s->virial, lost_atoms(s)}, global[4];
    hp_allreduce(&s->comm, local, global, 4, MPI_DOUBLE, MPI_SUM, s->decomp.cart);
    const md_units *u = s->p.units;
    const double n = (double)s->natoms, volume = s->box_len[0] * s->box_len[1] * s->box_len[2];
    const double twice_ke = u->mvv2e * global[0];
    row->step = step;
    row->temp = twice_ke / (u->boltz * (3.0 * n - 3.0));
    row->ke = 0.5 * twice_ke / n;
    row->pe = global[1] / n;
    row->etotal = row->ke + row->pe;
    row->press = u->nktv2p * (twice_ke + global[2]) / (3.0 * volume);
    row->lost = (long long)global[3];
}

void md_thermo_print_header(FILE *out)
{
    fprintf(out, "%10s %14s %14s %14s %14s %14s\n", "Step", "Temp", "E_pair", "KinEng", "TotEng", "Press");
}

void md_thermo_print(FILE *out, const md_thermo_row *r)
{
    fprintf(out, "%10lld %14.8f %14.8f %14.8f %14.8f %14.8f\n", r->step, r->temp, r->pe, r->ke, r->etotal, r->press);
}
