/* Options of hybridperf-mixbench and their validation.
 *
 * The iteration counts are OSU's (10000 timed and 100 warm-up iterations up to 8 KiB, 1000 and 10
 * above), so a bare ping-pong is comparable with osu_latency. The lists (--sizes, --styles) arrive
 * split into words by the option table (HP_ARG_LIST, which already rejects empty and repeated
 * words); here each word only becomes what it names, a size in bytes or a style. The rank pair
 * stays one word "A,B" parsed here: it is exactly two numbers, not a list. Everything that needs
 * no MPI is checked before MPI_Init_thread, which must know the thread level the chosen styles
 * need. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "mixbench.h"

const char *const mb_style_names[MB_NSTYLES] = {"single", "masteronly", "funnelled", "multiple"};

const char *const mb_bench_names[MB_NBENCHES] = {"pingpong", "collectives", "mixed", "halo", "alternating", "chain"};

int mb_params_table(mb_params *p, hp_arg *args)
{
    *p = (mb_params){.bench_name = "pingpong",
                     .min_size = 1,
                     .max_size = 4 << 20,
                     .iters = 10000,
                     .iters_large = 1000,
                     .warmup = 100,
                     .warmup_large = 10,
                     .pair_text = "0,1",
                     .pairs = 1,
                     .style_list = {.n = MB_NSTYLES, .item = {"single", "masteronly", "funnelled", "multiple"}},
                     .thread_level_name = "auto",
                     .thread_cap_name = "none",
                     .region_reps = 20,
                     .region_work = 1000000};
    const hp_arg table[] = {
        {HP_OPTION("bench", 'b', HP_ARG_CHOICE, &p->bench_name, "NAME",
                   "benchmark: network = pingpong + collectives; all = every one"),
         .choices = "pingpong|collectives|mixed|halo|alternating|chain|network|all"},
        {HP_OPTION("sizes", 0, HP_ARG_LIST, &p->size_list, "LIST",
                   "message sizes in bytes, comma-separated, suffixes K M G = 2^10 2^20 2^30 (e.g. 8,1K,1M); "
                   "default: --min-size doubling up to --max-size; the chain adds 0 bytes")},
        {HP_OPTION("min-size", 0, HP_ARG_INT, &p->min_size, "BYTES", "smallest message size of the doubling range"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 1},
        {HP_OPTION("max-size", 0, HP_ARG_INT, &p->max_size, "BYTES", "largest message size of the doubling range"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 1},
        {HP_OPTION("iters", 'n', HP_ARG_INT, &p->iters, "N", "timed iterations per size up to 8 KiB"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 1},
        {HP_OPTION("iters-large", 0, HP_ARG_INT, &p->iters_large, "N", "timed iterations per size above 8 KiB"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 1},
        {HP_OPTION("warmup", 0, HP_ARG_INT, &p->warmup, "N",
                   "untimed, uncounted iterations before each size up to 8 KiB"),
         .min_rule = HP_MIN_INCLUSIVE},
        {HP_OPTION("warmup-large", 0, HP_ARG_INT, &p->warmup_large, "N",
                   "untimed, uncounted iterations before each size above 8 KiB"),
         .min_rule = HP_MIN_INCLUSIVE},
        {HP_OPTION("pair", 0, HP_ARG_PATH, &p->pair_text, "A,B",
                   "the two ranks of the ping-pong and mixed-mode benchmarks")},
        {HP_OPTION("pairs", 0, HP_ARG_INT, &p->pairs, "K",
                   "ping-pong: K pairs (i, K+i) at once instead of --pair (per-pair latency, aggregate bandwidth)"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 1},
        {HP_OPTION("styles", 0, HP_ARG_LIST, &p->style_list, "LIST",
                   "mixed-mode styles (single, masteronly, funnelled, multiple); halo runs masteronly and "
                   "funnelled of these")},
        {HP_OPTION("thread-level", 0, HP_ARG_CHOICE, &p->thread_level_name, "LEVEL",
                   "MPI thread level to request; auto: the least the benchmarks need (single for pingpong and "
                   "collectives, funneled with OpenMP regions, multiple for the multiple style)"),
         .choices = "auto|single|funneled|serialized|multiple"},
        {HP_OPTION("fit-min", 0, HP_ARG_INT, &p->fit_min, "BYTES", "Hockney fit: smallest size used"),
         .min_rule = HP_MIN_INCLUSIVE},
        {HP_OPTION("fit-max", 0, HP_ARG_INT, &p->fit_max, "BYTES", "Hockney fit: largest size used (0: no limit)"),
         .min_rule = HP_MIN_INCLUSIVE},
        HP_OPTION_GRID(p->grid, "halo: rank"),
        {HP_OPTION("region-reps", 0, HP_ARG_INT, &p->region_reps, "N", "alternating: timed OpenMP regions per phase"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 1},
        {HP_OPTION("region-work", 0, HP_ARG_INT, &p->region_work, "N",
                   "alternating: dependent multiply-adds per thread per region"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 1},
        {HP_OPTION("comm-timers", 0, HP_ARG_FLAG, &p->comm_timers, NULL,
                   "also time every MPI call (off: the loops are timed as a whole, so per-call clock reads "
                   "do not inflate sub-microsecond latencies)")},
        HP_OPTION_PROFILE(&p->profile),
        {HP_OPTION("check-decomposition", 0, HP_ARG_LIST, &p->check_ranks, "R,...",
                   "print as JSON whether a run on each rank count would be accepted (the ranks the benchmarks "
                   "and --pair/--pairs need); run nothing")},
        {HP_OPTION("test-thread-cap", 0, HP_ARG_CHOICE, &p->thread_cap_name, "LEVEL",
                   "testing only: behave as if MPI provided at most this thread level"),
         .choices = "none|single|funneled|serialized"},
    };
    int n = (int)(sizeof table / sizeof *table);
    memcpy(args, table, sizeof table);
    return n;
}

static int fail(char *err, size_t errlen, const char *msg, const char *word)
{
    snprintf(err, errlen, msg, word);
    return -1;
}

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* One size: digits with an optional K, M or G (binary multiples). */
static int parse_size(const char *word, int *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long long v = strtoll(word, &end, 10);
    if (end == word || errno) return fail(err, errlen, "--sizes: '%s' is not a size in bytes (e.g. 8, 64K, 1M)", word);
    int shift = 0;
    if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K':
            shift = 10;
            break;
        case 'M':
            shift = 20;
            break;
        case 'G':
            shift = 30;
            break;
        default:
            return fail(err, errlen, "--sizes: '%s' is not a size in bytes (e.g. 8, 64K, 1M)", word);
        }
        if (end[1]) return fail(err, errlen, "--sizes: '%s' is not a size in bytes (e.g. 8, 64K, 1M)", word);
    }
    if (v < 1) return fail(err, errlen, "--sizes: '%s' is not a message size: sizes are at least 1 byte", word);
    if (v > (long long)MB_MAX_SIZE >> shift)
        return fail(err, errlen, "--sizes: '%s' is larger than the largest message size, 1G", word);
    *out = (int)(v << shift);
    return 0;
}

/* --sizes: every word a size, no size twice under two spellings (1K, 1024), in ascending order. A list
 * holds no more words than there is room for sizes. */
_Static_assert(HP_LIST_MAX <= MB_MAX_SIZES, "--sizes: room for every word of a list");
static int sizes_from_list(mb_params *p, char *err, size_t errlen)
{
    const hp_list *list = &p->size_list;
    for (int k = 0; k < list->n; k++) {
        if (parse_size(list->item[k], &p->sizes[k], err, errlen)) return -1;
        for (int m = 0; m < k; m++)
            if (p->sizes[m] == p->sizes[k]) {
                snprintf(err, errlen, "--sizes: %s and %s are the same size", list->item[m], list->item[k]);
                return -1;
            }
    }
    p->nsizes = list->n;
    qsort(p->sizes, (size_t)p->nsizes, sizeof *p->sizes, compare_ints);
    return 0;
}

static int parse_pair(const char *text, int pair[2], char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long a = strtol(text, &end, 10);
    if (end == text || *end != ',' || errno)
        return fail(err, errlen, "--pair '%s': give two ranks as A,B (e.g. 0,1)", text);
    const char *second = end + 1;
    long b = strtol(second, &end, 10);
    if (end == second || *end || errno || a < INT_MIN || a > INT_MAX || b < INT_MIN || b > INT_MAX)
        return fail(err, errlen, "--pair '%s': give two ranks as A,B (e.g. 0,1)", text);
    pair[0] = (int)a;
    pair[1] = (int)b;
    return 0;
}

/* One word of --styles: the style it names, or -1. */
static int style_of(const char *word)
{
    for (int k = 0; k < MB_NSTYLES; k++)
        if (strcmp(word, mb_style_names[k]) == 0) return k;
    return -1;
}

static int styles_from_list(mb_params *p, char *err, size_t errlen)
{
    p->styles = 0;
    for (int k = 0; k < p->style_list.n; k++) {
        const int style = style_of(p->style_list.item[k]);
        if (style < 0)
            return fail(err, errlen, "--styles: unknown style '%s' (use single, masteronly, funnelled, multiple)",
                        p->style_list.item[k]);
        p->styles |= 1u << style;
    }
    return 0;
}

static int level_of(const char *name)
{
    if (strcmp(name, "single") == 0) return MPI_THREAD_SINGLE;
    if (strcmp(name, "funneled") == 0) return MPI_THREAD_FUNNELED;
    if (strcmp(name, "serialized") == 0) return MPI_THREAD_SERIALIZED;
    if (strcmp(name, "multiple") == 0) return MPI_THREAD_MULTIPLE;
    return -1;
}

static int is_set(const hp_arg *args, int nargs, const char *name)
{
    for (int a = 0; a < nargs; a++)
        if (strcmp(args[a].name, name) == 0) return args[a].set;
    return 0;
}

static unsigned benches_of(const char *name)
{
    if (strcmp(name, "network") == 0) return MB_PINGPONG | MB_COLLECTIVES;
    if (strcmp(name, "all") == 0) return (1u << MB_NBENCHES) - 1;
    for (int k = 0; k < MB_NBENCHES; k++)
        if (strcmp(name, mb_bench_names[k]) == 0) return 1u << k;
    return 0;
}

static int sizes_from_range(mb_params *p, char *err, size_t errlen)
{
    if (p->min_size > p->max_size) {
        snprintf(err, errlen, "--min-size %d is larger than --max-size %d", p->min_size, p->max_size);
        return -1;
    }
    if (p->max_size > MB_MAX_SIZE) {
        snprintf(err, errlen, "--max-size %d is larger than the largest message size, %d (1G)", p->max_size,
                 MB_MAX_SIZE);
        return -1;
    }
    p->nsizes = 0;
    for (long long m = p->min_size; m <= p->max_size; m *= 2) p->sizes[p->nsizes++] = (int)m;
    return 0;
}

int mb_params_validate(mb_params *p, const hp_arg *args, int nargs, char *err, size_t errlen)
{
    p->benches = benches_of(p->bench_name);
    if (p->size_list.n) {
        const char *range[] = {"min-size", "max-size"};
        for (int k = 0; k < 2; k++)
            if (is_set(args, nargs, range[k])) {
                snprintf(err, errlen, "--sizes and --%s both given; give a list or a range", range[k]);
                return -1;
            }
        if (sizes_from_list(p, err, errlen)) return -1;
    } else if (sizes_from_range(p, err, errlen)) {
        return -1;
    }
    if (parse_pair(p->pair_text, p->pair, err, errlen)) return -1;
    if (p->pair[0] == p->pair[1]) return fail(err, errlen, "--pair %s: the two ranks must differ", p->pair_text);
    if (p->pairs > 1 && is_set(args, nargs, "pair")) {
        snprintf(err, errlen, "--pair and --pairs %d both given; --pairs K uses the pairs (i, K+i)", p->pairs);
        return -1;
    }
    if (p->pairs > MB_MAX_PAIRS) {
        snprintf(err, errlen, "--pairs %d: at most %d pairs", p->pairs, MB_MAX_PAIRS);
        return -1;
    }
    if (styles_from_list(p, err, errlen)) return -1;
    if ((p->benches & MB_HALO) && !(p->styles & (1u << MB_MASTERONLY | 1u << MB_FUNNELLED))) {
        char styles[HP_LIST_MAX * HP_LIST_WORD];
        hp_list_format(&p->style_list, styles, sizeof styles);
        snprintf(err, errlen,
                 "--bench %s: the halo exchange runs the masteronly and funnelled styles, and --styles "
                 "%s has neither",
                 p->bench_name, styles);
        return -1;
    }
    if (p->fit_max && p->fit_min > p->fit_max) {
        snprintf(err, errlen, "--fit-min %d is larger than --fit-max %d", p->fit_min, p->fit_max);
        return -1;
    }

    /* Threads exist wherever the master calls MPI between OpenMP regions: FUNNELED. The plain
     * ping-pong and the collectives have no regions and ask for SINGLE: Open MPI 4.1 switches its
     * internal locks on for any level above SINGLE, which costs a plain 8-byte ping-pong about a
     * third of its latency on one node. */
    const int multiple = (p->benches & MB_MIXED) && (p->styles & (1u << MB_MULTIPLE));
    const int threaded = p->benches & (MB_MIXED | MB_HALO | MB_ALTERNATING);
    p->thread_needed = multiple ? MPI_THREAD_MULTIPLE : threaded ? MPI_THREAD_FUNNELED : MPI_THREAD_SINGLE;
    if (strcmp(p->thread_level_name, "auto") == 0) {
        p->thread_requested = p->thread_needed;
    } else {
        p->thread_requested = level_of(p->thread_level_name);
        if (p->thread_requested < p->thread_needed) {
            snprintf(err, errlen, "--thread-level %s is too low for --bench %s%s, which needs %s", p->thread_level_name,
                     p->bench_name, multiple ? " with the multiple style" : "", hp_thread_level_name(p->thread_needed));
            return -1;
        }
    }
    p->thread_cap = strcmp(p->thread_cap_name, "none") == 0 ? -1 : level_of(p->thread_cap_name);
    return 0;
}

int mb_params_check_run(const mb_params *p, int ranks, int provided, char *err, size_t errlen)
{
    const unsigned two_ranks = MB_PINGPONG | MB_COLLECTIVES | MB_MIXED | MB_CHAIN;
    if ((p->benches & two_ranks) && ranks < 2) {
        snprintf(err, errlen, "--bench %s needs at least 2 ranks, got %d", p->bench_name, ranks);
        return -1;
    }
    if (p->benches & (MB_PINGPONG | MB_MIXED)) {
        for (int k = 0; k < 2; k++)
            if (p->pair[k] < 0 || p->pair[k] >= ranks) {
                snprintf(err, errlen, "--pair %s: rank %d is outside the communicator of %d ranks (0..%d)",
                         p->pair_text, p->pair[k], ranks, ranks - 1);
                return -1;
            }
        if ((p->benches & MB_PINGPONG) && 2 * p->pairs > ranks) {
            snprintf(err, errlen, "--pairs %d needs %d ranks, got %d", p->pairs, 2 * p->pairs, ranks);
            return -1;
        }
    }
    if (p->thread_cap >= 0 && provided > p->thread_cap) provided = p->thread_cap;
    if (provided < p->thread_needed) {
        if (p->thread_needed == MPI_THREAD_MULTIPLE)
            snprintf(err, errlen,
                     "the multiple style needs MPI_THREAD_MULTIPLE but the MPI library provides only %s: use an "
                     "MPI built with thread support, or leave multiple out of --styles",
                     hp_thread_level_name(provided));
        else
            snprintf(err, errlen,
                     "--bench %s needs MPI_THREAD_FUNNELED (the master calls MPI while OpenMP threads exist) but "
                     "the MPI library provides only %s: use an MPI built with thread support",
                     p->bench_name, hp_thread_level_name(provided));
        return -1;
    }
    return 0;
}

const char mb_usage[] = "mpirun [MPI options] hybridperf-mixbench [options]";
const char mb_summary[] =
    "Mixed-mode MPI+OpenMP and network-cost microbenchmarks: ping-pong latency and bandwidth between\n"
    "two ranks (OSU-style), allreduce and barrier against the number of ranks, EPCC's mixed-mode\n"
    "ping-pong (single, masteronly, funnelled, multiple), a 3-D halo exchange, and MPC's alternating\n"
    "benchmark, and IMB's Sendrecv chain (MPI_Sendrecv against MPI_Send + MPI_Irecv + MPI_Wait, 0 bytes and\n"
    "every size, p = 2, 4, 8, ... ranks); Hockney alpha and beta fitted per table. OMP_NUM_THREADS sets\n"
    "threads per rank.\n"
    "Exit status: 0 ok, 1 runtime failure, 2 bad input, 3 a correctness check failed.";
