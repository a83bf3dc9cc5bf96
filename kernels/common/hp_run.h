/* What a run is and where it ran: MPI start-up, ranks, threads, nodes, hosts, thread level,
 * environment, the CPU each thread really used, and how the binary was built.
 *
 * This is the "build" and "run" half of every profile. Affinity is read from the operating system
 * (the CPU set each thread is allowed and the CPU it was last seen on), never inferred from the
 * launch line, because a wrong binding -- all threads of a rank stacked on one core -- is the most
 * common way a hybrid run lies about its performance. */
#ifndef HP_RUN_H
#define HP_RUN_H

#include <mpi.h>
#include <stdio.h>

#include "hp_args.h"
#include "hp_comm.h"
#include "hp_json.h"
#include "hp_report.h"

typedef struct {
    const char *kernel; /* "md" */
    int argc;
    char **argv;
    char start_time[32]; /* ISO 8601, UTC */
    int rank, ranks, threads, ranks_per_node, nodes;
    int thread_requested, thread_provided;
    char *hosts;    /* rank 0: one host name per rank, MPI_MAX_PROCESSOR_NAME apart */
    char *affinity; /* rank 0: one "rank thread cpu allowed,..." line per thread */
    MPI_Comm world;
} hp_run;

/* A kernel's own check of its parsed options taken together (what the option table alone cannot judge: a
 * construct's name, two options that exclude each other); it must not need MPI. */
typedef struct {
    int (*check)(void *params, const hp_arg *args, int nargs, char *err, size_t errlen);
    void *params; /* what the option table writes into */
} hp_validation;

/* Handles --help, --options, --version, --build-info and --check-args before MPI starts (args holds the
 * defaults; `validation`, when not NULL, is run by --check-args after parsing); returns 1 when one was handled
 * (--check-args exits 2 itself when it refuses the arguments). */
int hp_run_early_exit(int argc, char **argv, const char *program, const hp_arg *args, int nargs, const char *usage,
                      const char *summary, const hp_validation *validation);
/* MPI_Init_thread and the run's shape. Collective. */
void hp_run_start(hp_run *r, const char *kernel, int argc, char **argv, int thread_requested, hp_comm *c);
void hp_run_finish(hp_run *r);

/* "MPI_THREAD_FUNNELED" etc. for an MPI thread level. */
const char *hp_thread_level_name(int level);
/* The profile's schema, kernel, kernel_version, build and run members. */
void hp_profile_header(hp_json *j, const hp_run *r);
void hp_build_info(FILE *out);
/* What every kernel's profile has beside the header, in two parts around its figures of merit: its options as
 * parsed ("params") and its checks; then its regions (`nregions` from `regions`), its communication by class and
 * each rank's times. */
void hp_json_params_and_checks(hp_json *j, const hp_arg *args, int nargs, const hp_check *checks, int nchecks);
void hp_json_measured(hp_json *j, const hp_region_stat *regions, int nregions, const hp_comm_stat comm[HP_NCLASSES],
                      const hp_rank_times *times);
/* Writes a whole profile atomically: the header above, then the kernel's members (written by
 * `members` into the open top-level object, from the kernel's state and its results). Rank 0 only. 0, or -1 with
 * err. */
typedef void (*hp_members)(hp_json *j, const void *state, const void *results);
int hp_profile_write(const char *path, const hp_run *r, hp_members members, const void *state, const void *results,
                     char *err, size_t errlen);
/* Collective agreement on an error: returns 1 on every rank when any rank has ok == 0; the lowest
 * such rank prints "hybridperf-KERNEL: error: MSG". */
int hp_any_error(hp_comm *c, MPI_Comm comm, int ok, const char *kernel, const char *msg);

#endif
