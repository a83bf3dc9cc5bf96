"""`hybridperf simulate --sensitivity`: how far a simulated study's answers rest on inputs no measurement gives,
asked by the one sensitivity routine (predict.sensitivity) of each contest — a parameter set at a core count with
two or more simulated configurations — as a predictor of its own: its winner and runner-up, replayed again with
one input moved. The inputs moved: each figure of the cluster description marked assumed, and the compute costs,
which were measured on another machine than the cluster's (every second the compute model gives, its fork/join
included). Halved and doubled; where the runner-up then wins, that move changes the answer. Pure but for the
replays it asks for."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Callable

from hybridperf import cluster
from hybridperf.models.split import Split
from hybridperf.predict import sensitivity
from hybridperf.predict.answer import Answer, Input, Move, Prediction, ranked_answer, TIE_WITHIN
from hybridperf.simulate import recommend
from hybridperf.simulate.compute import ComputeModel
from hybridperf.simulate.plan import Plan
from hybridperf.simulate.sensitivity import Scaled
from hybridperf.store.db import RunRecord
from hybridperf.study.expand import RunPlan

COMPUTE = "compute costs"
ModelsOn = Callable[[cluster.ClusterSpec], Callable[[dict], ComputeModel]]  # a description -> model_of(params)
PlanFor = Callable[[RunPlan], Plan]


def split_of(run: RunPlan) -> Split:
    return Split(run.nodes, run.ranks_per_node, run.threads)


@dataclass(frozen=True)
class TopTwo:
    """One parameter set at one core count: its two fastest simulated configurations and their loop times."""

    params: str
    cores: int
    winner: RunPlan
    runner_up: RunPlan
    seconds: tuple[float, float]


@dataclass(frozen=True)
class ContestPredictor:
    contest: TopTwo
    spec: cluster.ClusterSpec
    models_on: ModelsOn
    plan_for: PlanFor
    method: str = "simulation"
    cheap: bool = False
    tie_within: float = TIE_WITHIN

    def inputs(self) -> tuple[Input, ...]:
        figures = [Input(label, figure.text, figure.source, True)
                   for label, (_, figure) in recommend.figures(self.spec).items() if figure.assumed]
        return (*figures, Input(COMPUTE, "the compute model's", "measured on another machine than the cluster", True))

    def answer(self, nodes: int) -> Answer:
        c = self.contest
        predictions = [Prediction(split_of(run), t, t, t, {}) for run, t in zip((c.winner, c.runner_up), c.seconds)]
        return ranked_answer(nodes, predictions, self.tie_within)

    def from_zero(self, name: str) -> bool:
        return False

    def times(self, nodes: int, splits: list[Split], moved: tuple[str, float] | None = None) -> dict[Split, float]:
        name, factor = moved or ("", 1.0)
        spec = recommend.moved(self.spec, recommend.FIELDS[name], factor) if name in recommend.FIELDS else self.spec
        model_of = self.models_on(spec)
        runs = {split_of(run): run for run in (self.contest.winner, self.contest.runner_up)}

        def seconds(run: RunPlan) -> float:
            model = model_of(run.params)
            return recommend.seconds(self.plan_for(run), Scaled(model, factor) if name == COMPUTE else model, spec,
                                     run, 1.0)

        return {sp: seconds(runs[sp]) for sp in splits}


def contests(records: list[RunRecord], plans: dict[str, RunPlan]) -> list[TopTwo]:
    """Per parameter set and core count with two or more simulated configurations, its two fastest."""
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
            out.append(TopTwo(label, cores, plans[first.run_key], plans[second.run_key],
                               (first.loop_time, second.loop_time)))
    return out


@dataclass(frozen=True)
class ContestMoves:
    """One contest: who won the simulation, by how much, and which moves of which inputs change that."""

    contest: TopTwo
    moves: dict[str, Move]

    @property
    def margin(self) -> float:
        return self.contest.seconds[1] / self.contest.seconds[0] - 1


def points(records: list[RunRecord], plans: dict[str, RunPlan], spec: cluster.ClusterSpec, models_on: ModelsOn,
           plan_for: PlanFor, progress: Callable[[str], None] = lambda line: None) -> list[ContestMoves]:
    """Every contest's moves; each move replays the winner and the runner-up once."""
    out = []
    for c in contests(records, plans):
        predictor = ContestPredictor(c, spec, models_on, plan_for)
        nodes = c.winner.nodes
        found = sensitivity.moves(predictor, [predictor.answer(nodes)],
                                  lambda line, c=c: progress(f"{c.params}, {c.cores} cores: {line}"))
        out.append(ContestMoves(c, {name: per[nodes] for name, per in found.items()}))
    return out


def inputs(spec: cluster.ClusterSpec) -> list[str]:
    """What is moved: the description's assumed figures, then the compute costs."""
    return [label for label, (_, figure) in recommend.figures(spec).items() if figure.assumed] + [COMPUTE]


def csv_text(found: list[ContestMoves], spec: cluster.ClusterSpec) -> str:
    """The points as CSV: parameters, cores, winner, runner-up, margin, then each input's moves."""
    out = io.StringIO()
    table = csv.writer(out, lineterminator="\n")
    table.writerow(["params", "cores", "winner", "runner_up", "margin", *inputs(spec)])
    table.writerows([p.contest.params, p.contest.cores, ",".join(p.contest.winner.configurations),
                     ",".join(p.contest.runner_up.configurations), f"{p.margin:.6g}",
                     *(p.moves[k].text() for k in inputs(spec))] for p in found)
    return out.getvalue()
