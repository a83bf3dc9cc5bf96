/* A SimGrid time-independent trace of each rank (docs/pmpi.md "Traces"): with HYBRIDPERF_MPI_TRACE=DIR,
 * DIR/rank-<world rank>.txt in the format `smpirun -replay` reads -- "<r> init", the rank's MPI calls as
 * actions (trace_actions.c), the wall time between them as "<r> compute <flops>" at 1 Gflop/s (the
 * platforms' host speed: a replay on them spends the measured seconds), "<r> finalize".
 *
 * One thread writes it, the one that initialised MPI: a time-independent trace is one sequence of calls
 * per rank, so the calls of other threads have no place in it and are counted as untraced. Compute is
 * measured while counting is on (the window HYBRIDPERF_MPI_PCONTROL chooses), so a replay covers the
 * window the profile's rank_times cover. Lines are made in a buffer allocated once at MPI_Init and
 * written out when it fills: a buffered write is all a traced call adds. An irecv from MPI_ANY_SOURCE is
 * written with blanks where its source and tag go, filled when the wait that completes it reports them;
 * while blanks remain the buffer is held (grown if need be) instead of written out.
 *
 * The rank's files together (this text and its trace events) may take HYBRIDPERF_MPI_TRACE_LIMIT bytes:
 * a rank that would pass it stops tracing, writes no `finalize`, and the summary says the trace is
 * truncated -- a cut trace cannot be replayed, so it is never passed off as a whole one. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hp_output.h"
#include "pmpi.h"

enum { CHUNK = 1 << 20, DIR_MAX = 4096 };
static const long long DEFAULT_LIMIT = 64LL << 20;
static const double FLOPS = 1e9; /* per second: the host speed of cluster.platform_xml's platforms */

static const char *const REASONS[HP_UNTRACED_REASONS] = {"thread", "communicator", "proc_null", "one_sided", "routine"};

static struct {
    int wanted; /* every rank: rank 0's HYBRIDPERF_MPI_TRACE named a folder */
    int rank, ranks;
    const hp_thread *thread;
    char dir[DIR_MAX];
    int fd;
    char *text;
    size_t used, capacity;
    int held;
    long long actions, outstanding;
    long long untraced[HP_UNTRACED_REASONS];
    double last;
} trace = {.fd = -1};

/* rank 0, after hp_trace_finish: what the profile's "trace" object says */
static struct {
    int done;
    long long *bytes, *actions, *state;
    long long untraced[HP_UNTRACED_REASONS];
} summary;

static void flush(void)
{
    for (size_t done = 0; done < trace.used;) {
        ssize_t n = write(trace.fd, trace.text + done, trace.used - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            fprintf(stderr, "hybridperf-mpi: error: cannot write the trace in %s: %s\n", trace.dir, strerror(errno));
            hp_trace_stop(2);
            break;
        }
        done += (size_t)n;
    }
    trace.used = 0;
}

/* Room for n more bytes: the text written out when nothing is held, else the buffer grown. */
static int room(size_t n)
{
    if (trace.capacity - trace.used >= n) return 1;
    if (!trace.held) flush();
    if (trace.capacity - trace.used >= n) return 1;
    size_t capacity = 2 * trace.capacity > trace.used + n ? 2 * trace.capacity : trace.used + n;
    char *grown = realloc(trace.text, capacity);
    if (!grown) {
        fputs("hybridperf-mpi: error: out of memory for the trace\n", stderr);
        hp_trace_stop(2);
        return 0;
    }
    trace.text = grown;
    trace.capacity = capacity;
    return 1;
}

/* "<rank> " + the formatted action + "\n"; the offset of the action, or HP_TRACE_NOWHERE. */
static size_t emit(const char *format, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    const int head = snprintf(NULL, 0, "%d ", trace.rank);
    const int body = vsnprintf(NULL, 0, format, ap);
    const size_t n = (size_t)head + (size_t)body + 1;
    size_t at = HP_TRACE_NOWHERE;
    if (hp_trace_spend((long long)n) && room(n + 1)) {
        char *line = trace.text + trace.used;
        snprintf(line, (size_t)head + 1, "%d ", trace.rank);
        vsnprintf(line + head, (size_t)body + 1, format, again);
        line[head + body] = '\n';
        at = trace.used + (size_t)head;
        trace.used += n;
        trace.actions++;
    }
    va_end(again);
    return at;
}

static size_t line(const char *format, ...) __attribute__((format(printf, 1, 2)));
static size_t line(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    size_t at = emit(format, ap);
    va_end(ap);
    return at;
}

/* The compute burst up to `now`: the wall time since the previous action ended. */
static void burst(double now)
{
    if (now > trace.last) line("compute %.9g", (now - trace.last) * FLOPS);
    trace.last = now;
}

/* The next compute burst starts where the call ended: its time is no computation. */
static void past(const hp_call *c)
{
    if (c->start + c->seconds > trace.last) trace.last = c->start + c->seconds;
}

size_t hp_trace_action(const hp_call *c, const char *format, ...)
{
    if (!hp_trace_on) return HP_TRACE_NOWHERE;
    burst(c->start);
    va_list ap;
    va_start(ap, format);
    size_t at = hp_trace_on ? emit(format, ap) : HP_TRACE_NOWHERE;
    va_end(ap);
    past(c);
    return at;
}

void hp_trace_waited(const hp_call *c)
{
    if (!hp_trace_mine(c)) return;
    hp_trace_skip(c, HP_UNTRACED_ROUTINE);
    burst(c->start);
    past(c);
}

void hp_trace_fill(size_t at, int src, int tag)
{
    char blanks[2 * HP_TRACE_BLANK + 2];
    snprintf(blanks, sizeof blanks, "%*d %*d", HP_TRACE_BLANK, src, HP_TRACE_BLANK, tag);
    if (at != HP_TRACE_NOWHERE && at + 2 * HP_TRACE_BLANK + 1 <= trace.used)
        memcpy(trace.text + at, blanks, 2 * HP_TRACE_BLANK + 1);
    hp_trace_hold(-1);
}

int hp_trace_hold(int delta) { return trace.held += delta; }
int hp_trace_rank(void) { return trace.rank; }
long long hp_trace_outstanding(long long delta) { return trace.outstanding += delta; }

void hp_trace_skip(const hp_call *c, int reason)
{
    (void)c;
    __atomic_add_fetch(&trace.untraced[reason], 1, __ATOMIC_RELAXED);
}

hp_traced hp_trace_skipped(const hp_call *c, int reason)
{
    hp_trace_skip(c, reason);
    return (hp_traced){0};
}

int hp_trace_mine(const hp_call *c)
{
    if (c->self == trace.thread) return 1;
    hp_trace_skip(c, HP_UNTRACED_THREAD);
    return 0;
}

void hp_trace_window(int on, double now)
{
    if (!hp_trace_on || hp_self() != trace.thread) return;
    if (on)
        trace.last = now;
    else
        burst(now);
}

/* A bad HYBRIDPERF_MPI_TRACE or limit, which rank 0 has just printed: the job ends. Rank 0 alone aborts, a moment
 * after its line: MPICH's hydra forwards a rank's stderr through its proxy, and an abort from another rank that
 * arrived first lost the line (seen in CI, under load). The others wait to be ended by that abort. */
static void refuse(int rank, MPI_Comm world)
{
    if (rank == 0) {
        fflush(stderr);
        const struct timespec moment = {0, 200000000};
        nanosleep(&moment, NULL);
        PMPI_Abort(world, 1);
    }
    PMPI_Barrier(world);
    exit(1); /* not reached: rank 0's abort ends every rank */
}

/* HYBRIDPERF_MPI_TRACE_LIMIT: bytes, with an optional K, M or G (binary); -1 when it is not that. */
static long long parse_limit(const char *text)
{
    if (!text || !*text) return DEFAULT_LIMIT;
    char *end;
    errno = 0;
    long long n = strtoll(text, &end, 10);
    const char *units = "KMG";
    const char *unit = *end ? strchr(units, *end) : NULL;
    if (unit && end[1] == '\0') n <<= 10 * (unit - units + 1), end++;
    return errno || *end || n <= 0 || end == text ? -1 : n;
}

static int open_text(void)
{
    char path[DIR_MAX + 32];
    snprintf(path, sizeof path, "%s/rank-%d.txt", trace.dir, trace.rank);
    trace.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    trace.text = malloc(CHUNK);
    if (trace.fd < 0 || !trace.text) {
        fprintf(stderr, "hybridperf-mpi: error: cannot write the trace %s: %s\n", path, strerror(errno));
        return 0;
    }
    trace.capacity = CHUNK;
    return 1;
}

void hp_trace_start(void)
{
    const MPI_Comm world = MPI_COMM_WORLD;
    PMPI_Comm_rank(world, &trace.rank);
    PMPI_Comm_size(world, &trace.ranks);
    long long limit = DEFAULT_LIMIT;
    if (trace.rank == 0) {
        const char *dir = getenv("HYBRIDPERF_MPI_TRACE");
        if (dir && strlen(dir) >= DIR_MAX) {
            fprintf(stderr, "hybridperf-mpi: error: HYBRIDPERF_MPI_TRACE is longer than %d characters\n", DIR_MAX - 1);
            limit = -1;
        } else if (dir) {
            snprintf(trace.dir, DIR_MAX, "%s", dir);
        }
        const char *given = getenv("HYBRIDPERF_MPI_TRACE_LIMIT");
        if (limit > 0 && (limit = parse_limit(given)) < 0)
            fprintf(stderr,
                    "hybridperf-mpi: error: HYBRIDPERF_MPI_TRACE_LIMIT=%s is not a size in bytes (65536, "
                    "64M, 1G)\n",
                    given);
    }
    PMPI_Bcast(&limit, 1, MPI_LONG_LONG, 0, world);
    if (limit < 0) refuse(trace.rank, world);
    PMPI_Bcast(trace.dir, DIR_MAX, MPI_CHAR, 0, world);
    if (!trace.dir[0]) return;
    trace.wanted = 1;
    hp_trace_budget(limit);
    if (mkdir(trace.dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "hybridperf-mpi: error: cannot make the trace folder %s: %s\n", trace.dir, strerror(errno));
        hp_trace_stop(2);
        return;
    }
    if (!open_text() || !hp_events_open(trace.dir, trace.rank)) {
        hp_trace_stop(2);
        return;
    }
    trace.thread = hp_self();
    hp_trace_on = 1;
    line("init");
}

/* The summary of every rank's trace, on rank 0. */
static void sum_up(void)
{
    const MPI_Comm world = MPI_COMM_WORLD;
    long long mine[3] = {hp_trace_spent(), trace.actions, hp_trace_state()};
    long long *all = trace.rank == 0 ? malloc(3 * (size_t)trace.ranks * sizeof *all) : NULL;
    PMPI_Gather(mine, 3, MPI_LONG_LONG, all, 3, MPI_LONG_LONG, 0, world);
    PMPI_Reduce(trace.untraced, summary.untraced, HP_UNTRACED_REASONS, MPI_LONG_LONG, MPI_SUM, 0, world);
    if (trace.rank != 0) return;
    summary.bytes = malloc(3 * (size_t)trace.ranks * sizeof *summary.bytes);
    if (!all || !summary.bytes) return;
    summary.actions = summary.bytes + trace.ranks;
    summary.state = summary.actions + trace.ranks;
    for (int r = 0; r < trace.ranks; r++)
        summary.bytes[r] = all[3 * r], summary.actions[r] = all[3 * r + 1], summary.state[r] = all[3 * r + 2];
    free(all);
    summary.done = 1;
}

static void save_summary(void);

void hp_trace_finish(void)
{
    if (!trace.wanted) return;
    if (hp_trace_on) line("finalize");
    hp_trace_on = 0;
    if (trace.fd >= 0) {
        if (hp_trace_state() != 2) flush();
        close(trace.fd);
    }
    free(trace.text);
    hp_events_close();
    sum_up(); /* every rank's files are closed once rank 0 has everyone's summary */
    if (trace.rank == 0) {
        hp_events_merge(trace.dir, trace.ranks);
        save_summary();
    }
}

static long long total(const long long *v, int n)
{
    long long sum = 0;
    for (int k = 0; k < n; k++) sum += v[k];
    return sum;
}

static int first_rank(int state)
{
    for (int r = 0; r < trace.ranks; r++)
        if (summary.state[r] == state) return r;
    return -1;
}

/* Some rank's trace is not whole: it cannot be replayed. */
static int cut(void) { return first_rank(1) >= 0 || first_rank(2) >= 0; }

/* The summary in one line. */
static void describe(char *out, size_t n)
{
    const int cut = first_rank(1), failed = first_rank(2);
    const long long untraced = total(summary.untraced, HP_UNTRACED_REASONS);
    if (failed >= 0)
        snprintf(out, n, "failed: rank %d could not write its trace in %s; the traces cannot be replayed", failed,
                 trace.dir);
    else if (cut >= 0)
        snprintf(out, n,
                 "truncated: rank %d's trace reached HYBRIDPERF_MPI_TRACE_LIMIT (%lld bytes) and stopped; "
                 "the traces cannot be replayed",
                 cut, hp_trace_limit());
    else if (untraced)
        snprintf(out, n, "complete, but %lld counted calls are not in the traces (untraced, by reason)", untraced);
    else
        snprintf(out, n, "complete: every counted call of the %d ranks is in the traces", trace.ranks);
}

static void arrays(hp_json *j, const char *key, const long long *v)
{
    hp_json_array_begin(j, key);
    for (int r = 0; r < trace.ranks; r++) hp_json_int(j, NULL, v[r]);
    hp_json_array_end(j);
}

void hp_trace_json(hp_json *j)
{
    if (!summary.done) return;
    char note[DIR_MAX + 256];
    describe(note, sizeof note);
    hp_json_object_begin(j, "trace");
    hp_json_string(j, "dir", trace.dir);
    hp_json_string(j, "format", "simgrid-time-independent");
    hp_json_int(j, "ranks", trace.ranks);
    arrays(j, "bytes", summary.bytes);
    arrays(j, "actions", summary.actions);
    hp_json_int(j, "untraced_calls", total(summary.untraced, HP_UNTRACED_REASONS));
    hp_json_object_begin(j, "untraced");
    for (int k = 0; k < HP_UNTRACED_REASONS; k++) hp_json_int(j, REASONS[k], summary.untraced[k]);
    hp_json_object_end(j);
    hp_json_bool(j, "truncated", cut());
    hp_json_int(j, "limit", hp_trace_limit());
    hp_json_string(j, "events", "trace.json");
    hp_json_string(j, "summary", note);
    hp_json_object_end(j);
}

/* DIR/summary.json: the "trace" object, for a run traced without HYBRIDPERF_MPI_PROFILE. */
static void save_summary(void)
{
    char *text = NULL, err[512], path[DIR_MAX + 32];
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out) return;
    hp_json j;
    hp_json_open(&j, out);
    hp_json_object_begin(&j, NULL);
    hp_trace_json(&j);
    hp_json_object_end(&j);
    fclose(out);
    snprintf(path, sizeof path, "%s/summary.json", trace.dir);
    if (hp_write_atomic(path, text, len, err, sizeof err) != 0) fprintf(stderr, "hybridperf-mpi: error: %s\n", err);
    free(text);
    char note[DIR_MAX + 256];
    describe(note, sizeof note);
    if (cut()) fprintf(stderr, "hybridperf-mpi: trace %s\n", note);
}
