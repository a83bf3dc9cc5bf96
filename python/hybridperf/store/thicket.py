"""A study's runs for Thicket (LLNL's ensemble analysis of Hatchet call trees): one file per run in Caliper's
"json-split" form, which Hatchet's Caliper reader and `thicket.Thicket.from_caliper` read, so that a whole
study (kernel or app) loads as one ensemble:

    import glob, thicket
    tk = thicket.Thicket.from_caliper(sorted(glob.glob("DIR/*.json")))

The tree: a root `loop` (the run's loop time) with a child per region (rank average; min and max beside it) and
one per communication class, `MPI/<class>` (time, calls, messages, bytes). Metrics a node does not have are
null. The run's configuration is the file's metadata (every top-level key but the four sections): study,
kernel, configuration, node_count (`nodes` names a section), ranks per node, threads, ranks, cores, repeat, MPC mode, status, loop time and
each parameter as `param.<name>`. Pure but for `write`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hybridperf.files import write_atomic

METRICS = ("time", "time (min)", "time (max)", "calls", "messages", "bytes")


def _row(order: int, time: float | None, low: float | None = None, high: float | None = None,
         calls: int | None = None, messages: int | None = None, size: int | None = None) -> list[Any]:
    return [order, order, time, low, high, calls, messages, size]


def document(run: dict[str, Any]) -> dict[str, Any]:
    """One run as a json-split document (Hatchet reads row i as node i: the first column is the node order)."""
    profile = run["profile"]
    nodes: list[dict[str, Any]] = [{"label": "loop", "column": "path"}]
    data = [_row(0, run["loop_time"])]
    for name, region in profile["regions"].items():
        if name == "total":
            continue
        t = region["time"]
        data.append(_row(len(nodes), t["avg"], t["min"], t["max"], region["calls"]))
        nodes.append({"label": name, "column": "path", "parent": 0})
    for cls, c in profile.get("comm", {}).items():
        t = c["time"]
        data.append(_row(len(nodes), t["avg"], t["min"], t["max"], c["calls"], c["messages"], c["bytes"]))
        nodes.append({"label": f"MPI/{cls}", "column": "path", "parent": 0})
    metadata = {"study": run["study"], "kernel": run["kernel"], "configuration": ",".join(run["configurations"]),
                "node_count": run["nodes"], "ranks_per_node": run["ranks_per_node"], "threads": run["threads"],
                "ranks": run["ranks"], "cores": run["ranks"] * run["threads"], "repeat": run["repeat"],
                "mode": run["mode"], "status": run["status"], "loop_time": run["loop_time"],
                **{f"param.{k}": v if isinstance(v, (int, float, str, bool)) else json.dumps(v)
                   for k, v in run["params"].items()}}
    return {"data": data, "columns": ["Node order", "path", *METRICS],
            "column_metadata": [{"is_value": True}, {"is_value": False}] + [{"is_value": True}] * len(METRICS),
            "nodes": nodes, **metadata}


def write(runs: list[dict[str, Any]], directory: Path) -> int:
    """Every run with a profile, one file each (DIR/<run key>.json); how many."""
    directory.mkdir(parents=True, exist_ok=True)
    kept = [r for r in runs if r.get("profile")]
    for run in kept:
        write_atomic(directory / f"{run['run_key']}.json", json.dumps(document(run)))
    return len(kept)
