/* hybridperf-md: shared state of the Lennard-Jones molecular dynamics proxy.
 *
 * The thesis's code kept particles in per-cell linked lists and rebuilt them every step. Here
 * atoms live in structure-of-arrays storage (locals first, then ghosts) with a Verlet neighbour
 * list rebuilt every --neigh-every steps, as miniMD, CoMD and LAMMPS do; the parallel structure is
 * the thesis's: a 3-D brick per rank, a halo of ghost atoms filled by three phases of paired
 * messages, migration of atoms that left the brick, and global sums for the thermodynamics.
 * All state is in the few structs below and travels by pointer. */
#ifndef MD_H
#define MD_H

#include <stdint.h>
#include <stdio.h>

#include "hp_args.h"

#include "hp_comm.h"
#include "hp_decomp.h"
#include "hp_json.h"
#include "hp_omp_idle.h"
#include "hp_report.h"
#include "hp_run.h"
#include "hp_timer.h"

#define MD_KERNEL "md"
#define MD_PROGRAM "hybridperf-md"
#define MD_MAX_ARGS 32
#define MD_LIST_PAD 8 /* neighbour lists are padded to whole SIMD vectors of doubles */
#define MD_MAX_TYPES 8 /* atom types of a run */

/* The potential chooses the units, as in LAMMPS: lj/cut and lj/sf run in reduced units, the many-body
 * potentials in LAMMPS's `metal` units (Angstrom, eV, ps, g/mol, K, bar). Its table of operations is below. */
typedef struct md_potential_ops md_potential_ops;
typedef enum { MD_FCC, MD_BCC, MD_L12, MD_ZINCBLENDE, MD_DIAMOND, MD_LATTICE_AUTO } md_lattice;

typedef struct {
    const char *name;
    double boltz;  /* Boltzmann's constant: energy per temperature */
    double mvv2e;  /* mass * velocity^2 to energy */
    double ftm2v;  /* force / mass * time to velocity */
    double nktv2p; /* energy / volume to pressure */
} md_units;
extern const md_units md_units_lj, md_units_metal;
typedef enum { MD_PAIR_PLAIN, MD_PAIR_AVX512 } md_pair_kernel;

typedef struct {
    int size; /* -s: unit cells per side */
    double density, lattice_constant, temperature, cutoff, skin, dt, drift_tolerance;
    int steps, neigh_every, thermo, seed, no_timers, no_thread_times;
    int grid[3];
    const char *potential_name, *pair_kernel_name, *lattice_name, *potential_file;
    hp_list elements; /* --elements: the potential file's entry for atom types 1, 2, ... */
    const md_potential_ops *potential; /* the table --potential names (params.c) */
    md_lattice lattice;
    const md_units *units;
    md_pair_kernel pair_kernel;
    const char *read_data, *write_data, *profile, *dump_forces;
    hp_list check_decomposition; /* rank counts to check instead of running */
    int plan;                     /* ranks to plan a run for instead of running (plan.c) */
} md_params;

/* Per-atom arrays. Indices [0, nlocal) are owned atoms, [nlocal, nlocal + nghost) are ghosts
 * (positions only). Velocities, forces and ids are meaningful for owned atoms only.
 * Vectors are stored as 4 doubles per atom (x, y, z, 0): the force loop fetches a neighbour's
 * position with one 32-byte load instead of three gathers from separate arrays, which on AVX-512
 * cores halves the cost of the whole force computation; the padding costs 8 bytes per vector. */
#define MD_VEC 4
typedef struct {
    int nlocal, nghost, capacity;
    double *x, *v, *f; /* x[MD_VEC * i + d], d = 0, 1, 2 */
    int64_t *id;
    int *type; /* 1 .. ntypes, ghosts too */
} md_atoms;

typedef struct {
    int ntypes;
    double mass[MD_MAX_TYPES + 1]; /* by type, [0] unused */
} md_species;

/* Direction k = 2 * dimension + side: side 0 sends to the lower neighbour, side 1 to the upper. */
#define MD_DIRECTIONS 6

typedef struct {
    int *send[MD_DIRECTIONS]; /* indices of the atoms sent in direction k */
    int send_count[MD_DIRECTIONS], send_cap[MD_DIRECTIONS];
    double shift[MD_DIRECTIONS]; /* periodic shift applied to sent positions */
    int recv_first[MD_DIRECTIONS], recv_count[MD_DIRECTIONS];
    int build_width; /* doubles per atom in a halo build: the position, and the type when there are several */
    double *sendbuf; /* halo: positions packed for one message */
    size_t sendcap;
    double *outbox[2]; /* migration: leaving atoms, per side */
    size_t outbox_cap[2];
    void *recvbuf;
    size_t recvcap;
    long long exchanges, messages; /* halo exchanges and halo messages of this rank */
} md_halo;

typedef struct {
    int offset, dx_lo, dx_hi; /* one row of the stencil: bins offset+dx_lo .. offset+dx_hi */
} md_stencil_row;

typedef struct {
    double cutsq; /* (cutoff + skin)^2 */
    /* the cells (cells.c) */
    int nbins[3], bins, pad3[3]; /* pad3: bins beyond the brick on each side, holding ghosts */
    double inv_width[3];
    md_stencil_row *rows; /* the bins within the list cutoff of a bin, row by row */
    int nrows;
    int *bin_start;  /* bins + 1 entries */
    int *bin_next;   /* fill cursor per bin while sorting */
    int *bin_of;     /* per atom */
    int *perm;       /* atoms in bin order */
    double *scratch; /* for sorting atoms by bin */
    int capacity;    /* atoms the per-atom arrays hold (these, bx, by, bz and bidx) */
    /* the lists (neighbor.c) */
    double *bx, *by, *bz;
    int *bidx;    /* atoms in bin order: coordinates and original index */
    int sentinel; /* index of a far-away dummy atom that pads lists to multiples of MD_LIST_PAD */
    int *numneigh, *neigh;                 /* full list of atom i: neigh[i * list_stride + k], k < numneigh[i] */
    int maxneigh, list_stride, list_atoms; /* stride: maxneigh + 1 spare slot, rounded to MD_LIST_PAD */
    int builds;
} md_neighbor;

typedef struct {
    long long step;
    double temp, pe, ke, etotal, press; /* energies per atom, as LAMMPS prints them in lj units */
    long long lost; /* atoms non-finite or beyond the ghost cut outside their brick: the run is unstable */
} md_thermo_row;

/* The regions of the loop (regions.c names them). The last four are the many-body potentials' own, ordered so that
 * each potential's are a prefix: the sum of the threads' private force copies and the reverse exchange of the
 * ghosts' forces (Tersoff and eam/fs), then eam/fs's density pass and the exchanges of its result (ghosts' partial
 * densities home, F'(rho) out to the ghosts). */
typedef enum {
    R_FORCE,
    R_NEIGHBOR,
    R_INTEGRATE,
    R_HALO,
    R_MIGRATION,
    R_REDUCTION,
    R_OTHER,
    R_TOTAL,
    R_FORCE_REDUCTION,
    R_FORCE_EXCHANGE,
    R_DENSITY,
    R_DENSITY_EXCHANGE,
    MD_REGIONS
} md_region;

/* copies.c: per-thread private copies of a per-atom array (DL_POLY's scheme for forces on others' atoms). Before
 * the parallel region, prepare for `length` doubles; in it, each thread takes its zeroed copy (thread 0: the
 * array itself; a barrier); after it, the copies are summed into the array. */
typedef struct {
    double *data; /* 64-byte aligned, as the atoms' own arrays are */
    size_t cap, length, stride;
    int threads;
} md_copies;
void md_copies_prepare(md_copies *c, size_t length);
double *md_copies_mine(md_copies *c, double *array);
void md_copies_sum(const md_copies *c, double *array, hp_omp_idle *idle);
void md_copies_free(md_copies *c);

typedef struct {
    md_params p;
    hp_arg args[MD_MAX_ARGS];
    int nargs;
    int rank, nranks, threads;
    double box_lo[3], box_len[3];
    long long natoms;
    double ghost_cut;
    hp_decomp decomp;
    md_atoms atoms;
    md_species species;
    void *potential_state; /* the many-body potential's tables and scratch (its load makes them); NULL for lj */
    md_halo halo;
    md_neighbor nl;
    hp_comm comm;
    hp_timers timers;
    hp_omp_idle omp;       /* the threads' idle time in parallel regions: timed in the loop only */
    double epot, virial;   /* local sums from the last force call that computed energy */
    long long misplaced;   /* atoms received by migration that do not belong here */
    long long steps_done;  /* less than p.steps when the run stopped because atoms were lost */
    md_thermo_row *thermo; /* rank 0 */
    int nthermo, thermo_cap;
} md_sim;

typedef struct md_data md_data; /* data_file.c */

/* A potential's forces are its stages, run in order each step (main.c), each timed in its region: passes over the
 * atoms, and exchanges along the halo's routes of a per-atom array. The plan (plan.c) reads the exchanges from the
 * same list, so what it predicts is what the run sends. */
typedef enum { MD_COMPUTE, MD_FORWARD, MD_REVERSE } md_stage_kind;
typedef struct {
    md_stage_kind kind;
    md_region region;
    void (*compute)(md_sim *s, int want_energy); /* MD_COMPUTE */
    double *(*values)(md_sim *s);                /* MD_FORWARD, MD_REVERSE: the per-atom array sent */
    int stride, width; /* doubles per atom in values, and of them sent (md_halo_forward sends 1 of 1) */
} md_stage;

/* The last stages of a many-body potential (eam.c, tersoff.c): its forces, ghosts' included (Newton's third law
 * across the halo), the threads' copies summed, and the ghosts' forces sent home. */
#define MD_MANY_BODY_FORCE_STAGES(force_, reduce_)                                                                     \
    {MD_COMPUTE, R_FORCE, .compute = (force_)}, {MD_COMPUTE, R_FORCE_REDUCTION, .compute = (reduce_)},                 \
        {MD_REVERSE, R_FORCE_EXCHANGE, .values = md_atom_forces, .stride = MD_VEC, .width = 3}

/* The table of operations of one potential: lj.c fills lj/cut's and lj/sf's, eam.c eam/fs's, tersoff.c Tersoff's.
 * params.c chooses one by --potential, once; nothing else asks which potential runs. The lj tables leave file,
 * load, unload and lists_built NULL: nothing to read, keep or reorder. */
struct md_potential_ops {
    const char *name;  /* --potential */
    const char *title; /* in the banner */
    const char *file;  /* what --potential-file must be, for the error that asks for one */
    /* the checks and defaults of the options (params.c's md_params_lj, md_params_metal), the units among them */
    int (*validate)(md_params *p, const hp_arg *args, int nargs, char *err, size_t errlen);
    /* collective: reads --potential-file into s->potential_state and sets p.cutoff; 0, or -1 with err */
    int (*load)(md_sim *s, char *err, size_t errlen);
    void (*unload)(void *state);
    /* the masses of the atom types (species.c): file is the data file, NULL for a lattice; 0, or -1 with err */
    int (*species)(md_sim *s, const md_data *file, char *err, size_t errlen);
    void (*lists_built)(md_sim *s); /* after each neighbour-list build */
    const md_stage *stages;
    int nstages;
};
extern const md_potential_ops md_potential_lj_cut, md_potential_lj_sf, md_potential_eam_fs, md_potential_tersoff;

/* params.c: the option table (defaults = the standard LJ benchmark) and cross-option checks */
int md_params_table(md_params *p, hp_arg *args);
int md_params_validate(md_params *p, const hp_arg *args, int nargs, char *err, size_t errlen);
/* the potential tables' validate: reduced units (lj), metal units (the many-body potentials) */
int md_params_lj(md_params *p, const hp_arg *args, int nargs, char *err, size_t errlen);
int md_params_metal(md_params *p, const hp_arg *args, int nargs, char *err, size_t errlen);
extern const char md_usage[], md_summary[];

/* atoms.c */
void md_atoms_reserve(md_atoms *a, int capacity);
void md_atoms_free(md_atoms *a);
void md_atoms_move(md_atoms *a, int from, int to);
void md_atoms_append(md_atoms *a, int64_t id, int type, const double r[3], const double v[3]);
/* realloc to at least `need` bytes, with headroom; exits on failure */
void *md_grow(void *p, size_t *cap, size_t need);
double *md_atom_forces(md_sim *s); /* the forces of s's atoms: the many-body potentials' last stage sends them home */

/* text.c: line-numbered reading of data and potential files; every failure is "PATH line N: what" in err */
typedef struct {
    FILE *f;
    const char *path;
    char *line;
    size_t cap;
    long number;
    char *err;
    size_t errlen;
} md_reader;
int md_reader_open(md_reader *r, const char *path, const char *what, char *err, size_t errlen);
void md_reader_close(md_reader *r);
int md_reader_fail(md_reader *r, const char *what);     /* returns -1 */
int md_next_line(md_reader *r, char **text);            /* comment ('#' on) removed; 0 at end of file */
char *md_next_content(md_reader *r);                    /* next non-blank line, NULL at end of file */
int md_split(char *t, char **words, int max);           /* max + 1 when there are more */
int md_to_real(const char *s, double *v);               /* 0, or -1 when s is not a finite number */
int md_to_int64(const char *s, long long *v);           /* 0, or -1 */
int md_read_numbers(md_reader *r, double *out, long n, const char *what); /* across lines */

/* lattice.c, velocity.c, data_file.c: the initial state */
void md_lattice_create(md_sim *s);
double md_lattice_spacing(const md_params *p); /* the cubic cell's edge */
int md_lattice_types(md_lattice lattice);      /* atom types the lattice has */
void md_lattice_fill(const md_params *p, const hp_decomp *d, md_atoms *at); /* the sites in d's brick */
void md_lattice_box(const md_params *p, double lo[3], double len[3]);
long long md_lattice_atoms(const md_params *p);
void md_velocity_create(md_sim *s);
struct md_data { /* a LAMMPS data file as read by rank 0 */
    double lo[3], len[3];
    long long natoms;
    int ntypes, has_velocities;
    double mass[MD_MAX_TYPES + 1]; /* 0 where the file has no Masses section */
    double *atoms; /* natoms records of MD_DATA_RECORD doubles: id x y z vx vy vz type */
};
#define MD_DATA_RECORD 8
int md_data_load(const char *path, md_data *file, char *err, size_t errlen);
/* Collective: rank 0's file (box already broadcast) goes to the ranks that own each atom. */
void md_data_distribute(md_sim *s, const md_data *file);
void md_data_free(md_data *file);
/* species.c: the atom types and their masses, from the potential, the data file (rank 0's; the types and
 * masses it declares are broadcast) or the lattice; collective. 0, or -1 with err. */
int md_species_setup(md_sim *s, md_data *file, char *err, size_t errlen);
/* species.c's mass rules for the tables: lj's one type of mass 1 (md_species_reduced); one element per type from
 * --elements (md_species_one_per_type, a check), their masses from the data file's Masses or the standard atomic
 * weights (md_species_weights) */
int md_species_reduced(md_sim *s, const md_data *file, char *err, size_t errlen);
int md_species_one_per_type(const md_sim *s, char *err, size_t errlen);
int md_species_weights(md_sim *s, const md_data *file, char *err, size_t errlen);
/* decompose.c: the box (lattice or data file; collective), the decomposition with a hint when bricks are too
 * thin (collective), and --check-decomposition. 0, or -1 with err. */
int md_box_read(md_sim *s, md_data *file, char *err, size_t errlen);
int md_decompose(md_sim *s, char *err, size_t errlen);
int md_check_decomposition(md_sim *s, char *err, size_t errlen);
/* plan.c: --plan, every rank's messages per step type for a run on p.plan ranks, as JSON (rank 0). 0, or -1 with err. */
int md_plan(md_sim *s, char *err, size_t errlen);
/* Collective: gathers the atoms to rank 0, which writes the file atomically. */
int md_data_write(md_sim *s, const char *path, long long step, char *err, size_t errlen);
/* dump.c: every rank's records (width doubles, the atom id first) gathered to rank 0 sorted by id (*all;
 * NULL elsewhere), collective; --dump-forces in LAMMPS's dump format. 0, or -1 with err. */
int md_gather_sorted(md_sim *s, const double *mine, int width, double **all, char *err, size_t errlen);
int md_compare_ids(const void *a, const void *b); /* qsort/bsearch order of records by their first double */
int md_forces_write(md_sim *s, const char *path, char *err, size_t errlen);

/* migrate.c, halo.c: communication */
void md_migrate(md_sim *s);
void md_halo_build(md_sim *s);
/* The parts of a halo build that are the same whether the message travels through MPI or, in a plan, between
 * ranks laid out in one process: the atoms to send both ways along dim (from the owned atoms and the ghosts
 * already received), their positions packed (shifted across the periodic boundary) into h->sendbuf for
 * direction k, and m positions received from direction k appended as ghosts. */
void md_halo_select(const md_atoms *a, md_halo *h, const hp_decomp *d, int dim, double cut);
void md_halo_pack(const md_atoms *a, md_halo *h, int k, int width, hp_omp_idle *idle);
void md_halo_receive(md_atoms *a, md_halo *h, int k, const double *buf, int m, int width, hp_omp_idle *idle);
void md_halo_update(md_sim *s);
/* One double per atom (owned atoms' values) sent to the ghosts along the halo's own routes. */
void md_halo_forward(md_sim *s, double *values);
/* The ghosts' values (width doubles at each stride: 3 of a force, 1 of a density) sent back along the same
 * routes in reverse and added to the atoms they are copies of. */
void md_halo_reverse(md_sim *s, double *values, int stride, int width);
void md_halo_free(md_halo *h);

/* cells.c: atoms binned and sorted by cell */
void md_cells_init(md_sim *s);            /* the bin grid of the brick and its ghosts, and the stencil */
void md_cells_sort(md_sim *s, int count); /* atoms [0, count) by bin: fills bin_of, bin_start and perm */
void md_cells_sort_locals(md_sim *s);     /* reorders the owned atoms themselves by bin */

/* neighbor.c: full Verlet lists built from the cells */
void md_neighbor_init(md_sim *s); /* the cells too */
void md_neighbor_build(md_sim *s);
void md_neighbor_free(md_neighbor *n); /* the cells' arrays too */

/* lj.c, integrate.c, thermo.c */
int md_force_has_avx512(void);
void md_initial_integrate(md_sim *s);
void md_final_integrate(md_sim *s);
int md_is_thermo_step(const md_params *p, long long step); /* the steps that sum the thermodynamics */
void md_thermo_compute(md_sim *s, long long step, md_thermo_row *row);
void md_thermo_print_header(FILE *out);
void md_thermo_print(FILE *out, const md_thermo_row *row);

/* regions.c: the loop's timed regions, as many as the potential's stages use (md_region) */
const char *md_region_name(md_region r);
void md_regions_add(hp_timers *t, const md_potential_ops *potential);
void md_region_groups_json(hp_json *j, const md_potential_ops *potential); /* the profile's "region_groups" */

/* report.c: checks, cross-rank results, terminal summary, profile */
enum { MD_CHECKS = 5 };
typedef struct {
    hp_check checks[MD_CHECKS];
    hp_region_stat regions[HP_MAX_REGIONS];
    int nregions;
    hp_comm_stat comm[HP_NCLASSES];
    hp_stat halo_messages_per_exchange;
    int *halo_sizes; /* rank 0: 6 per rank, atoms per message at the last halo build */
    hp_rank_times times; /* rank 0: each rank's loop and MPI time (POP's inputs) */
    double *openmp_idle; /* rank 0, when the threads were timed: 4 per rank (hp_omp_idle_gather) */
    double mean_neighbors;
} md_results;
void md_collect_results(md_sim *s, md_results *out); /* collective */
int md_results_pass(const md_results *r);
/* The kernel's report (hp_kernel.h): rank 0's summary, and the profile's own members. */
void md_print_results(const void *state, const void *results);
void md_profile_members(hp_json *j, const void *state, const void *results);

#endif
