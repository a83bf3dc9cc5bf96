"""`hybridperf model recommend --simulate`: every ranks x threads split of a described cluster's nodes at each
node count, replayed by SimGrid instead of priced by the closed-form model; the winner, its margin, where the
winner changes, and for every figure of the description marked assumed whether halving or doubling it would
change the winner (winner and runner-up replayed again on the moved platform). A replay is exact: the margin
has no interval of its own, and what could move it is the assumed figures, which the sensitivity shows. Pure
but for the replays it asks for."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from hybridperf import cluster
from hybridperf.models.split import Split
from hybridperf.simulate import traces
from hybridperf.simulate.compute import ComputeModel
from hybridperf.simulate.plan import Plan
from hybridperf.simulate.replay import replay

FACTORS = (0.5, 2.0)
PlanOf = Callable[[Split], Plan]  # the kernel's plan of the problem at a split


@dataclass(frozen=True)
class Choice:
    nodes: int
    times: dict[Split, float]  # simulated seconds of the whole run per split

    @property
    def ranked(self) -> list[Split]:
        return sorted(self.times, key=self.times.__getitem__)

    @property
    def winner(self) -> Split:
        return self.ranked[0]

    @property
    def margin(self) -> float:
        """runner-up / winner - 1 (0 with a single split)."""
        ranked = self.ranked
        return self.times[ranked[1]] / self.times[ranked[0]] - 1 if len(ranked) > 1 else 0.0


def splits(spec: cluster.ClusterSpec, nodes: int) -> list[Split]:
    """Every split that fills a node: r ranks of cores/r threads, r dividing the node's cores."""
    cores = spec.cores_per_node
    return [Split(nodes, r, cores // r) for r in range(cores, 0, -1) if cores % r == 0]


def moved(spec: cluster.ClusterSpec, figure: str, factor: float) -> cluster.ClusterSpec:
    """The description with one figure (a ClusterSpec field: latency, intra_bandwidth ...) multiplied."""
    old: cluster.Figure = getattr(spec, figure)
    unit = "s" if figure.endswith("latency") or figure == "fork_join" else "Bps"
    value = old.value * factor
    return replace(spec, **{figure: replace(old, value=value, text=f"{value:.6g}{unit}")})


def seconds(plan: Plan, model: ComputeModel, spec: cluster.ClusterSpec, split: Split, scale: float,
            replayer: Callable[..., float] = replay) -> float:
    with tempfile.TemporaryDirectory(prefix="hybridperf-recommend-") as work:
        texts = [traces.rank_trace(plan, r, model, split) for r in plan.ranks_plan]
        return replayer(texts, spec, split.ranks_per_node, Path(work)) * scale


def choose(spec: cluster.ClusterSpec, model: ComputeModel, plan_of: PlanOf, counts: list[int], scale: float,
           progress: Callable[[str], None] = lambda line: None) -> list[Choice]:
    out = []
    for n in counts:
        times = {}
        for sp in splits(spec, n):
            progress(f"{spec.name}: {n} nodes, {sp.ranks_per_node} ranks x {sp.threads} threads per node")
            times[sp] = seconds(plan_of(sp), model, spec, sp, scale)
        out.append(Choice(n, times))
    return out


def crossovers(choices: list[Choice]) -> list[tuple[int, Split, Split]]:
    return [(b.nodes, a.winner, b.winner) for a, b in zip(choices, choices[1:])
            if (a.winner.ranks_per_node, a.winner.threads) != (b.winner.ranks_per_node, b.winner.threads)]


FIELDS = {"network latency": "latency", "network bandwidth": "bandwidth", "intra-node latency": "intra_latency",
          "intra-node bandwidth": "intra_bandwidth", "fork/join": "fork_join"}


def sensitivity(spec: cluster.ClusterSpec, model_of: Callable[[cluster.ClusterSpec], ComputeModel],
                plan_of: PlanOf, choices: list[Choice], scale: float,
                progress: Callable[[str], None] = lambda line: None) -> dict[str, dict[int, str]]:
    """Per assumed figure, per node count: which of halving (÷2) and doubling (×2) it makes the runner-up win,
    or '–' where neither does. model_of builds the compute model on a moved description (fork/join is the
    model's)."""
    out: dict[str, dict[int, str]] = {}
    for label, name in FIELDS.items():
        if not getattr(spec, name).assumed:
            continue
        out[label] = {}
        for choice in choices:
            if len(choice.times) < 2:
                out[label][choice.nodes] = "–"
                continue
            flips = []
            for factor in FACTORS:
                progress(f"{spec.name}: {label} x {factor:g} at {choice.nodes} nodes")
                other = moved(spec, name, factor)
                model = model_of(other)
                winner, runner_up = (seconds(plan_of(sp), model, other, sp, scale) for sp in choice.ranked[:2])
                if runner_up < winner:
                    flips.append("×2" if factor > 1 else "÷2")
            out[label][choice.nodes] = " ".join(flips) or "–"
    return out
