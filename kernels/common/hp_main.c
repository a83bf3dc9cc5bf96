/* The one main() of every kernel, and the report at the end of its run: runs hp_this_kernel (hp_kernel.h). A
 * kernel's own tests link hp_common with a main of their own, which the linker then takes instead of this one. */
#include <stdlib.h>

#include "hp_affinity.h"
#include "hp_kernel.h"

static const hp_kernel *kernel = &hp_this_kernel;

/* --help, --options, --version, --build-info, --check-args: 1 when one was answered. */
static int answered_early(int argc, char **argv)
{
    void *scratch = calloc(1, kernel->state_size);
    if (!scratch) return 0; /* the run fails on memory itself */
    hp_arg table[HP_KERNEL_MAX_OPTIONS];
    const int nargs = kernel->options(scratch, table);
    const hp_validation validation = {kernel->check, scratch};
    const int answered = hp_run_early_exit(argc, argv, kernel->program, table, nargs, kernel->usage,
                                           kernel->summary, kernel->check ? &validation : NULL);
    free(scratch);
    return answered;
}

int hp_kernel_report(hp_run *run, hp_comm *comm, const char *profile, const void *state, const void *results)
{
    hp_run_capture_affinity(run, comm);
    char err[1024] = "";
    int ok = 1;
    if (run->rank == 0) {
        kernel->print_results(state, results);
        if (profile) ok = hp_profile_write(profile, run, kernel->members, state, results, err, sizeof err) == 0;
    }
    return hp_any_error(comm, run->world, ok, kernel->name, err) ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (answered_early(argc, argv)) return EXIT_SUCCESS;
    if (kernel->before_mpi) {
        const int status = kernel->before_mpi(argc, argv);
        if (status >= 0) return status;
    }
    char *state = calloc(1, kernel->state_size);
    if (!state) return EXIT_FAILURE;
    if (kernel->init) kernel->init(state);
    hp_comm *comm = (hp_comm *)(state + kernel->comm_offset);
    hp_run run;
    hp_comm_init(comm, kernel->count_from_start);
    const int level = kernel->thread_level ? kernel->thread_level(argc, argv) : MPI_THREAD_FUNNELED;
    hp_run_start(&run, kernel->name, argc, argv, level, comm);
    const int status = kernel->run(state, &run);
    if (kernel->free) kernel->free(state);
    free(state);
    hp_run_finish(&run);
    return status;
}
