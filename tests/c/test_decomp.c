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
    return CHECK_DONE();
}
