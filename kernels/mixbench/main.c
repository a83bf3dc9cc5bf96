/* hybridperf-mixbench: set-up, the chosen benchmarks in a fixed order, the report.
 *
 * The MPI thread level must be requested before MPI starts, yet depends on the options (only the
 * multiple style needs MPI_THREAD_MULTIPLE, and requesting it makes some libraries lock on every
 * call, which would tax the plain ping-pong): the options are therefore parsed once before
 * MPI_Init_thread just to choose the level, and again afterwards, when every rank validates them
 * and a bad one is reported once (exit 2, no profile). Each benchmark is a region; the
 * instrumented layer counts only their timed iterations. Rank 0 prints and writes the profile. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hp_affinity.h"
#include "hp_kernel.h"
#include "hp_output.h"
#include "mixbench.h"


static void (*const bench_functions[])(mb_state *) = {mb_pingpong, mb_collectives, mb_mixed, mb_halo,
                                                      mb_alternating_run, mb_chain};
_Static_assert(sizeof bench_functions / sizeof *bench_functions == MB_NBENCHES, "a function per benchmark");

/* The level to request, from argv alone; options that do not parse get FUNNELED and are reported
 * once MPI runs. */
static int requested_level(int argc, char **argv)
{
    mb_params p;
    hp_arg table[MB_MAX_ARGS];
    char err[1024];
    const int n = mb_params_table(&p, table);
    if (hp_args_parse(table, n, argc, argv, err, sizeof err) || mb_params_validate(&p, table, n, err, sizeof err))
        return MPI_THREAD_FUNNELED;
    return p.thread_requested;
}

/* --check-decomposition R,...: for each rank count, whether a run would be accepted, as JSON, before and without
 * MPI, so a front end can refuse a study's point before launching it. The thread level the library provides is
 * known only once MPI runs, so it is taken as the one requested: the run itself still checks it. Returns the exit
 * status, or -1 when the option is not given. */
static int check_decomposition(int argc, char **argv)
{
    mb_params p;
    hp_arg table[MB_MAX_ARGS];
    char err[1024];
    const int n = mb_params_table(&p, table);
    if (!hp_args_has(argc, argv, "check-decomposition", 0)) return -1;
    if (hp_args_parse(table, n, argc, argv, err, sizeof err) || mb_params_validate(&p, table, n, err, sizeof err)) {
        fprintf(stderr, "%s: error: %s\n", MB_PROGRAM, err);
        return EXIT_BAD_INPUT;
    }
    int ranks[HP_LIST_MAX];
    if (hp_list_rank_counts(&p.check_ranks, "check-decomposition", ranks, err, sizeof err)) {
        fprintf(stderr, "%s: error: %s\n", MB_PROGRAM, err);
        return EXIT_BAD_INPUT;
    }
    hp_json j;
    hp_json_open(&j, stdout);
    hp_json_array_begin(&j, NULL);
    for (int k = 0; k < p.check_ranks.n; k++) {
        char why[1024] = "";
        const int ok = mb_params_check_run(&p, ranks[k], p.thread_requested, why, sizeof why) == 0;
        hp_json_object_begin(&j, NULL);
        hp_json_int(&j, "ranks", ranks[k]);
        hp_json_verdict(&j, ok, why);
        hp_json_object_end(&j);
    }
    hp_json_array_end(&j);
    fputc('\n', stdout);
    return EXIT_SUCCESS;
}

static int validate_options(mb_state *s, const hp_run *run, char *err, size_t errlen)
{
    s->nargs = mb_params_table(&s->p, s->args);
    if (hp_args_parse(s->args, s->nargs, run->argc, run->argv, err, errlen)) return -1;
    if (mb_params_validate(&s->p, s->args, s->nargs, err, errlen)) return -1;
    if (mb_params_check_run(&s->p, run->ranks, run->thread_provided, err, errlen)) return -1;
    if (s->p.profile && hp_check_writable(s->p.profile, err, errlen)) return -1;
    return 0;
}

static int same_host(const hp_run *run, int a, int b)
{
    return strcmp(run->hosts + (size_t)a * MPI_MAX_PROCESSOR_NAME, run->hosts + (size_t)b * MPI_MAX_PROCESSOR_NAME) ==
           0;
}

/* Rank 0: whether every measured pair shares a node. */
static int pairs_same_node(const mb_state *s)
{
    if (s->p.pairs == 1) return same_host(s->run, s->p.pair[0], s->p.pair[1]);
    for (int k = 0; k < s->p.pairs; k++)
        if (!same_host(s->run, k, s->p.pairs + k)) return 0;
    return 1;
}

/* Collective. Returns 0, or EXIT_BAD_INPUT after one rank has printed the error. */
static int setup(mb_state *s, hp_run *run)
{
    char err[1024] = "";
    int ok = validate_options(s, run, err, sizeof err) == 0;
    if (hp_any_error(&s->comm, MPI_COMM_WORLD, ok, MB_KERNEL, err)) return EXIT_BAD_INPUT;
    s->comm.timing = s->p.comm_timers;
    s->run = run;
    s->rank = run->rank;
    s->nranks = run->ranks;
    s->threads = run->threads;

    int threads[2] = {-s->threads, s->threads}, extreme[2];
    hp_allreduce(&s->comm, threads, extreme, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    ok = !((s->p.benches & MB_MIXED) && (s->p.styles & (1u << MB_MULTIPLE)) && -extreme[0] != extreme[1]);
    snprintf(err, sizeof err, "the multiple style needs the same thread count on every rank, got %d to %d", -extreme[0],
             extreme[1]);
    if (hp_any_error(&s->comm, MPI_COMM_WORLD, ok, MB_KERNEL, err)) return EXIT_BAD_INPUT;

    if (s->p.benches & MB_HALO) {
        const double lo[3] = {0, 0, 0}, len[3] = {1, 1, 1};
        ok = hp_decomp_create(&s->decomp, MPI_COMM_WORLD, s->p.grid, lo, len, 0.0, err, sizeof err) == 0;
        if (hp_any_error(&s->comm, MPI_COMM_WORLD, ok, MB_KERNEL, err)) return EXIT_BAD_INPUT;
    }
    if (s->rank == 0 && (s->p.benches & (MB_PINGPONG | MB_MIXED))) s->same_node = pairs_same_node(s);
    return 0;
}

static void print_banner(const mb_state *s, const hp_run *run)
{
    const mb_params *p = &s->p;
    printf("%s: %s on %d rank%s x %d thread%s, %d node%s (MPI thread level %s, %s requested)\n", MB_PROGRAM,
           p->bench_name, s->nranks, s->nranks > 1 ? "s" : "", s->threads, s->threads > 1 ? "s" : "", run->nodes,
           run->nodes > 1 ? "s" : "", hp_thread_level_name(run->thread_provided), hp_thread_level_name(run->thread_requested));
    hp_args_print(stdout, s->args, s->nargs);
    printf("sizes: %d, %d to %d bytes; %d timed iterations up to %d bytes (%d warm-up), %d above (%d warm-up)\n",
           p->nsizes, p->sizes[0], p->sizes[p->nsizes - 1], p->iters, MB_LARGE_MESSAGE, p->warmup, p->iters_large,
           p->warmup_large);
    fflush(stdout);
}

static void run_benchmarks(mb_state *s)
{
    hp_timers *t = &s->timers;
    hp_timers_init(t, 1);
    int ids[MB_NBENCHES];
    for (int k = 0; k < MB_NBENCHES; k++)
        if (s->p.benches & (1u << k)) ids[k] = hp_timer_add(t, mb_bench_names[k]);
    const int total = hp_timer_add(t, "total");
    hp_timer_start(t, total);
    for (int k = 0; k < MB_NBENCHES; k++) {
        if (!(s->p.benches & (1u << k))) continue;
        hp_timer_start(t, ids[k]);
        bench_functions[k](s);
        hp_timer_stop(t, ids[k]);
    }
    hp_timer_stop(t, total);
}

static int benchmark(void *state, hp_run *run)
{
    mb_state *s = state;
    int status = setup(s, run);
    if (status) return status;
    if (s->rank == 0) print_banner(s, run);
    run_benchmarks(s);

    mb_results *r = calloc(1, sizeof *r);
    mb_collect_results(s, r);
    if (hp_kernel_report(run, &s->comm, s->p.profile, s, r)) {
        hp_rank_times_free(&r->times);
        free(r);
        return EXIT_FAILURE;
    }
    int passed = s->rank == 0 ? mb_results_pass(r) : 0;
    hp_bcast(&s->comm, &passed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    hp_rank_times_free(&r->times);
    free(r);
    return passed ? EXIT_SUCCESS : EXIT_CHECK_FAILED;
}

static int options(void *state, hp_arg *table) { return mb_params_table(&((mb_state *)state)->p, table); }

/* --check-args checks the options together as a run does (hp_run_early_exit). */
static int check_options(void *state, const hp_arg *args, int nargs, char *err, size_t errlen)
{
    return mb_params_validate(&((mb_state *)state)->p, args, nargs, err, errlen);
}

static void init(void *state) { ((mb_state *)state)->decomp.cart = MPI_COMM_NULL; }

static void release(void *state)
{
    mb_state *s = state;
    hp_decomp_free(&s->decomp);
    free(s->rows);
}

_Static_assert(MB_MAX_ARGS <= HP_KERNEL_MAX_OPTIONS, "the option table fits hp_main.c's");
/* Communication counts only inside each benchmark's measured loop (count_from_start 0). */
const hp_kernel hp_this_kernel = {
    .program = MB_PROGRAM, .name = MB_KERNEL, .usage = mb_usage, .summary = mb_summary,
    .options = options, .check = check_options, .state_size = sizeof(mb_state),
    .comm_offset = offsetof(mb_state, comm), .count_from_start = 0,
    .before_mpi = check_decomposition, .thread_level = requested_level, .init = init, .run = benchmark, .free = release,
    .print_results = mb_print_results, .members = mb_profile_members,
};
