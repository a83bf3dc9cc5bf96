"""A kernel's plan of a run (`hybridperf-md --plan R`): per rank, its work and the operations of each step type in
the order the run performs them, and which steps are of which type. Parsed from the kernel's JSON; pure."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Op:
    kind: str  # "sendrecv" | "allreduce"
    region: str  # the profile region it is timed in: halo_exchange, migration, reduction
    bytes: int  # sent (allreduce: the caller's contribution)
    to: int = -1
    source: int = -1
    recv_bytes: int = 0


@dataclass(frozen=True)
class RankPlan:
    rank: int
    atoms: int  # owned
    ghosts: int
    packed: int  # atoms packed into the halo messages of one exchange
    ordinary: tuple[Op, ...]
    rebuild: tuple[Op, ...]
    thermo: tuple[Op, ...]


@dataclass(frozen=True)
class Plan:
    kernel: str
    ranks: int
    grid: tuple[int, int, int]
    atoms: int
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
              int(d.get("recv_bytes", 0)))


def parse(data: dict[str, Any]) -> Plan:
    ranks = tuple(RankPlan(int(r["rank"]), int(r["atoms"]), int(r["ghosts"]), int(r["packed"]),
                           tuple(map(_op, r["ordinary"])), tuple(map(_op, r["rebuild"])),
                           tuple(map(_op, r["thermo"])))
                  for r in data["ranks_plan"])
    return Plan(data["kernel"], int(data["ranks"]), tuple(data["grid"]), int(data["atoms"]), int(data["steps"]),
                frozenset(data["rebuild_steps"]), frozenset(data["thermo_steps"]), ranks)


@dataclass(frozen=True)
class Traffic:
    """What one rank sends over a run, as its profile counts it (hp_comm.h: a sendrecv is one message)."""

    p2p_messages: int
    p2p_bytes: int
    collectives: int
    collective_bytes: int


def traffic(plan: Plan, rank: RankPlan) -> Traffic:
    p2p = [op for step in range(1, plan.steps + 1) for op in plan.step_ops(rank, step) if op.kind == "sendrecv"]
    coll = [op for step in range(1, plan.steps + 1) for op in plan.step_ops(rank, step) if op.kind != "sendrecv"]
    return Traffic(len(p2p), sum(op.bytes for op in p2p), len(coll), sum(op.bytes for op in coll))
