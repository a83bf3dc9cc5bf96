/* OpenMP parallel regions through OMPT, the OpenMP 5 tool interface: an OpenMP runtime that supports
 * it (LLVM's libomp, Intel's) looks up ompt_start_tool in the process when it starts, finds this
 * library's, and then reports the begin and end of every parallel region. GCC's libgomp has no OMPT:
 * it never calls ompt_start_tool, the profile says "openmp_tool": "unavailable", and nothing fails.
 *
 * A region is a parallel construct, known by its return address and named after it: the function
 * that holds it and the offset ("compute_forces+0x4c"), or the object and offset when the function's
 * name is not exported ("hybridperf-md+0x1a2b0") -- the same on every rank of one program, so the
 * ranks' regions can be matched by name. It is timed on the thread that opens it, from begin to end,
 * while counting is on (the same switch as MPI), into that thread's table: no lock, as for the MPI
 * counters. "threads" is the largest team asked for.
 *
 * GCC ships no omp-tools.h, so the few OMPT declarations used are written out below, as the OpenMP
 * 5.0 specification fixes them (section 4.x: ompt_start_tool, ompt_set_callback, the parallel
 * callbacks). */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi.h"

/* ---- OMPT, as the OpenMP 5.0 specification declares it ---- */

typedef union ompt_data_t {
    uint64_t value;
    void *ptr;
} ompt_data_t;
typedef struct ompt_frame_t ompt_frame_t;
typedef void (*ompt_interface_fn_t)(void);
typedef ompt_interface_fn_t (*ompt_function_lookup_t)(const char *name);
typedef void (*ompt_callback_t)(void);
typedef int (*ompt_set_callback_t)(int event, ompt_callback_t callback);
typedef struct {
    int (*initialize)(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data);
    void (*finalize)(ompt_data_t *tool_data);
    ompt_data_t tool_data;
} ompt_start_tool_result_t;
enum {
    ompt_callback_parallel_begin = 3,
    ompt_callback_parallel_end = 4,
    ompt_callback_implicit_task = 7,
    ompt_callback_sync_region_wait = 16
};
enum { ompt_set_error = 0, ompt_set_never = 1 };
enum { ompt_scope_begin = 1, ompt_scope_end = 2 };
enum { ompt_task_initial = 0x1 };

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version);

/* ---- the tool ---- */

static int active, idle;

int hp_ompt_active(void) { return active; }
int hp_ompt_idle_active(void) { return active && idle; }

static hp_region_count *region_of(hp_thread *t, const void *code)
{
    for (int k = 0; k < t->nregions; k++)
        if (t->regions[k].code == code) return &t->regions[k];
    if (t->nregions == t->region_capacity) {
        int capacity = t->region_capacity ? 2 * t->region_capacity : 16;
        hp_region_count *grown = realloc(t->regions, (size_t)capacity * sizeof *grown);
        if (!grown) return NULL; /* out of memory: the region goes uncounted */
        t->regions = grown;
        t->region_capacity = capacity;
    }
    hp_region_count *r = &t->regions[t->nregions++];
    *r = (hp_region_count){code, 0, 0.0, 0};
    return r;
}

/* A region's parallel_data: 0, not timed; odd, its start time in nanoseconds | 1 (its threads' idle time is not
 * split: ompt_idle.c); even, the team record (ompt_idle.c) that holds its start and its threads' busy times. */
static double started_at(const ompt_data_t *parallel)
{
    return parallel->value & 1 ? 1e-9 * (double)parallel->value : *(const double *)parallel->ptr;
}

static void parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel, unsigned int requested,
                           int flags, const void *code)
{
    (void)task, (void)frame, (void)flags;
    parallel->value = 0;
    if (!__atomic_load_n(&hp_pmpi_on, __ATOMIC_RELAXED)) return;
    const double now = hp_now();
    void *record = hp_ompt_idle_begin((int)requested, now);
    if (record)
        parallel->ptr = record;
    else
        parallel->value = (uint64_t)(now * 1e9) | 1;
    hp_region_count *r = region_of(hp_self(), code);
    if (r && (int)requested > r->threads) r->threads = (int)requested;
}

static void parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags, const void *code)
{
    (void)task, (void)flags;
    if (!parallel->value) return;
    const double now = hp_now();
    hp_region_count *r = region_of(hp_self(), code);
    if (r) {
        r->calls++;
        r->seconds += now - started_at(parallel);
    }
    if (!(parallel->value & 1)) hp_ompt_idle_end(parallel->ptr, now);
}

/* With a trace, each thread's part of each region is one trace event (trace_perfetto.c): from its implicit
 * task's begin to its last arrival at a barrier of the region -- libomp reports a worker's end of task only
 * when it is woken for the next region, too late to serve. The event is written when the thread begins its
 * next region, or when the events are closed; the initial task, which is the whole program, is none. */
static void trace_task(int endpoint, unsigned int index, int flags)
{
    if (endpoint != ompt_scope_begin || (flags & ompt_task_initial)) return;
    hp_thread *t = hp_pmpi_self;
    if (t) hp_trace_region(t);
    if (!hp_trace_on) return;
    if (!t) t = hp_self();
    t->region_start = t->region_end = hp_now();
    t->region_thread = index;
}

static void trace_arrival(int endpoint, const ompt_data_t *parallel)
{
    hp_thread *t = hp_pmpi_self;
    if (endpoint == ompt_scope_begin && parallel && t && t->region_start > 0.0) t->region_end = hp_now();
}

static void implicit_task(int endpoint, ompt_data_t *parallel, ompt_data_t *task, unsigned int team_size,
                          unsigned int index, int flags)
{
    (void)task;
    trace_task(endpoint, index, flags);
    const int split = parallel && parallel->value && !(parallel->value & 1);
    hp_ompt_idle_task(endpoint, split ? parallel->ptr : NULL, team_size, index, flags);
}

static void sync_region_wait(int kind, int endpoint, ompt_data_t *parallel, ompt_data_t *task, const void *code)
{
    (void)kind, (void)task, (void)code;
    trace_arrival(endpoint, parallel);
    hp_ompt_idle_wait(endpoint, parallel != NULL);
}

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data)
{
    (void)device, (void)data;
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    if (!set) return 0;
    int begin = set(ompt_callback_parallel_begin, (ompt_callback_t)parallel_begin);
    int end = set(ompt_callback_parallel_end, (ompt_callback_t)parallel_end);
    active = begin > ompt_set_never && end > ompt_set_never;
    /* the threads' busy time (ompt_idle.c): only where the runtime reports both events */
    idle = set(ompt_callback_implicit_task, (ompt_callback_t)implicit_task) > ompt_set_never &&
           set(ompt_callback_sync_region_wait, (ompt_callback_t)sync_region_wait) > ompt_set_never;
    return active;
}

static void finalize(ompt_data_t *data) { (void)data; }

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
    (void)omp_version, (void)runtime_version;
    static ompt_start_tool_result_t tool = {initialize, finalize, {0}};
    return &tool;
}

/* ---- the rank's regions, then every rank's ---- */

static char *region_name(const void *code)
{
    Dl_info info;
    char name[512];
    if (code && dladdr(code, &info) && info.dli_sname)
        snprintf(name, sizeof name, "%s+0x%tx", info.dli_sname, (const char *)code - (const char *)info.dli_saddr);
    else if (code && dladdr(code, &info) && info.dli_fname) {
        const char *slash = strrchr(info.dli_fname, '/');
        snprintf(name, sizeof name, "%s+0x%tx", slash ? slash + 1 : info.dli_fname,
                 (const char *)code - (const char *)info.dli_fbase);
    } else
        snprintf(name, sizeof name, "unknown");
    return strdup(name);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const hp_omp_region *)a)->name, ((const hp_omp_region *)b)->name);
}

static int by_string(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* This rank's regions, every thread's added, sorted by name; `seconds.sum` holds the rank's time. */
static int local_regions(hp_omp_region **out)
{
    int n = 0, cap = 0;
    hp_omp_region *r = NULL;
    for (hp_thread *t = hp_threads_all(); t; t = t->next)
        for (int k = 0; k < t->nregions; k++) {
            const hp_region_count *c = &t->regions[k];
            if (!c->calls) continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 16;
                r = realloc(r, (size_t)cap * sizeof *r);
                if (!r) {
                    fputs("hybridperf-mpi: error: out of memory for the OpenMP regions\n", stderr);
                    abort();
                }
            }
            r[n++] = (hp_omp_region){region_name(c->code), c->calls, c->threads, {.sum = c->seconds}};
        }
    qsort(r, (size_t)n, sizeof *r, by_name);
    int m = 0; /* one construct seen by several threads (nested parallelism, MPI_THREAD_MULTIPLE) */
    for (int k = 0; k < n; k++) {
        if (m && strcmp(r[m - 1].name, r[k].name) == 0) {
            r[m - 1].calls += r[k].calls;
            r[m - 1].seconds.sum += r[k].seconds.sum;
            if (r[k].threads > r[m - 1].threads) r[m - 1].threads = r[k].threads;
            free(r[k].name);
        } else
            r[m++] = r[k];
    }
    *out = r;
    return m;
}

/* Every rank's region names, sorted, each once: NUL-separated strings gathered to all ranks. */
static int all_names(const hp_omp_region *mine, int n, MPI_Comm comm, char **text, char ***names)
{
    int ranks, length = 0;
    PMPI_Comm_size(comm, &ranks);
    for (int k = 0; k < n; k++) length += (int)strlen(mine[k].name) + 1;
    char *packed = malloc((size_t)length + 1), *p = packed;
    for (int k = 0; k < n; k++) p = stpcpy(p, mine[k].name) + 1;
    int *lengths = malloc((size_t)ranks * sizeof *lengths), *displs = malloc((size_t)ranks * sizeof *displs);
    PMPI_Allgather(&length, 1, MPI_INT, lengths, 1, MPI_INT, comm);
    int total = 0;
    for (int r = 0; r < ranks; r++) displs[r] = total, total += lengths[r];
    *text = malloc((size_t)total + 1);
    PMPI_Allgatherv(packed, length, MPI_CHAR, *text, lengths, displs, MPI_CHAR, comm);
    int count = 0;
    for (int i = 0; i < total; i++) count += (*text)[i] == '\0';
    *names = malloc((size_t)(count + 1) * sizeof **names);
    count = 0;
    for (int i = 0; i < total; i += (int)strlen(*text + i) + 1) (*names)[count++] = *text + i;
    qsort(*names, (size_t)count, sizeof **names, by_string);
    int unique = 0;
    for (int k = 0; k < count; k++)
        if (!unique || strcmp((*names)[unique - 1], (*names)[k]) != 0) (*names)[unique++] = (*names)[k];
    free(packed);
    free(lengths);
    free(displs);
    return unique;
}

int hp_ompt_reduce(hp_comm *quiet, MPI_Comm comm, hp_omp_region **out)
{
    hp_omp_region *mine;
    int n = local_regions(&mine);
    char *text, **names;
    int u = all_names(mine, n, comm, &text, &names);
    hp_omp_region *all = calloc((size_t)u + 1, sizeof *all);
    for (int k = 0; k < u; k++) {
        hp_omp_region key = {.name = names[k]};
        const hp_omp_region *here = n ? bsearch(&key, mine, (size_t)n, sizeof *mine, by_name) : NULL;
        all[k].name = strdup(names[k]);
        all[k].seconds = hp_stat_across(quiet, here ? here->seconds.sum : 0.0, comm);
        all[k].calls = (long long)hp_stat_across(quiet, here ? (double)here->calls : 0.0, comm).max;
        all[k].threads = (int)hp_stat_across(quiet, here ? here->threads : 0, comm).max;
    }
    hp_ompt_free(mine, n);
    free(names);
    free(text);
    *out = all;
    return u;
}

void hp_ompt_free(hp_omp_region *r, int n)
{
    for (int k = 0; k < n; k++) free(r[k].name);
    free(r);
}
