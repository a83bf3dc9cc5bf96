/* The five ways CLOMP runs the same sweeps, and its two reference measurements.
 *
 * Every variant does `iterations` x 10 sweeps; a sweep is calc_deposit, then every partition
 * updated with that deposit. What differs is only how the partition loop is shared and synchronised:
 *   serial_ref   one thread; the reference result and the baseline of every speedup.
 *   for_static   `parallel for schedule(static)` per sweep: a parallel region start and end per sweep.
 *   for_dynamic  the same with schedule(dynamic): a shared counter per partition handed out.
 *   manual       one parallel region for the whole run; each thread owns a fixed slice of partitions;
 *                per sweep a barrier (everyone finished) and a single (one thread computes the deposit,
 *                the single's closing barrier publishes it).
 *   best_case    manual without barrier and single, with a fixed deposit: no synchronisation at all,
 *                so its result is wrong by construction; its time is the bound the others are held to.
 *                The 10 x iterations calc_deposit calls it leaves out run serially afterwards, timed.
 * CLOMP spreads its 10 sweeps over four "packages" of 1, 2, 3 and 4 loops; each sweep is its own loop
 * (and, in for_static/for_dynamic, its own parallel region) either way, so here they are one loop.
 * The manual and best-case slices are CLOMP's: thread t owns partitions round(t p) .. round((t+1) p) - 1
 * with p = max(1, numParts / threads), rounded to nearest even, so both variants share out the same way.
 *
 * `skip` (test only) leaves the last partition out of the first sweep: the smallest change of work,
 * which the result check must catch. It is tested once per sweep, outside the zone loop. */
#include <math.h>
#include <omp.h>

#include "deposit.h"

static void thread_slice(long nparts, long *first, long *last)
{
    double per_thread = (double)nparts / (double)omp_get_num_threads();
    if (per_thread < 1.0) per_thread = 1.0;
    const double t = (double)omp_get_thread_num();
    *first = (long)nearbyint(t * per_thread);
    *last = (long)nearbyint((t + 1.0) * per_thread) - 1;
    if (*last >= nparts) *last = nparts - 1;
}

/* The partition loop's end in this sweep: the last partition is left out when skipping. */
static inline long sweep_end(long end, int skip, long iteration, int sweep)
{
    return skip && iteration == 0 && sweep == 0 ? end - 1 : end;
}

void clomp_calc_deposit_only(clomp *c, long iterations)
{
    clomp_part *p0 = c->parts[0];
    for (long it = 0; it < iterations; it++)
        for (int sweep = 0; sweep < CLOMP_SUBCYCLES; sweep++) {
            p0->since_deposit = 1;                    /* no sweep in between: satisfy calc_deposit's sequence test */
            p0->first->value = clomp_calc_deposit(c); /* stored, so the call cannot be optimised away */
        }
}

void clomp_barrier_only(clomp *c, long iterations)
{
    (void)c;
#pragma omp parallel
    for (long it = 0; it < iterations; it++)
        for (int sweep = 0; sweep < CLOMP_SUBCYCLES; sweep++) {
#pragma omp barrier
        }
}

void clomp_serial_ref(clomp *c, long iterations, int skip)
{
    clomp_part *const *parts = c->parts;
    const long nparts = c->p.num_parts;
    const int flops = c->p.flop_scale;
    for (long it = 0; it < iterations; it++)
        for (int sweep = 0; sweep < CLOMP_SUBCYCLES; sweep++) {
            const double deposit = clomp_calc_deposit(c);
            const long end = sweep_end(nparts, skip, it, sweep);
            for (long k = 0; k < end; k++) clomp_update_part(parts[k], deposit, flops);
        }
}

void clomp_for_static(clomp *c, long iterations, int skip)
{
    clomp_part *const *parts = c->parts;
    const long nparts = c->p.num_parts;
    const int flops = c->p.flop_scale;
    for (long it = 0; it < iterations; it++)
        for (int sweep = 0; sweep < CLOMP_SUBCYCLES; sweep++) {
            const double deposit = clomp_calc_deposit(c);
            const long end = sweep_end(nparts, skip, it, sweep);
#pragma omp parallel for schedule(static)
            for (long k = 0; k < end; k++) clomp_update_part(parts[k], deposit, flops);
        }
}

void clomp_for_dynamic(clomp *c, long iterations, int skip)
{
    clomp_part *const *parts = c->parts;
    const long nparts = c->p.num_parts;
    const int flops = c->p.flop_scale;
    for (long it = 0; it < iterations; it++)
        for (int sweep = 0; sweep < CLOMP_SUBCYCLES; sweep++) {
            const double deposit = clomp_calc_deposit(c);
            const long end = sweep_end(nparts, skip, it, sweep);
#pragma omp parallel for schedule(dynamic)
            for (long k = 0; k < end; k++) clomp_update_part(parts[k], deposit, flops);
        }
}

void clomp_manual(clomp *c, long iterations, int skip)
{
    clomp_part *const *parts = c->parts;
    const long nparts = c->p.num_parts;
    const int flops = c->p.flop_scale;
#pragma omp parallel
    {
        long first, last;
        thread_slice(nparts, &first, &last);
        const int owns_last = last == nparts - 1;
        for (long it = 0; it < iterations; it++)
            for (int sweep = 0; sweep < CLOMP_SUBCYCLES; sweep++) {
#pragma omp barrier
#pragma omp single
                c->manual_deposit = clomp_calc_deposit(c);
                const double deposit = c->manual_deposit;
                const long end = sweep_end(last + 1, skip && owns_last, it, sweep);
                for (long k = first; k < end; k++) clomp_update_part(parts[k], deposit, flops);
            }
    }
}

void clomp_best_case(clomp *c, long iterations, int skip)
{
    clomp_part *const *parts = c->parts;
    const long nparts = c->p.num_parts;
    const int flops = c->p.flop_scale;
    const double deposit = (1.0 + c->max_residue) / (double)nparts; /* fixed: no calc_deposit in the loop */
#pragma omp parallel
    {
        long first, last;
        thread_slice(nparts, &first, &last);
        const int owns_last = last == nparts - 1;
        for (long it = 0; it < iterations; it++)
            for (int sweep = 0; sweep < CLOMP_SUBCYCLES; sweep++) {
                const long end = sweep_end(last + 1, skip && owns_last, it, sweep);
                for (long k = first; k < end; k++) clomp_update_part(parts[k], deposit, flops);
            }
    }
    clomp_calc_deposit_only(c, iterations);
}
