"""A compute model with every second multiplied (`Scaled`): a slower or faster core, the move that asks how far a
simulated answer rests on compute costs measured on another machine (predict.simulated, predict.contests). Pure."""

from __future__ import annotations

from dataclasses import dataclass

from hybridperf.shapes import Placement
from hybridperf.simulate.compute import ComputeModel, StepCompute
from hybridperf.simulate.plan import Plan, RankPlan


@dataclass(frozen=True)
class Scaled:
    """A compute model whose every second is multiplied by `factor` (a slower or faster core)."""

    model: ComputeModel
    factor: float

    @property
    def p2p_region(self) -> str:
        return self.model.p2p_region

    @property
    def sum_region(self) -> str:
        return self.model.sum_region

    @property
    def region_groups(self) -> dict[str, list[str]]:
        return self.model.region_groups

    def step(self, plan: Plan, rank: RankPlan, step: int, split: Placement) -> StepCompute:
        s = self.model.step(plan, rank, step, split)
        return StepCompute(s.before * self.factor, tuple(m * self.factor for m in s.per_message), s.after * self.factor)

    def regions(self, plan: Plan, rank: RankPlan, split: Placement) -> dict[str, float]:
        return {k: v * self.factor for k, v in self.model.regions(plan, rank, split).items()}

    def describe(self) -> dict:
        return {**self.model.describe(), "scaled": self.factor}
