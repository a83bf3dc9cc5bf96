/* Requests from creation to completion: MPI_Wait*, MPI_Test* and MPI_Request_free.
 *
 * A wait or a test sends nothing (hp_counts.h): it is one call, and its time is the time the program
 * spent waiting for what the request does -- so it goes to the request's class. The handles are
 * copied before the call, because the call overwrites those it completes with MPI_REQUEST_NULL and
 * only the copy still says which request (and so which class) they were. The copy also names, for the
 * trace, the requests whose isend or irecv it holds (trace_actions.c writes their waits). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi.h"

MPI_Request *hp_handles(int n, MPI_Request *local)
{
    if (n <= HP_LOCAL_REQUESTS) return local;
    MPI_Request *h = malloc((size_t)n * sizeof *h);
    if (!h) {
        fputs("hybridperf-mpi: error: out of memory for a copy of the requests\n", stderr);
        abort();
    }
    return h;
}

void hp_handles_free(MPI_Request *h, const MPI_Request *local)
{
    if (h != local) free(h);
}

void hp_track(const hp_call *c, MPI_Request r, hp_request what)
{
    if (r != MPI_REQUEST_NULL) hp_requests_put(&c->self->requests, r, what);
}

static int class_of(const hp_requests *m, MPI_Request r)
{
    const hp_request *known = hp_requests_find(m, r);
    return known ? known->cls : HP_P2P;
}

void hp_completed(const hp_call *c, int record, int n, const MPI_Request *before, const MPI_Request *after, int done)
{
    hp_requests *m = &c->self->requests;
    if (record) {
        int which = done;
        for (int i = 0; which < 0 && i < n; i++)
            if (before[i] != MPI_REQUEST_NULL) which = i;
        hp_record(c, which < 0 ? HP_P2P : class_of(m, before[which]), 0, 0);
    }
    /* Persistent requests stay (inactive, same handle) until MPI_Request_free. */
    for (int i = 0; i < n; i++)
        if (before[i] != MPI_REQUEST_NULL && after[i] == MPI_REQUEST_NULL) hp_requests_forget(m, before[i]);
}

/* The request a Waitany/Testany completed, and the first one a Waitsome/Testsome completed: -1 for none
 * (index and outcount are then MPI_UNDEFINED). */
static int one_done(int index) { return index == MPI_UNDEFINED ? -1 : index; }
static int some_done(int outcount, const int *indices)
{
    return outcount == MPI_UNDEFINED || outcount == 0 ? -1 : indices[0];
}

/* The statuses a wait or test over n requests is given: the program's, or -- when it ignores them and the
 * trace must learn the source an irecv from MPI_ANY_SOURCE matched -- `local` or the heap's. */
static MPI_Status *statuses_for(int n, MPI_Status *given, MPI_Status *local)
{
    if (!hp_trace_on || given != MPI_STATUSES_IGNORE || !hp_trace_hold(0)) return given;
    if (n <= HP_LOCAL_REQUESTS) return local;
    MPI_Status *s = malloc((size_t)n * sizeof *s);
    return s ? s : given;
}

static void statuses_free(MPI_Status *s, const MPI_Status *given, const MPI_Status *local)
{
    if (s != given && s != local) free(s);
}

/* Counts the call, after writing in the trace the requests it completed (trace_actions.c). */
static void completion(hp_call *c, int rc, int n, const MPI_Request *before, const MPI_Request *after, int done,
                       const int *which, int count, const MPI_Status *statuses, int all)
{
    const int record = hp_leave(c, rc);
    if (record && hp_trace_on && count > 0) hp_trace_completed(c, before, which, 0, count, statuses, all);
    hp_completed(c, record, n, before, after, done);
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    MPI_Request before = *req;
    MPI_Status own, *st = hp_trace_status(status, &own);
    hp_call c = hp_enter(__func__);
    int rc = PMPI_Wait(req, st);
    completion(&c, rc, 1, &before, req, 0, NULL, 1, st, 0);
    return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    MPI_Request before = *req;
    MPI_Status own, *st = hp_trace_status(status, &own);
    hp_call c = hp_enter(__func__);
    int rc = PMPI_Test(req, flag, st);
    completion(&c, rc, 1, &before, req, 0, NULL, *flag ? 1 : 0, st, 0);
    return rc;
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    MPI_Request local[HP_LOCAL_REQUESTS], *before = hp_handles(n, local);
    MPI_Status own[HP_LOCAL_REQUESTS], *st = statuses_for(n, statuses, own);
    memcpy(before, reqs, (size_t)n * sizeof *before);
    hp_call c = hp_enter(__func__);
    int rc = PMPI_Waitall(n, reqs, st);
    completion(&c, rc, n, before, reqs, -1, NULL, n, st == MPI_STATUSES_IGNORE ? NULL : st, 1);
    hp_handles_free(before, local);
    statuses_free(st, statuses, own);
    return rc;
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    MPI_Request local[HP_LOCAL_REQUESTS], *before = hp_handles(n, local);
    MPI_Status own[HP_LOCAL_REQUESTS], *st = statuses_for(n, statuses, own);
    memcpy(before, reqs, (size_t)n * sizeof *before);
    hp_call c = hp_enter(__func__);
    int rc = PMPI_Testall(n, reqs, flag, st);
    completion(&c, rc, n, before, reqs, -1, NULL, *flag ? n : 0, st == MPI_STATUSES_IGNORE ? NULL : st, 1);
    hp_handles_free(before, local);
    statuses_free(st, statuses, own);
    return rc;
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
    MPI_Request local[HP_LOCAL_REQUESTS], *before = hp_handles(n, local);
    MPI_Status own, *st = hp_trace_status(status, &own);
    memcpy(before, reqs, (size_t)n * sizeof *before);
    hp_call c = hp_enter(__func__);
    int rc = PMPI_Waitany(n, reqs, index, st);
    completion(&c, rc, n, before, reqs, one_done(*index), index, *index == MPI_UNDEFINED ? 0 : 1, st, 0);
    hp_handles_free(before, local);
    return rc;
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    MPI_Request local[HP_LOCAL_REQUESTS], *before = hp_handles(n, local);
    MPI_Status own, *st = hp_trace_status(status, &own);
    memcpy(before, reqs, (size_t)n * sizeof *before);
    hp_call c = hp_enter(__func__);
    int rc = PMPI_Testany(n, reqs, index, flag, st);
    completion(&c, rc, n, before, reqs, one_done(*index), index, *flag && *index != MPI_UNDEFINED ? 1 : 0, st, 0);
    hp_handles_free(before, local);
    return rc;
}

/* MPI_Waitsome and MPI_Testsome take the same arguments and report what completed the same way. */
typedef int (*hp_some_routine)(int, MPI_Request[], int *, int[], MPI_Status[]);

static int some(const char *name, hp_some_routine pmpi, int n, MPI_Request reqs[], int *outcount, int indices[],
                MPI_Status statuses[])
{
    MPI_Request local[HP_LOCAL_REQUESTS], *before = hp_handles(n, local);
    MPI_Status own[HP_LOCAL_REQUESTS], *st = statuses_for(n, statuses, own);
    memcpy(before, reqs, (size_t)n * sizeof *before);
    hp_call c = hp_enter(name);
    int rc = pmpi(n, reqs, outcount, indices, st);
    completion(&c, rc, n, before, reqs, some_done(*outcount, indices), indices,
               *outcount == MPI_UNDEFINED ? 0 : *outcount, st == MPI_STATUSES_IGNORE ? NULL : st, 0);
    hp_handles_free(before, local);
    statuses_free(st, statuses, own);
    return rc;
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    return some(__func__, PMPI_Waitsome, n, reqs, outcount, indices, statuses);
}

int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    return some(__func__, PMPI_Testsome, n, reqs, outcount, indices, statuses);
}

/* Freeing a request moves no data and is not counted (hp_counts.h); it only leaves the table. */
int MPI_Request_free(MPI_Request *req)
{
    MPI_Request before = *req;
    int rc = PMPI_Request_free(req);
    if (rc == MPI_SUCCESS) hp_requests_forget(&hp_self()->requests, before);
    return rc;
}
