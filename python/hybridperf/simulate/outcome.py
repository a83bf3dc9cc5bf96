"""One published outcome of a seed beside its simulated counterpart (`hybridperf simulate validate`): what is
declared before running (resources/data/validate-outcomes.yaml: the figure, its source, the rule, the
tolerance, the inputs, whether it is held out) and what the simulation gave. `reproduced` is the declared rule
applied to the simulated figure (hybridperf.simulate.rules), never set by hand. `Moved`: one assumed input of an
outcome moved by a factor, what `--sensitivity` asks the simulators for."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any, Callable

import yaml

from hybridperf import cluster
from hybridperf.cluster import ClusterSpec
from hybridperf.models.published import DATA
from hybridperf.simulate import recommend, rules

DECLARED = DATA / "validate-outcomes.yaml"  # the shipped data/ (hybridperf.resources), as every published table
FIELDS = ("name", "claim", "source", "published", "rule", "tolerance", "measure", "params", "inputs", "held_out")
INPUT_FIELDS = ("input", "from", "same_experiment")
SWEPT_FIELDS = ("moves", "range", "range_source")  # an assumed input's: what it moves, its factors, their source


@dataclass(frozen=True)
class Declared:
    name: str
    claim: str
    source: str
    published: Any
    rule: str
    tolerance: float
    measure: str
    params: dict[str, Any]
    inputs: list[dict[str, Any]]
    held_out: bool


@dataclass(frozen=True)
class Measured:
    """What a measure gives: the figure the rule judges, and beside it what a reader wants to see."""
    simulated: Any
    detail: Any = None  # e.g. the two totals behind a ratio, the winner per count behind a crossover
    closed_form: str = ""  # the split model's answer on the same points, where it gives one


@dataclass(frozen=True)
class Outcome:
    name: str
    claim: str
    source: str
    published: Any
    simulated: Any
    rule: str
    tolerance: float
    held_out: bool
    reproduced: bool
    inputs: list[dict[str, Any]]
    params: dict[str, Any] = field(default_factory=dict)
    detail: Any = None
    closed_form: str = ""


@dataclass(frozen=True)
class Moved:
    """One assumed input moved by a factor: a figure of one cluster's description (`what`: a ClusterSpec field,
    recommend.FIELDS' values; `cluster`: its key), or a compute input of every cluster the outcome is simulated on
    (`what`: a key of the simulator's COMPUTE_MOVES; `cluster` None)."""

    what: str
    factor: float
    cluster: str | None = None

    def on(self, spec: ClusterSpec) -> ClusterSpec:
        """The description as this move leaves it: moved where it is the moved cluster, or where it has that
        cluster's very figure, value and source (one that extends it, or describes the same nodes): one figure,
        one input."""
        if self.cluster is None:
            return spec
        shared = spec.key == self.cluster or getattr(spec, self.what) == getattr(cluster.load(self.cluster), self.what)
        return recommend.moved(spec, self.what, self.factor) if shared else spec

    def costs(self, model: Any, moves: dict[str, Callable[[Any, float], Any]]) -> Any:
        """A compute model as this move leaves it (`moves`: the simulator's COMPUTE_MOVES)."""
        return moves[self.what](model, self.factor) if self.cluster is None else model


def rounded(x: float) -> float:
    """4 significant digits: what is reported and judged, so that a reader of the JSON can apply the rule."""
    return float(f"{x:.4g}")


def text(figure: Any) -> str:
    """A figure as the table shows it: '0.427', '64: pure-mpi, 128: pure-mpi', '32: (hybrid-1: 7.37, ...)',
    'none'."""
    if isinstance(figure, dict):
        return ", ".join(f"{k}: ({text(v)})" if isinstance(v, dict) else f"{k}: {text(v)}" for k, v in figure.items())
    if figure is None:
        return "none"
    return f"{figure:g}" if isinstance(figure, float) else str(figure)


@cache
def declared() -> tuple[Declared, ...]:
    """Every outcome of the data file, in its order."""
    return tuple(Declared(**{k: entry.get(k) for k in FIELDS}) for entry in yaml.safe_load(DECLARED.read_text()))


def judged(d: Declared, m: Measured) -> Outcome:
    return Outcome(d.name, d.claim, d.source, d.published, m.simulated, d.rule, d.tolerance, d.held_out,
                   rules.judge(d.rule, d.published, m.simulated, d.tolerance, d.params), d.inputs, d.params,
                   m.detail, m.closed_form)
