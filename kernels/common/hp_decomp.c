/* 3-D decomposition; see hp_decomp.h. */
#include "hp_decomp.h"

#include <math.h>
#include <stdio.h>

static const char axis[3] = {'x', 'y', 'z'};

double hp_decomp_face(double box_lo, double box_len, int c, int dims)
{
    if (c <= 0) return box_lo;
    if (c >= dims) return box_lo + box_len;
    return box_lo + box_len * (double)c / (double)dims;
}

int hp_decomp_check(const int dims[3], int nranks, const double box_len[3], double min_width, char *err, size_t errlen)
{
    long product = (long)dims[0] * dims[1] * dims[2];
    if (product != nranks) {
        snprintf(err, errlen, "--grid %d %d %d needs %ld ranks, got %d", dims[0], dims[1], dims[2], product, nranks);
        return -1;
    }
    for (int d = 0; d < 3; d++) {
        double width = box_len[d] / dims[d];
        if (width < min_width) {
            int most[3];
            for (int k = 0; k < 3; k++) {
                most[k] = (int)floor(box_len[k] / min_width);
                if (most[k] < 1) most[k] = 1;
            }
            snprintf(err, errlen,
                     "subdomain is %.4g wide in %c (box %.4g over %d ranks), thinner than cutoff + skin = %.4g; "
                     "this box allows at most %d x %d x %d ranks, or use a larger system",
                     width, axis[d], box_len[d], dims[d], min_width, most[0], most[1], most[2]);
            return -1;
        }
    }
    return 0;
}

int hp_decomp_dims(const int grid[3], int nranks, int dims[3], char *err, size_t errlen)
{
    int fixed = 1, free_dims = 0;
    for (int k = 0; k < 3; k++) {
        dims[k] = grid[k];
        if (grid[k] > 0)
            fixed *= grid[k];
        else
            free_dims++;
    }
    if (!free_dims) return 0;
    if (nranks % fixed != 0) {
        snprintf(err, errlen, "--grid %d %d %d cannot divide %d ranks", grid[0], grid[1], grid[2], nranks);
        return -1;
    }
    MPI_Dims_create(nranks, 3, dims);
    return 0;
}

/* The box and this rank's brick in it, from dims and coords. */
static void set_brick(hp_decomp *d, const double box_lo[3], const double box_len[3])
{
    for (int k = 0; k < 3; k++) {
        d->box_lo[k] = box_lo[k];
        d->box_len[k] = box_len[k];
        d->lo[k] = hp_decomp_face(box_lo[k], box_len[k], d->coords[k], d->dims[k]);
        d->hi[k] = hp_decomp_face(box_lo[k], box_len[k], d->coords[k] + 1, d->dims[k]);
    }
}

int hp_decomp_create(hp_decomp *d, MPI_Comm world, const int grid[3], const double box_lo[3], const double box_len[3],
                     double min_width, char *err, size_t errlen)
{
    int nranks;
    MPI_Comm_size(world, &nranks);
    d->cart = MPI_COMM_NULL;
    if (hp_decomp_dims(grid, nranks, d->dims, err, errlen)) return -1;
    if (hp_decomp_check(d->dims, nranks, box_len, min_width, err, errlen)) return -1;

    const int periodic[3] = {1, 1, 1};
    int rank;
    MPI_Cart_create(world, 3, d->dims, periodic, 0, &d->cart);
    MPI_Comm_rank(d->cart, &rank);
    MPI_Cart_coords(d->cart, rank, 3, d->coords);
    for (int k = 0; k < 3; k++) MPI_Cart_shift(d->cart, k, 1, &d->neighbor[k][0], &d->neighbor[k][1]);
    set_brick(d, box_lo, box_len);
    return 0;
}

static int row_major(const int dims[3], const int coords[3])
{
    return (coords[0] * dims[1] + coords[1]) * dims[2] + coords[2];
}

void hp_decomp_place(hp_decomp *d, const int dims[3], int rank, const double box_lo[3], const double box_len[3])
{
    d->cart = MPI_COMM_NULL;
    for (int k = 0, rest = rank; k < 3; k++) {
        d->dims[k] = dims[k];
        int below = 1; /* ranks per step of coordinate k */
        for (int j = k + 1; j < 3; j++) below *= dims[j];
        d->coords[k] = rest / below;
        rest %= below;
    }
    for (int k = 0; k < 3; k++)
        for (int side = 0; side < 2; side++) {
            int c[3] = {d->coords[0], d->coords[1], d->coords[2]};
            c[k] = (c[k] + (side ? 1 : dims[k] - 1)) % dims[k];
            d->neighbor[k][side] = row_major(dims, c);
        }
    set_brick(d, box_lo, box_len);
}

void hp_decomp_free(hp_decomp *d)
{
    if (d->cart != MPI_COMM_NULL) MPI_Comm_free(&d->cart);
}
