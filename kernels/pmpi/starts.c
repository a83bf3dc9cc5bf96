/* MPI_Start and MPI_Startall (C binding; fortran.c has the Fortran ones). A persistent request sends nothing
 * when it is made (routines.py); each start of a send request sends its message again, and is written in the
 * rank's trace when it traces (trace_actions.c). The other point-to-point wrappers, the collectives' and the
 * one-sided ones are written from routines.py by wrappers.py. */
#include "pmpi.h"

void hp_record_start(hp_call *c, int n, const MPI_Request *reqs)
{
    const hp_requests *m = &c->self->requests;
    if (hp_trace_on) hp_trace_starts(c, n, reqs);
    hp_record(c, HP_P2P, 0, 0);
    for (int i = 0; i < n; i++) {
        const hp_request *known = hp_requests_find(m, reqs[i]);
        if (known && known->sends) hp_record_message(c, HP_P2P, known->bytes);
    }
}

int MPI_Start(MPI_Request *req)
{
    hp_call c = hp_enter(__func__);
    int rc = PMPI_Start(req);
    if (hp_leave(&c, rc)) hp_record_start(&c, 1, req);
    return rc;
}

int MPI_Startall(int n, MPI_Request reqs[])
{
    hp_call c = hp_enter(__func__);
    int rc = PMPI_Startall(n, reqs);
    if (hp_leave(&c, rc)) hp_record_start(&c, n, reqs);
    return rc;
}
