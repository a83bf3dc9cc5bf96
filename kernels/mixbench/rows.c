/* Measuring one point: iteration counts, counter snapshots, and the collective reduction of a row.
 *
 * A row's counts are read from the instrumented layer itself (the difference of the rank's
 * counters across the timed iterations), not computed from the loop, and stored next to what the
 * loop structure says it sent: the two must agree exactly, which the byte_count check verifies.
 * The reductions run with counting off, so they never appear in the profile's comm member. Times
 * are gathered to rank 0 with a flag saying whether the rank measured, because in most benchmarks
 * only some ranks do (the pinging rank of a pair). */
#include <stdlib.h>
#include <string.h>

#include "mixbench.h"

int mb_iterations(const mb_params *p, int bytes) { return bytes > MB_LARGE_MESSAGE ? p->iters_large : p->iters; }

int mb_warmup(const mb_params *p, int bytes) { return bytes > MB_LARGE_MESSAGE ? p->warmup_large : p->warmup; }

int mb_rank_counts(int nranks, int *counts)
{
    int n = 0;
    for (int p = 2; p < nranks; p *= 2) counts[n++] = p;
    counts[n++] = nranks;
    return n;
}

mb_snapshot mb_snapshot_take(const hp_comm *c)
{
    mb_snapshot s = {0, 0};
    for (int k = 0; k < HP_NCLASSES; k++) {
        s.messages += c->cls[k].messages;
        s.bytes += c->cls[k].bytes;
    }
    return s;
}

void mb_sync(mb_state *s)
{
    const int counting = s->comm.counting;
    hp_comm_count(&s->comm, 0);
    hp_barrier(&s->comm, s->run->world);
    hp_comm_count(&s->comm, counting);
}

void *mb_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "%s: error: out of memory for a %zu-byte buffer\n", MB_PROGRAM, bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(p, 0, bytes);
    return p;
}

/* min / avg / max over the ranks that measured, with their ranks; rank 0 only. */
static hp_stat measured_stat(const double *values, int n)
{
    hp_stat st = {0, 0, 0, 0, 0, 0};
    int count = 0;
    for (int r = 0; r < n; r++) {
        if (values[2 * r + 1] == 0.0) continue;
        const double v = values[2 * r];
        if (count == 0 || v < st.min) st.min = v, st.min_rank = r;
        if (count == 0 || v > st.max) st.max = v, st.max_rank = r;
        st.sum += v;
        count++;
    }
    st.avg = count ? st.sum / count : 0.0;
    return st;
}

void mb_row_finish(mb_state *s, mb_table table, int ranks, int bytes, int iterations, int measured,
                   double seconds_per_op, const mb_snapshot *before, long long expected_messages,
                   long long expected_bytes, long long errors)
{
    const int counting = s->comm.counting;
    hp_comm_count(&s->comm, 0);
    const mb_snapshot now = mb_snapshot_take(&s->comm);
    long long local[5] = {now.messages - before->messages, now.bytes - before->bytes, expected_messages, expected_bytes,
                          errors},
              total[5];
    hp_allreduce(&s->comm, local, total, 5, MPI_LONG_LONG, MPI_SUM, s->run->world);
    double mine[2] = {seconds_per_op, measured ? 1.0 : 0.0};
    double *all = s->rank == 0 ? malloc(2 * (size_t)s->nranks * sizeof *all) : NULL;
    hp_gather(&s->comm, mine, 2, MPI_DOUBLE, all, 0, s->run->world);
    hp_comm_count(&s->comm, counting);
    if (s->rank != 0) return;

    if (s->nrows == s->rows_cap) {
        s->rows_cap = s->rows_cap ? 2 * s->rows_cap : 64;
        s->rows = realloc(s->rows, (size_t)s->rows_cap * sizeof *s->rows);
    }
    mb_row *r = &s->rows[s->nrows++];
    *r = (mb_row){.table = table,
                  .ranks = ranks,
                  .bytes = bytes,
                  .iterations = iterations,
                  .time = measured_stat(all, s->nranks),
                  .messages = total[0],
                  .bytes_sent = total[1],
                  .expected_messages = total[2],
                  .expected_bytes = total[3],
                  .errors = total[4]};
    free(all);
    mb_print_row(s, r);
}
