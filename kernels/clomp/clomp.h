/* hybridperf-clomp: shared state of the CLOMP model (Bronevetsky, Gyllenhaal, de Supinski; LLNL CLOMP 1.2).
 *
 * CLOMP prices OpenMP's start-up and synchronisation costs where applications pay them: many small,
 * dependent loops over an unstructured mesh. The mesh is an array of partitions, each the head of a
 * singly linked list of zones; one sweep ("subcycle") computes a deposit from the previous sweep's
 * result (a stand-in for an MPI reduction: it cannot be moved or threaded) and spreads it over every
 * zone of every partition. The partitions are independent, so the partition loop is what OpenMP
 * shares out, and the same sweeps run five ways (serial, parallel for static, parallel for dynamic,
 * manual barrier + single, and the unsynchronised best case) so their times can be compared.
 *
 * The layout follows CLOMP 1.2 on purpose, because its memory behaviour is what is measured:
 * partitions are allocated one by one by the threads that will own them (or by the master), zones of
 * a partition are one contiguous block, and only the first 32 bytes of a zone are ever touched.
 * All state lives in one struct passed by pointer. */
#ifndef CLOMP_H
#define CLOMP_H

#include <stdio.h>

#include "hp_args.h"
#include "hp_comm.h"
#include "hp_report.h"
#include "hp_run.h"
#include "hp_timer.h"

#define CLOMP_KERNEL "clomp"
#define CLOMP_PROGRAM "hybridperf-clomp"
#define CLOMP_MAX_ARGS 12
#define CLOMP_SUBCYCLES 10 /* sweeps per iteration: CLOMP's four "packages" of 1, 2, 3 and 4 loops */
#define CLOMP_MAX_ITERATIONS 2000000000.0

/* A zone. These 32 bytes are all the sweep reads and writes; zoneSize only spaces zones apart. */
typedef struct clomp_zone {
    long id; /* 1-based within its partition */
    long part;
    double value;
    struct clomp_zone *next;
} clomp_zone;

/* A partition (CLOMP's Part), allocated alone so that its owner thread can place it. */
typedef struct {
    long id;
    long since_deposit; /* updates since calc_deposit last ran: CLOMP's update_count, must be 1 there */
    long updates;       /* updates since the last reset: the work actually done */
    clomp_zone *first;  /* also the start of the partition's zone block */
    double deposit_ratio;
    double residue;                          /* deposit left after the last zone */
    double expected_first, expected_residue; /* from the serial reference */
} clomp_part;

typedef struct {
    int num_threads, alloc_threads, num_parts, zones_per_part, zone_size, flop_scale, time_scale;
    const char *profile, *skip_name;
} clomp_params;

/* The timed measurements, in the order CLOMP runs them, then the remainder and the whole. */
typedef enum {
    V_CALC_DEPOSIT,
    V_OMP_BARRIER,
    V_SERIAL_REF,
    V_BEST_CASE,
    V_FOR_STATIC,
    V_FOR_DYNAMIC,
    V_MANUAL,
    V_OTHER,
    V_TOTAL,
    V_COUNT
} clomp_region;

#define CLOMP_VARIANTS V_OTHER /* regions that are measurements */

/* What the result check of one variant found on this rank (CLOMP's print_data_stats, plus work). */
typedef struct {
    double sum, residue, total;            /* zone values, partition residues, their sum */
    long first_mismatch, residue_mismatch; /* partitions differing from the serial reference */
    long not_decreasing;                   /* zones with a larger value than the zone before */
    long wrong_updates;                    /* partitions not updated exactly once per subcycle */
    long deposit_errors;                   /* calc_deposit calls after != 1 update of partition 0 */
    int checked;
} clomp_tally;

#define CLOMP_MAX_CHECKS 32

typedef struct {
    clomp_params p;
    hp_arg args[CLOMP_MAX_ARGS];
    int nargs;
    int rank, nranks;
    int threads, alloc_threads; /* numThreads and allocThreads with -1 resolved */
    long zone_size;             /* zoneSize raised to sizeof(clomp_zone) */
    long iterations;            /* each of CLOMP_SUBCYCLES sweeps */
    double total_zones, memory_bytes;
    clomp_part **parts;
    /* Constants of the deposit arithmetic (see mesh.c). */
    double part_ratio, residue_ratio_part0, iteration_residue, max_residue, error_bound, tight_error_bound;
    long deposit_errors;   /* calc_deposit sequence violations in the current measurement */
    double manual_deposit; /* the deposit the single thread publishes to the team in "manual" */
    int skip;              /* test only: the variant whose first sweep skips the last partition, or -1 */
    hp_timers timers;
    hp_comm comm;
    clomp_tally tally[CLOMP_VARIANTS];
} clomp;

/* Cross-rank results, on rank 0. */
typedef struct {
    hp_region_stat regions[HP_MAX_REGIONS];
    int nregions;
    hp_comm_stat comm[HP_NCLASSES];
    hp_rank_times times; /* each rank's loop and MPI time (POP's inputs) */
    double seconds[CLOMP_VARIANTS]; /* as CLOMP reports them: min over ranks for serial_ref and best_case,
                                       max for the others */
    int rank_used[CLOMP_VARIANTS];
    hp_check checks[CLOMP_MAX_CHECKS];
    char check_names[CLOMP_MAX_CHECKS][48];
    int nchecks;
} clomp_results;

extern const char *const clomp_region_names[V_COUNT];
extern const char *const clomp_variant_labels[CLOMP_VARIANTS]; /* CLOMP 1.2's names: "Static OMP" */

/* params.c */
int clomp_params_table(clomp_params *p, hp_arg *args);
int clomp_params_validate(clomp *c, char *err, size_t errlen);
extern const char clomp_usage[];
extern const char clomp_summary[];

/* mesh.c */
int clomp_mesh_create(clomp *c, char *err, size_t errlen);
void clomp_mesh_calibrate(clomp *c);
void clomp_mesh_reset(clomp *c);
void clomp_mesh_free(clomp *c);

/* variants.c: each runs `iterations` iterations of CLOMP_SUBCYCLES sweeps; skip (test only) leaves
 * the last partition out of the first sweep. */
void clomp_calc_deposit_only(clomp *c, long iterations);
void clomp_barrier_only(clomp *c, long iterations);
void clomp_serial_ref(clomp *c, long iterations, int skip);
void clomp_best_case(clomp *c, long iterations, int skip);
void clomp_for_static(clomp *c, long iterations, int skip);
void clomp_for_dynamic(clomp *c, long iterations, int skip);
void clomp_manual(clomp *c, long iterations, int skip);

/* check.c */
void clomp_check_variant(clomp *c, clomp_region v);
void clomp_check_collect(clomp *c, clomp_results *r);

/* report.c */
void clomp_collect_results(clomp *c, clomp_results *r);
double clomp_us_per_loop(const clomp *c, double seconds);
void clomp_print_banner(const clomp *c, const hp_run *run);
/* The kernel's report (hp_kernel.h): rank 0's summary, and the profile's own members. */
void clomp_print_results(const void *state, const void *results);
void clomp_profile_members(hp_json *j, const void *state, const void *results);

#endif
