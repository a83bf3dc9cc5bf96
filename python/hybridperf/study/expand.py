"""A Study expands into the exact list of runs: parameter combinations x configurations at each scale x
repeats. Pure."""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hybridperf.analysis.taxonomy import Mode, classify
from hybridperf.shapes import Placement
from hybridperf.study import params as options

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
    repeat: int

    @property
    def key(self) -> str:
        """Stable identity of the run, used to resume: same study, parameters, shape and repeat."""
        ident = [self.study, self.kernel, self.params, self.nodes, self.ranks_per_node, self.threads, self.repeat]
        return hashlib.sha1(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]

    def kernel_args(self) -> list[str]:
        return options.to_args(self.params)

    def label(self) -> str:
        swept = " ".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.nodes}n x {self.ranks_per_node}r x {self.threads}t {swept} #{self.repeat}"


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


def expand(study: Study) -> list[RunPlan]:
    """Every run, repeats outermost so that repeats of one point are spread over the study's duration;
    two configurations with the same shape (1 core is both pure MPI and hybrid) share one run."""
    plans: dict[str, RunPlan] = {}
    points = study.design.points()
    for repeat in range(study.repeats):
        for params in combinations(study):
            for p in points:
                mode = classify(study.cores_per_node, p.ranks_per_node, p.threads, p.nodes)
                run_params = {**params, **study.configuration_params.get(p.configuration, {})}
                plan = RunPlan(study.name, study.kernel, run_params, (p.configuration,), p.nodes, p.ranks_per_node,
                               p.threads, mode, repeat)
                if plan.key in plans:
                    old = plans[plan.key]
                    plan = RunPlan(**{**old.__dict__, "configurations": old.configurations + (p.configuration,)})
                plans[plan.key] = plan
    return list(plans.values())
