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
 * (lower triangle). Every table becomes the 7-coefficient cubic spline LAMMPS builds (pair_eam.cpp,
 * interpolate) and is looked up the way LAMMPS looks it up, so both codes compute the same numbers.
 *
 * The parallel structure is DL_POLY's metal_ld_compute followed by its force loop: a density pass
 * over the owned atoms (threaded; each atom's rho needs only its own full neighbour list, so no
 * ghost densities come back), F'(rho) of the owned atoms sent to the ghosts by a second, forward
 * halo exchange (main.c; master only, outside any parallel region), then the force loop threaded
 * over owned atoms with energy and virial reduced from per-thread copies. With full lists each thread
 * writes only its own atoms' rho, F' and force, so neither loop needs atomics or per-thread force
 * arrays; the price is that each pair's splines are evaluated from both sides. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "md.h"

enum { COEFFS = 7, NAME = 16, MAX_ELEMENTS = 32 };

struct md_eam {
    int nelements, nrho, nr;
    double drho, dr, cut, rhomax;
    char name[MAX_ELEMENTS][NAME], lattice[MAX_ELEMENTS][NAME];
    double mass[MAX_ELEMENTS], a0[MAX_ELEMENTS];
    double *frho; /* [element][nrho + 1][COEFFS] */
    double *rhor; /* [element of the neighbour][element of the atom][nr + 1][COEFFS] */
    double *z2r;  /* [pair of elements, lower triangle][nr + 1][COEFFS] */
    int element[MD_MAX_TYPES + 1]; /* of each atom type */
    double *fp;                    /* per atom: F'(rho); the ghosts' from the exchange */
    int capacity;
    int *near, *nnear; /* per owned atom, the neighbours within the cutoff (the list reaches cutoff + skin) */
    size_t near_cap;
    double embedding; /* sum of F(rho) over the owned atoms, from the last density pass with energy */
};

static double *frho_of(const md_eam *e, int element) { return e->frho + (size_t)element * (e->nrho + 1) * COEFFS; }

/* The density an atom of element `at` receives from a neighbour of element `from`. */
static double *rhor_of(const md_eam *e, int from, int at)
{
    return e->rhor + ((size_t)from * e->nelements + at) * (e->nr + 1) * COEFFS;
}

static double *z2r_of(const md_eam *e, int a, int b)
{
    const int hi = a > b ? a : b, lo = a > b ? b : a;
    return e->z2r + ((size_t)hi * (hi + 1) / 2 + lo) * (e->nr + 1) * COEFFS;
}

/* LAMMPS's PairEAM::interpolate: f[1..n] on a grid of spacing delta becomes n cubic pieces, slopes
 * from a five-point stencil inside and one- or two-point differences at the ends. In spline[m]:
 * 0-2 the derivative's coefficients, 3-6 the value's. */
static void interpolate(int n, double delta, const double *f, double *spline)
{
    double(*s)[COEFFS] = (double(*)[COEFFS])spline;
    for (int m = 1; m <= n; m++) s[m][6] = f[m];
    s[1][5] = s[2][6] - s[1][6];
    s[2][5] = 0.5 * (s[3][6] - s[1][6]);
    s[n - 1][5] = 0.5 * (s[n][6] - s[n - 2][6]);
    s[n][5] = s[n][6] - s[n - 1][6];
    for (int m = 3; m <= n - 2; m++) s[m][5] = ((s[m - 2][6] - s[m + 2][6]) + 8.0 * (s[m + 1][6] - s[m - 1][6])) / 12.0;
    for (int m = 1; m <= n - 1; m++) {
        s[m][4] = 3.0 * (s[m + 1][6] - s[m][6]) - 2.0 * s[m][5] - s[m + 1][5];
        s[m][3] = s[m][5] + s[m + 1][5] - 2.0 * (s[m + 1][6] - s[m][6]);
    }
    s[n][4] = 0.0;
    s[n][3] = 0.0;
    for (int m = 1; m <= n; m++) {
        s[m][2] = s[m][5] / delta;
        s[m][1] = 2.0 * s[m][4] / delta;
        s[m][0] = 3.0 * s[m][3] / delta;
    }
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

/* Zeroed memory for a table, or exit: a file may ask for more than the machine has. */
static double *table(size_t count)
{
    double *p = calloc(count, sizeof(double));
    if (!p) {
        fprintf(stderr, "%s: error: out of memory for the potential's tables (%zu doubles)\n", MD_PROGRAM, count);
        exit(1);
    }
    return p;
}

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
    const size_t nel = (size_t)e->nelements, rho_knots = (size_t)e->nrho + 1, r_knots = (size_t)e->nr + 1;
    e->frho = table(nel * rho_knots * COEFFS);
    e->rhor = table(nel * nel * r_knots * COEFFS);
    e->z2r = table(pairs_of(e->nelements) * r_knots * COEFFS);
    for (size_t k = 0; k < nel; k++) interpolate(e->nrho, e->drho, raw->frho + k * rho_knots, frho_of(e, (int)k));
    for (size_t k = 0; k < nel * nel; k++)
        interpolate(e->nr, e->dr, raw->rhor + k * r_knots, e->rhor + k * r_knots * COEFFS);
    for (size_t k = 0; k < pairs_of(e->nelements); k++)
        interpolate(e->nr, e->dr, raw->z2r + k * r_knots, e->z2r + k * r_knots * COEFFS);
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

int md_eam_load(md_sim *s, char *err, size_t errlen)
{
    md_eam *e = calloc(1, sizeof *e);
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
    s->eam = e;
    return ok ? 0 : -1;
}

double md_eam_cutoff(const md_eam *e) { return e->cut; }
double md_eam_mass(const md_eam *e, int type) { return e->mass[e->element[type]]; }
double *md_eam_exchanged(md_eam *e) { return e->fp; }

void md_eam_free(md_eam *e)
{
    if (!e) return;
    free(e->frho);
    free(e->rhor);
    free(e->z2r);
    free(e->fp);
    free(e->near);
    free(e->nnear);
    free(e);
}

/* --- the two passes --- */

/* The spline piece holding x and the fraction p into it, as LAMMPS finds them. */
static inline const double *piece(const double *spline, double x, double inverse_step, int last, double *p)
{
    double q = x * inverse_step + 1.0;
    int m = (int)q;
    m = m < 1 ? 1 : m > last ? last : m;
    q -= m;
    *p = q < 1.0 ? q : 1.0;
    return spline + (size_t)m * COEFFS;
}

static inline double value(const double *c, double p) { return ((c[3] * p + c[4]) * p + c[5]) * p + c[6]; }
static inline double slope(const double *c, double p) { return (c[0] * p + c[1]) * p + c[2]; }

void md_eam_density(md_sim *s, int want_energy)
{
    md_eam *e = s->eam;
    const md_atoms *a = &s->atoms;
    if (e->capacity < a->capacity) {
        free(e->fp);
        e->fp = malloc((size_t)a->capacity * sizeof(double));
        e->capacity = a->capacity;
        free(e->nnear);
        e->nnear = malloc((size_t)a->capacity * sizeof(int));
    }
    const size_t stride = (size_t)s->nl.list_stride;
    if (e->near_cap < (size_t)a->nlocal * stride) {
        free(e->near);
        e->near_cap = (size_t)a->capacity * stride;
        e->near = malloc(e->near_cap * sizeof(int));
    }
    const double *restrict x = a->x;
    const int *restrict type = a->type, *restrict numneigh = s->nl.numneigh;
    const double cutsq = e->cut * e->cut, rdr = 1.0 / e->dr, rdrho = 1.0 / e->drho;
    double embedding = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : embedding)
    for (int i = 0; i < a->nlocal; i++) {
        const int *list = s->nl.neigh + (size_t)i * s->nl.list_stride;
        const int at = e->element[type[i]];
        const double *xi = x + MD_VEC * (size_t)i;
        int *near = e->near + (size_t)i * stride, n = 0;
        double rho = 0.0;
        for (int k = 0; k < numneigh[i]; k++) {
            const int j = list[k];
            const double dx = xi[0] - x[MD_VEC * j], dy = xi[1] - x[MD_VEC * j + 1], dz = xi[2] - x[MD_VEC * j + 2];
            const double rsq = dx * dx + dy * dy + dz * dz;
            if (rsq >= cutsq) continue;
            near[n++] = j;
            double p;
            const double *c = piece(rhor_of(e, e->element[type[j]], at), sqrt(rsq), rdr, e->nr - 1, &p);
            rho += value(c, p);
        }
        e->nnear[i] = n;
        double p;
        const double *c = piece(frho_of(e, at), rho, rdrho, e->nrho - 1, &p);
        e->fp[i] = slope(c, p);
        if (want_energy) embedding += value(c, p) + (rho > e->rhomax ? e->fp[i] * (rho - e->rhomax) : 0.0);
    }
    if (want_energy) e->embedding = embedding;
}

void md_eam_force(md_sim *s, int want_energy)
{
    const md_eam *e = s->eam;
    md_atoms *a = &s->atoms;
    const double *restrict x = a->x, *restrict fp = e->fp;
    double *restrict f = a->f;
    const int *restrict type = a->type, *restrict nnear = e->nnear;
    const double rdr = 1.0 / e->dr;
    double pair = 0.0, virial = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : pair, virial)
    for (int i = 0; i < a->nlocal; i++) {
        const int *near = e->near + (size_t)i * s->nl.list_stride; /* within the cutoff: the density pass's */
        const int ei = e->element[type[i]];
        const double *xi = x + MD_VEC * (size_t)i;
        double fx = 0.0, fy = 0.0, fz = 0.0, energy = 0.0, w = 0.0;
        for (int k = 0; k < nnear[i]; k++) {
            const int j = near[k], ej = e->element[type[j]];
            const double dx = xi[0] - x[MD_VEC * j], dy = xi[1] - x[MD_VEC * j + 1], dz = xi[2] - x[MD_VEC * j + 2];
            const double rsq = dx * dx + dy * dy + dz * dz;
            const double r = sqrt(rsq), recip = 1.0 / r;
            double p;
            const double *to_j = piece(rhor_of(e, ei, ej), r, rdr, e->nr - 1, &p); /* the density i gives j */
            const double *to_i = rhor_of(e, ej, ei) + (to_j - rhor_of(e, ei, ej));
            const double *z2 = z2r_of(e, ei, ej) + (to_j - rhor_of(e, ei, ej));
            const double phi = value(z2, p) * recip, phip = slope(z2, p) * recip - phi * recip;
            const double gives = slope(to_j, p), gets = ei == ej ? gives : slope(to_i, p); /* one table: same */
            const double psip = fp[i] * gets + fp[j] * gives + phip;
            const double fpair = -psip * recip;
            fx += dx * fpair;
            fy += dy * fpair;
            fz += dz * fpair;
            if (want_energy) {
                energy += phi;
                w += rsq * fpair;
            }
        }
        double *fi = f + MD_VEC * (size_t)i;
        fi[0] = fx;
        fi[1] = fy;
        fi[2] = fz;
        fi[3] = 0.0;
        if (want_energy) {
            pair += 0.5 * energy; /* each pair is in both atoms' lists */
            virial += 0.5 * w;
        }
    }
    if (want_energy) {
        s->epot = e->embedding + pair;
        s->virial = virial;
    }
}
