/* The affinity read-back, taken at MPI_Finalize: how many CPUs this rank's threads may run on, all of
 * them together (each thread's sched_getaffinity: an OpenMP runtime binds each thread, the main one too,
 * to one place of the rank's set, so no single thread's mask is the rank's), and how many of its threads
 * did work -- those whose CPU time so far (utime + stime of /proc/self/task/<tid>/stat) is at least a
 * fiftieth of its busiest thread's. A program asked for T threads per rank whose ranks never ran more than
 * one busy thread ignored the thread count (docs/pmpi.md); the MPI library's helper threads sleep and stay
 * under that. The share is low on purpose: a program whose threaded loops are a small part of its work
 * still uses its threads, and calling that ignoring them would fail a good run; missing a program that
 * ignores them is the cheaper mistake. OpenMP keeps its worker threads to the end of the program, so they
 * are all still there to read.
 *
 * CPU time is counted in clock ticks (10 ms): when the busiest thread has used fewer than MIN_TICKS the
 * shares cannot be told apart and the count is unknown (-1). */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi.h"

enum { MAX_THREADS = 4096, MIN_TICKS = 20, BUSY_SHARE = 50 };

int hp_cpus_allowed(void)
{
    cpu_set_t all, one;
    CPU_ZERO(&all);
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks) return -1;
    for (struct dirent *e; (e = readdir(tasks)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        if (sched_getaffinity((pid_t)atoi(e->d_name), sizeof one, &one) == 0) CPU_OR(&all, &all, &one);
    }
    closedir(tasks);
    return CPU_COUNT(&all);
}

/* utime + stime of one thread, in ticks; -1 when it cannot be read (the thread has just ended). */
static long long thread_ticks(const char *tid)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/self/task/%s/stat", tid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char *got = fgets(line, sizeof line, f);
    fclose(f);
    char *after_name = got ? strrchr(line, ')') : NULL; /* the name may hold spaces and parentheses */
    unsigned long long utime, stime;
    /* after "pid (name)": state, then fields 4..13, then utime (14) and stime (15) */
    if (!after_name || sscanf(after_name + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
                              &stime) != 2)
        return -1;
    return (long long)(utime + stime);
}

int hp_busy_threads(void)
{
    static long long ticks[MAX_THREADS];
    int n = 0;
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks) return -1;
    for (struct dirent *e; (e = readdir(tasks)) != NULL && n < MAX_THREADS;) {
        if (e->d_name[0] == '.') continue;
        long long t = thread_ticks(e->d_name);
        if (t >= 0) ticks[n++] = t;
    }
    closedir(tasks);
    long long most = 0;
    for (int i = 0; i < n; i++)
        if (ticks[i] > most) most = ticks[i];
    if (most < MIN_TICKS) return -1;
    int busy = 0;
    for (int i = 0; i < n; i++) busy += ticks[i] > 0 && BUSY_SHARE * ticks[i] >= most;
    return busy;
}
