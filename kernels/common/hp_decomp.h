/* 3-D Cartesian domain decomposition of a periodic orthogonal box.
 *
 * Ranks form a periodic X x Y x Z grid, chosen "as equal as possible" by MPI_Dims_create (which
 * reproduces the thesis's Table 4.2 grids) or given explicitly. Every rank owns one brick and knows
 * its two neighbours per dimension; halo exchanges then need only those six ranks. The arithmetic
 * is kept free of MPI so it can be tested alone and so error messages can be computed on any rank. */
#ifndef HP_DECOMP_H
#define HP_DECOMP_H

#include <mpi.h>
#include <stddef.h>

typedef struct {
    int dims[3], coords[3];
    int neighbor[3][2]; /* [dimension][0 = lower, 1 = upper], periodic */
    double box_lo[3], box_len[3];
    double lo[3], hi[3]; /* this rank's brick: lo <= x < hi */
    MPI_Comm cart;
} hp_decomp;

/* Position of the face between bricks c-1 and c along one dimension. Both neighbours evaluate this
 * one expression, so the face is bit-identical on either side and no atom is owned twice. */
double hp_decomp_face(double box_lo, double box_len, int c, int dims);
/* Checks a complete grid against the rank count and the minimum brick width; 0 or -1 with err. */
int hp_decomp_check(const int dims[3], int nranks, const double box_len[3], double min_width, char *err, size_t errlen);
/* The grid a run on nranks uses: grid entries of 0 chosen by MPI_Dims_create, the others kept. Needs
 * MPI initialised (a singleton is enough); 0, or -1 with err when the fixed entries cannot divide nranks. */
int hp_decomp_dims(const int grid[3], int nranks, int dims[3], char *err, size_t errlen);
/* Rank `rank` of a dims grid without MPI, numbered as MPI_Cart_create numbers ranks when it may not reorder
 * them (row-major, the last dimension fastest): its coordinates, periodic neighbours and brick. cart is
 * MPI_COMM_NULL. Plans of runs on many ranks (hybridperf-md --plan) lay out every rank this way. */
void hp_decomp_place(hp_decomp *d, const int dims[3], int rank, const double box_lo[3], const double box_len[3]);
/* Collective. grid entries of 0 are chosen by MPI_Dims_create. Returns 0, or -1 with err (same
 * verdict on every rank). */
int hp_decomp_create(hp_decomp *d, MPI_Comm world, const int grid[3], const double box_lo[3], const double box_len[3],
                     double min_width, char *err, size_t errlen);
void hp_decomp_free(hp_decomp *d);

#endif
