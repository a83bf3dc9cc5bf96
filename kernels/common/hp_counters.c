/* perf_event counters of the useful computation; see hp_counters.h for what is counted and when. */
#define _GNU_SOURCE /* syscall */
#include "hp_counters.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef struct {
    const char *name;
    unsigned type;
    unsigned long long config;
} hp_event;

static const hp_event hardware[HP_COUNTER_EVENTS] = {
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
};
static const hp_event software[HP_COUNTER_EVENTS] = {
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
};

/* Per process, as the events are: the two sets (hp_counters.h), whether the window is open, and the reason. */
enum { WINDOW, MPI, SETS };
static struct {
    int opened, events, fd[SETS][HP_COUNTER_EVENTS];
    const hp_event *kind;
    int window;
    char reason[320];
} counters = {.reason = "the counters were never opened (the run stopped before its measured window)"};
static _Thread_local int opener; /* set on the thread that opened them: the one whose MPI calls the MPI set counts */

static int paranoid_level(void)
{
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    int level = -99;
    if (f) {
        if (fscanf(f, "%d", &level) != 1) level = -99;
        fclose(f);
    }
    return level;
}

static void explain(const hp_event *e, int err)
{
    const char *why = "";
    char paranoid[120] = "";
    if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)
        why = ": the kernel offers no such event here (no PMU: a virtual machine that exposes none?)";
    else if (err == EACCES || err == EPERM) {
        snprintf(paranoid, sizeof paranoid, ": kernel.perf_event_paranoid is %d (2 or less lets a user count its "
                 "own processes)", paranoid_level());
        why = paranoid;
    } else if (err == ENOSYS)
        why = ": the kernel has no perf_event";
    snprintf(counters.reason, sizeof counters.reason, "perf_event_open(%s) failed: %s%s", e->name, strerror(err),
             why);
}

/* One event of a set: the first is the group's leader, created off; the other follows it (switching the leader
 * switches the set: one system call). */
static int open_event(const hp_event *e, int inherit, int leader)
{
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = e->type;
    attr.config = e->config;
    attr.disabled = leader < 0;
    attr.inherit = (unsigned)inherit;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    return (int)syscall(SYS_perf_event_open, &attr, 0, -1, leader, PERF_FLAG_FD_CLOEXEC);
}

static void close_all(int opened)
{
    for (int i = 0; i < opened; i++) close(counters.fd[i / HP_COUNTER_EVENTS][i % HP_COUNTER_EVENTS]);
}

void hp_counters_open(void)
{
    if (counters.opened) return;
    counters.opened = 1;
    const char *asked = getenv("HYBRIDPERF_COUNTERS");
    if (!asked || !*asked || strcmp(asked, "hardware") == 0)
        counters.kind = hardware;
    else if (strcmp(asked, "software") == 0)
        counters.kind = software;
    else if (strcmp(asked, "off") == 0) {
        snprintf(counters.reason, sizeof counters.reason, "switched off (HYBRIDPERF_COUNTERS=off)");
        return;
    } else {
        snprintf(counters.reason, sizeof counters.reason,
                 "HYBRIDPERF_COUNTERS=%.80s is not one of hardware, software, off", asked);
        return;
    }
    for (int i = 0; i < SETS * HP_COUNTER_EVENTS; i++) {
        const int set = i / HP_COUNTER_EVENTS, k = i % HP_COUNTER_EVENTS;
        /* the window set follows the threads created from now on (the OpenMP team); the MPI set this one alone */
        counters.fd[set][k] = open_event(&counters.kind[k], set == WINDOW, k == 0 ? -1 : counters.fd[set][0]);
        if (counters.fd[set][k] < 0) {
            explain(&counters.kind[k], errno);
            close_all(i);
            return;
        }
    }
    counters.events = HP_COUNTER_EVENTS;
    opener = 1;
}

static void switch_set(int set, int on)
{
    ioctl(counters.fd[set][0], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

void hp_counters_window(int on)
{
    /* Several threads may set the window to what it is (mixbench's per-thread counters): only a change switches. */
    if (counters.events && __atomic_exchange_n(&counters.window, on, __ATOMIC_RELAXED) != on) switch_set(WINDOW, on);
}

void hp_counters_mpi(int entering)
{
    if (counters.events && opener && __atomic_load_n(&counters.window, __ATOMIC_RELAXED)) switch_set(MPI, entering);
}

/* One counter's count, scaled as perf stat does where it was multiplexed with other events (ran part of the time
 * it was on); -1 when it cannot be read. */
static long long count(int fd)
{
    unsigned long long got[3]; /* value, time enabled, time running */
    if (read(fd, got, sizeof got) != (ssize_t)sizeof got) return -1;
    if (got[2] >= got[1]) return (long long)got[0];
    return got[2] ? (long long)((double)got[0] * (double)got[1] / (double)got[2]) : 0;
}

hp_counter_values hp_counters_read(void)
{
    hp_counter_values v = {.unavailable = counters.reason};
    for (int k = 0; k < counters.events; k++) {
        const long long window = count(counters.fd[WINDOW][k]), mpi = count(counters.fd[MPI][k]);
        if (window < 0 || mpi < 0) {
            snprintf(counters.reason, sizeof counters.reason, "reading %s failed: %s", counters.kind[k].name,
                     strerror(errno));
            return (hp_counter_values){.unavailable = counters.reason};
        }
        v.names[k] = counters.kind[k].name;
        v.values[k] = window > mpi ? window - mpi : 0;
    }
    v.events = counters.events;
    return v;
}
