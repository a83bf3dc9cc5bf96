/* EPCC's mixed-mode ping-pong (Bull, Enright & Ameer, IWOMP 2009) in four styles.
 *
 * Unlike the plain ping-pong, the message is produced and consumed by OpenMP threads, as in a
 * hybrid application: the pinging rank's threads write the outgoing buffer, the ponging rank's
 * threads copy what arrived into the buffer they send back, and the pinging rank's threads copy
 * the reply out. What differs is who communicates and where:
 *   single      one thread does everything (the reference: MPC's "single-threaded version");
 *   masteronly  the master communicates outside parallel regions; each buffer pass is a parallel
 *               for (a fork and a join around every message);
 *   funnelled   one parallel region spans all iterations; the master communicates inside it
 *               (omp master) between barriers;
 *   multiple    one parallel region; every thread sends and receives its own contiguous part of the
 *               message with its own tag (MPI_THREAD_MULTIPLE), so a message of m bytes travels as
 *               T messages of about m/T bytes.
 * Sizes are the whole message per direction in every style, so the rows of one size compare the
 * same data volume; the ratio to the single style is MPC's Fig. 6/7 quantity. Each thread of the
 * multiple style counts into its own hp_comm, merged into the rank's after the region (hp_counts.h).
 * The data are checked after the timed iterations: the reply must be the pinging rank's pattern. */
#include <omp.h>
#include <stdlib.h>

#include "mixbench.h"

typedef struct {
    char *out, *in, *back; /* ping: out -> partner -> back; pong: in -> out -> partner */
    int bytes, partner, pings, pinger, threads;
    MPI_Comm world;
} exchange;

/* Thread t's part [*first, *first + *len) of n bytes: contiguous, sizes differing by at most one. */
static void part(int n, int threads, int t, int *first, int *len)
{
    const int base = n / threads, extra = n % threads;
    *first = t * base + (t < extra ? t : extra);
    *len = base + (t < extra);
}

static void fill(char *buf, int first, int len, int pinger)
{
    for (int i = first; i < first + len; i++) buf[i] = (char)mb_pattern(pinger, 0, i);
}

static void copy(char *restrict to, const char *restrict from, int first, int len)
{
    for (int i = first; i < first + len; i++) to[i] = from[i];
}

static void run_single(hp_comm *c, const exchange *x, int iterations)
{
    for (int it = 0; it < iterations; it++) {
        if (x->pings) {
            fill(x->out, 0, x->bytes, x->pinger);
            hp_send(c, x->out, x->bytes, MPI_BYTE, x->partner, 0, x->world);
            hp_recv(c, x->in, x->bytes, MPI_BYTE, x->partner, 0, x->world);
            copy(x->back, x->in, 0, x->bytes);
        } else {
            hp_recv(c, x->in, x->bytes, MPI_BYTE, x->partner, 0, x->world);
            copy(x->out, x->in, 0, x->bytes);
            hp_send(c, x->out, x->bytes, MPI_BYTE, x->partner, 0, x->world);
        }
    }
}

static void run_masteronly(hp_comm *c, const exchange *x, int iterations)
{
    const int n = x->bytes;
    char *restrict out = x->out, *restrict in = x->in, *restrict back = x->back;
    for (int it = 0; it < iterations; it++) {
        if (x->pings) {
#pragma omp parallel for schedule(static) num_threads(x->threads)
            for (int i = 0; i < n; i++) out[i] = (char)mb_pattern(x->pinger, 0, i);
            hp_send(c, out, n, MPI_BYTE, x->partner, 0, x->world);
            hp_recv(c, in, n, MPI_BYTE, x->partner, 0, x->world);
#pragma omp parallel for schedule(static) num_threads(x->threads)
            for (int i = 0; i < n; i++) back[i] = in[i];
        } else {
            hp_recv(c, in, n, MPI_BYTE, x->partner, 0, x->world);
#pragma omp parallel for schedule(static) num_threads(x->threads)
            for (int i = 0; i < n; i++) out[i] = in[i];
            hp_send(c, out, n, MPI_BYTE, x->partner, 0, x->world);
        }
    }
}

static void run_funnelled(hp_comm *c, const exchange *x, int iterations)
{
    const int n = x->bytes;
    char *restrict out = x->out, *restrict in = x->in, *restrict back = x->back;
#pragma omp parallel num_threads(x->threads)
    for (int it = 0; it < iterations; it++) {
        if (x->pings) {
#pragma omp for schedule(static)
            for (int i = 0; i < n; i++) out[i] = (char)mb_pattern(x->pinger, 0, i);
#pragma omp master
            {
                hp_send(c, out, n, MPI_BYTE, x->partner, 0, x->world);
                hp_recv(c, in, n, MPI_BYTE, x->partner, 0, x->world);
            }
#pragma omp barrier
#pragma omp for schedule(static)
            for (int i = 0; i < n; i++) back[i] = in[i];
        } else {
#pragma omp master
            hp_recv(c, in, n, MPI_BYTE, x->partner, 0, x->world);
#pragma omp barrier
#pragma omp for schedule(static)
            for (int i = 0; i < n; i++) out[i] = in[i];
#pragma omp master
            hp_send(c, out, n, MPI_BYTE, x->partner, 0, x->world);
#pragma omp barrier
        }
    }
}

/* Every thread sends and receives its part with tag = its thread number, counting into its own
 * counters (per_thread[t], which start with the rank's counting switch). */
static void run_multiple(hp_comm *per_thread, const exchange *x, int iterations)
{
#pragma omp parallel num_threads(x->threads)
    {
        const int t = omp_get_thread_num();
        hp_comm *c = &per_thread[t];
        int first, len;
        part(x->bytes, x->threads, t, &first, &len);
        for (int it = 0; it < iterations; it++) {
            if (x->pings) {
                fill(x->out, first, len, x->pinger);
                hp_send(c, x->out + first, len, MPI_BYTE, x->partner, t, x->world);
                hp_recv(c, x->in + first, len, MPI_BYTE, x->partner, t, x->world);
                copy(x->back, x->in, first, len);
            } else {
                hp_recv(c, x->in + first, len, MPI_BYTE, x->partner, t, x->world);
                copy(x->out, x->in, first, len);
                hp_send(c, x->out + first, len, MPI_BYTE, x->partner, t, x->world);
            }
        }
    }
}

static void run_style(mb_state *s, mb_style style, const exchange *x, int iterations, hp_comm *per_thread)
{
    switch (style) {
    case MB_SINGLE:
        run_single(&s->comm, x, iterations);
        break;
    case MB_MASTERONLY:
        run_masteronly(&s->comm, x, iterations);
        break;
    case MB_FUNNELLED:
        run_funnelled(&s->comm, x, iterations);
        break;
    default:
        for (int t = 0; t < x->threads; t++) {
            hp_comm_init(&per_thread[t], s->comm.timing);
            hp_comm_count(&per_thread[t], s->comm.counting);
        }
        run_multiple(per_thread, x, iterations);
        for (int t = 0; t < x->threads; t++) hp_comm_merge(&s->comm, &per_thread[t]);
        break;
    }
}

static void style_rows(mb_state *s, mb_style style, exchange *x, hp_comm *per_thread)
{
    const mb_params *p = &s->p;
    for (int k = 0; k < p->nsizes; k++) {
        const int bytes = p->sizes[k], iterations = mb_iterations(p, bytes);
        const int messages = style == MB_MULTIPLE ? x->threads : 1;
        double seconds = 0.0;
        long long errors = 0;
        x->bytes = bytes;
        mb_sync(s);
        if (x->partner >= 0) run_style(s, style, x, mb_warmup(p, bytes), per_thread);
        const mb_snapshot before = mb_snapshot_take(&s->comm);
        if (x->partner >= 0) {
            char *check = x->pings ? x->back : x->in;
            for (int i = 0; i < bytes; i++) check[i] = 0;
            hp_comm_count(&s->comm, 1);
            const double t0 = hp_now();
            run_style(s, style, x, iterations, per_thread);
            seconds = hp_now() - t0;
            hp_comm_count(&s->comm, 0);
            for (int i = 0; i < bytes; i++) errors += check[i] != (char)mb_pattern(x->pinger, 0, i);
        }
        const long long sent = x->partner >= 0 ? (long long)iterations : 0;
        mb_row_finish(s, (mb_table)(MB_T_MIXED_SINGLE + style), 2, bytes, iterations, x->pings,
                      seconds / (2.0 * iterations), &before, sent * messages, sent * bytes, errors);
    }
}

void mb_mixed(mb_state *s)
{
    const int max = s->p.sizes[s->p.nsizes - 1];
    exchange x = {.out = mb_alloc((size_t)max),
                  .in = mb_alloc((size_t)max),
                  .back = mb_alloc((size_t)max),
                  .partner = -1,
                  .threads = s->threads,
                  .world = s->run->world};
    if (s->rank == s->p.pair[0]) x.partner = s->p.pair[1], x.pings = 1;
    if (s->rank == s->p.pair[1]) x.partner = s->p.pair[0];
    x.pinger = s->p.pair[0];
    hp_comm *per_thread = calloc((size_t)x.threads, sizeof *per_thread);
    for (int style = 0; style < MB_NSTYLES; style++)
        if (s->p.styles & (1u << style)) style_rows(s, (mb_style)style, &x, per_thread);
    free(per_thread);
    free(x.out);
    free(x.in);
    free(x.back);
}
