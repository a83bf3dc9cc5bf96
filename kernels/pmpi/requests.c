/* Which class each outstanding request belongs to, so that the Wait or Test that completes it is
 * counted in that class (an MPI_Wait on an MPI_Iallreduce is collective time, not point-to-point).
 *
 * One open-addressing hash table per thread -- linear probing, deletion by backward shift, doubled
 * at half full -- because requests come and go at the rate of messages: a lookup must cost a few
 * nanoseconds and take no lock. The price: a request completed by another thread than the one that
 * started it is not in that thread's table, and its completion is counted as point-to-point
 * (programs rarely hand requests between threads). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi.h"

struct hp_request_slot {
    uintptr_t key;
    hp_request what;
    int used;
};

_Static_assert(sizeof(MPI_Request) <= sizeof(uintptr_t), "a request handle must fit a key");

/* A pointer in Open MPI, an int in MPICH: either way its bits are its identity. */
static uintptr_t key_of(MPI_Request r)
{
    uintptr_t key = 0;
    memcpy(&key, &r, sizeof r);
    return key;
}

/* Fibonacci hashing: pointers' low bits are all zero, the product's middle bits are not. */
static size_t home(const hp_requests *m, uintptr_t key)
{
    return (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 24) & (m->capacity - 1);
}

static size_t next(const hp_requests *m, size_t i) { return (i + 1) & (m->capacity - 1); }

/* The key's slot, or the empty slot where it would go. */
static size_t probe(const hp_requests *m, uintptr_t key)
{
    size_t i = home(m, key);
    while (m->slots[i].used && m->slots[i].key != key) i = next(m, i);
    return i;
}

static void grow(hp_requests *m)
{
    size_t capacity = m->capacity ? 2 * m->capacity : 64;
    hp_requests bigger = {calloc(capacity, sizeof *m->slots), capacity, m->used};
    if (!bigger.slots) {
        fputs("hybridperf-mpi: error: out of memory for the request table\n", stderr);
        abort();
    }
    for (size_t i = 0; i < m->capacity; i++)
        if (m->slots[i].used) bigger.slots[probe(&bigger, m->slots[i].key)] = m->slots[i];
    free(m->slots);
    *m = bigger;
}

void hp_requests_put(hp_requests *m, MPI_Request r, hp_request what)
{
    if (2 * (m->used + 1) > m->capacity) grow(m);
    uintptr_t key = key_of(r);
    size_t i = probe(m, key);
    if (!m->slots[i].used) m->used++;
    m->slots[i] = (struct hp_request_slot){key, what, 1};
}

hp_request *hp_requests_get(hp_requests *m, MPI_Request r)
{
    if (!m->capacity) return NULL;
    size_t i = probe(m, key_of(r));
    return m->slots[i].used ? &m->slots[i].what : NULL;
}

const hp_request *hp_requests_find(const hp_requests *m, MPI_Request r)
{
    return hp_requests_get((hp_requests *)m, r); /* the table is only read */
}

/* Whether home position h lies cyclically in (hole, j]: then the entry at j must stay where it is. */
static int between(size_t hole, size_t h, size_t j) { return hole < j ? hole < h && h <= j : hole < h || h <= j; }

void hp_requests_forget(hp_requests *m, MPI_Request r)
{
    if (!m->capacity) return;
    size_t hole = probe(m, key_of(r));
    if (!m->slots[hole].used) return;
    /* Backward shift: later entries of the same run move up, so probing never stops at a stale gap. */
    for (size_t j = next(m, hole); m->slots[j].used; j = next(m, j)) {
        if (between(hole, home(m, m->slots[j].key), j)) continue;
        m->slots[hole] = m->slots[j];
        hole = j;
    }
    m->slots[hole].used = 0;
    m->used--;
}
