/* Options of hybridperf-spmv. Defaults follow the paper: n = 20 (it used 5 ... 40), 100 calls. */
#include <string.h>
#include <unistd.h>

#include "spmv.h"

int spmv_params_table(spmv_params *p, hp_arg *args)
{
    *p = (spmv_params){.n = 20, .calls = 100, .mode_name = "mpi", .coefficients = "varying", .plan_ranks_per_node = 1,
                       .plan_threads = 1};
    const hp_arg table[] = {
        {HP_OPTION("n", 'n', HP_ARG_INT, &p->n, "N", "brick edge: n^3 points per core (the paper's 5 ... 40)"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 1},
        {HP_OPTION("mode", 0, HP_ARG_CHOICE, &p->mode_name, "MODE",
                   "mpi: a rank per core; hybrid: a rank per node, threads share its brick; serial: hybrid's brick "
                   "on one thread"),
         .choices = "mpi|hybrid|serial"},
        {HP_OPTION("node-threads", 0, HP_ARG_INT, &p->node_threads, "K",
                   "serial mode: the thread count whose hybrid brick to use (0: the node's online CPUs)"),
         .min_rule = HP_MIN_INCLUSIVE},
        HP_OPTION_GRID(p->grid, "node"),
        {HP_OPTION("calls", 'c', HP_ARG_INT, &p->calls, "N", "SPMV calls measured"), .min_rule = HP_MIN_INCLUSIVE,
         .min = 1},
        {HP_OPTION("coefficients", 0, HP_ARG_CHOICE, &p->coefficients, "KIND",
                   "varying: entries differ row by row; constant: 26 / -1 with x = 1 (row sums known)"),
         .choices = "varying|constant"},
        HP_OPTION_PROFILE(&p->profile),
        HP_OPTION_NO_TIMERS(&p->no_timers),
        HP_OPTION_NO_THREAD_TIMES(&p->no_thread_times),
        {HP_OPTION("plan", 0, HP_ARG_INT, &p->plan, "R",
                   "print as JSON every rank's rows, nonzeros and messages of one call for a run on R ranks "
                   "(for hybridperf simulate); run nothing"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 1},
        {HP_OPTION("plan-ranks-per-node", 0, HP_ARG_INT, &p->plan_ranks_per_node, "N",
                   "--plan: ranks per node of the planned run"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 1},
        {HP_OPTION("plan-threads", 0, HP_ARG_INT, &p->plan_threads, "T",
                   "--plan: threads per rank of the planned run (--mode hybrid sizes a brick for them)"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 1},
    };
    memcpy(args, table, sizeof table);
    return (int)(sizeof table / sizeof *table);
}

void spmv_params_resolve(spmv_params *p)
{
    p->mode = strcmp(p->mode_name, "hybrid") == 0   ? MODE_HYBRID
              : strcmp(p->mode_name, "serial") == 0 ? MODE_SERIAL
                                                    : MODE_MPI;
    p->constant = strcmp(p->coefficients, "constant") == 0;
    if (p->mode == MODE_SERIAL && p->node_threads == 0) p->node_threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
}

const char spmv_usage[] = "mpirun [MPI options] hybridperf-spmv [options]";
const char spmv_summary[] =
    "Chow & Hysom's SPMV model program: a 27-point matrix on a regular 3-D grid in CSR, bricks per rank, and\n"
    "per call the five steps fill buffers / Isend / Irecv / Waitall / local product (steps 1 and 5 threaded).\n"
    "Exit status: 0 ok, 1 runtime failure, 2 bad input, 3 a correctness check failed.";
