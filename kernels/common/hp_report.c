/* Cross-rank breakdown of regions and communication; see hp_report.h. */
#include "hp_report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int hp_reduce_regions(hp_comm *c, const hp_timers *t, MPI_Comm comm, hp_region_stat *out)
{
    for (int k = 0; k < t->count; k++) {
        hp_stat calls = hp_stat_across(c, (double)t->region[k].calls, comm);
        out[k].name = t->region[k].name;
        out[k].calls = (long long)calls.max;
        out[k].seconds = hp_stat_across(c, t->region[k].seconds, comm);
        hp_reduce_calltimes(c, &t->region[k].times, comm, &out[k].times);
    }
    return t->count;
}

void hp_reduce_calltimes(hp_comm *c, const hp_calltimes *mine, MPI_Comm comm, hp_calltimes *out)
{
    long long counts[HP_CALLTIMES_BINS + 1], total[HP_CALLTIMES_BINS + 1];
    counts[0] = mine->count;
    memcpy(counts + 1, mine->bins, sizeof mine->bins);
    hp_allreduce(c, counts, total, HP_CALLTIMES_BINS + 1, MPI_LONG_LONG, MPI_SUM, comm);
    out->count = total[0];
    memcpy(out->bins, total + 1, sizeof out->bins);
    /* A rank without calls has no extremes: it offers the identity of each reduction. */
    const double low = mine->count ? mine->min : INFINITY, high = mine->count ? mine->max : 0.0;
    hp_allreduce(c, &mine->sum, &out->sum, 1, MPI_DOUBLE, MPI_SUM, comm);
    hp_allreduce(c, &low, &out->min, 1, MPI_DOUBLE, MPI_MIN, comm);
    hp_allreduce(c, &high, &out->max, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (out->count == 0) out->min = 0.0;
}

void hp_reduce_counts(hp_comm *c, const hp_comm_counts *n, MPI_Comm comm, hp_comm_stat *s)
{
    s->seconds = hp_stat_across(c, n->seconds, comm);
    s->bytes_per_rank = hp_stat_across(c, (double)n->bytes, comm);
    s->messages_per_rank = hp_stat_across(c, (double)n->messages, comm);
    long long local[3] = {n->calls, n->messages, n->bytes}, global[3];
    hp_allreduce(c, local, global, 3, MPI_LONG_LONG, MPI_SUM, comm);
    s->calls = global[0];
    s->messages = global[1];
    s->bytes = global[2];
    hp_allreduce(c, n->histogram, s->histogram, HP_HIST_BINS, MPI_LONG_LONG, MPI_SUM, comm);
    hp_reduce_calltimes(c, &n->times, comm, &s->times);
}

void hp_reduce_comm(hp_comm *c, MPI_Comm comm, hp_comm_stat out[HP_NCLASSES])
{
    for (int k = 0; k < HP_NCLASSES; k++) hp_reduce_counts(c, &c->cls[k], comm, &out[k]);
}

double hp_comm_seconds(const hp_comm *c)
{
    double seconds = 0.0;
    for (int k = 0; k < HP_NCLASSES; k++) seconds += c->cls[k].seconds;
    return seconds;
}

/* Every rank's counts on the root, when every rank counted. */
static void gather_counters(hp_comm *c, MPI_Comm comm, int rank, hp_rank_times *out)
{
    const hp_counter_values mine = hp_counters_read();
    int everywhere;
    hp_allreduce(c, &mine.events, &everywhere, 1, MPI_INT, MPI_MIN, comm);
    out->events = 0;
    out->counts = NULL;
    if (everywhere == 0) {
        out->unavailable =
            mine.events ? "rank 0 counted, but another rank could not open its counters" : mine.unavailable;
        return;
    }
    out->counts = rank == 0 ? malloc(HP_COUNTER_EVENTS * (size_t)out->ranks * sizeof *out->counts) : NULL;
    hp_gather(c, mine.values, HP_COUNTER_EVENTS, MPI_LONG_LONG, out->counts, 0, comm);
    out->events = HP_COUNTER_EVENTS;
    for (int k = 0; k < HP_COUNTER_EVENTS; k++) out->names[k] = mine.names[k];
}

void hp_gather_rank_times(hp_comm *c, double elapsed, double mpi, MPI_Comm comm, hp_rank_times *out)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &out->ranks);
    gather_counters(c, comm, rank, out);
    const double mine[2] = {elapsed, mpi};
    double *all = rank == 0 ? malloc(2 * (size_t)out->ranks * sizeof *all) : NULL;
    hp_gather(c, mine, 2, MPI_DOUBLE, all, 0, comm);
    out->elapsed = out->mpi = NULL;
    if (!all) return;
    out->elapsed = malloc(2 * (size_t)out->ranks * sizeof *out->elapsed);
    out->mpi = out->elapsed + out->ranks;
    for (int r = 0; r < out->ranks; r++) {
        out->elapsed[r] = all[2 * r];
        out->mpi[r] = all[2 * r + 1];
    }
    free(all);
}

void hp_gather_loop_times(hp_comm *c, const hp_timers *t, MPI_Comm comm, hp_rank_times *out)
{
    double elapsed = 0.0;
    for (int k = 0; k < t->count; k++)
        if (strcmp(t->region[k].name, "total") == 0) elapsed = t->region[k].seconds;
    hp_gather_rank_times(c, elapsed, hp_comm_seconds(c), comm, out);
}

void hp_rank_times_free(hp_rank_times *t)
{
    free(t->elapsed); /* mpi lives in the same block */
    free(t->counts);
    t->elapsed = t->mpi = NULL;
    t->counts = NULL;
}

void hp_json_rank_times(hp_json *j, const hp_rank_times *t)
{
    if (!t->elapsed) return;
    hp_json_object_begin(j, "rank_times");
    hp_json_array_begin(j, "elapsed");
    for (int r = 0; r < t->ranks; r++) hp_json_real(j, NULL, t->elapsed[r]);
    hp_json_array_end(j);
    hp_json_array_begin(j, "mpi");
    for (int r = 0; r < t->ranks; r++) hp_json_real(j, NULL, t->mpi[r]);
    hp_json_array_end(j);
    hp_json_object_begin(j, "counters");
    if (t->counts) {
        for (int k = 0; k < t->events; k++) {
            hp_json_array_begin(j, t->names[k]);
            for (int r = 0; r < t->ranks; r++) hp_json_int(j, NULL, t->counts[r * t->events + k]);
            hp_json_array_end(j);
        }
    } else
        hp_json_string(j, "unavailable", t->unavailable);
    hp_json_object_end(j);
    hp_json_object_end(j);
}

void hp_print_regions(FILE *out, const hp_region_stat *r, int n, double total)
{
    fprintf(out, "%-16s %8s %11s %5s %11s %11s %5s %7s %9s\n", "region", "calls", "min [s]", "rank", "avg [s]",
            "max [s]", "rank", "%total", "imbalance");
    for (int k = 0; k < n; k++) {
        const hp_stat *s = &r[k].seconds;
        fprintf(out, "%-16s %8lld %11.6f %5d %11.6f %11.6f %5d %6.2f%% %8.2f%%\n", r[k].name, r[k].calls, s->min,
                s->min_rank, s->avg, s->max, s->max_rank, total > 0 ? 100.0 * s->avg / total : 0.0,
                100.0 * hp_imbalance(s));
    }
}

void hp_print_comm(FILE *out, const hp_comm_stat s[HP_NCLASSES])
{
    fprintf(out, "%-14s %10s %12s %14s %11s %11s\n", "communication", "calls", "messages", "bytes", "avg [s]",
            "max [s]");
    for (int k = 0; k < HP_NCLASSES; k++)
        fprintf(out, "%-14s %10lld %12lld %14lld %11.6f %11.6f\n", hp_comm_class_names[k], s[k].calls, s[k].messages,
                s[k].bytes, s[k].seconds.avg, s[k].seconds.max);
}

void hp_json_regions(hp_json *j, const hp_region_stat *r, int n)
{
    hp_json_object_begin(j, "regions");
    for (int k = 0; k < n; k++) {
        hp_json_object_begin(j, r[k].name);
        hp_json_int(j, "calls", r[k].calls);
        hp_stat_json(j, "time", &r[k].seconds);
        hp_json_real(j, "imbalance", hp_imbalance(&r[k].seconds));
        hp_json_calltimes(j, &r[k].times);
        hp_json_object_end(j);
    }
    hp_json_object_end(j);
}

void hp_json_calltimes(hp_json *j, const hp_calltimes *h)
{
    if (h->count == 0) return;
    hp_json_object_begin(j, "per_call");
    hp_json_int(j, "count", h->count);
    hp_json_real(j, "sum", h->sum);
    hp_json_real(j, "min", h->min);
    hp_json_real(j, "max", h->max);
    hp_json_array_begin(j, "bins");
    for (int b = 0; b < HP_CALLTIMES_BINS; b++) {
        if (!h->bins[b]) continue;
        hp_json_object_begin(j, NULL);
        hp_json_real(j, "min_seconds", hp_calltimes_low(b));
        hp_json_real(j, "max_seconds", hp_calltimes_high(b)); /* the last bin's infinity is written null */
        hp_json_int(j, "count", h->bins[b]);
        hp_json_object_end(j);
    }
    hp_json_array_end(j);
    hp_json_object_end(j);
}

static void histogram_json(hp_json *j, const long long *h)
{
    hp_json_array_begin(j, "size_histogram");
    for (int b = 0; b < HP_HIST_BINS; b++) {
        if (!h[b]) continue;
        hp_json_object_begin(j, NULL);
        hp_json_int(j, "min_bytes", b == 0 ? 0 : 1LL << (b - 1));
        hp_json_int(j, "max_bytes", b == 0 ? 0 : (1LL << b) - 1);
        hp_json_int(j, "count", h[b]);
        hp_json_object_end(j);
    }
    hp_json_array_end(j);
}

void hp_json_comm_class(hp_json *j, const char *key, const hp_comm_stat *s)
{
    hp_json_object_begin(j, key);
    hp_json_int(j, "calls", s->calls);
    hp_json_int(j, "messages", s->messages);
    hp_json_int(j, "bytes", s->bytes);
    hp_stat_json(j, "time", &s->seconds);
    hp_json_real(j, "imbalance", hp_imbalance(&s->seconds));
    hp_stat_json(j, "bytes_per_rank", &s->bytes_per_rank);
    hp_stat_json(j, "messages_per_rank", &s->messages_per_rank);
    histogram_json(j, s->histogram);
    hp_json_calltimes(j, &s->times);
    hp_json_object_end(j);
}

void hp_json_comm(hp_json *j, const hp_comm_stat s[HP_NCLASSES])
{
    hp_json_object_begin(j, "comm");
    for (int k = 0; k < HP_NCLASSES; k++) hp_json_comm_class(j, hp_comm_class_names[k], &s[k]);
    hp_json_object_end(j);
}

hp_check hp_check_make(const char *name, double value, double expected, double tolerance)
{
    return (hp_check){name, value, expected, tolerance, fabs(value - expected) <= tolerance};
}

int hp_checks_pass(const hp_check *c, int n)
{
    for (int k = 0; k < n; k++)
        if (!c[k].pass) return 0;
    return 1;
}

void hp_print_checks(FILE *out, const hp_check *c, int n)
{
    fputs("checks:", out);
    for (int k = 0; k < n; k++)
        fprintf(out, " %s %.3g (tolerance %.3g) %s;", c[k].name, c[k].value, c[k].tolerance,
                c[k].pass ? "pass" : "FAIL");
    fputc('\n', out);
}

void hp_json_checks(hp_json *j, const hp_check *c, int n)
{
    hp_json_string(j, "status", hp_checks_pass(c, n) ? "ok" : "check-failed");
    hp_json_object_begin(j, "checks");
    for (int k = 0; k < n; k++) {
        hp_json_object_begin(j, c[k].name);
        hp_json_real(j, "value", c[k].value);
        hp_json_real(j, "expected", c[k].expected);
        hp_json_real(j, "tolerance", c[k].tolerance);
        hp_json_bool(j, "pass", c[k].pass);
        hp_json_object_end(j);
    }
    hp_json_object_end(j);
}

void hp_json_figure(hp_json *j, const char *name, double value, const char *unit, const char *better)
{
    hp_json_object_begin(j, NULL);
    hp_json_string(j, "name", name);
    hp_json_real(j, "value", value);
    hp_json_string(j, "unit", unit);
    hp_json_string(j, "better", better);
    hp_json_object_end(j);
}

void hp_json_figuref(hp_json *j, double value, const char *unit, const char *better, const char *name_format, ...)
{
    char name[128];
    va_list ap;
    va_start(ap, name_format);
    vsnprintf(name, sizeof name, name_format, ap);
    va_end(ap);
    hp_json_figure(j, name, value, unit, better);
}

void hp_json_omp_idle(hp_json *j, const double *per_rank, int ranks)
{
    static const char *const keys[] = {"regions", "load_imbalance", "scheduling", "unsplit_regions"};
    hp_json_object_begin(j, "openmp_idle");
    for (int k = 0; k < 4; k++) {
        hp_json_array_begin(j, keys[k]);
        for (int r = 0; r < ranks; r++) hp_json_real(j, NULL, per_rank[4 * r + k]);
        hp_json_array_end(j);
    }
    hp_json_object_end(j);
}
