/* The run's trace events, in Chrome's trace-event format, which ui.perfetto.dev (and chrome://tracing)
 * opens: one "X" (complete) event per counted MPI call -- pid the world rank, tid the thread (hp_thread.id),
 * name the routine, args its bytes and its peer -- and, where the OMPT tool is active, one per thread per
 * OpenMP parallel region it ran (its implicit task). Timestamps are CLOCK_MONOTONIC microseconds, the
 * same clock for every rank of one node.
 *
 * Each rank writes DIR/events-<rank>.json through one stdio stream with a large buffer: every thread
 * writes its events whole with one fwrite, which stdio locks, so the threads' events never interleave
 * and no lock of ours is taken. At MPI_Finalize rank 0 joins the ranks' files into DIR/trace.json and
 * removes them: one file is what the viewer opens. Each file is a whole JSON document on its own, and
 * its events sit between a fixed head and tail, so joining is copying the bytes between them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmpi.h"

static const char HEAD[] = "{\"traceEvents\":[\n";
static const char TAIL[] = "\n]}\n";
enum { BUFFER = 1 << 20, PATH = 4200 };

static FILE *events;
static int rank;

static void events_path(char *out, const char *dir, int r) { snprintf(out, PATH, "%s/events-%d.json", dir, r); }

int hp_events_open(const char *dir, int r)
{
    char path[PATH];
    events_path(path, dir, r);
    rank = r;
    events = fopen(path, "w");
    if (!events) {
        perror("hybridperf-mpi: error: cannot write the trace events");
        return 0;
    }
    setvbuf(events, NULL, _IOFBF, BUFFER);
    char first[128];
    int n = snprintf(first, sizeof first,
                     "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":"
                     "\"rank %d\"}}",
                     HEAD, rank, rank);
    hp_trace_spend(n);
    fwrite(first, 1, (size_t)n, events);
    return 1;
}

static void put(const char *event, int n)
{
    if (n > 0 && hp_trace_spend(n)) fwrite(event, 1, (size_t)n, events);
}

void hp_trace_event(const hp_call *c, long long bytes)
{
    if (!events) return;
    char event[320];
    int n = snprintf(event, sizeof event,
                     ",\n{\"name\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,"
                     "\"args\":{\"bytes\":%lld,\"peer\":%d}}",
                     c->name, rank, c->self->id, c->start * 1e6, c->seconds * 1e6, bytes, c->peer);
    put(event, n);
}

void hp_trace_region(hp_thread *t)
{
    if (t->region_start <= 0.0) return;
    char event[256];
    int n = snprintf(event, sizeof event,
                     ",\n{\"name\":\"OpenMP parallel\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,"
                     "\"args\":{\"thread\":%u}}",
                     rank, t->id, t->region_start * 1e6, (t->region_end - t->region_start) * 1e6, t->region_thread);
    t->region_start = 0.0;
    if (events) put(event, n);
}

void hp_events_close(void)
{
    if (!events) return;
    for (hp_thread *t = hp_threads_all(); t; t = t->next) hp_trace_region(t);
    FILE *out = events;
    events = NULL;
    for (const hp_thread *t = hp_threads_all(); t; t = t->next)
        fprintf(out,
                ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"thread %d\"}}",
                rank, t->id, t->id);
    fputs(TAIL, out);
    if (fclose(out) != 0) perror("hybridperf-mpi: error: cannot write the trace events");
}

/* Appends the events of one rank's file to `out` (a separator first when `more`); 0 when it is not there. */
static int copy_events(FILE *out, const char *path, int more)
{
    FILE *in = fopen(path, "r");
    if (!in) return 0;
    fseek(in, 0, SEEK_END);
    long size = ftell(in);
    long left = size - (long)strlen(HEAD) - (long)strlen(TAIL);
    if (left > 0 && fseek(in, (long)strlen(HEAD), SEEK_SET) == 0) {
        if (more) fputs(",\n", out);
        char chunk[65536];
        for (size_t n; left > 0 && (n = fread(chunk, 1, left < (long)sizeof chunk ? (size_t)left : sizeof chunk, in));)
            fwrite(chunk, 1, n, out), left -= (long)n;
    }
    fclose(in);
    return 1;
}

void hp_events_merge(const char *dir, int ranks)
{
    char path[PATH], merged[PATH], partial[PATH + 8];
    snprintf(merged, PATH, "%s/trace.json", dir);
    snprintf(partial, sizeof partial, "%s.part", merged);
    FILE *out = fopen(partial, "w");
    if (!out) {
        perror("hybridperf-mpi: error: cannot write the trace events");
        return;
    }
    fputs(HEAD, out);
    int copied = 0;
    for (int r = 0; r < ranks; r++) {
        events_path(path, dir, r);
        if (copy_events(out, path, copied > 0))
            copied++;
        else
            fprintf(stderr, "hybridperf-mpi: rank %d's trace events (%s) are not here: not in trace.json\n", r, path);
    }
    fputs(TAIL, out);
    if (fclose(out) != 0 || rename(partial, merged) != 0) {
        perror("hybridperf-mpi: error: cannot write the trace events");
        return;
    }
    for (int r = 0; r < ranks; r++) {
        events_path(path, dir, r);
        unlink(path);
    }
}
