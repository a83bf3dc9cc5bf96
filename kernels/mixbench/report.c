/* What a run of hybridperf-mixbench reports: the OSU-style columns printed as each row is measured,
 * the Hockney fits, the checks, the summary with its PERF line, and the profile's "mixbench"
 * member. Kept apart from the benchmarks so each of those reads as a loop and nothing else. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mixbench.h"

const char *const mb_table_names[MB_NTABLES] = {"pingpong",       "allreduce",        "barrier",
                                                "mixed_single",   "mixed_masteronly", "mixed_funnelled",
                                                "mixed_multiple", "halo_masteronly",  "halo_funnelled",
                                                "chain_sendrecv", "chain_send_irecv_wait"};

static int is_mixed(mb_table t) { return t >= MB_T_MIXED_SINGLE && t < MB_T_MIXED_SINGLE + MB_NSTYLES; }
static int is_halo(mb_table t) { return t == MB_T_HALO_MASTERONLY || t == MB_T_HALO_FUNNELLED; }
static int is_pingpong(mb_table t) { return t == MB_T_PINGPONG || is_mixed(t); }
static int is_chain(mb_table t) { return t == MB_T_CHAIN_SENDRECV || t == MB_T_CHAIN_SEND_IRECV_WAIT; }
/* Tables with a row per rank count and size: fitted, and summarised, per rank count. */
static int per_rank_count(mb_table t) { return t == MB_T_ALLREDUCE || is_chain(t); }

/* A row's time: the chain's is its slowest rank's (IMB's t_max), every other the average over ranks. */
static double row_time(const mb_row *r) { return is_chain(r->table) ? r->time.max : r->time.avg; }

/* MB/s as OSU prints it (10^6 bytes per second); for the K pairs of --pairs, their aggregate. */
static double bandwidth(const mb_state *s, const mb_row *r)
{
    if (row_time(r) <= 0.0) return 0.0;
    if (is_halo(r->table)) return 6.0 * r->bytes / r->time.avg / 1e6; /* per rank, both directions' sends */
    if (is_chain(r->table)) return 2.0 * r->bytes / r->time.max / 1e6; /* IMB Sendrecv: sent and received */
    const int pairs = r->table == MB_T_PINGPONG ? s->p.pairs : 1;
    return pairs * (double)r->bytes / r->time.avg / 1e6;
}

/* The single style's time at the same size, or 0. */
static double single_time(const mb_state *s, int bytes)
{
    for (int k = 0; k < s->nrows; k++)
        if (s->rows[k].table == MB_T_MIXED_SINGLE && s->rows[k].bytes == bytes) return s->rows[k].time.avg;
    return 0.0;
}

static double ratio_to_single(const mb_state *s, const mb_row *r)
{
    const double single = single_time(s, r->bytes);
    return single > 0.0 ? r->time.avg / single : NAN;
}

static void print_table_header(const mb_state *s, mb_table table)
{
    const mb_params *p = &s->p;
    printf("\n");
    if (table == MB_T_PINGPONG) {
        if (p->pairs == 1)
            printf("# pingpong: ranks %d and %d (%s), one-way latency = round trip / 2\n", p->pair[0], p->pair[1],
                   s->same_node ? "same node" : "different nodes");
        else
            printf("# pingpong: %d pairs (i, %d+i) at once; latency averaged over pairs, aggregate bandwidth\n",
                   p->pairs, p->pairs);
        printf("%-10s%18s%18s\n", "# Size", "Latency (us)", "Bandwidth (MB/s)");
    } else if (table == MB_T_ALLREDUCE) {
        printf("# allreduce: MPI_SUM of doubles over the first p ranks, time per call over those ranks\n");
        printf("%-8s%10s%14s%14s%14s\n", "# Ranks", "Size", "Avg (us)", "Min (us)", "Max (us)");
    } else if (table == MB_T_BARRIER) {
        printf("# barrier: over the first p ranks, time per call over those ranks\n");
        printf("%-8s%14s%14s%14s\n", "# Ranks", "Avg (us)", "Min (us)", "Max (us)");
    } else if (is_mixed(table)) {
        printf("# mixed-mode ping-pong, %s style, ranks %d and %d, %d thread%s: one-way time with the buffer "
               "passes\n",
               mb_style_names[table - MB_T_MIXED_SINGLE], p->pair[0], p->pair[1], s->threads,
               s->threads > 1 ? "s" : "");
        printf("%-10s%18s%18s%18s\n", "# Size", "Latency (us)", "Bandwidth (MB/s)", "Ratio to single");
    } else if (is_chain(table)) {
        printf("# chain, %s: periodic, each rank sends to rank+1 and receives from rank-1 (IMB Sendrecv); t over "
               "the first p ranks, bandwidth 2 x size / t_max\n",
               table == MB_T_CHAIN_SENDRECV ? "MPI_Sendrecv" : "MPI_Irecv posted, then MPI_Send, MPI_Wait");
        printf("%-8s%10s%14s%14s%14s%18s\n", "# Ranks", "Size", "t_min (us)", "t_max (us)", "t_avg (us)",
               "Mbytes/sec");
    } else {
        printf("# halo exchange, %s style, grid %d x %d x %d, 6 faces per rank: time per exchange\n",
               table == MB_T_HALO_MASTERONLY ? "masteronly" : "funnelled", s->decomp.dims[0], s->decomp.dims[1],
               s->decomp.dims[2]);
        printf("%-10s%14s%14s%20s\n", "# Face", "Avg (us)", "Max (us)", "MB/s per rank");
    }
}

void mb_print_row(const mb_state *s, const mb_row *r)
{
    if (s->nrows == 1 || s->rows[s->nrows - 2].table != r->table) print_table_header(s, r->table);
    const double us = 1e6;
    if (r->table == MB_T_PINGPONG)
        printf("%-10d%18.2f%18.2f\n", r->bytes, us * r->time.avg, bandwidth(s, r));
    else if (r->table == MB_T_ALLREDUCE)
        printf("%-8d%10d%14.2f%14.2f%14.2f\n", r->ranks, r->bytes, us * r->time.avg, us * r->time.min,
               us * r->time.max);
    else if (r->table == MB_T_BARRIER)
        printf("%-8d%14.2f%14.2f%14.2f\n", r->ranks, us * r->time.avg, us * r->time.min, us * r->time.max);
    else if (is_chain(r->table))
        printf("%-8d%10d%14.2f%14.2f%14.2f%18.2f\n", r->ranks, r->bytes, us * r->time.min, us * r->time.max,
               us * r->time.avg, bandwidth(s, r));
    else if (is_mixed(r->table))
        printf("%-10d%18.2f%18.2f%18.2f\n", r->bytes, us * r->time.avg, bandwidth(s, r), ratio_to_single(s, r));
    else
        printf("%-10d%14.2f%14.2f%20.2f\n", r->bytes, us * r->time.avg, us * r->time.max, bandwidth(s, r));
    fflush(stdout);
}

/* Rank 0: one fit per table of sizes, and one per rank count for allreduce and the chains. */
static void fit_tables(const mb_state *s, mb_results *out)
{
    double *m = malloc((size_t)(s->nrows + 1) * sizeof *m), *t = malloc((size_t)(s->nrows + 1) * sizeof *t);
    for (int table = 0; table < MB_NTABLES; table++) {
        if (table == MB_T_BARRIER) continue;
        int counts[64], ncounts = 0;
        for (int k = 0; k < s->nrows; k++) {
            const mb_row *r = &s->rows[k];
            if ((int)r->table != table) continue;
            int seen = 0;
            for (int c = 0; c < ncounts; c++) seen |= counts[c] == r->ranks;
            if (!seen && ncounts < 64) counts[ncounts++] = r->ranks;
        }
        for (int c = 0; c < ncounts && out->nfits < MB_MAX_FITS; c++) {
            int n = 0;
            for (int k = 0; k < s->nrows; k++)
                if ((int)s->rows[k].table == table && s->rows[k].ranks == counts[c]) {
                    m[n] = s->rows[k].bytes;
                    t[n++] = row_time(&s->rows[k]);
                }
            hockney_fit *f = &out->fits[out->nfits];
            if (hockney_fit_points(m, t, n, s->p.fit_min, s->p.fit_max, f)) continue;
            if (per_rank_count((mb_table)table))
                snprintf(out->fit_names[out->nfits], sizeof out->fit_names[0], "%s_p%d", mb_table_names[table],
                         counts[c]);
            else
                snprintf(out->fit_names[out->nfits], sizeof out->fit_names[0], "%s", mb_table_names[table]);
            out->nfits++;
        }
    }
    free(m);
    free(t);
}

void mb_collect_results(mb_state *s, mb_results *out)
{
    memset(out, 0, sizeof *out);
    out->nregions = hp_reduce_regions(&s->comm, &s->timers, s->run->world, out->regions);
    hp_gather_loop_times(&s->comm, &s->timers, s->run->world, &out->times);
    hp_reduce_comm(&s->comm, s->run->world, out->comm);
    if (s->rank != 0) return;
    long long errors = s->alt.wrong_sums, mismatched = 0, row_bytes = 0, row_messages = 0;
    for (int k = 0; k < s->nrows; k++) {
        const mb_row *r = &s->rows[k];
        errors += r->errors;
        mismatched += r->messages != r->expected_messages || r->bytes_sent != r->expected_bytes;
        row_bytes += r->bytes_sent;
        row_messages += r->messages;
    }
    const hp_comm_stat *c = out->comm;
    const long long counted_bytes = c[HP_P2P].bytes + c[HP_COLLECTIVE].bytes + c[HP_BARRIER].bytes;
    const long long counted_messages = c[HP_P2P].messages + c[HP_COLLECTIVE].messages + c[HP_BARRIER].messages;
    out->checks[0] = hp_check_make("data_errors", (double)errors, 0.0, 0.0);
    out->checks[1] = hp_check_make("rows_miscounted", (double)mismatched, 0.0, 0.0);
    out->checks[2] = hp_check_make(
        "comm_total_difference",
        fabs((double)(counted_bytes - row_bytes)) + fabs((double)(counted_messages - row_messages)), 0.0, 0.0);
    fit_tables(s, out);
}

int mb_results_pass(const mb_results *r) { return hp_checks_pass(r->checks, MB_CHECKS); }

static double loop_seconds(const mb_results *r) { return r->regions[r->nregions - 1].seconds.max; }

/* The first and last rows of a table (NULL when it has none). */
static const mb_row *first_row(const mb_state *s, mb_table table, int ranks)
{
    for (int k = 0; k < s->nrows; k++)
        if (s->rows[k].table == table && (ranks == 0 || s->rows[k].ranks == ranks)) return &s->rows[k];
    return NULL;
}

static const mb_row *last_row(const mb_state *s, mb_table table, int ranks)
{
    for (int k = s->nrows - 1; k >= 0; k--)
        if (s->rows[k].table == table && (ranks == 0 || s->rows[k].ranks == ranks)) return &s->rows[k];
    return NULL;
}

/* The chain's row of highest bandwidth at p ranks (NULL when it has none). */
static const mb_row *peak_row(const mb_state *s, mb_table table, int ranks)
{
    const mb_row *best = NULL;
    for (int k = 0; k < s->nrows; k++) {
        const mb_row *r = &s->rows[k];
        if (r->table == table && r->ranks == ranks && (!best || bandwidth(s, r) > bandwidth(s, best))) best = r;
    }
    return best;
}

/* The chains' rank counts, in the order they ran. */
static int chain_counts(const mb_state *s, int *counts)
{
    int n = 0;
    for (int k = 0; k < s->nrows; k++)
        if (s->rows[k].table == MB_T_CHAIN_SENDRECV && s->rows[k].bytes == 0) counts[n++] = s->rows[k].ranks;
    return n;
}

static const hockney_fit *find_fit(const mb_results *r, const char *name)
{
    for (int k = 0; k < r->nfits; k++)
        if (strcmp(r->fit_names[k], name) == 0) return &r->fits[k];
    return NULL;
}

static void print_alternating(const mb_state *s)
{
    const mb_alternating *a = &s->alt;
    printf("\n# alternating (MPC Fig. 8): rank %d's OpenMP region, %d thread%s x %d multiply-adds, %d regions per "
           "phase\n",
           a->root, a->threads, a->threads > 1 ? "s" : "", a->work, a->reps);
    printf("%-34s%14s%14s%12s\n", "# Phase", "Mean (us)", "Min (us)", "Slowdown");
    printf("%-34s%14.2f%14.2f%12.3f\n", "baseline (other ranks asleep)", 1e6 * a->baseline, 1e6 * a->baseline_min, 1.0);
    printf("%-34s%14.2f%14.2f%12.3f\n", "(a) others wait in MPI_Barrier", 1e6 * a->waiting, 1e6 * a->waiting_min,
           a->waiting / a->baseline);
    printf("%-34s%14.2f%14.2f%12.3f\n", "(b) every rank computes", 1e6 * a->busy, 1e6 * a->busy_min,
           a->busy / a->baseline);
    printf("(b) over all ranks: mean region %.2f us (min %.2f on rank %d, max %.2f on rank %d), slowdown %.3f\n",
           1e6 * a->busy_ranks.avg, 1e6 * a->busy_ranks.min, a->busy_ranks.min_rank, 1e6 * a->busy_ranks.max,
           a->busy_ranks.max_rank, a->busy_ranks.avg / a->baseline);
}

/* Per rank count: the 0-byte time (first row of each p) and the peak bandwidth of both loops. */
static void print_chain(const mb_state *s)
{
    int counts[MB_MAX_RANK_COUNTS];
    const int n = chain_counts(s, counts);
    if (!n) return;
    printf("\n# chain per rank count: 0-byte t_max (us) and peak bandwidth (Mbytes/sec at bytes)\n");
    printf("%-8s%16s%22s%24s%24s\n", "# Ranks", "Sendrecv 0 B", "Send+Irecv+Wait 0 B", "Sendrecv peak",
           "Send+Irecv+Wait peak");
    for (int c = 0; c < n; c++) {
        const mb_row *z[2] = {first_row(s, MB_T_CHAIN_SENDRECV, counts[c]),
                              first_row(s, MB_T_CHAIN_SEND_IRECV_WAIT, counts[c])};
        const mb_row *peak[2] = {peak_row(s, MB_T_CHAIN_SENDRECV, counts[c]),
                                 peak_row(s, MB_T_CHAIN_SEND_IRECV_WAIT, counts[c])};
        printf("%-8d%16.2f%22.2f%13.1f at %-7d%13.1f at %-7d\n", counts[c], 1e6 * z[0]->time.max,
               1e6 * z[1]->time.max, bandwidth(s, peak[0]), peak[0]->bytes, bandwidth(s, peak[1]), peak[1]->bytes);
    }
}

static void print_fits(const mb_results *r)
{
    if (!r->nfits) return;
    printf("\n# Hockney fits t = alpha + beta m (weighted by 1/t^2)\n");
    printf("%-26s%14s%16s%16s%12s%12s%8s%10s\n", "# Table", "alpha (us)", "beta (ns/B)", "1/beta (MB/s)", "from (B)",
           "to (B)", "points", "R^2");
    for (int k = 0; k < r->nfits; k++) {
        const hockney_fit *f = &r->fits[k];
        printf("%-26s%14.3f%16.5f%16.1f%12.0f%12.0f%8d%10.5f\n", r->fit_names[k], 1e6 * f->alpha, 1e9 * f->beta,
               f->beta > 0 ? 1e-6 / f->beta : 0.0, f->min_bytes, f->max_bytes, f->points, f->r2);
    }
}

void mb_print_results(const void *state, const void *results)
{
    const mb_state *s = state;
    const mb_results *r = results;
    if (s->alt.ran) print_alternating(s);
    print_chain(s);
    print_fits(r);
    const double loop = loop_seconds(r);
    printf("\nLoop time of %.6g s on %d rank%s x %d thread%s\n", loop, s->nranks, s->nranks > 1 ? "s" : "", s->threads,
           s->threads > 1 ? "s" : "");
    hp_print_regions(stdout, r->regions, r->nregions, r->regions[r->nregions - 1].seconds.avg);
    hp_print_comm(stdout, r->comm);
    hp_print_checks(stdout, r->checks, MB_CHECKS);
    printf("PERF kernel=mixbench bench=%s ranks=%d threads=%d", s->p.bench_name, s->nranks, s->threads);
    const mb_row *small = first_row(s, MB_T_PINGPONG, 0), *large = last_row(s, MB_T_PINGPONG, 0);
    if (small)
        printf(" latency_us=%.4f latency_bytes=%d bandwidth_MBps=%.2f bandwidth_bytes=%d", 1e6 * small->time.avg,
               small->bytes, bandwidth(s, large), large->bytes);
    const hockney_fit *f = find_fit(r, "pingpong");
    if (f) printf(" alpha_us=%.4f beta_ns_per_byte=%.6f", 1e6 * f->alpha, 1e9 * f->beta);
    const mb_row *barrier = last_row(s, MB_T_BARRIER, s->nranks);
    if (barrier) printf(" barrier_us=%.4f", 1e6 * barrier->time.avg);
    const mb_row *chain = first_row(s, MB_T_CHAIN_SENDRECV, s->nranks);
    if (chain)
        printf(" chain_overhead_us=%.4f chain_peak_MBps=%.2f", 1e6 * chain->time.max,
               bandwidth(s, peak_row(s, MB_T_CHAIN_SENDRECV, s->nranks)));
    if (s->alt.ran)
        printf(" slowdown_waiting=%.4f slowdown_busy=%.4f", s->alt.waiting / s->alt.baseline,
               s->alt.busy / s->alt.baseline);
    printf(" loop_s=%.6f\n", loop);
    fflush(stdout);
}

/* ------------------------------------------------------------------ profile */

static void row_json(hp_json *j, const mb_state *s, const mb_row *r)
{
    hp_json_object_begin(j, NULL);
    HP_JSON_NUMBERS(j, {"ranks", r->ranks}, {"bytes", r->bytes}, {"iterations", r->iterations});
    hp_stat_json(j, "time", &r->time);
    if (is_pingpong(r->table) || is_halo(r->table) || is_chain(r->table))
        hp_json_real(j, "bandwidth_MBps", bandwidth(s, r));
    if (is_mixed(r->table)) hp_json_real(j, "ratio_to_single", ratio_to_single(s, r));
    HP_JSON_NUMBERS(j, {"messages", r->messages}, {"bytes_sent", r->bytes_sent},
                    {"expected_messages", r->expected_messages}, {"expected_bytes", r->expected_bytes},
                    {"errors", r->errors});
    hp_json_object_end(j);
}

static void fits_json(hp_json *j, const mb_results *r)
{
    hp_json_object_begin(j, "hockney");
    for (int k = 0; k < r->nfits; k++) {
        const hockney_fit *f = &r->fits[k];
        hp_json_object_begin(j, r->fit_names[k]);
        /* A fit without a slope has no bandwidth: NaN, written as null. */
        HP_JSON_NUMBERS(j, {"alpha_s", f->alpha}, {"beta_s_per_byte", f->beta},
                        {"bandwidth_MBps", f->beta > 0 ? 1e-6 / f->beta : NAN}, {"fit_min_bytes", f->min_bytes},
                        {"fit_max_bytes", f->max_bytes}, {"points", f->points}, {"r2", f->r2});
        hp_json_string(j, "weighting", "relative");
        hp_json_object_end(j);
    }
    hp_json_object_end(j);
}

static void alternating_json(hp_json *j, const mb_alternating *a)
{
    hp_json_object_begin(j, "alternating");
    HP_JSON_NUMBERS(j, {"root", a->root}, {"regions_per_phase", a->reps}, {"work_per_thread", a->work},
                    {"threads", a->threads});
    hp_json_string(j, "baseline", "other ranks asleep: nanosleep, MPI_Test of a release message every 1 ms");
    HP_JSON_NUMBERS(j, {"baseline_s", a->baseline}, {"waiting_s", a->waiting}, {"busy_s", a->busy},
                    {"baseline_min_s", a->baseline_min}, {"waiting_min_s", a->waiting_min},
                    {"busy_min_s", a->busy_min}, {"slowdown_waiting", a->waiting / a->baseline},
                    {"slowdown_busy", a->busy / a->baseline});
    hp_stat_json(j, "busy_ranks_s", &a->busy_ranks);
    hp_json_real(j, "slowdown_busy_ranks", a->busy_ranks.avg / a->baseline);
    hp_json_int(j, "barriers_per_rank", a->barriers);
    hp_json_object_end(j);
}

static void chain_json(hp_json *j, const mb_state *s)
{
    int counts[MB_MAX_RANK_COUNTS];
    const int n = chain_counts(s, counts);
    static const char *const names[] = {"sendrecv", "send_irecv_wait"};
    const mb_table tables[] = {MB_T_CHAIN_SENDRECV, MB_T_CHAIN_SEND_IRECV_WAIT};
    hp_json_object_begin(j, "chain");
    hp_json_string(j, "direction", "periodic: rank r sends to (r + 1) mod p and receives from (r - 1) mod p");
    hp_json_string(j, "time", "t_max: the slowest rank's seconds per iteration");
    hp_json_string(j, "bandwidth", "2 x bytes / t_max, in 10^6 bytes per second");
    hp_json_array_begin(j, "per_rank_count");
    for (int c = 0; c < n; c++) {
        hp_json_object_begin(j, NULL);
        hp_json_int(j, "ranks", counts[c]);
        for (int v = 0; v < 2; v++) {
            const mb_row *peak = peak_row(s, tables[v], counts[c]);
            hp_json_object_begin(j, names[v]);
            hp_json_real(j, "overhead_s", first_row(s, tables[v], counts[c])->time.max);
            hp_json_real(j, "peak_bandwidth_MBps", bandwidth(s, peak));
            hp_json_int(j, "peak_bytes", peak->bytes);
            hp_json_object_end(j);
        }
        hp_json_object_end(j);
    }
    hp_json_array_end(j);
    hp_json_object_end(j);
}

static void mixbench_json(hp_json *j, const mb_state *s, const mb_results *r)
{
    const mb_params *p = &s->p;
    hp_json_object_begin(j, "mixbench");
    hp_json_array_begin(j, "benches");
    for (int k = 0; k < MB_NBENCHES; k++)
        if (p->benches & (1u << k)) hp_json_string(j, NULL, mb_bench_names[k]);
    hp_json_array_end(j);
    hp_json_array_begin(j, "sizes");
    for (int k = 0; k < p->nsizes; k++) hp_json_int(j, NULL, p->sizes[k]);
    hp_json_array_end(j);
    hp_json_array_begin(j, "styles");
    for (int k = 0; k < MB_NSTYLES; k++)
        if (p->styles & (1u << k)) hp_json_string(j, NULL, mb_style_names[k]);
    hp_json_array_end(j);
    hp_json_object_begin(j, "pair");
    hp_json_array_begin(j, "ranks");
    hp_json_int(j, NULL, p->pair[0]);
    hp_json_int(j, NULL, p->pair[1]);
    hp_json_array_end(j);
    hp_json_int(j, "pairs", p->pairs);
    hp_json_bool(j, "same_node", s->same_node);
    hp_json_object_end(j);
    hp_json_int(j, "threads", s->threads);
    hp_json_int(j, "large_message_bytes", MB_LARGE_MESSAGE);
    if (p->benches & MB_HALO) {
        hp_json_array_begin(j, "grid");
        for (int d = 0; d < 3; d++) hp_json_int(j, NULL, s->decomp.dims[d]);
        hp_json_array_end(j);
    }
    hp_json_object_begin(j, "tables");
    for (int table = 0; table < MB_NTABLES; table++) {
        if (!first_row(s, (mb_table)table, 0)) continue;
        hp_json_array_begin(j, mb_table_names[table]);
        for (int k = 0; k < s->nrows; k++)
            if ((int)s->rows[k].table == table) row_json(j, s, &s->rows[k]);
        hp_json_array_end(j);
    }
    hp_json_object_end(j);
    fits_json(j, r);
    if (s->alt.ran) alternating_json(j, &s->alt);
    if (p->benches & MB_CHAIN) chain_json(j, s);
    hp_json_object_end(j);
}

static void figures_json(hp_json *j, const mb_state *s, const mb_results *r)
{
    hp_json_array_begin(j, "figures_of_merit");
    hp_json_figure(j, "loop_time", loop_seconds(r), "s", "lower");
    const mb_row *small = first_row(s, MB_T_PINGPONG, 0), *large = last_row(s, MB_T_PINGPONG, 0);
    if (small) {
        hp_json_figure(j, "pingpong_latency", 1e6 * small->time.avg, "us", "lower");
        hp_json_figure(j, "pingpong_bandwidth", bandwidth(s, large), "MB/s", "higher");
    }
    const hockney_fit *f = find_fit(r, "pingpong");
    if (f) {
        hp_json_figure(j, "hockney_alpha", f->alpha, "s", "lower");
        hp_json_figure(j, "hockney_beta", f->beta, "s/B", "lower");
    }
    const mb_row *allreduce = first_row(s, MB_T_ALLREDUCE, s->nranks), *barrier = last_row(s, MB_T_BARRIER, s->nranks);
    if (allreduce) hp_json_figure(j, "allreduce_latency", 1e6 * allreduce->time.avg, "us", "lower");
    if (barrier) hp_json_figure(j, "barrier_time", 1e6 * barrier->time.avg, "us", "lower");
    const mb_row *halo = last_row(s, MB_T_HALO_MASTERONLY, 0);
    if (!halo) halo = last_row(s, MB_T_HALO_FUNNELLED, 0);
    if (halo) hp_json_figure(j, "halo_exchange_time", 1e6 * halo->time.avg, "us", "lower");
    const mb_row *chain = first_row(s, MB_T_CHAIN_SENDRECV, s->nranks);
    if (chain) {
        hp_json_figure(j, "chain_overhead", 1e6 * chain->time.max, "us", "lower");
        hp_json_figure(j, "chain_bandwidth", bandwidth(s, peak_row(s, MB_T_CHAIN_SENDRECV, s->nranks)), "MB/s",
                       "higher");
    }
    if (s->alt.ran) {
        hp_json_figure(j, "alternating_slowdown_waiting", s->alt.waiting / s->alt.baseline, "ratio", "lower");
        hp_json_figure(j, "alternating_slowdown_busy", s->alt.busy / s->alt.baseline, "ratio", "lower");
    }
    hp_json_array_end(j);
}

void mb_profile_members(hp_json *j, const void *state, const void *results)
{
    const mb_state *s = state;
    const mb_results *r = results;
    hp_json_params_and_checks(j, s->args, s->nargs, r->checks, MB_CHECKS);
    figures_json(j, s, r);
    hp_json_measured(j, r->regions, r->nregions, r->comm, &r->times);
    mixbench_json(j, s, r);
}
