"""`hybridperf model pmnf`'s table: an Extra-P-style model time(cores) per parameter set and configuration of a
stored study, of its loop time or of one region's. Pure."""

from __future__ import annotations

from typing import Any

from hybridperf.analysis.sections import Section
from hybridperf.report.tables import pmnf_cells, Table


def seconds(run: dict[str, Any], metric: str) -> float | None:
    """A run's loop time (`metric` loop_time) or its region's rank-average seconds; None where it has no such
    region."""
    if metric == "loop_time":
        return run["loop_time"]
    return run["profile"]["regions"].get(metric, {}).get("time", {}).get("avg")


def table(study: str, metric: str, sections: list[Section], configurations: list[str]) -> Table:
    """Per section (parameter set) and configuration with runs: how many points, the PMNF model selected by
    leave-one-out SMAPE and that SMAPE, or why no model fits."""
    rows = []
    for section in sections:
        for config in configurations:
            pts = [p for p in section.points if p.configuration == config and p.runs]
            rows.append([section.title(), config, str(len(pts)),
                         *pmnf_cells([p.cores for p in pts for _ in p.runs],
                                     [seconds(r, metric) for p in pts for r in p.runs])])
    return (f"{study}: {metric}(p), p = cores, selected by leave-one-out SMAPE",
            ["parameters", "configuration", "points", "model", "CV SMAPE"], rows)
