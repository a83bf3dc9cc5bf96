"""A Study expands into races: for each parameter set and scale, the candidate splits that compete there
(parameter combinations x configurations at each scale). A race's runs are made block by block by the
scheduler (study.run); here are the candidates and the plan of one block. Pure."""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from hybridperf.analysis.race import fewest_blocks
from hybridperf.analysis.sections import candidate_name
from hybridperf.analysis.taxonomy import Mode, classify
from hybridperf.shapes import Placement, split_placement
from hybridperf.study import params as options
from hybridperf.study.registry import kind_of

if TYPE_CHECKING:
    from hybridperf.study.spec import Study


@dataclass(frozen=True)
class RunPlan(Placement):
    study: str
    kernel: str
    params: dict[str, Any]
    configurations: tuple[str, ...]  # every spec configuration that has this shape
    nodes: int
    ranks_per_node: int
    threads: int
    mode: Mode
    repeat: int  # the block
    campaign: int = 1
    position: int | None = None  # place in its block's random order
    warmup: bool = False  # the uncounted run before a race's first block
    attempt: int = 0  # the block's: 1, 2 ... where it was run again (a run of it was disturbed)

    @property
    def placement(self) -> str | None:
        """Its placement policy (launch.placement), None when the study has no placement axis."""
        return split_placement(self.configurations[0])[1]

    @property
    def key(self) -> str:
        """Stable identity of the run, used to resume: study, campaign, parameters, shape, placement and block."""
        ident = [self.study, self.kernel, self.params, self.nodes, self.ranks_per_node, self.threads, self.repeat,
                 self.campaign, self.warmup] + ([self.placement] if self.placement else []) + \
            ([self.attempt] if self.attempt else [])
        return hashlib.sha1(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]

    @property
    def candidate(self) -> str:
        """The name it races under: its configurations (two with one shape, as on one core, are one candidate)."""
        return candidate_name(self.configurations)

    def kernel_args(self) -> list[str]:
        return options.to_args(self.params)

    def label(self) -> str:
        swept = " ".join(f"{k}={v}" for k, v in self.params.items())
        what = "warm-up" if self.warmup else f"block {self.repeat + 1}"
        placed = f" {self.placement}" if self.placement else ""
        return f"{self.nodes}n x {self.ranks_per_node}r x {self.threads}t{placed} {swept} {what}"


@dataclass(frozen=True)
class RaceDef:
    """One question of a study: which candidate is fastest for this problem at this scale."""

    params: dict[str, Any]  # the problem (parameters set per configuration left out)
    axis: str
    scale: int
    candidates: tuple[RunPlan, ...]  # block 0 of each

    @property
    def key(self) -> str:
        return json.dumps([self.params, self.scale], sort_keys=True)

    def title(self) -> str:
        problem = ", ".join(f"{k}={v}" for k, v in self.params.items()) or "all runs"
        return f"{problem} at {self.scale} {self.axis[:-1] if self.scale == 1 else self.axis}"

    def block(self, number: int, order: list[str], campaign: int, attempt: int = 0) -> list[RunPlan]:
        """The runs of one block (its `attempt`-th repeat): the named candidates in this order."""
        by_name = {c.candidate: c for c in self.candidates}
        return [replace(by_name[name], repeat=number, campaign=campaign, position=k, attempt=attempt)
                for k, name in enumerate(order)]

    def warmup(self, candidate: str, campaign: int) -> RunPlan:
        plan = next(c for c in self.candidates if c.candidate == candidate)
        return replace(plan, repeat=0, campaign=campaign, position=None, warmup=True)


def combinations(study: Study) -> list[dict[str, Any]]:
    """Every parameter set: the product of the options' alternatives and of the zip groups."""
    axes: list[list[dict[str, Any]]] = [[{k: v} for v in values] for k, values in study.params.items()]
    for group in study.zip:
        n = len(next(iter(group.values())))
        axes.append([{k: values[i] for k, values in group.items()} for i in range(n)])
    combos = []
    for choice in itertools.product(*axes):
        combo: dict[str, Any] = {}
        for part in choice:
            combo.update(part)
        combos.append(combo)
    return combos


def races(study: Study) -> list[RaceDef]:
    """Every race of the study, parameter sets outermost; two configurations with the same shape and parameters
    at a scale (1 core is both pure MPI and hybrid) are one candidate."""
    design = study.design
    out = []
    for params in combinations(study):
        by_scale: dict[int, dict[str, RunPlan]] = {}
        for p in design.points():
            mode = classify(study.cores_per_node, p.ranks_per_node, p.threads, p.nodes)
            run_params = {**params, **design.configuration_params.get(p.configuration, {})}
            plan = RunPlan(study.name, study.kernel, run_params, (p.configuration,), p.nodes, p.ranks_per_node,
                           p.threads, mode, 0)
            here = by_scale.setdefault(p.scale, {})
            if plan.key in here:
                old = here[plan.key]
                plan = replace(old, configurations=old.configurations + (p.configuration,))
            here[plan.key] = plan
        out += [RaceDef(params, design.axis, scale, tuple(plans.values())) for scale, plans in by_scale.items()]
    return out


def expand(study: Study) -> list[RunPlan]:
    """Every candidate of every race, once (block 0): what a dry run prints and a simulation replays."""
    return [plan for race in races(study) for plan in race.candidates]


def undecidable(study: Study) -> list[str]:
    """One line per race its rule can never close: its candidates need more blocks to decide anything (a twofold
    difference, or none, without noise) than the rule's max_blocks (or a fixed design's repeats) allows."""
    if kind_of(study.backend).exact:  # a replay is exact: one block decides
        return []
    rule, out = study.rule, []
    for race in races(study):
        k = len(race.candidates)
        if k > 1 and rule.max_blocks < (need := fewest_blocks(rule, k)):
            given = f"repeats: {rule.max_blocks}" if study.repeats else f"max_blocks {rule.max_blocks}"
            out.append(f"{race.title()}: {k} candidates need at least {need} blocks before any answer; {given} "
                       f"can only end undecided (give at least {need})")
    return out
