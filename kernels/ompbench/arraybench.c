/* The data-clause constructs (EPCC arraybench): what PRIVATE, FIRSTPRIVATE, COPYPRIVATE and COPYIN
 * cost as the array they copy grows.
 *
 * The shapes are EPCC v4's. One inner repetition opens a parallel region carrying the clause on an
 * array of n doubles, and every thread runs the delay on its copy (the delay writes its result into
 * element 0, so the copy is used); COPYPRIVATE opens the region with the array private and runs the
 * delay in a single construct whose copyprivate broadcasts the array to the others; COPYIN copies the
 * master's threadprivate array into every thread's. The reference is the delay alone on a 1-element
 * array, repeated on one thread. The overhead is therefore a parallel region plus the clause's work:
 * a stack frame for PRIVATE, a copy per thread for the others.
 *
 * A clause copies a whole variable, so the size must be the variable's type: EPCC compiles one program
 * per size, and here one set of functions per size is generated (ARRAY_SIZE), for EPCC's sizes only,
 * the powers of 3 from 1 to 59049. The arrays are file-scope statics because COPYIN needs a
 * threadprivate variable, which must have static storage; 59049 doubles (472 KB) per private copy fit
 * the threads' stacks. The region is the same code whether it is timed or probed: what each thread
 * does with its copy is a call through omb_work.visit, so the check of the clause's semantics runs the
 * very regions that are timed. The timed visit also counts, per thread, how often it ran, so a test can
 * hold the construct to outer x inner executions. The call and the count cost a few nanoseconds a
 * region; COPYPRIVATE's regions also test whether they are being probed, a predictable branch. */
#include <stdlib.h>
#include <string.h>

#include "ompbench.h"

#define PRAGMA(x) _Pragma(#x)

enum { C_PRIVATE, C_FIRSTPRIVATE, C_COPYPRIVATE, C_COPYIN, C_COUNT };
enum { MASTER = -1, NOBODY = -2 }; /* whose values a copy should hold on entry */

typedef struct {
    int n;
    omb_body clause[C_COUNT];    /* reps regions with the clause on this size's arrays */
    double *shared;              /* the master's array of PRIVATE, FIRSTPRIVATE and COPYPRIVATE */
    double *(*threadprivate)(void); /* the calling thread's copy of COPYIN's array */
} array_size;

/* A distinct value per thread and element, exact in a double. */
static double value_of(int who, int i) { return 1e6 * who + i + 0.25; }

static void fill(double *a, int n, int who)
{
    for (int i = 0; i < n; i++) a[i] = value_of(who, i);
}

static int holds(const double *a, int n, int who)
{
    for (int i = 0; i < n; i++)
        if (a[i] != value_of(who, i)) return 0;
    return 1;
}

static void visit_timed(omb_work *w, double *copy, int n)
{
    (void)n;
    omb_array_delay(w->delay_length, copy);
    w->slot[omp_get_thread_num()].executions++;
}

/* Every thread: the copy's address and whether it held what the clause promises, then the thread's own
 * values written into it; after all threads have written, each must still find its own. */
static void probe_copy(omb_work *w, double *copy, int n)
{
    const int me = omp_get_thread_num();
    omb_slot *s = &w->slot[me];
    s->copy = copy;
    s->initialised = w->expect_from == NOBODY || holds(copy, n, w->expect_from);
    fill(copy, n, me);
#pragma omp barrier
    s->kept = holds(copy, n, me);
}

/* COPYPRIVATE's single: its thread's values, which copyprivate must then give every thread. */
static void probe_single(omb_work *w, double *copy, int n)
{
    const int me = omp_get_thread_num();
    fill(copy, n, me);
    w->expect_from = me;
}

/* reps parallel regions with CLAUSE, every thread visiting its copy VAR of n doubles. */
#define REGION(NAME, N, CLAUSE, VAR)                                                                               \
    static void NAME(omb_work *w, long reps)                                                                       \
    {                                                                                                              \
        for (long j = 0; j < reps; j++) {                                                                          \
            PRAGMA(omp parallel CLAUSE)                                                                            \
            w->visit(w, VAR, N);                                                                                   \
        }                                                                                                          \
    }

/* One size's arrays and the four clauses on them, shaped as EPCC's tests (see the top of the file):
 * COPYPRIVATE's single visits, then (when probing) every thread checks what the broadcast left it. */
#define ARRAY_SIZE(N)                                                                                              \
    static double array_##N[N];                                                                                    \
    static double threadprivate_##N[N];                                                                            \
    PRAGMA(omp threadprivate(threadprivate_##N))                                                                   \
    static double *threadprivate_of_##N(void) { return threadprivate_##N; }                                        \
    REGION(private_##N, N, private(array_##N), array_##N)                                                          \
    REGION(firstprivate_##N, N, firstprivate(array_##N), array_##N)                                                \
    REGION(copyin_##N, N, copyin(threadprivate_##N), threadprivate_##N)                                            \
    static void copyprivate_##N(omb_work *w, long reps)                                                            \
    {                                                                                                              \
        for (long j = 0; j < reps; j++) {                                                                          \
            PRAGMA(omp parallel private(array_##N))                                                                \
            {                                                                                                      \
                PRAGMA(omp single copyprivate(array_##N))                                                          \
                w->visit(w, array_##N, N);                                                                         \
                if (w->probing) probe_copy(w, array_##N, N);                                                       \
            }                                                                                                      \
        }                                                                                                          \
    }

#define ARRAY_ROW(N)                                                                                               \
    {N, {private_##N, firstprivate_##N, copyprivate_##N, copyin_##N}, array_##N, threadprivate_of_##N}

ARRAY_SIZE(1)
ARRAY_SIZE(3)
ARRAY_SIZE(9)
ARRAY_SIZE(27)
ARRAY_SIZE(81)
ARRAY_SIZE(243)
ARRAY_SIZE(729)
ARRAY_SIZE(2187)
ARRAY_SIZE(6561)
ARRAY_SIZE(19683)
ARRAY_SIZE(59049)

static const array_size sizes[OMB_ARRAY_NSIZES] = {
    ARRAY_ROW(1),   ARRAY_ROW(3),    ARRAY_ROW(9),    ARRAY_ROW(27),    ARRAY_ROW(81),   ARRAY_ROW(243),
    ARRAY_ROW(729), ARRAY_ROW(2187), ARRAY_ROW(6561), ARRAY_ROW(19683), ARRAY_ROW(59049),
};

int omb_array_size_index(long n)
{
    for (int k = 0; k < OMB_ARRAY_NSIZES; k++)
        if (sizes[k].n == n) return k;
    return -1;
}

int omb_array_size_at(int index) { return sizes[index].n; }

static const array_size *current(const omb_work *w) { return &sizes[omb_array_size_index(w->array_size)]; }

static void test_private(omb_work *w, long reps) { current(w)->clause[C_PRIVATE](w, reps); }
static void test_firstprivate(omb_work *w, long reps) { current(w)->clause[C_FIRSTPRIVATE](w, reps); }
static void test_copyprivate(omb_work *w, long reps) { current(w)->clause[C_COPYPRIVATE](w, reps); }
static void test_copyin(omb_work *w, long reps) { current(w)->clause[C_COPYIN](w, reps); }

static void reference_array(omb_work *w, long reps)
{
    const long length = w->delay_length;
    double a[1];
    for (long j = 0; j < reps; j++) omb_array_delay(length, a);
}

const omb_construct omb_array_constructs[] = {
    {"PRIVATE", "array", test_private, reference_array, "array delay", 0, OMB_PER_SIZE,
     "parallel private(a[n]): every thread delays on its uninitialised copy"},
    {"FIRSTPRIVATE", "array", test_firstprivate, reference_array, "array delay", 0, OMB_PER_SIZE,
     "parallel firstprivate(a[n]): every thread's copy starts as the master's"},
    {"COPYPRIVATE", "array", test_copyprivate, reference_array, "array delay", 0, OMB_PER_SIZE,
     "parallel private(a[n]) with single copyprivate(a[n]): one thread delays, its array goes to all"},
    {"COPYIN", "array", test_copyin, reference_array, "array delay", 0, OMB_PER_SIZE,
     "parallel copyin(t[n]), t threadprivate: every thread's copy becomes the master's"},
};
const int omb_array_count = (int)(sizeof omb_array_constructs / sizeof *omb_array_constructs);

static int clause_of(const omb_construct *c) { return (int)(c - omb_array_constructs); }

int omb_array_init(omb_work *w)
{
    w->slot = aligned_alloc(sizeof(omb_slot), (size_t)w->threads * sizeof(omb_slot));
    if (!w->slot) return -1;
    memset(w->slot, 0, (size_t)w->threads * sizeof(omb_slot));
    w->visit = visit_timed;
    return 0;
}

void omb_array_free(omb_work *w) { free(w->slot); }

void omb_array_reset(omb_work *w)
{
    for (int t = 0; t < w->threads; t++) w->slot[t].executions = 0;
}

/* One probed region: the master's array filled, the clause run once, then what the threads saw. */
static void probe_once(const omb_construct *c, omb_work *w, omb_copies *out)
{
    const int clause = clause_of(c), threads = w->threads;
    const array_size *s = current(w);
    double *master = clause == C_COPYIN ? s->threadprivate() : s->shared;
    fill(master, s->n, MASTER);
    memset(w->slot, 0, (size_t)threads * sizeof(omb_slot));
    w->expect_from = clause == C_PRIVATE ? NOBODY : MASTER;
    w->visit = clause == C_COPYPRIVATE ? probe_single : probe_copy;
    w->probing = 1;
    s->clause[clause](w, 1);
    w->probing = 0;
    w->visit = visit_timed;
    if (clause == C_COPYPRIVATE) out->source = w->expect_from;
    int distinct = 0;
    for (int t = 0; t < threads; t++) {
        int first = 1;
        for (int u = 0; u < t; u++) first &= w->slot[u].copy != w->slot[t].copy;
        distinct += first;
        /* COPYIN's source is thread 0's own copy (the master's threadprivate array) */
        if (w->slot[t].copy == master && !(clause == C_COPYIN && t == 0)) out->separate = 0;
        if (!w->slot[t].initialised) out->initialised = 0;
        if (!w->slot[t].kept) out->kept = 0;
    }
    if (distinct < out->distinct) out->distinct = distinct;
    if (clause != C_COPYIN && !holds(master, s->n, MASTER)) out->master_intact = 0;
}

void omb_array_verify(const omb_construct *c, omb_work *w, omb_copies *out)
{
    const int clause = clause_of(c);
    *out = (omb_copies){.checked = 1, .distinct = w->threads, .separate = 1, .kept = 1,
                        .initialised = clause == C_PRIVATE ? -1 : 1, .master_intact = clause == C_COPYIN ? -1 : 1,
                        .source = -1};
    /* Twice: in the second, the threads' copies start with their own values from the first, so a clause
     * that did not copy would leave them there. */
    for (int round = 0; round < 2; round++) probe_once(c, w, out);
    out->ok = out->distinct == w->threads && out->separate && out->kept && out->initialised != 0 &&
              out->master_intact != 0;
}

void omb_array_tally(const omb_construct *c, const omb_work *w, omb_result *r)
{
    r->executions_min = r->executions_max = w->slot[0].executions;
    r->executions_total = 0;
    for (int t = 0; t < w->threads; t++) {
        const long e = w->slot[t].executions;
        if (e < r->executions_min) r->executions_min = e;
        if (e > r->executions_max) r->executions_max = e;
        r->executions_total += e;
    }
    r->executions_by_one = clause_of(c) == C_COPYPRIVATE;
    r->executions_expected = (long)r->outer * r->reps * (r->executions_by_one ? 1 : w->threads);
}

int omb_array_counts_ok(const omb_result *r)
{
    return r->executions_total == r->executions_expected &&
           (r->executions_by_one || r->executions_min == r->executions_max);
}
