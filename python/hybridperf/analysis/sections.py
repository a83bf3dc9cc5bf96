"""Takes a stored study apart the way the thesis did (ch. 4): pure functions from stored runs to tables.

Per parameter set (e.g. each problem size) and per point (configuration x scale):
- total time: mean, 1 SEM, min, median, n of the loop time (the max over ranks of each run);
- strong scaling (the same problem at every scale): speedup S = T(1) / T(p) and parallel efficiency S / p, on
  means, against the 1-core run (or, when there is none, relative to the smallest core count measured); weak
  scaling (the problem grows with the scale, `analysis.scaling`): efficiency T(1) / T(p) alone, against the
  fewest cores that solve the same problem per core (or per node);
- communication time (the profile's `region_groups.communication`; without one, its MPI time by class) and its
  share of the total;
  point-to-point, collective and barrier time; bytes and messages per process and in total per step;
- per-region times (rank average), threading overhead per region = hybrid - pure MPI at equal cores
  (minimum times, as Tables 4.6/4.7, with the combined error), cross-rank imbalance per region;
- a verdict per scale by the one rule used everywhere, the race (`analysis.race`): the candidates' paired
  log ratios block by block, each pair's confidence sequence, and the outcome — wins, tie or undecided —
  with the lead's interval, the blocks used and the noise floor. Simulated runs are exact replays: the
  fastest wins by its exact lead.
Runs that did not succeed are counted and listed but never enter a statistic; warm-up runs are left out.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from hybridperf.analysis.contest import preferred, Standing
from hybridperf.analysis.race import exact_race, race, Race, Rule
from hybridperf.analysis.scaling import ASSUMED_STRONG, problem_size, Scaling, scaling
from hybridperf.analysis.stats import summarize, Summary
from hybridperf.profile import simulated
from hybridperf.shapes import Design, split_placement


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
    speedup: float | None = None  # strong scaling only
    efficiency: float | None = None  # S / p (strong) or T(1) / T(p) (weak)
    speedup_error: float | None = None  # 1 SEM, propagated from the two times' SEMs
    efficiency_error: float | None = None  # the same
    problem: float | None = None  # the global problem size its runs state (analysis.scaling), if any

    def mean_of(self, extract) -> float | None:
        values = [extract(r["profile"]) for r in self.runs]
        values = [v for v in values if v is not None]
        return sum(values) / len(values) if values else None

    def summary_of(self, extract) -> Summary | None:
        values = [v for v in (extract(r["profile"]) for r in self.runs) if v is not None]
        return summarize(values) if values else None


@dataclass
class Verdict:
    """The race at one scale: its outcome and standings (analysis.race), and which of a tie to prefer."""

    scale: int
    race: Race
    shapes: dict[str, tuple[int, int, int]]  # candidate -> (nodes, ranks per node, threads)
    simulated: bool = False  # every run is a replay: the lead is exact under the model's inputs
    holds_to: float | None = None  # the highest of STRICTER confidences at which the same blocks give the same answer

    @property
    def outcome(self) -> str:
        return self.race.outcome

    @property
    def winner(self) -> str:
        """The candidate to use: the winner, the preferred of a tie, or the leader so far."""
        return self.preferred if self.outcome == "tie" else self.race.leader

    def _ranks(self, candidate: str) -> int:
        nodes, ranks_per_node, _ = self.shapes[candidate]
        return nodes * ranks_per_node

    @property
    def preferred(self) -> str:
        """Of tied candidates, the one with the fewest ranks (analysis.contest.preferred)."""
        return preferred(self.race, {c: self._ranks(c) for c in self.shapes})

    @property
    def why_preferred(self) -> str:
        if all(self._ranks(c) > self._ranks(self.preferred) for c in self.race.tied if c != self.preferred):
            return "fewer ranks need less memory and send fewer messages"
        return "it leads the tie"

    @property
    def runner_up(self) -> Standing | None:
        return self.race.runner_up

    @property
    def pure_mpi(self) -> Standing | None:
        """Pure MPI against the leader, when pure MPI races here and does not lead."""
        return next((s for s in self.race.standings[1:] if "pure-mpi" in s.candidate.split(" = ")), None)


@dataclass
class Section:
    params: dict[str, Any]
    axis: str  # "cores" or "nodes"
    points: list[Point]
    verdicts: list[Verdict]
    regions: list[str]
    rule: Rule = field(default_factory=Rule)
    scaling: Scaling = ASSUMED_STRONG

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
    """The communication regions' time (rank average); for a program that names none (an app without a timing
    table, e.g. NAS BT-MZ), its time inside MPI by class as the counting library measured it, rather than 0."""
    names = profile.get("region_groups", {}).get("communication")
    if not names and "comm" in profile:
        return sum(c["time"]["avg"] for c in profile["comm"].values())
    return sum(profile["regions"][n]["time"]["avg"] for n in names or () if n in profile["regions"])


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


def analyse(design: Design, runs: list[dict[str, Any]], rule: Rule | None = None,
            stopped: bool = True) -> list[Section]:
    """One section per parameter set (parameters set per configuration do not split sections), in the
    order the runs were stored; each scale's verdict by `rule`. `stopped`: these runs are all there will be
    (a race still open is undecided); False while the campaign is running or was interrupted."""
    ignored, rule = design.configuration_keys, rule or Rule()
    by_params: dict[str, list[dict[str, Any]]] = {}
    for r in runs:
        if r.get("warmup"):
            continue
        by_params.setdefault(_params_key(r["params"], ignored), []).append(r)
    sections = []
    for key, group in by_params.items():
        pts = []
        for planned in design.points():
            config, scale, (n, rpn, t) = planned.configuration, planned.scale, planned.key
            own = design.configuration_params.get(config, {})
            mine = [r for r in group if (r["nodes"], r["ranks_per_node"], r["threads"]) == (n, rpn, t)
                    and all(r["params"].get(k) == v for k, v in own.items()) and _placed_alike(config, r)]
            ok = [r for r in mine if r["status"] == "ok" and r["loop_time"] is not None]
            pts.append(Point(config, scale, n * rpn * t, n, rpn, t, mine[0]["mode"] if mine else "",
                             summarize([r["loop_time"] for r in ok]) if ok else None, len(mine) - len(ok), ok,
                             problem=problem_size(ok[0]["profile"]) if ok else None))
        measured = [p for p in pts if p.time]
        kernel = measured[0].runs[0]["profile"]["kernel"] if measured else ""
        kind = scaling(kernel, [(p.configuration, p.scale, p.problem) for p in measured], design.axis)
        if kind.weak:
            _weak_efficiencies(measured)
        else:
            kind = speedups(measured, kind)
        regions = list(dict.fromkeys(name for p in pts for r in p.runs for name in r["profile"]["regions"]))
        sections.append(Section(json.loads(key), design.axis, pts, verdicts_of(pts, group, rule, stopped), regions,
                                rule, kind))
    return sections


def _placed_alike(configuration: str, run: dict[str, Any]) -> bool:
    """A placed configuration (pure-mpi@spread) owns only its own runs: its shape is also its other placements'."""
    return "@" not in configuration or configuration in run["configurations"]


def _relative_error(base: Point, p: Point) -> float:
    """The relative error of a ratio of the two points' mean times (none when they are the same runs)."""
    if (p.nodes, p.ranks_per_node, p.threads) == (base.nodes, base.ranks_per_node, base.threads):
        return 0.0
    return math.hypot(base.time.error / base.time.mean, p.time.error / p.time.mean)


def speedups(measured: list[Point], kind: Scaling) -> Scaling:
    """Speedup and efficiency against the 1-core run; without one, against the fastest point at the fewest cores,
    taken as perfect (its efficiency 1): the scaling's sentence then says so, as no speedup is measured there."""
    if not measured:
        return kind
    base = min(measured, key=lambda p: (p.cores, p.time.mean))
    for p in measured:
        p.speedup = base.cores * base.time.mean / p.time.mean
        p.efficiency = p.speedup / p.cores
        p.speedup_error = p.speedup * _relative_error(base, p)
        p.efficiency_error = p.speedup_error / p.cores
    if base.cores == 1:
        return kind
    return replace(kind, why=f"{kind.why}; no 1-core run, so speedups are relative to {base.configuration} at "
                             f"{base.cores} cores, taken as perfect ({base.cores}, efficiency 1)", assumed_base=True)


def _weak_efficiencies(measured: list[Point]) -> None:
    """T(1) / T(p), the base the fewest cores that solve as much per unit of scale (a serial-mode configuration
    solves a node's share on one core, so it is measured against itself, not against a core's share)."""
    for p in measured:
        peers = [q for q in measured if math.isclose(q.problem / q.scale, p.problem / p.scale, rel_tol=1e-9)]
        base = min(peers, key=lambda q: (q.cores, q.time.mean))
        p.efficiency = base.time.mean / p.time.mean
        p.efficiency_error = p.efficiency * _relative_error(base, p)


def _simulated(runs: list[dict[str, Any]]) -> bool:
    """Whether a scale's runs are replays of plans, exact (a failed one has no profile to say so: the others speak
    for it)."""
    profiles = [r["profile"] for r in runs if r.get("profile")]
    return bool(profiles) and all(simulated(p) == "plan" for p in profiles)


def candidate_name(configurations: Sequence[str]) -> str:
    """The name a run races under: its configurations (two with one shape, as on one core, are one candidate)."""
    return " = ".join(configurations)


def counted_time(status: str, loop_time: float | None) -> float | None:
    """What a run gives its race: its loop time, or None (it failed, and its candidate leaves)."""
    return loop_time if status == "ok" and loop_time is not None else None


def _candidate(run: dict[str, Any]) -> str:
    return candidate_name(run["configurations"])


def scale_of(run: dict[str, Any], pts: list[Point]) -> int | None:
    """The scale a run belongs to: the point of its shape."""
    key = (run["nodes"], run["ranks_per_node"], run["threads"])
    return next((p.scale for p in pts if (p.nodes, p.ranks_per_node, p.threads) == key
                 and _placed_alike(p.configuration, run)), None)


def blocks_of(runs: list[dict[str, Any]]) -> list[dict[str, float | None]]:
    """A race's counted runs as blocks in the order run: each candidate's loop time, None where the run failed."""
    blocks: dict[int, dict[str, float | None]] = {}
    for r in sorted((r for r in runs if not r.get("warmup")), key=lambda r: (r["repeat"], r.get("position") or 0)):
        blocks.setdefault(r["repeat"], {})[_candidate(r)] = counted_time(r["status"], r["loop_time"])
    return [blocks[k] for k in sorted(blocks)]


def verdicts_of(pts: list[Point], runs: list[dict[str, Any]], rule: Rule, stopped: bool) -> list[Verdict]:
    out = []
    for scale in dict.fromkeys(p.scale for p in pts):
        mine = [r for r in runs if scale_of(r, pts) == scale]
        shapes = {_candidate(r): (r["nodes"], r["ranks_per_node"], r["threads"]) for r in mine}
        if not mine:
            continue
        if _simulated(mine):
            times = {_candidate(r): r["loop_time"] for r in mine if r["status"] == "ok" and r["loop_time"]}
            if times:
                out.append(Verdict(scale, exact_race(times, rule), shapes, simulated=True))
            continue
        blocks = blocks_of(mine)
        if blocks:
            state = race(blocks, rule, stopped)
            out.append(Verdict(scale, state, shapes, holds_to=holds_to(blocks, rule, state)))
    return out


STRICTER = (0.95, 0.99, 0.999)  # confidences the answer is replayed at: how far the declared one could move


def holds_to(blocks: list[dict[str, float | None]], rule: Rule, state: Race) -> float | None:
    """The highest confidence, of the declared and STRICTER, at which the same blocks still give the same outcome
    and leader (a stricter rule may need blocks the race did not run: then it does not hold); None when the
    outcome says nothing to hold (undecided, a baseline)."""
    if state.outcome not in ("wins", "tie"):
        return None
    held = rule.confidence
    for confidence in (c for c in STRICTER if c > rule.confidence):
        again = race(blocks, replace(rule, confidence=confidence), stopped=True)
        if (again.outcome, again.leader) != (state.outcome, state.leader):
            break
        held = confidence
    return held


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
    pure = {(p.scale, split_placement(p.configuration)[1]): p for p in section.points
            if split_placement(p.configuration)[0] == "pure-mpi" and p.runs}  # placed alike: pure-mpi@spread
    for p in section.points:
        base = pure.get((p.scale, split_placement(p.configuration)[1]))
        if split_placement(p.configuration)[0] == "pure-mpi" or not base or not p.runs or p.threads == 1:
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
