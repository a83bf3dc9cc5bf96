/* hybridperf-spmv: set-up, the measured calls, the checks and the report. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "hp_affinity.h"
#include "hp_memory.h"
#include "hp_output.h"
#include "spmv.h"

enum { R_PACK, R_EXCHANGE, R_PRODUCT, R_TOTAL };
static const char *const region_names[] = {"pack", "exchange", "local_product", "total"};
static const char *const computation[] = {"local_product"};
static const char *const communication[] = {"pack", "exchange"};
enum { N_CHECKS = 2 };

typedef struct {
    spmv_params p;
    hp_arg args[SPMV_MAX_ARGS];
    int nargs;
    spmv_grid g;
    spmv_matrix m;
    spmv_halo h;
    hp_comm comm;
    hp_timers timers;
    double *x, *y;
    double best_product_seconds; /* the fastest single call: STREAM's convention, for the comparison */
} spmv_sim;

typedef struct {
    const spmv_sim *s;
    const hp_run *run;
    hp_check checks[N_CHECKS];
    int nchecks;
    hp_region_stat regions[HP_MAX_REGIONS];
    int nregions;
    hp_comm_stat comm[HP_NCLASSES];
    long rows_total, nnz_total;
    double bandwidth;      /* GB/s of the local product over all calls, summed over ranks */
    double best_bandwidth; /* the same from each rank's fastest call, as STREAM reports its best */
    int *halo_points; /* rank 0: 26 per rank, points exchanged with each direction's neighbour */
} spmv_results;

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
    hp_comm_count(&s->comm, 1);
    const double start = hp_now();
    s->best_product_seconds = INFINITY;
    for (int call = 0; call < s->p.calls; call++) {
        spmv_exchange(&s->comm, &s->h, s->x, s->m.rows, MPI_COMM_WORLD, t, R_PACK, R_EXCHANGE);
        const double before = t->region[R_PRODUCT].seconds;
        hp_timer_start(t, R_PRODUCT);
        spmv_product(&s->m, s->x, s->y);
        hp_timer_stop(t, R_PRODUCT);
        s->best_product_seconds = fmin(s->best_product_seconds, t->region[R_PRODUCT].seconds - before);
    }
    t->region[R_TOTAL].seconds = hp_now() - start;
    t->region[R_TOTAL].calls = 1;
    hp_comm_count(&s->comm, 0);
}

static void collect(spmv_sim *s, const hp_run *run, spmv_results *r)
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

static void print_summary(const spmv_results *r)
{
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

static void members(hp_json *j, const void *context)
{
    const spmv_results *r = context;
    const spmv_sim *s = r->s;
    const spmv_grid *g = &s->g;
    hp_json_object_begin(j, "params");
    hp_args_json(j, s->args, s->nargs);
    hp_json_object_end(j);
    hp_json_checks(j, r->checks, r->nchecks);
    hp_json_array_begin(j, "figures_of_merit");
    hp_json_figure(j, "loop_time", loop_seconds(r), "s", "lower");
    hp_json_figure(j, "computation_time", group_max(r, R_PRODUCT, R_PRODUCT), "s", "lower");
    hp_json_figure(j, "communication_time", group_max(r, R_PACK, R_EXCHANGE), "s", "lower");
    hp_json_figure(j, "rows_per_second", r->rows_total * (double)s->p.calls / loop_seconds(r), "1/s", "higher");
    hp_json_figure(j, "local_product_bandwidth", r->bandwidth, "GB/s", "higher");
    hp_json_array_end(j);
    if (s->timers.enabled)
        hp_json_regions(j, r->regions, r->nregions);
    else
        hp_json_regions(j, &r->regions[R_TOTAL], 1);
    hp_json_object_begin(j, "region_groups");
    hp_json_strings(j, "computation", computation, 1);
    hp_json_strings(j, "communication", communication, 2);
    hp_json_object_end(j);
    hp_json_comm(j, r->comm);
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
    hp_json_int(j, "rows", r->rows_total);
    hp_json_int(j, "nonzeros", r->nnz_total);
    hp_json_int(j, "rows_per_node", r->rows_total / g->nodes);
    hp_json_real(j, "bytes_per_product", spmv_bytes_per_product(&s->m));
    hp_json_real(j, "local_product_GBps", r->bandwidth);
    hp_json_real(j, "local_product_GBps_best", r->best_bandwidth);
    hp_json_array_begin(j, "halo_points"); /* per rank: points exchanged with the neighbour in each direction */
    for (int rank = 0; rank < r->run->ranks; rank++) {
        hp_json_array_begin(j, NULL);
        for (int d = 0; d < SPMV_NEIGHBOURS; d++) hp_json_int(j, NULL, r->halo_points[rank * SPMV_NEIGHBOURS + d]);
        hp_json_array_end(j);
    }
    hp_json_array_end(j);
    hp_json_object_end(j);
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

static int simulate(spmv_sim *s, hp_run *run)
{
    char err[512] = "";
    s->nargs = spmv_params_table(&s->p, s->args);
    int ok = hp_args_parse(s->args, s->nargs, run->argc, run->argv, err, sizeof err) == 0;
    if (ok) spmv_params_resolve(&s->p);
    if (ok && s->p.profile) ok = hp_check_writable(s->p.profile, err, sizeof err) == 0;
    if (ok)
        ok =
            spmv_grid_create(&s->g, &s->p, run->ranks, run->rank, ranks_per_node(), run->threads, err, sizeof err) == 0;
    if (hp_any_error(&s->comm, MPI_COMM_WORLD, ok, SPMV_KERNEL, err)) return 2;
    s->comm.timing = !s->p.no_timers;
    spmv_assemble(&s->p, &s->g, &s->m, &s->h);
    init_x(s);
    hp_timers_init(&s->timers, !s->p.no_timers);
    for (size_t k = 0; k < sizeof region_names / sizeof *region_names; k++) hp_timer_add(&s->timers, region_names[k]);
    run_calls(s);

    spmv_results r;
    collect(s, run, &r);
    hp_run_capture_affinity(run, &s->comm);
    ok = 1;
    if (run->rank == 0) {
        print_summary(&r);
        if (s->p.profile) ok = hp_profile_write(s->p.profile, run, members, &r, err, sizeof err) == 0;
    }
    free(r.halo_points);
    if (hp_any_error(&s->comm, MPI_COMM_WORLD, ok, SPMV_KERNEL, err)) return 1;
    return hp_checks_pass(r.checks, r.nchecks) ? 0 : 3;
}

int main(int argc, char **argv)
{
    spmv_params defaults;
    hp_arg table[SPMV_MAX_ARGS];
    const int nargs = spmv_params_table(&defaults, table);
    if (hp_run_early_exit(argc, argv, SPMV_PROGRAM, table, nargs, spmv_usage, spmv_summary)) return 0;
    spmv_sim *s = calloc(1, sizeof *s);
    hp_run run;
    hp_comm_init(&s->comm, 1);
    hp_run_start(&run, SPMV_KERNEL, argc, argv, MPI_THREAD_FUNNELED, &s->comm);
    int status = simulate(s, &run);
    spmv_matrix_free(&s->m);
    spmv_halo_free(&s->h);
    free(s->x);
    free(s->y);
    free(s);
    hp_run_finish(&run);
    return status;
}
