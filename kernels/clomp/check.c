/* CLOMP's result check, as strict as CLOMP's, and the checks of the profile built from it.
 *
 * Every variant but best_case computes exactly the same numbers in exactly the same order per
 * partition (a partition is always swept by one thread, from its first zone to its last), so the
 * results must be bit-identical to the serial reference: CLOMP compares each partition's first zone
 * value and residue with == and so do we. On top of that, as in CLOMP: zone values must not increase
 * along a list; the total of all zone values and residues must equal the number of sweeps (each
 * deposits 1 in all; |error| <= 1e-5); the residues must lie within [0, max_residue + 1e-6]; and
 * calc_deposit must have run exactly once between updates of partition 0 (CLOMP aborts there).
 * We add one check CLOMP does not have: every partition was updated exactly once per sweep. It is
 * the only check the best case can have, since its deposits are wrong on purpose.
 *
 * Each rank checks its own run. A check of the profile takes, across ranks, the value of the rank
 * where it is worst, so one rank that went wrong fails the run. */
#include <math.h>
#include <string.h>

#include "clomp.h"

void clomp_check_variant(clomp *c, clomp_region v)
{
    clomp_tally *t = &c->tally[v];
    *t = (clomp_tally){.checked = 1, .deposit_errors = c->deposit_errors};
    const long sweeps = c->iterations * CLOMP_SUBCYCLES;
    const int reference = v == V_SERIAL_REF, values = v != V_BEST_CASE;
    double value_sum = 0.0, residue_sum = 0.0;
    for (long k = 0; k < c->p.num_parts; k++) {
        clomp_part *part = c->parts[k];
        if (part->updates != sweeps) t->wrong_updates++;
        if (!values) continue;
        if (reference) {
            part->expected_first = part->first->value;
            part->expected_residue = part->residue;
        } else {
            t->first_mismatch += part->first->value != part->expected_first;
            t->residue_mismatch += part->residue != part->expected_residue;
        }
        double previous = part->first->value;
        for (const clomp_zone *z = part->first; z != NULL; z = z->next) {
            t->not_decreasing += z->value > previous;
            value_sum += z->value;
            previous = z->value;
        }
        residue_sum += part->residue;
    }
    if (values && c->parts[0]->since_deposit != 1) t->deposit_errors++; /* a sweep after the last deposit */
    t->sum = value_sum;
    t->residue = residue_sum;
    t->total = value_sum + residue_sum;
}

typedef struct {
    double value, expected, tolerance;
} check_value;

/* The checks of variant v from this rank's tally; returns how many were added at out + n. */
static int variant_checks(const clomp *c, clomp_region v, const char *names[], check_value *out)
{
    const clomp_tally *t = &c->tally[v];
    const double sweeps = (double)c->iterations * CLOMP_SUBCYCLES, bound = c->max_residue + 1e-6;
    int n = 0;
#define ADD(name, v_, e_, tol_) (names[n] = (name), out[n++] = (check_value){(double)(v_), (e_), (tol_)})
    if (v != V_BEST_CASE) {
        if (v != V_SERIAL_REF) {
            ADD("first_values", t->first_mismatch, 0.0, 0.0);
            ADD("residues", t->residue_mismatch, 0.0, 0.0);
        }
        ADD("decreasing", t->not_decreasing, 0.0, 0.0);
        ADD("total", t->total, sweeps, 1e-5);
        ADD("residue_bound", t->residue, 0.5 * bound, 0.5 * bound);
        ADD("deposit_sequence", t->deposit_errors, 0.0, 0.0);
    }
    ADD("updates", t->wrong_updates, 0.0, 0.0);
#undef ADD
    return n;
}

static double badness(const check_value *v)
{
    const double d = fabs(v->value - v->expected) - v->tolerance;
    return isnan(d) ? HUGE_VAL : d;
}

void clomp_check_collect(clomp *c, clomp_results *r)
{
    check_value local[CLOMP_MAX_CHECKS];
    const char *suffix[CLOMP_MAX_CHECKS];
    clomp_region owner[CLOMP_MAX_CHECKS];
    int n = 0;
    for (int v = V_SERIAL_REF; v < CLOMP_VARIANTS; v++) {
        const int added = variant_checks(c, (clomp_region)v, suffix + n, local + n);
        for (int k = n; k < n + added; k++) owner[k] = (clomp_region)v;
        n += added;
    }
    struct {
        double bad;
        int rank;
    } mine[CLOMP_MAX_CHECKS], worst[CLOMP_MAX_CHECKS];
    for (int k = 0; k < n; k++) mine[k].bad = badness(&local[k]), mine[k].rank = c->rank;
    hp_allreduce(&c->comm, mine, worst, n, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    double picked[CLOMP_MAX_CHECKS], value[CLOMP_MAX_CHECKS];
    for (int k = 0; k < n; k++) picked[k] = worst[k].rank == c->rank ? local[k].value : 0.0;
    hp_allreduce(&c->comm, picked, value, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int k = 0; k < n; k++) {
        snprintf(r->check_names[k], sizeof r->check_names[k], "%s.%s", clomp_region_names[owner[k]], suffix[k]);
        r->checks[k] = hp_check_make(r->check_names[k], value[k], local[k].expected, local[k].tolerance);
    }
    r->nchecks = n;
}
