/* Run and build description; see hp_run.h. */
#include "hp_run.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hp_affinity.h"
#include "hp_args.h"
#include "hp_counters.h"
#include "hp_output.h"

#ifndef HP_VERSION
#define HP_VERSION "0.0.0"
#endif
#ifndef HP_BUILD_FLAGS
#define HP_BUILD_FLAGS "unknown"
#endif
#ifndef HP_GIT_REVISION
#define HP_GIT_REVISION "unknown"
#endif

extern char **environ;

const char *hp_thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE:
        return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
        return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
        return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE:
        return "MPI_THREAD_MULTIPLE";
    default:
        return "unknown";
    }
}

static void compiler_name(char *buf, size_t n)
{
#if defined(__clang__)
    snprintf(buf, n, "clang %s", __clang_version__);
#elif defined(__GNUC__)
    snprintf(buf, n, "gcc %s", __VERSION__);
#else
    snprintf(buf, n, "unknown");
#endif
}

static const char *openmp_runtime(void)
{
#if defined(__clang__)
    return "libomp";
#elif defined(__GNUC__)
    return "libgomp";
#else
    return "unknown";
#endif
}

/* The first line of MPI_Get_library_version (which may be called before MPI_Init), with runs of
 * blanks and tabs collapsed: "Open MPI v4.1.4", "MPICH Version: 4.0.2". */
static void mpi_library(char *buf, size_t n)
{
    char full[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(full, &len);
    full[strcspn(full, "\n\r,")] = '\0';
    size_t out = 0;
    for (const char *p = full; *p && out + 1 < n; p++) {
        int blank = *p == ' ' || *p == '\t';
        if (blank && (out == 0 || buf[out - 1] == ' ')) continue;
        buf[out++] = blank ? ' ' : *p;
    }
    buf[out] = '\0';
}

static void build_json(hp_json *j)
{
    char compiler[256], library[256], mpi_version[16];
    compiler_name(compiler, sizeof compiler);
    mpi_library(library, sizeof library);
    snprintf(mpi_version, sizeof mpi_version, "%d.%d", MPI_VERSION, MPI_SUBVERSION);
    hp_json_object_begin(j, "build");
    hp_json_string(j, "compiler", compiler);
    hp_json_string(j, "flags", HP_BUILD_FLAGS);
    hp_json_string(j, "mpi_library", library);
    hp_json_string(j, "mpi_standard", mpi_version);
    hp_json_int(j, "openmp_version", _OPENMP);
    hp_json_string(j, "openmp_runtime", openmp_runtime());
    hp_json_string(j, "git_revision", HP_GIT_REVISION);
    hp_json_object_end(j);
}

void hp_build_info(FILE *out)
{
    hp_json j;
    hp_json_open(&j, out);
    hp_json_object_begin(&j, NULL);
    hp_json_string(&j, "version", HP_VERSION);
    build_json(&j);
    hp_json_object_end(&j);
}

/* --check-args: the other arguments parsed as a run parses them (names, types, bounds, positions) and, where
 * the kernel gives its validation, checked together as its run checks them, so a front end can refuse a
 * launch line before launching it. Accepted: returns to run nothing (exit 0, as for --help). Refused: the
 * run's own error line and exit status 2. Checks that need MPI stay with the run (md's and mixbench's
 * --check-decomposition answer those for given rank counts). */
static void check_args(int argc, char **argv, const char *program, const hp_arg *args, int nargs,
                       const hp_validation *validation)
{
    hp_arg *table = malloc((size_t)nargs * sizeof *table);
    char **rest = malloc((size_t)argc * sizeof *rest);
    int n = 0;
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--check-args") != 0) rest[n++] = argv[i];
    memcpy(table, args, (size_t)nargs * sizeof *table);
    char err[512];
    int refused = hp_args_parse(table, nargs, n, rest, err, sizeof err) ||
                  (validation && validation->check(validation->params, table, nargs, err, sizeof err));
    free(table);
    free(rest);
    if (refused) {
        fprintf(stderr, "%s: error: %s\n", program, err);
        exit(2);
    }
}

int hp_run_early_exit(int argc, char **argv, const char *program, const hp_arg *args, int nargs, const char *usage,
                      const char *summary, const hp_validation *validation)
{
    if (hp_args_has(argc, argv, "help", 'h')) {
        hp_args_help(stdout, usage, summary, args, nargs);
        return 1;
    }
    if (hp_args_has(argc, argv, "options", 0)) {
        hp_args_describe(stdout, args, nargs);
        return 1;
    }
    if (hp_args_has(argc, argv, "version", 0)) {
        printf("%s %s\n", program, HP_VERSION);
        return 1;
    }
    if (hp_args_has(argc, argv, "build-info", 0)) {
        hp_build_info(stdout);
        return 1;
    }
    if (hp_args_has(argc, argv, "check-args", 0)) {
        check_args(argc, argv, program, args, nargs, validation);
        return 1;
    }
    return 0;
}

void hp_run_start(hp_run *r, const char *kernel, int argc, char **argv, int thread_requested, hp_comm *c)
{
    memset(r, 0, sizeof *r);
    r->kernel = kernel;
    r->argc = argc;
    r->argv = argv;
    r->thread_requested = thread_requested;
    MPI_Init_thread(&argc, &argv, thread_requested, &r->thread_provided);
    hp_counters_open(); /* after MPI's own threads start, before the OpenMP team: only the team inherits them */
    r->world = MPI_COMM_WORLD;
    MPI_Comm_rank(r->world, &r->rank);
    MPI_Comm_size(r->world, &r->ranks);
    r->threads = omp_get_max_threads();

    time_t now = time(NULL);
    strftime(r->start_time, sizeof r->start_time, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));

    /* Ranks sharing memory are on one node: the node's rank count, and one leader per node. */
    MPI_Comm node;
    int node_rank, node_size, leader, node_max;
    MPI_Comm_split_type(r->world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    leader = node_rank == 0;
    hp_allreduce(c, &leader, &r->nodes, 1, MPI_INT, MPI_SUM, r->world);
    hp_allreduce(c, &node_size, &node_max, 1, MPI_INT, MPI_MAX, r->world);
    r->ranks_per_node = node_max;

    char host[MPI_MAX_PROCESSOR_NAME] = {0};
    int len;
    MPI_Get_processor_name(host, &len);
    if (r->rank == 0) r->hosts = calloc((size_t)r->ranks, MPI_MAX_PROCESSOR_NAME);
    hp_gather(c, host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, r->hosts, 0, r->world);
}

void hp_run_finish(hp_run *r)
{
    free(r->hosts);
    free(r->affinity);
    r->hosts = r->affinity = NULL;
    MPI_Finalize();
}

static int is_recorded_variable(const char *entry)
{
    static const char *const prefixes[] = {"OMP_",   "GOMP_",  "KMP_",   "SLURM_", "OMPI_MCA_",
                                           "MPICH_", "HYDRA_", "I_MPI_", "UCX_",   "HYBRIDPERF_"};
    for (size_t k = 0; k < sizeof prefixes / sizeof *prefixes; k++)
        if (strncmp(entry, prefixes[k], strlen(prefixes[k])) == 0) return 1;
    return 0;
}

static void environment_json(hp_json *j)
{
    hp_json_object_begin(j, "environment");
    for (char **e = environ; *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || !is_recorded_variable(*e)) continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(eq - *e), *e);
        hp_json_string(j, name, eq + 1);
    }
    hp_json_object_end(j);
}

static void hosts_json(hp_json *j, const hp_run *r)
{
    hp_json_array_begin(j, "hosts");
    for (int k = 0; k < r->ranks; k++) {
        const char *h = r->hosts + (size_t)k * MPI_MAX_PROCESSOR_NAME;
        int seen = 0;
        for (int m = 0; m < k && !seen; m++) seen = strcmp(h, r->hosts + (size_t)m * MPI_MAX_PROCESSOR_NAME) == 0;
        if (!seen) hp_json_string(j, NULL, h);
    }
    hp_json_array_end(j);
}

void hp_profile_header(hp_json *j, const hp_run *r)
{
    hp_json_string(j, "schema", "hybridperf.profile/1");
    hp_json_string(j, "kernel", r->kernel);
    hp_json_string(j, "kernel_version", HP_VERSION);
    build_json(j);
    hp_json_object_begin(j, "run");
    hp_json_array_begin(j, "command");
    for (int k = 0; k < r->argc; k++) hp_json_string(j, NULL, r->argv[k]);
    hp_json_array_end(j);
    hp_json_string(j, "start_time", r->start_time);
    hosts_json(j, r);
    hp_json_int(j, "ranks", r->ranks);
    hp_json_int(j, "threads_per_rank", r->threads);
    hp_json_int(j, "ranks_per_node", r->ranks_per_node);
    hp_json_int(j, "nodes", r->nodes);
    hp_json_object_begin(j, "mpi_thread_level");
    hp_json_string(j, "requested", hp_thread_level_name(r->thread_requested));
    hp_json_string(j, "provided", hp_thread_level_name(r->thread_provided));
    hp_json_object_end(j);
    environment_json(j);
    hp_affinity_json(j, r);
    hp_json_object_end(j);
}

int hp_profile_write(const char *path, const hp_run *r, hp_members members, const void *state, const void *results,
                     char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    hp_json j;
    hp_json_open(&j, out);
    hp_json_object_begin(&j, NULL);
    hp_profile_header(&j, r);
    members(&j, state, results);
    hp_json_object_end(&j);
    fclose(out);
    int status = hp_write_atomic(path, text, len, err, errlen);
    free(text);
    return status;
}

int hp_any_error(hp_comm *c, MPI_Comm comm, int ok, const char *kernel, const char *msg)
{
    int rank, size, first;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int mine = ok ? size : rank;
    hp_allreduce(c, &mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == size) return 0;
    if (rank == first) {
        fprintf(stderr, "hybridperf-%s: error: %s\n", kernel, msg);
        fflush(stderr);
    }
    return 1;
}

void hp_json_params_and_checks(hp_json *j, const hp_arg *args, int nargs, const hp_check *checks, int nchecks)
{
    hp_json_object_begin(j, "params");
    hp_args_json(j, args, nargs);
    hp_json_object_end(j);
    hp_json_checks(j, checks, nchecks);
}

void hp_json_measured(hp_json *j, const hp_region_stat *regions, int nregions, const hp_comm_stat comm[HP_NCLASSES],
                      const hp_rank_times *times)
{
    hp_json_regions(j, regions, nregions);
    hp_json_comm(j, comm);
    hp_json_rank_times(j, times);
}
