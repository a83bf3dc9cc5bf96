/* What a run of hybridperf-spmv reports: its correctness checks, the cross-rank results (rows,
 * nonzeros, the local product's bandwidth, the halo sizes), the terminal summary with its PERF line,
 * and the profile. Kept apart from main.c so the set-up and the call loop read on their own. */
#include <math.h>
#include <stdlib.h>

#include "spmv.h"

static const char *const computation[] = {"local_product"};
static const char *const communication[] = {"pack", "exchange"};

void spmv_collect_results(spmv_sim *s, const hp_run *run, spmv_results *r)
{
    MPI_Comm w = MPI_COMM_WORLD;
    r->s = s;
    r->run = run;
    r->nchecks = 0;
    r->checks[r->nchecks++] =
        hp_check_make("product_vs_reference", spmv_serial_error(&s->comm, &s->p, &s->g, s->y, w), 0.0, 1e-13);
    if (s->p.constant) {
        double local = spmv_analytic_error(&s->p, &s->g, s->y), worst;
        hp_allreduce(&s->comm, &local, &worst, 1, MPI_DOUBLE, MPI_MAX, w);
        r->checks[r->nchecks++] = hp_check_make("analytic_row_sums", worst, 0.0, 0.0);
    }
    long local[2] = {s->m.rows, s->m.nnz}, total[2];
    hp_allreduce(&s->comm, local, total, 2, MPI_LONG, MPI_SUM, w);
    r->rows_total = total[0];
    r->nnz_total = total[1];
    r->nregions = hp_reduce_regions(&s->comm, &s->timers, w, r->regions);
    hp_gather_loop_times(&s->comm, &s->timers, w, &r->times);
    r->openmp_idle = s->timers.enabled && !s->p.no_thread_times ? hp_omp_idle_gather(&s->comm, &s->omp, w) : NULL;
    hp_reduce_comm(&s->comm, w, r->comm);
    const double bytes = spmv_bytes_per_product(&s->m) * s->p.calls;
    const double seconds = s->timers.region[R_PRODUCT].seconds;
    hp_stat rate = hp_stat_across(&s->comm, seconds > 0 ? 1e-9 * bytes / seconds : 0.0, w);
    r->bandwidth = rate.sum; /* all ranks stream at once: their rates add up to the node's */
    const double best = s->best_product_seconds;
    rate = hp_stat_across(&s->comm, best > 0 && best < INFINITY ? 1e-9 * bytes / s->p.calls / best : 0.0, w);
    r->best_bandwidth = rate.sum;
    int points[SPMV_NEIGHBOURS] = {0};
    for (int k = 0; k < s->h.count; k++) points[s->h.dir[k]] = s->h.send_points[k];
    r->halo_points = run->rank == 0 ? malloc((size_t)run->ranks * SPMV_NEIGHBOURS * sizeof(int)) : NULL;
    hp_gather(&s->comm, points, SPMV_NEIGHBOURS, MPI_INT, r->halo_points, 0, w);
}

static double loop_seconds(const spmv_results *r) { return r->regions[R_TOTAL].seconds.max; }

static double group_max(const spmv_results *r, int first, int last)
{
    double t = 0.0;
    for (int k = first; k <= last; k++) t += r->regions[k].seconds.max;
    return t;
}

void spmv_print_results(const void *state, const void *results)
{
    (void)state; /* the results point at it */
    const spmv_results *r = results;
    const spmv_sim *s = r->s;
    const spmv_grid *g = &s->g;
    printf("%s: %s mode, n = %d, brick %d x %d x %d, grid %ld x %ld x %ld (%ld rows, %ld nonzeros)\n", SPMV_PROGRAM,
           s->p.mode_name, s->p.n, g->block[0], g->block[1], g->block[2], g->global[0], g->global[1], g->global[2],
           r->rows_total, r->nnz_total);
    hp_args_print(stdout, s->args, s->nargs);
    printf("ranks: %d on %d node(s) as %d x %d x %d nodes x %d x %d x %d per node, %d thread(s) per rank\n",
           r->run->ranks, g->nodes, g->node_grid[0], g->node_grid[1], g->node_grid[2], g->local_grid[0],
           g->local_grid[1], g->local_grid[2], r->run->threads);
    printf("%d calls: computation %.6f s, communication %.6f s (max over ranks), local product %.2f GB/s "
           "(best call %.2f)\n",
           s->p.calls, group_max(r, R_PRODUCT, R_PRODUCT), group_max(r, R_PACK, R_EXCHANGE), r->bandwidth,
           r->best_bandwidth);
    if (s->timers.enabled) hp_print_regions(stdout, r->regions, r->nregions, r->regions[R_TOTAL].seconds.avg);
    hp_print_comm(stdout, r->comm);
    hp_print_checks(stdout, r->checks, r->nchecks);
    printf("PERF kernel=spmv rows_per_second=%.6e local_product_GBps=%.3f comp_s=%.6f comm_s=%.6f rows=%ld ranks=%d "
           "threads=%d\n",
           r->rows_total * (double)s->p.calls / loop_seconds(r), r->bandwidth, group_max(r, R_PRODUCT, R_PRODUCT),
           group_max(r, R_PACK, R_EXCHANGE), r->rows_total, r->run->ranks, r->run->threads);
    fflush(stdout);
}

void spmv_profile_members(hp_json *j, const void *state, const void *results)
{
    const spmv_results *r = results;
    const spmv_sim *s = state;
    const spmv_grid *g = &s->g;
    hp_json_params_and_checks(j, s->args, s->nargs, r->checks, r->nchecks);
    hp_json_array_begin(j, "figures_of_merit");
    hp_json_figure(j, "loop_time", loop_seconds(r), "s", "lower");
    hp_json_figure(j, "computation_time", group_max(r, R_PRODUCT, R_PRODUCT), "s", "lower");
    hp_json_figure(j, "communication_time", group_max(r, R_PACK, R_EXCHANGE), "s", "lower");
    hp_json_figure(j, "rows_per_second", r->rows_total * (double)s->p.calls / loop_seconds(r), "1/s", "higher");
    hp_json_figure(j, "local_product_bandwidth", r->bandwidth, "GB/s", "higher");
    hp_json_array_end(j);
    /* the regions, or with --no-timers the loop's alone (all that is timed) */
    hp_json_measured(j, s->timers.enabled ? r->regions : &r->regions[R_TOTAL], s->timers.enabled ? r->nregions : 1,
                     r->comm, &r->times);
    hp_json_object_begin(j, "region_groups");
    hp_json_strings(j, "computation", computation, 1);
    hp_json_strings(j, "communication", communication, 2);
    hp_json_object_end(j);
    if (r->openmp_idle) hp_json_omp_idle(j, r->openmp_idle, r->run->ranks);
    hp_json_object_begin(j, "spmv");
    hp_json_string(j, "mode", s->p.mode_name);
    hp_json_int(j, "n", s->p.n);
    hp_json_int(j, "calls", s->p.calls);
    hp_json_int(j, "nodes", g->nodes);
    const int *triples[] = {g->block, g->node_grid, g->local_grid, g->rank_grid};
    const char *names[] = {"block", "node_grid", "local_grid", "rank_grid"};
    for (int k = 0; k < 4; k++) {
        hp_json_array_begin(j, names[k]);
        for (int d = 0; d < 3; d++) hp_json_int(j, NULL, triples[k][d]);
        hp_json_array_end(j);
    }
    hp_json_array_begin(j, "global");
    for (int d = 0; d < 3; d++) hp_json_int(j, NULL, g->global[d]);
    hp_json_array_end(j);
    HP_JSON_NUMBERS(j, {"rows", r->rows_total}, {"nonzeros", r->nnz_total}, {"rows_per_node", r->rows_total / g->nodes},
                    {"bytes_per_product", spmv_bytes_per_product(&s->m)}, {"local_product_GBps", r->bandwidth},
                    {"local_product_GBps_best", r->best_bandwidth});
    hp_json_array_begin(j, "halo_points"); /* per rank: points exchanged with the neighbour in each direction */
    for (int rank = 0; rank < r->run->ranks; rank++) {
        hp_json_array_begin(j, NULL);
        for (int d = 0; d < SPMV_NEIGHBOURS; d++) hp_json_int(j, NULL, r->halo_points[rank * SPMV_NEIGHBOURS + d]);
        hp_json_array_end(j);
    }
    hp_json_array_end(j);
    hp_json_object_end(j);
}
