/* --plan R: what a run on R ranks would send, computed in one process without running it.
 *
 * A simulator of the run on a cluster (hybridperf simulate) needs every rank's messages: to whom, how
 * many bytes, in what order, for each kind of step. Rather than re-derive the halo geometry, the plan
 * performs the run's own set-up for every rank in turn: the same grid (MPI_Dims_create), the same
 * bricks (rank numbering as MPI_Cart_create's), the same lattice sites per brick, and the halo build's
 * own selection, packing and unpacking (halo.c) with each message handed to the receiving rank in
 * memory instead of through MPI. No forces are computed. The sizes are those of the initial state,
 * which is what the run uses until its first rebuild; atoms that move change them by a few percent.
 *
 * Printed as JSON on stdout: the schedule (which steps rebuild, which sum the thermodynamics), and per
 * rank its atoms, ghosts and atoms packed per exchange (the work the compute model prices) and the
 * operations of each step type in order: "ordinary" (the halo update), "rebuild" (migration, then the
 * halo build) and "thermo" (the global sum added at thermo steps). Migration messages carry the atoms
 * leaving a brick; a lattice at rest has none, so the plan sizes them at 0 bytes (their count and
 * order are exact). Positions travel as 3 doubles (a rebuild's with the type when there are several), migrants
 * as MIGRANT doubles (migrate.c). The many-body potentials add their own exchanges after the halo: those of
 * their table's stages (md.h), in order, which are what main.c's compute_forces runs: eam/fs the ghosts'
 * densities home (reverse, 1 double per ghost), F'(rho) out (forward, 1 double) and the ghosts' forces home
 * (reverse, 3 doubles); Tersoff the forces home. */
#include <stdlib.h>

#include "md.h"

enum { THERMO_VALUES = 4 }; /* thermo.c's allreduce: mv^2, energy, virial, lost atoms */

typedef struct {
    int ranks;
    hp_decomp *decomp;
    md_atoms *atoms;
    md_halo *halo;
} md_layout;

/* The halo build of every rank: phase by phase, as the real build's three serialised phases. */
static void build_halos(md_layout *l, double cut)
{
    hp_omp_idle untimed = {0}; /* nothing here is the measured loop */
    for (int r = 0; r < l->ranks; r++) l->atoms[r].nghost = 0;
    for (int dim = 0; dim < 3; dim++) {
        for (int r = 0; r < l->ranks; r++) md_halo_select(&l->atoms[r], &l->halo[r], &l->decomp[r], dim, cut);
        for (int side = 0; side < 2; side++) {
            const int k = 2 * dim + side;
            for (int r = 0; r < l->ranks; r++) {
                md_halo *h = &l->halo[r];
                const int to = l->decomp[r].neighbor[dim][side];
                md_halo_pack(&l->atoms[r], h, k, 3, &untimed);
                md_halo_receive(&l->atoms[to], &l->halo[to], k, h->sendbuf, h->send_count[k], 3, &untimed);
            }
        }
    }
}

/* One exchange with a neighbour: a Sendrecv (one call), or -- where the receiver cannot know the size in advance
 * (migration, the halo's rebuild) -- hp_sendrecv_grow's Isend, Probe, Recv and Wait (GROWN calls), one message. */
enum { FIXED = 1, GROWN = 4 };

static void sendrecv(hp_json *j, const char *region, int to, long long bytes, int from, long long recv_bytes,
                     int calls)
{
    hp_json_object_begin(j, NULL);
    hp_json_string(j, "op", "sendrecv");
    hp_json_int(j, "calls", calls);
    hp_json_string(j, "region", region);
    hp_json_int(j, "to", to);
    hp_json_int(j, "bytes", bytes);
    hp_json_int(j, "from", from);
    hp_json_int(j, "recv_bytes", recv_bytes);
    hp_json_object_end(j);
}

/* The six messages of a forward exchange (halo.c's order): `width` doubles per atom sent, per ghost received;
 * `calls` per message. */
static void forward_messages(hp_json *j, const md_layout *l, int r, const char *region, int width, int calls)
{
    const hp_decomp *d = &l->decomp[r];
    const md_halo *h = &l->halo[r];
    const long long bytes = width * (long long)sizeof(double);
    for (int k = 0; k < MD_DIRECTIONS; k++) {
        const int dim = k / 2, side = k % 2;
        sendrecv(j, region, d->neighbor[dim][side], bytes * h->send_count[k], d->neighbor[dim][1 - side],
                 bytes * h->recv_count[k], calls);
    }
}

/* The six messages of a reverse exchange (md_halo_reverse): ghosts' values back, z then y then x. */
static void reverse_messages(hp_json *j, const md_layout *l, int r, const char *region, int width)
{
    const hp_decomp *d = &l->decomp[r];
    const md_halo *h = &l->halo[r];
    const long long bytes = width * (long long)sizeof(double);
    for (int k = MD_DIRECTIONS - 1; k >= 0; k--) {
        const int dim = k / 2, side = k % 2;
        sendrecv(j, region, d->neighbor[dim][1 - side], bytes * h->recv_count[k], d->neighbor[dim][side],
                 bytes * h->send_count[k], FIXED);
    }
}

/* A step's point-to-point messages after migration: the halo (`width` doubles per atom; rebuilt: sizes unknown
 * to the receiver), then the exchanges among the potential's stages. */
static void step_messages(hp_json *j, const md_sim *s, const md_layout *l, int r, int width, int rebuilt)
{
    forward_messages(j, l, r, md_region_name(R_HALO), width, rebuilt ? GROWN : FIXED);
    const md_potential_ops *potential = s->p.potential;
    for (int k = 0; k < potential->nstages; k++) {
        const md_stage *stage = &potential->stages[k];
        if (stage->kind == MD_FORWARD)
            forward_messages(j, l, r, md_region_name(stage->region), stage->width, FIXED);
        else if (stage->kind == MD_REVERSE)
            reverse_messages(j, l, r, md_region_name(stage->region), stage->width);
    }
}

static void print_rank(hp_json *j, const md_sim *s, const md_layout *l, int r)
{
    const hp_decomp *d = &l->decomp[r];
    long long packed = 0;
    for (int k = 0; k < MD_DIRECTIONS; k++) packed += l->halo[r].send_count[k];
    hp_json_object_begin(j, NULL);
    hp_json_int(j, "rank", r);
    hp_json_int(j, "atoms", l->atoms[r].nlocal);
    hp_json_int(j, "ghosts", l->atoms[r].nghost);
    hp_json_int(j, "packed", packed);
    hp_json_array_begin(j, "ordinary");
    step_messages(j, s, l, r, 3, 0);
    hp_json_array_end(j);
    hp_json_array_begin(j, "rebuild");
    for (int k = 0; k < MD_DIRECTIONS; k++)
        sendrecv(j, md_region_name(R_MIGRATION), d->neighbor[k / 2][k % 2], 0, d->neighbor[k / 2][1 - k % 2], 0, GROWN);
    step_messages(j, s, l, r, md_lattice_types(s->p.lattice) > 1 ? 4 : 3, 1);
    hp_json_array_end(j);
    hp_json_array_begin(j, "thermo");
    hp_json_object_begin(j, NULL);
    hp_json_string(j, "op", "allreduce");
    hp_json_string(j, "region", md_region_name(R_REDUCTION));
    hp_json_int(j, "bytes", THERMO_VALUES * (long long)sizeof(double));
    hp_json_object_end(j);
    hp_json_array_end(j);
    hp_json_object_end(j);
}

static void print_plan(const md_sim *s, const md_layout *l)
{
    const md_params *p = &s->p;
    hp_json j;
    hp_json_open(&j, stdout);
    hp_json_object_begin(&j, NULL);
    hp_json_string(&j, "kernel", MD_KERNEL);
    hp_json_int(&j, "ranks", l->ranks);
    hp_json_array_begin(&j, "grid");
    for (int d = 0; d < 3; d++) hp_json_int(&j, NULL, l->decomp[0].dims[d]);
    hp_json_array_end(&j);
    hp_json_int(&j, "atoms", s->natoms);
    hp_json_array_begin(&j, "box");
    for (int d = 0; d < 3; d++) hp_json_real(&j, NULL, s->box_len[d]);
    hp_json_array_end(&j);
    hp_json_real(&j, "cutoff", p->cutoff);
    hp_json_real(&j, "ghost_cut", s->ghost_cut);
    hp_json_int(&j, "steps", p->steps);
    hp_json_array_begin(&j, "rebuild_steps");
    for (long long step = p->neigh_every; step <= p->steps; step += p->neigh_every) hp_json_int(&j, NULL, step);
    hp_json_array_end(&j);
    hp_json_array_begin(&j, "thermo_steps");
    for (long long step = 1; step <= p->steps; step++)
        if (md_is_thermo_step(p, step)) hp_json_int(&j, NULL, step);
    hp_json_array_end(&j);
    hp_json_array_begin(&j, "ranks_plan");
    for (int r = 0; r < l->ranks; r++) print_rank(&j, s, l, r);
    hp_json_array_end(&j);
    hp_json_object_end(&j);
    fputc('\n', stdout);
}

int md_plan(md_sim *s, char *err, size_t errlen)
{
    md_lattice_box(&s->p, s->box_lo, s->box_len);
    s->natoms = md_lattice_atoms(&s->p);
    const int ranks = s->p.plan;
    int dims[3];
    if (hp_decomp_dims(s->p.grid, ranks, dims, err, errlen) ||
        hp_decomp_check(dims, ranks, s->box_len, s->ghost_cut, err, errlen))
        return -1;
    md_layout l = {ranks, calloc((size_t)ranks, sizeof(hp_decomp)), calloc((size_t)ranks, sizeof(md_atoms)),
                   calloc((size_t)ranks, sizeof(md_halo))};
    for (int r = 0; r < ranks; r++) {
        hp_decomp_place(&l.decomp[r], dims, r, s->box_lo, s->box_len);
        md_lattice_fill(&s->p, &l.decomp[r], &l.atoms[r]);
    }
    build_halos(&l, s->ghost_cut);
    if (s->rank == 0) print_plan(s, &l);
    for (int r = 0; r < ranks; r++) {
        md_atoms_free(&l.atoms[r]);
        md_halo_free(&l.halo[r]);
    }
    free(l.decomp);
    free(l.atoms);
    free(l.halo);
    return 0;
}
