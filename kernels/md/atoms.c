/* Storage of per-atom arrays. Arrays are 64-byte aligned so the force loop's vector loads of
 * positions start on cache lines; growth copies into new aligned arrays since realloc would not
 * keep the alignment. Growth is geometric, so a rebuild that adds ghosts rarely reallocates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md.h"

static void *grow_array(void *old, size_t used_bytes, size_t new_bytes)
{
    size_t rounded = (new_bytes + 63) / 64 * 64;
    void *p = aligned_alloc(64, rounded ? rounded : 64);
    if (!p) {
        fprintf(stderr, "%s: error: out of memory (%zu bytes)\n", MD_PROGRAM, new_bytes);
        exit(1);
    }
    if (old) memcpy(p, old, used_bytes);
    free(old);
    return p;
}

void md_atoms_reserve(md_atoms *a, int capacity)
{
    if (capacity <= a->capacity) return;
    int cap = a->capacity + a->capacity / 2;
    if (cap < capacity) cap = capacity;
    size_t used = (size_t)(a->nlocal + a->nghost), n = (size_t)cap;
    double **vectors[] = {&a->x, &a->v, &a->f};
    for (size_t k = 0; k < sizeof vectors / sizeof *vectors; k++)
        *vectors[k] = grow_array(*vectors[k], used * MD_VEC * sizeof(double), n * MD_VEC * sizeof(double));
    a->id = grow_array(a->id, used * sizeof(int64_t), n * sizeof(int64_t));
    a->type = grow_array(a->type, used * sizeof(int), n * sizeof(int));
    a->capacity = cap;
}

/* Copies atom `from` (position, velocity, id, type) over atom `to`. */
void md_atoms_move(md_atoms *a, int from, int to)
{
    memcpy(a->x + MD_VEC * (size_t)to, a->x + MD_VEC * (size_t)from, MD_VEC * sizeof(double));
    memcpy(a->v + MD_VEC * (size_t)to, a->v + MD_VEC * (size_t)from, MD_VEC * sizeof(double));
    a->id[to] = a->id[from];
    a->type[to] = a->type[from];
}

/* Appends an owned atom; the padding lanes are zero so vector loops may treat them as data. */
void md_atoms_append(md_atoms *a, int64_t id, int type, const double r[3], const double vel[3])
{
    md_atoms_reserve(a, a->nlocal + 1);
    int i = a->nlocal++;
    double *x = a->x + MD_VEC * (size_t)i, *v = a->v + MD_VEC * (size_t)i;
    for (int d = 0; d < 3; d++) {
        x[d] = r[d];
        v[d] = vel[d];
    }
    x[3] = v[3] = 0.0;
    a->id[i] = id;
    a->type[i] = type;
}

void md_atoms_free(md_atoms *a)
{
    free(a->x);
    free(a->v);
    free(a->f);
    free(a->id);
    free(a->type);
    memset(a, 0, sizeof *a);
}

void *md_grow(void *p, size_t *cap, size_t need)
{
    if (need <= *cap) return p;
    size_t n = need + need / 2 + 64;
    p = realloc(p, n);
    if (!p) {
        fprintf(stderr, "%s: error: out of memory (%zu bytes)\n", MD_PROGRAM, n);
        exit(1);
    }
    *cap = n;
    return p;
}

double *md_atom_forces(md_sim *s) { return s->atoms.f; }
