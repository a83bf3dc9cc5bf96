/* Embedded-atom potentials: LAMMPS's pair style eam/fs, read from the same setfl files.
 *
 *   E = sum_i F_a(rho_i) + 1/2 sum_i sum_j phi_ab(r_ij),   rho_i = sum_j rho_ba(r_ij)
 *
 * for atom i of element a and neighbour j of element b (Finnis-Sinclair form: the density j gives i
 * depends on both elements). Finnis-Sinclair and Dai et al.'s extended form for Fe, and the
 * Cleri-Rosato (Gupta, SMA-TB) form for Cu-Au, are all of this shape, with F = -sqrt(rho) or a
 * polynomial of it; tabulated, any of them is an eam/fs file.
 *
 * The file (setfl, "fs" variant) holds, after three comment lines, the element names, the grids
 * (Nrho drho Nr dr cutoff), then per element its "Z mass a0 lattice" line, F on the rho grid and its
 * density functions rho_{element, b} for each b on the r grid, then r * phi for each pair of elements
 * (lower triangle). Every table becomes the cubic spline LAMMPS builds (pair_eam.cpp, interpolate) and is
 * looked up the way LAMMPS looks it up, so both codes compute the same numbers to rounding. Of LAMMPS's 7
 * coefficients per piece we keep the value's 4 (the derivative's 3 follow from them), and of each ordered
 * pair of elements (a, b) we keep, piece by piece, r * phi_ab and the density a gives b side by side: one
 * 64-byte record, one cache line per pair and pass, as LAMMPS's eam/opt packs its tables.
 *
 * The parallel structure is DL_POLY's metal_ld_compute followed by its force loop, over each pair once (as
 * DL_POLY's and LAMMPS's lists hold them): at every list build the full list of each owned atom is reordered so
 * that the pairs it owns come first (order_pairs: another owned atom of higher index, or a ghost lying
 * further along z, then y, then x, so that of a pair split between two ranks -- or between an atom and the
 * periodic image of another -- exactly one side owns it). The density pass adds each pair's density to both
 * atoms, owned or ghost; the ghosts' partial densities go home by a reverse halo exchange and F'(rho) of the
 * owned atoms out to the ghosts by a forward one (master only, outside any parallel region); the force loop
 * then moves both atoms of each pair. Both loops are threaded over owned atoms, and since a pair moves an atom
 * another thread may also move, each thread adds into its own private copy of the densities and the forces
 * (copies.c), summed after the loop: the thesis's private-copies overhead, with energy and virial reduced
 * across threads as in its Listing 5.1. Visiting each pair once halves the spline work of a full list.
 * The passes and exchanges are the stages of the table at the end of this file (md.h's md_potential_ops). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "md.h"

enum { COEFFS = 4, RECORD = 2 * COEFFS, NAME = 16, MAX_ELEMENTS = 32 };

typedef struct {
    int nelements, nrho, nr;
    double drho, dr, cut, rhomax;
    char name[MAX_ELEMENTS][NAME], lattice[MAX_ELEMENTS][NAME];
    double mass[MAX_ELEMENTS], a0[MAX_ELEMENTS];
    double *frho; /* [element][nrho + 1][COEFFS] */
    double *pair; /* [element a][element b][nr + 1][RECORD]: r * phi_ab, then the density a gives b */
    int element[MD_MAX_TYPES + 1]; /* of each atom type */
    double *rho, *fp; /* per atom: the density and F'(rho); the ghosts' F' from the exchange */
    int capacity;
    int *owned_pairs; /* per owned atom: how many of its list's first entries are pairs it owns */
    int *near_pairs;  /* of those, how many are within the cutoff: the density pass moves them first */
    md_copies densities, forces; /* the threads' private copies */
    double embedding;            /* sum of F(rho) over the owned atoms, from the last pass with energy */
} md_eam;

static md_eam *eam_of(const md_sim *s) { return s->potential_state; }

static const double *frho_of(const md_eam *e, int element)
{
    return e->frho + (size_t)element * (e->nrho + 1) * COEFFS;
}

static const double *pair_of(const md_eam *e, int a, int b)
{
    return e->pair + ((size_t)a * e->nelements + b) * (e->nr + 1) * RECORD;
}

/* A file may ask for more memory than the machine has: say so and exit. */
static void *checked(void *p, size_t count)
{
    if (!p) {
        fprintf(stderr, "%s: error: out of memory for the potential's tables (%zu doubles)\n", MD_PROGRAM, count);
        exit(1);
    }
    return p;
}

/* Zeroed memory for a table, or exit. */
static double *table(size_t count) { return checked(calloc(count, sizeof(double)), count); }

/* LAMMPS's PairEAM::interpolate: f[1..n] on a grid of spacing delta becomes n cubic pieces, slopes
 * from a five-point stencil inside and one- or two-point differences at the ends. Piece m's value at
 * the fraction p into it is ((c[0] p + c[1]) p + c[2]) p + c[3], for c = spline + m * stride. */
static void interpolate(int n, const double *f, double *spline, int stride)
{
    double *slope = table((size_t)n + 1);
    slope[1] = f[2] - f[1];
    slope[2] = 0.5 * (f[3] - f[1]);
    slope[n - 1] = 0.5 * (f[n] - f[n - 2]);
    slope[n] = f[n] - f[n - 1];
    for (int m = 3; m <= n - 2; m++) slope[m] = ((f[m - 2] - f[m + 2]) + 8.0 * (f[m + 1] - f[m - 1])) / 12.0;
    for (int m = 1; m <= n; m++) {
        double *c = spline + (size_t)m * stride;
        c[3] = f[m];
        c[2] = slope[m];
        c[1] = m < n ? 3.0 * (f[m + 1] - f[m]) - 2.0 * slope[m] - slope[m + 1] : 0.0;
        c[0] = m < n ? slope[m] + slope[m + 1] - 2.0 * (f[m + 1] - f[m]) : 0.0;
    }
    free(slope);
}

/* --- reading (rank 0) --- */

static int read_grids(md_reader *r, md_eam *e)
{
    char *t = NULL;
    for (int k = 0; k < 3; k++)
        if (!md_next_line(r, &t)) return md_reader_fail(r, "file ends in its three comment lines (not a setfl file)");
    char *w[MAX_ELEMENTS + 2];
    if (!(t = md_next_content(r))) return md_reader_fail(r, "file ends before the element line");
    int n = md_split(t, w, MAX_ELEMENTS + 1);
    long long count;
    if (n < 2 || md_to_int64(w[0], &count) || count < 1 || count > MAX_ELEMENTS || count != n - 1)
        return md_reader_fail(r, "expected 'N element1 ... elementN' (the number of elements, then their names)");
    e->nelements = (int)count;
    for (int k = 0; k < e->nelements; k++) {
        if (strlen(w[k + 1]) >= NAME) return md_reader_fail(r, "element name too long");
        strcpy(e->name[k], w[k + 1]);
    }
    if (!(t = md_next_content(r))) return md_reader_fail(r, "file ends before the 'Nrho drho Nr dr cutoff' line");
    long long nrho, nr;
    if (md_split(t, w, 5) != 5 || md_to_int64(w[0], &nrho) || md_to_real(w[1], &e->drho) ||
        md_to_int64(w[2], &nr) || md_to_real(w[3], &e->dr) || md_to_real(w[4], &e->cut))
        return md_reader_fail(r, "expected 'Nrho drho Nr dr cutoff'");
    if (nrho < 5 || nr < 5 || nrho > 1000000 || nr > 1000000 || e->drho <= 0.0 || e->dr <= 0.0 || e->cut <= 0.0)
        return md_reader_fail(r, "grids need 5 to 10^6 points, positive spacings and a positive cutoff");
    e->nrho = (int)nrho;
    e->nr = (int)nr;
    return 0;
}

static int read_element(md_reader *r, md_eam *e, int k, double *frho, double *rhor)
{
    char *t = md_next_content(r), *w[6] = {0};
    double z;
    if (!t || md_split(t, w, 5) < 3 || md_to_real(w[0], &z) || md_to_real(w[1], &e->mass[k]) ||
        md_to_real(w[2], &e->a0[k]))
        return md_reader_fail(r, "expected the element line 'Z mass lattice-constant lattice-type'");
    if (e->mass[k] <= 0.0) return md_reader_fail(r, "the element's mass must be positive");
    snprintf(e->lattice[k], NAME, "%s", w[3] ? w[3] : "");
    char what[64];
    snprintf(what, sizeof what, "F(rho) of %s", e->name[k]);
    if (md_read_numbers(r, frho + 1, e->nrho, what)) return -1;
    for (int b = 0; b < e->nelements; b++) {
        snprintf(what, sizeof what, "rho(r) of %s for %s", e->name[k], e->name[b]);
        if (md_read_numbers(r, rhor + (size_t)b * (e->nr + 1) + 1, e->nr, what)) return -1;
    }
    return 0;
}

/* The raw tables, one per function, each with an unused element 0 (LAMMPS counts grid points from 1). */
typedef struct {
    double *frho, *rhor, *z2r;
} raw_tables;

static size_t pairs_of(int n) { return (size_t)n * (n + 1) / 2; }

static void raw_alloc(raw_tables *raw, const md_eam *e)
{
    const size_t nel = (size_t)e->nelements;
    raw->frho = table(nel * (e->nrho + 1));
    raw->rhor = table(nel * nel * (e->nr + 1));
    raw->z2r = table(pairs_of(e->nelements) * (e->nr + 1));
}

static int read_setfl(const char *path, md_eam *e, raw_tables *raw, char *err, size_t errlen)
{
    md_reader r;
    if (md_reader_open(&r, path, "potential file", err, errlen)) return -1;
    int status = read_grids(&r, e);
    if (status == 0) raw_alloc(raw, e);
    for (int k = 0; status == 0 && k < e->nelements; k++)
        status = read_element(&r, e, k, raw->frho + (size_t)k * (e->nrho + 1),
                              raw->rhor + (size_t)k * e->nelements * (e->nr + 1));
    for (int a = 0, pair = 0; status == 0 && a < e->nelements; a++)
        for (int b = 0; status == 0 && b <= a; b++, pair++) {
            char what[64];
            snprintf(what, sizeof what, "r*phi(r) of %s-%s", e->name[a], e->name[b]);
            status = md_read_numbers(&r, raw->z2r + (size_t)pair * (e->nr + 1) + 1, e->nr, what);
        }
    md_reader_close(&r);
    return status;
}

/* --- set-up (all ranks) --- */

static void broadcast(md_sim *s, md_eam *e, raw_tables *raw)
{
    /* the scalars and names: sent before any of the struct's pointers is set, so none travels */
    hp_bcast(&s->comm, e, (int)sizeof *e, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (s->rank != 0) raw_alloc(raw, e);
    const int nel = e->nelements;
    hp_bcast(&s->comm, raw->frho, nel * (e->nrho + 1), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    hp_bcast(&s->comm, raw->rhor, nel * nel * (e->nr + 1), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    hp_bcast(&s->comm, raw->z2r, (int)pairs_of(nel) * (e->nr + 1), MPI_DOUBLE, 0, MPI_COMM_WORLD);
}

static void build_splines(md_eam *e, const raw_tables *raw)
{
    const int nel = e->nelements;
    const size_t rho_knots = (size_t)e->nrho + 1, r_knots = (size_t)e->nr + 1;
    e->frho = table(nel * rho_knots * COEFFS);
    const size_t records = (size_t)nel * nel * r_knots * RECORD; /* a whole number of 64-byte lines */
    e->pair = checked(aligned_alloc(64, records * sizeof(double)), records);
    memset(e->pair, 0, records * sizeof(double));
    for (int k = 0; k < nel; k++) interpolate(e->nrho, raw->frho + k * rho_knots, e->frho + k * rho_knots * COEFFS, COEFFS);
    for (int a = 0; a < nel; a++)
        for (int b = 0; b < nel; b++) {
            const int hi = a > b ? a : b, lo = a > b ? b : a;
            double *record = (double *)pair_of(e, a, b);
            interpolate(e->nr, raw->z2r + (pairs_of(hi) + lo) * r_knots, record, RECORD);
            interpolate(e->nr, raw->rhor + ((size_t)a * nel + b) * r_knots, record + COEFFS, RECORD);
        }
    e->rhomax = (e->nrho - 1) * e->drho;
}

/* --elements: atom type t is the file's element named by the t-th word, as pair_coeff * * FILE E1 E2 ... */
static int map_elements(md_eam *e, const md_params *p, char *err, size_t errlen)
{
    for (int t = 1; t <= p->elements.n; t++) {
        const char *want = p->elements.item[t - 1];
        e->element[t] = -1;
        for (int k = 0; k < e->nelements; k++)
            if (strcmp(e->name[k], want) == 0) e->element[t] = k;
        if (e->element[t] < 0) {
            char have[MAX_ELEMENTS * NAME] = "";
            for (int k = 0; k < e->nelements; k++) {
                strcat(have, k ? " " : "");
                strcat(have, e->name[k]);
            }
            snprintf(err, errlen, "--elements: %s is not in %s (it has: %s)", want, p->potential_file, have);
            return -1;
        }
    }
    return 0;
}

/* Without --lattice and --lattice-constant, the first type's element line says which and how big. */
static int lattice_defaults(const md_eam *e, md_params *p, char *err, size_t errlen)
{
    if (p->read_data || strcmp(p->lattice_name, "auto") != 0) return 0;
    const int k = e->element[1];
    if (strcasecmp(e->lattice[k], "fcc") == 0)
        p->lattice = MD_FCC;
    else if (strcasecmp(e->lattice[k], "bcc") == 0)
        p->lattice = MD_BCC;
    else {
        snprintf(err, errlen, "%s gives %s the lattice '%s', which hybridperf-md cannot build: give --lattice",
                 p->potential_file, e->name[k], e->lattice[k]);
        return -1;
    }
    p->lattice_name = p->lattice == MD_FCC ? "fcc" : "bcc";
    if (p->lattice_constant == 0.0 && e->a0[k] <= 0.0) {
        snprintf(err, errlen, "%s gives %s no lattice constant: give --lattice-constant", p->potential_file,
                 e->name[k]);
        return -1;
    }
    if (p->lattice_constant == 0.0) p->lattice_constant = e->a0[k];
    return 0;
}

static int load(md_sim *s, char *err, size_t errlen)
{
    md_eam *e = calloc(1, sizeof *e);
    s->potential_state = e;
    raw_tables raw = {0};
    int ok = s->rank != 0 || read_setfl(s->p.potential_file, e, &raw, err, errlen) == 0;
    if (!hp_any_error(&s->comm, MPI_COMM_WORLD, ok, MD_KERNEL, err)) {
        broadcast(s, e, &raw);
        build_splines(e, &raw);
        ok = map_elements(e, &s->p, err, errlen) == 0 && lattice_defaults(e, &s->p, err, errlen) == 0;
        ok = !hp_any_error(&s->comm, MPI_COMM_WORLD, ok, MD_KERNEL, err);
    } else
        ok = 0;
    free(raw.frho);
    free(raw.rhor);
    free(raw.z2r);
    s->p.cutoff = e->cut;
    return ok ? 0 : -1;
}

static void unload(void *state)
{
    md_eam *e = state;
    free(e->frho);
    free(e->pair);
    free(e->rho);
    free(e->fp);
    free(e->owned_pairs);
    free(e->near_pairs);
    md_copies_free(&e->densities);
    md_copies_free(&e->forces);
    free(e);
}

/* --- the two passes --- */

/* The spline piece holding x and the fraction p into it, as LAMMPS finds them. */
static inline size_t piece(double x, double inverse_step, int last, double *p)
{
    double q = x * inverse_step + 1.0;
    int m = (int)q;
    m = m < 1 ? 1 : m > last ? last : m;
    q -= m;
    *p = q < 1.0 ? q : 1.0;
    return (size_t)m;
}

static inline double value(const double *c, double p) { return ((c[0] * p + c[1]) * p + c[2]) * p + c[3]; }
/* d/dx, for a grid of spacing 1 / inverse_step */
static inline double slope(const double *c, double p, double inverse_step)
{
    return ((3.0 * c[0] * p + 2.0 * c[1]) * p + c[2]) * inverse_step;
}

/* Of a pair of an owned atom i and a neighbour j, whether i's side computes it. */
static inline int owns_pair(const double *x, int nlocal, int i, int j)
{
    if (j < nlocal) return j > i;
    const double *xi = x + MD_VEC * (size_t)i, *xj = x + MD_VEC * (size_t)j;
    if (xj[2] != xi[2]) return xj[2] > xi[2];
    if (xj[1] != xi[1]) return xj[1] > xi[1];
    return xj[0] > xi[0];
}

/* After each list build: of each owned atom's list, the pairs it owns first. */
static void order_pairs(md_sim *s)
{
    md_eam *e = eam_of(s);
    const md_atoms *a = &s->atoms;
    if (e->capacity < a->capacity) {
        free(e->rho);
        free(e->fp);
        free(e->owned_pairs);
        free(e->near_pairs);
        e->rho = malloc((size_t)a->capacity * sizeof(double));
        e->fp = malloc((size_t)a->capacity * sizeof(double));
        e->owned_pairs = malloc((size_t)a->capacity * sizeof(int));
        e->near_pairs = malloc((size_t)a->capacity * sizeof(int));
        e->capacity = a->capacity;
    }
    const double cutsq = s->nl.cutsq;
    hp_omp_idle_begin(&s->omp);
#pragma omp parallel
    {
        hp_omp_idle_enter(&s->omp);
#pragma omp for schedule(static) nowait
        for (int i = 0; i < a->nlocal; i++) {
            int *list = s->nl.neigh + (size_t)i * s->nl.list_stride, owned = 0;
            const double *xi = a->x + MD_VEC * (size_t)i;
            for (int k = 0; k < s->nl.numneigh[i]; k++) {
                const int j = list[k];
                const double *xj = a->x + MD_VEC * (size_t)j;
                const double dx = xi[0] - xj[0], dy = xi[1] - xj[1], dz = xi[2] - xj[2];
                if (dx * dx + dy * dy + dz * dz >= cutsq || !owns_pair(a->x, a->nlocal, i, j)) continue;
                list[k] = list[owned]; /* the list stays full, reordered: the owned pairs first */
                list[owned++] = j;
            }
            e->owned_pairs[i] = owned;
        }
        hp_omp_idle_done(&s->omp);
    }
    hp_omp_idle_end(&s->omp);
}

/* What the per-atom loops read, hoisted out of the structs. */
typedef struct {
    const double *restrict x, *restrict pair, *restrict fp;
    const int *restrict type, *restrict element, *restrict owned_pairs;
    int *restrict neigh, *restrict near_pairs; /* the density pass reorders the lists, counts the near pairs */
    int stride, nelements, last;
    size_t knots;
    double cutsq, rdr;
} pair_inputs;

static pair_inputs inputs_of(const md_sim *s)
{
    const md_eam *e = eam_of(s);
    return (pair_inputs){.x = s->atoms.x, .pair = e->pair, .fp = e->fp, .type = s->atoms.type,
                         .element = e->element, .neigh = s->nl.neigh, .owned_pairs = e->owned_pairs, .near_pairs = e->near_pairs,
                         .stride = s->nl.list_stride, .nelements = e->nelements, .last = e->nr - 1,
                         .knots = (size_t)e->nr + 1, .cutsq = e->cut * e->cut, .rdr = 1.0 / e->dr};
}

/* Piece m of the record of elements (a, b): r * phi_ab, then the density a gives b. */
static inline const double *record_of(const pair_inputs *in, int a, int b, size_t m)
{
    return in->pair + (((size_t)a * in->nelements + b) * in->knots + m) * RECORD;
}

/* The pairs atom i owns: their densities added to j in rho, the sum of i's returned; the pairs within the
 * cutoff moved to the front of the list (the force loop runs over them only). `one_element`: the density each
 * gives the other is the same function. */
static inline __attribute__((always_inline)) double atom_density_plain(const pair_inputs *in, int i,
                                                                       double *restrict rho, const int one_element)
{
    const double *restrict x = in->x;
    int *list = in->neigh + (size_t)i * in->stride, near = 0;
    const int ei = in->element[in->type[i]];
    const double xi = x[MD_VEC * i], yi = x[MD_VEC * i + 1], zi = x[MD_VEC * i + 2];
    double rho_i = 0.0;
    for (int k = 0; k < in->owned_pairs[i]; k++) {
        const int j = list[k], ej = one_element ? ei : in->element[in->type[j]];
        const double dx = xi - x[MD_VEC * j], dy = yi - x[MD_VEC * j + 1], dz = zi - x[MD_VEC * j + 2];
        const double rsq = dx * dx + dy * dy + dz * dz;
        if (rsq >= in->cutsq) continue;
        list[k] = list[near];
        list[near++] = j;
        double p;
        const size_t m = piece(sqrt(rsq), in->rdr, in->last, &p);
        const double to_i = value(record_of(in, ej, ei, m) + COEFFS, p);
        rho_i += to_i;
        rho[j] += one_element ? to_i : value(record_of(in, ei, ej, m) + COEFFS, p);
    }
    in->near_pairs[i] = near;
    return rho_i;
}

/* The forces of the pairs atom i owns within the cutoff, on i and on j, into f; energy and virial added when
 * want_energy. */
static inline __attribute__((always_inline)) void atom_forces_plain(const pair_inputs *in, int i, double *restrict f,
                                                                    const int one_element, const int want_energy,
                                                                    double *energy, double *virial)
{
    const double *restrict x = in->x, *restrict fp = in->fp;
    const int *list = in->neigh + (size_t)i * in->stride;
    const int ei = in->element[in->type[i]];
    const double xi = x[MD_VEC * i], yi = x[MD_VEC * i + 1], zi = x[MD_VEC * i + 2], rdr = in->rdr;
    double fx = 0.0, fy = 0.0, fz = 0.0;
    for (int k = 0; k < in->near_pairs[i]; k++) { /* within the cutoff, as the density pass found them */
        const int j = list[k], ej = one_element ? ei : in->element[in->type[j]];
        const double dx = xi - x[MD_VEC * j], dy = yi - x[MD_VEC * j + 1], dz = zi - x[MD_VEC * j + 2];
        const double rsq = dx * dx + dy * dy + dz * dz;
        const double r = sqrt(rsq), recip = 1.0 / r;
        double p;
        const size_t m = piece(r, rdr, in->last, &p);
        const double *z2 = record_of(in, ei, ej, m), *to_j = z2 + COEFFS; /* r phi, the density i gives j */
        const double phi = value(z2, p) * recip, phip = slope(z2, p, rdr) * recip - phi * recip;
        const double gives = slope(to_j, p, rdr);
        const double gets = one_element ? gives : slope(record_of(in, ej, ei, m) + COEFFS, p, rdr);
        const double fpair = -(fp[i] * gets + fp[j] * gives + phip) * recip;
        fx += dx * fpair;
        fy += dy * fpair;
        fz += dz * fpair;
        double *fj = f + MD_VEC * (size_t)j;
        fj[0] -= dx * fpair;
        fj[1] -= dy * fpair;
        fj[2] -= dz * fpair;
        if (want_energy) {
            *energy += phi;
            *virial += rsq * fpair;
        }
    }
    double *fi = f + MD_VEC * (size_t)i;
    fi[0] += fx;
    fi[1] += fy;
    fi[2] += fz;
}

#ifdef __AVX512F__
#include "eam_avx512.h"
#define DENSITY(one) (avx512 ? atom_density_avx512(&in, i, rho, one) : atom_density_plain(&in, i, rho, one))
#define FORCES(one, energy)                                                                                          \
    (avx512 ? atom_forces_avx512(&in, i, f, one, energy, &pair, &virial)                                             \
            : atom_forces_plain(&in, i, f, one, energy, &pair, &virial))
#else
#define DENSITY(one) atom_density_plain(&in, i, rho, one)
#define FORCES(one, energy) atom_forces_plain(&in, i, f, one, energy, &pair, &virial)
#endif

/* The partial densities of owned and ghost atoms, summed over the threads. */
static void density(md_sim *s, int want_energy)
{
    (void)want_energy; /* the embedding terms' energy comes once rho is home */
    md_eam *e = eam_of(s);
    const md_atoms *a = &s->atoms;
    md_copies_prepare(&e->densities, (size_t)s->nl.sentinel + 1); /* as the forces' copies, below */
    const pair_inputs in = inputs_of(s);
    const int one_element = e->nelements == 1, avx512 = s->p.pair_kernel == MD_PAIR_AVX512;
    (void)avx512;
    hp_omp_idle_begin(&s->omp);
#pragma omp parallel
    {
        hp_omp_idle_enter(&s->omp);
        double *restrict rho = md_copies_mine(&e->densities, e->rho);
#pragma omp for schedule(static) nowait
        for (int i = 0; i < a->nlocal; i++) rho[i] += one_element ? DENSITY(1) : DENSITY(0);
        hp_omp_idle_done(&s->omp);
    }
    hp_omp_idle_end(&s->omp);
    md_copies_sum(&e->densities, e->rho, &s->omp);
}

/* F(rho) and F'(rho) of the owned atoms, once the ghosts' partial densities are home. */
static void embedding(md_sim *s, int want_energy)
{
    md_eam *e = eam_of(s);
    const md_atoms *a = &s->atoms;
    const double rdrho = 1.0 / e->drho;
    double embedding = 0.0;
    hp_omp_idle_begin(&s->omp);
#pragma omp parallel reduction(+ : embedding)
    {
        hp_omp_idle_enter(&s->omp);
#pragma omp for schedule(static) nowait
        for (int i = 0; i < a->nlocal; i++) {
            const double rho = e->rho[i];
            double p;
            const double *c = frho_of(e, e->element[a->type[i]]) + piece(rho, rdrho, e->nrho - 1, &p) * COEFFS;
            e->fp[i] = slope(c, p, rdrho);
            if (want_energy) embedding += value(c, p) + (rho > e->rhomax ? e->fp[i] * (rho - e->rhomax) : 0.0);
        }
        hp_omp_idle_done(&s->omp);
    }
    hp_omp_idle_end(&s->omp);
    if (want_energy) e->embedding = embedding;
}

/* Once the ghosts' F'(rho) arrived: each pair's forces into the threads' private copies. */
static void force(md_sim *s, int want_energy)
{
    md_eam *e = eam_of(s);
    md_atoms *a = &s->atoms;
    /* up to the lists' padding sentinel, the atom after the ghosts: the AVX-512 loop writes it zero forces */
    md_copies_prepare(&e->forces, (size_t)(s->nl.sentinel + 1) * MD_VEC);
    const pair_inputs in = inputs_of(s);
    const int one_element = e->nelements == 1, avx512 = s->p.pair_kernel == MD_PAIR_AVX512;
    (void)avx512;
    double pair = 0.0, virial = 0.0;
    hp_omp_idle_begin(&s->omp);
#pragma omp parallel reduction(+ : pair, virial)
    {
        hp_omp_idle_enter(&s->omp);
        double *restrict f = md_copies_mine(&e->forces, a->f);
#pragma omp for schedule(static) nowait
        for (int i = 0; i < a->nlocal; i++) {
            if (want_energy)
                one_element ? FORCES(1, 1) : FORCES(0, 1);
            else
                one_element ? FORCES(1, 0) : FORCES(0, 0);
        }
        hp_omp_idle_done(&s->omp);
    }
    hp_omp_idle_end(&s->omp);
    if (want_energy) {
        s->epot = e->embedding + pair;
        s->virial = virial;
    }
}

static void reduce(md_sim *s, int want_energy)
{
    (void)want_energy; /* a sum of forces, whatever the step */
    md_copies_sum(&eam_of(s)->forces, s->atoms.f, &s->omp);
}

/* The types' masses are the file's, whatever the data file says, as pair_coeff sets them in LAMMPS. */
static int species(md_sim *s, const md_data *file, char *err, size_t errlen)
{
    (void)file;
    if (md_species_one_per_type(s, err, errlen)) return -1;
    const md_eam *e = eam_of(s);
    for (int t = 1; t <= s->species.ntypes; t++) s->species.mass[t] = e->mass[e->element[t]];
    return 0;
}

static double *rho_values(md_sim *s) { return eam_of(s)->rho; }
static double *fp_values(md_sim *s) { return eam_of(s)->fp; }

static const md_stage stages[] = {
    {MD_COMPUTE, R_DENSITY, .compute = density},
    {MD_REVERSE, R_DENSITY_EXCHANGE, .values = rho_values, .stride = 1, .width = 1}, /* the ghosts' partial sums home */
    {MD_COMPUTE, R_DENSITY, .compute = embedding},
    {MD_FORWARD, R_DENSITY_EXCHANGE, .values = fp_values, .stride = 1, .width = 1}, /* F'(rho) out to the ghosts */
    MD_MANY_BODY_FORCE_STAGES(force, reduce),
};

const md_potential_ops md_potential_eam_fs = {
    .name = "eam/fs", .title = "eam/fs", .file = "a setfl file", .validate = md_params_metal, .load = load,
    .unload = unload, .species = species, .lists_built = order_pairs, .stages = stages,
    .nstages = sizeof stages / sizeof *stages};
