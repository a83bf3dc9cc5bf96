/* Point-to-point wrappers (C binding): every send is one message of the bytes the caller sends;
 * receives and probes are calls that send nothing (hp_counts.h). Non-blocking calls count when they
 * are posted, and their requests are kept so that their completion is counted as point-to-point
 * too (completion.c). A persistent request sends nothing when it is made; each MPI_Start of a send
 * request sends its message again. Each call that SimGrid's replay can take is also written in the rank's
 * trace when it traces (trace_actions.c): a persistent request at each start; probes are not written (a
 * blocking probe's time is left out of the compute bursts: hp_trace_waited). */
#include "pmpi.h"

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    return HP_TRACED(HP_P2P, 1, hp_bytes(count, type), PMPI_Send(buf, count, type, dest, tag, comm),
                     hp_trace_send(&c_, "send", dest, tag, count, type, comm));
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    return HP_TRACED(HP_P2P, 1, hp_bytes(count, type), PMPI_Ssend(buf, count, type, dest, tag, comm),
                     hp_trace_send(&c_, "send", dest, tag, count, type, comm));
}

int MPI_Bsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    return HP_TRACED(HP_P2P, 1, hp_bytes(count, type), PMPI_Bsend(buf, count, type, dest, tag, comm),
                     hp_trace_send(&c_, "send", dest, tag, count, type, comm));
}

int MPI_Rsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    return HP_TRACED(HP_P2P, 1, hp_bytes(count, type), PMPI_Rsend(buf, count, type, dest, tag, comm),
                     hp_trace_send(&c_, "send", dest, tag, count, type, comm));
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Status own, *st = hp_trace_status(status, &own); /* the trace writes the source it matched */
    return HP_TRACED(HP_P2P, 0, 0, PMPI_Recv(buf, count, type, src, tag, comm, st),
                     hp_trace_recv(&c_, src, tag, count, type, comm, st));
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf, int rcount,
                 MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Status own, *st = hp_trace_status(status, &own);
    return HP_TRACED(HP_P2P, 1, hp_bytes(scount, stype),
                     PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, st),
                     hp_trace_sendrecv(&c_, hp_bytes(scount, stype), dest, hp_bytes(rcount, rtype), src, comm, st));
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag, int src, int rtag, MPI_Comm comm,
                         MPI_Status *status)
{
    MPI_Status own, *st = hp_trace_status(status, &own);
    return HP_TRACED(HP_P2P, 1, hp_bytes(count, type),
                     PMPI_Sendrecv_replace(buf, count, type, dest, stag, src, rtag, comm, st),
                     hp_trace_sendrecv(&c_, hp_bytes(count, type), dest, hp_bytes(count, type), src, comm, st));
}

int MPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status *status)
{
    return HP_TRACED(HP_P2P, 0, 0, PMPI_Probe(src, tag, comm, status), hp_trace_waited(&c_));
}

int MPI_Iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    return HP_COUNTED(HP_P2P, 0, 0, PMPI_Iprobe(src, tag, comm, flag, status));
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    return HP_STARTED_TRACED(HP_P2P, 1, hp_bytes(count, type), *req, PMPI_Isend(buf, count, type, dest, tag, comm, req),
                             hp_trace_isend(&c_, dest, tag, count, type, comm));
}

int MPI_Issend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    return HP_STARTED_TRACED(HP_P2P, 1, hp_bytes(count, type), *req,
                             PMPI_Issend(buf, count, type, dest, tag, comm, req),
                             hp_trace_isend(&c_, dest, tag, count, type, comm));
}

int MPI_Ibsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    return HP_STARTED_TRACED(HP_P2P, 1, hp_bytes(count, type), *req,
                             PMPI_Ibsend(buf, count, type, dest, tag, comm, req),
                             hp_trace_isend(&c_, dest, tag, count, type, comm));
}

int MPI_Irsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    return HP_STARTED_TRACED(HP_P2P, 1, hp_bytes(count, type), *req,
                             PMPI_Irsend(buf, count, type, dest, tag, comm, req),
                             hp_trace_isend(&c_, dest, tag, count, type, comm));
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req)
{
    return HP_STARTED_TRACED(HP_P2P, 0, 0, *req, PMPI_Irecv(buf, count, type, src, tag, comm, req),
                             hp_trace_irecv(&c_, src, tag, count, type, comm));
}

int MPI_Send_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    return HP_PERSISTENT_TRACED(1, hp_bytes(count, type), *req, PMPI_Send_init(buf, count, type, dest, tag, comm, req),
                                hp_trace_persistent(&c_, 1, dest, tag, count, type, comm));
}

int MPI_Ssend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    return HP_PERSISTENT_TRACED(1, hp_bytes(count, type), *req, PMPI_Ssend_init(buf, count, type, dest, tag, comm, req),
                                hp_trace_persistent(&c_, 1, dest, tag, count, type, comm));
}

int MPI_Bsend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    return HP_PERSISTENT_TRACED(1, hp_bytes(count, type), *req, PMPI_Bsend_init(buf, count, type, dest, tag, comm, req),
                                hp_trace_persistent(&c_, 1, dest, tag, count, type, comm));
}

int MPI_Rsend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    return HP_PERSISTENT_TRACED(1, hp_bytes(count, type), *req, PMPI_Rsend_init(buf, count, type, dest, tag, comm, req),
                                hp_trace_persistent(&c_, 1, dest, tag, count, type, comm));
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req)
{
    return HP_PERSISTENT_TRACED(0, 0, *req, PMPI_Recv_init(buf, count, type, src, tag, comm, req),
                                hp_trace_persistent(&c_, 0, src, tag, count, type, comm));
}

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
