/* MPI_THREAD_MULTIPLE: every OpenMP thread of every rank exchanges ROUNDS messages of its own with
 * the same thread of the next rank (tag = thread), concurrently; the library's per-thread counters
 * must add up to exactly threads x ROUNDS sends per rank.
 *
 *     threads ROUNDS      (OMP_NUM_THREADS threads) */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "threads: MPI_THREAD_MULTIPLE not provided\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int rounds = atoi(argv[1]);
#pragma omp parallel
    {
        const int tag = omp_get_thread_num();
        double out[16] = {0}, in[16];
        for (int k = 0; k < rounds; k++)
            MPI_Sendrecv(out, 16, MPI_DOUBLE, (rank + 1) % size, tag, in, 16, MPI_DOUBLE, (rank + size - 1) % size,
                         tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
