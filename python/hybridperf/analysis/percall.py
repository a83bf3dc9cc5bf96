"""Per-call time distributions (Chow & Hysom 2001, Table 8 and Fig. 3): percentiles and heavy tails from the
profiles' per-call histograms. Pure.

A profile's communication class or timed region may carry `per_call` (docs/profile-schema.md): every rank's calls
in bins 4 to a decade (each a factor 10^(1/4) = 1.78 wide) with the exact count, sum, minimum and maximum;
profiles written before it have none, and everything here then answers None. A percentile read from bins is an
interval, not a number: the nearest-rank percentile (the ⌈q·n⌉-th fastest call) lies in a known bin, so it is
bounded by that bin's edges, narrowed by the exact minimum and maximum. Every figure below carries both bounds.

A tail is *heavy* when the slowest 1% of calls take more than `HEAVY_TAIL` (10) times the median even at the
bounds least favourable to the claim (p99's lower bound over p50's upper bound), and there are at least
`TAIL_CALLS` (100) calls, so that p99 is not simply the slowest call. Why 10: Chow & Hysom's 100 sorted exchange
times ran from ~5 ms to ~300 ms, a factor of ~60, and they called that extraordinary; an exchange that only waits
for its messages stays within a few bins of its median. A decade is four bins, well clear of
the bins' own uncertainty (the ratio's bounds are up to 1.78² = 3.2 apart), so a flag is never the bins' doing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable

HEAVY_TAIL = 10.0  # p99 / p50 above this (at its lower bound) is a heavy tail
EDGE_ROUNDING = 1e-9  # two edges a decade apart divide to 10 within rounding: that is not above 10
TAIL_CALLS = 100  # fewer calls and p99 is the slowest call: no tail is judged
PERCENTILES = (0.5, 0.9, 0.99)


@dataclass(frozen=True)
class Bin:
    low: float  # seconds; the last bin's high is infinite
    high: float
    count: int


@dataclass(frozen=True)
class CallTimes:
    """Every rank's calls of one thing (a communication class, a region), as the profile's per_call holds them."""

    count: int
    total: float  # seconds, all calls
    fastest: float
    slowest: float
    bins: tuple[Bin, ...]  # ascending, empty bins left out


@dataclass(frozen=True)
class Bounded:
    """A figure known to lie in [low, high] (a percentile read from bins; a ratio of two)."""

    low: float
    high: float


@dataclass(frozen=True)
class Tail:
    """The spread of one thing's calls: its percentiles, p99/p50 with bounds, and whether the tail is heavy."""

    subject: str  # a region's name ("exchange"), or "MPI " and a class ("MPI p2p")
    calls: CallTimes
    percentiles: dict[float, Bounded]
    ratio: Bounded  # p99 / p50: [p99.low / p50.high, p99.high / p50.low]
    heavy: bool | None  # None: fewer than TAIL_CALLS calls


def of(counted: dict[str, Any]) -> CallTimes | None:
    """A profile's comm class or region as CallTimes; None when it has no per_call (an older profile)."""
    per_call = counted.get("per_call")
    if not per_call:
        return None
    bins = tuple(Bin(b["min_seconds"], math.inf if b["max_seconds"] is None else b["max_seconds"], b["count"])
                 for b in per_call["bins"])
    return CallTimes(per_call["count"], per_call["sum"], per_call["min"], per_call["max"], bins)


def merge(times: Iterable[CallTimes]) -> CallTimes | None:
    """Several runs' calls in one histogram (the same edges in every profile: bins are matched by them)."""
    times = list(times)
    if not times:
        return None
    counts: dict[tuple[float, float], int] = {}
    for t in times:
        for b in t.bins:
            counts[(b.low, b.high)] = counts.get((b.low, b.high), 0) + b.count
    return CallTimes(sum(t.count for t in times), sum(t.total for t in times), min(t.fastest for t in times),
                     max(t.slowest for t in times), tuple(Bin(lo, hi, n) for (lo, hi), n in sorted(counts.items())))


def rank_bounds(t: CallTimes, rank: int) -> Bounded:
    """Where the `rank`-th fastest call (1-based) lies: its bin's edges, narrowed by the fastest and slowest call."""
    if not 1 <= rank <= t.count:
        raise ValueError(f"call {rank} of {t.count}")
    seen = 0
    for b in t.bins:
        seen += b.count
        if seen >= rank:
            return Bounded(max(b.low, t.fastest), min(b.high, t.slowest))
    raise ValueError(f"the bins hold {seen} calls, not the {t.count} counted")


def percentile(t: CallTimes, q: float) -> Bounded:
    """The nearest-rank q-percentile (the ⌈q·n⌉-th fastest call), within its bounds."""
    return rank_bounds(t, max(1, math.ceil(q * t.count)))


def sorted_calls(t: CallTimes, points: int = 100) -> list[Bounded]:
    """Chow & Hysom's Fig. 3 from bins: `points` calls evenly spaced through the sorted calls (the slowest last),
    each with its bounds."""
    return [rank_bounds(t, max(1, math.ceil(k * t.count / points))) for k in range(1, points + 1)]


def tail(subject: str, t: CallTimes) -> Tail:
    p = {q: percentile(t, q) for q in PERCENTILES}
    p50, p99 = p[0.5], p[0.99]
    ratio = Bounded(p99.low / p50.high if p50.high > 0 else math.inf,
                    p99.high / p50.low if p50.low > 0 else math.inf)
    return Tail(subject, t, p, ratio, None if t.count < TAIL_CALLS else ratio.low > HEAVY_TAIL * (1 + EDGE_ROUNDING))


def subjects(profile: dict[str, Any]) -> dict[str, CallTimes]:
    """What a profile times per call: its communication regions (region_groups.communication), then its MPI
    classes; only those with per_call."""
    found: dict[str, CallTimes] = {}
    for name in profile.get("region_groups", {}).get("communication", []):
        if (t := of(profile["regions"].get(name, {}))) is not None:
            found[name] = t
    for cls, counted in profile.get("comm", {}).items():
        if (t := of(counted)) is not None:
            found[f"MPI {cls}"] = t
    return found


def tails(profiles: list[dict[str, Any]]) -> list[Tail]:
    """Each subject's tail over the profiles (one configuration's runs) together, in the profiles' order."""
    per_run = [subjects(p) for p in profiles]
    names = list(dict.fromkeys(name for s in per_run for name in s))
    return [tail(name, merged) for name in names if (merged := merge(s[name] for s in per_run if name in s))]


def main_subject(found: list[Tail]) -> Tail | None:
    """The one to draw as Fig. 3: the communication region that took longest, else the MPI class that did."""
    regions = [t for t in found if not t.subject.startswith("MPI ")]
    return max(regions or found, key=lambda t: t.calls.total, default=None)
