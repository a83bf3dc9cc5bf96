/* Checks of the product, computed without the CSR matrix or the halo.
 *
 * Reference: each rank recomputes its rows from the global definition (coefficients and x are
 * functions of global indices), summing the stencil in the same order as the assembled row, so a
 * correct distributed product matches it to the last bit whatever the decomposition; any wrong
 * column, ghost slot or missing message shows up. Analytic: with constant coefficients (26 on the
 * diagonal, -1 off it) and x = 1, a row's result is 27 minus its entry count: 0 in the interior,
 * 9 on a face, 15 on an edge, 19 at a corner (for grids wider than one point). */
#include <math.h>

#include "spmv.h"

static long axis_neighbours(long g, long size) { return size == 1 ? 1 : (g == 0 || g == size - 1) ? 2 : 3; }

double spmv_analytic_error(const spmv_params *p, const spmv_grid *g, const double *y)
{
    (void)p;
    double worst = 0.0;
    for (int z = 0; z < g->block[2]; z++)
        for (int yy = 0; yy < g->block[1]; yy++)
            for (int x = 0; x < g->block[0]; x++) {
                long entries = axis_neighbours(g->offset[0] + x, g->global[0]) *
                               axis_neighbours(g->offset[1] + yy, g->global[1]) *
                               axis_neighbours(g->offset[2] + z, g->global[2]);
                double expected = 27.0 - (double)entries;
                double e = fabs(y[x + g->block[0] * ((long)yy + g->block[1] * z)] - expected);
                if (e > worst) worst = e;
            }
    return worst;
}

static double reference_row(const spmv_params *p, const spmv_grid *g, long gx, long gy, long gz)
{
    const long row = gx + g->global[0] * (gy + g->global[1] * gz);
    double sum = 0.0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                const long nx = gx + dx, ny = gy + dy, nz = gz + dz;
                if (nx < 0 || ny < 0 || nz < 0 || nx >= g->global[0] || ny >= g->global[1] || nz >= g->global[2])
                    continue;
                const long col = nx + g->global[0] * (ny + g->global[1] * nz);
                sum += spmv_coefficient(p, row, col, dx == 0 && dy == 0 && dz == 0) * spmv_x(p, col);
            }
    return sum;
}

double spmv_serial_error(hp_comm *c, const spmv_params *p, const spmv_grid *g, const double *y, MPI_Comm comm)
{
    double worst = 0.0;
#pragma omp parallel for collapse(2) schedule(static) reduction(max : worst)
    for (int z = 0; z < g->block[2]; z++)
        for (int yy = 0; yy < g->block[1]; yy++)
            for (int x = 0; x < g->block[0]; x++) {
                double ref = reference_row(p, g, g->offset[0] + x, g->offset[1] + yy, g->offset[2] + z);
                double e = fabs(y[x + g->block[0] * ((long)yy + g->block[1] * z)] - ref) / fmax(fabs(ref), 1.0);
                if (e > worst) worst = e;
            }
    double global;
    hp_allreduce(c, &worst, &global, 1, MPI_DOUBLE, MPI_MAX, comm);
    return global;
}
