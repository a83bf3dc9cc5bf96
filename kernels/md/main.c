/* hybridperf-md: set-up and the time-step loop (report.c reports on them).
 *
 * One step is the thesis's sequence (movea, movout, force, moveb, sum) in velocity-Verlet form:
 *   half kick + drift | halo update, or at rebuild steps migrate + sort + halo build + lists |
 *   forces | half kick | global sums at thermo steps.
 * Only the loop is timed and its communication counted, as the thesis timed its main loop; set-up
 * and output are outside. Every rank runs the same code; rank 0 prints and writes the profile. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "hp_affinity.h"
#include "hp_kernel.h"
#include "hp_output.h"
#include "md.h"


/* Returns the number of lost atoms (same on every rank). */
static long long record_thermo(md_sim *s, long long step)
{
    md_thermo_row row;
    md_thermo_compute(s, step, &row);
    if (s->rank != 0) return row.lost;
    if (s->nthermo == s->thermo_cap) {
        s->thermo_cap = s->thermo_cap ? 2 * s->thermo_cap : 64;
        s->thermo = realloc(s->thermo, (size_t)s->thermo_cap * sizeof *s->thermo);
    }
    s->thermo[s->nthermo++] = row;
    md_thermo_print(stdout, &row);
    if (row.lost)
        printf("%s: %lld atoms lost at step %lld (non-finite or beyond the ghost cut outside their subdomain): the "
               "run is unstable, stopping; try a smaller --dt\n",
               MD_PROGRAM, row.lost, step);
    fflush(stdout);
    return row.lost;
}

/* Builds the box and the owned atoms (lattice or data file) and the decomposition. */
static int setup_system(md_sim *s, char *err, size_t errlen)
{
    md_data file = {0};
    if (md_box_read(s, &file, err, errlen) || md_decompose(s, err, errlen)) {
        md_data_free(&file);
        return -1;
    }
    if (md_species_setup(s, &file, err, errlen)) {
        md_data_free(&file);
        return -1;
    }
    if (s->p.read_data)
        md_data_distribute(s, &file);
    else
        md_lattice_create(s);
    if (!file.has_velocities) md_velocity_create(s);
    md_data_free(&file);
    return 0;
}

static void print_banner(const md_sim *s, const hp_run *run)
{
    const hp_decomp *d = &s->decomp;
    printf("%s: %s, %lld atoms in a %.6g x %.6g x %.6g box (%s units), %d steps\n", MD_PROGRAM,
           s->p.potential->title, s->natoms, s->box_len[0], s->box_len[1], s->box_len[2], s->p.units->name, s->p.steps);
    hp_args_print(stdout, s->args, s->nargs);
    printf("decomposition: %d ranks as %d x %d x %d, %d thread%s per rank, %d node%s (MPI thread level %d of %d "
           "requested)\n",
           s->nranks, d->dims[0], d->dims[1], d->dims[2], s->threads, s->threads > 1 ? "s" : "", run->nodes,
           run->nodes > 1 ? "s" : "", run->thread_provided, run->thread_requested);
    md_thermo_print_header(stdout);
}

static void rebuild(md_sim *s)
{
    hp_timer_start(&s->timers, R_MIGRATION);
    md_migrate(s);
    hp_timer_stop(&s->timers, R_MIGRATION);
    hp_timer_start(&s->timers, R_NEIGHBOR);
    md_cells_sort_locals(s);
    hp_timer_stop(&s->timers, R_NEIGHBOR);
    hp_timer_start(&s->timers, R_HALO);
    md_halo_build(s);
    hp_timer_stop(&s->timers, R_HALO);
    hp_timer_start(&s->timers, R_NEIGHBOR);
    md_neighbor_build(s);
    if (s->p.potential->lists_built) s->p.potential->lists_built(s);
    hp_timer_stop(&s->timers, R_NEIGHBOR);
}

/* Forces, with energy and virial when asked: the potential's stages in order, each timed in its own region (the
 * many-body potentials' passes and exchanges are each a region of their own). */
static void compute_forces(md_sim *s, int want_energy)
{
    const md_potential_ops *potential = s->p.potential;
    for (int k = 0; k < potential->nstages; k++) {
        const md_stage *stage = &potential->stages[k];
        hp_timer_start(&s->timers, stage->region);
        if (stage->kind == MD_COMPUTE)
            stage->compute(s, want_energy);
        else if (stage->kind == MD_FORWARD)
            md_halo_forward(s, stage->values(s));
        else
            md_halo_reverse(s, stage->values(s), stage->stride, stage->width);
        hp_timer_stop(&s->timers, stage->region);
    }
}

/* Step 0: lists, forces and energies of the initial state; not timed, not counted. */
static void setup_dynamics(md_sim *s)
{
    md_neighbor_init(s);
    hp_timers_init(&s->timers, 0);
    rebuild(s);
    compute_forces(s, 1);
    record_thermo(s, 0);
}

static double run_loop(md_sim *s)
{
    const md_params *p = &s->p;
    hp_timers *t = &s->timers;
    hp_timers_init(t, !p->no_timers);
    md_regions_add(t, s->p.potential);
    s->omp.enabled = t->enabled && !p->no_thread_times;
    s->halo.exchanges = s->halo.messages = 0;
    hp_comm_count(&s->comm, 1);
    const double start = hp_now();
    for (long long step = 1; step <= p->steps; step++) {
        const int thermo = md_is_thermo_step(p, step);
        hp_timer_start(t, R_INTEGRATE);
        md_initial_integrate(s);
        hp_timer_stop(t, R_INTEGRATE);
        if (step % p->neigh_every == 0) {
            rebuild(s);
        } else {
            hp_timer_start(t, R_HALO);
            md_halo_update(s);
            hp_timer_stop(t, R_HALO);
        }
        compute_forces(s, thermo);
        hp_timer_start(t, R_INTEGRATE);
        md_final_integrate(s);
        hp_timer_stop(t, R_INTEGRATE);
        s->steps_done = step;
        if (thermo) {
            hp_timer_start(t, R_REDUCTION);
            long long lost = record_thermo(s, step);
            hp_timer_stop(t, R_REDUCTION);
            if (lost) break;
        }
    }
    const double seconds = hp_now() - start;
    s->omp.enabled = 0;
    hp_comm_count(&s->comm, 0);
    /* "total" is always known; "other" is what no region claims (loop overhead, thermo printing). */
    double claimed = 0.0;
    for (int k = 0; k < t->count; k++)
        if (k != R_OTHER && k != R_TOTAL) claimed += t->region[k].seconds;
    if (t->enabled) {
        t->region[R_OTHER].seconds = seconds - claimed;
        t->region[R_OTHER].calls = s->steps_done;
    }
    t->region[R_TOTAL].seconds = seconds;
    t->region[R_TOTAL].calls = 1;
    return seconds;
}

static int validate_options(md_sim *s, int argc, char **argv, char *err, size_t errlen)
{
    s->nargs = md_params_table(&s->p, s->args);
    if (hp_args_parse(s->args, s->nargs, argc, argv, err, errlen)) return -1;
    if (md_params_validate(&s->p, s->args, s->nargs, err, errlen)) return -1;
    if (s->p.profile && hp_check_writable(s->p.profile, err, errlen)) return -1;
    if (s->p.write_data && hp_check_writable(s->p.write_data, err, errlen)) return -1;
    if (s->p.dump_forces && hp_check_writable(s->p.dump_forces, err, errlen)) return -1;
    return 0;
}

static int simulate(void *state, hp_run *run)
{
    md_sim *s = state;
    char err[1024] = "";
    int ok = validate_options(s, run->argc, run->argv, err, sizeof err) == 0;
    if (hp_any_error(&s->comm, MPI_COMM_WORLD, ok, MD_KERNEL, err)) return EXIT_BAD_INPUT;
    s->comm.timing = !s->p.no_timers;
    s->rank = run->rank;
    s->nranks = run->ranks;
    s->threads = run->threads;
    hp_omp_idle_init(&s->omp);
    if (s->p.potential->load && s->p.potential->load(s, err, sizeof err)) return EXIT_BAD_INPUT;
    s->ghost_cut = s->p.cutoff + s->p.skin;
    if (s->p.check_decomposition.n) return md_check_decomposition(s, err, sizeof err) ? EXIT_BAD_INPUT : EXIT_SUCCESS;
    if (s->p.plan) {
        ok = md_plan(s, err, sizeof err) == 0;
        return hp_any_error(&s->comm, MPI_COMM_WORLD, ok, MD_KERNEL, err) ? EXIT_BAD_INPUT : EXIT_SUCCESS;
    }
    if (setup_system(s, err, sizeof err)) return EXIT_BAD_INPUT;
    if (s->rank == 0) print_banner(s, run);
    setup_dynamics(s);
    if (s->p.dump_forces) {
        ok = md_forces_write(s, s->p.dump_forces, err, sizeof err) == 0;
        if (hp_any_error(&s->comm, MPI_COMM_WORLD, ok, MD_KERNEL, err)) return EXIT_FAILURE;
    }
    run_loop(s);

    md_results r = {0};
    md_collect_results(s, &r);
    ok = hp_kernel_report(run, &s->comm, s->p.profile, s, &r) == 0;
    if (ok && s->p.write_data) {
        ok = md_data_write(s, s->p.write_data, s->steps_done, err, sizeof err) == 0;
        ok = !hp_any_error(&s->comm, MPI_COMM_WORLD, ok, MD_KERNEL, err);
    }
    int passed = md_results_pass(&r);
    hp_bcast(&s->comm, &passed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(r.halo_sizes);
    free(r.openmp_idle);
    hp_rank_times_free(&r.times);
    if (!ok) return EXIT_FAILURE;
    return passed ? EXIT_SUCCESS : EXIT_CHECK_FAILED;
}

static int options(void *state, hp_arg *table) { return md_params_table(&((md_sim *)state)->p, table); }

/* --check-args checks the options together as a run does (hp_run_early_exit). */
static int check_options(void *state, const hp_arg *args, int nargs, char *err, size_t errlen)
{
    return md_params_validate(&((md_sim *)state)->p, args, nargs, err, errlen);
}

static void init(void *state) { ((md_sim *)state)->decomp.cart = MPI_COMM_NULL; /* freed whatever set-up reached */ }

static void release(void *state)
{
    md_sim *s = state;
    md_halo_free(&s->halo);
    md_neighbor_free(&s->nl);
    md_atoms_free(&s->atoms);
    hp_omp_idle_free(&s->omp);
    if (s->potential_state) s->p.potential->unload(s->potential_state);
    free(s->thermo);
    hp_decomp_free(&s->decomp);
}

_Static_assert(MD_MAX_ARGS <= HP_KERNEL_MAX_OPTIONS, "the option table fits hp_main.c's");
const hp_kernel hp_this_kernel = {
    .program = MD_PROGRAM, .name = MD_KERNEL, .usage = md_usage, .summary = md_summary,
    .options = options, .check = check_options,
    .state_size = sizeof(md_sim), .comm_offset = offsetof(md_sim, comm), .count_from_start = 1,
    .init = init, .run = simulate, .free = release, .print_results = md_print_results, .members = md_profile_members,
};
