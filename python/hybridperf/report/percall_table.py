"""Per-call time distributions in the report (analysis.percall; Chow & Hysom's Table 8 and Fig. 3): per point
(configuration × scale) and per thing timed per call, the calls, p50, p90 and p99 each with its bin bounds, p99/p50
and whether the tail is heavy; the sorted calls of each point's main communication for the figure; the same as
data for `report --json`. Runs without per-call histograms (profiles written before them) are left out. Pure."""

from __future__ import annotations

import math
from typing import Any

from hybridperf.analysis.percall import (Bounded, HEAVY_TAIL, main_subject, PERCENTILES, sorted_calls, Tail, tails,
                                         TAIL_CALLS)
from hybridperf.analysis.sections import Point, Section
from hybridperf.report.tables import distinct_points, Table

UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))


def seconds(value: float, unit: tuple[float, str] | None = None) -> str:
    scale, name = unit or next((u for u in UNITS if value >= u[0]), UNITS[-1])
    return f"{value / scale:.3g} {name}"


def bounded(b: Bounded) -> str:
    """'3.16–5.62 ms', '0.562–1 µs': both bounds in the unit of the upper one; one number when the bounds meet."""
    unit = next((u for u in UNITS if (b.high if math.isfinite(b.high) else b.low) >= u[0]), UNITS[-1])
    if b.high == b.low:
        return seconds(b.low, unit)
    return f"{b.low / unit[0]:.3g}–{b.high / unit[0]:.3g} {unit[1]}"


def ratio(b: Bounded) -> str:
    high = "∞" if not math.isfinite(b.high) else f"{b.high:.3g}"
    return f"{b.low:.3g}–{high}"


def flag(t: Tail) -> str:
    return "–" if t.heavy is None else "HEAVY" if t.heavy else "no"


def point_tails(s: Section) -> list[tuple[str, Point, list[Tail]]]:
    """Each distinct point with the tails of its runs together; points whose runs have no histograms left out."""
    found = []
    for name, p in distinct_points(s):
        if found_tails := tails([r["profile"] for r in p.runs]):
            found.append((name, p, found_tails))
    return found


TERMINAL = (0, 1, 2, 4, 6, 7, 8)  # all but calls and p90, to fit 80 columns


def table(s: Section) -> Table:
    """Per point and thing timed: calls, the percentiles, p99/p50 and the tail's verdict ('–': too few calls)."""
    headers = ["configuration", s.axis, "timed", "calls", *(f"p{100 * q:g}" for q in PERCENTILES),
               "p99/p50", "tail"]
    rows = [[name, str(p.scale), t.subject, f"{t.calls.count:,}", *(bounded(t.percentiles[q]) for q in PERCENTILES),
             ratio(t.ratio), flag(t)] for name, p, found in point_tails(s) for t in found]
    return (f"{s.title()}: per-call times (every rank's calls; each percentile within its bin)", headers, rows)


def curves(s: Section) -> list[tuple[str, Tail]]:
    """Fig. 3's curves: each point's main communication (the region or class that took longest)."""
    return [(f"{name} @ {p.scale}", main) for name, p, found in point_tails(s) if (main := main_subject(found))]


def flagged(s: Section) -> list[str]:
    """A sentence per heavy tail, by configuration."""
    return [f"{name} at {p.scale} {s.axis[:-1] if p.scale == 1 else s.axis}: {t.subject}'s slowest 1% of calls take {ratio(t.ratio)}× its median "
            f"(p50 {bounded(t.percentiles[0.5])}, p99 {bounded(t.percentiles[0.99])}): a heavy tail (above "
            f"{HEAVY_TAIL:g}×)" for name, p, found in point_tails(s) for t in found if t.heavy]


def _bounds(b: Bounded) -> dict[str, float | None]:
    return {"low": b.low, "high": b.high if math.isfinite(b.high) else None}


def document(s: Section) -> dict[str, Any]:
    """`report --json`'s per_call member of a section: the rule, then each point's tails."""
    return {"heavy_tail_above": HEAVY_TAIL, "min_calls": TAIL_CALLS,
            "points": [{"configuration": name, s.axis: p.scale, "timed": [
                {"subject": t.subject, "calls": t.calls.count, "sum": t.calls.total, "min": t.calls.fastest,
                 "max": t.calls.slowest, **{f"p{100 * q:g}": _bounds(t.percentiles[q]) for q in PERCENTILES},
                 "p99_over_p50": _bounds(t.ratio), "heavy_tail": t.heavy,
                 "sorted": [_bounds(b) for b in sorted_calls(t.calls)]} for t in found]}
                       for name, p, found in point_tails(s)]}
