/* hybridperf-mixbench: shared state of the mixed-mode and network-cost microbenchmarks.
 *
 * Every benchmark is a loop over message sizes (or rank counts) that produces one row per point:
 * the time per operation across the ranks that measured it, and the messages and bytes the
 * instrumented layer counted during the timed iterations next to what the loop structure says it
 * sent. Rows of one kind form a table (pingpong, allreduce, mixed_funnelled, ...); tables are what
 * the terminal prints in OSU-style columns and what the profile's "mixbench" member holds, with a
 * Hockney fit t = alpha + beta m per table. All ranks walk the same sizes in the same order, idle
 * ranks included, so that each row can be reduced collectively right after it is measured.
 * All state is in mb_state and travels by pointer. */
#ifndef MIXBENCH_H
#define MIXBENCH_H

#include <stdio.h>

#include "hockney.h"
#include "hp_args.h"
#include "hp_comm.h"
#include "hp_decomp.h"
#include "hp_json.h"
#include "hp_report.h"
#include "hp_run.h"
#include "hp_timer.h"

#define MB_KERNEL "mixbench"
#define MB_PROGRAM "hybridperf-mixbench"
#define MB_MAX_ARGS 32
#define MB_MAX_SIZES 64
#define MB_MAX_SIZE (1 << 30) /* bytes; MPI counts are ints and buffers are allocated per rank */
#define MB_LARGE_MESSAGE 8192 /* above this, --iters-large and --warmup-large apply (OSU's threshold) */
#define MB_MAX_PAIRS 64
#define MB_MAX_RANK_COUNTS 32 /* p = 2, 4, 8, ... and the world size */
#define MB_MAX_FITS (MB_NTABLES + 3 * MB_MAX_RANK_COUNTS) /* one per table; allreduce and chains one per rank count */

/* Benchmarks (bit set) and mixed-mode styles (bit set). */
/* Benchmark k is bit 1 << k and is named mb_bench_names[k] (also its region's name). */
enum { MB_PINGPONG = 1, MB_COLLECTIVES = 2, MB_MIXED = 4, MB_HALO = 8, MB_ALTERNATING = 16, MB_CHAIN = 32 };
enum { MB_NBENCHES = 6 };
extern const char *const mb_bench_names[MB_NBENCHES];
typedef enum { MB_SINGLE, MB_MASTERONLY, MB_FUNNELLED, MB_MULTIPLE, MB_NSTYLES } mb_style;
extern const char *const mb_style_names[MB_NSTYLES];

/* Tables: one per kind of row. */
typedef enum {
    MB_T_PINGPONG,
    MB_T_ALLREDUCE,
    MB_T_BARRIER,
    MB_T_MIXED_SINGLE, /* + style */
    MB_T_HALO_MASTERONLY = MB_T_MIXED_SINGLE + MB_NSTYLES,
    MB_T_HALO_FUNNELLED,
    MB_T_CHAIN_SENDRECV,
    MB_T_CHAIN_SEND_IRECV_WAIT,
    MB_NTABLES
} mb_table;
extern const char *const mb_table_names[MB_NTABLES];

typedef struct {
    const char *bench_name, *pair_text, *thread_level_name, *thread_cap_name;
    hp_list size_list, style_list; /* --sizes (none: the --min-size..--max-size range), --styles */
    hp_list check_ranks;           /* --check-decomposition: rank counts to judge, nothing run */
    const char *profile;
    int min_size, max_size, iters, iters_large, warmup, warmup_large, pairs;
    int fit_min, fit_max;
    int region_reps, region_work;
    int grid[3];
    int comm_timers;
    /* derived by mb_params_validate */
    unsigned benches, styles;
    int sizes[MB_MAX_SIZES], nsizes;
    int pair[2];          /* the single pair (--pairs 1) */
    int thread_requested; /* MPI_THREAD_* to ask MPI_Init_thread for */
    int thread_needed;    /* the least level the chosen styles need */
    int thread_cap;       /* testing: pretend MPI provided at most this level (-1: no cap) */
} mb_params;

typedef struct {
    mb_table table;
    int ranks;      /* ranks taking part (allreduce, barrier: the communicator's size) */
    int bytes;      /* message size: per message, per face (halo), per rank's contribution (allreduce) */
    int iterations; /* timed */
    hp_stat time;   /* seconds per operation over the ranks that measured it (one-way for ping-pongs) */
    /* chains: time.max is the chain's time, IMB's t_max */
    long long messages, bytes_sent;              /* counted by hp_comm in the timed part, all ranks */
    long long expected_messages, expected_bytes; /* what the loop structure sends, all ranks */
    long long errors;                            /* wrong values seen by the data checks, all ranks */
} mb_row;

typedef struct {
    int ran, root, reps, work, threads;
    double baseline, waiting, busy; /* root's mean region time (s) in each phase */
    double baseline_min, waiting_min, busy_min;
    hp_stat busy_ranks;   /* phase (b): mean region time of every rank */
    long long wrong_sums; /* regions whose result differs from the serial sum, all ranks */
    long long barriers;   /* barrier calls counted per rank in phases (a) and (b) */
} mb_alternating;

typedef struct {
    mb_params p;
    hp_arg args[MB_MAX_ARGS];
    int nargs;
    int rank, nranks, threads;
    hp_run *run;
    hp_comm comm;
    hp_timers timers;
    hp_decomp decomp; /* halo benchmark */
    mb_row *rows;     /* rank 0 only: every measured row, in order */
    int nrows, rows_cap;
    mb_alternating alt;
    int same_node;  /* the pair shares a node (rank 0) */
    long long sink; /* sums of received halo bytes: keeps those reads from being optimised away */
} mb_state;

/* params.c */
int mb_params_table(mb_params *p, hp_arg *args);
/* Checks that need no MPI: sizes, styles, benchmarks, levels. 0 or -1 with err. */
int mb_params_validate(mb_params *p, const hp_arg *args, int nargs, char *err, size_t errlen);
/* Checks that need the run's shape and the thread level MPI provided. 0 or -1 with err. */
int mb_params_check_run(const mb_params *p, int ranks, int provided, char *err, size_t errlen);
extern const char mb_usage[], mb_summary[];

/* rows.c: measuring one point */
typedef struct {
    long long messages, bytes;
} mb_snapshot;
int mb_iterations(const mb_params *p, int bytes);
int mb_warmup(const mb_params *p, int bytes);
mb_snapshot mb_snapshot_take(const hp_comm *c);
/* The rank counts of the benchmarks that sweep p (collectives, chain): 2, 4, 8, ... below nranks, then
 * nranks; returns how many. */
int mb_rank_counts(int nranks, int *counts);
/* Collective over the run's world: every rank passes its own timed seconds per operation (used only
 * when it measured), what it sent since `before`, what it was meant to send and the data errors
 * it saw; rank 0 appends the reduced row and prints it. */
void mb_row_finish(mb_state *s, mb_table table, int ranks, int bytes, int iterations, int measured,
                   double seconds_per_op, const mb_snapshot *before, long long expected_messages,
                   long long expected_bytes, long long errors);
/* Collective sync of all ranks, not counted. */
void mb_sync(mb_state *s);
void *mb_alloc(size_t bytes); /* malloc, as a plain ping-pong would; zeroed; exits on failure */
static inline unsigned char mb_pattern(int sender, int tag, long long i)
{
    return (unsigned char)(sender * 31 + tag * 7 + i * 13 + (i >> 8));
}

/* The benchmarks. Each is collective over the run's world. */
void mb_pingpong(mb_state *s);
void mb_collectives(mb_state *s);
void mb_mixed(mb_state *s);
void mb_halo(mb_state *s);
void mb_alternating_run(mb_state *s);
void mb_chain(mb_state *s);

/* report.c */
enum { MB_CHECKS = 3 };
typedef struct {
    hp_check checks[MB_CHECKS];
    hp_region_stat regions[HP_MAX_REGIONS];
    int nregions;
    hp_comm_stat comm[HP_NCLASSES];
    hockney_fit fits[MB_MAX_FITS];
    char fit_names[MB_MAX_FITS][32];
    int nfits;
    hp_rank_times times; /* rank 0: each rank's loop and MPI time (POP's inputs) */
} mb_results;
void mb_print_row(const mb_state *s, const mb_row *r);
void mb_collect_results(mb_state *s, mb_results *out); /* collective */
int mb_results_pass(const mb_results *r);
/* The kernel's report (hp_kernel.h): rank 0's summary, and the profile's own members. */
void mb_print_results(const void *state, const void *results);
void mb_profile_members(hp_json *j, const void *state, const void *results);

#endif
