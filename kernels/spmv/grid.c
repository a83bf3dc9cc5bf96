/* The hierarchical decomposition: a grid of nodes, and inside each node a grid of its ranks.
 *
 * Chow & Hysom split the domain into p x p x p node subdomains and, in MPI mode, each node's into
 * nt bricks of n^3 (a hierarchical partitioning); in hybrid mode a node's subdomain stays whole.
 * Writing both as "node grid x per-node grid x brick of n times a factorisation of K" keeps the
 * global problem identical across modes on the same nodes: mpi has K = 1 and nt ranks per node,
 * hybrid and serial have one rank per node and K = nt. Ranks are expected node by node (ranks
 * 0..r-1 on the first node), which is how hybridperf's launch lines place them. */
#include <stdio.h>
#include <string.h>

#include "spmv.h"

/* The most cubic factorisation n = f[0] f[1] f[2], sorted so that f[0] >= f[1] >= f[2]: 2 -> 2x1x1,
 * 4 -> 2x2x1, 8 -> 2x2x2 (the paper's Table 1), 6 -> 3x2x1. */
void spmv_factor3(int n, int f[3])
{
    int best[3] = {n, 1, 1};
    for (int a = 1; a <= n; a++)
        for (int b = 1; b <= a && a * b <= n; b++) {
            if (n % (a * b)) continue;
            int c = n / (a * b);
            if (c > b) continue;
            if (a - c < best[0] - best[2]) best[0] = a, best[1] = b, best[2] = c;
        }
    memcpy(f, best, sizeof best);
}

/* Direction d in [0, 26) as offsets in {-1, 0, 1}^3 without (0, 0, 0), x fastest. */
void spmv_direction(int d, int off[3])
{
    int k = d < 13 ? d : d + 1; /* skip the centre, index 13 of the 27 */
    off[0] = k % 3 - 1;
    off[1] = (k / 3) % 3 - 1;
    off[2] = k / 9 - 1;
}

int spmv_grid_create(spmv_grid *g, const spmv_params *p, int ranks, int rank, int ranks_per_node, int threads,
                     char *err, size_t errlen)
{
    memset(g, 0, sizeof *g);
    g->ranks = ranks;
    g->rank = rank;
    g->ranks_per_node = ranks_per_node;
    if (ranks % ranks_per_node) {
        snprintf(err, errlen, "%d ranks are not a whole number of nodes of %d ranks", ranks, ranks_per_node);
        return -1;
    }
    g->nodes = ranks / ranks_per_node;
    if (p->mode == MODE_HYBRID && threads < 2) {
        snprintf(err, errlen,
                 "--mode hybrid needs more than one thread per rank (OMP_NUM_THREADS=%d); use --mode "
                 "serial for the hybrid decomposition on one thread",
                 threads);
        return -1;
    }
    int k = p->mode == MODE_MPI ? 1 : p->mode == MODE_HYBRID ? threads : p->node_threads;
    int brick[3];
    spmv_factor3(k, brick);
    spmv_factor3(ranks_per_node, g->local_grid);
    if (p->grid[0] || p->grid[1] || p->grid[2]) {
        long product = (long)p->grid[0] * p->grid[1] * p->grid[2];
        if (product != g->nodes) {
            snprintf(err, errlen, "--grid %d %d %d needs %ld nodes (ranks / ranks per node), got %d", p->grid[0],
                     p->grid[1], p->grid[2], product, g->nodes);
            return -1;
        }
        memcpy(g->node_grid, p->grid, sizeof g->node_grid);
    } else {
        int dims[3] = {0, 0, 0};
        MPI_Dims_create(g->nodes, 3, dims);
        memcpy(g->node_grid, dims, sizeof dims);
    }
    const int node = rank / ranks_per_node, local = rank % ranks_per_node;
    const int node_coords[3] = {node % g->node_grid[0], (node / g->node_grid[0]) % g->node_grid[1],
                                node / (g->node_grid[0] * g->node_grid[1])};
    const int local_coords[3] = {local % g->local_grid[0], (local / g->local_grid[0]) % g->local_grid[1],
                                 local / (g->local_grid[0] * g->local_grid[1])};
    for (int d = 0; d < 3; d++) {
        g->rank_grid[d] = g->node_grid[d] * g->local_grid[d];
        g->coords[d] = node_coords[d] * g->local_grid[d] + local_coords[d];
        g->block[d] = p->n * brick[d];
        g->global[d] = (long)g->block[d] * g->rank_grid[d];
        g->offset[d] = (long)g->block[d] * g->coords[d];
    }
    /* Neighbour ranks: invert the same hierarchical numbering. */
    for (int dir = 0; dir < SPMV_NEIGHBOURS; dir++) {
        int off[3], c[3], inside = 1;
        spmv_direction(dir, off);
        for (int d = 0; d < 3; d++) {
            c[d] = g->coords[d] + off[d];
            inside &= c[d] >= 0 && c[d] < g->rank_grid[d];
        }
        if (!inside) {
            g->neighbour[dir] = -1;
            continue;
        }
        int nc[3], lc[3];
        for (int d = 0; d < 3; d++) {
            nc[d] = c[d] / g->local_grid[d];
            lc[d] = c[d] % g->local_grid[d];
        }
        int n_index = nc[0] + g->node_grid[0] * (nc[1] + g->node_grid[1] * nc[2]);
        int l_index = lc[0] + g->local_grid[0] * (lc[1] + g->local_grid[1] * lc[2]);
        g->neighbour[dir] = n_index * ranks_per_node + l_index;
    }
    return 0;
}
