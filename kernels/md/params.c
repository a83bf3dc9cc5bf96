/* Options of hybridperf-md. The defaults are the standard LJ benchmark shared by LAMMPS's bench/in.lj
 * and miniMD (fcc, density 0.8442, T 1.44, cutoff 2.5, skin 0.3, dt 0.005, rebuild every 20 steps,
 * 100 steps), so a bare run is directly comparable with theirs. The many-body potentials run in metal
 * units, where options not given take metal defaults (300 K, 1 fs, skin 1 A, global sums every step
 * as DL_POLY does) and the cutoff comes from the potential file. */
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
                     .lattice_name = "auto",
                     .pair_kernel_name = "auto"};
    const hp_arg table[] = {
        {HP_OPTION("size", 's', HP_ARG_INT, &p->size, "N",
                   "unit cells per side: N^3 cells of 4 (fcc, l12), 2 (bcc) or 8 (zincblende) atoms"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 1},
        {HP_OPTION("lattice", 0, HP_ARG_CHOICE, &p->lattice_name, "NAME",
                   "fcc, bcc, l12 (types 1 and 2 as Cu3Au), zincblende (as 3C-SiC) or diamond; auto: fcc for "
                   "lj, the lattice an eam/fs file gives the first element"),
         .choices = "auto|fcc|bcc|l12|zincblende|diamond"},
        {HP_OPTION("density", 0, HP_ARG_REAL, &p->density, "RHO", "number density (lj: reduced units)"),
         .min_rule = HP_MIN_EXCLUSIVE},
        {HP_OPTION("lattice-constant", 0, HP_ARG_REAL, &p->lattice_constant, "A",
                   "cubic cell edge in Angstrom (metal units; 0: the potential file's, with --lattice auto)"),
         .min_rule = HP_MIN_INCLUSIVE},
        {HP_OPTION("temp", 0, HP_ARG_REAL, &p->temperature, "T", "initial temperature (metal: K, default 300)"),
         .min_rule = HP_MIN_INCLUSIVE},
        {HP_OPTION("potential", 0, HP_ARG_CHOICE, &p->potential_name, "NAME",
                   "lj/cut = LAMMPS lj/cut; lj/sf = shifted force, LAMMPS lj/smooth/linear; eam/fs and tersoff "
                   "= LAMMPS's, with --potential-file (metal units)"),
         .choices = "lj/cut|lj/sf|eam/fs|tersoff"},
        {HP_OPTION("potential-file", 0, HP_ARG_PATH, &p->potential_file, "FILE",
                   "the potential's parameter file, as LAMMPS reads it (eam/fs: setfl; tersoff: .tersoff)")},
        {HP_OPTION("elements", 0, HP_ARG_LIST, &p->elements, "E1,E2,...",
                   "the potential file's element for atom types 1, 2, ... (LAMMPS: pair_coeff * * FILE E1 E2 ...)")},
        {HP_OPTION("cutoff", 0, HP_ARG_REAL, &p->cutoff, "RC", "interaction cutoff (lj; else the potential file's)"),
         .min_rule = HP_MIN_EXCLUSIVE},
        {HP_OPTION("skin", 0, HP_ARG_REAL, &p->skin, "D", "neighbour-list skin (metal: default 1 Angstrom)"),
         .min_rule = HP_MIN_INCLUSIVE},
        {HP_OPTION("dt", 0, HP_ARG_REAL, &p->dt, "DT", "time step (metal: ps, default 0.001)"),
         .min_rule = HP_MIN_EXCLUSIVE},
        {HP_OPTION("steps", 'n', HP_ARG_INT, &p->steps, "N", "time steps to run"), .min_rule = HP_MIN_INCLUSIVE},
        {HP_OPTION("neigh-every", 0, HP_ARG_INT, &p->neigh_every, "N",
                   "rebuild neighbour lists (and migrate) every N steps"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 1},
        {HP_OPTION("thermo", 0, HP_ARG_INT, &p->thermo, "N",
                   "global sums and a thermo line every N steps (0: first and last only; metal: default 1)"),
         .min_rule = HP_MIN_INCLUSIVE},
        {HP_OPTION("seed", 0, HP_ARG_INT, &p->seed, "S", "seed of the velocity generator"),
         .min_rule = HP_MIN_INCLUSIVE},
        HP_OPTION_GRID(p->grid, "rank"),
        {HP_OPTION("read-data", 0, HP_ARG_PATH, &p->read_data, "FILE",
                   "start from a LAMMPS data file (atom_style atomic; Velocities optional)")},
        {HP_OPTION("write-data", 0, HP_ARG_PATH, &p->write_data, "FILE",
                   "write the final state as a LAMMPS data file (--steps 0: the initial state)")},
        {HP_OPTION("dump-forces", 0, HP_ARG_PATH, &p->dump_forces, "FILE",
                   "write the initial state's per-atom forces as a LAMMPS dump (id fx fy fz)")},
        HP_OPTION_PROFILE(&p->profile),
        {HP_OPTION("drift-tol", 0, HP_ARG_REAL, &p->drift_tolerance, "X",
                   "largest accepted relative total-energy drift (a correctness check)"),
         .min_rule = HP_MIN_EXCLUSIVE},
        {HP_OPTION("pair-kernel", 0, HP_ARG_CHOICE, &p->pair_kernel_name, "NAME",
                   "force inner loop: plain C, AVX-512 intrinsics, or auto (AVX-512 when built for it)"),
         .choices = "auto|plain|avx512"},
        HP_OPTION_NO_TIMERS(&p->no_timers),
        HP_OPTION_NO_THREAD_TIMES(&p->no_thread_times),
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

static int given(const hp_arg *args, int nargs, const char *name)
{
    for (int a = 0; a < nargs; a++)
        if (args[a].set && strcmp(args[a].name, name) == 0) return 1;
    return 0;
}

static int refuse(char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "%s", what);
    return -1;
}

/* Metal units: the defaults LAMMPS users expect, options that belong to the potential file refused. */
int md_params_metal(md_params *p, const hp_arg *args, int nargs, char *err, size_t errlen)
{
    p->units = &md_units_metal;
    if (!p->potential_file) {
        snprintf(err, errlen, "--potential %s needs --potential-file (%s)", p->potential_name, p->potential->file);
        return -1;
    }
    if (!p->elements.n) {
        snprintf(err, errlen, "--potential %s needs --elements (one element per atom type)", p->potential_name);
        return -1;
    }
    if (p->elements.n > MD_MAX_TYPES) return refuse(err, errlen, "--elements: at most 8 atom types");
    if (given(args, nargs, "cutoff")) return refuse(err, errlen, "--cutoff: the cutoff comes from the potential file");
    if (given(args, nargs, "density")) return refuse(err, errlen, "--density is for lj; give --lattice-constant");
    if (!given(args, nargs, "temp")) p->temperature = 300.0;
    if (!given(args, nargs, "dt")) p->dt = 0.001;
    if (!given(args, nargs, "skin")) p->skin = 1.0;
    if (!given(args, nargs, "thermo")) p->thermo = 1;
    if (!p->read_data && p->lattice != MD_LATTICE_AUTO && p->lattice_constant == 0.0) {
        snprintf(err, errlen, "--lattice %s needs --lattice-constant (Angstrom)", p->lattice_name);
        return -1;
    }
    return 0;
}

int md_params_lj(md_params *p, const hp_arg *args, int nargs, char *err, size_t errlen)
{
    p->units = &md_units_lj;
    if (p->potential_file || p->elements.n)
        return refuse(err, errlen, "--potential-file and --elements are for the many-body potentials (eam/fs, tersoff)");
    if (given(args, nargs, "lattice-constant"))
        return refuse(err, errlen, "--lattice-constant is for metal units; lj uses --density");
    if (p->lattice == MD_LATTICE_AUTO) p->lattice = MD_FCC;
    if (p->lattice == MD_L12 || p->lattice == MD_ZINCBLENDE)
        return refuse(err, errlen, "--lattice l12 and zincblende have two atom types; lj runs one");
    return 0;
}

/* The one place that asks which potential runs: its table answers every later question. */
static const md_potential_ops *potential_named(const char *name)
{
    static const md_potential_ops *const potentials[] = {&md_potential_lj_cut, &md_potential_lj_sf,
                                                         &md_potential_eam_fs, &md_potential_tersoff};
    for (size_t k = 0; k < sizeof potentials / sizeof *potentials; k++)
        if (strcmp(potentials[k]->name, name) == 0) return potentials[k];
    return potentials[0]; /* not reached: --potential takes only these names */
}

static md_lattice lattice_named(const char *name)
{
    static const char *const names[] = {[MD_FCC] = "fcc", [MD_BCC] = "bcc", [MD_L12] = "l12",
                                        [MD_ZINCBLENDE] = "zincblende", [MD_DIAMOND] = "diamond"};
    for (int k = 0; k < MD_LATTICE_AUTO; k++)
        if (strcmp(names[k], name) == 0) return (md_lattice)k;
    return MD_LATTICE_AUTO; /* auto */
}

int md_params_validate(md_params *p, const hp_arg *args, int nargs, char *err, size_t errlen)
{
    p->potential = potential_named(p->potential_name);
    p->lattice = lattice_named(p->lattice_name);
    if (p->potential->validate(p, args, nargs, err, errlen)) return -1;
    if (strcmp(p->pair_kernel_name, "auto") == 0) p->pair_kernel_name = md_force_has_avx512() ? "avx512" : "plain";
    if (strcmp(p->pair_kernel_name, "avx512") == 0 && !md_force_has_avx512()) {
        snprintf(err, errlen,
                 "--pair-kernel avx512: this build has no AVX-512 code (rebuild on an AVX-512 machine "
                 "with HYBRIDPERF_NATIVE=ON), use --pair-kernel plain");
        return -1;
    }
    p->pair_kernel = strcmp(p->pair_kernel_name, "avx512") == 0 ? MD_PAIR_AVX512 : MD_PAIR_PLAIN;
    if (p->read_data) {
        const char *lattice_options[] = {"size", "density", "lattice", "lattice-constant"};
        for (int k = 0; k < 4; k++)
            if (given(args, nargs, lattice_options[k])) {
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

const char md_usage[] = "mpirun [MPI options] hybridperf-md [options]";
const char md_summary[] =
    "Molecular dynamics proxy of Chorley's hybrid MPI+OpenMP MD code (Lennard-Jones) and of DL_POLY's\n"
    "metal runs (eam/fs and tersoff, with LAMMPS's files): 3-D domain decomposition, halo exchange in three\n"
    "phases of paired messages, migration, velocity Verlet, global sums, OpenMP in the master-only\n"
    "style. OMP_NUM_THREADS sets threads per rank.\n"
    "Exit status: 0 ok, 1 runtime failure, 2 bad input, 3 a correctness check failed.";
