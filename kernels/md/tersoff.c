/* Tersoff's three-body potential, as LAMMPS's pair style tersoff computes it, from the same .tersoff files.
 *
 *   E = 1/2 sum_i sum_j fc(r_ij) [ A exp(-lam1 r_ij) - b_ij B exp(-lam2 r_ij) ],
 *   b_ij = (1 + (beta zeta_ij)^n)^(-1/2n),
 *   zeta_ij = sum_k fc(r_ik) g(theta_ijk) exp(lam3^m (r_ij - r_ik)^m),
 *   g = gamma (1 + c^2/d^2 - c^2 / (d^2 + (h - cos theta)^2))
 *
 * Each entry of the file (element i, j, k, then m gamma lam3 c d h n beta lam2 B R D lam1 A, possibly over
 * several lines) gives the three-body terms of the triplet (i, j, k); the two-body terms of i-j come from the
 * entry (i, j, j). b_ij switches to LAMMPS's asymptotic forms at the same thresholds, and the exponential of
 * the three-body term is clamped at the same +-69.0776, so both codes compute the same numbers.
 *
 * The parallel structure is DL_POLY's tersoff_forces: the loop over owned atoms i is threaded, and the bond
 * i-j moves not only i but j and every k around i -- atoms other threads own, and ghosts. As DL_POLY does,
 * each thread adds into its own private copy of the forces of all atoms, owned and ghost; the copies are then
 * summed (the "force_reduction" region: the thesis's private-copies overhead, zero on one thread), and the
 * ghosts' forces are sent back to the ranks that own them by a reverse halo exchange ("force_exchange").
 * The alternative, owning each bond by the thread of the atom it moves, needs every atom's neighbours'
 * neighbours (ghosts of ghosts) and computes each bond order up to three times; the private copies cost
 * memory (threads x atoms x 32 bytes) and one pass over it, which measured cheaper than recomputing.
 * The loop, the sum and the exchange are the stages of the table at the end of this file (md.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "md.h"

enum { FIELDS = 17, WORD = 32 };
static const double HALF_PI = 1.57079632679489661923, QUARTER_PI = 0.78539816339744830962;

typedef struct {
    double m, gamma, lam3, c, d, h, n, beta, lam2, big_b, big_r, big_d, lam1, big_a;
    double cutsq, c1, c2, c3, c4; /* c1..c4: where b_ij takes its asymptotic forms */
    int m_int, present;
} tersoff_param;

typedef struct {
    int ntypes;
    double cut;
    tersoff_param *param; /* [type i][type j][type k], types from 1 */
    md_copies forces;     /* the threads' private copies of the forces of all atoms */
} md_tersoff;

static md_tersoff *tersoff_of(const md_sim *s) { return s->potential_state; }

static tersoff_param *param_of(const md_tersoff *t, int i, int j, int k)
{
    const int n = t->ntypes + 1;
    return &t->param[((size_t)i * n + j) * n + k];
}

/* --- reading (rank 0) --- */

typedef struct {
    char word[FIELDS][WORD];
    long line[FIELDS];
} entry;

/* The next entry's 17 words, gathered over as many lines as it takes. 1, 0 at the end of the file, -1 on error. */
static int next_entry(md_reader *r, entry *e)
{
    int have = 0;
    while (have < FIELDS) {
        char *t = md_next_content(r);
        if (!t) return have == 0 ? 0 : md_reader_fail(r, "file ends inside an entry (17 fields: 3 elements, 14 numbers)");
        for (char *w = strtok(t, " \t\r\n"); w; w = strtok(NULL, " \t\r\n")) {
            if (have == FIELDS) return md_reader_fail(r, "more than 17 fields in an entry");
            if (strlen(w) >= WORD) return md_reader_fail(r, "field too long");
            strcpy(e->word[have], w);
            e->line[have++] = r->number;
        }
    }
    return 1;
}

static int fail_at(md_reader *r, long line, const char *what)
{
    r->number = line;
    return md_reader_fail(r, what);
}

/* The entry's numbers and the checks LAMMPS makes of them. */
static int parse_param(md_reader *r, const entry *e, tersoff_param *p)
{
    double v[FIELDS - 3];
    for (int f = 3; f < FIELDS; f++)
        if (md_to_real(e->word[f], &v[f - 3])) {
            char msg[96];
            snprintf(msg, sizeof msg, "'%.40s' is not a number (field %d of the entry)", e->word[f], f + 1);
            return fail_at(r, e->line[f], msg);
        }
    *p = (tersoff_param){.m = v[0], .gamma = v[1], .lam3 = v[2], .c = v[3], .d = v[4], .h = v[5], .n = v[6],
                         .beta = v[7], .lam2 = v[8], .big_b = v[9], .big_r = v[10], .big_d = v[11], .lam1 = v[12],
                         .big_a = v[13], .present = 1};
    p->m_int = (int)p->m;
    if (p->c < 0 || p->d < 0 || p->n < 0 || p->beta < 0 || p->lam2 < 0 || p->big_b < 0 || p->big_r < 0 ||
        p->big_d < 0 || p->big_d > p->big_r || p->lam1 < 0 || p->big_a < 0 || p->gamma < 0 || p->m != p->m_int ||
        (p->m_int != 1 && p->m_int != 3))
        return fail_at(r, e->line[0], "illegal Tersoff parameters (m must be 1 or 3, D <= R, the others >= 0)");
    const double cut = p->big_r + p->big_d;
    p->cutsq = cut * cut;
    p->c1 = pow(2.0 * p->n * 1.0e-16, -1.0 / p->n);
    p->c2 = pow(2.0 * p->n * 1.0e-8, -1.0 / p->n);
    p->c3 = 1.0 / p->c2;
    p->c4 = 1.0 / p->c1;
    return 0;
}

/* Copies an entry to every type triplet whose elements it names (several types may be one element). */
static int assign(md_tersoff *t, const hp_list *elements, md_reader *r, const entry *e, const tersoff_param *p)
{
    int matched = 0;
    for (int i = 1; i <= t->ntypes; i++)
        for (int j = 1; j <= t->ntypes; j++)
            for (int k = 1; k <= t->ntypes; k++) {
                if (strcmp(elements->item[i - 1], e->word[0]) || strcmp(elements->item[j - 1], e->word[1]) ||
                    strcmp(elements->item[k - 1], e->word[2]))
                    continue;
                tersoff_param *slot = param_of(t, i, j, k);
                if (slot->present && !matched) return fail_at(r, e->line[0], "a second entry for these elements");
                *slot = *p;
                matched = 1;
            }
    return 0;
}

static int names_used(const hp_list *elements, const entry *e)
{
    for (int f = 0; f < 3; f++) {
        int found = 0;
        for (int k = 0; k < elements->n; k++) found |= strcmp(elements->item[k], e->word[f]) == 0;
        if (!found) return 0;
    }
    return 1;
}

static int read_file(const char *path, const hp_list *elements, md_tersoff *t, char *err, size_t errlen)
{
    md_reader r;
    if (md_reader_open(&r, path, "potential file", err, errlen)) return -1;
    entry e;
    int status;
    while ((status = next_entry(&r, &e)) == 1) {
        if (!names_used(elements, &e)) continue; /* as LAMMPS: entries of other elements are not read */
        tersoff_param p;
        if ((status = parse_param(&r, &e, &p)) || (status = assign(t, elements, &r, &e, &p))) break;
    }
    md_reader_close(&r);
    if (status) return -1;
    for (int i = 1; i <= t->ntypes; i++)
        for (int j = 1; j <= t->ntypes; j++)
            for (int k = 1; k <= t->ntypes; k++)
                if (!param_of(t, i, j, k)->present) {
                    snprintf(err, errlen, "%s has no entry for %s %s %s (every triplet of --elements is needed)", path,
                             elements->item[i - 1], elements->item[j - 1], elements->item[k - 1]);
                    return -1;
                }
    return 0;
}

static int load(md_sim *s, char *err, size_t errlen)
{
    md_tersoff *t = calloc(1, sizeof *t);
    s->potential_state = t;
    t->ntypes = s->p.elements.n;
    const size_t n = (size_t)(t->ntypes + 1) * (t->ntypes + 1) * (t->ntypes + 1);
    t->param = calloc(n, sizeof *t->param);
    int ok = s->rank != 0 || read_file(s->p.potential_file, &s->p.elements, t, err, errlen) == 0;
    if (hp_any_error(&s->comm, MPI_COMM_WORLD, ok, MD_KERNEL, err)) return -1;
    hp_bcast(&s->comm, t->param, (int)(n * sizeof *t->param), MPI_BYTE, 0, MPI_COMM_WORLD);
    for (size_t k = 0; k < n; k++)
        if (t->param[k].present && sqrt(t->param[k].cutsq) > t->cut) t->cut = sqrt(t->param[k].cutsq);
    s->p.cutoff = t->cut;
    return 0;
}

static void unload(void *state)
{
    md_tersoff *t = state;
    free(t->param);
    md_copies_free(&t->forces);
    free(t);
}

/* --- the functions of the potential --- */

static inline double cutoff_fn(double r, const tersoff_param *p)
{
    if (r < p->big_r - p->big_d) return 1.0;
    if (r > p->big_r + p->big_d) return 0.0;
    return 0.5 * (1.0 - sin(HALF_PI * (r - p->big_r) / p->big_d));
}

static inline double cutoff_d(double r, const tersoff_param *p)
{
    if (r < p->big_r - p->big_d || r > p->big_r + p->big_d) return 0.0;
    return -(QUARTER_PI / p->big_d) * cos(HALF_PI * (r - p->big_r) / p->big_d);
}

static inline double attraction(double r, const tersoff_param *p)
{
    if (r > p->big_r + p->big_d) return 0.0;
    return -p->big_b * exp(-p->lam2 * r) * cutoff_fn(r, p);
}

static inline double attraction_d(double r, const tersoff_param *p)
{
    if (r > p->big_r + p->big_d) return 0.0;
    return p->big_b * exp(-p->lam2 * r) * (p->lam2 * cutoff_fn(r, p) - cutoff_d(r, p));
}

/* The bond order b(zeta) and its derivative in *derivative, in LAMMPS's four regimes (ters_bij, ters_bij_d)
 * with each power computed once for both: pow is most of Tersoff's cost. */
static inline double bond_order(double zeta, const tersoff_param *p, double *derivative)
{
    const double x = p->beta * zeta;
    if (x > p->c1) {
        const double root = sqrt(x);
        *derivative = p->beta * -0.5 / (x * root);
        return 1.0 / root;
    }
    if (x > p->c2) {
        const double root = sqrt(x), x_n = pow(x, -p->n);
        *derivative = p->beta * (-0.5 / (x * root) * (1.0 - (1.0 + 1.0 / (2.0 * p->n)) * x_n));
        return (1.0 - x_n / (2.0 * p->n)) / root;
    }
    if (x < p->c4) {
        *derivative = 0.0;
        return 1.0;
    }
    if (x < p->c3) {
        const double xn_1 = pow(x, p->n - 1.0);
        *derivative = -0.5 * p->beta * xn_1;
        return 1.0 - xn_1 * x / (2.0 * p->n);
    }
    const double xn = pow(x, p->n), b = pow(1.0 + xn, -1.0 / (2.0 * p->n));
    *derivative = -0.5 * b / (1.0 + xn) * xn / zeta;
    return b;
}

static inline double angular(double cos_theta, const tersoff_param *p)
{
    const double c2 = p->c * p->c, d2 = p->d * p->d, hc = p->h - cos_theta;
    return p->gamma * (1.0 + c2 / d2 - c2 / (d2 + hc * hc));
}

static inline double angular_d(double cos_theta, const tersoff_param *p)
{
    const double c2 = p->c * p->c, d2 = p->d * p->d, hc = p->h - cos_theta;
    const double inv = 1.0 / (d2 + hc * hc);
    return p->gamma * -2.0 * c2 * hc * inv * inv;
}

/* exp((lam3 (rij - rik))^m), clamped as LAMMPS clamps it, and its derivative in rij */
static inline double radial(double rij, double rik, const tersoff_param *p, double *derivative)
{
    if (p->lam3 == 0.0) { /* most published sets: exp(0), without calling exp */
        *derivative = 0.0;
        return 1.0;
    }
    const double u = p->lam3 * (rij - rik), arg = p->m_int == 3 ? u * u * u : u;
    const double e = arg > 69.0776 ? 1.0e30 : arg < -69.0776 ? 0.0 : exp(arg);
    *derivative = p->m_int == 3 ? 3.0 * p->lam3 * p->lam3 * p->lam3 * (rij - rik) * (rij - rik) * e : p->lam3 * e;
    return e;
}

static inline double dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static inline void add_scaled(double *to, double s, const double v[3])
{
    to[0] += s * v[0];
    to[1] += s * v[1];
    to[2] += s * v[2];
}

/* The forces on i, j and k of prefactor * d(zeta term of k in bond i-j); rij, rik: vectors from i. */
static void zeta_forces(double prefactor, const double rij[3], double lij, const double rik[3], double lik,
                        const tersoff_param *p, double fi[3], double fj[3], double fk[3])
{
    double uij[3], uik[3];
    for (int d = 0; d < 3; d++) {
        uij[d] = rij[d] / lij;
        uik[d] = rik[d] / lik;
    }
    const double fc = cutoff_fn(lik, p), dfc = cutoff_d(lik, p);
    double e_d;
    const double e = radial(lij, lik, p, &e_d);
    const double cos_theta = dot(uij, uik), g = angular(cos_theta, p), g_d = angular_d(cos_theta, p);
    double dcos_j[3], dcos_k[3];
    for (int d = 0; d < 3; d++) {
        dcos_j[d] = (uik[d] - cos_theta * uij[d]) / lij;
        dcos_k[d] = (uij[d] - cos_theta * uik[d]) / lik;
    }
    for (int d = 0; d < 3; d++) {
        fj[d] = prefactor * (fc * g_d * e * dcos_j[d] + fc * g * e_d * uij[d]);
        fk[d] = prefactor * (dfc * g * e * uik[d] + fc * g_d * e * dcos_k[d] - fc * g * e_d * uik[d]);
        fi[d] = -fj[d] - fk[d];
    }
}

/* --- the force loop --- */

typedef struct {
    double energy, virial;
} bond_sums;

/* Every bond i-j of owned atom i: the pair repulsion (half of it: j's list holds the other half), the
 * attraction with i's bond order, and its three-body forces on j and the k around i, added into f.
 * The neighbour list reaches cutoff + skin, where a covalent solid has several times more atoms than within
 * the cutoff, so the neighbours inside the largest cutoff are first copied, with their vectors from i, into a
 * short list that the j and k loops then run over (LAMMPS keeps the same short list). */
static void atom_bonds(const md_sim *s, const md_tersoff *t, int i, double *restrict f, int want_energy,
                       bond_sums *sums)
{
    const double *x = s->atoms.x;
    const int *type = s->atoms.type, *list = s->nl.neigh + (size_t)i * s->nl.list_stride, count = s->nl.numneigh[i];
    const int ti = type[i];
    const double *xi = x + MD_VEC * (size_t)i, cutsq = t->cut * t->cut;
    int near[count > 0 ? count : 1], n = 0;
    double r[count > 0 ? count : 1][3], rsq[count > 0 ? count : 1], len[count > 0 ? count : 1];
    for (int a = 0; a < count; a++) {
        const int j = list[a];
        const double d[3] = {x[MD_VEC * j] - xi[0], x[MD_VEC * j + 1] - xi[1], x[MD_VEC * j + 2] - xi[2]};
        const double dd = dot(d, d);
        if (dd >= cutsq) continue;
        near[n] = j;
        rsq[n] = dd;
        len[n] = sqrt(dd);
        memcpy(r[n++], d, sizeof d);
    }
    for (int a = 0; a < n; a++) {
        const int j = near[a], tj = type[j];
        const tersoff_param *pij = param_of(t, ti, tj, tj);
        if (rsq[a] >= pij->cutsq) continue;
        const double *rij = r[a], lij = len[a];
        /* repulsion: V = fc A exp(-lam1 r), half per visit */
        const double rep = pij->big_a * exp(-pij->lam1 * lij), fc = cutoff_fn(lij, pij);
        double fpair = 0.5 * rep * (cutoff_d(lij, pij) - fc * pij->lam1) / lij; /* along rij, on i */
        double zeta = 0.0;
        for (int b = 0; b < n; b++) {
            const tersoff_param *pijk = param_of(t, ti, tj, type[near[b]]);
            if (b == a || rsq[b] >= pijk->cutsq) continue;
            const double lik = len[b], cos_theta = dot(rij, r[b]) / (lij * lik);
            double unused;
            zeta += cutoff_fn(lik, pijk) * angular(cos_theta, pijk) * radial(lij, lik, pijk, &unused);
        }
        double bij_d;
        const double bij = bond_order(zeta, pij, &bij_d);
        fpair += 0.5 * bij * attraction_d(lij, pij) / lij;
        const double prefactor = -0.5 * attraction(lij, pij) * bij_d;
        add_scaled(f + MD_VEC * (size_t)i, fpair, rij);
        add_scaled(f + MD_VEC * (size_t)j, -fpair, rij);
        if (want_energy) {
            sums->energy += 0.5 * fc * rep + 0.5 * bij * attraction(lij, pij);
            sums->virial -= rsq[a] * fpair;
        }
        for (int b = 0; b < n; b++) {
            const int k = near[b];
            const tersoff_param *pijk = param_of(t, ti, tj, type[k]);
            if (b == a || rsq[b] >= pijk->cutsq) continue;
            double fi[3], fj[3], fk[3];
            zeta_forces(prefactor, rij, lij, r[b], len[b], pijk, fi, fj, fk);
            add_scaled(f + MD_VEC * (size_t)i, 1.0, fi);
            add_scaled(f + MD_VEC * (size_t)j, 1.0, fj);
            add_scaled(f + MD_VEC * (size_t)k, 1.0, fk);
            if (want_energy) sums->virial += dot(rij, fj) + dot(r[b], fk);
        }
    }
}

/* Each thread into its own copy of the forces. */
static void force(md_sim *s, int want_energy)
{
    md_tersoff *t = tersoff_of(s);
    md_atoms *a = &s->atoms;
    md_copies_prepare(&t->forces, (size_t)(a->nlocal + a->nghost) * MD_VEC);
    double energy = 0.0, virial = 0.0;
    hp_omp_idle_begin(&s->omp);
#pragma omp parallel reduction(+ : energy, virial)
    {
        hp_omp_idle_enter(&s->omp);
        double *f = md_copies_mine(&t->forces, a->f);
        bond_sums sums = {0.0, 0.0};
#pragma omp for schedule(static) nowait
        for (int i = 0; i < a->nlocal; i++) atom_bonds(s, t, i, f, want_energy, &sums);
        energy += sums.energy;
        virial += sums.virial;
        hp_omp_idle_done(&s->omp);
    }
    hp_omp_idle_end(&s->omp);
    if (want_energy) {
        s->epot = energy;
        s->virial = virial;
    }
}

static void reduce(md_sim *s, int want_energy)
{
    (void)want_energy; /* a sum of forces, whatever the step */
    md_copies_sum(&tersoff_of(s)->forces, s->atoms.f, &s->omp);
}

/* A .tersoff file names no lattice (an eam/fs file does): a run from a lattice must say which. */
static int validate(md_params *p, const hp_arg *args, int nargs, char *err, size_t errlen)
{
    if (md_params_metal(p, args, nargs, err, errlen)) return -1;
    if (p->read_data || p->lattice != MD_LATTICE_AUTO) return 0;
    snprintf(err, errlen, "--potential tersoff needs --lattice and --lattice-constant, or --read-data");
    return -1;
}

static const md_stage stages[] = {
    MD_MANY_BODY_FORCE_STAGES(force, reduce),
};

const md_potential_ops md_potential_tersoff = {
    .name = "tersoff", .title = "tersoff", .file = "a .tersoff file", .validate = validate, .load = load,
    .unload = unload, .species = md_species_weights, .stages = stages, .nstages = sizeof stages / sizeof *stages};
