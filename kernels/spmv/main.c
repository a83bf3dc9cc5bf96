/* hybridperf-spmv: set-up, the measured calls and the exit status.
 *
 * The loop is the paper's: every call exchanges the halo and then multiplies, and both are timed per
 * call, so the split between communication and computation comes from the same calls. The fastest
 * single product is kept as well, because STREAM, the bandwidth it is compared with, reports its best
 * repetition. What the run reports -- checks, cross-rank results, summary, profile -- is in report.c,
 * so this file reads as set-up and loop alone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hp_affinity.h"
#include "hp_kernel.h"
#include "hp_memory.h"
#include "hp_output.h"
#include "spmv.h"

static const char *const region_names[] = {"pack", "exchange", "local_product", "total"};

static void init_x(spmv_sim *s)
{
    const spmv_grid *g = &s->g;
    s->x = hp_alloc_large((size_t)(s->m.rows + s->m.ghosts + 1) * sizeof(double));
    s->y = hp_alloc_large(((size_t)s->m.rows + 1) * sizeof(double));
    memset(s->x + s->m.rows, 0, (size_t)(s->m.ghosts + 1) * sizeof(double));
#pragma omp parallel for collapse(2) schedule(static)
    for (int z = 0; z < g->block[2]; z++)
        for (int y = 0; y < g->block[1]; y++)
            for (int x = 0; x < g->block[0]; x++) {
                long global =
                    (g->offset[0] + x) + g->global[0] * ((g->offset[1] + y) + g->global[1] * (g->offset[2] + z));
                s->x[x + g->block[0] * ((long)y + g->block[1] * z)] = spmv_x(&s->p, global);
            }
}

static void run_calls(spmv_sim *s)
{
    hp_timers *t = &s->timers;
    s->omp.enabled = t->enabled && !s->p.no_thread_times;
    hp_comm_count(&s->comm, 1);
    const double start = hp_now();
    s->best_product_seconds = INFINITY;
    for (int call = 0; call < s->p.calls; call++) {
        spmv_exchange(&s->comm, &s->h, s->x, s->m.rows, MPI_COMM_WORLD, t, R_PACK, R_EXCHANGE, &s->omp);
        const double before = t->region[R_PRODUCT].seconds;
        hp_timer_start(t, R_PRODUCT);
        spmv_product(&s->m, s->x, s->y, &s->omp);
        hp_timer_stop(t, R_PRODUCT);
        s->best_product_seconds = fmin(s->best_product_seconds, t->region[R_PRODUCT].seconds - before);
    }
    t->region[R_TOTAL].seconds = hp_now() - start;
    t->region[R_TOTAL].calls = 1;
    s->omp.enabled = 0;
    hp_comm_count(&s->comm, 0);
}

static int ranks_per_node(void)
{
    MPI_Comm node;
    int size, most;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &size);
    MPI_Comm_free(&node);
    MPI_Allreduce(&size, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return most;
}

static int simulate(void *state, hp_run *run)
{
    spmv_sim *s = state;
    char err[512] = "";
    s->nargs = spmv_params_table(&s->p, s->args);
    int ok = hp_args_parse(s->args, s->nargs, run->argc, run->argv, err, sizeof err) == 0;
    if (ok) spmv_params_resolve(&s->p);
    if (ok && s->p.profile) ok = hp_check_writable(s->p.profile, err, sizeof err) == 0;
    if (ok && s->p.plan) {
        ok = spmv_plan(&s->p, run->rank == 0, err, sizeof err) == 0;
        return hp_any_error(&s->comm, MPI_COMM_WORLD, ok, SPMV_KERNEL, err) ? 2 : 0;
    }
    if (ok)
        ok =
            spmv_grid_create(&s->g, &s->p, run->ranks, run->rank, ranks_per_node(), run->threads, err, sizeof err) == 0;
    if (hp_any_error(&s->comm, MPI_COMM_WORLD, ok, SPMV_KERNEL, err)) return 2;
    s->comm.timing = !s->p.no_timers;
    spmv_assemble(&s->p, &s->g, &s->m, &s->h);
    init_x(s);
    hp_timers_init(&s->timers, !s->p.no_timers);
    hp_omp_idle_init(&s->omp);
    for (size_t k = 0; k < sizeof region_names / sizeof *region_names; k++) hp_timer_add(&s->timers, region_names[k]);
    run_calls(s);

    spmv_results r;
    spmv_collect_results(s, run, &r);
    const int reported = hp_kernel_report(run, &s->comm, s->p.profile, s, &r) == 0;
    free(r.halo_points);
    free(r.openmp_idle);
    hp_rank_times_free(&r.times);
    if (!reported) return EXIT_FAILURE;
    return hp_checks_pass(r.checks, r.nchecks) ? EXIT_SUCCESS : EXIT_CHECK_FAILED;
}

static int options(void *state, hp_arg *table) { return spmv_params_table(&((spmv_sim *)state)->p, table); }

static void release(void *state)
{
    spmv_sim *s = state;
    spmv_matrix_free(&s->m);
    spmv_halo_free(&s->h);
    hp_omp_idle_free(&s->omp);
    free(s->x);
    free(s->y);
}

_Static_assert(SPMV_MAX_ARGS <= HP_KERNEL_MAX_OPTIONS, "the option table fits hp_main.c's");
const hp_kernel hp_this_kernel = {
    .program = SPMV_PROGRAM, .name = SPMV_KERNEL, .usage = spmv_usage, .summary = spmv_summary,
    .options = options, .state_size = sizeof(spmv_sim), .comm_offset = offsetof(spmv_sim, comm),
    .count_from_start = 1, .run = simulate, .free = release, .print_results = spmv_print_results,
    .members = spmv_profile_members,
};
