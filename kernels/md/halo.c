/* Halo exchange: ghost copies of the atoms within cutoff + skin of a brick's faces.
 *
 * As in the thesis's code (its §2.1.3 and Table 6.1) and CoMD's haloExchange, the exchange runs
 * in three phases, x then y then z, each a pair of messages to the two neighbours along that axis:
 * 6 messages per rank per exchange reach all 26 neighbours because the y phase forwards the ghosts
 * received in the x phase, and the z phase forwards both, so edges and corners arrive without
 * diagonal messages. The price is that the phases are serialised -- each waits for the one before.
 * Message sizes follow Table 6.1: the x message covers the brick's y-z face, the y message the face
 * widened by the x halos, the z message the face widened by both.
 *
 * md_halo_build chooses the atoms (at neighbour-list rebuilds, when sizes are unknown to the
 * receiver); md_halo_update resends only their new positions every other step, to the same slots.
 * Positions crossing the periodic boundary are shifted by the sender. When a run has several atom
 * types a build also carries each atom's type (a fourth double); updates never do, types do not change.
 * md_halo_forward sends any per-atom value of the owned atoms to their ghosts along the same routes
 * (an embedded-atom potential's F'(rho)); md_halo_reverse sends the ghosts' forces, or partial densities,
 * back the way they came, z then y then x, so that a force on a ghost of a ghost reaches its owner through
 * the rank that forwarded it (Tersoff's three-body forces; pairs visited once, as eam/fs visits them). Packing is threaded; the messages are sent by the master
 * thread only (master-only style). */
#include <stdlib.h>

#include "md.h"

/* Below this many atoms a pack loop is faster on one thread than the fork/join costs. */
#define PARALLEL_MIN 1024

static double periodic_shift(const hp_decomp *d, int dim, int side)
{
    if (side == 0 && d->coords[dim] == 0) return d->box_len[dim];
    if (side == 1 && d->coords[dim] == d->dims[dim] - 1) return -d->box_len[dim];
    return 0.0;
}

/* width 3: positions; 4: positions and types */
void md_halo_pack(const md_atoms *a, md_halo *h, int k, int width, hp_omp_idle *idle)
{
    const int n = h->send_count[k], dim = k / 2;
    const int *restrict list = h->send[k];
    double shift[3] = {0.0, 0.0, 0.0};
    shift[dim] = h->shift[k];
    h->sendbuf = md_grow(h->sendbuf, &h->sendcap, (size_t)width * n * sizeof(double));
    double *restrict buf = h->sendbuf;
    const double *restrict x = a->x;
    hp_omp_idle_begin(idle);
#pragma omp parallel if (n > PARALLEL_MIN)
    {
        hp_omp_idle_enter(idle);
#pragma omp for schedule(static) nowait
        for (int m = 0; m < n; m++) {
            for (int d = 0; d < 3; d++) buf[width * m + d] = x[MD_VEC * list[m] + d] + shift[d];
            if (width == 4) buf[4 * m + 3] = a->type[list[m]];
        }
        hp_omp_idle_done(idle);
    }
    hp_omp_idle_end(idle);
}

static void unpack_positions(md_atoms *a, const double *restrict buf, int first, int n, int width,
                             hp_omp_idle *idle)
{
    double *restrict x = a->x + MD_VEC * (size_t)first;
    int *restrict type = a->type + first;
    hp_omp_idle_begin(idle);
#pragma omp parallel if (n > PARALLEL_MIN)
    {
        hp_omp_idle_enter(idle);
#pragma omp for schedule(static) nowait
        for (int m = 0; m < n; m++) {
            for (int d = 0; d < 3; d++) x[MD_VEC * m + d] = buf[width * m + d];
            x[MD_VEC * m + 3] = 0.0;
            if (width == 4) type[m] = (int)buf[4 * m + 3];
        }
        hp_omp_idle_done(idle);
    }
    hp_omp_idle_end(idle);
}

/* Atoms among the first n (owned atoms and ghosts of earlier phases) within the ghost cut of the
 * brick's face on `side` along `dim`. */
static void select_atoms(md_halo *h, int k, const double *pos, int n, int side, double lo, double hi, double cut)
{
    if (h->send_cap[k] < n) {
        h->send[k] = realloc(h->send[k], (size_t)n * sizeof(int));
        h->send_cap[k] = n;
    }
    int *list = h->send[k], count = 0;
    if (side == 0) {
        for (int i = 0; i < n; i++)
            if (pos[MD_VEC * i] < lo + cut) list[count++] = i;
    } else {
        for (int i = 0; i < n; i++)
            if (pos[MD_VEC * i] >= hi - cut) list[count++] = i;
    }
    h->send_count[k] = count;
}

void md_halo_select(const md_atoms *a, md_halo *h, const hp_decomp *d, int dim, double cut)
{
    for (int side = 0; side < 2; side++) {
        int k = 2 * dim + side;
        h->shift[k] = periodic_shift(d, dim, side);
        select_atoms(h, k, a->x + dim, a->nlocal + a->nghost, side, d->lo[dim], d->hi[dim], cut);
    }
}

void md_halo_receive(md_atoms *a, md_halo *h, int k, const double *buf, int m, int width, hp_omp_idle *idle)
{
    int first = a->nlocal + a->nghost;
    md_atoms_reserve(a, first + m);
    if (width == 3)
        for (int i = first; i < first + m; i++) a->type[i] = 1;
    unpack_positions(a, buf, first, m, width, idle);
    h->recv_first[k] = first;
    h->recv_count[k] = m;
    a->nghost += m;
}

void md_halo_build(md_sim *s)
{
    md_atoms *a = &s->atoms;
    md_halo *h = &s->halo;
    const hp_decomp *d = &s->decomp;
    const int width = h->build_width;
    a->nghost = 0;
    for (int dim = 0; dim < 3; dim++) {
        md_halo_select(a, h, d, dim, s->ghost_cut);
        for (int side = 0; side < 2; side++) {
            int k = 2 * dim + side;
            md_halo_pack(a, h, k, width, &s->omp);
            size_t bytes = hp_sendrecv_grow(&s->comm, h->sendbuf, (size_t)width * h->send_count[k] * sizeof(double),
                                            d->neighbor[dim][side], &h->recvbuf, &h->recvcap,
                                            d->neighbor[dim][1 - side], k, d->cart);
            md_halo_receive(a, h, k, h->recvbuf, (int)(bytes / (width * sizeof(double))), width, &s->omp);
            h->messages++;
        }
    }
    h->exchanges++;
}

void md_halo_update(md_sim *s)
{
    md_atoms *a = &s->atoms;
    md_halo *h = &s->halo;
    const hp_decomp *d = &s->decomp;
    for (int k = 0; k < MD_DIRECTIONS; k++) {
        const int dim = k / 2, side = k % 2;
        md_halo_pack(a, h, k, 3, &s->omp);
        h->recvbuf = md_grow(h->recvbuf, &h->recvcap, 3 * (size_t)h->recv_count[k] * sizeof(double));
        hp_sendrecv(&s->comm, h->sendbuf, 3 * h->send_count[k], MPI_DOUBLE, d->neighbor[dim][side], h->recvbuf,
                    3 * h->recv_count[k], d->neighbor[dim][1 - side], k, d->cart);
        unpack_positions(a, h->recvbuf, h->recv_first[k], h->recv_count[k], 3, &s->omp);
        h->messages++;
    }
    h->exchanges++;
}

void md_halo_forward(md_sim *s, double *values)
{
    md_halo *h = &s->halo;
    const hp_decomp *d = &s->decomp;
    for (int k = 0; k < MD_DIRECTIONS; k++) {
        const int dim = k / 2, side = k % 2, n = h->send_count[k];
        const int *restrict list = h->send[k];
        h->sendbuf = md_grow(h->sendbuf, &h->sendcap, (size_t)n * sizeof(double));
        double *restrict buf = h->sendbuf;
        hp_omp_idle_begin(&s->omp);
#pragma omp parallel if (n > PARALLEL_MIN)
        {
            hp_omp_idle_enter(&s->omp);
#pragma omp for schedule(static) nowait
            for (int m = 0; m < n; m++) buf[m] = values[list[m]];
            hp_omp_idle_done(&s->omp);
        }
        hp_omp_idle_end(&s->omp);
        /* received straight into place: the ghosts of direction k are contiguous */
        hp_sendrecv(&s->comm, buf, n, MPI_DOUBLE, d->neighbor[dim][side], values + h->recv_first[k],
                    h->recv_count[k], d->neighbor[dim][1 - side], MD_DIRECTIONS * 3 + k, d->cart);
    }
}

void md_halo_reverse(md_sim *s, double *values, int stride, int width)
{
    md_halo *h = &s->halo;
    const hp_decomp *d = &s->decomp;
    for (int k = MD_DIRECTIONS - 1; k >= 0; k--) {
        const int dim = k / 2, side = k % 2, n = h->recv_count[k], back = h->send_count[k];
        const double *ghosts = values + (size_t)stride * h->recv_first[k];
        h->sendbuf = md_grow(h->sendbuf, &h->sendcap, (size_t)width * n * sizeof(double));
        h->recvbuf = md_grow(h->recvbuf, &h->recvcap, (size_t)width * back * sizeof(double));
        double *restrict out = h->sendbuf;
        const double *restrict in = h->recvbuf;
        hp_omp_idle_begin(&s->omp);
#pragma omp parallel if (n > PARALLEL_MIN)
        {
            hp_omp_idle_enter(&s->omp);
#pragma omp for schedule(static) nowait
            for (int m = 0; m < n; m++)
                for (int c = 0; c < width; c++) out[width * m + c] = ghosts[(size_t)stride * m + c];
            hp_omp_idle_done(&s->omp);
        }
        hp_omp_idle_end(&s->omp);
        hp_sendrecv(&s->comm, out, width * n, MPI_DOUBLE, d->neighbor[dim][1 - side], h->recvbuf, width * back,
                    d->neighbor[dim][side], MD_DIRECTIONS * 4 + k, d->cart);
        const int *restrict list = h->send[k];
        /* each atom is at most once in a direction's list, so the additions do not collide */
        hp_omp_idle_begin(&s->omp);
#pragma omp parallel if (back > PARALLEL_MIN)
        {
            hp_omp_idle_enter(&s->omp);
#pragma omp for schedule(static) nowait
            for (int m = 0; m < back; m++)
                for (int c = 0; c < width; c++) values[(size_t)stride * list[m] + c] += in[width * m + c];
            hp_omp_idle_done(&s->omp);
        }
        hp_omp_idle_end(&s->omp);
    }
}

void md_halo_free(md_halo *h)
{
    for (int k = 0; k < MD_DIRECTIONS; k++) free(h->send[k]);
    free(h->sendbuf);
    free(h->outbox[0]);
    free(h->outbox[1]);
    free(h->recvbuf);
}
