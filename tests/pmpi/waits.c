/* Waits are counted in the class of the request they complete, time included: rank 0 enters an
 * Ibarrier PAUSE seconds late, so every other rank's Wait on its Ibarrier is barrier time of at least
 * PAUSE; then an Iallreduce completed by Waitany (collective), an Isend/Irecv pair completed by two
 * Waitany calls (point-to-point), and an Ibcast completed by Waitsome (collective): every count exact.
 *
 *     waits PAUSE */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

static void pause_for(double seconds)
{
    struct timespec t = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
    nanosleep(&t, NULL);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Request req;
    if (rank == 0) pause_for(atof(argv[1]));
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);

    double x = rank, y;
    int index;
    MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &req);
    MPI_Waitany(1, &req, &index, MPI_STATUS_IGNORE);

    int out = rank, in = -1, outcount, first;
    MPI_Request pair[2];
    MPI_Irecv(&in, 1, MPI_INT, (rank + size - 1) % size, 5, MPI_COMM_WORLD, &pair[0]);
    MPI_Isend(&out, 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD, &pair[1]);
    MPI_Waitany(2, pair, &index, MPI_STATUS_IGNORE);
    MPI_Waitany(2, pair, &index, MPI_STATUS_IGNORE);

    long long word = 42;
    MPI_Ibcast(&word, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD, &req);
    MPI_Status status;
    MPI_Waitsome(1, &req, &outcount, &first, &status);
    MPI_Finalize();
    return 0;
}
