/* One-sided traffic: in one fence epoch each rank puts 8 ints to the next rank, gets 4 from it and
 * accumulates 2 into it; then a passive-target lock, a put of 1 int and an unlock.
 *
 *     one_sided */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, window[16] = {0}, mine[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int next = (rank + 1) % size;
    MPI_Win win;
    MPI_Win_create(window, sizeof window, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Put(mine, 8, MPI_INT, next, 0, 8, MPI_INT, win);
    MPI_Get(mine, 4, MPI_INT, next, 8, 4, MPI_INT, win);
    MPI_Accumulate(mine + 4, 2, MPI_INT, next, 12, 2, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win);
    MPI_Put(mine, 1, MPI_INT, next, 15, 1, MPI_INT, win);
    MPI_Win_unlock(next, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
