"""The MPI routines the counting library wraps alike: one table for the C binding and Open MPI's Fortran one.

wrappers.py writes both bindings' wrappers from it when the library is built (CMake runs it). Each routine is
counted in its class as one call with `messages` messages of `bytes` (what the caller contributes:
contribution.c), and, when the rank traces, written as the action `trace` returns (trace_actions.c); a routine
without one is counted as untraced there. A "started" routine returns a request that its completion counts in
the same class (completion.c); a "persistent" one makes a request whose starts send (starts.c). The expressions
are C over the C binding's parameter names: wrappers.py turns them into the Fortran binding's, whose arguments
are all pointers (`count` -> `*count`, a datatype -> `hp_f_type(type)` ...), or takes the `fortran_` one given.

Routines whose wrappers do more than count one call stay written by hand: MPI_Init and MPI_Finalize
(lifecycle.c), MPI_Start and MPI_Startall (starts.c), the waits and tests (completion.c), MPI_Pcontrol, and their
Fortran forms (fortran.c).
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Routine:
    name: str  # MPI_<name>: "Allreduce"
    cls: str  # the counting class: HP_P2P, HP_COLLECTIVE, HP_BARRIER, HP_ONE_SIDED
    params: str  # the C binding's parameters, as mpi.h declares them
    messages: int = 1
    bytes: str = "0"
    trace: str | None = None  # None: counted as untraced
    form: str = "blocking"  # or "started" (its last parameter is the request it returns) or "persistent"
    reads_status: bool = False  # the trace reads the source from `status` (the wrapper supplies one if ignored)
    fortran_bytes: str | None = None  # the Fortran binding's own expressions, where the C ones do not carry over
    fortran_trace: str | None = None


def with_nonblocking(blocking: Routine) -> list[Routine]:
    """A collective and its non-blocking form (MPI_Ibcast ...): counted when posted, traced as the blocking one."""
    posted = replace(blocking, name="I" + blocking.name.lower(), params=blocking.params + ", MPI_Request *req",
                     form="started", trace=blocking.trace and f"hp_trace_posted({blocking.trace})")
    return [blocking, posted]


SEND = "const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm"
RECV = "void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm"
MODES = ("", "s", "b", "r")  # standard, synchronous, buffered, ready

# Point-to-point: every send is one message of the bytes the caller sends; receives and probes are calls that
# send nothing. A blocking probe is written as time waited (not compute); a non-blocking one not at all.
POINT_TO_POINT = [
    *(Routine(f"{mode}send".capitalize(), "HP_P2P", SEND, bytes="hp_bytes(count, type)",
              trace='hp_trace_send(&c_, "send", dest, tag, count, type, comm)') for mode in MODES),
    Routine("Recv", "HP_P2P", RECV + ", MPI_Status *status", messages=0, reads_status=True,
            trace="hp_trace_recv(&c_, src, tag, count, type, comm, status)"),
    Routine("Sendrecv", "HP_P2P", "const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf, "
            "int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status *status",
            bytes="hp_bytes(scount, stype)", reads_status=True,
            trace="hp_trace_sendrecv(&c_, hp_bytes(scount, stype), dest, hp_bytes(rcount, rtype), src, comm, status)"),
    Routine("Sendrecv_replace", "HP_P2P", "void *buf, int count, MPI_Datatype type, int dest, int stag, int src, "
            "int rtag, MPI_Comm comm, MPI_Status *status", bytes="hp_bytes(count, type)", reads_status=True,
            trace="hp_trace_sendrecv(&c_, hp_bytes(count, type), dest, hp_bytes(count, type), src, comm, status)"),
    Routine("Probe", "HP_P2P", "int src, int tag, MPI_Comm comm, MPI_Status *status", messages=0,
            trace="hp_trace_waited(&c_)"),
    Routine("Iprobe", "HP_P2P", "int src, int tag, MPI_Comm comm, int *flag, MPI_Status *status", messages=0),
    *(Routine(f"I{mode}send", "HP_P2P", SEND + ", MPI_Request *req", bytes="hp_bytes(count, type)", form="started",
              trace="hp_trace_isend(&c_, dest, tag, count, type, comm)") for mode in MODES),
    # Open MPI's Fortran binding does not trace a receive from MPI_ANY_SOURCE or MPI_ANY_TAG that does not block
    # (fortran.c: its wait would have to read the Fortran status)
    Routine("Irecv", "HP_P2P", RECV + ", MPI_Request *req", messages=0, form="started",
            trace="hp_trace_irecv(&c_, src, tag, count, type, comm)",
            fortran_trace="hp_f_trace_irecv(&c_, src, tag, count, type, comm)"),
    *(Routine(f"{mode}send_init".capitalize(), "HP_P2P", SEND + ", MPI_Request *req", bytes="hp_bytes(count, type)",
              form="persistent", trace="hp_trace_persistent(&c_, 1, dest, tag, count, type, comm)")
      for mode in MODES),
    Routine("Recv_init", "HP_P2P", RECV + ", MPI_Request *req", messages=0, form="persistent",
            trace="hp_trace_persistent(&c_, 0, src, tag, count, type, comm)",
            fortran_trace="hp_f_trace_recv_init(&c_, src, tag, count, type, comm)"),
]

REDUCE = "const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op"
GATHER = "const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype"
GATHERV = "const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[], const int displs[], " \
          "MPI_Datatype rtype"
GATHERED = "hp_bytes_gather(hp_in_place(sbuf), scount, stype, rcount, rtype)"
GATHERED_V = "hp_bytes_gatherv(hp_in_place(sbuf), scount, stype, rcounts, rtype, comm)"
ALLTOALLV = "const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void *rbuf, " \
            "const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm"
SCATTERV = "const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype, void *rbuf, int rcount, " \
           "MPI_Datatype rtype, int root, MPI_Comm comm"


def reduction(name: str, rooted: bool) -> list[Routine]:
    root = "root" if rooted else "-1"
    return with_nonblocking(Routine(
        name, "HP_COLLECTIVE", REDUCE + (", int root" if rooted else "") + ", MPI_Comm comm",
        bytes="hp_bytes(count, type)",
        trace=f'hp_trace_reduce(&c_, "{name.lower()}", hp_bytes(count, type), {root}, comm)'))


# Collectives: each call is one message of the caller's contribution (contribution.c); a barrier moves nothing.
# Alltoallw has no action in SimGrid's replay, so it is not traced.
COLLECTIVES = [
    *with_nonblocking(Routine("Barrier", "HP_BARRIER", "MPI_Comm comm", messages=0,
                              trace="hp_trace_barrier(&c_, comm)")),
    *with_nonblocking(Routine("Bcast", "HP_COLLECTIVE",
                              "void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm",
                              bytes="hp_bytes(count, type)",
                              trace="hp_trace_bcast(&c_, hp_bytes(count, type), root, comm)")),
    *reduction("Reduce", rooted=True),
    *(routine for name in ("Allreduce", "Scan", "Exscan") for routine in reduction(name, rooted=False)),
    *(routine for name, root in (("Gather", "root"), ("Allgather", "-1")) for routine in with_nonblocking(Routine(
        name, "HP_COLLECTIVE", GATHER + (", int root" if root == "root" else "") + ", MPI_Comm comm", bytes=GATHERED,
        trace=f'hp_trace_gather(&c_, "{name.lower()}", {GATHERED}, hp_bytes(rcount, rtype), {root}, comm)'))),
    *with_nonblocking(Routine("Gatherv", "HP_COLLECTIVE", GATHERV + ", int root, MPI_Comm comm", bytes=GATHERED_V,
                              trace=f'hp_trace_gatherv(&c_, "gatherv", {GATHERED_V}, '
                                    "hp_is_root(root, comm) ? rcounts : NULL, rtype, root, comm)")),
    *with_nonblocking(Routine("Allgatherv", "HP_COLLECTIVE", GATHERV + ", MPI_Comm comm", bytes=GATHERED_V,
                              trace=f'hp_trace_gatherv(&c_, "allgatherv", {GATHERED_V}, rcounts, rtype, -1, comm)')),
    *with_nonblocking(Routine("Scatter", "HP_COLLECTIVE", GATHER + ", int root, MPI_Comm comm",
                              bytes="hp_bytes_scatter(root, scount, stype, comm)",
                              trace='hp_trace_gather(&c_, "scatter", hp_bytes(scount, stype), hp_bytes(rcount, rtype), '
                                    "root, comm)")),
    *with_nonblocking(Routine("Scatterv", "HP_COLLECTIVE", SCATTERV,
                              bytes="hp_bytes_scatterv(root, scounts, stype, comm)",
                              trace="hp_trace_scatterv(&c_, hp_is_root(root, comm) ? scounts : NULL, stype, "
                                    "hp_bytes(rcount, rtype), root, comm)")),
    *with_nonblocking(Routine("Alltoall", "HP_COLLECTIVE", GATHER + ", MPI_Comm comm",
                              bytes="hp_bytes_alltoall(hp_in_place(sbuf), scount, stype, rcount, rtype, comm)",
                              trace='hp_trace_gather(&c_, "alltoall", hp_bytes(hp_in_place(sbuf) ? rcount : scount, '
                                    "hp_in_place(sbuf) ? rtype : stype), hp_bytes(rcount, rtype), -1, comm)")),
    *with_nonblocking(Routine("Alltoallv", "HP_COLLECTIVE", ALLTOALLV,
                              bytes="hp_bytes_alltoallv(hp_in_place(sbuf), scounts, stype, rcounts, rtype, comm)",
                              trace="hp_trace_alltoallv(&c_, hp_in_place(sbuf) ? rcounts : scounts, "
                                    "hp_in_place(sbuf) ? rtype : stype, rcounts, rtype, comm)")),
    # the Fortran binding's datatypes come one per peer, converted for contribution.c by fortran.c
    *with_nonblocking(Routine("Alltoallw", "HP_COLLECTIVE", "const void *sbuf, const int scounts[], "
                              "const int sdispls[], const MPI_Datatype stypes[], void *rbuf, const int rcounts[], "
                              "const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm",
                              bytes="hp_bytes_alltoallw(hp_in_place(sbuf), scounts, stypes, rcounts, rtypes, comm)",
                              fortran_bytes="hp_f_alltoallw_bytes(sbuf, scounts, stypes, rcounts, rtypes, comm)")),
    *with_nonblocking(Routine("Reduce_scatter", "HP_COLLECTIVE", "const void *sbuf, void *rbuf, const int rcounts[], "
                              "MPI_Datatype type, MPI_Op op, MPI_Comm comm",
                              bytes="hp_bytes_reduce_scatter(rcounts, type, comm)",
                              trace="hp_trace_reduce_scatter(&c_, rcounts, 0, type, comm)")),
    *with_nonblocking(Routine("Reduce_scatter_block", "HP_COLLECTIVE", "const void *sbuf, void *rbuf, int rcount, "
                              "MPI_Datatype type, MPI_Op op, MPI_Comm comm",
                              bytes="hp_bytes_reduce_scatter_block(rcount, type, comm)",
                              trace="hp_trace_reduce_scatter(&c_, NULL, rcount, type, comm)")),
]

# One-sided (RMA), a class of its own, never traced (SimGrid's replay has no action for it). hp_comm's byte
# convention -- what the caller sends -- would make a get move nothing, yet a get is as much traffic as a put:
# here every data-moving call is one message of the caller's origin buffer (one element for the atomics).
# Synchronisation moves nothing of the program's: a call without a message. Request-based calls (MPI_Rput ...)
# make their waits one-sided.
PUT = "const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount, MPI_Datatype ttype"
GET = "void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint disp, int tcount, MPI_Datatype ttype"
ORIGIN = "hp_bytes(ocount, otype)"
SYNCHRONISATION = {"Win_fence": "int assert, MPI_Win win", "Win_lock": "int type, int rank, int assert, MPI_Win win",
                   "Win_unlock": "int rank, MPI_Win win", "Win_lock_all": "int assert, MPI_Win win",
                   "Win_unlock_all": "MPI_Win win", "Win_flush": "int rank, MPI_Win win",
                   "Win_flush_all": "MPI_Win win", "Win_flush_local": "int rank, MPI_Win win",
                   "Win_flush_local_all": "MPI_Win win", "Win_post": "MPI_Group group, int assert, MPI_Win win",
                   "Win_start": "MPI_Group group, int assert, MPI_Win win", "Win_complete": "MPI_Win win",
                   "Win_wait": "MPI_Win win"}
ONE_SIDED = [
    Routine("Put", "HP_ONE_SIDED", PUT + ", MPI_Win win", bytes=ORIGIN),
    Routine("Get", "HP_ONE_SIDED", GET + ", MPI_Win win", bytes=ORIGIN),
    Routine("Accumulate", "HP_ONE_SIDED", PUT + ", MPI_Op op, MPI_Win win", bytes=ORIGIN),
    Routine("Get_accumulate", "HP_ONE_SIDED", "const void *obuf, int ocount, MPI_Datatype otype, void *rbuf, "
            "int rcount, MPI_Datatype rtype, int target, MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op, "
            "MPI_Win win", bytes=ORIGIN),
    Routine("Fetch_and_op", "HP_ONE_SIDED", "const void *obuf, void *rbuf, MPI_Datatype type, int target, "
            "MPI_Aint disp, MPI_Op op, MPI_Win win", bytes="hp_bytes(1, type)"),
    Routine("Compare_and_swap", "HP_ONE_SIDED", "const void *obuf, const void *cbuf, void *rbuf, MPI_Datatype type, "
            "int target, MPI_Aint disp, MPI_Win win", bytes="hp_bytes(1, type)"),
    Routine("Rput", "HP_ONE_SIDED", PUT + ", MPI_Win win, MPI_Request *req", bytes=ORIGIN, form="started"),
    Routine("Rget", "HP_ONE_SIDED", GET + ", MPI_Win win, MPI_Request *req", bytes=ORIGIN, form="started"),
    Routine("Raccumulate", "HP_ONE_SIDED", PUT + ", MPI_Op op, MPI_Win win, MPI_Request *req", bytes=ORIGIN,
            form="started"),
    *(Routine(name, "HP_ONE_SIDED", params, messages=0) for name, params in SYNCHRONISATION.items()),
]

ROUTINES = [*POINT_TO_POINT, *COLLECTIVES, *ONE_SIDED]
