"""A kernel's plan of a run (`hybridperf-md --plan R`, `hybridperf-spmv --plan R`): per rank, its work and the
operations of each step type in the order the run performs them, and which steps are of which type. Parsed
from the kernel's JSON; pure.

The work a rank does is what the kernel's compute model prices: md's owned atoms, ghosts and atoms packed per
exchange; spmv's rows, nonzeros and points packed per call. A step is md's time step or spmv's call."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

SENDS = frozenset({"sendrecv", "isend", "send"})  # the operations a profile counts as messages (hp_comm.h)
POINT_TO_POINT = SENDS | {"irecv", "waitall", "wait"}


@dataclass(frozen=True)
class Op:
    kind: str  # sendrecv | isend | send | irecv | waitall | wait | allreduce
    region: str  # the profile region it is timed in: halo_exchange, migration, reduction, exchange
    bytes: int  # sent (allreduce: the caller's contribution)
    to: int = -1
    source: int = -1
    recv_bytes: int = 0
    tag: int = 0
    calls: int = 1  # MPI calls it is made of (md's exchanges of unknown size: Isend, Probe, Recv, Wait)


@dataclass(frozen=True)
class RankPlan:
    rank: int
    work: Mapping[str, int]  # md: atoms, ghosts, packed; spmv: rows, nnz, packed
    ordinary: tuple[Op, ...]
    rebuild: tuple[Op, ...]
    thermo: tuple[Op, ...]


@dataclass(frozen=True)
class Plan:
    kernel: str
    ranks: int
    grid: tuple[int, int, int]
    problem: Mapping[str, Any]  # the run's size as the kernel states it: md {atoms, box, cutoff}, spmv {rows}
    steps: int
    rebuild_steps: frozenset[int]
    thermo_steps: frozenset[int]
    ranks_plan: tuple[RankPlan, ...]

    def halo_ops(self, rank: RankPlan, step: int) -> tuple[Op, ...]:
        """The step's point-to-point messages in order (a rebuild's migration first)."""
        return rank.rebuild if step in self.rebuild_steps else rank.ordinary

    def sum_ops(self, rank: RankPlan, step: int) -> tuple[Op, ...]:
        """The step's global sums, after its computation."""
        return rank.thermo if step in self.thermo_steps else ()

    def step_ops(self, rank: RankPlan, step: int) -> tuple[Op, ...]:
        return self.halo_ops(rank, step) + self.sum_ops(rank, step)


def _op(d: dict[str, Any]) -> Op:
    return Op(d["op"], d["region"], int(d["bytes"]), int(d.get("to", -1)), int(d.get("from", -1)),
              int(d.get("recv_bytes", 0)), int(d.get("tag", 0)), int(d.get("calls", 1)))


STEP_TYPES = ("ordinary", "rebuild", "thermo")
PROBLEM = ("atoms", "rows", "mode", "box", "cutoff", "ghost_cut")


def parse(data: dict[str, Any]) -> Plan:
    ranks = tuple(RankPlan(int(r["rank"]), {k: int(v) for k, v in r.items() if k not in ("rank", *STEP_TYPES)},
                           *(tuple(map(_op, r[kind])) for kind in STEP_TYPES))
                  for r in data["ranks_plan"])
    return Plan(data["kernel"], int(data["ranks"]), tuple(data["grid"]),
                {k: data[k] for k in PROBLEM if k in data}, int(data["steps"]),
                frozenset(data["rebuild_steps"]), frozenset(data["thermo_steps"]), ranks)


@dataclass(frozen=True)
class Traffic:
    """What one rank sends over a run, as its profile counts it (hp_comm.h: every point-to-point call is a call,
    a sendrecv -- of one or of `calls` calls -- or an isend one message)."""

    p2p_calls: int
    p2p_messages: int
    p2p_bytes: int
    collectives: int
    collective_bytes: int


def traffic(plan: Plan, rank: RankPlan) -> Traffic:
    return count([op for step in range(1, plan.steps + 1) for op in plan.step_ops(rank, step)])


def count(ops: Sequence[Op]) -> Traffic:
    """What a profile counts of these operations."""
    p2p = [op for op in ops if op.kind in POINT_TO_POINT]
    sends = [op for op in p2p if op.kind in SENDS]
    coll = [op for op in ops if op.kind not in POINT_TO_POINT]
    return Traffic(sum(op.calls for op in p2p), len(sends), sum(op.bytes for op in sends), len(coll),
                   sum(op.bytes for op in coll))
