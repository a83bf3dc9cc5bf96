"""`hybridperf cluster show`'s table: a cluster description's figures, each with where it comes from, read from the
description's dataclasses as plain dicts (dataclasses.asdict of cluster.Figure, .Topology and .Noise). Pure."""

from __future__ import annotations

from typing import Any

from hybridperf.report.tables import Table


def _origin(source: str, assumed: bool, plausible: str = "") -> str:
    """A figure's source; an assumed one says so, then why where the description gives it, then its plausible
    factors."""
    return "assumed" + (f": {source}" if source else "") + plausible if assumed else source


def _plausible(figure: dict[str, Any]) -> str:
    low_high = figure["range"]
    return f"; plausible ×{low_high[0]:g}–×{low_high[1]:g}: {figure['range_source']}" if low_high else ""


def table(figures: dict[str, dict[str, Any]], topology: dict[str, Any], noise: dict[str, Any] | None) -> Table:
    """Per figure (by its label: ClusterSpec.figures), then the topology and the OS noise where declared: its value as
    written and its source, or `assumed` with why and, for a figure, the factors of it that are plausible."""
    rows = [[label, f["text"], _origin(f["source"], f["assumed"], _plausible(f))] for label, f in figures.items()]
    rows.append(["topology", " ".join([topology["kind"], *map(str, topology["parameters"])]),
                 _origin(topology["source"], topology["assumed"])])
    if noise:
        rows.append(["noise (with --noise-seed)", f"every {noise['interval_text']}: speed 1/(1+x), x of "
                     f"{', '.join(f'{x:g}' for x in noise['slowdowns'])}", _origin(noise["source"], noise["assumed"])])
    return "", ["figure", "value", "source"], rows
