/* Options of hybridperf-md. The defaults are the standard LJ benchmark shared by LAMMPS's bench/in.lj
 * and miniMD (fcc, density 0.8442, T 1.44, cutoff 2.5, skin 0.3, dt 0.005, rebuild every 20 steps,
 * 100 steps), so a bare run is directly comparable with theirs. */
#include <string.h>

#include "md.h"

int md_params_table(md_params *p, hp_arg *args)
{
    *p = (md_params){.size = 20,
                     .density = 0.8442,
                     .temperature = 1.44,
                     .cutoff = 2.5,
                     .skin = 0.3,
                     .dt = 0.005,
                     .drift_tolerance = 1e-2,
                     .steps = 100,
                     .neigh_every = 20,
                     .thermo = 50,
                     .seed = 87287,
                     .potential_name = "lj/cut",
                     .pair_kernel_name = "auto"};
    const hp_arg table[] = {
        {HP_OPTION("size", 's', HP_ARG_INT, &p->size, "N", "fcc unit cells per side: 4 N^3 atoms"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 1},
        {HP_OPTION("density", 0, HP_ARG_REAL, &p->density, "RHO", "number density (reduced units)"),
         .min_rule = HP_MIN_EXCLUSIVE},
        {HP_OPTION("temp", 0, HP_ARG_REAL, &p->temperature, "T", "initial temperature"), .min_rule = HP_MIN_INCLUSIVE},
        {HP_OPTION("potential", 0, HP_ARG_CHOICE, &p->potential_name, "NAME",
                   "lj/cut = LAMMPS lj/cut; lj/sf = shifted force, LAMMPS lj/smooth/linear"),
         .choices = "lj/cut|lj/sf"},
        {HP_OPTION("cutoff", 0, HP_ARG_REAL, &p->cutoff, "RC", "interaction cutoff"), .min_rule = HP_MIN_EXCLUSIVE},
        {HP_OPTION("skin", 0, HP_ARG_REAL, &p->skin, "D", "neighbour-list skin"), .min_rule = HP_MIN_INCLUSIVE},
        {HP_OPTION("dt", 0, HP_ARG_REAL, &p->dt, "DT", "time step"), .min_rule = HP_MIN_EXCLUSIVE},
        {HP_OPTION("steps", 'n', HP_ARG_INT, &p->steps, "N", "time steps to run"), .min_rule = HP_MIN_INCLUSIVE},
        {HP_OPTION("neigh-every", 0, HP_ARG_INT, &p->neigh_every, "N",
                   "rebuild neighbour lists (and migrate) every N steps"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 1},
        {HP_OPTION("thermo", 0, HP_ARG_INT, &p->thermo, "N",
                   "global sums and a thermo line every N steps (0: first and last only)"),
         .min_rule = HP_MIN_INCLUSIVE},
        {HP_OPTION("seed", 0, HP_ARG_INT, &p->seed, "S", "seed of the velocity generator"),
         .min_rule = HP_MIN_INCLUSIVE},
        {HP_OPTION("grid", 0, HP_ARG_INT3, p->grid, "X Y Z", "rank grid (0 0 0: chosen by MPI_Dims_create)"),
         .min_rule = HP_MIN_INCLUSIVE},
        {HP_OPTION("read-data", 0, HP_ARG_PATH, &p->read_data, "FILE",
                   "start from a LAMMPS data file (atom_style atomic; Velocities optional)")},
        {HP_OPTION("write-data", 0, HP_ARG_PATH, &p->write_data, "FILE",
                   "write the final state as a LAMMPS data file (--steps 0: the initial state)")},
        {HP_OPTION("dump-forces", 0, HP_ARG_PATH, &p->dump_forces, "FILE",
                   "write the initial state's per-atom forces as a LAMMPS dump (id fx fy fz)")},
        {HP_OPTION("profile", 0, HP_ARG_PATH, &p->profile, "FILE", "write the JSON profile here")},
        {HP_OPTION("drift-tol", 0, HP_ARG_REAL, &p->drift_tolerance, "X",
                   "largest accepted relative total-energy drift (a correctness check)"),
         .min_rule = HP_MIN_EXCLUSIVE},
        {HP_OPTION("pair-kernel", 0, HP_ARG_CHOICE, &p->pair_kernel_name, "NAME",
                   "force inner loop: plain C, AVX-512 intrinsics, or auto (AVX-512 when built for it)"),
         .choices = "auto|plain|avx512"},
        {HP_OPTION("no-timers", 0, HP_ARG_FLAG, &p->no_timers, NULL,
                   "disable region and communication timers (to measure their overhead)")},
        {HP_OPTION("check-decomposition", 0, HP_ARG_LIST, &p->check_decomposition, "R,...",
                   "print as JSON the rank grid a run on each rank count would use and whether it is "
                   "accepted; run nothing")},
        {HP_OPTION("plan", 0, HP_ARG_INT, &p->plan, "R",
                   "print as JSON every rank's messages per step type for a run on R ranks (from the "
                   "initial lattice; for hybridperf simulate); run nothing"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 1},
    };
    int n = (int)(sizeof table / sizeof *table);
    memcpy(args, table, sizeof table);
    return n;
}

int md_params_validate(md_params *p, const hp_arg *args, int nargs, char *err, size_t errlen)
{
    p->potential = strcmp(p->potential_name, "lj/sf") == 0 ? MD_LJ_SF : MD_LJ_CUT;
    if (strcmp(p->pair_kernel_name, "auto") == 0) p->pair_kernel_name = md_force_has_avx512() ? "avx512" : "plain";
    if (strcmp(p->pair_kernel_name, "avx512") == 0 && !md_force_has_avx512()) {
        snprintf(err, errlen,
                 "--pair-kernel avx512: this build has no AVX-512 code (rebuild on an AVX-512 machine "
                 "with HYBRIDPERF_NATIVE=ON), use --pair-kernel plain");
        return -1;
    }
    p->pair_kernel = strcmp(p->pair_kernel_name, "avx512") == 0 ? MD_PAIR_AVX512 : MD_PAIR_PLAIN;
    if (p->read_data) {
        const char *lattice_options[] = {"size", "density"};
        for (int k = 0; k < 2; k++)
            for (int a = 0; a < nargs; a++)
                if (args[a].set && strcmp(args[a].name, lattice_options[k]) == 0) {
                    snprintf(err, errlen, "--%s and --read-data both given; the data file defines the system",
                             lattice_options[k]);
                    return -1;
                }
    }
    if (p->plan && p->read_data) {
        snprintf(err, errlen, "--plan lays out the lattice of --size; planning a --read-data system is not supported");
        return -1;
    }
    if (p->write_data && p->profile && strcmp(p->write_data, p->profile) == 0) {
        snprintf(err, errlen, "--write-data and --profile name the same file %s", p->profile);
        return -1;
    }
    return 0;
}

const char *const md_usage = "mpirun [MPI options] hybridperf-md [options]";
const char *const md_summary =
    "Lennard-Jones molecular dynamics proxy of Chorley's hybrid MPI+OpenMP MD code: 3-D domain\n"
    "decomposition, halo exchange in three phases of paired messages, migration, velocity Verlet,\n"
    "global sums, OpenMP in the master-only style. OMP_NUM_THREADS sets threads per rank.\n"
    "Exit status: 0 ok, 1 runtime failure, 2 bad input, 3 a correctness check failed.";
