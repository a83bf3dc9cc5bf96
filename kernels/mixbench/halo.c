/* A 3-D periodic halo exchange on the Cartesian decomposition, in the master-only and funnelled
 * styles (EPCC mixed-mode suite's halo benchmark).
 *
 * Every rank sends one face of --sizes bytes to each of its six neighbours and receives one from
 * each: six non-blocking receives, six non-blocking sends, one wait. Faces only, so the six
 * messages are independent and all in flight at once -- the opposite trade-off from the MD
 * kernel's three ordered phases (which forward edges and corners but serialise the traffic); this
 * one prices the exchange itself, at six messages and 6 x size bytes per rank. As in the mixed
 * ping-pong, the threads write the six outgoing faces and read the six incoming ones around the
 * communication: in master-only style with a parallel for each time, in funnelled style inside
 * one parallel region with the master communicating between barriers. Direction k = 2 d + side
 * goes to neighbour[d][side] with tag k; the face that arrives from neighbour[d][1 - side] with
 * tag k is the one that neighbour sent towards us, so a dimension of one or two ranks (both
 * neighbours the same rank, or this rank itself) still matches each face to its direction. */
#include <omp.h>
#include <stdlib.h>

#include "mixbench.h"

enum { FACES = 6 };

typedef struct {
    char *send, *recv; /* FACES x bytes each, face k at k * bytes */
    int bytes, threads;
    int to[FACES], from[FACES];
    MPI_Comm comm;
} halo;

static void post(hp_comm *c, const halo *h)
{
    MPI_Request req[2 * FACES];
    for (int k = 0; k < FACES; k++)
        hp_irecv(c, h->recv + (size_t)k * h->bytes, h->bytes, MPI_BYTE, h->from[k], k, h->comm, &req[k]);
    for (int k = 0; k < FACES; k++)
        hp_isend(c, h->send + (size_t)k * h->bytes, h->bytes, MPI_BYTE, h->to[k], k, h->comm, &req[FACES + k]);
    hp_waitall(c, 2 * FACES, req);
}

/* The threads write the six outgoing faces (face k of rank r holds mb_pattern(r, k, i)) and read
 * the six incoming ones; collapse(2) spreads the faces' bytes over the threads without a division
 * per byte. */
static void run_masteronly(hp_comm *c, const halo *h, int rank, int iterations, long long *sink)
{
    const int n = h->bytes;
    long long sum = 0;
    for (int it = 0; it < iterations; it++) {
#pragma omp parallel for collapse(2) schedule(static) num_threads(h->threads)
        for (int k = 0; k < FACES; k++)
            for (int i = 0; i < n; i++) h->send[(size_t)k * n + i] = (char)mb_pattern(rank, k, (size_t)k * n + i);
        post(c, h);
#pragma omp parallel for schedule(static) reduction(+ : sum) num_threads(h->threads)
        for (long long i = 0; i < (long long)FACES * n; i++) sum += h->recv[i];
    }
    *sink += sum;
}

static void run_funnelled(hp_comm *c, const halo *h, int rank, int iterations, long long *sink)
{
    const int n = h->bytes;
    long long sum = 0;
#pragma omp parallel num_threads(h->threads)
    for (int it = 0; it < iterations; it++) {
#pragma omp for collapse(2) schedule(static)
        for (int k = 0; k < FACES; k++)
            for (int i = 0; i < n; i++) h->send[(size_t)k * n + i] = (char)mb_pattern(rank, k, (size_t)k * n + i);
#pragma omp master
        post(c, h);
#pragma omp barrier
#pragma omp for schedule(static) reduction(+ : sum)
        for (long long i = 0; i < (long long)FACES * n; i++) sum += h->recv[i];
    }
    *sink += sum;
}

/* Wrong bytes in the received faces: face k must be neighbour from[k]'s face k. */
static long long check(const halo *h)
{
    long long errors = 0;
    for (int k = 0; k < FACES; k++)
        for (long long i = (long long)k * h->bytes; i < (long long)(k + 1) * h->bytes; i++)
            errors += h->recv[i] != (char)mb_pattern(h->from[k], k, i);
    return errors;
}

void mb_halo(mb_state *s)
{
    const mb_params *p = &s->p;
    const hp_decomp *d = &s->decomp;
    const int max = p->sizes[p->nsizes - 1];
    halo h = {.send = mb_alloc((size_t)FACES * max),
              .recv = mb_alloc((size_t)FACES * max),
              .threads = s->threads,
              .comm = d->cart};
    for (int dim = 0; dim < 3; dim++)
        for (int side = 0; side < 2; side++) {
            h.to[2 * dim + side] = d->neighbor[dim][side];
            h.from[2 * dim + side] = d->neighbor[dim][1 - side];
        }
    const mb_style styles[] = {MB_MASTERONLY, MB_FUNNELLED};
    for (int k = 0; k < 2; k++) {
        if (!(p->styles & (1u << styles[k]))) continue;
        for (int z = 0; z < p->nsizes; z++) {
            const int bytes = p->sizes[z], iterations = mb_iterations(p, bytes);
            h.bytes = bytes;
            void (*run)(hp_comm *, const halo *, int, int, long long *) =
                styles[k] == MB_MASTERONLY ? run_masteronly : run_funnelled;
            mb_sync(s);
            run(&s->comm, &h, s->rank, mb_warmup(p, bytes), &s->sink);
            for (long long i = 0; i < (long long)FACES * bytes; i++) h.recv[i] = 0;
            const mb_snapshot before = mb_snapshot_take(&s->comm);
            hp_comm_count(&s->comm, 1);
            const double t0 = hp_now();
            run(&s->comm, &h, s->rank, iterations, &s->sink);
            const double seconds = hp_now() - t0;
            hp_comm_count(&s->comm, 0);
            mb_row_finish(s, k == 0 ? MB_T_HALO_MASTERONLY : MB_T_HALO_FUNNELLED, s->nranks, bytes, iterations, 1,
                          seconds / iterations, &before, (long long)FACES * iterations,
                          (long long)FACES * iterations * bytes, check(&h));
        }
    }
    free(h.send);
    free(h.recv);
}
