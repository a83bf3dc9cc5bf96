/* The threads' idle time in parallel regions; see hp_omp_idle.h. */
#include "hp_omp_idle.h"

#include <stdlib.h>

void hp_omp_idle_init(hp_omp_idle *o)
{
    *o = (hp_omp_idle){0};
    o->slot = aligned_alloc(64, (size_t)omp_get_max_threads() * sizeof *o->slot);
}

void hp_omp_idle_free(hp_omp_idle *o)
{
    free(o->slot);
    o->slot = NULL;
}

/* An execution an `if` clause gave a team of one, on a rank with more threads, is not a parallel region for POP: the
 * other threads idle through it as through any serial code, so it is left out of the regions' time (and so counts
 * in the serialization). */
void hp_omp_idle_end(hp_omp_idle *o)
{
    if (o->enabled && (o->team > 1 || omp_get_max_threads() == 1)) hp_omp_idle_add(o, hp_now() - o->started);
}

void hp_omp_idle_add(hp_omp_idle *o, double seconds)
{
    double sum = 0.0, slowest = 0.0;
    for (int k = 0; k < o->team; k++) {
        sum += o->slot[k].busy;
        if (o->slot[k].busy > slowest) slowest = o->slot[k].busy;
    }
    const double mean = sum / o->team;
    o->regions += seconds;
    o->imbalance += slowest > mean ? slowest - mean : 0.0; /* one thread: exactly 0 */
    o->scheduling += seconds > slowest ? seconds - slowest : 0.0;
}

double *hp_omp_idle_gather(hp_comm *c, const hp_omp_idle *o, MPI_Comm comm)
{
    int rank, ranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    const double mine[4] = {o->regions, o->imbalance, o->scheduling, 0.0};
    double *all = rank == 0 ? malloc(4 * (size_t)ranks * sizeof *all) : NULL;
    hp_gather(c, mine, 4, MPI_DOUBLE, all, 0, comm);
    return all;
}
