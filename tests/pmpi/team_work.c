/* OpenMP work whose idle time is known in closed form, for the two OpenMP factors it tests: in each of ROUNDS
 * rounds the master works SERIAL seconds alone, then thread t of the M threads of a parallel region works
 * UNIT x (1 + SKEW x t) seconds, then the ranks meet in a Barrier. The region lasts as long as its busiest
 * thread, R = UNIT x (1 + SKEW x (M - 1)); outside MPI a rank spends SERIAL + R per round, in which M - 1
 * threads idle SERIAL seconds and, in the region, the threads idle max - mean of their busy times. So
 *
 *   SKEW = 0, a serial section between balanced regions: serialization = (SERIAL / M + UNIT) / (SERIAL + UNIT),
 *             load balance 1;
 *   SERIAL = 0, SKEW = 1, thread t works (t + 1) x UNIT: load balance = mean / max = (M + 1) / (2M),
 *             serialization 1.
 *
 * Rank 0 prints the loop's time and `late`: the most seconds any rank spent outside MPI beyond SERIAL + R per
 * round, by its own clock (spin.h).
 *
 *     team_work ROUNDS SERIAL UNIT SKEW */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "spin.h"

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int rounds = atoi(argv[1]);
    const double serial = atof(argv[2]), unit = atof(argv[3]), skew = atof(argv[4]);
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = now();
    int threads = 1;
    double late = 0.0, latest, left_mpi = start;
    for (int k = 0; k < rounds; k++) {
        spin(serial);
#pragma omp parallel
        {
            spin(unit * (1.0 + skew * omp_get_thread_num()));
#pragma omp master
            threads = omp_get_num_threads();
        }
        late += now() - left_mpi - serial - unit * (1.0 + skew * (threads - 1));
        MPI_Barrier(MPI_COMM_WORLD);
        left_mpi = now();
    }
    MPI_Reduce(&late, &latest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("threads %d time %.6f late %.6f\n", threads, now() - start, latest);
    MPI_Finalize();
    return 0;
}
