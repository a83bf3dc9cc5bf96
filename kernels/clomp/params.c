/* Options of hybridperf-clomp: CLOMP 1.2's seven positional numbers, in its order and with its
 * conventions (-1 for numThreads and allocThreads; zoneSize below a zone's 32 bytes is raised to
 * 32), each also settable as --NAME VALUE so that study specs can sweep them by name. All seven are
 * required, as in CLOMP: there is no meaningful default for a benchmark input. */
#include <string.h>

#include "clomp.h"

static const char *const skip_choices = "none|serial_ref|best_case|for_static|for_dynamic|manual";

int clomp_params_table(clomp_params *p, hp_arg *args)
{
    *p = (clomp_params){.num_threads = -1, .alloc_threads = -1, .skip_name = "none"};
    const hp_arg table[] = {
        {HP_OPTION("numThreads", 0, HP_ARG_INT, &p->num_threads, "N",
                   "OpenMP threads per rank; -1: the OpenMP default (OMP_NUM_THREADS, which hybridperf sets)"),
         .min_rule = HP_MIN_INCLUSIVE, .min = -1, .positional = 1, .required = 1},
        {HP_OPTION("allocThreads", 0, HP_ARG_INT, &p->alloc_threads, "N",
                   "threads that allocate and first-touch the partitions; 1: the master alone, -1: numThreads"),
         .min_rule = HP_MIN_INCLUSIVE, .min = -1, .positional = 1, .required = 1},
        {HP_OPTION("numParts", 0, HP_ARG_INT, &p->num_parts, "N",
                   "partitions: the independent iterations of every parallel loop"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 1, .positional = 1, .required = 1},
        {HP_OPTION("zonesPerPart", 0, HP_ARG_INT, &p->zones_per_part, "N", "zones in each partition's linked list"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 1, .positional = 1, .required = 1},
        {HP_OPTION("zoneSize", 0, HP_ARG_INT, &p->zone_size, "BYTES",
                   "bytes per zone; only the first 32 are touched, smaller values are raised to 32"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 1, .positional = 1, .required = 1},
        {HP_OPTION("flopScale", 0, HP_ARG_INT, &p->flop_scale, "N", "repetitions of the update per zone (1 nominal)"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 1, .positional = 1, .required = 1},
        {HP_OPTION("timeScale", 0, HP_ARG_INT, &p->time_scale, "N",
                   "work per measurement: ceil(1e6 timeScale / (zones flopScale)) iterations of 10 sweeps "
                   "(100 nominal)"),
         .min_rule = HP_MIN_INCLUSIVE, .min = 1, .positional = 1, .required = 1},
        HP_OPTION_PROFILE(&p->profile),
        {HP_OPTION("test-skip-work", 0, HP_ARG_CHOICE, &p->skip_name, "VARIANT",
                   "TEST ONLY: VARIANT leaves its last partition out of its first sweep, so its result check "
                   "must fail"),
         .choices = skip_choices},
    };
    int n = (int)(sizeof table / sizeof *table);
    memcpy(args, table, sizeof table);
    return n;
}

int clomp_params_validate(clomp *c, char *err, size_t errlen)
{
    const clomp_params *p = &c->p;
    if (p->num_threads == 0 || p->alloc_threads == 0) {
        snprintf(err, errlen, "%s must be > 0 or -1, got 0", p->num_threads == 0 ? "numThreads" : "allocThreads");
        return -1;
    }
    c->skip = -1;
    for (int v = V_SERIAL_REF; v < CLOMP_VARIANTS; v++)
        if (strcmp(p->skip_name, clomp_region_names[v]) == 0) c->skip = v;
    return 0;
}

const char clomp_usage[] =
    "mpirun [MPI options] hybridperf-clomp [options] numThreads allocThreads numParts zonesPerPart zoneSize "
    "flopScale timeScale";
const char clomp_summary[] =
    "CLOMP (LLNL, version 1.2 conventions): the cost of OpenMP in many small dependent loops over a\n"
    "linked-list mesh. The same sweeps run serially, as parallel for static, parallel for dynamic,\n"
    "manually partitioned (barrier + single) and as an unsynchronised best case; each is reported as\n"
    "runtime, us per sweep, speedup over serial, efficacy and overhead against the best case, and the\n"
    "serial, static, dynamic and manual results are checked against each other exactly.\n"
    "Under MPI every rank runs the benchmark on its own (CLOMP's WITH_MPI mode); rank 0 reports.\n"
    "Example (CLOMP's target input): hybridperf-clomp 16 1 16 400 32 1 100\n"
    "Exit status: 0 ok, 1 runtime failure, 2 bad input, 3 a correctness check failed.";
