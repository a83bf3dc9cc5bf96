/* Thread affinity: the CPU set each thread of each rank was allowed, and the CPU it was last seen on.
 *
 * Read from the operating system after the measured loop (pthread_getaffinity_np, sched_getcpu),
 * never inferred from the launch line: a launcher that binds a rank to one core stacks all its
 * threads there, and only the threads themselves can tell. Each rank formats one line per thread;
 * rank 0 gathers the lines and turns them into the profile's run.affinity. */
#define _GNU_SOURCE
#include "hp_affinity.h"

#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

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

/* One entry per rank: {"rank", "host", "threads": [{"thread", "cpu", "allowed": [...]}]}. */
void hp_affinity_json(hp_json *j, const hp_run *r)
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
