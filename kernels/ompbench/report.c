/* What a run of hybridperf-ompbench reports: the checks, the terminal output and the profile.
 *
 * Cross-rank convention: each construct's full statistics (test, reference, overhead, interval)
 * are rank 0's, printed as EPCC prints them; the overhead of every rank is reduced to min / avg /
 * max with the ranks holding the extremes, and the figures of merit use the average over ranks.
 * A check is evaluated on every rank and the worst rank's values are reported, so a check that
 * passes passed everywhere. Kept apart from main.c so the measurement reads on its own. */
#include <math.h>
#include <string.h>

#include "ompbench.h"

static double cycles(const omb_bench *b, double us) { return b->clock_hz > 0 ? 1e-6 * us * b->clock_hz : NAN; }

static void print_stats_row(const char *label, const omb_stats *s)
{
    printf("%-10s %12.6f %12.6f %12.6f %12.6f %12.6f %8d\n", label, s->mean, s->median, s->min, s->max, s->sd,
           s->outliers);
}

void omb_print_result(const omb_bench *b, const omb_result *r)
{
    const omb_construct *c = r->item.construct;
    printf("\n--------------------------------------------------------\n");
    printf("%s: %s; %ld inner repetitions (reference: %s, %ld), %d outer\n", r->item.name, c->what, r->reps,
           c->ref_name, r->ref_reps, r->outer);
    printf("%-10s %12s %12s %12s %12s %12s %8s\n", "[us]", "mean", "median", "min", "max", "sd", "outliers");
    print_stats_row("test", &r->test);
    print_stats_row("reference", &r->ref);
    printf("%s overhead = %.6f us +/- %.6f (95%% CI of the mean)", r->item.name, r->overhead_us, r->ci95_us);
    if (b->clock_hz > 0) printf(" = %.0f cycles", cycles(b, r->overhead_us));
    printf("; median %.6f us; EPCC's +/- %.6f\n", r->median_overhead_us, r->epcc_pm_us);
    if (r->copies.checked)
        printf("%s copies: %d distinct for %d threads, %s; %ld timed executions (%s %ld)\n", r->item.name,
               r->copies.distinct, b->threads, r->copies.ok ? "as the clause promises" : "NOT as the clause promises",
               r->executions_total, omb_array_counts_ok(r) ? "as declared:" : "NOT as declared,",
               r->executions_expected);
    if (b->nranks > 1)
        printf("%s overhead across %d ranks: min %.6f (rank %d), avg %.6f, max %.6f (rank %d) us\n", r->item.name,
               b->nranks, r->across.min, r->across.min_rank, r->across.avg, r->across.max, r->across.max_rank);
    fflush(stdout);
}

/* Evaluated on every rank; returns the check of the rank that fails it worst. Collective. */
static hp_check worst_across_ranks(omb_bench *b, hp_check local)
{
    struct {
        double score;
        int rank;
    } in, out;
    const double miss = fabs(local.value - local.expected);
    in.score = local.tolerance > 0 ? miss / local.tolerance : miss > 0 ? 1e300 : 0.0;
    if (isnan(in.score)) in.score = 1e300;
    in.rank = b->rank;
    hp_allreduce(&b->comm, &in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    double triple[3] = {local.value, local.expected, local.tolerance};
    hp_bcast(&b->comm, triple, 3, MPI_DOUBLE, out.rank, MPI_COMM_WORLD);
    return hp_check_make(local.name, triple[0], triple[1], triple[2]);
}

static const omb_result *find_result(const omb_bench *b, const char *name)
{
    for (int k = 0; k < b->nresults; k++)
        if (strcmp(b->results[k].item.name, name) == 0) return &b->results[k];
    return NULL;
}

void omb_collect_results(omb_bench *b, omb_results *out)
{
    const omb_params *p = &b->p;
    int n = 0;
    if (p->delay_length == 0)
        out->checks[n++] = worst_across_ranks(b, hp_check_make("delay_calibration", 1e6 * b->delay_measured_s,
                                                               p->delay_time_us, 0.25 * p->delay_time_us));
    double worst_sd = 0.0;
    for (int k = 0; k < b->nresults; k++) {
        const omb_stats *s = &b->results[k].ref;
        const double relative = s->mean > 0 ? s->sd / s->mean : INFINITY;
        if (!(relative <= worst_sd)) worst_sd = relative;
    }
    out->checks[n++] = worst_across_ranks(b, hp_check_make("reference_stability", worst_sd, 0.0, p->ref_sd_tol));
    /* Every rank measured the same items, so a self-test present here is present everywhere. */
    const omb_result *empty = find_result(b, "EMPTY"), *known = find_result(b, "KNOWN_DELAY");
    if (empty)
        out->checks[n++] =
            worst_across_ranks(b, hp_check_make("empty_overhead", empty->overhead_us, 0.0, empty->ci999_us));
    /* The median of the paired differences: one preempted sample moves the mean by more than 10%. */
    if (known)
        out->checks[n++] = worst_across_ranks(
            b, hp_check_make("known_delay", known->diff.median, p->extra_delay_us, 0.1 * p->extra_delay_us));
    /* The array group: measurements whose copies or execution counts are not what was declared. */
    int arrays = 0, bad_copies = 0, bad_counts = 0;
    for (int k = 0; k < b->nresults; k++) {
        const omb_result *x = &b->results[k];
        if (!x->copies.checked) continue;
        arrays++;
        bad_copies += !x->copies.ok;
        bad_counts += !omb_array_counts_ok(x);
    }
    if (arrays) {
        out->checks[n++] = worst_across_ranks(b, hp_check_make("array_copies", bad_copies, 0.0, 0.0));
        out->checks[n++] = worst_across_ranks(b, hp_check_make("array_executions", bad_counts, 0.0, 0.0));
    }
    out->nchecks = n;
    out->clock_hz = hp_stat_across(&b->comm, b->clock_hz, MPI_COMM_WORLD);
    out->delay_us = hp_stat_across(&b->comm, 1e6 * b->delay_measured_s, MPI_COMM_WORLD);
    out->nregions = hp_reduce_regions(&b->comm, &b->timers, MPI_COMM_WORLD, out->regions);
    hp_gather_loop_times(&b->comm, &b->timers, MPI_COMM_WORLD, &out->times);
    hp_reduce_comm(&b->comm, MPI_COMM_WORLD, out->comm);
}

static double loop_seconds(const omb_results *r) { return r->regions[R_TOTAL].seconds.max; }

void omb_print_results(const void *state, const void *results)
{
    const omb_bench *b = state;
    const omb_results *r = results;
    printf("\n========================================================\n");
    printf("Overheads on %d rank%s x %d thread%s (rank 0; 95%% CI of the mean; cycles at %.4f GHz)\n", b->nranks,
           b->nranks == 1 ? "" : "s", b->threads, b->threads == 1 ? "" : "s", 1e-9 * b->clock_hz);
    printf("%-18s %14s %12s %12s %12s %12s\n", "construct", "overhead [us]", "95% CI [us]", "cycles", "ranks min",
           "ranks max");
    for (int k = 0; k < b->nresults; k++) {
        const omb_result *x = &b->results[k];
        printf("%-18s %14.6f %12.6f %12.0f %12.6f %12.6f\n", x->item.name, x->overhead_us, x->ci95_us,
               cycles(b, x->overhead_us), x->across.min, x->across.max);
    }
    if (b->noise.quanta > 0)
        printf("\nOS noise: %d quanta of %.4g us on each thread (%ld in all), slowdown against each thread's "
               "fastest: mean %.4g, median %.4g, 99.5th percentile %.4g, largest %.4g\n",
               b->noise.quanta, 1e6 * b->noise.quantum_s, b->noise.samples, b->noise.mean,
               b->noise.slowdown[OMB_NOISE_PERCENTILES / 2], b->noise.slowdown[OMB_NOISE_PERCENTILES - 1],
               b->noise.max);
    printf("\nMeasured in %.6g s\n", loop_seconds(r));
    hp_print_regions(stdout, r->regions, r->nregions, r->regions[R_TOTAL].seconds.avg);
    hp_print_comm(stdout, r->comm);
    hp_print_checks(stdout, r->checks, r->nchecks);
    printf("PERF kernel=ompbench ranks=%d threads=%d measurements=%d clock_ghz=%.4f delay_us=%.4f loop_s=%.6f",
           b->nranks, b->threads, b->nresults, 1e-9 * b->clock_hz, 1e6 * b->delay_measured_s, loop_seconds(r));
    for (int k = 0; k < b->nresults; k++) printf(" %s_us=%.6f", b->results[k].item.name, b->results[k].across.avg);
    printf("\n");
    fflush(stdout);
}

static void stats_json(hp_json *j, const char *key, const omb_stats *s)
{
    hp_json_object_begin(j, key);
    HP_JSON_NUMBERS(j, {"mean", s->mean}, {"sd", s->sd}, {"median", s->median}, {"min", s->min}, {"max", s->max},
                    {"outliers", s->outliers});
    hp_json_object_end(j);
}

/* 1 / 0 as true / false, -1 (not promised by the clause) as null. */
static void tristate_json(hp_json *j, const char *key, int v)
{
    if (v < 0)
        hp_json_null(j, key);
    else
        hp_json_bool(j, key, v);
}

static void copies_json(hp_json *j, const omb_copies *c)
{
    hp_json_object_begin(j, "copies");
    hp_json_int(j, "distinct", c->distinct);
    hp_json_bool(j, "separate_from_master", c->separate);
    tristate_json(j, "initialised", c->initialised);
    hp_json_bool(j, "kept", c->kept);
    tristate_json(j, "master_intact", c->master_intact);
    if (c->source >= 0)
        hp_json_int(j, "source_thread", c->source);
    else
        hp_json_null(j, "source_thread");
    hp_json_bool(j, "ok", c->ok);
    hp_json_object_end(j);
}

static void executions_json(hp_json *j, const omb_result *x)
{
    hp_json_object_begin(j, "executions");
    hp_json_string(j, "by", x->executions_by_one ? "one thread per region" : "every thread");
    HP_JSON_NUMBERS(j, {"per_thread_min", x->executions_min}, {"per_thread_max", x->executions_max},
                    {"total", x->executions_total}, {"expected_total", x->executions_expected});
    hp_json_bool(j, "ok", omb_array_counts_ok(x));
    hp_json_object_end(j);
}

static void result_json(hp_json *j, const omb_bench *b, const omb_result *x)
{
    const omb_construct *c = x->item.construct;
    hp_json_object_begin(j, NULL);
    hp_json_string(j, "name", x->item.name);
    hp_json_string(j, "construct", c->name);
    hp_json_string(j, "group", c->group);
    hp_json_string(j, "description", c->what);
    if (c->axis == OMB_PER_CHUNK)
        hp_json_int(j, "chunk", x->item.chunk);
    else
        hp_json_null(j, "chunk");
    if (c->axis == OMB_PER_SIZE) {
        hp_json_int(j, "array_size", x->item.size);
        copies_json(j, &x->copies);
        executions_json(j, x);
    } else {
        hp_json_null(j, "array_size");
    }
    hp_json_string(j, "reference", c->ref_name);
    HP_JSON_NUMBERS(j, {"inner_reps", x->reps}, {"reference_inner_reps", x->ref_reps}, {"outer_reps", x->outer});
    stats_json(j, "test_us", &x->test);
    stats_json(j, "reference_us", &x->ref);
    stats_json(j, "difference_us", &x->diff);
    HP_JSON_NUMBERS(j, {"overhead_us", x->overhead_us}, {"ci95_us", x->ci95_us}, {"ci999_us", x->ci999_us},
                    {"median_overhead_us", x->median_overhead_us}, {"epcc_pm_us", x->epcc_pm_us},
                    {"overhead_cycles", cycles(b, x->overhead_us)}, {"seconds", x->seconds});
    hp_stat_json(j, "overhead_across_ranks_us", &x->across);
    hp_json_object_end(j);
}

/* The measured noise (noise.c): every thread's quanta pooled, their slowdowns as equally likely percentiles. */
static void noise_json(hp_json *j, const omb_noise *n)
{
    hp_json_object_begin(j, "noise");
    hp_json_string(j, "method", "fixed work quantum: each quantum's time over its thread's fastest, less 1");
    HP_JSON_NUMBERS(j, {"quantum_us", 1e6 * n->quantum_s}, {"quanta_per_thread", n->quanta}, {"samples", n->samples},
                    {"mean_slowdown", n->mean}, {"max_slowdown", n->max});
    hp_json_array_begin(j, "slowdowns");
    for (int k = 0; k < OMB_NOISE_PERCENTILES; k++) hp_json_real(j, NULL, n->slowdown[k]);
    hp_json_array_end(j);
    hp_json_object_end(j);
}

/* The "ompbench" member: the method's settings, the calibrations and the table. */
static void ompbench_json(hp_json *j, const omb_bench *b, const omb_results *r)
{
    hp_json_object_begin(j, "ompbench");
    HP_JSON_NUMBERS(j, {"threads", b->threads}, {"ranks", b->nranks}, {"cpus_online", b->cpus_online},
                    {"oversubscription", b->oversubscription});
    hp_json_string(j, "wait_policy", b->wait_policy);
    hp_json_real(j, "target_test_time_us", b->p.test_time_us);
    hp_json_int(j, "outer_reps", b->p.outer_reps);
    hp_json_int(j, "iters_per_thread", b->p.iters_per_thread);
    hp_json_string(j, "cross_rank", "statistics are rank 0's; overhead_across_ranks_us reduces every rank's");
    hp_json_string(j, "interval", "95% confidence interval of the mean of paired test - reference samples");
    hp_json_object_begin(j, "clock");
    hp_json_real(j, "hz", b->clock_hz > 0 ? b->clock_hz : NAN);
    hp_json_string(j, "method", omb_clock_method);
    hp_stat_json(j, "hz_across_ranks", &r->clock_hz);
    hp_json_object_end(j);
    hp_json_object_begin(j, "delay");
    if (b->p.delay_length > 0)
        hp_json_null(j, "requested_us");
    else
        hp_json_real(j, "requested_us", b->p.delay_time_us);
    hp_json_int(j, "length", b->work.delay_length);
    hp_json_real(j, "measured_us", 1e6 * b->delay_measured_s);
    hp_stat_json(j, "measured_us_across_ranks", &r->delay_us);
    hp_json_object_end(j);

    hp_json_array_begin(j, "constructs");
    for (int k = 0; k < b->nresults; k++) result_json(j, b, &b->results[k]);
    hp_json_array_end(j);
    if (b->noise.quanta > 0) noise_json(j, &b->noise);
    hp_json_object_end(j);
}

void omb_profile_members(hp_json *j, const void *state, const void *results)
{
    const omb_bench *b = state;
    const omb_results *r = results;
    hp_json_params_and_checks(j, b->args, b->nargs, r->checks, r->nchecks);
    hp_json_array_begin(j, "figures_of_merit");
    for (int k = 0; k < b->nresults; k++)
        hp_json_figuref(j, b->results[k].across.avg, "us", "lower", "overhead.%s", b->results[k].item.name);
    if (b->noise.quanta > 0) hp_json_figure(j, "noise.mean_slowdown", b->noise.mean, "", "lower");
    hp_json_figure(j, "loop_time", loop_seconds(r), "s", "lower");
    hp_json_array_end(j);
    hp_json_measured(j, r->regions, r->nregions, r->comm, &r->times);
    ompbench_json(j, b, r);
}
