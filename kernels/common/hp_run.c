/* Run and build description; see hp_run.h. */
#define _GNU_SOURCE
#include "hp_run.h"

#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hp_args.h"

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

static const char *level_name(int level)
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

/* The first line of MPI_Get_library_version, which may be called before MPI_Init. */
static void mpi_library(char *buf, size_t n)
{
    char full[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(full, &len);
    full[strcspn(full, "\n\r,")] = '\0';
    snprintf(buf, n, "%s", full);
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

int hp_run_early_exit(int argc, char **argv, const char *program, void (*print_help)(FILE *))
{
    if (hp_args_has(argc, argv, "help", 'h')) {
        print_help(stdout);
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

/* Appends "rank thread cpu a,b,c\n" for the calling thread to buf. */
static void describe_thread(char *buf, size_t n, int rank)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    pthread_getaffinity_np(pthread_self(), sizeof set, &set);
    int used = snprintf(buf, n, "%d %d %d ", rank, omp_get_thread_num(), sched_getcpu());
    const char *sep = "";
    for (int cpu = 0; cpu < CPU_SETSIZE && (size_t)used < n; cpu++)
        if (CPU_ISSET(cpu, &set)) {
            used += snprintf(buf + used, n - (size_t)used, "%s%d", sep, cpu);
            sep = ",";
        }
    if ((size_t)used < n) snprintf(buf + used, n - (size_t)used, "\n");
}

void hp_run_capture_affinity(hp_run *r, hp_comm *c)
{
    enum { LINE = 8192 };
    int nthreads = omp_get_max_threads();
    char *mine = calloc((size_t)nthreads, LINE);
#pragma omp parallel num_threads(nthreads)
    describe_thread(mine + (size_t)omp_get_thread_num() * LINE, LINE, r->rank);
    /* Pack the lines, then gather variable lengths to rank 0. */
    size_t packed = 0;
    for (int t = 0; t < nthreads; t++) {
        size_t len = strlen(mine + (size_t)t * LINE);
        memmove(mine + packed, mine + (size_t)t * LINE, len);
        packed += len;
    }
    int length = (int)packed, *lengths = NULL, *displs = NULL, total = 0;
    if (r->rank == 0) {
        lengths = calloc((size_t)r->ranks, sizeof *lengths);
        displs = calloc((size_t)r->ranks, sizeof *displs);
    }
    hp_gather(c, &length, 1, MPI_INT, lengths, 0, r->world);
    if (r->rank == 0) {
        for (int k = 0; k < r->ranks; k++) {
            displs[k] = total;
            total += lengths[k];
        }
        r->affinity = calloc((size_t)total + 1, 1);
    }
    hp_gatherv(c, mine, length, MPI_CHAR, r->affinity, lengths, displs, 0, r->world);
    free(mine);
    free(lengths);
    free(displs);
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

/* One entry per rank: {"rank", "host", "threads": [{"thread", "cpu", "allowed": [...]}]}. */
static void affinity_json(hp_json *j, const hp_run *r)
{
    hp_json_array_begin(j, "affinity");
    int open_rank = -1;
    for (const char *line = r->affinity; line && *line;) {
        int rank, thread, cpu, used;
        if (sscanf(line, "%d %d %d %n", &rank, &thread, &cpu, &used) < 3) break;
        if (rank != open_rank) {
            if (open_rank >= 0) {
                hp_json_array_end(j);
                hp_json_object_end(j);
            }
            hp_json_object_begin(j, NULL);
            hp_json_int(j, "rank", rank);
            hp_json_string(j, "host", r->hosts + (size_t)rank * MPI_MAX_PROCESSOR_NAME);
            hp_json_array_begin(j, "threads");
            open_rank = rank;
        }
        hp_json_object_begin(j, NULL);
        hp_json_int(j, "thread", thread);
        hp_json_int(j, "cpu", cpu);
        hp_json_array_begin(j, "allowed");
        const char *p = line + used;
        while (*p && *p != '\n') {
            char *end;
            long v = strtol(p, &end, 10);
            if (end == p) break;
            hp_json_int(j, NULL, v);
            p = *end == ',' ? end + 1 : end;
        }
        hp_json_array_end(j);
        hp_json_object_end(j);
        const char *next = strchr(line, '\n');
        line = next ? next + 1 : NULL;
    }
    if (open_rank >= 0) {
        hp_json_array_end(j);
        hp_json_object_end(j);
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
    hp_json_string(j, "requested", level_name(r->thread_requested));
    hp_json_string(j, "provided", level_name(r->thread_provided));
    hp_json_object_end(j);
    environment_json(j);
    affinity_json(j, r);
    hp_json_object_end(j);
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
