"""What a recommendation by SimGrid (predict.simulated) is built of: every ranks x threads split that fills a
described cluster's nodes, a description with one figure moved, one replay's seconds, and a replay taken apart
(`simulated_parts`: the run, and the run without each kind of communication). `--explain` prices every split
both ways, part by part (`Side`): the closed form's parts (models.split.parts) beside the replay's, and where the
totals differ by more than both intervals, the parts that differ. Pure but for the replays it asks for."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Callable

from hybridperf import cluster, shapes
from hybridperf.models.split import PARTS, Split, ThreadEfficiency
from hybridperf.simulate import point, traces
from hybridperf.simulate.compute import compute_seconds, ComputeModel, Threads
from hybridperf.simulate.plan import Plan
from hybridperf.simulate.replay import replay

FACTORS = (0.5, 2.0)
PlanOf = Callable[[Split], Plan]  # the kernel's plan of the problem at a split


def splits(spec: cluster.ClusterSpec, nodes: int) -> list[Split]:
    """Every split that fills a node (shapes.splits)."""
    return [Split(nodes, r, t) for r, t in shapes.splits(spec.cores_per_node)]


def moved(spec: cluster.ClusterSpec, figure: str, factor: float) -> cluster.ClusterSpec:
    """The description with one figure (a ClusterSpec field: latency, intra_bandwidth ...; `noise`: its
    slowdowns' scale) multiplied."""
    if figure == "noise" and spec.noise is not None:
        return replace(spec, noise=replace(spec.noise, scale=spec.noise.scale * factor))
    old: cluster.Figure = getattr(spec, figure)
    unit = "s" if figure.endswith("latency") or figure in ("fork_join", "per_message") else "Bps"
    value = old.value * factor
    return replace(spec, **{figure: replace(old, value=value, text=f"{value:.6g}{unit}")})


def seconds(plan: Plan, model: ComputeModel, spec: cluster.ClusterSpec, split: Split, scale: float,
            replayer: Callable[..., float] = replay) -> float:
    with tempfile.TemporaryDirectory(prefix="hybridperf-recommend-") as work:
        texts = traces.RankTraces(plan, model, split, interface=spec.interface())
        return replayer(texts, spec, split.ranks_per_node, Path(work)) * scale


FIELDS = {"network latency": "latency", "network bandwidth": "bandwidth", "network time per message": "per_message",
          "intra-node latency": "intra_latency", "intra-node bandwidth": "intra_bandwidth", "fork/join": "fork_join"}


def figures(spec: cluster.ClusterSpec) -> dict[str, tuple[str, cluster.Figure]]:
    """label -> (its ClusterSpec field, the figure) of each of FIELDS the description gives (per_message is
    optional)."""
    return {label: (name, getattr(spec, name)) for label, name in FIELDS.items() if getattr(spec, name) is not None}


ModelMove = Callable[[ComputeModel, float], ComputeModel]  # a compute model with one of its inputs multiplied


def threading_scaled(model: ComputeModel, factor: float) -> ComputeModel:
    """An md compute model whose threads lose `factor` times as much (1 - e_mt multiplied)."""
    return replace(model, threads=Threads(model.threads.measured.scaled(factor)))


REST = "idle"  # what the replayed run spends beyond its parts: ranks waiting on the slowest, less any overlap


def _lossless(model: ComputeModel) -> ComputeModel:
    """The compute model with threads that lose nothing, fork/join that costs nothing, and halo packing shared by
    the threads (a master-only pack, as the thesis's code did it, leaves the others idle: a loss to threads)."""
    names = {f.name for f in fields(model)}
    lossless = {"threads": Threads(ThreadEfficiency()), "pack_threaded": True}
    return replace(model, fork_join=lambda threads: 0.0, **{k: v for k, v in lossless.items() if k in names})


def simulated_parts(plan: Plan, model: ComputeModel, spec: cluster.ClusterSpec, split: Split, scale: float,
                    simulate: Callable[..., point.Simulated] = point.simulate) -> dict[str, float]:
    """The replayed run's seconds per part (models.split.PARTS, then REST): compute, the slowest rank's with
    threads that lose nothing; threading, what their losses and fork/join add to it; point-to-point and
    collectives, what each adds to the replayed run (point.simulate replays it without them); the rest."""
    with tempfile.TemporaryDirectory(prefix="hybridperf-explain-") as work:
        result = simulate(plan, model, spec, split, Path(work))
    ideal = max(compute_seconds(plan, r, _lossless(model), split) for r in plan.ranks_plan)
    out = dict(zip(PARTS, (ideal, result.compute - ideal, result.p2p, result.collective)))
    out[REST] = result.seconds - sum(out.values())
    return {part: seconds * scale for part, seconds in out.items()}


@dataclass(frozen=True)
class Side:
    """One split at one node count priced both ways, part by part, each total with its SD: the closed form's from
    its Monte Carlo; the replay's from the measured e_mt's noise on a threaded split's compute."""

    split: Split
    closed: dict[str, float]  # PARTS
    closed_sd: float
    simulated: dict[str, float]  # PARTS and REST
    simulated_sd: float

    @property
    def interval(self) -> float:
        """How far apart the totals may be and still agree: two SDs of each."""
        return 2 * (self.closed_sd + self.simulated_sd)

    @property
    def gap(self) -> float:
        """Simulated minus closed-form seconds."""
        return sum(self.simulated.values()) - sum(self.closed.values())

    @property
    def disagree(self) -> bool:
        return abs(self.gap) > self.interval

    def differences(self) -> dict[str, float]:
        """Per part, simulated minus closed-form seconds (the closed form has no REST: it is 0 there)."""
        return {part: self.simulated[part] - self.closed.get(part, 0.0) for part in (*PARTS, REST)}

    def differing(self) -> list[str]:
        """The parts whose own difference is beyond the interval, largest first; where none is alone, the largest."""
        diffs = self.differences()
        ranked = sorted(diffs, key=lambda part: -abs(diffs[part]))
        return [part for part in ranked if abs(diffs[part]) > self.interval] or ranked[:1]


def side_by_side(closed: dict[Split, tuple[dict[str, float], float]], simulated: dict[Split, dict[str, float]],
                 noise: float) -> list[Side]:
    """The splits priced both ways; `closed`: per split its parts and its total's SD; `noise`: the relative error of
    the measured e_mt behind the replay's compute (0 where it is published or assumed)."""
    out = []
    for split, (parts, sd) in closed.items():
        sim = simulated[split]
        threaded = noise * (sim["compute"] + sim["threading"]) if split.threads > 1 else 0.0
        out.append(Side(split, parts, sd, sim, threaded))
    return out
