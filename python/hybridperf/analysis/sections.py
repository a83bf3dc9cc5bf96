"""Takes a stored study apart the way the thesis did (ch. 4): pure functions from stored runs to tables.

Per parameter set (e.g. each problem size) and per point (configuration x scale):
- total time: mean, 1 SEM, min, median, n of the loop time (the max over ranks of each run);
- speedup S = T(1) / T(p) and parallel efficiency S / p, on means, against the 1-core run (or, when
  there is none, relative to the smallest core count measured);
- communication time (the profile's `region_groups.communication`) and its share of the total;
  point-to-point, collective and barrier time; bytes and messages per process and in total per step;
- per-region times (rank average), threading overhead per region = hybrid - pure MPI at equal cores
  (minimum times, as Tables 4.6/4.7, with the combined error), cross-rank imbalance per region;
- a verdict per scale by the one winner rule the report uses everywhere (`winner`): the configuration
  with the lowest median loop time wins, and its lead is the runner-up's median over its own, with the
  90% bootstrap interval of the verdict engine; the win is decided when that interval lies above 1.
Runs that did not succeed are counted and listed but never enter a statistic.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass, field
from typing import Any

from hybridperf.analysis.stats import summarize, Summary
from hybridperf.analysis.verdicts import Band, Judgement, judge_ratio, judge_value
from hybridperf.shapes import Design

AHEAD = Band(1.0, float("inf"))  # the runner-up's time over the winner's: above 1 throughout, the win is decided


@dataclass
class Point:
    configuration: str
    scale: int  # cores or nodes, as the spec's axis
    cores: int
    nodes: int
    ranks_per_node: int
    threads: int
    mode: str
    time: Summary | None
    failed: int
    runs: list[dict[str, Any]] = field(repr=False, default_factory=list)
    speedup: float | None = None
    efficiency: float | None = None
    speedup_error: float | None = None  # 1 SEM, propagated from the two times' SEMs

    def mean_of(self, extract) -> float | None:
        values = [extract(r["profile"]) for r in self.runs]
        values = [v for v in values if v is not None]
        return sum(values) / len(values) if values else None

    def summary_of(self, extract) -> Summary | None:
        values = [v for v in (extract(r["profile"]) for r in self.runs) if v is not None]
        return summarize(values) if values else None


@dataclass
class Verdict:
    scale: int
    winner: str
    runner_up: str | None
    lead: Judgement | None  # runner-up median / winner median, with its interval, against AHEAD
    versus_pure_mpi: Judgement | None  # pure-MPI median / winner median (None when pure MPI wins or is absent)
    exact: bool = False  # every run compared is a simulated replay: the lead is exact under the model's inputs

    @property
    def decided(self) -> bool | None:
        return None if self.lead is None else self.lead.word == "within"


@dataclass
class Section:
    params: dict[str, Any]
    axis: str  # "cores" or "nodes"
    points: list[Point]
    verdicts: list[Verdict]
    regions: list[str]

    def title(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.params.items()) or "all runs"

    @property
    def has_comm(self) -> bool:
        """Whether its runs carry MPI counts (an app's runs may not)."""
        return any("comm" in r["profile"] for p in self.points for r in p.runs)


def steps_of(profile: dict[str, Any]) -> int:
    kernel_data = profile.get(profile["kernel"], {})
    return int(kernel_data.get("steps_done") or profile["params"].get("steps") or 1)


def comm_seconds(profile: dict[str, Any]) -> float:
    names = profile.get("region_groups", {}).get("communication", [])
    return sum(profile["regions"][n]["time"]["avg"] for n in names if n in profile["regions"])


def region_seconds(name: str):
    return lambda p: p["regions"][name]["time"]["avg"] if name in p["regions"] else None


def class_seconds(cls: str):
    return lambda p: p["comm"][cls]["time"]["avg"] if "comm" in p else None


def per_step(path: tuple[str, ...]):
    """A communication counter per step: ('p2p', 'bytes_per_rank', 'avg') etc."""

    def extract(p: dict[str, Any]) -> float | None:
        if "comm" not in p:
            return None  # an app run without MPI counts
        value: Any = p["comm"]
        for key in path:
            value = value[key]
        return value / steps_of(p)

    return extract


def _params_key(params: dict[str, Any], ignored: set[str]) -> str:
    return json.dumps({k: v for k, v in params.items() if k not in ignored}, sort_keys=True)


def analyse(design: Design, runs: list[dict[str, Any]]) -> list[Section]:
    """One section per parameter set (parameters set per configuration do not split sections), in the
    order the runs were stored."""
    ignored = design.configuration_keys
    by_params: dict[str, list[dict[str, Any]]] = {}
    for r in runs:
        by_params.setdefault(_params_key(r["params"], ignored), []).append(r)
    sections = []
    for key, group in by_params.items():
        pts = []
        for planned in design.points():
            config, scale, (n, rpn, t) = planned.configuration, planned.scale, planned.key
            own = design.configuration_params.get(config, {})
            mine = [r for r in group if (r["nodes"], r["ranks_per_node"], r["threads"]) == (n, rpn, t)
                    and all(r["params"].get(k) == v for k, v in own.items())]
            ok = [r for r in mine if r["status"] == "ok" and r["loop_time"] is not None]
            pts.append(Point(config, scale, n * rpn * t, n, rpn, t, mine[0]["mode"] if mine else "",
                             summarize([r["loop_time"] for r in ok]) if ok else None, len(mine) - len(ok), ok))
        _speedups(pts)
        regions = list(dict.fromkeys(name for p in pts for r in p.runs for name in r["profile"]["regions"]))
        sections.append(Section(json.loads(key), design.axis, pts, _verdicts(pts), regions))
    return sections


def _speedups(pts: list[Point]) -> None:
    measured = [p for p in pts if p.time]
    if not measured:
        return
    base = min(measured, key=lambda p: (p.cores, p.time.mean))
    for p in measured:
        p.speedup = base.cores * base.time.mean / p.time.mean
        p.efficiency = p.speedup / p.cores
        same_run = (p.nodes, p.ranks_per_node, p.threads) == (base.nodes, base.ranks_per_node, base.threads)
        relative = 0.0 if same_run else math.hypot(base.time.error / base.time.mean, p.time.error / p.time.mean)
        p.speedup_error = p.speedup * relative


def winner(points: list[Point]) -> tuple[Point, Point | None, Judgement | None]:
    """The one winner rule: the lowest median loop time wins; the lead is the next distinct shape's median over
    the winner's, with its bootstrap interval (decided when it lies above 1)."""
    ranked = sorted((p for p in points if p.time), key=lambda p: p.time.median)
    best = ranked[0]
    second = next((p for p in ranked if (p.nodes, p.ranks_per_node, p.threads) !=
                   (best.nodes, best.ranks_per_node, best.threads)), None)
    if second is None:
        return best, None, None
    return best, second, _lead(second, best)


def _times(p: Point) -> list[float]:
    return [r["loop_time"] for r in p.runs]


def _simulated(p: Point) -> bool:
    return bool(p.runs) and all(r.get("backend") == "simgrid" for r in p.runs)


def _lead(slower: Point, faster: Point) -> Judgement:
    """slower's median over faster's with its interval; between simulated points, which are exact replays, the
    interval is the value itself."""
    if _simulated(slower) and _simulated(faster):
        return judge_value(statistics.median(_times(slower)) / statistics.median(_times(faster)), AHEAD)
    return judge_ratio(_times(slower), _times(faster), AHEAD)


def _verdicts(pts: list[Point]) -> list[Verdict]:
    out = []
    for scale in dict.fromkeys(p.scale for p in pts):
        here = [p for p in pts if p.scale == scale and p.time]
        if not here:
            continue
        best, second, lead = winner(here)
        pure = next((p for p in here if p.configuration == "pure-mpi"), None)
        same = pure is not None and (pure.nodes, pure.ranks_per_node, pure.threads) == \
            (best.nodes, best.ranks_per_node, best.threads)
        versus = _lead(pure, best) if pure and not same else None
        out.append(Verdict(scale, best.configuration, second.configuration if second else None, lead, versus,
                           all(_simulated(p) for p in here)))
    return out


@dataclass
class Overhead:
    configuration: str
    scale: int
    region: str
    seconds: float  # min hybrid - min pure MPI
    error: float  # sum of the two SEM-based errors
    percent: float  # of the pure-MPI region's minimum time (the thesis divides by the hybrid's; see below)


def threading_overheads(section: Section) -> list[Overhead]:
    """Hybrid minus pure-MPI region time at equal scale (thesis Tables 4.6/4.7: minimum times). The percentage is
    of the pure-MPI time, the baseline, so that it reads "hybrid is X% slower (or faster)" and cannot fall below
    -100%; the thesis's percentage of the hybrid time explodes when a small region is much faster in hybrid."""
    out = []
    pure = {p.scale: p for p in section.points if p.configuration == "pure-mpi" and p.runs}
    for p in section.points:
        base = pure.get(p.scale)
        if p.configuration == "pure-mpi" or not base or not p.runs or p.threads == 1:
            continue
        for region in section.regions:
            if region == "total":
                continue
            hybrid, reference = p.summary_of(region_seconds(region)), base.summary_of(region_seconds(region))
            if not hybrid or not reference:
                continue
            out.append(Overhead(p.configuration, p.scale, region, hybrid.min - reference.min,
                                hybrid.error + reference.error,
                                100 * (hybrid.min - reference.min) / reference.min if reference.min else 0.0))
    return out
