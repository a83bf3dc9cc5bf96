"""SimGrid time-independent traces (one per rank) of a planned run: its operations in order, with the compute
model's seconds between them as `compute` actions (the platform's hosts run 1 Gflop/s, so a gigaflop is a
second). Step by step, as hybridperf-md runs it (kernels/md/main.c): half kick | halo (rebuild: migration, the
halo build, then the lists) | force and half kick | global sum at thermo steps. Pure."""

from __future__ import annotations

from dataclasses import dataclass

from hybridperf.simulate.compute import ComputeModel, LOOPS_OUTSIDE_HALO
from hybridperf.simulate.plan import Op, Plan, RankPlan

FLOPS = 1e9  # per second: the platform's host speed (cluster.platform_xml)
BYTE, DOUBLE = 6, 0  # SimGrid's codes of MPI_BYTE and MPI_DOUBLE in a trace
POSITION = 24  # bytes per atom in a halo message (3 doubles)


@dataclass(frozen=True)
class StepCompute:
    """One rank's compute in one step, in seconds: before the halo, before each halo message, after the halo."""

    before: float
    per_message: tuple[float, ...]
    after: float

    @property
    def total(self) -> float:
        return self.before + sum(self.per_message) + self.after


def step_compute(plan: Plan, rank: RankPlan, step: int, model: ComputeModel, threads: int) -> StepCompute:
    rebuild = step in plan.rebuild_steps
    half = model.share(rank.atoms * model.integrate / 2, threads)
    per_message = tuple(model.packing(op.bytes / POSITION, threads) if op.region == "halo_exchange" else 0.0
                        for op in plan.halo_ops(rank, step))
    lists = model.share((rank.atoms + rank.ghosts) * model.neighbor, threads) if rebuild else 0.0
    after = model.share(rank.atoms * model.force, threads) + half + lists + model.loops(LOOPS_OUTSIDE_HALO, threads)
    return StepCompute(half, per_message, after)


def compute_seconds(plan: Plan, rank: RankPlan, model: ComputeModel, threads: int) -> float:
    """What the rank computes over the run: its time with a network that costs nothing."""
    return sum(step_compute(plan, rank, s, model, threads).total for s in range(1, plan.steps + 1))


def _action(r: int, op: Op) -> str:
    if op.kind == "sendrecv":
        return f"{r} sendRecv {op.bytes} {op.to} {op.recv_bytes} {op.source} {BYTE} {BYTE}"
    if op.kind == "allreduce":
        return f"{r} allreduce {op.bytes // 8} 0 {DOUBLE}"
    raise ValueError(f"no trace action for a planned {op.kind}")


def rank_trace(plan: Plan, rank: RankPlan, model: ComputeModel, threads: int,
               omit: frozenset[str] = frozenset()) -> str:
    """The rank's trace; operations of the regions in `omit` left out (their compute stays), so that a replay
    without them prices what they cost."""
    r = rank.rank
    lines = [f"{r} init"]

    def compute(seconds: float) -> None:
        if seconds > 0:
            lines.append(f"{r} compute {seconds * FLOPS:.9g}")

    def communicate(op: Op) -> None:
        if op.region not in omit:
            lines.append(_action(r, op))

    for step in range(1, plan.steps + 1):
        work = step_compute(plan, rank, step, model, threads)
        compute(work.before)
        for op, seconds in zip(plan.halo_ops(rank, step), work.per_message):
            compute(seconds)
            communicate(op)
        compute(work.after)
        for op in plan.sum_ops(rank, step):
            communicate(op)
    lines.append(f"{r} finalize")
    return "\n".join(lines) + "\n"
