/* The loop schedules (EPCC schedbench) and their reference.
 *
 * One inner repetition is a whole worksharing loop of iters-per-thread x threads iterations, each a
 * delay, inside one parallel region opened per sample; the reference runs iters-per-thread delays
 * on one thread, the time the loop would take with perfect division and no scheduling. The
 * overhead is therefore the cost of one loop: handing out its chunks (once per chunk for dynamic,
 * shrinking chunks for guided, arithmetic only for static) plus the barrier at its end. Chunk
 * sizes come from --chunks; EPCC's default is the powers of two up to iters-per-thread (guided:
 * up to iters-per-thread / threads, since larger chunks leave threads idle). */
#include "ompbench.h"

static void reference_schedule(omb_work *w, long reps)
{
    const long length = w->delay_length;
    const int iters = w->iters_per_thread;
    for (long j = 0; j < reps; j++)
        for (int i = 0; i < iters; i++) omb_delay(length);
}

static void test_static(omb_work *w, long reps)
{
    const long length = w->delay_length, n = (long)w->iters_per_thread * w->threads;
#pragma omp parallel
    for (long j = 0; j < reps; j++) {
#pragma omp for schedule(static)
        for (long i = 0; i < n; i++) omb_delay(length);
    }
}

static void test_static_chunk(omb_work *w, long reps)
{
    const long length = w->delay_length, n = (long)w->iters_per_thread * w->threads;
    const int chunk = w->chunk;
#pragma omp parallel
    for (long j = 0; j < reps; j++) {
#pragma omp for schedule(static, chunk)
        for (long i = 0; i < n; i++) omb_delay(length);
    }
}

static void test_dynamic(omb_work *w, long reps)
{
    const long length = w->delay_length, n = (long)w->iters_per_thread * w->threads;
    const int chunk = w->chunk;
#pragma omp parallel
    for (long j = 0; j < reps; j++) {
#pragma omp for schedule(dynamic, chunk)
        for (long i = 0; i < n; i++) omb_delay(length);
    }
}

static void test_guided(omb_work *w, long reps)
{
    const long length = w->delay_length, n = (long)w->iters_per_thread * w->threads;
    const int chunk = w->chunk;
#pragma omp parallel
    for (long j = 0; j < reps; j++) {
#pragma omp for schedule(guided, chunk)
        for (long i = 0; i < n; i++) omb_delay(length);
    }
}

const omb_construct omb_sched_constructs[] = {
    {"STATIC", "sched", test_static, reference_schedule, "schedule", 0, OMB_ONCE, "schedule(static), no chunk size"},
    {"STATICN", "sched", test_static_chunk, reference_schedule, "schedule", 0, OMB_PER_CHUNK, "schedule(static, n)"},
    {"DYNAMIC", "sched", test_dynamic, reference_schedule, "schedule", 0, OMB_PER_CHUNK, "schedule(dynamic, n)"},
    {"GUIDED", "sched", test_guided, reference_schedule, "schedule", 0, OMB_PER_CHUNK, "schedule(guided, n)"},
};
const int omb_sched_count = (int)(sizeof omb_sched_constructs / sizeof *omb_sched_constructs);
