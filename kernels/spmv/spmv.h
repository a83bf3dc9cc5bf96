/* hybridperf-spmv: Chow & Hysom's sparse matrix-vector model program (seed-spec §E.4).
 *
 * A 27-point discretisation of a 3-D PDE on a regular, non-periodic grid, assembled in CSR and
 * partitioned into equal bricks; each call is the paper's five steps: fill send buffers, post
 * non-blocking sends, post non-blocking receives, wait, multiply the local part. Steps 1 and 5 are
 * OpenMP loops; 2-4 are done by the master thread (master-only). Three modes, as in the paper:
 *   mpi     one rank per core, brick n x n x n;
 *   hybrid  one rank per node with nt threads, brick sized nt n^3 (2n x n x n, 2n x 2n x n, ...);
 *   serial  the hybrid decomposition computed by one thread.
 * All state is in the structs below. */
#ifndef SPMV_H
#define SPMV_H

#include <stdint.h>

#include "hp_args.h"
#include "hp_comm.h"
#include "hp_omp_idle.h"
#include "hp_report.h"
#include "hp_run.h"
#include "hp_timer.h"

#define SPMV_KERNEL "spmv"
#define SPMV_PROGRAM "hybridperf-spmv"
#define SPMV_MAX_ARGS 16
#define SPMV_NEIGHBOURS 26

typedef enum { MODE_MPI, MODE_HYBRID, MODE_SERIAL } spmv_mode;

typedef struct {
    int n, calls, node_threads, verify, no_timers, no_thread_times;
    int plan, plan_ranks_per_node, plan_threads; /* --plan R: lay out a run on R ranks, run nothing */
    int grid[3];
    const char *mode_name, *coefficients, *profile;
    spmv_mode mode;
    int constant; /* --coefficients constant: 26 on the diagonal, -1 off it, x = 1 */
} spmv_params;

/* Where this rank's brick sits. Ranks are arranged hierarchically, like the paper's: a grid of nodes,
 * and inside each node a grid of its ranks; a brick is n times a balanced factorisation of the
 * threads it is sized for. */
typedef struct {
    int ranks, rank, ranks_per_node, nodes;
    int node_grid[3], local_grid[3], rank_grid[3], coords[3];
    int block[3];                   /* brick size in grid points */
    long global[3];                 /* whole grid */
    long offset[3];                 /* first global point of the brick */
    int neighbour[SPMV_NEIGHBOURS]; /* rank in direction d, or -1 at the domain boundary */
} spmv_grid;

typedef struct {
    long rows, nnz, ghosts;
    int64_t *row_start; /* rows + 1 */
    int32_t *col;       /* local column: < rows for owned points, rows + k for ghost k */
    double *val;
} spmv_matrix;

typedef struct {
    int count; /* neighbours that exist */
    int rank[SPMV_NEIGHBOURS], dir[SPMV_NEIGHBOURS];
    int send_points[SPMV_NEIGHBOURS];  /* points sent to, and received from, each neighbour */
    int *send_index[SPMV_NEIGHBOURS];  /* local rows sent */
    long recv_offset[SPMV_NEIGHBOURS]; /* first ghost slot of each neighbour's points */
    double *sendbuf;
    long send_total;
} spmv_halo;

/* params.c */
int spmv_params_table(spmv_params *p, hp_arg *args);
void spmv_params_resolve(spmv_params *p);
extern const char spmv_usage[], spmv_summary[];

/* grid.c */
void spmv_factor3(int n, int f[3]);
int spmv_grid_create(spmv_grid *g, const spmv_params *p, int ranks, int rank, int ranks_per_node, int threads,
                     char *err, size_t errlen);
void spmv_direction(int d, int off[3]);

/* matrix.c */
double spmv_coefficient(const spmv_params *p, long row, long col, int diagonal);
double spmv_x(const spmv_params *p, long global_index);
void spmv_halo_layout(const spmv_grid *g, spmv_halo *h, int slot_of_dir[SPMV_NEIGHBOURS]);
long spmv_brick_nnz(const spmv_grid *g);
void spmv_assemble(const spmv_params *p, const spmv_grid *g, spmv_matrix *m, spmv_halo *h);
void spmv_matrix_free(spmv_matrix *m);

/* halo.c */
void spmv_exchange(hp_comm *c, spmv_halo *h, double *x, long rows, MPI_Comm comm, hp_timers *t, int pack_id,
                   int exchange_id, hp_omp_idle *idle);
void spmv_halo_free(spmv_halo *h);

/* plan.c: --plan R (print: rank 0 prints, the others only check) */
int spmv_plan(const spmv_params *p, int print, char *err, size_t errlen);

/* product.c */
void spmv_product(const spmv_matrix *m, const double *restrict x, double *restrict y, hp_omp_idle *idle);
double spmv_bytes_per_product(const spmv_matrix *m);

/* check.c */
double spmv_analytic_error(const spmv_params *p, const spmv_grid *g, const double *y);
double spmv_serial_error(hp_comm *c, const spmv_params *p, const spmv_grid *g, const double *y, MPI_Comm comm);

/* main.c: the state of one run, and its regions */
enum { R_PACK, R_EXCHANGE, R_PRODUCT, R_TOTAL };
enum { SPMV_MAX_CHECKS = 2 };
typedef struct {
    spmv_params p;
    hp_arg args[SPMV_MAX_ARGS];
    int nargs;
    spmv_grid g;
    spmv_matrix m;
    spmv_halo h;
    hp_comm comm;
    hp_timers timers;
    hp_omp_idle omp; /* the threads' idle time in the calls' parallel regions (pack, product) */
    double *x, *y;
    double best_product_seconds; /* the fastest single call: STREAM's convention, for the comparison */
} spmv_sim;

/* report.c: checks, cross-rank results, terminal summary, profile */
typedef struct {
    const spmv_sim *s;
    const hp_run *run;
    hp_check checks[SPMV_MAX_CHECKS];
    int nchecks;
    hp_region_stat regions[HP_MAX_REGIONS];
    int nregions;
    hp_comm_stat comm[HP_NCLASSES];
    long rows_total, nnz_total;
    double bandwidth;      /* GB/s of the local product over all calls, summed over ranks */
    double best_bandwidth; /* the same from each rank's fastest call, as STREAM reports its best */
    int *halo_points; /* rank 0: 26 per rank, points exchanged with each direction's neighbour */
    hp_rank_times times; /* rank 0: each rank's loop and MPI time (POP's inputs) */
    double *openmp_idle;  /* rank 0, when the threads were timed: 4 per rank (hp_omp_idle_gather) */
} spmv_results;
void spmv_collect_results(spmv_sim *s, const hp_run *run, spmv_results *r); /* collective */
/* The kernel's report (hp_kernel.h): rank 0's summary, and the profile's own members. */
void spmv_print_results(const void *state, const void *results);
void spmv_profile_members(hp_json *j, const void *state, const void *results);

#endif
