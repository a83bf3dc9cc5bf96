/* OpenMP parallel regions between MPI calls, for the library's OMPT tool: region "A" runs ROUNDS
 * times, region "B" once, each with the OMP_NUM_THREADS threads; an Allreduce after each round.
 *
 *     regions ROUNDS */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static double work(int n)
{
    double s = 0.0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < n; i++) s += 1.0 / (1.0 + i);
    return s;
}

static int team(void)
{
    int threads = 0;
#pragma omp parallel
#pragma omp single
    threads = omp_get_num_threads();
    return threads;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    const int rounds = atoi(argv[1]);
    double total = 0.0, sum;
    for (int k = 0; k < rounds; k++) {
        total += work(100000);
        MPI_Allreduce(&total, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    printf("threads %d sum %g\n", team(), sum);
    MPI_Finalize();
    return 0;
}
