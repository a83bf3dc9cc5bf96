"""The study's answer as data (`hybridperf report DIR --json`): per parameter set and scale, the race's outcome,
the winner or tied set, the lead with its interval, the blocks used and the noise floor; per parameter set, its
scaling kind and each point's scaling figures, as the report's tables give them, and each point's POP factors
(analysis.pop_study) with, per scale, the sentence naming the factor that sets the winner apart; each point's
per-call times (report.percall_table); for a study with a placement axis, what each placement costs against compact
(report.placement_table). Pure."""

from __future__ import annotations

import math
from typing import Any

from hybridperf.analysis.pop_study import explanation, point_factors, PointFactors
from hybridperf.analysis.contest import Standing
from hybridperf.analysis.disturbed import disturbed
from hybridperf.analysis.sections import Section, Verdict
from hybridperf.report import percall_table, placement_table
from hybridperf.report.tables import distinct_points


def _number(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None


def _standing(s: Standing | None) -> dict[str, Any] | None:
    if s is None:
        return None
    return {"candidate": s.candidate, "state": s.state, "ratio": _number(s.ratio), "low": _number(s.low),
            "high": _number(s.high), "runs": s.runs}


def scale(v: Verdict, axis: str) -> dict[str, Any]:
    race = v.race
    return {
        axis: v.scale,
        "outcome": race.outcome,
        "simulated": v.simulated,
        "winner": race.leader if race.outcome == "wins" else None,
        "leader": race.leader,
        "tied": list(race.tied) if race.outcome == "tie" else [],
        "preferred": v.winner,
        "lead": _standing(v.runner_up),  # the runner-up's time over the leader's, with its interval
        "tie_within": race.tie_within,  # the band the outcome was decided with
        "blocks": race.blocks,
        "noise": {"pair_spread": _number(race.pair_spread), "run_spread": race.spread},
        "resolves": _number(race.floor),  # smallest relative difference max_blocks resolve at this noise
        "blocks_needed": race.blocks_needed,
        "standings": [_standing(s) for s in race.standings],
    }


def scaling(s: Section) -> dict[str, Any]:
    """Strong or weak scaling, why, and per point what the report's tables show: speedup and efficiency, or the
    weak-scaling efficiency T(1)/T(p) alone (no speedup: analysis.scaling)."""
    points = []
    for name, p in distinct_points(s):
        figures = {"efficiency": _number(p.efficiency), "efficiency_error": _number(p.efficiency_error)}
        if not s.scaling.weak:
            figures = {"speedup": _number(p.speedup), "speedup_error": _number(p.speedup_error), **figures}
        points.append({"configuration": name, s.axis: p.scale, **figures})
    return {"kind": s.scaling.kind, "why": s.scaling.why, "points": points}


def pop_point(f: PointFactors, axis: str) -> dict[str, Any]:
    """A point's POP factors: each the median over its runs with its 90% interval and n, or null with why."""
    return {"configuration": f.configuration, axis: f.scale,
            "factors": {name: None if e is None else {"median": e.median, "low": _number(e.low),
                                                       "high": _number(e.high), "runs": e.n}
                        for name, e in f.values.items()},
            "unavailable": f.why}


def _section(s: Section) -> dict[str, Any]:
    table = point_factors(s, distinct_points(s))
    return {"params": s.params, "axis": s.axis, "scaling": scaling(s),
            "scales": [{**scale(v, s.axis), "why": explanation(table, v, s.axis)} for v in s.verdicts],
            "pop": [pop_point(f, s.axis) for f in table], "per_call": percall_table.document(s),
            **placement_table.as_json(s)}


def document(name: str, campaign: dict[str, Any], sections: list[Section],
             every: list[dict[str, Any]] = ()) -> dict[str, Any]:
    """`every`: the campaign's runs, warm-ups and blocks run again included (what other processes took from them)."""
    rule = sections[0].rule if sections else None
    return {
        "study": name,
        "campaign": campaign,
        "disturbed": {"blocks_run_again": sum(bool(r.get("superseded")) and r.get("position") == 0 for r in every),
                      "counted_runs_disturbed": sum(disturbed(r) and not r.get("superseded") and not r.get("warmup")
                                                    for r in every)},
        "rule": None if rule is None else {"confidence": rule.confidence, "tie_within": rule.tie_within,
                                           "min_blocks": rule.min_blocks, "max_blocks": rule.max_blocks,
                                           "budget_seconds": rule.budget, "interval": rule.interval},
        "sections": [_section(s) for s in sections],
    }
