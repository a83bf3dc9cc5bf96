"""`hybridperf simulate validate --sensitivity`: over what range of each assumed input a seed outcome's rule still
holds. An outcome counts as reproduced only where its rule holds at the nominal inputs (simulate.validate); this
says how far that verdict rests on what no figure of the machine gives.

The inputs swept are an outcome's *assumed* ones, each with the range of factors of its value declared beside it:
every figure of a cluster description it is simulated on marked `assumed` with a `range` (clusters/*.yaml; an
assumed OS noise with a range: its slowdowns' scale, replayed as simulate.validate draws it), and
every input of the outcome with `moves` and a `range` (resources/data/validate-outcomes.yaml: the compute costs
borrowed from another machine, a cost nobody published). Published and measured figures are not swept. One input
at a time, the others at their nominal values: per side of the nominal, the range is walked outward over `grid`
geometric points and the first change of the verdict narrowed by BISECTIONS bisections (predict.sensitivity's
`bracket`), each point one more simulation of the outcome. Pure but for the simulations it asks for."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Callable

from hybridperf import cluster
from hybridperf.predict.sensitivity import bracket
from hybridperf.simulate import recommend, validate as validation, validate_spmv
from hybridperf.simulate.outcome import Declared, judged, Moved, Outcome, rounded

GRID = 1  # points per side of the nominal by default: the range's ends
BISECTIONS = 3  # a change found between two points is narrowed to 1/8 of their ratio (in log)


@dataclass(frozen=True)
class Assumed:
    """One assumed input of an outcome: what it is, its nominal value, the factors of it that are plausible and
    where they come from, and the move that scales it."""

    input: str
    nominal: str
    range: tuple[float, float]
    range_source: str
    what: str  # Moved's: a ClusterSpec field, or a compute input of the simulator's COMPUTE_MOVES
    cluster: str | None = None  # Moved's: the description whose figure it is; None for a compute input

    def at(self, factor: float) -> Moved | None:
        """The move that sets this input to `factor` times its nominal value (None: the nominal itself)."""
        return None if factor == 1.0 else Moved(self.what, factor, self.cluster)


@dataclass(frozen=True)
class Holds:
    """Over which factors of one assumed input the outcome's rule holds: the stretch around the nominal where it
    holds there, else the stretch nearest the nominal where it does (None, None: nowhere in the range)."""

    input: str
    nominal: str
    range: tuple[float, float]
    range_source: str
    holds_from: float | None
    holds_to: float | None
    holds_everywhere: bool  # at every factor tried across the whole range

    def text(self) -> str:
        """'×0.5–×2 (everywhere)', '×0.71–×2', 'nowhere'."""
        if self.holds_from is None or self.holds_to is None:
            return "nowhere"
        span = f"×{self.holds_from:g}–×{self.holds_to:g}"
        return span + " (everywhere)" if self.holds_everywhere else span


def assumed(d: Declared) -> list[Assumed]:
    """The outcome's assumed inputs with a declared range: its clusters' figures (one that two descriptions share,
    value and source, once: moving it moves both, Moved.on), then its own inputs."""
    out, listed = [], set()
    for key in validation.clusters(d):
        spec = cluster.load(key)
        for label, (field, figure) in recommend.figures(spec).items():
            if figure.assumed and figure.range and (field, figure) not in listed:
                listed.add((field, figure))
                out.append(Assumed(f"{label} ({key})", figure.text, figure.range, figure.range_source, field, key))
        noise = spec.noise
        if noise is not None and noise.assumed and noise.range:
            out.append(Assumed(f"OS noise ({key})", f"{100 * noise.mean:.3g}% per {noise.interval_text}", noise.range,
                               noise.range_source, "noise", key))
    for i in d.inputs:
        if "moves" in i:
            low, high = i["range"]
            out.append(Assumed(i["input"], i["from"], (float(low), float(high)), i["range_source"], i["moves"]))
    return out


def _beyond(value: float, than: float) -> bool:
    """Further from the nominal (factor 1) than `than`, on its side."""
    return abs(math.log(value)) > abs(math.log(than))


def holding(holds: Callable[[float], bool], low: float, high: float, grid: int = GRID,
            bisections: int = BISECTIONS) -> tuple[float | None, float | None, bool]:
    """(from, to, everywhere): the factors in [low, high] over which `holds` is true — the stretch around 1 where
    it holds there (each end the last factor found to hold), else the stretch nearest 1 where it does (from its
    first factor found to hold); (None, None, False) where no factor tried holds."""
    up, down = ([end ** (k / grid) for k in range(1, grid + 1)] if end != 1 else [] for end in (high, low))
    if holds(1.0):
        top, bottom = (bracket(side, lambda x: not holds(x), 1.0, bisections) for side in (up, down))
        return (bottom[0] if bottom else low), (top[0] if top else high), top is None and bottom is None
    stretches = []
    for side in (up, down):
        start = bracket(side, holds, 1.0, bisections)
        if start:
            rest = [v for v in side if _beyond(v, start[1])]
            stop = bracket(rest, lambda x: not holds(x), start[1], bisections)
            stretches.append((start[1], stop[0] if stop else side[-1]))
    if not stretches:
        return None, None, False
    near, far = min(stretches, key=lambda s: abs(math.log(s[0])))
    return min(near, far), max(near, far), False


MdOf = Callable[[Moved | None], validation.Simulator]  # the md simulator with one input moved (None: nominal)
SpmvOf = Callable[[Moved | None], validate_spmv.SpmvSimulator]


class Sweeper:
    """Re-judges outcomes with one assumed input moved; each moved input's simulators are kept, so that outcomes
    on the same points share their replays."""

    def __init__(self, md_of: MdOf, spmv_of: SpmvOf, progress: Callable[[str], None] = lambda line: None,
                 bisections: int = BISECTIONS):
        self.md_of, self.spmv_of, self.progress, self.bisections = md_of, spmv_of, progress, bisections
        self.kept: dict[Moved | None, tuple[validation.Simulator, validate_spmv.SpmvSimulator]] = {}

    @classmethod
    def replaying(cls, window: int, spmv_window: int, progress: Callable[[str], None]) -> Sweeper:
        """SimGrid's replays of the seeds' problems (md plans shared by every moved input)."""
        plans: dict = {}
        return cls(lambda moved: validation.Simulator(window, progress, moved, plans),
                   lambda moved: validate_spmv.SpmvSimulator(spmv_window, progress, moved), progress)

    def simulators(self, moved: Moved | None) -> tuple[validation.Simulator, validate_spmv.SpmvSimulator]:
        if moved not in self.kept:
            self.kept[moved] = (self.md_of(moved), self.spmv_of(moved))
        return self.kept[moved]

    def judged(self, d: Declared, moved: Moved | None = None) -> Outcome:
        return judged(d, validation.measured(d, *self.simulators(moved)))

    def sweep(self, d: Declared, a: Assumed, grid: int = GRID) -> Holds:
        verdicts: dict[float, bool] = {}

        def holds(factor: float) -> bool:
            if factor not in verdicts:
                if factor != 1.0:
                    self.progress(f"{d.name}: {a.input} ×{factor:.3g}")
                verdicts[factor] = self.judged(d, a.at(factor)).reproduced
            return verdicts[factor]

        low, high, everywhere = holding(holds, *a.range, grid, self.bisections)
        return Holds(a.input, a.nominal, a.range, a.range_source, None if low is None else rounded(low),
                     None if high is None else rounded(high), everywhere)


@dataclass(frozen=True)
class Swept:
    """An outcome judged at the nominal inputs, and per assumed input where its rule holds."""

    outcome: Outcome
    sensitivity: tuple[Holds, ...]


def swept(sweeper: Sweeper, chosen: list[Declared], grid: int = GRID) -> list[Swept]:
    return [Swept(sweeper.judged(d), tuple(sweeper.sweep(d, a, grid) for a in assumed(d))) for d in chosen]


def as_json(found: list[Swept]) -> list[dict[str, Any]]:
    """validate --json's object per outcome, with `sensitivity`: per assumed input, input, nominal, range (factors),
    range_source, holds_from, holds_to (factors; null where it holds nowhere), holds_everywhere."""
    return [{**asdict(s.outcome), "sensitivity": [asdict(h) | {"range": list(h.range)} for h in s.sensitivity]}
            for s in found]
