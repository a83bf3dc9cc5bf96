/* The mesh: partitions of linked zones, and the constants of the deposit arithmetic.
 *
 * Allocation is CLOMP 1.2's, because where memory lands is one of the things CLOMP measures: the
 * partition records are allocated one at a time, then each partition's zones as one block, both in
 * `parallel for schedule(static)` loops run by allocThreads threads. With allocThreads equal to
 * numThreads a partition is allocated and first touched by the thread that later sweeps it under the
 * static and manual schedules (NUMA-local); with allocThreads 1 the master places everything. The
 * zones of a block are zoneSize bytes apart and linked in order, so the list walk is a constant
 * stride the hardware prefetches although the code chases pointers.
 *
 * One difference from CLOMP 1.2 is deliberate: CLOMP indexes its zone block as an array of 32-byte
 * zones, so zones are 32 bytes apart whatever zoneSize says and a larger zoneSize only enlarges the
 * allocation. Here zones are zoneSize bytes apart (rounded up to 8 bytes, to keep the fields
 * aligned), as the paper describes the parameter; for the nominal zoneSize 32 the two layouts are
 * identical. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "deposit.h"

int clomp_mesh_create(clomp *c, char *err, size_t errlen)
{
    const long nparts = c->p.num_parts, nzones = c->p.zones_per_part, stride = c->zone_size;
    const double zones_in_mesh = (double)nzones * (double)nparts;
    c->total_zones = zones_in_mesh;
    c->memory_bytes = zones_in_mesh * (double)stride + (double)nparts * (double)sizeof(clomp_part);
    c->parts = calloc((size_t)nparts, sizeof *c->parts);
    const long records = c->parts ? nparts : 0;
    int failed = records == 0;
#pragma omp parallel for schedule(static) num_threads(c->alloc_threads)
    for (long k = 0; k < records; k++) {
        clomp_part *part = malloc(sizeof *part);
        if (!part) {
#pragma omp atomic write
            failed = 1;
            continue;
        }
        /* CLOMP's ratio keeps every deposit far above underflow for any zone count. */
        *part = (clomp_part){.id = k,
                             .deposit_ratio = (1.5 * (double)nparts + (double)k) / zones_in_mesh,
                             .expected_first = -1.0,
                             .expected_residue = -1.0};
        c->parts[k] = part;
    }
    const long blocks = failed ? 0 : nparts;
#pragma omp parallel for schedule(static) num_threads(c->alloc_threads)
    for (long k = 0; k < blocks; k++) {
        const size_t bytes = (size_t)stride * (size_t)nzones;
        char *block = malloc(bytes);
        if (!block) {
#pragma omp atomic write
            failed = 1;
            continue;
        }
        memset(block, 0xFF, bytes); /* first touch of the whole block, padding included */
        for (long z = 0; z < nzones; z++) {
            clomp_zone *zone = (clomp_zone *)(block + z * stride);
            zone->id = z + 1;
            zone->part = k;
            zone->value = 0.0;
            zone->next = z + 1 < nzones ? (clomp_zone *)(block + (z + 1) * stride) : NULL;
        }
        c->parts[k]->first = (clomp_zone *)block;
    }
    if (failed) {
        snprintf(err, errlen, "out of memory allocating %.0f zones of %ld bytes (%.3g GB per rank)", zones_in_mesh,
                 stride, c->memory_bytes / 1e9);
        return -1;
    }
    return 0;
}

/* Iterations from timeScale, and the constants of the deposit arithmetic, from one serial sweep with
 * deposit 1/numParts: the fraction of a sweep's deposit left as residue (iteration_residue), the
 * residue the repeated sweeps converge to (max_residue, the bound of the result check), the ratio
 * of the whole residue to partition 0's (so that calc_deposit reads one partition, not all), and
 * CLOMP's two error bounds (reported, unused by the check, as in CLOMP). */
void clomp_mesh_calibrate(clomp *c)
{
    const long nparts = c->p.num_parts;
    double iterations = ceil(1e6 * (double)c->p.time_scale / (c->total_zones * (double)c->p.flop_scale));
    if (iterations > CLOMP_MAX_ITERATIONS) iterations = CLOMP_MAX_ITERATIONS;
    c->iterations = (long)iterations;

    c->part_ratio = 1.0 / (double)nparts;
    const double deposit = c->part_ratio;
    c->iteration_residue = 0.0;
    c->error_bound = c->tight_error_bound = deposit;
    for (long k = 0; k < nparts; k++) {
        clomp_part *part = c->parts[k];
        clomp_update_part(part, deposit, c->p.flop_scale);
        c->iteration_residue += part->residue;
        /* The next deposit would be smaller than any made in this partition: a lower bound. */
        const double smallest = part->residue * part->deposit_ratio;
        if (c->error_bound > smallest) c->error_bound = smallest;
        const double step = smallest * part->deposit_ratio;
        if (c->tight_error_bound > step) c->tight_error_bound = step;
    }
    /* Each sweep adds 1 and keeps the fraction y of what it had: the residue tends to y / (1 - y). */
    c->max_residue = c->iteration_residue / (1.0 - c->iteration_residue);
    const double residue0 = c->parts[0]->residue;
    c->residue_ratio_part0 = residue0 > 0.0 ? c->iteration_residue / residue0 : 0.0;
}

/* CLOMP's reinitialize_parts: zero every zone and residue, then one sweep with deposit 0 warms the
 * cache and leaves partition 0 updated once, as calc_deposit expects. Work counts restart at 0. */
void clomp_mesh_reset(clomp *c)
{
    const long nparts = c->p.num_parts;
    for (long k = 0; k < nparts; k++) {
        clomp_part *part = c->parts[k];
        for (clomp_zone *z = part->first; z != NULL; z = z->next) z->value = 0.0;
        part->residue = 0.0;
        part->since_deposit = 0;
    }
    for (long k = 0; k < nparts; k++) {
        clomp_update_part(c->parts[k], 0.0, c->p.flop_scale);
        c->parts[k]->updates = 0;
    }
    c->deposit_errors = 0;
}

void clomp_mesh_free(clomp *c)
{
    if (!c->parts) return;
    for (long k = 0; k < c->p.num_parts; k++)
        if (c->parts[k]) {
            free(c->parts[k]->first);
            free(c->parts[k]);
        }
    free(c->parts);
    c->parts = NULL;
}
