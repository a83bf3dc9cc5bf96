/* A halo exchange on a ring, in every form libhybridperf-mpi.so must count (tests/test_pmpi.py knows
 * the exact counts): per step a Sendrecv each way round, then Isend/Irecv to both neighbours and one
 * Waitall, then an Allreduce; a persistent exchange started K times; an in-place Allgather, an
 * Alltoall, a non-blocking Iallreduce with its Wait, and a final Barrier.
 *
 *     halo STEPS N K      (N doubles per halo message, K persistent rounds)
 *
 * Statuses are real arrays, not MPI_STATUSES_IGNORE, which GCC 12 misreads in MPICH's header. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int steps = atoi(argv[1]), n = atoi(argv[2]), rounds = atoi(argv[3]);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double *out = calloc((size_t)n, sizeof *out), *in = calloc(2 * (size_t)n, sizeof *in), sum = 0.0;
    for (int step = 0; step < steps; step++) {
        MPI_Sendrecv(out, n, MPI_DOUBLE, right, 1, in, n, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Request reqs[4];
        MPI_Status statuses[4];
        MPI_Irecv(in, n, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(in + n, n, MPI_DOUBLE, right, 3, MPI_COMM_WORLD, &reqs[1]);
        MPI_Isend(out, n, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &reqs[2]);
        MPI_Isend(out, n, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &reqs[3]);
        MPI_Waitall(4, reqs, statuses);
        double local = in[0] + 1.0;
        MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    int small_out[7] = {0}, small_in[7];
    MPI_Request persistent[2];
    MPI_Status statuses[2];
    MPI_Recv_init(small_in, 7, MPI_INT, left, 4, MPI_COMM_WORLD, &persistent[0]);
    MPI_Send_init(small_out, 7, MPI_INT, right, 4, MPI_COMM_WORLD, &persistent[1]);
    for (int k = 0; k < rounds; k++) {
        MPI_Startall(2, persistent);
        MPI_Waitall(2, persistent, statuses);
    }
    MPI_Request_free(&persistent[0]);
    MPI_Request_free(&persistent[1]);

    int *gathered = calloc(2 * (size_t)size, sizeof *gathered), *spread = calloc((size_t)size, sizeof *spread);
    int *back = calloc((size_t)size, sizeof *back);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, gathered, 2, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoall(spread, 1, MPI_INT, back, 1, MPI_INT, MPI_COMM_WORLD);
    double three[3] = {1, 2, 3}, total[3];
    MPI_Request nb;
    MPI_Iallreduce(three, total, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &nb);
    MPI_Wait(&nb, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("halo done: %g %g\n", sum, total[0]);
    free(out), free(in), free(gathered), free(spread), free(back);
    MPI_Finalize();
    return 0;
}
