/* Ping-pong between two ranks: the Hockney alpha and beta of one placement.
 *
 * The loop is the plain one of osu_latency and IMB PingPong (blocking send, blocking receive, the
 * same two buffers every time, no touching of the data), because the point is to price the MPI
 * library and the link, nothing else: the one-way latency is half the round trip averaged over the
 * timed iterations, the bandwidth the size over that latency. Per-call timing in the instrumented
 * layer is off unless --comm-timers (two clock reads per call are a visible part of a 0.3 us
 * latency); the calls, messages and bytes are still counted. With --pairs K, the pairs (i, K+i) run
 * at once, which is how the cost of k communicating pairs per node is measured (the pairs share the
 * node's memory system or network interface). Other ranks wait, then join the row's reduction.
 * The data are checked once per size, outside the timed part. Each rank sends from its own send
 * buffer (both hold the pinger's pattern), as osu_latency does: echoing the buffer just received
 * measured a third slower at 1 MiB here, because the next copy then reads lines another core's
 * receive has just written. */
#include <stdlib.h>

#include "mixbench.h"

enum { TAG = 1 };

/* This rank's partner (-1: not in a pair) and whether it pings. */
static int partner_of(const mb_state *s, int *pings)
{
    const int rank = s->rank, k = s->p.pairs;
    *pings = 0;
    if (k == 1) {
        if (rank == s->p.pair[0]) return *pings = 1, s->p.pair[1];
        if (rank == s->p.pair[1]) return s->p.pair[0];
        return -1;
    }
    if (rank < k) return *pings = 1, rank + k;
    if (rank < 2 * k) return rank - k;
    return -1;
}

static void loop(hp_comm *c, char *sbuf, char *rbuf, int bytes, int partner, int pings, int iterations, MPI_Comm world)
{
    if (pings) {
        for (int i = 0; i < iterations; i++) {
            hp_send(c, sbuf, bytes, MPI_BYTE, partner, TAG, world);
            hp_recv(c, rbuf, bytes, MPI_BYTE, partner, TAG, world);
        }
    } else {
        for (int i = 0; i < iterations; i++) {
            hp_recv(c, rbuf, bytes, MPI_BYTE, partner, TAG, world);
            hp_send(c, sbuf, bytes, MPI_BYTE, partner, TAG, world);
        }
    }
}

void mb_pingpong(mb_state *s)
{
    const mb_params *p = &s->p;
    const int max = p->sizes[p->nsizes - 1];
    int pings;
    const int partner = partner_of(s, &pings);
    const int pinger = pings ? s->rank : partner; /* whose pattern travels */
    char *sbuf = mb_alloc((size_t)max), *rbuf = mb_alloc((size_t)max);
    for (long long i = 0; i < max; i++) sbuf[i] = (char)mb_pattern(pinger, TAG, i);
    for (int k = 0; k < p->nsizes; k++) {
        const int bytes = p->sizes[k], iterations = mb_iterations(p, bytes);
        double seconds = 0.0;
        long long errors = 0;
        mb_sync(s);
        if (partner >= 0) loop(&s->comm, sbuf, rbuf, bytes, partner, pings, mb_warmup(p, bytes), s->run->world);
        const mb_snapshot before = mb_snapshot_take(&s->comm);
        if (partner >= 0) {
            for (int i = 0; i < bytes; i++) rbuf[i] = 0;
            hp_comm_count(&s->comm, 1);
            const double t0 = hp_now();
            loop(&s->comm, sbuf, rbuf, bytes, partner, pings, iterations, s->run->world);
            seconds = hp_now() - t0;
            hp_comm_count(&s->comm, 0);
            for (int i = 0; i < bytes; i++) errors += rbuf[i] != (char)mb_pattern(pinger, TAG, i);
        }
        const long long sent = partner >= 0 ? iterations : 0;
        mb_row_finish(s, MB_T_PINGPONG, 2 * p->pairs, bytes, iterations, pings, seconds / (2.0 * iterations), &before,
                      sent, sent * bytes, errors);
    }
    free(sbuf);
    free(rbuf);
}
