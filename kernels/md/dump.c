/* Per-atom output gathered to rank 0 and sorted by atom id: what --write-data and --dump-forces share.
 *
 * --dump-forces writes the forces of the initial state (step 0) in LAMMPS's `dump custom ... id fx fy fz`
 * format, so that the very file a LAMMPS user dumps can be compared line by line, and committed reference
 * forces can check the physics where no LAMMPS is installed. Gathering everything to one rank is simple
 * and fine for files meant to be read; it is not for checkpoints of very large runs. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdlib.h>

#include "hp_output.h"
#include "md.h"

int md_compare_ids(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int md_gather_sorted(md_sim *s, const double *mine, int width, double **all, char *err, size_t errlen)
{
    *all = NULL;
    if (s->natoms > INT_MAX / width) { /* the gather counts doubles in an int */
        snprintf(err, errlen, "per-atom output supports at most %d atoms", INT_MAX / width);
        return -1;
    }
    MPI_Comm comm = s->decomp.cart;
    int count = s->atoms.nlocal * width, *counts = NULL, *displs = NULL;
    if (s->rank == 0) {
        counts = malloc((size_t)s->nranks * sizeof *counts);
        displs = malloc((size_t)s->nranks * sizeof *displs);
        *all = malloc((size_t)s->natoms * width * sizeof(double));
    }
    hp_gather(&s->comm, &count, 1, MPI_INT, counts, 0, comm);
    if (s->rank == 0)
        for (int k = 0, at = 0; k < s->nranks; at += counts[k], k++) displs[k] = at;
    hp_gatherv(&s->comm, mine, count, MPI_DOUBLE, *all, counts, displs, 0, comm);
    if (s->rank == 0) qsort(*all, (size_t)s->natoms, (size_t)width * sizeof(double), md_compare_ids);
    free(counts);
    free(displs);
    return 0;
}

int md_forces_write(md_sim *s, const char *path, char *err, size_t errlen)
{
    const md_atoms *a = &s->atoms;
    double *mine = malloc(((size_t)a->nlocal + 1) * 4 * sizeof(double)), *all;
    for (int i = 0; i < a->nlocal; i++) {
        mine[4 * i] = (double)a->id[i];
        for (int d = 0; d < 3; d++) mine[4 * i + 1 + d] = a->f[MD_VEC * i + d];
    }
    int status = md_gather_sorted(s, mine, 4, &all, err, errlen);
    free(mine);
    if (status || s->rank != 0) return status;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    fprintf(out, "ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n%lld\nITEM: BOX BOUNDS pp pp pp\n", s->natoms);
    for (int d = 0; d < 3; d++) fprintf(out, "%.17g %.17g\n", s->box_lo[d], s->box_lo[d] + s->box_len[d]);
    fprintf(out, "ITEM: ATOMS id fx fy fz\n");
    for (long long k = 0; k < s->natoms; k++)
        fprintf(out, "%lld %.17g %.17g %.17g\n", (long long)all[4 * k], all[4 * k + 1], all[4 * k + 2], all[4 * k + 3]);
    fclose(out);
    status = hp_write_atomic(path, text, len, err, errlen);
    free(text);
    free(all);
    return status;
}
