/* The box and its decomposition over the ranks: what set-up does before any atom exists, and
 * --check-decomposition, which does the same for any rank count without running.
 *
 * Front ends validate a study spec by asking this code (through --check-decomposition) which rank
 * counts a problem accepts, rather than re-deriving the geometry: the grid comes from MPI_Dims_create
 * of the MPI library the kernel is linked with, and the box from the lattice or the data file, both of
 * which only the kernel knows for sure. A singleton (the binary run without a launcher) is enough. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "md.h"

int md_box_read(md_sim *s, md_data *file, char *err, size_t errlen)
{
    if (!s->p.read_data) {
        md_lattice_box(&s->p, s->box_lo, s->box_len);
        return 0;
    }
    int ok = 1;
    if (s->rank == 0) ok = md_data_load(s->p.read_data, file, err, errlen) == 0;
    if (hp_any_error(&s->comm, MPI_COMM_WORLD, ok, MD_KERNEL, err)) return -1;
    enum { MASSES = 9, HEADER = MASSES + MD_MAX_TYPES + 1 };
    double header[HEADER] = {file->lo[0],  file->lo[1],  file->lo[2],          file->len[0],
                             file->len[1], file->len[2], (double)file->natoms, file->has_velocities,
                             file->ntypes};
    memcpy(header + MASSES, file->mass, sizeof file->mass);
    hp_bcast(&s->comm, header, HEADER, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    memcpy(s->box_lo, header, 3 * sizeof(double));
    memcpy(s->box_len, header + 3, 3 * sizeof(double));
    s->natoms = (long long)header[6];
    file->has_velocities = (int)header[7];
    file->ntypes = (int)header[8];
    memcpy(file->mass, header + MASSES, sizeof file->mass);
    return 0;
}

/* After "thinner than cutoff + skin" on a lattice: the -s that would fit this grid. */
static void size_hint(const md_sim *s, const int dims[3], char *err, size_t errlen)
{
    if (s->p.read_data || !strstr(err, "thinner")) return;
    int widest = dims[0] > dims[1] ? dims[0] : dims[1];
    widest = widest > dims[2] ? widest : dims[2];
    int size = (int)ceil(s->ghost_cut * widest / md_lattice_spacing(&s->p));
    size_t used = strlen(err);
    snprintf(err + used, errlen - used, ": -s %d or more for a %d x %d x %d grid", size, dims[0], dims[1], dims[2]);
}

int md_decompose(md_sim *s, char *err, size_t errlen)
{
    int ok = hp_decomp_create(&s->decomp, MPI_COMM_WORLD, s->p.grid, s->box_lo, s->box_len, s->ghost_cut, err,
                              errlen) == 0;
    if (!ok) size_hint(s, s->decomp.dims, err, errlen);
    return hp_any_error(&s->comm, MPI_COMM_WORLD, ok, MD_KERNEL, err) ? -1 : 0;
}

int md_check_decomposition(md_sim *s, char *err, size_t errlen)
{
    const hp_list *counts = &s->p.check_decomposition;
    int nranks[HP_LIST_MAX];
    if (hp_list_rank_counts(counts, "check-decomposition", nranks, err, errlen))
        return hp_any_error(&s->comm, MPI_COMM_WORLD, 0, MD_KERNEL, err), -1;
    md_data file = {0};
    int status = md_box_read(s, &file, err, errlen);
    md_data_free(&file);
    if (status || s->rank != 0) return status;
    hp_json j;
    hp_json_open(&j, stdout);
    hp_json_array_begin(&j, NULL);
    for (int k = 0; k < counts->n; k++) {
        int dims[3] = {0, 0, 0};
        char why[512] = "";
        int ok = hp_decomp_dims(s->p.grid, nranks[k], dims, why, sizeof why) == 0 &&
                 hp_decomp_check(dims, nranks[k], s->box_len, s->ghost_cut, why, sizeof why) == 0;
        if (!ok) size_hint(s, dims, why, sizeof why);
        hp_json_object_begin(&j, NULL);
        hp_json_int(&j, "ranks", nranks[k]);
        hp_json_array_begin(&j, "grid");
        for (int d = 0; d < 3; d++) hp_json_int(&j, NULL, dims[d]);
        hp_json_array_end(&j);
        hp_json_verdict(&j, ok, why);
        hp_json_object_end(&j);
    }
    hp_json_array_end(&j);
    fputc('\n', stdout);
    return 0;
}
