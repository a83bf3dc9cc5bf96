/* Reduces region timers and communication counters across ranks, prints the breakdown table and
 * writes the profile's "regions" and "comm" members.
 *
 * Reduction is separated from output so a kernel can print the table to the terminal and write the
 * same numbers to the profile without reducing twice. */
#ifndef HP_REPORT_H
#define HP_REPORT_H

#include <stdio.h>

#include "hp_comm.h"
#include "hp_counters.h"
#include "hp_json.h"
#include "hp_stats.h"
#include "hp_timer.h"

typedef struct {
    const char *name;
    long long calls;
    hp_stat seconds;
    hp_calltimes times; /* every rank's calls */
} hp_region_stat;

typedef struct {
    long long calls, messages, bytes; /* sums over ranks */
    hp_stat seconds, bytes_per_rank, messages_per_rank;
    long long histogram[HP_HIST_BINS]; /* sums over ranks */
    hp_calltimes times;                /* every rank's calls */
} hp_comm_stat;

/* POP's per-rank inputs (docs/pop.md): each rank's time in the measured window and in MPI calls within it,
 * gathered on the root (NULL arrays elsewhere). Per rank, because POP's load balance and communication
 * efficiency need the largest useful time (elapsed - MPI), which the cross-rank min/avg/max of the two
 * separately cannot give. */
typedef struct {
    double *elapsed, *mpi;
    int ranks;
    /* The window's hardware counters outside MPI (hp_counters.h), when every rank counted: counts[r * events + k]
     * is rank r's count of names[k]; else counts is NULL and `unavailable` (static storage) says why: rank 0's
     * reason, or that another rank had none. */
    int events;
    const char *names[HP_COUNTER_EVENTS];
    long long *counts;
    const char *unavailable;
} hp_rank_times;

/* A correctness check: passes when |value - expected| <= tolerance (never when value is NaN). */
typedef struct {
    const char *name;
    double value, expected, tolerance;
    int pass;
} hp_check;

hp_check hp_check_make(const char *name, double value, double expected, double tolerance);
int hp_checks_pass(const hp_check *c, int n);
void hp_print_checks(FILE *out, const hp_check *c, int n);
/* "status" and "checks" members of the profile. */
void hp_json_checks(hp_json *j, const hp_check *c, int n);
/* One entry of the "figures_of_merit" array. */
void hp_json_figure(hp_json *j, const char *name, double value, const char *unit, const char *better);
/* hp_json_figure with its name made from a printf format: a figure per variant or construct. */
void hp_json_figuref(hp_json *j, double value, const char *unit, const char *better, const char *name_format, ...)
    __attribute__((format(printf, 5, 6)));

/* Collective. Returns the number of regions written to out (at most HP_MAX_REGIONS). */
int hp_reduce_regions(hp_comm *c, const hp_timers *t, MPI_Comm comm, hp_region_stat *out);
/* Collective. Call with counting off. */
void hp_reduce_comm(hp_comm *c, MPI_Comm comm, hp_comm_stat out[HP_NCLASSES]);
/* Collective: every rank's call times in one histogram (extremes over the ranks that made a call). */
void hp_reduce_calltimes(hp_comm *c, const hp_calltimes *mine, MPI_Comm comm, hp_calltimes *out);
/* One class's counts n, as hp_reduce_comm reduces each (c only carries the reduction's own calls). */
void hp_reduce_counts(hp_comm *c, const hp_comm_counts *n, MPI_Comm comm, hp_comm_stat *out);

/* Seconds in MPI calls of every class, this rank. */
double hp_comm_seconds(const hp_comm *c);
/* Collective: every rank's (elapsed, mpi) gathered on rank 0 of comm. */
void hp_gather_rank_times(hp_comm *c, double elapsed, double mpi, MPI_Comm comm, hp_rank_times *out);
/* Collective: as hp_gather_rank_times, elapsed the "total" region's time and mpi the counted time. */
void hp_gather_loop_times(hp_comm *c, const hp_timers *t, MPI_Comm comm, hp_rank_times *out);
void hp_rank_times_free(hp_rank_times *t);
/* "openmp_idle": {"regions": [per rank], "load_imbalance": [...], "scheduling": [...], "unsplit_regions": [...]}
 * from per_rank[4 * rank + k] in that order: what the kernels' thread timing (hp_omp_idle) and the MPI library's
 * OMPT tool both give (docs/profile-schema.md). */
void hp_json_omp_idle(hp_json *j, const double *per_rank, int ranks);

/* Table of regions with min (rank) / avg / max (rank), % of `total` and imbalance. */
void hp_print_regions(FILE *out, const hp_region_stat *r, int n, double total);
void hp_print_comm(FILE *out, const hp_comm_stat s[HP_NCLASSES]);
void hp_json_regions(hp_json *j, const hp_region_stat *r, int n);
void hp_json_comm(hp_json *j, const hp_comm_stat s[HP_NCLASSES]);
/* "rank_times": {"elapsed": [per rank], "mpi": [per rank], "counters": {NAME: [per rank], ...} or {"unavailable":
 * why}} (root only). */
void hp_json_rank_times(hp_json *j, const hp_rank_times *t);
/* "per_call": {count, sum, min, max, bins: [{min_seconds, max_seconds, count}]}, empty bins left out; nothing
 * when no call was timed (a build without them, a region whose time is set directly). */
void hp_json_calltimes(hp_json *j, const hp_calltimes *h);
/* One class's object under key, as hp_json_comm writes each. */
void hp_json_comm_class(hp_json *j, const char *key, const hp_comm_stat *s);

#endif
