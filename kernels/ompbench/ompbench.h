/* hybridperf-ompbench: shared state of the EPCC-style OpenMP overhead benchmarks.
 *
 * EPCC's method (Bull, EPCC OpenMP micro-benchmarks v4) prices a construct by running it around a
 * calibrated delay many times ("inner repetitions", chosen so one sample lasts a target time),
 * taking several such samples ("outer repetitions"), and subtracting the time of the same delays
 * run without the construct (the reference). This kernel keeps that method and its construct set,
 * runs it on every MPI rank at once (so overheads can be measured with several ranks per node), and
 * reports each overhead with a 95% confidence interval, in microseconds and in core cycles.
 *
 * A construct is a pair of functions, test and reference, each running `reps` inner repetitions;
 * everything they need travels in one omb_work struct. All other state is in the structs below. */
#ifndef OMPBENCH_H
#define OMPBENCH_H

#include <omp.h>
#include <stdio.h>

#include "hp_args.h"
#include "hp_comm.h"
#include "hp_json.h"
#include "hp_report.h"
#include "hp_run.h"
#include "hp_timer.h"

#define OMB_KERNEL "ompbench"
#define OMB_PROGRAM "hybridperf-ompbench"
#define OMB_MAX_ARGS 16
#define OMB_NOISE_PERCENTILES 100 /* the noise's distribution kept as this many equally likely values */
#define OMB_MAX_CHUNKS 32
#define OMB_MAX_ITEMS 192 /* 13 sync + 2 self-test + 1 + 3 x 32 schedule + 4 x 11 array measurements, with room */
#define OMB_NAME_LEN 32
#define OMB_ARRAY_NSIZES 11 /* EPCC's array sizes: 3^0 ... 3^10 = 59049 */

/* One thread's record in the array group (arraybench.c), a cache line each so that counting does not
 * make the threads share a line. */
typedef struct {
    _Alignas(64) long executions; /* timed visits of its copy since the last omb_array_reset */
    const double *copy;           /* probe: where its copy was */
    int initialised, kept;        /* probe: the copy held what the clause promises; its own values stayed */
} omb_slot;

typedef struct omb_work omb_work;
/* What a thread does with its copy of the array in an array-group region: time it, or probe it. */
typedef void (*omb_visit)(omb_work *w, double *copy, int n);

/* What a test or reference body needs; read-only while it runs except the lock and the array group's
 * slots (each thread writes its own). */
struct omb_work {
    long delay_length;    /* iterations of the delay loop for one delay */
    int threads;          /* OpenMP threads of this rank */
    int iters_per_thread; /* schedule group: loop iterations per thread */
    int chunk;            /* schedule group: chunk size of the current measurement */
    double extra_delay_s; /* KNOWN_DELAY: seconds of spinning added per repetition */
    omp_lock_t lock;      /* LOCK_* constructs */
    int array_size;       /* array group: elements of the array the clause copies */
    omb_visit visit;      /* array group: called by each thread on its copy */
    omb_slot *slot;       /* array group: one per thread */
    int probing;          /* array group: the regions run to check the clause, not to be timed */
    int expect_from;      /* array group, probing: the thread whose values a copy should hold on entry */
};

/* Runs `reps` inner repetitions of a test or of a reference. */
typedef void (*omb_body)(omb_work *w, long reps);

typedef enum { OMB_ONCE, OMB_PER_CHUNK, OMB_PER_SIZE } omb_axis;

typedef struct {
    const char *name;     /* EPCC's name: "PARALLEL_FOR" */
    const char *group;    /* "sync", "sched" or "selftest" */
    omb_body test;        /* the construct around the delay */
    omb_body reference;   /* the same work without the construct */
    const char *ref_name; /* "delay", "atomic", "reduction", "schedule" */
    int split;            /* reps are shared among the threads: calibrated in multiples of the thread count */
    omb_axis axis;        /* measured once, once per chunk size (schedules), once per array size (arrays) */
    const char *what;     /* one line for the docs and the profile */
} omb_construct;

/* sync.c, sched.c, selftest.c: the construct tables */
extern const omb_construct omb_sync_constructs[];
extern const int omb_sync_count;
extern const omb_construct omb_sched_constructs[];
extern const int omb_sched_count;
extern const omb_construct omb_selftest_constructs[];
extern const int omb_selftest_count;
extern const omb_construct omb_array_constructs[];
extern const int omb_array_count;
/* The delay alone, reps times: the reference of most constructs (sync.c). */
void omb_reference_delay(omb_work *w, long reps);

/* One measurement to make: a construct, with a chunk size for the schedule families and an array size
 * for the array group (0: none). */
typedef struct {
    const omb_construct *construct;
    int chunk, size;
    char name[OMB_NAME_LEN]; /* "DYNAMIC_16", "COPYIN_729" */
} omb_item;

typedef struct {
    const char *bench, *profile;
    hp_list constructs, chunks, sizes; /* constructs: none = the --bench group; chunks: "pow2" or sizes;
                                          sizes: "pow3" or array sizes */
    double test_time_us, delay_time_us, extra_delay_us, ref_sd_tol, noise_quantum_us;
    int delay_length, outer_reps, iters_per_thread, noise_quanta;
    /* filled by omb_params_validate: */
    int chunk[OMB_MAX_CHUNKS];
    int nchunks, chunks_pow2;
    int size[OMB_ARRAY_NSIZES];
    int nsizes;
    const omb_construct *selected[OMB_MAX_ITEMS];
    int nselected;
} omb_params;

/* params.c: the option table (defaults = EPCC v4's) and the list of measurements it selects */
int omb_params_table(omb_params *p, hp_arg *args);
int omb_params_validate(omb_params *p, const hp_arg *args, int nargs, char *err, size_t errlen);
/* Expands the selection into items for this thread count; returns the count. */
int omb_select(const omb_params *p, int threads, omb_item *items);
extern const char omb_usage[], omb_summary[];

/* delay.c: work the compiler cannot remove, and its calibration */
void omb_delay(long iterations);
void omb_keep(double value); /* makes a result observable, so the loop computing it stays */
/* Iterations whose call lasts `seconds`; *measured gets the time one call then takes. */
long omb_delay_length(double seconds, double *measured);
double omb_delay_seconds(long iterations); /* time of one call, least of 9 timings */
void omb_array_delay(long iterations, double *a); /* the same delay, its result stored in a[0] (EPCC's array_delay) */

/* clock.c: the core clock rate, measured; 0 when this CPU has no measurement */
double omb_clock_hz(void);
extern const char *const omb_clock_method;

/* samples.c: statistics of the outer repetitions */
typedef struct {
    double mean, sd, median, min, max;
    int outliers; /* samples more than 3 sd from the mean (EPCC's count) */
} omb_stats;
void omb_summarise(const double *x, int n, omb_stats *s); /* sorts a copy; x is untouched */
/* Two-sided Student t quantile: level 0.95 or 0.999, df >= 1. */
double omb_t_quantile(double level, int df);

/* arraybench.c: what the array group's probe found (1 yes, 0 no, -1 not promised by the clause) */
typedef struct {
    int checked;       /* an array construct, probed */
    int distinct;      /* different copy addresses among the threads (least over the probes) */
    int separate;      /* no thread used the master's array (COPYIN: thread 0's copy is the master's) */
    int initialised;   /* every copy held the source's values on entry (-1: PRIVATE promises nothing) */
    int kept;          /* every thread still found its own values after all threads wrote theirs */
    int master_intact; /* the master's array was untouched by the region (-1: COPYIN, whose master copies) */
    int source;        /* COPYPRIVATE: the thread that ran the single (-1: other constructs) */
    int ok;            /* all of the above as the clause promises, every thread its own copy */
} omb_copies;

/* measure.c: EPCC's method on one rank (no MPI) */
typedef struct {
    omb_item item;
    long reps, ref_reps; /* inner repetitions of test and reference */
    int outer;
    omb_stats test, ref, diff; /* microseconds per inner repetition; diff = paired test - reference */
    double overhead_us, ci95_us, ci999_us, median_overhead_us, epcc_pm_us;
    double seconds; /* wall time spent measuring, calibration included */
    omb_copies copies; /* array group: the clause's semantics, probed before timing */
    long executions_min, executions_max, executions_total, executions_expected; /* array group: timed visits
                                                                                  per thread, in all */
    int executions_by_one; /* array group: one thread visits per region (COPYPRIVATE), so only the total is fixed */
    hp_stat across; /* overhead across ranks (filled by main.c) */
} omb_result;
/* Inner repetitions that make one sample last at least target_us; -1 when the work vanished
 * (the compiler removed it). */
long omb_calibrate(omb_body body, omb_work *w, double target_us, int multiple);
/* Outer repetitions of test and reference, alternated, with reps and ref_reps already set in r. */
void omb_measure(const omb_construct *c, omb_work *w, int outer, omb_result *r, double *scratch);

/* arraybench.c: the array group's sizes, slots, probe and counts */
int omb_array_size_index(long n); /* -1 when n is not one of EPCC's sizes */
int omb_array_size_at(int index);
int omb_array_init(omb_work *w); /* the slots, one per thread; -1 when out of memory */
void omb_array_free(omb_work *w);
void omb_array_reset(omb_work *w); /* executions back to 0 (measure.c, after the untimed runs) */
void omb_array_verify(const omb_construct *c, omb_work *w, omb_copies *out);
void omb_array_tally(const omb_construct *c, const omb_work *w, omb_result *r); /* after omb_measure */
int omb_array_counts_ok(const omb_result *r);

/* noise.c: OS noise as a fixed work quantum, timed on every thread */
typedef struct {
    int quanta;       /* per thread; 0: not measured */
    double quantum_s; /* one quantum's time, undisturbed (the least of 9 timings) */
    long samples;     /* quanta timed, every thread of every rank */
    /* rank 0: the pooled slowdowns (a quantum's time over its thread's fastest, less 1), as the percentiles at
     * (k + 0.5) / OMB_NOISE_PERCENTILES, their mean and the largest */
    double slowdown[OMB_NOISE_PERCENTILES];
    double mean, max;
} omb_noise;

/* report.c: checks, terminal output and the profile */
typedef struct {
    omb_params p;
    hp_arg args[OMB_MAX_ARGS];
    int nargs;
    int rank, nranks, threads, cpus_online;
    double oversubscription; /* ranks per node x threads / CPUs online */
    const char *wait_policy;
    omb_item items[OMB_MAX_ITEMS];
    int nitems;
    omb_result results[OMB_MAX_ITEMS];
    int nresults;
    omb_work work;
    double clock_hz, delay_measured_s;
    omb_noise noise;
    hp_comm comm;
    hp_timers timers;
} omb_bench;

/* Collective: times --noise-quanta quanta on every thread (b->noise); 0, or -1 (reported) out of memory. */
int omb_measure_noise(omb_bench *b, omb_noise *out);

enum { R_CALIBRATION, R_SYNC, R_SCHED, R_ARRAY, R_SELFTEST, R_NOISE, R_TOTAL };
enum { OMB_MAX_CHECKS = 6 };
typedef struct {
    hp_check checks[OMB_MAX_CHECKS];
    int nchecks;
    hp_region_stat regions[HP_MAX_REGIONS];
    int nregions;
    hp_comm_stat comm[HP_NCLASSES];
    hp_stat clock_hz, delay_us;
    hp_rank_times times; /* rank 0: each rank's loop and MPI time (POP's inputs) */
} omb_results;
void omb_print_result(const omb_bench *b, const omb_result *r);
void omb_collect_results(omb_bench *b, omb_results *out); /* collective */
/* The kernel's report (hp_kernel.h): rank 0's summary, and the profile's own members. */
void omb_print_results(const void *state, const void *results);
void omb_profile_members(hp_json *j, const void *state, const void *results);

#endif
