/* MPC's alternating benchmark (Carribault, Pérache & Jourdren, IWOMP 2010, Fig. 8): what waiting
 * MPI ranks cost an OpenMP region.
 *
 * The region is independent computation: each thread runs a dependent chain of --region-work
 * multiply-adds from its own seed (no memory traffic, no shared data), so its time changes only
 * when the threads lose their cores. Three phases of --region-reps regions each, rank 0 timing
 * every region it runs:
 *   baseline  rank 0 runs the region while every other rank is asleep: it waits for a release
 *             message by MPI_Test every millisecond and nanosleep in between, so it takes no core
 *             (a few microseconds of CPU per millisecond). This is "the same region with no MPI
 *             ranks waiting", defined so that it needs no change of MPI settings and runs on any
 *             placement the other phases run on.
 *   waiting   (Fig. 8a) rank 0 runs the region while the other ranks wait in MPI_Barrier, as they
 *             would at the end of an alternating program's MPI phase. A library whose barrier
 *             busy-polls keeps their cores busy; when those cores are the ones rank 0's threads
 *             need (ranks x threads > cores, or a loose binding) the region slows down.
 *   busy      (Fig. 8b) every rank's master opens the region at the same time, then all meet in a
 *             barrier: the regions compete for the cores with each other rather than with waiters.
 * The slowdowns reported are the mean region time of a phase over the baseline's; (b) also gives
 * the spread of every rank's mean. The barriers of (a) and (b) are counted, the baseline's release
 * messages are not. Every region's result is checked against the same chains summed serially. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <time.h>

#include "mixbench.h"

enum { ROOT = 0, RELEASE_TAG = 7 };

static double chain(int work, int t)
{
    double x = 1.0 + 0.001 * t;
    for (int i = 0; i < work; i++) x = x * 0.9999999 + 1e-7 * t;
    return x;
}

static double region(int work, int threads)
{
    double sum = 0.0;
#pragma omp parallel num_threads(threads) reduction(+ : sum)
    sum += chain(work, omp_get_thread_num());
    return sum;
}

typedef struct {
    double total, min;
    long long wrong;
} phase;

static void timed_region(const mb_state *s, double expected, phase *ph, int rep)
{
    const double t0 = hp_now();
    const double sum = region(s->p.region_work, s->threads);
    const double dt = hp_now() - t0;
    ph->total += dt;
    if (rep == 0 || dt < ph->min) ph->min = dt;
    ph->wrong += !(fabs(sum - expected) <= 1e-12 * fabs(expected));
}

static void sleep_until_released(mb_state *s)
{
    char token;
    MPI_Request req;
    const struct timespec millisecond = {0, 1000000};
    hp_irecv(&s->comm, &token, 0, MPI_BYTE, ROOT, RELEASE_TAG, s->run->world, &req);
    while (!hp_test(&s->comm, &req)) nanosleep(&millisecond, NULL);
}

void mb_alternating_run(mb_state *s)
{
    const int reps = s->p.region_reps;
    const int root = s->rank == ROOT;
    double expected = 0.0;
    for (int t = 0; t < s->threads; t++) expected += chain(s->p.region_work, t);
    phase base = {0, 0, 0}, waiting = {0, 0, 0}, busy = {0, 0, 0};
    region(s->p.region_work, s->threads); /* untimed: the first region starts the thread pool */

    mb_sync(s);
    if (root) {
        for (int rep = 0; rep < reps; rep++) timed_region(s, expected, &base, rep);
        for (int r = 0; r < s->nranks; r++)
            if (r != ROOT) hp_send(&s->comm, NULL, 0, MPI_BYTE, r, RELEASE_TAG, s->run->world);
    } else {
        sleep_until_released(s);
    }

    mb_sync(s);
    const long long barriers_before = s->comm.cls[HP_BARRIER].calls;
    hp_comm_count(&s->comm, 1);
    for (int rep = 0; rep < reps; rep++) {
        hp_barrier(&s->comm, s->run->world);
        if (root) timed_region(s, expected, &waiting, rep);
        hp_barrier(&s->comm, s->run->world);
    }
    for (int rep = 0; rep < reps; rep++) {
        hp_barrier(&s->comm, s->run->world);
        timed_region(s, expected, &busy, rep);
        hp_barrier(&s->comm, s->run->world);
    }
    hp_comm_count(&s->comm, 0);

    mb_alternating *a = &s->alt;
    a->ran = 1;
    a->root = ROOT;
    a->reps = reps;
    a->work = s->p.region_work;
    a->threads = s->threads;
    a->barriers = s->comm.cls[HP_BARRIER].calls - barriers_before;
    a->baseline = base.total / reps;
    a->waiting = waiting.total / reps;
    a->busy = busy.total / reps;
    a->baseline_min = base.min;
    a->waiting_min = waiting.min;
    a->busy_min = busy.min;
    a->busy_ranks = hp_stat_across(&s->comm, busy.total / reps, s->run->world);
    long long wrong = base.wrong + waiting.wrong + busy.wrong;
    hp_allreduce(&s->comm, &wrong, &a->wrong_sums, 1, MPI_LONG_LONG, MPI_SUM, s->run->world);
}
