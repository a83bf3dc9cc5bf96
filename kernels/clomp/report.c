/* What a run of hybridperf-clomp reports: the per-variant figures CLOMP prints (runtime, us per
 * sweep, speedup over serial, efficacy and overhead against the best case), the result checks, the
 * region and communication tables, the PERF line and the profile.
 *
 * Across ranks a variant's runtime is chosen as CLOMP 1.2's MPI build chooses it: the fastest rank
 * for the serial reference and the best case (what the hardware can do), the slowest rank for every
 * other measurement (what a bulk-synchronous code waits for). With one rank all rules agree. */
#include <math.h>
#include <string.h>

#include "clomp.h"

const char *const clomp_region_names[V_COUNT] = {"calc_deposit", "omp_barrier", "serial_ref", "best_case", "for_static",
                                                 "for_dynamic",  "manual",      "other",      "total"};
const char *const clomp_variant_labels[CLOMP_VARIANTS] = {"calc_deposit", "OMP Barrier", "Serial Ref", "Bestcase OMP",
                                                          "Static OMP",   "Dynamic OMP", "Manual OMP"};

static int fastest_rank_rule(int v) { return v == V_SERIAL_REF || v == V_BEST_CASE; }

void clomp_collect_results(clomp *c, clomp_results *r)
{
    r->nregions = hp_reduce_regions(&c->comm, &c->timers, MPI_COMM_WORLD, r->regions);
    for (int v = 0; v < CLOMP_VARIANTS; v++) {
        const hp_stat *s = &r->regions[v].seconds;
        r->seconds[v] = fastest_rank_rule(v) ? s->min : s->max;
        r->rank_used[v] = fastest_rank_rule(v) ? s->min_rank : s->max_rank;
    }
    hp_gather_loop_times(&c->comm, &c->timers, MPI_COMM_WORLD, &r->times);
    hp_reduce_comm(&c->comm, MPI_COMM_WORLD, r->comm);
    clomp_check_collect(c, r);
}

double clomp_us_per_loop(const clomp *c, double seconds)
{
    return 1e6 * seconds / ((double)c->iterations * CLOMP_SUBCYCLES);
}

/* The derived figures of variant v; NAN where CLOMP prints N/A. */
static double speedup(const clomp_results *r, int v)
{
    return v >= V_SERIAL_REF && r->seconds[v] > 0 ? r->seconds[V_SERIAL_REF] / r->seconds[v] : NAN;
}

static double efficacy(const clomp_results *r, int v)
{
    return v >= V_BEST_CASE && r->seconds[v] > 0 ? 100.0 * r->seconds[V_BEST_CASE] / r->seconds[v] : NAN;
}

static double overhead(const clomp *c, const clomp_results *r, int v)
{
    return v >= V_BEST_CASE ? clomp_us_per_loop(c, r->seconds[v] - r->seconds[V_BEST_CASE]) : NAN;
}

static double loop_seconds(const clomp_results *r) { return r->regions[V_TOTAL].seconds.max; }

void clomp_print_banner(const clomp *c, const hp_run *run)
{
    const clomp_params *p = &c->p;
    printf("%s: CLOMP on %d rank%s x %d thread%s, %d node%s (MPI thread level %d of %d requested)\n", CLOMP_PROGRAM,
           c->nranks, c->nranks > 1 ? "s" : "", c->threads, c->threads > 1 ? "s" : "", run->nodes,
           run->nodes > 1 ? "s" : "", run->thread_provided, run->thread_requested);
    hp_args_print(stdout, c->args, c->nargs);
    printf("numThreads %d%s, allocThreads %d%s, numParts %d, zonesPerPart %d, zoneSize %ld, flopScale %d, "
           "timeScale %d\n",
           c->threads, p->num_threads == -1 ? " (-1: the OpenMP default)" : "", c->alloc_threads,
           p->alloc_threads == -1 ? " (-1: numThreads)" : "", p->num_parts, p->zones_per_part, c->zone_size,
           p->flop_scale, p->time_scale);
    if (c->zone_size != p->zone_size)
        printf("note: zoneSize %d raised to %ld (a zone's 32 used bytes, in multiples of 8)\n", p->zone_size,
               c->zone_size);
    if (c->threads > p->num_parts)
        printf("note: %d threads for %d partitions: threads %d and up have no partition in manual and best_case\n",
               c->threads, p->num_parts, p->num_parts);
    printf("mesh: %.0f zones, %.0f bytes per rank; %ld iterations x %d sweeps = %.0f sweeps per measurement\n",
           c->total_zones, c->memory_bytes, c->iterations, CLOMP_SUBCYCLES, (double)c->iterations * CLOMP_SUBCYCLES);
    printf("deposit: iteration residue %.6f%%, max residue %.8g, error bound %.8g, tight error bound %.8g\n",
           100.0 * c->iteration_residue, c->max_residue, c->error_bound, c->tight_error_bound);
    fflush(stdout);
}

static void print_cell(double x, const char *format)
{
    if (isnan(x))
        printf(" %10s", "-");
    else
        printf(format, x);
}

/* "pass", or "FAIL: " and the failed checks of variant v without the variant's prefix. */
static const char *check_result(const clomp_results *r, int v, char *buf, size_t n)
{
    const char *prefix = clomp_region_names[v];
    const size_t len = strlen(prefix);
    size_t used = 0;
    for (int k = 0; k < r->nchecks && used < n; k++) {
        const char *name = r->check_names[k];
        if (strncmp(name, prefix, len) == 0 && name[len] == '.' && !r->checks[k].pass)
            used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "FAIL: ", name + len + 1);
    }
    if (used == 0) snprintf(buf, n, "pass");
    return buf;
}

void clomp_print_results(const void *state, const void *results)
{
    const clomp *c = state;
    const clomp_results *r = results;
    printf("\n%-13s %11s %10s %10s %10s %10s\n", "variant", "runtime [s]", "us/loop", "speedup", "efficacy",
           "overhead");
    for (int v = 0; v < CLOMP_VARIANTS; v++) {
        printf("%-13s %11.4f %10.3f", clomp_region_names[v], r->seconds[v], clomp_us_per_loop(c, r->seconds[v]));
        print_cell(speedup(r, v), " %10.3f");
        print_cell(efficacy(r, v), " %9.1f%%");
        print_cell(overhead(c, r, v), " %10.3f");
        putchar('\n');
    }
    printf("(us/loop: microseconds per sweep; efficacy: best_case time / variant time; overhead: us/loop above "
           "best_case)\n");
    if (c->nranks > 1)
        printf("(runtimes over %d ranks: fastest rank for serial_ref and best_case, slowest for the others)\n",
               c->nranks);
    printf("\n%-13s %16s %16s %16s  %s\n", "result check", "sum", "residue", "total", "result (rank 0's sums)");
    for (int v = V_SERIAL_REF; v < CLOMP_VARIANTS; v++) {
        const clomp_tally *t = &c->tally[v];
        char result[256];
        check_result(r, v, result, sizeof result);
        if (v == V_BEST_CASE)
            printf("%-13s %16s %16s %16s  %s (work only: its deposits are wrong by design)\n", clomp_region_names[v],
                   "-", "-", "-", result);
        else
            printf("%-13s %16.10g %16.10g %16.12g  %s\n", clomp_region_names[v], t->sum, t->residue, t->total, result);
    }
    printf("\n");
    hp_print_regions(stdout, r->regions, r->nregions, r->regions[V_TOTAL].seconds.avg);
    hp_print_comm(stdout, r->comm);
    printf("PERF kernel=clomp serial_us_per_loop=%.4f best_case_speedup=%.4f for_static_speedup=%.4f "
           "for_dynamic_speedup=%.4f manual_speedup=%.4f for_static_overhead_us=%.4f for_dynamic_overhead_us=%.4f "
           "manual_overhead_us=%.4f ranks=%d threads=%d loop_s=%.6f\n",
           clomp_us_per_loop(c, r->seconds[V_SERIAL_REF]), speedup(r, V_BEST_CASE), speedup(r, V_FOR_STATIC),
           speedup(r, V_FOR_DYNAMIC), speedup(r, V_MANUAL), overhead(c, r, V_FOR_STATIC), overhead(c, r, V_FOR_DYNAMIC),
           overhead(c, r, V_MANUAL), c->nranks, c->threads, loop_seconds(r));
    fflush(stdout);
}

static void variant_json(hp_json *j, const clomp *c, const clomp_results *r, int v)
{
    hp_json_object_begin(j, clomp_region_names[v]);
    hp_json_string(j, "label", clomp_variant_labels[v]);
    hp_json_real(j, "runtime", r->seconds[v]);
    hp_json_string(j, "runtime_over_ranks", fastest_rank_rule(v) ? "min" : "max");
    hp_json_int(j, "rank", r->rank_used[v]);
    HP_JSON_NUMBERS(j, {"us_per_loop", clomp_us_per_loop(c, r->seconds[v])}, {"speedup", speedup(r, v)},
                    {"efficacy_percent", efficacy(r, v)}, {"overhead_us_per_loop", overhead(c, r, v)});
    if (v >= V_SERIAL_REF) {
        char result[256];
        check_result(r, v, result, sizeof result);
        hp_json_bool(j, "check_pass", strcmp(result, "pass") == 0);
    }
    if (v >= V_SERIAL_REF && v != V_BEST_CASE) {
        const clomp_tally *t = &c->tally[v];
        hp_json_object_begin(j, "checksum");
        HP_JSON_NUMBERS(j, {"sum", t->sum}, {"residue", t->residue}, {"total", t->total});
        hp_json_object_end(j);
    }
    hp_json_object_end(j);
}

/* The "clomp" member: the inputs under CLOMP's names (in effect, and as given) and every variant. */
static void clomp_json(hp_json *j, const clomp *c, const clomp_results *r)
{
    const clomp_params *p = &c->p;
    hp_json_object_begin(j, "clomp");
    HP_JSON_NUMBERS(j, {"numThreads", c->threads}, {"allocThreads", c->alloc_threads}, {"numParts", p->num_parts},
                    {"zonesPerPart", p->zones_per_part}, {"zoneSize", c->zone_size}, {"flopScale", p->flop_scale},
                    {"timeScale", p->time_scale});
    hp_json_object_begin(j, "given");
    for (int k = 0; k < c->nargs; k++)
        if (c->args[k].positional) hp_json_int(j, c->args[k].name, *(const int *)c->args[k].value);
    hp_json_object_end(j);
    HP_JSON_NUMBERS(j, {"total_zones", c->total_zones}, {"memory_bytes", c->memory_bytes},
                    {"iterations", c->iterations}, {"subcycles", c->iterations * CLOMP_SUBCYCLES},
                    {"iteration_residue", c->iteration_residue}, {"max_residue", c->max_residue},
                    {"error_bound", c->error_bound}, {"tight_error_bound", c->tight_error_bound});
    hp_json_object_begin(j, "variants");
    for (int v = 0; v < CLOMP_VARIANTS; v++) variant_json(j, c, r, v);
    hp_json_object_end(j);
    hp_json_object_end(j);
}

void clomp_profile_members(hp_json *j, const void *state, const void *results)
{
    const clomp *c = state;
    const clomp_results *r = results;
    hp_json_params_and_checks(j, c->args, c->nargs, r->checks, r->nchecks);
    hp_json_array_begin(j, "figures_of_merit");
    hp_json_figure(j, "loop_time", loop_seconds(r), "s", "lower");
    hp_json_figure(j, "serial_ref_us_per_loop", clomp_us_per_loop(c, r->seconds[V_SERIAL_REF]), "us", "lower");
    hp_json_figure(j, "omp_barrier_us_per_loop", clomp_us_per_loop(c, r->seconds[V_OMP_BARRIER]), "us", "lower");
    for (int v = V_BEST_CASE; v < CLOMP_VARIANTS; v++)
        hp_json_figuref(j, speedup(r, v), "x", "higher", "%s_speedup", clomp_region_names[v]);
    for (int v = V_FOR_STATIC; v < CLOMP_VARIANTS; v++)
        hp_json_figuref(j, overhead(c, r, v), "us", "lower", "%s_overhead", clomp_region_names[v]);
    hp_json_array_end(j);
    hp_json_measured(j, r->regions, r->nregions, r->comm, &r->times);
    clomp_json(j, c, r);
}
