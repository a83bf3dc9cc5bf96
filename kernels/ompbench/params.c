/* Options of hybridperf-ompbench and the list of measurements they select.
 *
 * The defaults are EPCC v4's: 1000 us target per sample, a 0.1 us delay, 20 outer repetitions,
 * 1024 iterations per thread, power-of-two chunk sizes for the schedules and the powers of 3 up to
 * 59049 for the array sizes of the data clauses. A group (--bench)
 * or an explicit list (--constructs) chooses what runs; both are checked here, before MPI work
 * starts, so a typo costs one clear line rather than a half-finished run. Both lists arrive split
 * into words by the option table (HP_ARG_LIST, which already rejects empty and repeated words);
 * here each word only becomes what it names, a construct, a chunk size or an array size. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ompbench.h"

int omb_params_table(omb_params *p, hp_arg *args)
{
    *p = (omb_params){.bench = "sync",
                      .chunks = {.n = 1, .item = {"pow2"}},
                      .sizes = {.n = 1, .item = {"pow3"}},
                      .test_time_us = 1000.0,
                      .delay_time_us = 0.1,
                      .extra_delay_us = 1.0,
                      .ref_sd_tol = 0.1,
                      .noise_quantum_us = 1000.0,
                      .outer_reps = 20,
                      .iters_per_thread = 1024};
    const hp_arg table[] = {
        {HP_OPTION("bench", 'b', HP_ARG_CHOICE, &p->bench, "GROUP",
                   "what to measure: sync (EPCC syncbench), sched (schedbench), array (arraybench: PRIVATE, "
                   "FIRSTPRIVATE, COPYPRIVATE, COPYIN x array sizes), all (the three), selftest (EMPTY and "
                   "KNOWN_DELAY, the method's own checks)"),
         .choices = "sync|sched|array|all|selftest"},
        {HP_OPTION("constructs", 'c', HP_ARG_LIST, &p->constructs, "LIST",
                   "comma-separated constructs instead of a group, e.g. PARALLEL,BARRIER,DYNAMIC (names in "
                   "docs/ompbench.md; STATICN, DYNAMIC and GUIDED run once per chunk size, the array "
                   "constructs once per array size)")},
        {HP_OPTION("test-time", 't', HP_ARG_REAL, &p->test_time_us, "US",
                   "target duration of one timed sample, microseconds (EPCC --test-time)"),
         .min_rule = HP_MIN_EXCLUSIVE},
        {HP_OPTION("delay-time", 0, HP_ARG_REAL, &p->delay_time_us, "US",
                   "duration of the delay each construct wraps, microseconds (EPCC --delay-time)"),
         .min_rule = HP_MIN_EXCLUSIVE},
        {HP_OPTION("delay-length", 0, HP_ARG_INT, &p->delay_length, "N",
                   "iterations of the delay loop, instead of calibrating them from --delay-time (0: calibrate)"),
         .min_rule = HP_MIN_INCLUSIVE},
        {HP_OPTION("outer-reps", 'r', HP_ARG_INT, &p->outer_reps, "N",
                   "timed samples of each construct and of its reference (EPCC --outer-repetitions)"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 2},
        {HP_OPTION("iters-per-thread", 0, HP_ARG_INT, &p->iters_per_thread, "N",
                   "schedules: loop iterations per thread"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 1},
        {HP_OPTION("chunks", 0, HP_ARG_LIST, &p->chunks, "LIST",
                   "schedules: chunk sizes, comma-separated, or pow2 = 1, 2, 4, ... up to --iters-per-thread "
                   "(guided: up to --iters-per-thread / threads)")},
        {HP_OPTION("array-sizes", 0, HP_ARG_LIST, &p->sizes, "LIST",
                   "array group: elements of the array each clause copies, comma-separated powers of 3 up to "
                   "59049 (EPCC's sizes, one set of static arrays each), or pow3 = all of them")},
        {HP_OPTION("test-extra-delay-us", 0, HP_ARG_REAL, &p->extra_delay_us, "US",
                   "KNOWN_DELAY self-test: spinning added per repetition, microseconds"),
         .min_rule = HP_MIN_EXCLUSIVE},
        {HP_OPTION("ref-sd-tol", 0, HP_ARG_REAL, &p->ref_sd_tol, "X",
                   "largest accepted standard deviation of a reference's samples relative to their mean (a "
                   "check: larger means the machine is too noisy to trust the overheads)"),
         .min_rule = HP_MIN_INCLUSIVE},
        {HP_OPTION("noise-quanta", 0, HP_ARG_INT, &p->noise_quanta, "N",
                   "after the constructs, time N fixed work quanta back to back on every thread: the OS noise, as "
                   "each quantum's slowdown against its thread's fastest (0: not measured)"),
         .min_rule = HP_MIN_INCLUSIVE},
        {HP_OPTION("noise-quantum-us", 0, HP_ARG_REAL, &p->noise_quantum_us, "US",
                   "length of one noise quantum, microseconds (the interval of the noise it measures)"),
         .min_rule = HP_MIN_EXCLUSIVE},
        HP_OPTION_PROFILE(&p->profile),
    };
    const int n = (int)(sizeof table / sizeof *table);
    memcpy(args, table, sizeof table);
    return n;
}

static const omb_construct *find_construct(const char *name)
{
    const omb_construct *tables[] = {omb_sync_constructs, omb_sched_constructs, omb_array_constructs,
                                     omb_selftest_constructs};
    const int counts[] = {omb_sync_count, omb_sched_count, omb_array_count, omb_selftest_count};
    for (int t = 0; t < 4; t++)
        for (int k = 0; k < counts[t]; k++)
            if (strcasecmp(tables[t][k].name, name) == 0) return &tables[t][k];
    return NULL;
}

static void add_group(omb_params *p, const omb_construct *table, int count)
{
    for (int k = 0; k < count; k++) p->selected[p->nselected++] = &table[k];
}

/* One word of --constructs: the construct it names, case-insensitively, once. */
static int add_construct(omb_params *p, const char *word, char *err, size_t errlen)
{
    const omb_construct *c = find_construct(word);
    if (!c) {
        snprintf(err, errlen,
                 "--constructs: unknown construct '%s' (known: PARALLEL, FOR, PARALLEL_FOR, BARRIER, "
                 "BARRIER_VAR, SINGLE, CRITICAL, LOCK_CONTENDED, LOCK_UNCONTENDED, ORDERED, ATOMIC, "
                 "ATOMIC_SEQCST, REDUCTION, STATIC, STATICN, DYNAMIC, GUIDED, PRIVATE, FIRSTPRIVATE, "
                 "COPYPRIVATE, COPYIN, EMPTY, KNOWN_DELAY)",
                 word);
        return -1;
    }
    for (int k = 0; k < p->nselected; k++)
        if (p->selected[k] == c) {
            snprintf(err, errlen, "--constructs: %s is listed twice", c->name);
            return -1;
        }
    p->selected[p->nselected++] = c;
    return 0;
}

/* A list option of whole numbers: its name, the keyword that stands for the default set, where the
 * numbers go, and what a number may be. */
typedef struct {
    const char *option, *keyword;
    const hp_list *words;
    int *values, *count, max_count;
    int (*allowed)(const omb_params *p, long v, char *err, size_t errlen); /* 0, or -1 with a message */
} number_list;

static int chunk_allowed(const omb_params *p, long v, char *err, size_t errlen)
{
    if (v <= p->iters_per_thread) return 0;
    snprintf(err, errlen, "--chunks: %ld exceeds --iters-per-thread %d", v, p->iters_per_thread);
    return -1;
}

static int size_allowed(const omb_params *p, long v, char *err, size_t errlen)
{
    (void)p;
    if (omb_array_size_index(v) >= 0) return 0;
    snprintf(err, errlen,
             "--array-sizes: %ld is not one of EPCC's sizes 1, 3, 9, ..., 59049 (the powers of 3; each has its own "
             "static arrays)",
             v);
    return -1;
}

/* One word of a number list: a whole number >= 1 that the list allows, not listed before. */
static int add_number(const omb_params *p, const number_list *l, const char *word, char *err, size_t errlen)
{
    char *end;
    const long v = strtol(word, &end, 10);
    if (end == word || *end || v < 1) {
        char text[HP_LIST_MAX * HP_LIST_WORD];
        hp_list_format(l->words, text, sizeof text);
        snprintf(err, errlen, "%s must be %s or comma-separated whole numbers >= 1, got '%s'", l->option, l->keyword,
                 text);
        return -1;
    }
    if (l->allowed(p, v, err, errlen)) return -1;
    if (*l->count == l->max_count) {
        snprintf(err, errlen, "%s: at most %d values", l->option, l->max_count);
        return -1;
    }
    for (int k = 0; k < *l->count; k++)
        if (l->values[k] == v) {
            snprintf(err, errlen, "%s: %ld is listed twice", l->option, v);
            return -1;
        }
    l->values[(*l->count)++] = (int)v;
    return 0;
}

static int parse_numbers(const omb_params *p, const number_list *l, char *err, size_t errlen)
{
    *l->count = 0;
    for (int k = 0; k < l->words->n; k++)
        if (add_number(p, l, l->words->item[k], err, errlen)) return -1;
    return 0;
}

static int parse_chunks(omb_params *p, char *err, size_t errlen)
{
    p->chunks_pow2 = p->chunks.n == 1 && strcmp(p->chunks.item[0], "pow2") == 0;
    if (p->chunks_pow2) {
        p->nchunks = 0;
        for (int c = 1; c <= p->iters_per_thread; c *= 2) p->chunk[p->nchunks++] = c;
        return 0;
    }
    const number_list l = {"--chunks", "pow2", &p->chunks, p->chunk, &p->nchunks, OMB_MAX_CHUNKS, chunk_allowed};
    return parse_numbers(p, &l, err, errlen);
}

static int parse_sizes(omb_params *p, char *err, size_t errlen)
{
    if (p->sizes.n == 1 && strcmp(p->sizes.item[0], "pow3") == 0) {
        for (p->nsizes = 0; p->nsizes < OMB_ARRAY_NSIZES; p->nsizes++)
            p->size[p->nsizes] = omb_array_size_at(p->nsizes);
        return 0;
    }
    const number_list l = {"--array-sizes", "pow3", &p->sizes, p->size, &p->nsizes, OMB_ARRAY_NSIZES, size_allowed};
    return parse_numbers(p, &l, err, errlen);
}

int omb_params_validate(omb_params *p, const hp_arg *args, int nargs, char *err, size_t errlen)
{
    const hp_arg *bench = NULL, *delay_time = NULL, *delay_length = NULL;
    for (int k = 0; k < nargs; k++) {
        if (strcmp(args[k].name, "bench") == 0) bench = &args[k];
        if (strcmp(args[k].name, "delay-time") == 0) delay_time = &args[k];
        if (strcmp(args[k].name, "delay-length") == 0) delay_length = &args[k];
    }
    if (p->constructs.n && bench->set) {
        snprintf(err, errlen, "--bench and --constructs both given; --constructs replaces the group, give one");
        return -1;
    }
    if (delay_time->set && delay_length->set && p->delay_length > 0) {
        snprintf(err, errlen, "--delay-time and --delay-length both given; the length fixes the delay, give one");
        return -1;
    }
    if (parse_chunks(p, err, errlen) || parse_sizes(p, err, errlen)) return -1;
    p->nselected = 0;
    if (p->constructs.n) {
        for (int k = 0; k < p->constructs.n; k++)
            if (add_construct(p, p->constructs.item[k], err, errlen)) return -1;
        return 0;
    }
    if (strcmp(p->bench, "sync") == 0 || strcmp(p->bench, "all") == 0)
        add_group(p, omb_sync_constructs, omb_sync_count);
    if (strcmp(p->bench, "sched") == 0 || strcmp(p->bench, "all") == 0)
        add_group(p, omb_sched_constructs, omb_sched_count);
    if (strcmp(p->bench, "array") == 0 || strcmp(p->bench, "all") == 0)
        add_group(p, omb_array_constructs, omb_array_count);
    if (strcmp(p->bench, "selftest") == 0) add_group(p, omb_selftest_constructs, omb_selftest_count);
    return 0;
}

/* One item named NAME or NAME_n. */
static void add_item(omb_item *item, const omb_construct *c, const char *family, int chunk, int size)
{
    *item = (omb_item){.construct = c, .chunk = chunk, .size = size};
    if (chunk || size)
        snprintf(item->name, OMB_NAME_LEN, "%s_%d", family, chunk ? chunk : size);
    else
        snprintf(item->name, OMB_NAME_LEN, "%s", family);
}

int omb_select(const omb_params *p, int threads, omb_item *items)
{
    int n = 0;
    for (int k = 0; k < p->nselected; k++) {
        const omb_construct *c = p->selected[k];
        if (c->axis == OMB_ONCE) add_item(&items[n++], c, c->name, 0, 0);
        if (c->axis == OMB_PER_SIZE)
            for (int i = 0; i < p->nsizes; i++) add_item(&items[n++], c, c->name, 0, p->size[i]);
        if (c->axis != OMB_PER_CHUNK) continue;
        const char *family = strcmp(c->name, "STATICN") == 0 ? "STATIC" : c->name;
        const int guided_limit = p->chunks_pow2 && strcmp(c->name, "GUIDED") == 0;
        for (int i = 0; i < p->nchunks; i++) {
            if (guided_limit && p->chunk[i] > p->iters_per_thread / threads) continue;
            add_item(&items[n++], c, family, p->chunk[i], 0);
        }
    }
    return n;
}

const char omb_usage[] = "mpirun [MPI options] hybridperf-ompbench [options]";
const char omb_summary[] =
    "EPCC-style OpenMP overheads: synchronisation constructs (parallel, for, barrier, single, critical,\n"
    "locks, ordered, atomic, reduction), loop schedules (static, dynamic, guided x chunk sizes) and\n"
    "data clauses (private, firstprivate, copyprivate, copyin x array sizes),\n"
    "each timed around a calibrated delay against a reference without the construct, with a 95%\n"
    "confidence interval, in microseconds and core cycles. Every MPI rank measures with its own\n"
    "threads at the same time; rank 0 reports. OMP_NUM_THREADS sets threads per rank.\n"
    "Exit status: 0 ok, 1 runtime failure, 2 bad input, 3 a correctness check failed.";
