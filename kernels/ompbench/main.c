/* hybridperf-ompbench: set-up, calibration and the measurement of each construct (report.c reports).
 *
 * Every rank is a complete EPCC instance running with its own OpenMP threads, and all ranks measure
 * the same construct at the same time: a barrier precedes each construct, and the inner repetitions
 * calibrated on each rank are replaced by their maximum over ranks, so every rank runs the same
 * work for about the same time. With several ranks per node this measures what MPC's hybrid mixing
 * cares about: OpenMP overheads while the other ranks' threads compete for the cores. MPI is called
 * by the master thread only, outside parallel regions (MPI_THREAD_FUNNELED is more than enough).
 * The delay length and the clock rate are calibrated per rank, since nodes may differ. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hp_affinity.h"
#include "hp_kernel.h"
#include "hp_output.h"
#include "ompbench.h"


static const char *const region_names[] = {"calibration", "sync", "sched", "array", "selftest", "noise", "total"};

static int validate_options(omb_bench *b, int argc, char **argv, char *err, size_t errlen)
{
    b->nargs = omb_params_table(&b->p, b->args);
    if (hp_args_parse(b->args, b->nargs, argc, argv, err, errlen)) return -1;
    if (omb_params_validate(&b->p, b->args, b->nargs, err, errlen)) return -1;
    if (b->p.profile && hp_check_writable(b->p.profile, err, errlen)) return -1;
    return 0;
}

/* The clock rate and the delay length of this rank. */
static void calibrate(omb_bench *b)
{
    b->clock_hz = omb_clock_hz();
    if (b->p.delay_length > 0) {
        b->work.delay_length = b->p.delay_length;
        b->delay_measured_s = omb_delay_seconds(b->p.delay_length);
    } else {
        b->work.delay_length = omb_delay_length(1e-6 * b->p.delay_time_us, &b->delay_measured_s);
    }
}

static void print_banner(const omb_bench *b, const hp_run *run)
{
    printf("%s: EPCC-style OpenMP overheads, %d measurement%s\n", OMB_PROGRAM, b->nitems, b->nitems == 1 ? "" : "s");
    hp_args_print(stdout, b->args, b->nargs);
    printf("%d thread%s per rank x %d rank%s on %d node%s, %d CPUs online per node (oversubscription %.3gx), "
           "OMP_WAIT_POLICY %s, MPI thread level %d of %d requested\n",
           b->threads, b->threads == 1 ? "" : "s", b->nranks, b->nranks == 1 ? "" : "s", run->nodes,
           run->nodes == 1 ? "" : "s", b->cpus_online, b->oversubscription, b->wait_policy, run->thread_provided,
           run->thread_requested);
    if (b->clock_hz > 0)
        printf("core clock %.4f GHz (measured: %s)\n", 1e-9 * b->clock_hz, omb_clock_method);
    else
        printf("core clock unknown (%s): cycles not reported\n", omb_clock_method);
    char requested[64];
    if (b->p.delay_length > 0)
        snprintf(requested, sizeof requested, "set by --delay-length");
    else
        snprintf(requested, sizeof requested, "requested %g us", b->p.delay_time_us);
    printf("delay %ld iterations = %.4f us (%s); target test time %g us; %d outer repetitions\n", b->work.delay_length,
           1e6 * b->delay_measured_s, requested, b->p.test_time_us, b->p.outer_reps);
    fflush(stdout);
}

/* The team a parallel region really gets; constructs that share repetitions assume all threads. */
static int team_size(void)
{
    int size = 0;
#pragma omp parallel
#pragma omp single
    size = omp_get_num_threads();
    return size;
}

static int region_of(const omb_construct *c)
{
    if (strcmp(c->group, "sync") == 0) return R_SYNC;
    if (strcmp(c->group, "sched") == 0) return R_SCHED;
    if (strcmp(c->group, "array") == 0) return R_ARRAY;
    return R_SELFTEST;
}

/* Calibrates and measures one item on every rank; 0, or -1 (reported) when the work vanished. */
static int measure_item(omb_bench *b, const omb_item *item, omb_result *r, double *scratch)
{
    const omb_construct *c = item->construct;
    char err[256] = "";
    hp_barrier(&b->comm, MPI_COMM_WORLD);
    const double start = hp_now();
    b->work.chunk = item->chunk;
    b->work.array_size = item->size;
    omb_copies copies = {0};
    if (c->axis == OMB_PER_SIZE) omb_array_verify(c, &b->work, &copies);
    const int multiple = c->split ? b->threads : 1;
    long reps[2] = {omb_calibrate(c->test, &b->work, b->p.test_time_us, multiple),
                    omb_calibrate(c->reference, &b->work, b->p.test_time_us, multiple)};
    const int ok = reps[0] > 0 && reps[1] > 0;
    if (!ok)
        snprintf(err, sizeof err,
                 "%s: %s takes under 0.1 ns a repetition, so the work it should time was removed by the compiler "
                 "(rebuild without -ffast-math or link-time optimisation)",
                 item->name, reps[0] > 0 ? "its reference" : "the construct");
    if (hp_any_error(&b->comm, MPI_COMM_WORLD, ok, OMB_KERNEL, err)) return -1;
    long agreed[2];
    hp_allreduce(&b->comm, reps, agreed, 2, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    *r = (omb_result){.item = *item, .reps = agreed[0], .ref_reps = agreed[1], .copies = copies};
    omb_measure(c, &b->work, b->p.outer_reps, r, scratch);
    if (c->axis == OMB_PER_SIZE) omb_array_tally(c, &b->work, r);
    r->seconds = hp_now() - start;
    r->across = hp_stat_across(&b->comm, r->overhead_us, MPI_COMM_WORLD);
    if (b->rank == 0) omb_print_result(b, r);
    return 0;
}

static int measure_all(omb_bench *b, const hp_run *run)
{
    hp_timers *t = &b->timers;
    hp_timers_init(t, 1);
    for (size_t k = 0; k < sizeof region_names / sizeof *region_names; k++) hp_timer_add(t, region_names[k]);
    double *scratch = malloc(3 * (size_t)b->p.outer_reps * sizeof *scratch);
    int status = 0;
    hp_comm_count(&b->comm, 1);
    const double start = hp_now();
    hp_timer_start(t, R_CALIBRATION);
    calibrate(b);
    hp_timer_stop(t, R_CALIBRATION);
    if (b->rank == 0) print_banner(b, run);
    for (int k = 0; k < b->nitems && status == 0; k++) {
        const int region = region_of(b->items[k].construct);
        hp_timer_start(t, region);
        status = measure_item(b, &b->items[k], &b->results[k], scratch);
        hp_timer_stop(t, region);
        if (status == 0) b->nresults++;
    }
    if (status == 0 && b->p.noise_quanta > 0) {
        hp_timer_start(t, R_NOISE);
        status = omb_measure_noise(b, &b->noise);
        hp_timer_stop(t, R_NOISE);
    }
    t->region[R_TOTAL].seconds = hp_now() - start;
    t->region[R_TOTAL].calls = 1;
    hp_comm_count(&b->comm, 0);
    free(scratch);
    return status;
}

/* Options, the run's shape and the list of measurements; 0 or the exit status (reported). */
static int setup(omb_bench *b, const hp_run *run)
{
    char err[1024] = "";
    const int ok = validate_options(b, run->argc, run->argv, err, sizeof err) == 0;
    if (hp_any_error(&b->comm, MPI_COMM_WORLD, ok, OMB_KERNEL, err)) return EXIT_BAD_INPUT;
    b->rank = run->rank;
    b->nranks = run->ranks;
    b->threads = run->threads;
    b->cpus_online = (int)sysconf(_SC_NPROCESSORS_ONLN);
    b->oversubscription = b->cpus_online > 0 ? (double)run->ranks_per_node * b->threads / b->cpus_online : 0.0;
    const char *policy = getenv("OMP_WAIT_POLICY");
    b->wait_policy = policy && *policy ? policy : "unset";
    b->work.threads = b->threads;
    b->work.iters_per_thread = b->p.iters_per_thread;
    b->work.extra_delay_s = 1e-6 * b->p.extra_delay_us;
    const int team = team_size();
    snprintf(err, sizeof err,
             "parallel regions get %d threads, not the %d of OMP_NUM_THREADS (is OMP_DYNAMIC or OMP_THREAD_LIMIT "
             "set?); the benchmarks need the full team",
             team, b->threads);
    if (hp_any_error(&b->comm, MPI_COMM_WORLD, team == b->threads, OMB_KERNEL, err)) return EXIT_FAILURE;
    b->nitems = omb_select(&b->p, b->threads, b->items);
    snprintf(err, sizeof err, "nothing to measure: guided chunks stop at --iters-per-thread / threads = %d",
             b->p.iters_per_thread / b->threads);
    if (hp_any_error(&b->comm, MPI_COMM_WORLD, b->nitems > 0, OMB_KERNEL, err)) return EXIT_BAD_INPUT;
    return 0;
}

static int benchmark(void *state, hp_run *run)
{
    omb_bench *b = state;
    const int status = setup(b, run);
    if (status) return status;
    const int have_slots = omb_array_init(&b->work) == 0;
    if (hp_any_error(&b->comm, MPI_COMM_WORLD, have_slots, OMB_KERNEL, "out of memory for the threads' records")) {
        omb_array_free(&b->work);
        return EXIT_FAILURE;
    }
    omp_init_lock(&b->work.lock);
    const int failed = measure_all(b, run);
    omp_destroy_lock(&b->work.lock);
    omb_array_free(&b->work);
    if (failed) return EXIT_FAILURE;

    omb_results r = {0};
    omb_collect_results(b, &r);
    const int reported = hp_kernel_report(run, &b->comm, b->p.profile, b, &r) == 0;
    hp_rank_times_free(&r.times);
    if (!reported) return EXIT_FAILURE;
    return hp_checks_pass(r.checks, r.nchecks) ? EXIT_SUCCESS : EXIT_CHECK_FAILED;
}

static int options(void *state, hp_arg *table) { return omb_params_table(&((omb_bench *)state)->p, table); }

/* --check-args checks the options together as a run does (hp_run_early_exit). */
static int check_options(void *state, const hp_arg *args, int nargs, char *err, size_t errlen)
{
    return omb_params_validate(&((omb_bench *)state)->p, args, nargs, err, errlen);
}

_Static_assert(OMB_MAX_ARGS <= HP_KERNEL_MAX_OPTIONS, "the option table fits hp_main.c's");
const hp_kernel hp_this_kernel = {
    .program = OMB_PROGRAM, .name = OMB_KERNEL, .usage = omb_usage, .summary = omb_summary,
    .options = options, .check = check_options,
    .state_size = sizeof(omb_bench), .comm_offset = offsetof(omb_bench, comm), .count_from_start = 1, .run = benchmark,
    .print_results = omb_print_results, .members = omb_profile_members,
};
