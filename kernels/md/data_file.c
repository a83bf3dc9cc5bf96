/* LAMMPS data files (atom_style atomic), so a run can start from exactly the state LAMMPS starts from
 * and the two codes can be compared number for number.
 *
 * Rank 0 reads and checks the whole file, then scatters it by broadcasting fixed-size chunks from
 * which every rank keeps the atoms inside its brick -- simple, and memory per rank stays bounded by
 * the chunk size. Writing gathers all atoms to rank 0 sorted by id (dump.c) and writes the file
 * atomically. Up to MD_MAX_TYPES atom types with their Masses, an orthogonal box, no bonds; anything
 * else is refused with the line that says so. Whether the types and masses suit the potential is
 * species.c's judgement (one type of mass 1 for Lennard-Jones in reduced units). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hp_output.h"
#include "md.h"

enum { CHUNK = 65536 }; /* atoms per broadcast while scattering a file */

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && strchr(" \t\r\n", s[n - 1])) s[--n] = '\0';
    size_t lead = strspn(s, " \t");
    memmove(s, s + lead, strlen(s + lead) + 1);
}

/* Header lines ("N atoms", "lo hi xlo xhi", ...) up to the first section keyword, left in *section. */
static int read_header(md_reader *r, md_data *file, long long *ntypes, char **section)
{
    int have_box[3] = {0, 0, 0};
    static const char *const box_words[3] = {"xlo", "ylo", "zlo"};
    *ntypes = -1;
    file->natoms = -1;
    if (!md_next_line(r, section)) return md_reader_fail(r, "empty file, expected a LAMMPS data file");
    char *t;
    while ((t = md_next_content(r))) {
        char copy[512], *w[8];
        snprintf(copy, sizeof copy, "%s", t);
        int n = md_split(copy, w, 7);
        long long count;
        double lo, hi;
        if (n == 2 && strcmp(w[1], "atoms") == 0 && md_to_int64(w[0], &count) == 0)
            file->natoms = count;
        else if (n == 3 && strcmp(w[1], "atom") == 0 && strcmp(w[2], "types") == 0 && md_to_int64(w[0], &count) == 0)
            *ntypes = count;
        else if (n == 4 && md_to_real(w[0], &lo) == 0 && md_to_real(w[1], &hi) == 0 && strncmp(w[3], w[2], 1) == 0 &&
                 (strcmp(w[2], "xlo") == 0 || strcmp(w[2], "ylo") == 0 || strcmp(w[2], "zlo") == 0)) {
            int d = w[2][0] - 'x';
            if (hi <= lo) return md_reader_fail(r, "box bounds must satisfy lo < hi");
            file->lo[d] = lo;
            file->len[d] = hi - lo;
            have_box[d] = 1;
        } else if (n >= 4 && strcmp(w[n - 1], "yz") == 0) {
            return md_reader_fail(r, "triclinic boxes (xy xz yz) are not supported");
        } else if (n >= 2 && md_to_int64(w[0], &count) == 0) {
            if (count != 0) return md_reader_fail(r, "only atoms are supported (no bonds, angles or other topology)");
        } else {
            trim(t);
            *section = t;
            break;
        }
    }
    if (file->natoms < 0) return md_reader_fail(r, "header has no 'N atoms' line");
    if (file->natoms < 2) return md_reader_fail(r, "need at least 2 atoms");
    if (*ntypes < 1 || *ntypes > MD_MAX_TYPES) {
        char msg[96];
        snprintf(msg, sizeof msg, "'N atom types' is required, with N from 1 to %d", MD_MAX_TYPES);
        return md_reader_fail(r, msg);
    }
    file->ntypes = (int)*ntypes;
    for (int d = 0; d < 3; d++)
        if (!have_box[d]) {
            char msg[64];
            snprintf(msg, sizeof msg, "header has no '%s %chi' line", box_words[d], 'x' + d);
            return md_reader_fail(r, msg);
        }
    if (!t) return md_reader_fail(r, "no Atoms section");
    return 0;
}

static double wrap(double v, double lo, double len)
{
    if (v >= lo && v < lo + len) return v;
    v = lo + fmod(v - lo, len);
    if (v < lo) v += len;
    return v >= lo + len ? lo : v;
}

/* Reads `count` data lines of a section, calling `row` on each split line. */
static int read_rows(md_reader *r, long long count, int (*row)(md_reader *, md_data *, char **, int, long long *),
                     md_data *file, long long *seen)
{
    for (long long k = 0; k < count; k++) {
        char *t = md_next_content(r), *w[12];
        if (!t) return md_reader_fail(r, "file ends inside a section");
        if (row(r, file, w, md_split(t, w, 11), seen)) return -1;
    }
    return 0;
}

static int mass_row(md_reader *r, md_data *file, char **w, int n, long long *seen)
{
    (void)seen;
    long long type;
    double m;
    if (n != 2 || md_to_int64(w[0], &type) || md_to_real(w[1], &m)) return md_reader_fail(r, "expected 'type mass'");
    if (type < 1 || type > file->ntypes) return md_reader_fail(r, "mass of a type beyond 'N atom types'");
    if (m <= 0.0) return md_reader_fail(r, "masses must be positive");
    if (file->mass[type] > 0.0) return md_reader_fail(r, "a second mass for this type");
    file->mass[type] = m;
    return 0;
}

static int pair_coeff_row(md_reader *r, md_data *file, char **w, int n, long long *seen)
{
    (void)file;
    (void)seen;
    double eps, sigma;
    if (n < 3 || md_to_real(w[1], &eps) || md_to_real(w[2], &sigma)) return md_reader_fail(r, "expected 'type epsilon sigma'");
    if (eps != 1.0 || sigma != 1.0) return md_reader_fail(r, "only epsilon = sigma = 1 is supported (reduced units)");
    return 0;
}

static double *record_of(md_data *file, long long k) { return file->atoms + k * MD_DATA_RECORD; }

static int atom_row(md_reader *r, md_data *file, char **w, int n, long long *seen)
{
    long long id, type;
    double x[3];
    if ((n != 5 && n != 8) || md_to_int64(w[0], &id) || md_to_int64(w[1], &type) || md_to_real(w[2], &x[0]) ||
        md_to_real(w[3], &x[1]) || md_to_real(w[4], &x[2]))
        return md_reader_fail(r, "expected 'id type x y z [ix iy iz]' (atom_style atomic)");
    if (id < 1 || id > (1LL << 53)) return md_reader_fail(r, "atom ids must be between 1 and 2^53");
    if (type < 1 || type > file->ntypes) return md_reader_fail(r, "atom type beyond 'N atom types'");
    double *rec = record_of(file, (*seen)++);
    rec[0] = (double)id;
    rec[7] = (double)type;
    for (int d = 0; d < 3; d++) rec[1 + d] = wrap(x[d], file->lo[d], file->len[d]);
    return 0;
}

static int velocity_row(md_reader *r, md_data *file, char **w, int n, long long *seen)
{
    long long id;
    double v[3];
    if (n != 4 || md_to_int64(w[0], &id) || md_to_real(w[1], &v[0]) || md_to_real(w[2], &v[1]) || md_to_real(w[3], &v[2]))
        return md_reader_fail(r, "expected 'id vx vy vz'");
    double key = (double)id;
    double *rec = bsearch(&key, file->atoms, (size_t)file->natoms, MD_DATA_RECORD * sizeof(double), md_compare_ids);
    if (!rec) return md_reader_fail(r, "velocity for an atom id that is not in the Atoms section");
    for (int d = 0; d < 3; d++) rec[4 + d] = v[d];
    (*seen)++;
    return 0;
}

static int read_sections(md_reader *r, md_data *file, long long ntypes, char *section)
{
    long long atoms_seen = 0, velocities_seen = 0, unused = 0;
    while (section) {
        char name[64];
        snprintf(name, sizeof name, "%s", section);
        trim(name);
        if (strcmp(name, "Masses") == 0) {
            if (read_rows(r, ntypes, mass_row, file, &unused)) return -1;
        } else if (strcmp(name, "Pair Coeffs") == 0) {
            if (read_rows(r, ntypes, pair_coeff_row, file, &unused)) return -1;
        } else if (strcmp(name, "Atoms") == 0) {
            if (atoms_seen) return md_reader_fail(r, "second Atoms section");
            if (read_rows(r, file->natoms, atom_row, file, &atoms_seen)) return -1;
            qsort(file->atoms, (size_t)file->natoms, MD_DATA_RECORD * sizeof(double), md_compare_ids);
            for (long long k = 1; k < file->natoms; k++)
                if (record_of(file, k)[0] == record_of(file, k - 1)[0])
                    return md_reader_fail(r, "atom ids in the Atoms section are not unique");
        } else if (strcmp(name, "Velocities") == 0) {
            if (!atoms_seen) return md_reader_fail(r, "Velocities before Atoms are not supported");
            if (read_rows(r, file->natoms, velocity_row, file, &velocities_seen)) return -1;
            file->has_velocities = 1;
        } else {
            char msg[160];
            snprintf(msg, sizeof msg, "unexpected '%s' (sections supported: Masses, Pair Coeffs, Atoms, Velocities)",
                     name);
            return md_reader_fail(r, msg);
        }
        section = md_next_content(r);
    }
    if (!atoms_seen) return md_reader_fail(r, "no Atoms section");
    return 0;
}

int md_data_load(const char *path, md_data *file, char *err, size_t errlen)
{
    memset(file, 0, sizeof *file);
    md_reader r;
    if (md_reader_open(&r, path, "data file", err, errlen)) return -1;
    long long ntypes;
    char *section;
    int status = read_header(&r, file, &ntypes, &section);
    if (status == 0) {
        file->atoms = calloc((size_t)file->natoms, MD_DATA_RECORD * sizeof(double));
        if (!file->atoms) status = md_reader_fail(&r, "too many atoms to hold in memory");
    }
    if (status == 0) {
        char first[64];
        snprintf(first, sizeof first, "%s", section);
        status = read_sections(&r, file, ntypes, first);
    }
    md_reader_close(&r);
    if (status) md_data_free(file);
    return status;
}

void md_data_free(md_data *file)
{
    free(file->atoms);
    file->atoms = NULL;
}

void md_data_distribute(md_sim *s, const md_data *file)
{
    double *chunk = malloc((size_t)CHUNK * MD_DATA_RECORD * sizeof(double));
    md_atoms *a = &s->atoms;
    const hp_decomp *d = &s->decomp;
    for (long long first = 0; first < s->natoms; first += CHUNK) {
        int n = (int)(s->natoms - first < CHUNK ? s->natoms - first : CHUNK);
        if (s->rank == 0)
            memcpy(chunk, file->atoms + first * MD_DATA_RECORD, (size_t)n * MD_DATA_RECORD * sizeof(double));
        hp_bcast(&s->comm, chunk, n * MD_DATA_RECORD, MPI_DOUBLE, 0, d->cart);
        for (int k = 0; k < n; k++) {
            const double *rec = chunk + (size_t)k * MD_DATA_RECORD;
            int inside = 1;
            for (int dim = 0; dim < 3; dim++) inside &= rec[1 + dim] >= d->lo[dim] && rec[1 + dim] < d->hi[dim];
            if (inside) md_atoms_append(a, (int64_t)rec[0], (int)rec[7], rec + 1, rec + 4);
        }
    }
    free(chunk);
}

static void write_text(FILE *out, const md_sim *s, const double *rec, long long step)
{
    fprintf(out, "LAMMPS data file written by %s (step %lld, %s)\n\n", MD_PROGRAM, step, s->p.potential_name);
    fprintf(out, "%lld atoms\n%d atom types\n\n", s->natoms, s->species.ntypes);
    for (int d = 0; d < 3; d++)
        fprintf(out, "%.17g %.17g %clo %chi\n", s->box_lo[d], s->box_lo[d] + s->box_len[d], 'x' + d, 'x' + d);
    fprintf(out, "\nMasses\n\n");
    for (int t = 1; t <= s->species.ntypes; t++) fprintf(out, "%d %.17g\n", t, s->species.mass[t]);
    fprintf(out, "\nAtoms # atomic\n\n");
    for (long long k = 0; k < s->natoms; k++, rec += MD_DATA_RECORD)
        fprintf(out, "%lld %d %.17g %.17g %.17g 0 0 0\n", (long long)rec[0], (int)rec[7], rec[1], rec[2], rec[3]);
    fprintf(out, "\nVelocities\n\n");
    rec -= s->natoms * MD_DATA_RECORD;
    for (long long k = 0; k < s->natoms; k++, rec += MD_DATA_RECORD)
        fprintf(out, "%lld %.17g %.17g %.17g\n", (long long)rec[0], rec[4], rec[5], rec[6]);
}

int md_data_write(md_sim *s, const char *path, long long step, char *err, size_t errlen)
{
    const md_atoms *a = &s->atoms;
    double *mine = malloc(((size_t)a->nlocal + 1) * MD_DATA_RECORD * sizeof(double)), *all;
    for (int i = 0; i < a->nlocal; i++) {
        double *rec = mine + (size_t)i * MD_DATA_RECORD;
        rec[0] = (double)a->id[i];
        for (int d = 0; d < 3; d++) {
            rec[1 + d] = a->x[MD_VEC * i + d];
            rec[4 + d] = a->v[MD_VEC * i + d];
        }
        rec[7] = a->type[i];
    }
    int status = md_gather_sorted(s, mine, MD_DATA_RECORD, &all, err, errlen);
    free(mine);
    if (status == 0 && s->rank == 0) {
        char *text = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&text, &len);
        write_text(out, s, all, step);
        fclose(out);
        status = hp_write_atomic(path, text, len, err, errlen);
        free(text);
    }
    free(all);
    return status;
}
