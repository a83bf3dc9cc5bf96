/* --plan R: what a run on R ranks would send, computed in one process without running it.
 *
 * hybridperf simulate replays every rank's messages on a described cluster. The plan performs the run's
 * own set-up for each rank in turn -- the hierarchical grid (grid.c, with the node grid MPI_Dims_create
 * gives) and the halo layout the assembly builds (matrix.c) -- and prints, per rank, its rows, its
 * nonzeros and the operations of one call in the order halo.c performs them: an Isend per neighbour,
 * an Irecv per neighbour, one Waitall. Every call is alike, so the plan lists one ("ordinary") and the
 * calls that follow it. Ranks per node and threads per rank are given, since the brick a rank owns
 * depends on them (--mode hybrid sizes it for its threads). */
#include <stdio.h>
#include <stdlib.h>

#include "hp_json.h"
#include "spmv.h"

static void rank_entry(hp_json *j, const spmv_grid *g)
{
    spmv_halo h;
    spmv_halo_layout(g, &h, NULL);
    hp_json_object_begin(j, NULL);
    hp_json_int(j, "rank", g->rank);
    hp_json_int(j, "rows", (long long)g->block[0] * g->block[1] * g->block[2]);
    hp_json_int(j, "nnz", spmv_brick_nnz(g));
    hp_json_int(j, "packed", h.send_total);
    hp_json_array_begin(j, "ordinary");
    for (int k = 0; k < h.count; k++) {
        hp_json_object_begin(j, NULL);
        hp_json_string(j, "op", "isend");
        hp_json_string(j, "region", "exchange");
        hp_json_int(j, "to", h.rank[k]);
        hp_json_int(j, "tag", h.dir[k]); /* halo.c tags a message with the direction it travels in */
        hp_json_int(j, "bytes", (long long)h.send_points[k] * (long long)sizeof(double));
        hp_json_object_end(j);
    }
    for (int k = 0; k < h.count; k++) { /* the neighbour sends the box this rank sends it, seen from its side */
        hp_json_object_begin(j, NULL);
        hp_json_string(j, "op", "irecv");
        hp_json_string(j, "region", "exchange");
        hp_json_int(j, "from", h.rank[k]);
        hp_json_int(j, "tag", SPMV_NEIGHBOURS - 1 - h.dir[k]);
        hp_json_int(j, "recv_bytes", (long long)h.send_points[k] * (long long)sizeof(double));
        hp_json_int(j, "bytes", 0);
        hp_json_object_end(j);
    }
    if (h.count) {
        hp_json_object_begin(j, NULL);
        hp_json_string(j, "op", "waitall");
        hp_json_string(j, "region", "exchange");
        hp_json_int(j, "bytes", 0);
        hp_json_object_end(j);
    }
    hp_json_array_end(j);
    hp_json_array_begin(j, "rebuild");
    hp_json_array_end(j);
    hp_json_array_begin(j, "thermo");
    hp_json_array_end(j);
    hp_json_object_end(j);
    spmv_halo_free(&h);
}

int spmv_plan(const spmv_params *p, int print, char *err, size_t errlen)
{
    const int ranks = p->plan, per_node = p->plan_ranks_per_node;
    spmv_grid g;
    if (spmv_grid_create(&g, p, ranks, 0, per_node, p->plan_threads, err, errlen)) return -1;
    if (!print) return 0;
    hp_json j;
    hp_json_open(&j, stdout);
    hp_json_object_begin(&j, NULL);
    hp_json_string(&j, "kernel", SPMV_KERNEL);
    hp_json_int(&j, "ranks", ranks);
    hp_json_int(&j, "ranks_per_node", per_node);
    hp_json_int(&j, "threads", p->plan_threads);
    hp_json_string(&j, "mode", p->mode_name);
    hp_json_array_begin(&j, "grid");
    for (int d = 0; d < 3; d++) hp_json_int(&j, NULL, g.rank_grid[d]);
    hp_json_array_end(&j);
    hp_json_int(&j, "rows", g.global[0] * g.global[1] * g.global[2]);
    hp_json_int(&j, "steps", p->calls);
    hp_json_array_begin(&j, "rebuild_steps");
    hp_json_array_end(&j);
    hp_json_array_begin(&j, "thermo_steps");
    hp_json_array_end(&j);
    hp_json_array_begin(&j, "ranks_plan");
    for (int r = 0; r < ranks; r++) {
        spmv_grid_create(&g, p, ranks, r, per_node, p->plan_threads, err, errlen);
        rank_entry(&j, &g);
    }
    hp_json_array_end(&j);
    hp_json_object_end(&j);
    fputc('\n', stdout);
    return 0;
}
