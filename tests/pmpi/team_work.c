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
 * Rank 0 prints the loop's time and `late`, the most seconds by which any rank's rounds outlasted what they
 * asked: its serial work's overrun past its deadline, and per region the latest thread's start after the
 * region opened plus its overrun (spin.h).
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
    int threads = 0;
    double late = 0.0, latest;
    for (int k = 0; k < rounds; k++) {
        late += spin(serial);
        const double opened = now();
        double region_late = 0.0;
#pragma omp parallel reduction(max : region_late)
        {
            const double begun = now();
            region_late = begun - opened + spin(unit * (1.0 + skew * omp_get_thread_num()));
#pragma omp master
            threads = omp_get_num_threads();
        }
        late += region_late;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Reduce(&late, &latest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("threads %d time %.6f late %.6f\n", threads, now() - start, latest);
    MPI_Finalize();
    return 0;
}
