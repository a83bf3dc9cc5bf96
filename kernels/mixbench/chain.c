/* The IMB-style chain (Intel MPI Benchmarks' Sendrecv; thesis §3.1.4, seed-spec §C.8): every rank of a
 * periodic chain sends to its right neighbour (rank + 1) and receives from its left one (rank - 1), as
 * IMB's Sendrecv does, at 0 bytes and every --sizes size, for p = 2, 4, 8, ... and the world size.
 *
 * Two loops move the same messages: MPI_Sendrecv, and MPI_Send + MPI_Irecv + MPI_Wait with the receive
 * posted first, as a careful user writes it (a blocking send before the matching receive exists could
 * wait on its partner's send all round the chain). The thesis found the first faster; having both in one
 * run, on the same ranks, sizes and buffers, is what lets that be checked here. The time of a row is
 * IMB's: each rank's seconds per iteration, the chain's time their maximum over the p ranks (the row's
 * time.max), and the bandwidth IMB reports for Sendrecv, 2 x bytes / t_max (each rank sends and receives
 * one message per iteration). Ranks beyond p wait for the next row, as IMB's idle processes do. The
 * 0-byte rows, one per p and loop, are the chain's overhead against the number of ranks.
 *
 * The timed loops hold the MPI calls and nothing else, as IMB's does: their calls, messages and bytes are known
 * from the loop's structure and counted once after it (hp_comm_record_loop), not call by call through the
 * instrumented wrappers, whose tens of nanoseconds a call (class, size and time histograms) made the 0-byte
 * chain 1.23 times IMB's. The counts are the same either way. Only --comm-timers, which asks for every call's
 * own time, sends the calls through the wrappers, each timed. */
#include <stdlib.h>

#include "mixbench.h"

enum { TAG = 3 };

typedef struct {
    char *sbuf, *rbuf;
    int bytes, left, right;
    MPI_Comm comm;
} chain;

static void loop_sendrecv(hp_comm *c, const chain *ch, int iterations)
{
    if (c->timing) {
        for (int i = 0; i < iterations; i++)
            hp_sendrecv(c, ch->sbuf, ch->bytes, MPI_BYTE, ch->right, ch->rbuf, ch->bytes, ch->left, TAG, ch->comm);
        return;
    }
    for (int i = 0; i < iterations; i++)
        MPI_Sendrecv(ch->sbuf, ch->bytes, MPI_BYTE, ch->right, TAG, ch->rbuf, ch->bytes, MPI_BYTE, ch->left, TAG,
                     ch->comm, MPI_STATUS_IGNORE);
    hp_comm_record_loop(c, HP_P2P, iterations, iterations, ch->bytes);
}

static void loop_send_irecv_wait(hp_comm *c, const chain *ch, int iterations)
{
    MPI_Request req;
    if (c->timing) {
        for (int i = 0; i < iterations; i++) {
            hp_irecv(c, ch->rbuf, ch->bytes, MPI_BYTE, ch->left, TAG, ch->comm, &req);
            hp_send(c, ch->sbuf, ch->bytes, MPI_BYTE, ch->right, TAG, ch->comm);
            hp_wait(c, &req);
        }
        return;
    }
    for (int i = 0; i < iterations; i++) {
        MPI_Irecv(ch->rbuf, ch->bytes, MPI_BYTE, ch->left, TAG, ch->comm, &req);
        MPI_Send(ch->sbuf, ch->bytes, MPI_BYTE, ch->right, TAG, ch->comm);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    hp_comm_record_loop(c, HP_P2P, 3LL * iterations, iterations, ch->bytes);
}

/* One row: warm-up, then the timed iterations on the chain's ranks; every rank joins the row. */
static void chain_row(mb_state *s, mb_table table, chain *ch, int p, int bytes)
{
    const mb_params *pr = &s->p;
    void (*loop)(hp_comm *, const chain *, int) =
        table == MB_T_CHAIN_SENDRECV ? loop_sendrecv : loop_send_irecv_wait;
    const int iterations = mb_iterations(pr, bytes), in_chain = ch->comm != MPI_COMM_NULL;
    ch->bytes = bytes;
    double seconds = 0.0;
    long long errors = 0;
    mb_sync(s);
    if (in_chain) {
        loop(&s->comm, ch, mb_warmup(pr, bytes));
        for (int i = 0; i < bytes; i++) ch->rbuf[i] = 0;
    }
    mb_sync(s);
    const mb_snapshot before = mb_snapshot_take(&s->comm);
    if (in_chain) {
        hp_comm_count(&s->comm, 1);
        const double t0 = hp_now();
        loop(&s->comm, ch, iterations);
        seconds = hp_now() - t0;
        hp_comm_count(&s->comm, 0);
        for (int i = 0; i < bytes; i++) errors += ch->rbuf[i] != (char)mb_pattern(ch->left, TAG, i);
    }
    const long long sent = in_chain ? iterations : 0;
    mb_row_finish(s, table, p, bytes, iterations, in_chain, seconds / iterations, &before, sent, sent * bytes, errors);
}

void mb_chain(mb_state *s)
{
    int counts[MB_MAX_RANK_COUNTS];
    const int n = mb_rank_counts(s->nranks, counts);
    MPI_Comm subs[MB_MAX_RANK_COUNTS];
    for (int k = 0; k < n; k++) hp_subcomm_create(s->run->world, counts[k], &subs[k]);
    const mb_params *p = &s->p;
    const int max = p->sizes[p->nsizes - 1];
    chain ch = {.sbuf = mb_alloc((size_t)max), .rbuf = mb_alloc((size_t)max)};
    for (int i = 0; i < max; i++) ch.sbuf[i] = (char)mb_pattern(s->rank, TAG, i);
    const mb_table tables[] = {MB_T_CHAIN_SENDRECV, MB_T_CHAIN_SEND_IRECV_WAIT};
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < n; k++) {
            ch.comm = subs[k];
            ch.right = (s->rank + 1) % counts[k];
            ch.left = (s->rank + counts[k] - 1) % counts[k];
            chain_row(s, tables[t], &ch, counts[k], 0);
            for (int z = 0; z < p->nsizes; z++) chain_row(s, tables[t], &ch, counts[k], p->sizes[z]);
        }
    for (int k = 0; k < n; k++) hp_subcomm_free(&subs[k]);
    free(ch.sbuf);
    free(ch.rbuf);
}
