/* The library's one output: at MPI_Finalize, every rank's counts reduced across ranks and written by
 * rank 0 to the file HYBRIDPERF_MPI_PROFILE names (nothing at all when it is unset). The contract is
 * in docs/pmpi.md; "comm" is written by hp_json_comm, so it is exactly the kernels' "comm".
 *
 * The reductions are the kernels' own (hp_reduce_comm, hp_stat_across). They run after counting has
 * been switched off, so they pass through this library's wrappers uncounted. Rank 0's environment
 * decides whether there is a file, for every rank: a rank that skipped the reductions alone would
 * hang the others. The file is written whole or not at all (hp_write_atomic); a failure is one line
 * on stderr and never fails the program. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hp_output.h"
#include "hp_report.h"
#include "pmpi.h"

static const char *level_name(int level)
{
    return level == MPI_THREAD_SINGLE       ? "MPI_THREAD_SINGLE"
           : level == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
           : level == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
           : level == MPI_THREAD_MULTIPLE   ? "MPI_THREAD_MULTIPLE"
                                            : "unknown";
}

/* The first line of MPI_Get_library_version, up to its first comma ("Open MPI v4.1.4",
 * "MPICH Version: 4.0.2"), blanks as single spaces: what the kernels' profiles call build.mpi_library. */
static void library_version(char *out, size_t n)
{
    char full[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    PMPI_Get_library_version(full, &len);
    full[strcspn(full, "\n\r,")] = '\0';
    char *to = full; /* blanks squeezed to one space: MPICH pads "Version:" with a run of them */
    for (const char *from = full; *from; from++)
        if (!((*from == ' ' || *from == '\t') && to > full && to[-1] == ' ')) *to++ = *from == '\t' ? ' ' : *from;
    *to = '\0';
    snprintf(out, n, "%s", full);
}

typedef struct {
    int ranks, requested, provided, pcontrol, ompt;
    int cpus[2], busy[2]; /* the affinity read-back (busy.c): smallest and largest over the ranks */
    hp_comm_stat comm[HP_NCLASSES], one_sided;
    hp_rank_times times; /* each rank's counting window and its MPI time in it (POP's inputs) */
    int idle;            /* every rank measured its threads' busy time (ompt_idle.c) */
    double *openmp;      /* rank 0, when idle: per rank, seconds in regions, imbalance, scheduling, unsplit */
    hp_omp_region *regions;
    int nregions;
} summary;

static void write_json(hp_json *j, const summary *s)
{
    char library[MPI_MAX_LIBRARY_VERSION_STRING];
    library_version(library, sizeof library);
    hp_json_object_begin(j, NULL);
    hp_json_string(j, "schema", "hybridperf-mpi/1");
    hp_json_string(j, "mpi_library", library);
    hp_json_int(j, "ranks", s->ranks);
    hp_json_object_begin(j, "thread_level");
    hp_json_string(j, "requested", level_name(s->requested));
    hp_json_string(j, "provided", level_name(s->provided));
    hp_json_object_end(j);
    hp_json_string(j, "counting", s->pcontrol ? "pcontrol" : "init-to-finalize");
    hp_json_comm(j, s->comm);
    hp_json_comm_class(j, "one_sided", &s->one_sided);
    hp_json_rank_times(j, &s->times);
    hp_json_object_begin(j, "threads");
    hp_json_object_begin(j, "cpus_allowed");
    hp_json_int(j, "min", s->cpus[0]);
    hp_json_int(j, "max", s->cpus[1]);
    hp_json_object_end(j);
    hp_json_object_begin(j, "busy");
    hp_json_int(j, "min", s->busy[0]);
    hp_json_int(j, "max", s->busy[1]);
    hp_json_object_end(j);
    hp_json_object_end(j);
    hp_json_string(j, "openmp_tool", s->ompt ? "ompt" : "unavailable");
    if (s->openmp) hp_json_omp_idle(j, s->openmp, s->ranks);
    hp_json_object_begin(j, "regions");
    for (int k = 0; k < s->nregions; k++) {
        const hp_omp_region *r = &s->regions[k];
        hp_json_object_begin(j, r->name);
        hp_json_int(j, "calls", r->calls);
        hp_stat_json(j, "time", &r->seconds);
        hp_json_real(j, "imbalance", hp_imbalance(&r->seconds));
        hp_json_int(j, "threads", r->threads);
        hp_json_object_end(j);
    }
    hp_json_object_end(j);
    hp_trace_json(j);
    hp_json_object_end(j);
}

static void save(const char *path, const summary *s)
{
    char *text = NULL, err[512];
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out) {
        fprintf(stderr, "hybridperf-mpi: error: no memory to write %s\n", path);
        return;
    }
    hp_json j;
    hp_json_open(&j, out);
    write_json(&j, s);
    fclose(out);
    if (hp_write_atomic(path, text, len, err, sizeof err) != 0) fprintf(stderr, "hybridperf-mpi: error: %s\n", err);
    free(text);
}

static void reduce_min_max(int mine, int out[2], MPI_Comm comm)
{
    PMPI_Allreduce(&mine, &out[0], 1, MPI_INT, MPI_MIN, comm);
    PMPI_Allreduce(&mine, &out[1], 1, MPI_INT, MPI_MAX, comm);
}

/* Each rank's threads' idle time in parallel regions (ompt_idle.c), its threads' sums, gathered on rank 0. */
static void gather_idle(summary *s, int rank, MPI_Comm comm)
{
    double mine[4] = {0, 0, 0, 0};
    for (hp_thread *t = hp_threads_all(); t; t = t->next) {
        for (int k = 0; k < 3; k++) mine[k] += t->omp_idle[k];
        mine[3] += (double)t->omp_unknown;
    }
    s->openmp = rank == 0 ? malloc(4 * (size_t)s->ranks * sizeof *s->openmp) : NULL;
    PMPI_Gather(mine, 4, MPI_DOUBLE, s->openmp, 4, MPI_DOUBLE, 0, comm);
}

void hp_profile_write(int requested, int provided, int pcontrol)
{
    const MPI_Comm world = MPI_COMM_WORLD;
    const char *path = getenv("HYBRIDPERF_MPI_PROFILE");
    int rank, wanted = path && *path;
    PMPI_Comm_rank(world, &rank);
    PMPI_Bcast(&wanted, 1, MPI_INT, 0, world);
    if (!wanted) return;
    summary s = {.requested = requested, .provided = provided, .pcontrol = pcontrol};
    PMPI_Comm_size(world, &s.ranks);
    hp_comm total;
    hp_comm_counts one_sided;
    hp_threads_total(&total, &one_sided);
    hp_reduce_comm(&total, world, s.comm);
    hp_reduce_counts(&total, &one_sided, world, &s.one_sided);
    hp_gather_rank_times(&total, hp_counted_seconds(), hp_comm_seconds(&total) + one_sided.seconds, world, &s.times);
    reduce_min_max(hp_cpus_allowed(), s.cpus, world);
    reduce_min_max(hp_busy_threads(), s.busy, world);
    int mine = hp_ompt_active();
    PMPI_Allreduce(&mine, &s.ompt, 1, MPI_INT, MPI_MIN, world); /* "ompt" only when every rank had it */
    s.nregions = hp_ompt_reduce(&total, world, &s.regions);
    mine = hp_ompt_idle_active();
    PMPI_Allreduce(&mine, &s.idle, 1, MPI_INT, MPI_MIN, world);
    if (s.idle) gather_idle(&s, rank, world);
    if (rank == 0) save(path, &s);
    hp_ompt_free(s.regions, s.nregions);
    hp_rank_times_free(&s.times);
    free(s.openmp);
}
