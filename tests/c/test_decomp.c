/* Decomposition arithmetic: faces shared bit for bit, whole box covered, grid and width checks. */
#include <string.h>

#include "check.h"
#include "hp_decomp.h"

int main(void)
{
    /* Adjacent bricks share a face exactly and the outer faces are the box's. */
    const double lo = -1.25, len = 33.591924;
    for (int dims = 1; dims <= 13; dims++) {
        CHECK(hp_decomp_face(lo, len, 0, dims) == lo);
        CHECK(hp_decomp_face(lo, len, dims, dims) == lo + len);
        for (int c = 0; c < dims; c++) CHECK(hp_decomp_face(lo, len, c, dims) < hp_decomp_face(lo, len, c + 1, dims));
    }

    char err[256];
    const double box[3] = {12.0, 12.0, 6.0};
    int ok_grid[3] = {2, 2, 1};
    CHECK(hp_decomp_check(ok_grid, 4, box, 2.8, err, sizeof err) == 0);

    int wrong_count[3] = {3, 1, 1};
    CHECK(hp_decomp_check(wrong_count, 2, box, 2.8, err, sizeof err) == -1);
    CHECK(strcmp(err, "--grid 3 1 1 needs 3 ranks, got 2") == 0);

    int too_thin[3] = {1, 1, 3}; /* 6 / 3 = 2 < 2.8 */
    CHECK(hp_decomp_check(too_thin, 3, box, 2.8, err, sizeof err) == -1);
    CHECK(strstr(err, "wide in z") != NULL);
    CHECK(strstr(err, "at most 4 x 4 x 2 ranks") != NULL);

    /* Ranks placed without MPI: row-major, periodic neighbours that point back, bricks tiling the box. */
    const int dims[3] = {3, 2, 4};
    const double origin[3] = {0.0, 0.0, 0.0};
    double volume = 0.0;
    for (int r = 0; r < 24; r++) {
        hp_decomp d;
        hp_decomp_place(&d, dims, r, origin, box);
        CHECK(r == (d.coords[0] * 2 + d.coords[1]) * 4 + d.coords[2]);
        for (int k = 0; k < 3; k++)
            for (int side = 0; side < 2; side++) {
                hp_decomp next;
                hp_decomp_place(&next, dims, d.neighbor[k][side], origin, box);
                CHECK(next.neighbor[k][1 - side] == r);
                CHECK(next.coords[k] == (d.coords[k] + (side ? 1 : dims[k] - 1)) % dims[k]);
            }
        volume += (d.hi[0] - d.lo[0]) * (d.hi[1] - d.lo[1]) * (d.hi[2] - d.lo[2]);
    }
    CHECK(volume > 864.0 - 1e-9 && volume < 864.0 + 1e-9);
    return CHECK_DONE();
}
