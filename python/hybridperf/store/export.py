"""Exports of stored runs for other tools: a flat CSV table (one row per run, `store.flat`'s columns), and
Extra-P's JSON-Lines input, one measurement per line:

    {"params": {"ranks": 8, "threads": 1, "size": 20}, "callpath": "force", "metric": "time", "value": 1.23}

Parameters are the run's ranks and threads plus every numeric kernel parameter the study varies
(string parameters such as a mode become part of the callpath's root, so Extra-P keeps them apart).
Callpaths: `<root>` with the loop time, each region (time, rank average), and `MPI/<class>` with
the time, bytes and messages of point-to-point, collective and barrier communication. Repeats are
separate lines, which Extra-P treats as repetitions of a coordinate.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from hybridperf.files import write_atomic
from hybridperf.store import flat


def _varying_numeric(runs: list[dict[str, Any]]) -> list[str]:
    keys = dict.fromkeys(k for r in runs for k, v in r["params"].items() if isinstance(v, (int, float)) and not isinstance(v, bool))
    return [k for k in keys if len({r["params"].get(k) for r in runs}) > 1]


def lines(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    ok = [r for r in runs if r["status"] == "ok" and r["profile"]]
    numeric = _varying_numeric(ok)
    labels = dict.fromkeys(k for r in ok for k, v in r["params"].items() if isinstance(v, str))
    out = []
    for r in ok:
        params = {"ranks": r["ranks"], "threads": r["threads"], **{k: r["params"][k] for k in numeric}}
        prefix = "/".join(f"{k}={r['params'][k]}" for k in labels if k in r["params"] and
                          len({x["params"].get(k) for x in ok}) > 1)
        root = prefix or "<root>"
        p = r["profile"]
        out.append({"params": params, "callpath": root, "metric": "time", "value": r["loop_time"]})
        for name, region in p["regions"].items():
            if name != "total":
                out.append({"params": params, "callpath": f"{root}->{name}", "metric": "time",
                            "value": region["time"]["avg"]})
        for cls, c in p.get("comm", {}).items():
            for metric, value in (("time", c["time"]["avg"]), ("bytes", c["bytes"]), ("messages", c["messages"])):
                out.append({"params": params, "callpath": f"{root}->MPI/{cls}", "metric": metric, "value": value})
    return out


def write_csv(runs: list[dict[str, Any]], path: Path) -> int:
    """The flat table; returns the number of rows."""
    rows = [flat.row(r) for r in runs]
    columns = list(dict.fromkeys(k for row in rows for k in row))

    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=columns)
    writer.writeheader()
    writer.writerows(rows)
    write_atomic(path, text.getvalue())
    return len(rows)


def write_extrap(runs: list[dict[str, Any]], path: Path) -> int:
    rows = lines(runs)
    write_atomic(path, "".join(json.dumps(row) + "\n" for row in rows))
    return len(rows)
