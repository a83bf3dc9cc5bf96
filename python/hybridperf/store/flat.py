"""A run as flat named numbers — what SQL queries and spreadsheets need of a profile. Pure.

Names: `param.<option>`, `fom.<figure>`, `region.<name>.min|avg|max|imbalance`,
`comm.<class>.calls|messages|bytes|time.max|bytes_per_rank.avg`, `check.<name>` (1 pass, 0 fail).
"""

from __future__ import annotations

from typing import Any

RUN_COLUMNS = ("study", "kernel", "configurations", "nodes", "ranks", "ranks_per_node", "threads", "cores",
               "mode", "oversubscribed", "campaign", "repeat", "status", "exit_code", "loop_time", "started", "elapsed",
               "backend")


def metrics(profile: dict[str, Any]) -> dict[str, float]:
    """The profile's figures, regions, communication and checks as named numbers."""
    out: dict[str, float] = {f"fom.{f['name']}": f["value"] for f in profile["figures_of_merit"]}
    for name, r in profile["regions"].items():
        for stat in ("min", "avg", "max"):
            out[f"region.{name}.{stat}"] = r["time"][stat]
        out[f"region.{name}.imbalance"] = r["imbalance"]
    for cls, c in profile.get("comm", {}).items():  # an app run without MPI counts has none
        for key in ("calls", "messages", "bytes"):
            out[f"comm.{cls}.{key}"] = c[key]
        out[f"comm.{cls}.time.max"] = c["time"]["max"]
        out[f"comm.{cls}.bytes_per_rank.avg"] = c["bytes_per_rank"]["avg"]
    out.update({f"check.{name}": float(c["pass"]) for name, c in profile["checks"].items()})
    return out


def row(run: dict[str, Any]) -> dict[str, Any]:
    """One flat row: run columns, params as param.*, and the profile's metrics."""
    out = {k: run[k] for k in RUN_COLUMNS}
    out["configurations"] = ",".join(run["configurations"])
    out.update({f"param.{k}": v for k, v in run["params"].items()})
    if run["profile"]:
        out.update(metrics(run["profile"]))
    return out
