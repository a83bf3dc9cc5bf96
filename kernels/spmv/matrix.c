/* The 27-point matrix in CSR, and the ghost layout it implies.
 *
 * Row i of the global matrix couples grid point i with its up to 26 neighbours inside the (non-
 * periodic) domain, so rows on faces, edges and corners have 18, 12 or 8 entries. The matrix is
 * assembled explicitly, as in the paper (a matrix-free stencil would not stress memory bandwidth the
 * way an application's sparse matrix does). Columns are local: owned points first, then ghosts,
 * grouped by the neighbour that owns them and ordered x-fastest within the group; received halo
 * values land directly in that slot range of x, so nothing is unpacked. Coefficients and x are pure
 * functions of global indices, so every decomposition assembles the same global matrix. */
#include <stdlib.h>
#include <string.h>

#include "hp_memory.h"
#include "spmv.h"

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double unit(uint64_t key) { return (double)(mix(key) >> 11) * 0x1.0p-53; }

/* constant: 26 on the diagonal, -1 elsewhere (a Laplacian-like operator whose row sums are known);
 * varying: a diagonally dominant matrix with entries that differ from row to row. */
double spmv_coefficient(const spmv_params *p, long row, long col, int diagonal)
{
    if (p->constant) return diagonal ? 26.0 : -1.0;
    if (diagonal) return 30.0 + unit((uint64_t)row * 2654435761u);
    return -(0.5 + unit((uint64_t)row * 0x100000001b3ULL ^ (uint64_t)col));
}

double spmv_x(const spmv_params *p, long global_index)
{
    return p->constant ? 1.0 : 1.0 + 0.25 * unit((uint64_t)global_index + 12345);
}

static long global_index(const spmv_grid *g, long gx, long gy, long gz)
{
    return gx + g->global[0] * (gy + g->global[1] * gz);
}

/* The points a brick shares with its neighbour in direction `off`, as a box [lo, hi) in brick
 * coordinates: on this side of the face (send = 1) or just beyond it (send = 0, the ghost layer). */
static void shared_box(const spmv_grid *g, const int off[3], int send, int lo[3], int hi[3])
{
    for (int d = 0; d < 3; d++) {
        if (off[d] == 0) {
            lo[d] = 0;
            hi[d] = g->block[d];
        } else if (off[d] < 0) {
            lo[d] = send ? 0 : -1;
            hi[d] = lo[d] + 1;
        } else {
            lo[d] = send ? g->block[d] - 1 : g->block[d];
            hi[d] = lo[d] + 1;
        }
    }
}

static long box_points(const int lo[3], const int hi[3])
{
    return (long)(hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
}

/* The halo of a brick: its neighbours, the points each needs, and (slot_of_dir, when asked for) which
 * neighbour slot serves each direction. */
void spmv_halo_layout(const spmv_grid *g, spmv_halo *h, int slot_of_dir[SPMV_NEIGHBOURS])
{
    memset(h, 0, sizeof *h);
    long ghosts = 0;
    for (int dir = 0; dir < SPMV_NEIGHBOURS; dir++) {
        if (slot_of_dir) slot_of_dir[dir] = -1;
        if (g->neighbour[dir] < 0) continue;
        int off[3], lo[3], hi[3], k = h->count++;
        spmv_direction(dir, off);
        shared_box(g, off, 1, lo, hi);
        h->rank[k] = g->neighbour[dir];
        h->dir[k] = dir;
        h->send_points[k] = (int)box_points(lo, hi);
        h->send_index[k] = malloc((size_t)h->send_points[k] * sizeof(int));
        int m = 0;
        for (int z = lo[2]; z < hi[2]; z++)
            for (int y = lo[1]; y < hi[1]; y++)
                for (int x = lo[0]; x < hi[0]; x++) h->send_index[k][m++] = x + g->block[0] * (y + g->block[1] * z);
        h->recv_offset[k] = ghosts; /* the neighbour sends the same box, seen from its side */
        if (slot_of_dir) slot_of_dir[dir] = k;
        ghosts += h->send_points[k];
        h->send_total += h->send_points[k];
    }
    h->sendbuf = malloc(((size_t)h->send_total + 1) * sizeof(double));
}

/* Nonzeros of the brick's rows without assembling them: the stencil is a product of three 1-D
 * three-point stencils cut at the domain's faces, so the count is the product of the 1-D counts. */
long spmv_brick_nnz(const spmv_grid *g)
{
    long nnz = 1;
    for (int d = 0; d < 3; d++)
        nnz *= 3L * g->block[d] - (g->offset[d] == 0) - (g->offset[d] + g->block[d] == g->global[d]);
    return nnz;
}

/* Local column of the point at brick coordinates c (which may lie in a ghost layer). */
static int32_t local_column(const spmv_grid *g, const spmv_halo *h, const int slot_of_dir[SPMV_NEIGHBOURS], long rows,
                            const int c[3])
{
    int off[3], inside = 1;
    for (int d = 0; d < 3; d++) {
        off[d] = c[d] < 0 ? -1 : c[d] >= g->block[d] ? 1 : 0;
        inside &= off[d] == 0;
    }
    if (inside) return (int32_t)(c[0] + g->block[0] * (c[1] + g->block[1] * c[2]));
    const int k_index = (off[0] + 1) + 3 * (off[1] + 1) + 9 * (off[2] + 1);
    const int dir = k_index < 13 ? k_index : k_index - 1;
    const int slot = slot_of_dir[dir];
    int lo[3], hi[3];
    shared_box(g, off, 0, lo, hi);
    const long within =
        (c[0] - lo[0]) + (long)(hi[0] - lo[0]) * ((c[1] - lo[1]) + (long)(hi[1] - lo[1]) * (c[2] - lo[2]));
    return (int32_t)(rows + h->recv_offset[slot] + within);
}

void spmv_assemble(const spmv_params *p, const spmv_grid *g, spmv_matrix *m, spmv_halo *h)
{
    const long rows = (long)g->block[0] * g->block[1] * g->block[2];
    int slot_of_dir[SPMV_NEIGHBOURS];
    spmv_halo_layout(g, h, slot_of_dir);
    m->rows = rows;
    m->ghosts = h->send_total;
    m->row_start = hp_alloc_large(((size_t)rows + 1) * sizeof *m->row_start);
    m->col = hp_alloc_large((size_t)rows * 27 * sizeof *m->col);
    m->val = hp_alloc_large((size_t)rows * 27 * sizeof *m->val);
    long nnz = 0;
    for (int z = 0; z < g->block[2]; z++)
        for (int y = 0; y < g->block[1]; y++)
            for (int x = 0; x < g->block[0]; x++) {
                const long row = x + g->block[0] * ((long)y + g->block[1] * z);
                const long gx = g->offset[0] + x, gy = g->offset[1] + y, gz = g->offset[2] + z;
                const long grow = global_index(g, gx, gy, gz);
                m->row_start[row] = nnz;
                for (int dz = -1; dz <= 1; dz++)
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++) {
                            const long nx = gx + dx, ny = gy + dy, nz = gz + dz;
                            if (nx < 0 || ny < 0 || nz < 0 || nx >= g->global[0] || ny >= g->global[1] ||
                                nz >= g->global[2])
                                continue;
                            const int c[3] = {x + dx, y + dy, z + dz};
                            m->col[nnz] = local_column(g, h, slot_of_dir, rows, c);
                            m->val[nnz] =
                                spmv_coefficient(p, grow, global_index(g, nx, ny, nz), dx == 0 && dy == 0 && dz == 0);
                            nnz++;
                        }
            }
    m->row_start[rows] = nnz;
    m->nnz = nnz;
}

void spmv_matrix_free(spmv_matrix *m)
{
    free(m->row_start);
    free(m->col);
    free(m->val);
}
