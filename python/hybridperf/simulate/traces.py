"""SimGrid time-independent traces (one per rank) of a planned run: its operations in order, with the compute
model's seconds between them as `compute` actions (the platform's hosts run 1 Gflop/s, so a gigaflop is a
second). Step by step: the model's compute before the step's messages, before each message and after them,
then the step's global sums. Pure.

`RankTraces` is the run's traces as a sequence made on demand: a replay writes each rank's to its file as it is
made, so that at 16,384 ranks the texts of all ranks are never in memory at once."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import overload

from hybridperf.cluster import Interface
from hybridperf.shapes import Placement
from hybridperf.simulate.compute import ComputeModel
from hybridperf.simulate.plan import Op, Plan, RankPlan

FLOPS = 1e9  # per second: the platform's host speed (cluster.platform_xml)
BYTE, DOUBLE = 6, 0  # SimGrid's codes of MPI_BYTE and MPI_DOUBLE in a trace
NO_INTERFACE = Interface()


def _action(r: int, op: Op, interface: Callable[[int], Interface] = lambda peer: NO_INTERFACE) -> str:
    """The trace line of one operation; `interface(peer)` is what the network interface adds to a message to or
    from `peer`: its padding bytes, and the sender's time per byte as a sleep before the send."""
    def size(peer: int, data: int) -> int:
        return data + interface(peer).padding

    def pushed(peer: int, data: int) -> str:
        seconds = data * interface(peer).seconds_per_byte
        return f"{r} sleep {seconds:.9g}\n" if seconds > 0 else ""

    if op.kind == "sendrecv":
        return f"{pushed(op.to, op.bytes)}{r} sendRecv {size(op.to, op.bytes)} {op.to} " \
               f"{size(op.source, op.recv_bytes)} {op.source} {BYTE} {BYTE}"
    if op.kind in ("isend", "send"):
        return f"{pushed(op.to, op.bytes)}{r} {op.kind} {op.to} {op.tag} {size(op.to, op.bytes)} {BYTE}"
    if op.kind == "irecv":
        return f"{r} irecv {op.source} {op.tag} {size(op.source, op.recv_bytes)} {BYTE}"
    if op.kind == "waitall":
        return f"{r} waitall"
    if op.kind == "wait":  # the request is named by its source, destination and tag
        return f"{r} wait {op.source} {op.to} {op.tag}"
    if op.kind == "allreduce":
        return f"{r} allreduce {-(-op.bytes // 8)} 0 {DOUBLE}"  # doubles; a 4-byte logical sums as one
    raise ValueError(f"no trace action for a planned {op.kind}")


def between_nodes(r: int, ranks_per_node: int, interface: Interface) -> Callable[[int], Interface]:
    """What the network interface adds to a message between rank r and a peer: `interface` when the peer is on
    another node, nothing within one (ClusterSpec.interface)."""
    return lambda peer: interface if peer // ranks_per_node != r // ranks_per_node else NO_INTERFACE


def ops_trace(r: int, ops: Iterable[Op], ranks_per_node: int = 1, interface: Interface = NO_INTERFACE) -> str:
    """Rank r's trace of these operations alone, in order (no computation between them), messages between nodes
    as in rank_trace."""
    added = between_nodes(r, ranks_per_node, interface)
    return "\n".join([f"{r} init", *(_action(r, op, added) for op in ops), f"{r} finalize"]) + "\n"


def rank_trace(plan: Plan, rank: RankPlan, model: ComputeModel, split: Placement,
               omit: frozenset[str] = frozenset(), interface: Interface = NO_INTERFACE) -> str:
    """The rank's trace; operations of the regions in `omit` left out (their compute stays), so that a replay
    without them prices what they cost. Each message between nodes carries what the network interface adds
    (ClusterSpec.interface); global sums are SimGrid's own and do not."""
    r = rank.rank
    added = between_nodes(r, split.ranks_per_node, interface)
    lines = [f"{r} init"]

    def compute(seconds: float) -> None:
        if seconds > 0:
            lines.append(f"{r} compute {seconds * FLOPS:.9g}")

    def communicate(op: Op) -> None:
        if op.region not in omit:
            lines.append(_action(r, op, added))

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
                 interface: Interface = NO_INTERFACE):
        self.plan, self.model, self.split, self.omit, self.interface = plan, model, split, omit, interface

    def __len__(self) -> int:
        return len(self.plan.ranks_plan)

    def make(self, index: int) -> str:
        return rank_trace(self.plan, self.plan.ranks_plan[index], self.model, self.split, self.omit, self.interface)
