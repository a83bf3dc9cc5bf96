/* The arithmetic CLOMP times: one partition's share of a sweep, and the deposit between sweeps.
 *
 * update_part walks a partition's zone list, leaving the fraction deposit_ratio of what remains in
 * each zone and carrying the rest on; each zone depends on the one before, through the remaining
 * deposit and through the pointer, so a partition is a serial chain and only partitions can run in
 * parallel. The flopScale == 1 case has its own loop, as in CLOMP, because the cheaper the loop the
 * more the OpenMP overheads show.
 *
 * calc_deposit is the synchronisation point between sweeps: it reads the previous sweep's result
 * (partition 0's residue, scaled to the whole mesh) and must run exactly once between two updates
 * of partition 0. CLOMP aborts when it does not; here the violation is counted and fails the
 * variant's check, so a reordered or skipped sweep is reported rather than crashing the run.
 * Both are static inline so that every variant's loop has the same code inlined. */
#ifndef CLOMP_DEPOSIT_H
#define CLOMP_DEPOSIT_H

#include "clomp.h"

static inline void clomp_update_part(clomp_part *part, double incoming, int flop_scale)
{
    part->since_deposit++;
    part->updates++;
    const double ratio = part->deposit_ratio;
    double remaining = incoming;
    if (flop_scale == 1) {
        for (clomp_zone *z = part->first; z != NULL; z = z->next) {
            const double deposit = remaining * ratio;
            z->value += deposit;
            remaining -= deposit;
        }
    } else {
        for (clomp_zone *z = part->first; z != NULL; z = z->next)
            for (int s = 0; s < flop_scale; s++) {
                const double deposit = remaining * ratio;
                z->value += deposit;
                remaining -= deposit;
            }
    }
    part->residue = remaining;
}

/* Called by one thread at a time. */
static inline double clomp_calc_deposit(clomp *c)
{
    clomp_part *p0 = c->parts[0];
    if (p0->since_deposit != 1) c->deposit_errors++;
    p0->since_deposit = 0;
    const double residue = p0->residue * c->residue_ratio_part0;
    return (1.0 + residue) * c->part_ratio;
}

#endif
