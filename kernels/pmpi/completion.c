/* Requests from creation to completion: MPI_Wait*, MPI_Test* and MPI_Request_free.
 *
 * A wait or a test sends nothing (hp_counts.h): it is one call, and its time is the time the program
 * spent waiting for what the request does -- so it goes to the request's class. The handles are
 * copied before the call, because the call overwrites those it completes with MPI_REQUEST_NULL and
 * only the copy still says which request (and so which class) they were. */
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

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    MPI_Request before = *req;
    hp_call c = hp_enter();
    int rc = PMPI_Wait(req, status);
    hp_completed(&c, hp_leave(&c, rc), 1, &before, req, 0);
    return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    MPI_Request before = *req;
    hp_call c = hp_enter();
    int rc = PMPI_Test(req, flag, status);
    hp_completed(&c, hp_leave(&c, rc), 1, &before, req, 0);
    return rc;
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    MPI_Request local[HP_LOCAL_REQUESTS], *before = hp_handles(n, local);
    memcpy(before, reqs, (size_t)n * sizeof *before);
    hp_call c = hp_enter();
    int rc = PMPI_Waitall(n, reqs, statuses);
    hp_completed(&c, hp_leave(&c, rc), n, before, reqs, -1);
    hp_handles_free(before, local);
    return rc;
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    MPI_Request local[HP_LOCAL_REQUESTS], *before = hp_handles(n, local);
    memcpy(before, reqs, (size_t)n * sizeof *before);
    hp_call c = hp_enter();
    int rc = PMPI_Testall(n, reqs, flag, statuses);
    hp_completed(&c, hp_leave(&c, rc), n, before, reqs, -1);
    hp_handles_free(before, local);
    return rc;
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
    MPI_Request local[HP_LOCAL_REQUESTS], *before = hp_handles(n, local);
    memcpy(before, reqs, (size_t)n * sizeof *before);
    hp_call c = hp_enter();
    int rc = PMPI_Waitany(n, reqs, index, status);
    hp_completed(&c, hp_leave(&c, rc), n, before, reqs, one_done(*index));
    hp_handles_free(before, local);
    return rc;
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    MPI_Request local[HP_LOCAL_REQUESTS], *before = hp_handles(n, local);
    memcpy(before, reqs, (size_t)n * sizeof *before);
    hp_call c = hp_enter();
    int rc = PMPI_Testany(n, reqs, index, flag, status);
    hp_completed(&c, hp_leave(&c, rc), n, before, reqs, one_done(*index));
    hp_handles_free(before, local);
    return rc;
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    MPI_Request local[HP_LOCAL_REQUESTS], *before = hp_handles(n, local);
    memcpy(before, reqs, (size_t)n * sizeof *before);
    hp_call c = hp_enter();
    int rc = PMPI_Waitsome(n, reqs, outcount, indices, statuses);
    hp_completed(&c, hp_leave(&c, rc), n, before, reqs, some_done(*outcount, indices));
    hp_handles_free(before, local);
    return rc;
}

int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    MPI_Request local[HP_LOCAL_REQUESTS], *before = hp_handles(n, local);
    memcpy(before, reqs, (size_t)n * sizeof *before);
    hp_call c = hp_enter();
    int rc = PMPI_Testsome(n, reqs, outcount, indices, statuses);
    hp_completed(&c, hp_leave(&c, rc), n, before, reqs, some_done(*outcount, indices));
    hp_handles_free(before, local);
    return rc;
}

/* Freeing a request moves no data and is not counted (hp_counts.h); it only leaves the table. */
int MPI_Request_free(MPI_Request *req)
{
    MPI_Request before = *req;
    int rc = PMPI_Request_free(req);
    if (rc == MPI_SUCCESS) hp_requests_forget(&hp_self()->requests, before);
    return rc;
}
