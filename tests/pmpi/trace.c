/* A program whose every MPI call is known, for the traces (tests/test_pmpi_trace.py): per step, a ring
 * exchange by Irecv + Isend + two Waits (N doubles), a Sendrecv (N doubles), a receive from
 * MPI_ANY_SOURCE on rank 0 of one int from every other rank (blocking, then non-blocking completed by a
 * Waitall with MPI_STATUSES_IGNORE), a Bcast, an Allreduce, a Reduce, an Alltoall, a Gather, an Allgather,
 * a Gatherv, an Allgatherv and a Barrier on MPI_COMM_WORLD; a Barrier and an Allreduce on a duplicate of
 * it (the world's group: traced); and one Allreduce on a communicator of each rank alone (not the world's
 * group: untraced). Between steps a busy loop of about SPIN seconds.
 *
 *     trace STEPS N SPIN */
#include <mpi.h>
#include <stdlib.h>

static void spin(double seconds)
{
    double until = MPI_Wtime() + seconds;
    while (MPI_Wtime() < until) {
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int steps = atoi(argv[1]), n = atoi(argv[2]);
    const double pause = atof(argv[3]);
    double *out = calloc((size_t)n, sizeof *out), *in = calloc((size_t)n, sizeof *in);
    int *all = calloc((size_t)size, sizeof *all), *counts = calloc((size_t)size, sizeof *counts);
    int *displs = calloc((size_t)size, sizeof *displs);
    for (int r = 0; r < size; r++) counts[r] = 1, displs[r] = r;
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Comm dup, alone;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &alone);
    for (int step = 0; step < steps; step++) {
        spin(pause);
        MPI_Request ring[2];
        MPI_Irecv(in, n, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &ring[0]);
        MPI_Isend(out, n, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &ring[1]);
        MPI_Wait(&ring[1], MPI_STATUS_IGNORE);
        MPI_Wait(&ring[0], MPI_STATUS_IGNORE);
        MPI_Sendrecv(out, n, MPI_DOUBLE, right, 2, in, n, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int word = rank, got;
        MPI_Status status;
        if (rank == 0) {
            for (int r = 1; r < size; r++) MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &status);
            MPI_Request *any = malloc((size_t)size * sizeof *any);
            for (int r = 0; r < size - 1; r++)
                MPI_Irecv(&all[r], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &any[r]);
            MPI_Waitall(size - 1, any, MPI_STATUSES_IGNORE);
            free(any);
        } else {
            MPI_Send(&word, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
            MPI_Send(&word, 1, MPI_INT, 0, 4, MPI_COMM_WORLD);
        }
        double x = rank, sum;
        MPI_Bcast(&word, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Reduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Alltoall(counts, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
        MPI_Gather(&word, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Allgather(&word, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
        MPI_Gatherv(&word, 1, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Allgatherv(&word, 1, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Barrier(dup);
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, dup);
    }
    double x = rank, sum;
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, alone);
    MPI_Comm_free(&alone);
    MPI_Comm_free(&dup);
    free(out), free(in), free(all), free(counts), free(displs);
    MPI_Finalize();
    return 0;
}
