"""How far a simulated answer rests on inputs no measurement gives (`hybridperf simulate --sensitivity`): at every
parameter set and core count, the winner and the runner-up (by simulated loop time) are replayed again with one
input moved -- each figure of the cluster description marked assumed, and the compute costs, which were measured
on another machine than the cluster's (every second the compute model gives, its fork/join included) -- halved
and doubled. Where the runner-up then wins, that move changes the
answer. Pure but for the replays it asks for."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Callable

from hybridperf import cluster
from hybridperf.shapes import Placement
from hybridperf.simulate import recommend
from hybridperf.simulate.compute import ComputeModel, StepCompute
from hybridperf.simulate.plan import Plan, RankPlan
from hybridperf.store.db import RunRecord
from hybridperf.study.expand import RunPlan

COMPUTE = "compute costs"
ModelsOn = Callable[[cluster.ClusterSpec], Callable[[dict], ComputeModel]]  # a description -> model_of(params)
PlanFor = Callable[[RunPlan], Plan]


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


@dataclass(frozen=True)
class Point:
    """One parameter set at one core count: who won the simulation, by how much, and what would change that."""

    params: str
    cores: int
    winner: str
    runner_up: str
    margin: float  # runner-up / winner - 1
    moves: dict[str, str]  # input -> "÷2", "×2", "÷2 ×2" or "–"


def csv_text(found: list[Point], spec: cluster.ClusterSpec) -> str:
    """The points as CSV: parameters, cores, winner, runner-up, margin, then each input's moves."""
    out = io.StringIO()
    table = csv.writer(out, lineterminator="\n")
    table.writerow(["params", "cores", "winner", "runner_up", "margin", *inputs(spec)])
    table.writerows([p.params, p.cores, p.winner, p.runner_up, f"{p.margin:.6g}", *(p.moves[k] for k in inputs(spec))]
                    for p in found)
    return out.getvalue()


def inputs(spec: cluster.ClusterSpec) -> list[str]:
    """What is moved: the description's assumed figures, then the compute costs."""
    return [label for label, name in recommend.FIELDS.items() if getattr(spec, name).assumed] + [COMPUTE]


def contests(records: list[RunRecord], plans: dict[str, RunPlan]) -> list[tuple[str, int, RunPlan, RunPlan, float]]:
    """Per parameter set and core count with two or more simulated configurations: (parameters, cores, winner,
    runner-up, margin)."""
    groups: dict[tuple[str, int], list[RunRecord]] = {}
    for r in records:
        if r.status == "ok" and r.loop_time:
            label = ", ".join(f"{k}={v}" for k, v in sorted(r.params.items()))
            groups.setdefault((label, r.ranks * r.threads), []).append(r)
    out = []
    for (label, cores), group in sorted(groups.items(), key=lambda item: (item[0][0], item[0][1])):
        ranked = sorted(group, key=lambda r: r.loop_time)
        if len(ranked) > 1:
            first, second = ranked[:2]
            out.append((label, cores, plans[first.run_key], plans[second.run_key],
                        second.loop_time / first.loop_time - 1))
    return out


def points(records: list[RunRecord], plans: dict[str, RunPlan], spec: cluster.ClusterSpec, models_on: ModelsOn,
           plan_for: PlanFor, progress: Callable[[str], None] = lambda line: None) -> list[Point]:
    """Every contest's moves; each move replays the winner and the runner-up once."""
    out = []
    for label, cores, winner, runner_up, margin in contests(records, plans):
        moves = {}
        for name in inputs(spec):
            flips = []
            for factor in recommend.FACTORS:
                progress(f"{label}, {cores} cores: {name} x {factor:g}")
                moved = spec if name == COMPUTE else recommend.moved(spec, recommend.FIELDS[name], factor)
                model_of = models_on(moved)

                def seconds(run: RunPlan) -> float:
                    model = model_of(run.params)
                    model = Scaled(model, factor) if name == COMPUTE else model
                    return recommend.seconds(plan_for(run), model, moved, run, 1.0)

                if seconds(runner_up) < seconds(winner):
                    flips.append("×2" if factor > 1 else "÷2")
            moves[name] = " ".join(flips) or "–"
        out.append(Point(label, cores, ",".join(winner.configurations), ",".join(runner_up.configurations), margin,
                         moves))
    return out
