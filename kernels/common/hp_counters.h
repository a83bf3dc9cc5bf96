/* Hardware counters of a rank's useful computation (POP's IPC and instruction scalability, docs/pop.md).
 *
 * Two sets of perf_event counters per process, user space only, opened once after MPI starts and before the first
 * OpenMP region. The window set has `inherit`: every thread created after the open (the OpenMP team) counts into
 * it, and it is switched only where the measured window opens and closes -- the same switch that counts MPI calls
 * (hp_comm_count for the kernels, the MPI library's counting window). The MPI set counts the thread that opened
 * them (the one that called MPI_Init) and only inside its MPI calls. What a rank reports is window - MPI: POP's
 * useful instructions and cycles, not the MPI library's polling.
 *
 * Why two sets rather than pausing one: switching an inherited counter reaches every thread's copy, on the CPU it
 * runs on, by an interrupt there; per MPI call that cost 58 us a call at 2 threads on this project's virtual
 * machine and slowed md by 46%. Switching the calling thread's own counters is one local system call each way (the
 * set is a perf group: its leader switches it): about 5 us more a call there with software events (each starts a
 * timer), md's time unchanged within its noise; not measured with hardware events (no PMU here).
 *
 * What it does not exclude: MPI calls made by other threads (MPI_THREAD_MULTIPLE) count as useful, and so do the
 * other threads' waits in the OpenMP runtime (spinning between regions, which the OpenMP factors price by time).
 *
 * HYBRIDPERF_COUNTERS chooses: `hardware` (the default: instructions and cycles), `software` (task-clock and
 * cpu-clock, nanoseconds: what a machine without a PMU can count, which is how the tests check the switching on
 * this project's machines) or `off`. Where the events cannot be opened (a virtual machine without a PMU,
 * perf_event_paranoid), nothing is counted and the reason goes to the profile: never a guess. */
#ifndef HP_COUNTERS_H
#define HP_COUNTERS_H

#define HP_COUNTER_EVENTS 2

typedef struct {
    int events;                            /* how many counted (HP_COUNTER_EVENTS), 0 when none */
    const char *names[HP_COUNTER_EVENTS];  /* perf's names: "instructions", "cycles" */
    long long values[HP_COUNTER_EVENTS];   /* window - MPI, each scaled where the kernel multiplexed it */
    const char *unavailable;               /* why events is 0 */
} hp_counter_values;

/* Opens the counters HYBRIDPERF_COUNTERS asks for, off; once per process (later calls do nothing). */
void hp_counters_open(void);
/* The measured window opens (1) or closes (0). */
void hp_counters_window(int on);
/* An outermost MPI call begins (1) or ends (0): on the thread that opened them, the MPI set counts inside it. */
void hp_counters_mpi(int entering);
/* This process's counts so far (read with the window closed, they are the window's). */
hp_counter_values hp_counters_read(void);

#endif
