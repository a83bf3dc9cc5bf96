/* hybridperf-clomp: set-up and the sequence of measurements (report.c reports on them).
 *
 * The sequence is CLOMP 1.2's: calc_deposit alone, an OpenMP barrier alone, then serial_ref,
 * best_case, for_static, for_dynamic and manual. Before each of the last five the mesh is reset,
 * one iteration is run untimed (thread start-up, page faults and caches are not measured), and the
 * mesh is reset again; after each, its result is checked. Every rank runs the whole benchmark on its
 * own mesh with its own threads, as CLOMP's MPI build does, and the ranks meet at a barrier before
 * each measurement so that they share the node while they are timed. MPI is initialised FUNNELED
 * and no MPI call is made inside a parallel region. */
#include <omp.h>
#include <stdlib.h>

#include "clomp.h"
#include "hp_affinity.h"
#include "hp_kernel.h"
#include "hp_output.h"


typedef void (*variant_fn)(clomp *, long, int);

static const struct {
    clomp_region region;
    variant_fn run;
} variants[] = {{V_SERIAL_REF, clomp_serial_ref},
                {V_BEST_CASE, clomp_best_case},
                {V_FOR_STATIC, clomp_for_static},
                {V_FOR_DYNAMIC, clomp_for_dynamic},
                {V_MANUAL, clomp_manual}};

static void measure(clomp *c)
{
    hp_timers *t = &c->timers;
    hp_timers_init(t, 1);
    for (int k = 0; k < V_COUNT; k++) hp_timer_add(t, clomp_region_names[k]);
    hp_comm_count(&c->comm, 1);
    const double start = hp_now();

    /* On the calibrated mesh, not reset: partition 0 holds a non-zero residue. */
    hp_barrier(&c->comm, MPI_COMM_WORLD);
    hp_timer_start(t, V_CALC_DEPOSIT);
    clomp_calc_deposit_only(c, c->iterations);
    hp_timer_stop(t, V_CALC_DEPOSIT);

    clomp_barrier_only(c, 1);
    hp_barrier(&c->comm, MPI_COMM_WORLD);
    hp_timer_start(t, V_OMP_BARRIER);
    clomp_barrier_only(c, c->iterations);
    hp_timer_stop(t, V_OMP_BARRIER);

    for (size_t k = 0; k < sizeof variants / sizeof *variants; k++) {
        const clomp_region v = variants[k].region;
        clomp_mesh_reset(c);
        variants[k].run(c, 1, 0);
        clomp_mesh_reset(c);
        hp_barrier(&c->comm, MPI_COMM_WORLD);
        hp_timer_start(t, v);
        variants[k].run(c, c->iterations, c->skip == (int)v);
        hp_timer_stop(t, v);
        clomp_check_variant(c, v);
    }

    const double seconds = hp_now() - start;
    hp_comm_count(&c->comm, 0);
    /* "other": resets, warm-up iterations, checks and barriers between the measurements. */
    double measured = 0.0;
    for (int k = 0; k < V_OTHER; k++) measured += t->region[k].seconds;
    t->region[V_OTHER].seconds = seconds - measured;
    t->region[V_OTHER].calls = 1;
    t->region[V_TOTAL].seconds = seconds;
    t->region[V_TOTAL].calls = 1;
}

static int validate_options(clomp *c, int argc, char **argv, char *err, size_t errlen)
{
    c->nargs = clomp_params_table(&c->p, c->args);
    if (hp_args_parse(c->args, c->nargs, argc, argv, err, errlen)) return -1;
    if (clomp_params_validate(c, err, errlen)) return -1;
    if (c->p.profile && hp_check_writable(c->p.profile, err, errlen)) return -1;
    return 0;
}

/* CLOMP's conventions: numThreads -1 is the OpenMP default (here OMP_NUM_THREADS, set by the launcher),
 * allocThreads -1 is numThreads, and a zone is at least the 32 bytes the sweep uses. */
static void resolve_inputs(clomp *c)
{
    c->threads = c->p.num_threads == -1 ? omp_get_max_threads() : c->p.num_threads;
    c->alloc_threads = c->p.alloc_threads == -1 ? c->threads : c->p.alloc_threads;
    long size = c->p.zone_size < (long)sizeof(clomp_zone) ? (long)sizeof(clomp_zone) : c->p.zone_size;
    c->zone_size = (size + 7) / 8 * 8;
}

static int run_clomp(void *state, hp_run *run)
{
    clomp *c = state;
    char err[1024] = "";
    int ok = validate_options(c, run->argc, run->argv, err, sizeof err) == 0;
    if (hp_any_error(&c->comm, MPI_COMM_WORLD, ok, CLOMP_KERNEL, err)) return EXIT_BAD_INPUT;
    c->rank = run->rank;
    c->nranks = run->ranks;
    resolve_inputs(c);
    ok = clomp_mesh_create(c, err, sizeof err) == 0;
    if (hp_any_error(&c->comm, MPI_COMM_WORLD, ok, CLOMP_KERNEL, err)) return EXIT_FAILURE;
    clomp_mesh_calibrate(c);
    omp_set_num_threads(c->threads);
    run->threads = c->threads; /* the profile records the team the variants really used */
    if (c->rank == 0) clomp_print_banner(c, run);

    measure(c);

    clomp_results *r = calloc(1, sizeof *r);
    clomp_collect_results(c, r);
    const int reported = hp_kernel_report(run, &c->comm, c->p.profile, c, r) == 0;
    const int passed = hp_checks_pass(r->checks, r->nchecks);
    hp_rank_times_free(&r->times);
    free(r);
    if (!reported) return EXIT_FAILURE;
    return passed ? EXIT_SUCCESS : EXIT_CHECK_FAILED;
}

static int options(void *state, hp_arg *table) { return clomp_params_table(&((clomp *)state)->p, table); }

static void release(void *state) { clomp_mesh_free(state); }

_Static_assert(CLOMP_MAX_ARGS <= HP_KERNEL_MAX_OPTIONS, "the option table fits hp_main.c's");
const hp_kernel hp_this_kernel = {
    .program = CLOMP_PROGRAM, .name = CLOMP_KERNEL, .usage = clomp_usage, .summary = clomp_summary,
    .options = options, .state_size = sizeof(clomp), .comm_offset = offsetof(clomp, comm), .count_from_start = 1,
    .run = run_clomp, .free = release, .print_results = clomp_print_results, .members = clomp_profile_members,
};
