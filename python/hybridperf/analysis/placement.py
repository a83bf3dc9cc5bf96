"""What placement costs: the thesis's Table 4.4 for any study with a placement axis.

The thesis bound 4 processes (or threads) to one socket, where pairs of cores share an L2, and spread them so
that none shared one, and reported per region Diff = (shared − exclusive) / shared: "never larger than 4.5%",
pure MPI affected more than hybrid (seed-spec §A.12). Here `compact` is the shared side, and each other policy
of the study (spread, underpopulate, oversubscribe) is set against it: per configuration, scale and region,
Diff = (t_compact − t_other) / t_compact, positive when the other placement is faster. The two ran in the same
blocks, so a Diff is taken per block (paired, as the race pairs) and judged by the benches' verdict engine
(`verdicts.judge_samples`): the bootstrap interval of its median against the band the study declared not to matter
(±tie_within) — `within`: placement costs this region less than that; `differs`: more; `undecided`: the blocks
cannot tell. The first row of each comparison (one placement against compact, per configuration and scale) is the
loop time the race decides on; the others are the profile's regions (rank average).

A comparison judges its k rows at once, and k intervals each at the study's confidence all hold far less often
than that (0.9^5 = 59% for five independent rows at 90%): a wrong `differs` somewhere in an A/A pair is far
likelier than 1 − confidence. So the rows of one comparison share the error by Bonferroni, as the race shares it
among its pairs: each interval is at 1 − (1 − confidence) / k, and the k verdicts hold together at the study's
confidence. Bonferroni rather than Holm's step-down: a verdict is read off an interval, not a p-value, and Holm
gives the rows it does not reject no narrower intervals. Pure functions of an analysed section.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Callable

from hybridperf.analysis.sections import Point, region_seconds, Section
from hybridperf.analysis.verdicts import Band, bonferroni, judge_samples, Judgement
from hybridperf.shapes import split_placement

SHARED = "compact"  # the side every other placement is set against: cores that share caches, one package first
LOOP = "loop time"


@dataclass(frozen=True)
class Diff:
    configuration: str  # as the spec names it (pure-mpi), or several of one shape (pure-mpi = hybrid-1)
    placement: str  # the placement set against compact: spread
    scale: int
    region: str  # LOOP, or a profile region
    shared: float  # the median time under compact, seconds
    other: float  # the median time under the other placement
    judgement: Judgement  # of the per-block Diff against ±tie_within
    confidence: float  # its interval's: the study's, shared by Bonferroni among the comparison's rows


def _extract(region: str) -> Callable[[dict[str, Any]], float | None]:
    if region == LOOP:
        return lambda run: run["loop_time"]
    times = region_seconds(region)
    return lambda run: times(run["profile"])


def _paired(shared: Point, other: Point, region: str) -> list[tuple[float, float]]:
    """(compact, other) times of the region in the blocks both ran."""
    extract = _extract(region)
    mine = {r["repeat"]: extract(r) for r in shared.runs}
    theirs = {r["repeat"]: extract(r) for r in other.runs}
    return [(mine[k], theirs[k]) for k in sorted(mine.keys() & theirs.keys())
            if mine[k] is not None and theirs[k] is not None and mine[k] > 0]


def _placed(section: Section) -> dict[tuple[str, int], dict[str, Point]]:
    """Each configuration's measured points by policy, per scale; configurations that share their compact shape at a
    scale (on one core every configuration is 1 x 1) are one, named as their race names them: pure-mpi = hybrid-1."""
    by_base: dict[tuple[str, int], dict[str, Point]] = {}
    for p in section.points:
        base, policy = split_placement(p.configuration)
        if policy and p.runs:
            by_base.setdefault((base, p.scale), {})[policy] = p
    merged: dict[tuple[int, tuple[int, int, int]], tuple[list[str], dict[str, Point]]] = {}
    for (base, scale), points in by_base.items():
        shared = points.get(SHARED)
        if shared is not None:
            names, _ = merged.setdefault((scale, (shared.nodes, shared.ranks_per_node, shared.threads)), ([], points))
            names.append(base)
    return {(" = ".join(names), scale): points for (scale, _), (names, points) in merged.items()}


def diffs(section: Section) -> list[Diff]:
    """Every placement against compact, per configuration, scale and region, where both were measured; the rows of
    one comparison judged together at the study's confidence (Bonferroni)."""
    band = Band(-section.rule.tie_within, section.rule.tie_within)
    out = []
    for (name, scale), by_policy in _placed(section).items():
        shared = by_policy[SHARED]
        for policy, other in by_policy.items():
            if policy == SHARED:
                continue
            regions = (LOOP, *(r for r in section.regions if r != "total"))
            measured = {region: pairs for region in regions if (pairs := _paired(shared, other, region))}
            confidence = bonferroni(section.rule.confidence, len(measured))
            for region, pairs in measured.items():
                values = [(a - b) / a for a, b in pairs]
                out.append(Diff(name, policy, scale, region, statistics.median(a for a, _ in pairs),
                                statistics.median(b for _, b in pairs),
                                judge_samples(values, band, confidence), confidence))
    return out
