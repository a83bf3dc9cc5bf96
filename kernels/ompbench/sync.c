/* The synchronisation constructs (EPCC syncbench) and their references.
 *
 * Each test wraps the delay in one construct per inner repetition, shaped as EPCC shapes it, so its
 * time per repetition is the delay plus what the construct costs:
 * - PARALLEL, PARALLEL_FOR and REDUCTION open a region per repetition, every thread delaying once;
 * - FOR, BARRIER, BARRIER_VAR and SINGLE open one region and repeat the construct inside it;
 * - CRITICAL, LOCK_CONTENDED, ATOMIC and ATOMIC_SEQCST share the repetitions among the threads,
 *   which then queue for the same lock, so repetitions run one after another (the repetition count
 *   is a multiple of the thread count);
 * - LOCK_UNCONTENDED takes the lock from one thread only; ORDERED runs the repetitions as
 *   iterations of one ordered loop with chunks of one, so each hands over to the next thread.
 * References: the delay alone for most; ATOMIC's is the same update without the atomic (there is
 * no delay in either); REDUCTION's adds the private sum. Loop bounds and the delay length are copied
 * to locals before each region, so the threads read them from their own stack. */
#include "ompbench.h"

void omb_reference_delay(omb_work *w, long reps)
{
    const long length = w->delay_length;
    for (long j = 0; j < reps; j++) omb_delay(length);
}

static void reference_atomic(omb_work *w, long reps)
{
    (void)w;
    double total = 0.0, b = 1.0;
    const double c = 1.0 + 1e-15;
    for (long j = 0; j < reps; j++) {
        total += b;
        b *= c;
    }
    omb_keep(total);
}

static void reference_reduction(omb_work *w, long reps)
{
    const long length = w->delay_length;
    long sum = 0;
    for (long j = 0; j < reps; j++) {
        omb_delay(length);
        sum += 1;
    }
    omb_keep((double)sum);
}

static void test_parallel(omb_work *w, long reps)
{
    const long length = w->delay_length;
    for (long j = 0; j < reps; j++) {
#pragma omp parallel
        omb_delay(length);
    }
}

static void test_for(omb_work *w, long reps)
{
    const long length = w->delay_length;
    const int threads = w->threads;
#pragma omp parallel
    for (long j = 0; j < reps; j++) {
#pragma omp for
        for (int i = 0; i < threads; i++) omb_delay(length);
    }
}

static void test_parallel_for(omb_work *w, long reps)
{
    const long length = w->delay_length;
    const int threads = w->threads;
    for (long j = 0; j < reps; j++) {
#pragma omp parallel for
        for (int i = 0; i < threads; i++) omb_delay(length);
    }
}

static void test_barrier(omb_work *w, long reps)
{
    const long length = w->delay_length;
#pragma omp parallel
    for (long j = 0; j < reps; j++) {
        omb_delay(length);
#pragma omp barrier
    }
}

/* One thread arrives late at each barrier, a different one each time. */
static void test_barrier_var(omb_work *w, long reps)
{
    const long length = w->delay_length;
    const int threads = w->threads;
#pragma omp parallel
    {
        const int me = omp_get_thread_num();
        for (long j = 0; j < reps; j++) {
            if (me == j % threads) omb_delay(length);
#pragma omp barrier
        }
    }
}

static void test_single(omb_work *w, long reps)
{
    const long length = w->delay_length;
#pragma omp parallel
    for (long j = 0; j < reps; j++) {
#pragma omp single
        omb_delay(length);
    }
}

static void test_critical(omb_work *w, long reps)
{
    const long length = w->delay_length, per_thread = reps / w->threads;
#pragma omp parallel
    for (long j = 0; j < per_thread; j++) {
#pragma omp critical
        omb_delay(length);
    }
}

static void test_lock_contended(omb_work *w, long reps)
{
    const long length = w->delay_length, per_thread = reps / w->threads;
    omp_lock_t *lock = &w->lock;
#pragma omp parallel
    for (long j = 0; j < per_thread; j++) {
        omp_set_lock(lock);
        omb_delay(length);
        omp_unset_lock(lock);
    }
}

static void test_lock_uncontended(omb_work *w, long reps)
{
    const long length = w->delay_length;
    omp_lock_t *lock = &w->lock;
#pragma omp parallel
    if (omp_get_thread_num() == 0) {
        for (long j = 0; j < reps; j++) {
            omp_set_lock(lock);
            omb_delay(length);
            omp_unset_lock(lock);
        }
    }
}

static void test_ordered(omb_work *w, long reps)
{
    const long length = w->delay_length;
#pragma omp parallel for ordered schedule(static, 1)
    for (long j = 0; j < reps; j++) {
#pragma omp ordered
        omb_delay(length);
    }
}

static void test_atomic(omb_work *w, long reps)
{
    const long per_thread = reps / w->threads;
    double total = 0.0;
#pragma omp parallel
    {
        double b = 1.0;
        const double c = 1.0 + 1e-15;
        for (long j = 0; j < per_thread; j++) {
#pragma omp atomic
            total += b;
            b *= c;
        }
    }
    omb_keep(total);
}

static void test_atomic_seq_cst(omb_work *w, long reps)
{
    const long per_thread = reps / w->threads;
    double total = 0.0;
#pragma omp parallel
    {
        double b = 1.0;
        const double c = 1.0 + 1e-15;
        for (long j = 0; j < per_thread; j++) {
#pragma omp atomic seq_cst
            total += b;
            b *= c;
        }
    }
    omb_keep(total);
}

static void test_reduction(omb_work *w, long reps)
{
    const long length = w->delay_length;
    long sum = 0;
    for (long j = 0; j < reps; j++) {
#pragma omp parallel reduction(+ : sum)
        {
            omb_delay(length);
            sum += 1;
        }
    }
    omb_keep((double)sum);
}

const omb_construct omb_sync_constructs[] = {
    {"PARALLEL", "sync", test_parallel, omb_reference_delay, "delay", 0, OMB_ONCE, "parallel region"},
    {"FOR", "sync", test_for, omb_reference_delay, "delay", 0, OMB_ONCE, "worksharing for, one iteration per thread"},
    {"PARALLEL_FOR", "sync", test_parallel_for, omb_reference_delay, "delay", 0, OMB_ONCE, "combined parallel for"},
    {"BARRIER", "sync", test_barrier, omb_reference_delay, "delay", 0, OMB_ONCE, "barrier"},
    {"BARRIER_VAR", "sync", test_barrier_var, omb_reference_delay, "delay", 0, OMB_ONCE,
     "barrier with one late thread (a different one each time)"},
    {"SINGLE", "sync", test_single, omb_reference_delay, "delay", 0, OMB_ONCE, "single (with its barrier)"},
    {"CRITICAL", "sync", test_critical, omb_reference_delay, "delay", 1, OMB_ONCE, "critical section, all threads"},
    {"LOCK_CONTENDED", "sync", test_lock_contended, omb_reference_delay, "delay", 1, OMB_ONCE,
     "omp_set_lock/omp_unset_lock, all threads"},
    {"LOCK_UNCONTENDED", "sync", test_lock_uncontended, omb_reference_delay, "delay", 0, OMB_ONCE,
     "omp_set_lock/omp_unset_lock, one thread"},
    {"ORDERED", "sync", test_ordered, omb_reference_delay, "delay", 0, OMB_ONCE, "ordered loop, chunks of one"},
    {"ATOMIC", "sync", test_atomic, reference_atomic, "atomic", 1, OMB_ONCE, "atomic update of a shared double"},
    {"ATOMIC_SEQCST", "sync", test_atomic_seq_cst, reference_atomic, "atomic", 1, OMB_ONCE, "atomic update, seq_cst"},
    {"REDUCTION", "sync", test_reduction, reference_reduction, "reduction", 0, OMB_ONCE,
     "parallel region with a scalar reduction"},
};
const int omb_sync_count = (int)(sizeof omb_sync_constructs / sizeof *omb_sync_constructs);
