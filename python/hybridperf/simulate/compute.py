"""What every kernel's compute model shares: e(T), the work of one step between its communications, and the
interface a kernel's model offers the trace writer and the profile (md_costs, spmv_costs).

A model turns a rank's planned work (plan.RankPlan.work) at a split (ranks per node x threads) into seconds
of computation: before a step's messages, before each message, after them. e(T) is the measured efficiency
where threads were measured and, beyond the last measured count, the thesis's direct-overhead model (eq.
6.8): a threaded loop costs phi per unit of work plus mu x T per unit of each thread's share, so e(T) = 1 /
(1 + (mu/phi) T), mu/phi fitted by least squares to the measured points. Pure."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from hybridperf.models.split import ThreadEfficiency
from hybridperf.shapes import Placement
from hybridperf.simulate.plan import Plan, RankPlan


@dataclass(frozen=True)
class Threads:
    """e(T): measured points (interpolated as ThreadEfficiency does) up to the largest measured count, the
    direct-overhead model fitted to them beyond it."""

    measured: ThreadEfficiency

    @property
    def overhead_ratio(self) -> float:
        """mu/phi of eq. 6.8, least squares over the measured points: 1/e - 1 = (mu/phi) T."""
        points = [(t, e) for t, e in self.measured.points if t > 1 and e > 0]
        if not points:
            return 0.0
        return max(0.0, sum(t * (1 / e - 1) for t, e in points) / sum(t * t for t, _ in points))

    def __call__(self, threads: int) -> float:
        largest = max((t for t, _ in self.measured.points), default=1)
        if threads <= largest:
            return self.measured(threads)
        return 1 / (1 + self.overhead_ratio * threads)

    @property
    def source(self) -> str:
        return f"{self.measured.source}; beyond, eq. 6.8 with mu/phi = {self.overhead_ratio:.4g}"


@dataclass(frozen=True)
class StepCompute:
    """One rank's compute in one step, in seconds: before its messages, before each message, after them."""

    before: float
    per_message: tuple[float, ...]
    after: float

    @property
    def total(self) -> float:
        return self.before + sum(self.per_message) + self.after


class ComputeModel(Protocol):
    """A kernel's compute model, as the trace writer (traces) and the simulated profile (point) use it."""

    p2p_region: str  # the profile region that point-to-point time is reported in
    sum_region: str  # ... and global sums
    region_groups: dict[str, list[str]]  # the kernel profile's computation / communication groups

    def step(self, plan: Plan, rank: RankPlan, step: int, split: Placement) -> StepCompute: ...

    def regions(self, plan: Plan, rank: RankPlan, split: Placement) -> dict[str, float]:
        """Seconds per compute region over the run."""
        ...

    def describe(self) -> dict[str, Any]:
        """The inputs, as stored with every simulated run."""
        ...


def compute_seconds(plan: Plan, rank: RankPlan, model: ComputeModel, split: Placement) -> float:
    """What the rank computes over the run: its time with a network that costs nothing."""
    return sum(model.step(plan, rank, s, split).total for s in range(1, plan.steps + 1))
