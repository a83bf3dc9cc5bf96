/* A rank-imbalanced loop whose MPI load balance is known in closed form: in each of ROUNDS rounds rank r
 * works (r + 1) x UNIT seconds, then all ranks meet in an Allreduce. Rank r's time outside MPI is
 * (r + 1) x UNIT x ROUNDS, so for N ranks mean / max = ((N + 1) / 2) / N = (N + 1) / (2N). Rank 0 prints
 * the loop's time and `late`: the most seconds any rank spent outside MPI beyond the work it asked for, by
 * its own clock (spin.h).
 *
 *     rank_imbalance ROUNDS UNIT */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "spin.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int rounds = atoi(argv[1]);
    const double unit = atof(argv[2]);
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = now();
    double late = 0.0, latest, left_mpi = start;
    for (int k = 0; k < rounds; k++) {
        spin((rank + 1) * unit);
        late += now() - left_mpi - (rank + 1) * unit;
        MPI_Allreduce(&late, &latest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        left_mpi = now();
    }
    if (rank == 0) printf("time %.6f late %.6f\n", now() - start, latest);
    MPI_Finalize();
    return 0;
}
