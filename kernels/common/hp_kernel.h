/* What a kernel is, declared once: hp_main.c has the one main() every kernel runs.
 *
 * Each kernel defines `const hp_kernel hp_this_kernel` (in its main.c) and links hp_common, whose main()
 * answers --help, --options, --version, --build-info and --check-args before MPI starts (from the kernel's
 * option table), then allocates the kernel's state zeroed, starts MPI and the run (hp_run_start, counting
 * through the state's hp_comm), calls `run`, frees, and ends MPI. `run` parses the options into the state
 * (with the same table), does the work, reports through hp_kernel_report (the kernel's summary on the terminal,
 * its profile), and returns the exit status. */
#ifndef HP_KERNEL_H
#define HP_KERNEL_H

#include <stddef.h>

#include "hp_args.h"
#include "hp_run.h"

enum { HP_KERNEL_MAX_OPTIONS = 32 };
/* A kernel's exit statuses besides EXIT_SUCCESS and EXIT_FAILURE (a runtime failure): bad input, and a
 * correctness check failed (the profile is written and says which). */
enum { EXIT_BAD_INPUT = 2, EXIT_CHECK_FAILED = 3 };

typedef struct {
    const char *program; /* "hybridperf-md": its messages */
    const char *name;    /* "md": its profiles' kernel */
    const char *usage, *summary;
    /* The option table over the state's parameters, their defaults written: at most HP_KERNEL_MAX_OPTIONS. */
    int (*options)(void *state, hp_arg *table);
    /* The parsed options taken together (hp_validation); NULL: the table's checks are all. */
    int (*check)(void *state, const hp_arg *args, int nargs, char *err, size_t errlen);
    size_t state_size;
    size_t comm_offset; /* offsetof(state, its hp_comm) */
    int count_from_start; /* hp_comm_init's: whether communication counts before the kernel's loop says so */
    /* Optional: before MPI starts, an exit status to end with, or -1 to go on. */
    int (*before_mpi)(int argc, char **argv);
    /* Optional: the MPI thread level asked for; MPI_THREAD_FUNNELED when NULL. */
    int (*thread_level)(int argc, char **argv);
    /* Optional: the state's fields that must not be zero before the run (an MPI handle's null value). */
    void (*init)(void *state);
    int (*run)(void *state, hp_run *run);
    /* What a run reports (hp_kernel_report), given its state and its results: the summary rank 0 prints, and the
     * profile's members after the header every profile has. */
    void (*print_results)(const void *state, const void *results);
    hp_members members;
    /* Optional: what the run allocated in the state, finished or not. */
    void (*free)(void *state);
} hp_kernel;

extern const hp_kernel hp_this_kernel;

/* Collective, after the measured loop: records where each rank's threads ran, then rank 0 prints the kernel's
 * results and writes its profile to `profile` (none when NULL). 0, or -1 when the profile could not be written
 * (said once, on stderr). */
int hp_kernel_report(hp_run *run, hp_comm *comm, const char *profile, const void *state, const void *results);

#endif
