"""SimGrid time-independent traces (one per rank) of a planned run: its operations in order, with the compute
model's seconds between them as `compute` actions (the platform's hosts run 1 Gflop/s, so a gigaflop is a
second). Step by step: the model's compute before the step's messages, before each message and after them,
then the step's global sums. Pure.

`RankTraces` is the run's traces as a sequence made on demand: a replay writes each rank's to its file as it is
made, so that at 16,384 ranks the texts of all ranks are never in memory at once."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import overload

from hybridperf.shapes import Placement
from hybridperf.simulate.compute import ComputeModel
from hybridperf.simulate.plan import Op, Plan, RankPlan

FLOPS = 1e9  # per second: the platform's host speed (cluster.platform_xml)
BYTE, DOUBLE = 6, 0  # SimGrid's codes of MPI_BYTE and MPI_DOUBLE in a trace


def _action(r: int, op: Op, padded: Callable[[int, int], int] = lambda peer, size: size) -> str:
    """The trace line of one operation; `padded(peer, bytes)` is the size a message to or from `peer` takes."""
    if op.kind == "sendrecv":
        return f"{r} sendRecv {padded(op.to, op.bytes)} {op.to} {padded(op.source, op.recv_bytes)} {op.source} " \
               f"{BYTE} {BYTE}"
    if op.kind in ("isend", "send"):
        return f"{r} {op.kind} {op.to} {op.tag} {padded(op.to, op.bytes)} {BYTE}"
    if op.kind == "irecv":
        return f"{r} irecv {op.source} {op.tag} {padded(op.source, op.recv_bytes)} {BYTE}"
    if op.kind == "waitall":
        return f"{r} waitall"
    if op.kind == "wait":  # the request is named by its source, destination and tag
        return f"{r} wait {op.source} {op.to} {op.tag}"
    if op.kind == "allreduce":
        return f"{r} allreduce {-(-op.bytes // 8)} 0 {DOUBLE}"  # doubles; a 4-byte logical sums as one
    raise ValueError(f"no trace action for a planned {op.kind}")


def padder(r: int, ranks_per_node: int, padding: int) -> Callable[[int, int], int]:
    """The size of a message between rank r and a peer: `padding` bytes longer when the peer is on another node
    (the network interface's time per message: ClusterSpec.message_padding)."""
    return lambda peer, size: size + padding if peer // ranks_per_node != r // ranks_per_node else size


def ops_trace(r: int, ops: Iterable[Op], ranks_per_node: int = 1, padding: int = 0) -> str:
    """Rank r's trace of these operations alone, in order (no computation between them), messages between nodes
    padded as in rank_trace."""
    padded = padder(r, ranks_per_node, padding)
    return "\n".join([f"{r} init", *(_action(r, op, padded) for op in ops), f"{r} finalize"]) + "\n"


def rank_trace(plan: Plan, rank: RankPlan, model: ComputeModel, split: Placement,
               omit: frozenset[str] = frozenset(), padding: int = 0) -> str:
    """The rank's trace; operations of the regions in `omit` left out (their compute stays), so that a replay
    without them prices what they cost. Each message between nodes is `padding` bytes longer (the network
    interface's time per message: ClusterSpec.message_padding); global sums are SimGrid's own and are not."""
    r = rank.rank
    padded = padder(r, split.ranks_per_node, padding)
    lines = [f"{r} init"]

    def compute(seconds: float) -> None:
        if seconds > 0:
            lines.append(f"{r} compute {seconds * FLOPS:.9g}")

    def communicate(op: Op) -> None:
        if op.region not in omit:
            lines.append(_action(r, op, padded))

    for step in range(1, plan.steps + 1):
        work = model.step(plan, rank, step, split)
        compute(work.before)
        for op, seconds in zip(plan.halo_ops(rank, step), work.per_message):
            compute(seconds)
            communicate(op)
        compute(work.after)
        for op in plan.sum_ops(rank, step):
            communicate(op)
    lines.append(f"{r} finalize")
    return "\n".join(lines) + "\n"


class OnDemand(Sequence[str]):
    """Ranks' traces made when each is asked for (a replayer iterates once, writing each to its file): the same
    texts as a list of them, without holding them all. A subclass says how many there are and makes one."""

    def __len__(self) -> int:
        raise NotImplementedError

    def make(self, index: int) -> str:
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if not -len(self) <= index < len(self):
            raise IndexError(index)
        return self.make(index % len(self))


class RankTraces(OnDemand):
    """rank_trace of each of the plan's ranks, on demand."""

    def __init__(self, plan: Plan, model: ComputeModel, split: Placement, omit: frozenset[str] = frozenset(),
                 padding: int = 0):
        self.plan, self.model, self.split, self.omit, self.padding = plan, model, split, omit, padding

    def __len__(self) -> int:
        return len(self.plan.ranks_plan)

    def make(self, index: int) -> str:
        return rank_trace(self.plan, self.plan.ranks_plan[index], self.model, self.split, self.omit, self.padding)
