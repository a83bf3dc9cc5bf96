/* hybridperf-stream: the machine's sustainable memory bandwidth, STREAM's way.
 *
 * McCalpin's four kernels (copy c = a, scale b = s c, add c = a + b, triad a = b + s c) over arrays far
 * larger than the caches, threaded with a static schedule and first-touch initialisation so each
 * thread streams from the memory it placed; the best of --trials repetitions is reported, in GB/s
 * counting only the bytes the kernel names (triad: 3 x 8 bytes per element; no write-allocate
 * traffic), as STREAM counts them. It is the yardstick for bandwidth-bound kernels (SPMV's local
 * product must reach 85% of triad). The final values are checked against their closed form, as
 * STREAM does, so a kernel the compiler skipped fails the run. Every rank runs it on its own arrays;
 * with several ranks per node the figures are per rank. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "hp_affinity.h"
#include "hp_args.h"
#include "hp_kernel.h"
#include "hp_memory.h"
#include "hp_output.h"
#include "hp_report.h"
#include "hp_run.h"
#include "hp_timer.h"

#define KERNEL "stream"
#define PROGRAM "hybridperf-stream"

enum { COPY, SCALE, ADD, TRIAD, NKERNELS };
static const char *const names[NKERNELS] = {"copy", "scale", "add", "triad"};
static const int arrays_touched[NKERNELS] = {2, 2, 3, 3};

typedef struct {
    long elements;
    int trials;
    const char *profile;
} stream_params;

static int options(stream_params *p, hp_arg *args, int *elements_m)
{
    *p = (stream_params){.trials = 10};
    *elements_m = 40;
    const hp_arg table[] = {
        {HP_OPTION("size", 's', HP_ARG_INT, elements_m, "M",
                   "millions of doubles per array (3 arrays; choose at least 4x the last-level cache)"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 1},
        {HP_OPTION("trials", 't', HP_ARG_INT, &p->trials, "N", "repetitions of the four kernels; the best counts"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 2},
        HP_OPTION_PROFILE(&p->profile),
    };
    memcpy(args, table, sizeof table);
    return (int)(sizeof table / sizeof *table);
}

static const char usage[] = "mpirun [MPI options] hybridperf-stream [options]";
static const char summary[] =
    "STREAM memory bandwidth (copy, scale, add, triad), threaded with OMP_NUM_THREADS threads per rank.\n"
    "Exit status: 0 ok, 1 runtime failure, 2 bad input, 3 the result check failed.";

typedef struct {
    double best[NKERNELS]; /* seconds */
    double error;          /* largest relative error of the final arrays */
    double seconds;        /* all trials */
} stream_result;

static void run_kernels(long n, int trials, stream_result *out)
{
    double *restrict a = hp_alloc_large((size_t)n * sizeof(double));
    double *restrict b = hp_alloc_large((size_t)n * sizeof(double));
    double *restrict c = hp_alloc_large((size_t)n * sizeof(double));
    if (!a || !b || !c) {
        fprintf(stderr, "%s: error: cannot allocate 3 x %ld doubles\n", PROGRAM, n);
        exit(1);
    }
    const double s = 3.0;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        a[i] = 1.0;
        b[i] = 2.0;
        c[i] = 0.0;
    }
    for (int k = 0; k < NKERNELS; k++) out->best[k] = INFINITY;
    const double start = hp_now();
    for (int t = 0; t < trials; t++) {
        double times[NKERNELS];
        times[COPY] = hp_now();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) c[i] = a[i];
        times[SCALE] = hp_now();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) b[i] = s * c[i];
        times[ADD] = hp_now();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) c[i] = a[i] + b[i];
        times[TRIAD] = hp_now();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
        const double end = hp_now();
        for (int k = 0; k < NKERNELS; k++) {
            const double dt = (k + 1 < NKERNELS ? times[k + 1] : end) - times[k];
            if (t > 0 && dt < out->best[k]) out->best[k] = dt; /* the first trial warms up, as STREAM skips it */
        }
    }
    out->seconds = hp_now() - start;
    /* Closed form of the values after `trials` passes (every element is the same). */
    double ea = 1.0, eb = 2.0, ec = 0.0;
    for (int t = 0; t < trials; t++) {
        ec = ea;
        eb = s * ec;
        ec = ea + eb;
        ea = eb + s * ec;
    }
    double worst = 0.0;
#pragma omp parallel for schedule(static) reduction(max : worst)
    for (long i = 0; i < n; i++) {
        double e = fmax(fabs(a[i] - ea) / ea, fmax(fabs(b[i] - eb) / eb, fabs(c[i] - ec) / ec));
        if (e > worst) worst = e;
    }
    out->error = worst;
    free(a);
    free(b);
    free(c);
}

/* What a run reports, besides its stream_result: the figures reduced over the ranks. */
typedef struct {
    const hp_arg *args;
    int nargs;
    const stream_params *p;
    int ranks, threads;
    hp_check *check;
    hp_region_stat *regions;
    int nregions;
    hp_comm_stat *comm;
    double rates[NKERNELS];
    hp_rank_times times; /* rank 0: each rank's loop and MPI time (POP's inputs) */
} stream_report;

static void print_results(const void *state, const void *results)
{
    const stream_report *c = state;
    (void)results; /* the best times are the regions' */
    const long elements = c->p->elements;
    printf("%s: %ld doubles per array (%.1f MB), %d trials, %d rank(s) x %d thread(s)\n", PROGRAM, elements,
           elements * 8e-6, c->p->trials, c->ranks, c->threads);
    hp_args_print(stdout, c->args, c->nargs);
    printf("%-8s %12s %12s\n", "function", "best GB/s", "best time s");
    for (int k = 0; k < NKERNELS; k++) printf("%-8s %12.2f %12.6f\n", names[k], c->rates[k], c->regions[k].seconds.max);
    hp_print_checks(stdout, c->check, 1);
    printf("PERF kernel=stream triad_GBps=%.3f copy_GBps=%.3f elements=%ld ranks=%d threads=%d\n", c->rates[TRIAD],
           c->rates[COPY], elements, c->ranks, c->threads);
}

static void members(hp_json *j, const void *state, const void *results)
{
    const stream_report *c = state;
    const stream_result *r = results;
    hp_json_params_and_checks(j, c->args, c->nargs, c->check, 1);
    hp_json_array_begin(j, "figures_of_merit");
    for (int k = 0; k < NKERNELS; k++) hp_json_figuref(j, c->rates[k], "GB/s", "higher", "%s_bandwidth", names[k]);
    hp_json_figure(j, "loop_time", r->seconds, "s", "lower");
    hp_json_array_end(j);
    hp_json_measured(j, c->regions, c->nregions, c->comm, &c->times);
    hp_json_object_begin(j, "stream");
    HP_JSON_NUMBERS(j, {"elements", c->p->elements}, {"bytes_per_array", c->p->elements * 8});
    hp_json_object_begin(j, "best_seconds");
    for (int k = 0; k < NKERNELS; k++) hp_json_real(j, names[k], r->best[k]);
    hp_json_object_end(j);
    hp_json_object_begin(j, "bandwidth_GBps");
    for (int k = 0; k < NKERNELS; k++) hp_json_real(j, names[k], c->rates[k]);
    hp_json_object_end(j);
    hp_json_object_end(j);
}

/* The kernel's state: its counters, and the options its table writes into. */
typedef struct {
    hp_comm comm;
    stream_params p;
    int elements_m;
} stream_state;

static int table_of(void *state, hp_arg *table)
{
    stream_state *s = state;
    return options(&s->p, table, &s->elements_m);
}

static int run_stream(void *state, hp_run *run)
{
    stream_state *s = state;
    hp_comm *comm = &s->comm;
    stream_params *p = &s->p;
    hp_arg args[4];
    char err[512] = "";
    const int nargs = options(p, args, &s->elements_m);
    int ok = hp_args_parse(args, nargs, run->argc, run->argv, err, sizeof err) == 0;
    if (ok && p->profile) ok = hp_check_writable(p->profile, err, sizeof err) == 0;
    if (hp_any_error(comm, run->world, ok, KERNEL, err)) return EXIT_BAD_INPUT;
    p->elements = (long)s->elements_m * 1000000L;

    hp_timers timers;
    hp_timers_init(&timers, 1);
    for (int k = 0; k < NKERNELS; k++) hp_timer_add(&timers, names[k]);
    int total = hp_timer_add(&timers, "total");
    stream_result r;
    hp_comm_count(comm, 1);
    run_kernels(p->elements, p->trials, &r);
    hp_comm_count(comm, 0);
    for (int k = 0; k < NKERNELS; k++) {
        timers.region[k].seconds = r.best[k];
        timers.region[k].calls = 1;
    }
    timers.region[total].seconds = r.seconds;
    timers.region[total].calls = 1;

    hp_region_stat regions[HP_MAX_REGIONS];
    hp_comm_stat cstat[HP_NCLASSES];
    int nregions = hp_reduce_regions(comm, &timers, run->world, regions);
    hp_reduce_comm(comm, run->world, cstat);
    hp_stat worst = hp_stat_across(comm, r.error, run->world);
    hp_check check = hp_check_make("result_error", worst.max, 0.0, 1e-13);
    stream_report c = {args, nargs, p, run->ranks, run->threads, &check, regions, nregions, cstat, {0}, {0}};
    hp_gather_loop_times(comm, &timers, run->world, &c.times);
    for (int k = 0; k < NKERNELS; k++) /* bandwidth of the slowest rank: the sustainable per-rank rate */
        c.rates[k] = 1e-9 * arrays_touched[k] * 8.0 * (double)p->elements / regions[k].seconds.max;

    const int reported = hp_kernel_report(run, comm, p->profile, &c, &r) == 0;
    hp_rank_times_free(&c.times);
    if (!reported) return EXIT_FAILURE;
    return check.pass ? EXIT_SUCCESS : EXIT_CHECK_FAILED;
}

const hp_kernel hp_this_kernel = {
    .program = PROGRAM, .name = KERNEL, .usage = usage, .summary = summary, .options = table_of,
    .state_size = sizeof(stream_state), .comm_offset = offsetof(stream_state, comm), .count_from_start = 1,
    .run = run_stream, .print_results = print_results, .members = members,
};

