/* MPI_Allreduce and MPI_Barrier against the number of ranks, in one run.
 *
 * The thesis's collective model (seed-spec §D.1, §D.5: t_allreduce = 2 log p (2 alpha + 2 m beta +
 * gamma m), t_barrier = log p alpha) needs the cost at several p. A run cannot change its size, so
 * the first p ranks of the world form a sub-communicator for each p in 2, 4, 8, ... and the world
 * size itself; the other ranks wait for the next row. Allreduce sums doubles (the MD codes' global
 * sums), so sizes that are not a whole number of doubles are skipped for it. Time per call is each
 * rank's average; the row gives min / avg / max over the ranks taking part, as OSU does. */
#include <stdlib.h>

#include "mixbench.h"

static void allreduce_rows(mb_state *s, MPI_Comm sub, int p, double *in, double *out)
{
    const mb_params *pr = &s->p;
    for (int k = 0; k < pr->nsizes; k++) {
        const int bytes = pr->sizes[k], count = bytes / (int)sizeof(double);
        if (bytes % (int)sizeof(double)) continue;
        const int iterations = mb_iterations(pr, bytes);
        double seconds = 0.0;
        long long errors = 0, calls = 0;
        mb_sync(s);
        const mb_snapshot before = mb_snapshot_take(&s->comm);
        if (sub != MPI_COMM_NULL) {
            for (int i = 0; i < mb_warmup(pr, bytes); i++)
                hp_allreduce(&s->comm, in, out, count, MPI_DOUBLE, MPI_SUM, sub);
            for (int i = 0; i < count; i++) out[i] = 0.0;
            hp_comm_count(&s->comm, 1);
            const double t0 = hp_now();
            for (int i = 0; i < iterations; i++) hp_allreduce(&s->comm, in, out, count, MPI_DOUBLE, MPI_SUM, sub);
            seconds = hp_now() - t0;
            hp_comm_count(&s->comm, 0);
            const double expected = 0.5 * p * (p + 1.0); /* every rank contributes rank + 1 */
            for (int i = 0; i < count; i++) errors += out[i] != expected;
            calls = iterations;
        }
        mb_row_finish(s, MB_T_ALLREDUCE, p, bytes, iterations, sub != MPI_COMM_NULL, seconds / iterations, &before,
                      calls, calls * bytes, errors);
    }
}

static void barrier_row(mb_state *s, MPI_Comm sub, int p)
{
    const int iterations = s->p.iters;
    double seconds = 0.0;
    mb_sync(s);
    const mb_snapshot before = mb_snapshot_take(&s->comm);
    if (sub != MPI_COMM_NULL) {
        for (int i = 0; i < s->p.warmup; i++) hp_barrier(&s->comm, sub);
        hp_comm_count(&s->comm, 1);
        const double t0 = hp_now();
        for (int i = 0; i < iterations; i++) hp_barrier(&s->comm, sub);
        seconds = hp_now() - t0;
        hp_comm_count(&s->comm, 0);
    }
    mb_row_finish(s, MB_T_BARRIER, p, 0, iterations, sub != MPI_COMM_NULL, seconds / iterations, &before, 0, 0, 0);
}

void mb_collectives(mb_state *s)
{
    int counts[MB_MAX_RANK_COUNTS];
    const int n = mb_rank_counts(s->nranks, counts);
    MPI_Comm subs[MB_MAX_RANK_COUNTS];
    for (int k = 0; k < n; k++) hp_subcomm_create(s->run->world, counts[k], &subs[k]);
    const int max = s->p.sizes[s->p.nsizes - 1];
    const size_t doubles = (size_t)max / sizeof(double) + 1;
    double *in = mb_alloc(doubles * sizeof *in), *out = mb_alloc(doubles * sizeof *out);
    for (size_t i = 0; i < doubles; i++) in[i] = s->rank + 1.0;
    int whole = 0;
    for (int k = 0; k < s->p.nsizes; k++) whole += s->p.sizes[k] % (int)sizeof(double) == 0;
    if (!whole && s->rank == 0) printf("\n# allreduce: skipped, no size is a whole number of doubles (8 bytes)\n");
    for (int k = 0; k < n; k++) allreduce_rows(s, subs[k], counts[k], in, out);
    for (int k = 0; k < n; k++) barrier_row(s, subs[k], counts[k]);
    for (int k = 0; k < n; k++) hp_subcomm_free(&subs[k]);
    free(in);
    free(out);
}
