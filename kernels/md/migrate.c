/* Migration: atoms that left the brick move to the rank that now owns them.
 *
 * Done at neighbour-list rebuilds only, as in miniMD and LAMMPS (between rebuilds an atom may
 * stray up to skin/2 outside its brick and is still found through the halo). Like the halo it runs
 * x, then y, then z, one message to each neighbour per phase, so an atom crossing an edge or a
 * corner travels through intermediate ranks rather than by a diagonal message. An atom carries its
 * id, type, position and velocity; forces are recomputed after the rebuild. Positions crossing the
 * periodic boundary are wrapped by the sender. An atom that arrives outside the receiving brick
 * moved more than a brick in one rebuild interval; it is kept, counted, and fails the run's
 * "atoms_misplaced" check, because the physics past that point would be wrong. */
#include "md.h"

enum { MIGRANT = 8 }; /* doubles per atom: id, x, y, z, vx, vy, vz, type (ids below 2^53 are exact) */

static void pack_migrant(const md_atoms *a, int i, double *out, int dim, double shift, double box_lo, double box_hi)
{
    out[0] = (double)a->id[i];
    for (int d = 0; d < 3; d++) {
        out[1 + d] = a->x[MD_VEC * i + d];
        out[4 + d] = a->v[MD_VEC * i + d];
    }
    out[7] = a->type[i];
    out[1 + dim] += shift;
    if (out[1 + dim] >= box_hi) out[1 + dim] = box_lo; /* -tiny + L rounds to L: the same point as box_lo */
}

static void append_migrants(md_sim *s, const double *in, int n, int dim)
{
    md_atoms *a = &s->atoms;
    const hp_decomp *d = &s->decomp;
    md_atoms_reserve(a, a->nlocal + n);
    for (int m = 0; m < n; m++, in += MIGRANT) {
        md_atoms_append(a, (int64_t)in[0], (int)in[7], in + 1, in + 4);
        if (in[1 + dim] < d->lo[dim] || in[1 + dim] >= d->hi[dim]) s->misplaced++;
    }
}

void md_migrate(md_sim *s)
{
    md_atoms *a = &s->atoms;
    md_halo *h = &s->halo;
    const hp_decomp *d = &s->decomp;
    for (int dim = 0; dim < 3; dim++) {
        const double lo = d->lo[dim], hi = d->hi[dim];
        const double box_lo = d->box_lo[dim], box_hi = d->box_lo[dim] + d->box_len[dim];
        double shift[2] = {d->coords[dim] == 0 ? d->box_len[dim] : 0.0,
                           d->coords[dim] == d->dims[dim] - 1 ? -d->box_len[dim] : 0.0};
        int leaving[2] = {0, 0};
        a->nghost = 0;
        for (int i = 0; i < a->nlocal;) {
            const double p = a->x[MD_VEC * i + dim];
            int side = p < lo ? 0 : p >= hi ? 1 : -1;
            if (side < 0) {
                i++;
                continue;
            }
            h->outbox[side] =
                md_grow(h->outbox[side], &h->outbox_cap[side], (size_t)(leaving[side] + 1) * MIGRANT * sizeof(double));
            pack_migrant(a, i, h->outbox[side] + (size_t)leaving[side] * MIGRANT, dim, shift[side], box_lo, box_hi);
            leaving[side]++;
            md_atoms_move(a, --a->nlocal, i); /* fill the hole with the last atom; i is examined again */
        }
        for (int side = 0; side < 2; side++) {
            size_t bytes = hp_sendrecv_grow(&s->comm, h->outbox[side], (size_t)leaving[side] * MIGRANT * sizeof(double),
                                            d->neighbor[dim][side], &h->recvbuf, &h->recvcap,
                                            d->neighbor[dim][1 - side], MD_DIRECTIONS + 2 * dim + side, d->cart);
            append_migrants(s, h->recvbuf, (int)(bytes / (MIGRANT * sizeof(double))), dim);
        }
    }
}
