/* Lennard-Jones forces, energy and virial over the full neighbour list.
 *
 * Two potentials, in reduced units (epsilon = sigma = mass = 1), written as LAMMPS writes them so
 * the two codes agree to rounding:
 *   lj/cut  V(r) = 4 (r^-12 - r^-6)                                  (LAMMPS lj/cut, miniMD)
 *   lj/sf   V(r) = 4 (r^-12 - r^-6) - V(rc) - (r - rc) V'(rc)         (the thesis code's shifted
 *           force; LAMMPS lj/smooth/linear)
 * This is the thesis's `force` routine: a threaded loop over atoms with a reduction of potential
 * energy and virial. (Its other threaded loop, zeroing the forces, is gone: with a full list each
 * atom's force is assigned once, by the thread that owns the atom.) The loop over atoms is split
 * statically with no synchronisation. Energy and virial are computed only on the steps that report
 * them, as LAMMPS does.
 *
 * The inner loop exists twice: a plain C loop the compiler vectorises (the reference, and the only
 * one on CPUs without AVX-512), and an AVX-512 form in lj_avx512.h. Both compute the same
 * expressions; the second fetches neighbour positions with 32-byte loads and a register transpose
 * instead of gathers, which measured twice as fast here. --pair-kernel chooses, and the tests
 * check that the two agree. */
#include <math.h>

#include "md.h"

typedef enum { LJ_CUT, LJ_SF } lj_form;

typedef struct {
    const double *restrict x;
    double *restrict f;
    const int *restrict neigh, *restrict numneigh;
    int nlocal, stride;
    double rc, cutsq, e_cut, f_cut; /* shifted-force energy and force magnitude at the cutoff */
} pair_inputs;

/* Neighbour lists are padded with a far-away sentinel to whole vectors: no remainder loop. */
static inline int padded(int count) { return (count + MD_LIST_PAD - 1) / MD_LIST_PAD * MD_LIST_PAD; }

static inline __attribute__((always_inline)) void store_force(const pair_inputs *in, int i, double fx, double fy,
                                                              double fz)
{
    double *f = in->f + MD_VEC * (size_t)i;
    f[0] = fx;
    f[1] = fy;
    f[2] = fz;
    f[3] = 0.0; /* padding stays zero: the integrator adds whole vectors */
}

/* Force on atom i from its list; adds its share of energy and virial when want_energy. Inlined
 * with constant form and want_energy, so each use is a specialised, branch-free SIMD loop. */
static inline __attribute__((always_inline)) void atom_forces_plain(const pair_inputs *in, int i,
                                                                    const lj_form form, const int want_energy,
                                                                    double *epot, double *virial)
{
    const double *restrict x = in->x;
    const int *restrict list = in->neigh + (size_t)i * in->stride;
    const int count = padded(in->numneigh[i]);
    const double xi = x[MD_VEC * i], yi = x[MD_VEC * i + 1], zi = x[MD_VEC * i + 2], cutsq = in->cutsq;
    double fxi = 0.0, fyi = 0.0, fzi = 0.0, ei = 0.0, wi = 0.0;
#pragma omp simd reduction(+ : fxi, fyi, fzi, ei, wi)
    for (int k = 0; k < count; k++) {
        const int j = MD_VEC * list[k];
        const double dx = xi - x[j], dy = yi - x[j + 1], dz = zi - x[j + 2];
        const double rsq = dx * dx + dy * dy + dz * dz;
        const double r2inv = 1.0 / rsq, r6inv = r2inv * r2inv * r2inv;
        double fpair, e = 0.0;
        if (form == LJ_CUT) {
            fpair = r6inv * (48.0 * r6inv - 24.0) * r2inv;
            if (want_energy) e = r6inv * (4.0 * r6inv - 4.0);
        } else {
            const double rinv = sqrt(r2inv);
            fpair = (rinv * r6inv * (48.0 * r6inv - 24.0) - in->f_cut) * rinv;
            if (want_energy) e = r6inv * (4.0 * r6inv - 4.0) - in->e_cut + (sqrt(rsq) - in->rc) * in->f_cut;
        }
        const int inside = rsq < cutsq;
        fpair = inside ? fpair : 0.0;
        fxi += dx * fpair;
        fyi += dy * fpair;
        fzi += dz * fpair;
        if (want_energy) {
            ei += inside ? e : 0.0;
            wi += rsq * fpair;
        }
    }
    store_force(in, i, fxi, fyi, fzi);
    if (want_energy) {
        *epot += 0.5 * ei; /* each pair is in both atoms' lists */
        *virial += 0.5 * wi;
    }
}

#ifdef __AVX512F__
#include "lj_avx512.h"
#endif

/* The parallel loop is written out once per specialisation because OpenMP outlines a parallel
 * region before constants are propagated into it: a shared function taking the form as an
 * argument would test it inside the inner loop and lose vectorisation. Each thread's share is timed
 * (hp_omp_idle.h); pair_forces times the region around it. */
#define PAIR_LOOP(atom_forces, form, want_energy)                                                                      \
    _Pragma("omp parallel reduction(+ : epot, virial)")                                                                \
    {                                                                                                                  \
        hp_omp_idle_enter(&s->omp);                                                                                    \
        _Pragma("omp for schedule(static) nowait") for (int i = 0; i < in.nlocal; i++)                                 \
            atom_forces(&in, i, form, want_energy, &epot, &virial);                                                    \
        hp_omp_idle_done(&s->omp);                                                                                     \
    }

#define SPECIALISE(atom_forces)                                                                                        \
    if (form == LJ_CUT && want_energy) {                                                                               \
        PAIR_LOOP(atom_forces, LJ_CUT, 1)                                                                              \
    } else if (form == LJ_CUT) {                                                                                       \
        PAIR_LOOP(atom_forces, LJ_CUT, 0)                                                                              \
    } else if (want_energy) {                                                                                          \
        PAIR_LOOP(atom_forces, LJ_SF, 1)                                                                               \
    } else {                                                                                                           \
        PAIR_LOOP(atom_forces, LJ_SF, 0)                                                                               \
    }

int md_force_has_avx512(void)
{
#ifdef __AVX512F__
    return 1;
#else
    return 0;
#endif
}

static void pair_forces(md_sim *s, const lj_form form, int want_energy)
{
    const md_atoms *a = &s->atoms;
    const double rc = s->p.cutoff, rcinv = 1.0 / rc;
    const double r6c = rcinv * rcinv * rcinv * rcinv * rcinv * rcinv;
    const pair_inputs in = {.x = a->x,
                            .f = a->f,
                            .neigh = s->nl.neigh,
                            .numneigh = s->nl.numneigh,
                            .nlocal = a->nlocal,
                            .stride = s->nl.list_stride,
                            .rc = rc,
                            .cutsq = rc * rc,
                            .e_cut = r6c * (4.0 * r6c - 4.0),
                            .f_cut = rcinv * r6c * (48.0 * r6c - 24.0)};
    double epot = 0.0, virial = 0.0;
    hp_omp_idle_begin(&s->omp);
#ifdef __AVX512F__
    if (s->p.pair_kernel == MD_PAIR_AVX512) {
        SPECIALISE(atom_forces_avx512)
    } else
#endif
    {
        SPECIALISE(atom_forces_plain)
    }
    hp_omp_idle_end(&s->omp);
    if (want_energy) {
        s->epot = epot;
        s->virial = virial;
    }
}

static void cut_forces(md_sim *s, int want_energy) { pair_forces(s, LJ_CUT, want_energy); }
static void sf_forces(md_sim *s, int want_energy) { pair_forces(s, LJ_SF, want_energy); }

/* One pass over the full lists; no exchange: each atom's force is its own thread's, and its own rank's. */
static const md_stage cut_stages[] = {{MD_COMPUTE, R_FORCE, .compute = cut_forces}};
static const md_stage sf_stages[] = {{MD_COMPUTE, R_FORCE, .compute = sf_forces}};

const md_potential_ops md_potential_lj_cut = {
    .name = "lj/cut", .title = "Lennard-Jones lj/cut", .validate = md_params_lj, .species = md_species_reduced,
    .stages = cut_stages, .nstages = 1};
const md_potential_ops md_potential_lj_sf = {
    .name = "lj/sf", .title = "Lennard-Jones lj/sf", .validate = md_params_lj, .species = md_species_reduced,
    .stages = sf_stages, .nstages = 1};
