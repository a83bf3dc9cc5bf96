"""Each rank's time inside MPI calls in a replay, read from the Paje trace SMPI writes of it (`tracing/smpi`): what
a PMPI profiler of the run would have measured, waiting for late peers included.

SMPI's replay puts each action it replays in a state of its rank's container: `smpi_replay_run_init` and
`smpi_replay_run_finalize` around the run, every point-to-point action (send, isend, irecv, wait, waitall,
sendRecv) under its class's method name, `kernel` in SimGrid 3.32, and each collective under a name of its own
(`action_allreduce`, `action_bcast`, `gather`, `allgather`, ...). A barrier is traced as `kernel` too, so it counts
as point-to-point here: the kernels' plans make none. Computation is not a state (tracing/smpi/computing is left
off). So per rank: elapsed is from the end of init to the start of finalize (the rank's loop, as the kernels time
it), point-to-point the time in `kernel` states, collective the time in the others. Pure."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

INIT, FINALIZE = "smpi_replay_run_init", "smpi_replay_run_finalize"
POINT_TO_POINT = "kernel"
# Paje event codes of the header SMPI writes (its %EventDef lines)
DEFINE_VALUE, CREATE_CONTAINER, PUSH, POP = "5", "6", "12", "13"
RANK = re.compile(r'"?rank-(\d+)"?')


class TraceUnreadable(ValueError):
    """The trace is not one of an SMPI replay (no ranks, or a state left open)."""


@dataclass(frozen=True)
class MpiTimes:
    """Per rank, indexed by rank: the seconds of its loop, and of them in point-to-point and in collective calls."""

    elapsed: tuple[float, ...]
    p2p: tuple[float, ...]
    collective: tuple[float, ...]

    @property
    def mpi(self) -> tuple[float, ...]:
        return tuple(p + c for p, c in zip(self.p2p, self.collective))

    def inside(self, kind: str) -> tuple[float, ...]:
        """Each rank's seconds inside one class of calls: "p2p" or "collective"."""
        return {"p2p": self.p2p, "collective": self.collective}[kind]

    def share(self, kind: str) -> float:
        """A flat profile's share of one class of calls (ITAC's, Table 5.1): every rank's seconds inside them over
        every rank's loop."""
        return sum(self.inside(kind)) / sum(self.elapsed)

    def scaled(self, factor: float) -> "MpiTimes":
        """Every time times factor (a window of steps standing for a whole run)."""
        return MpiTimes(*(tuple(factor * t for t in times) for times in (self.elapsed, self.p2p, self.collective)))


def mpi_times(lines: Iterable[str]) -> MpiTimes:
    """The ranks' MpiTimes from the trace's lines."""
    names: dict[str, str] = {}  # state value id -> its name
    rank_of: dict[str, int] = {}  # container id -> rank
    open_states: dict[str, list[tuple[float, str]]] = {}
    start: dict[int, float] = {}
    end: dict[int, float] = {}
    p2p: dict[int, float] = {}
    collective: dict[int, float] = {}
    for line in lines:
        fields = line.split(maxsplit=5)
        if not fields or fields[0] in ("%", "#") or fields[0].startswith(("%", "#")):
            continue
        code = fields[0]
        if code == DEFINE_VALUE:
            names[fields[1]] = fields[3]
        elif code == CREATE_CONTAINER:
            match = RANK.fullmatch(fields[5].strip())
            if match:
                rank_of[fields[2]] = int(match[1])
        elif code == PUSH and fields[3] in rank_of:
            time, name = float(fields[1]), names.get(fields[4].strip(), fields[4].strip())
            if name == FINALIZE:
                end[rank_of[fields[3]]] = time
            open_states.setdefault(fields[3], []).append((time, name))
        elif code == POP and fields[3] in rank_of:
            rank = rank_of[fields[3]]
            began, name = open_states[fields[3]].pop()
            seconds = float(fields[1]) - began
            if name == INIT:
                start[rank] = float(fields[1])
            elif name == POINT_TO_POINT:
                p2p[rank] = p2p.get(rank, 0.0) + seconds
            elif name != FINALIZE:
                collective[rank] = collective.get(rank, 0.0) + seconds
    ranks = sorted(rank_of.values())
    if not ranks or ranks != list(range(len(ranks))) or set(end) != set(ranks) or set(start) != set(ranks):
        raise TraceUnreadable("the Paje trace has no complete run of ranks 0 ... N-1 (init and finalize each)")
    return MpiTimes(tuple(end[r] - start[r] for r in ranks), tuple(p2p.get(r, 0.0) for r in ranks),
                    tuple(collective.get(r, 0.0) for r in ranks))
