/* The threads' idle time inside parallel regions, through OMPT, split as DLB's TALP splits it (docs/pop.md):
 * per execution of a region, load imbalance = max - mean of the threads' busy time (the others wait for the
 * slowest) and scheduling = the region's time - the slowest thread's (what the runtime itself costs).
 *
 * A thread's busy time in a region is the time from its implicit task's begin to its arrival at the region's
 * last barrier, less its waits at the barriers before. A thread cannot know which barrier is the last one, so
 * at every barrier it arrives at it writes its busy time so far into its slot of the region's team record; the
 * barrier's own synchronisation makes the last write visible to the thread that opens the region when it
 * ends. (libomp reports a worker's end of wait and of its implicit task only when it is woken for the next
 * region, so those two events cannot serve.) The team record is the opening thread's, reused from region to
 * region: no allocation per region. A nested region opened while its thread's record is in use, and a region
 * in which a thread of the team never reached a barrier, are counted in `unknown` and not split. */
#include <stdlib.h>

#include "pmpi.h"

enum { ompt_task_implicit = 0x2, ompt_scope_begin = 1 };

typedef struct {
    double start;
    int threads; /* the team that ran it (the opening thread's implicit task says) */
    int capacity, in_use;
    double *busy; /* per thread of the team; < 0: no barrier reached yet */
} team_record;

static _Thread_local team_record own;                                  /* the regions this thread opens */
static _Thread_local team_record *current;                             /* the region this thread works in */
static _Thread_local int index_in_team;
static _Thread_local double task_start, waited, wait_start;

void *hp_ompt_idle_begin(int requested, double now)
{
    if (own.in_use) return NULL; /* nested inside a region of its own: not split */
    if (requested > own.capacity) {
        double *grown = realloc(own.busy, (size_t)requested * sizeof *grown);
        if (!grown) return NULL;
        own.busy = grown;
        own.capacity = requested;
    }
    for (int k = 0; k < requested; k++) own.busy[k] = -1.0;
    own.start = now;
    own.threads = requested;
    own.in_use = 1;
    return &own;
}

void hp_ompt_idle_end(void *record, double now)
{
    team_record *team = record;
    if (!team) return;
    team->in_use = 0;
    hp_thread *self = hp_self();
    double sum = 0.0, slowest = 0.0;
    for (int k = 0; k < team->threads; k++) {
        if (team->busy[k] < 0.0) {
            self->omp_unknown++;
            return;
        }
        sum += team->busy[k];
        if (team->busy[k] > slowest) slowest = team->busy[k];
    }
    const double wall = now - team->start;
    self->omp_idle[0] += wall;
    self->omp_idle[1] += slowest - sum / team->threads;
    self->omp_idle[2] += wall > slowest ? wall - slowest : 0.0;
}

void hp_ompt_idle_task(int endpoint, void *record, unsigned int team_size, unsigned int index, int flags)
{
    if (endpoint != ompt_scope_begin || !(flags & ompt_task_implicit)) return;
    current = record;
    if (!current || index >= (unsigned int)current->capacity) {
        current = NULL;
        return;
    }
    if (index == 0 && team_size && (int)team_size < current->threads) current->threads = (int)team_size;
    index_in_team = (int)index;
    task_start = hp_now();
    waited = 0.0;
}

void hp_ompt_idle_wait(int endpoint, int in_region)
{
    const double now = hp_now();
    if (endpoint == ompt_scope_begin) {
        wait_start = now;
        if (current && in_region) current->busy[index_in_team] = now - task_start - waited;
    } else if (wait_start > 0.0) {
        waited += now - wait_start;
        wait_start = 0.0;
    }
}
