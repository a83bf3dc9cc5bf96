#!/usr/bin/env python3
"""The main job run again and again (issues 23 and 41): `hybridperf study` of the default study (studies/local.yaml,
what `make demo` runs) K times in a row on this machine, each a fresh store, each with the study's own declared rule
(90%, ties within ±3%, 100 s of runs). Declared before running: K (default 5), and that every run is kept.
What it checks: each scale of each run ends *wins* or *tie* (not undecided), and no two runs contradict each other
(one says A wins where another says B wins; a tie and a win of one of the tied do not contradict). The stores are
kept whole in one archive, bench/runs/demo_repeat-<stamp>.tgz (run-1/, run-2/, ...), and the README's
figures are read from it (bench/figures_race.py); beside it, bench/runs/demo_repeat-<stamp>.json, each run's wall time
(the whole `hybridperf study`, start-up included) and the load average before it. Minutes of runs; a benchmark, not
a test.

    python bench/demo_repeat.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import common
from hybridperf.files import write_atomic

SPEC = common.REPO / "studies" / "local.yaml"


def answers(report: dict) -> dict[tuple[str, int], dict]:
    """Per (parameters, scale): the outcome, the winner or the tied set, from `hybridperf report --json`'s."""
    found = {}
    for section in report["sections"]:
        for scale in section["scales"]:
            found[json.dumps(section["params"], sort_keys=True), scale["cores"]] = {
                "outcome": scale["outcome"], "winner": scale["winner"], "tied": scale["tied"]}
    return found


def contradictions(runs: list[dict[tuple[str, int], dict]]) -> list[str]:
    """Where two runs name different winners, or one's winner is not among another's tied set."""
    found = []
    for key in runs[0]:
        said = [r[key] for r in runs if key in r]
        winners = {a["winner"] for a in said if a["outcome"] == "wins"}
        for a in said:
            if a["outcome"] == "tie" and winners - set(a["tied"]):
                found.append(f"{key}: a tie of {a['tied']} against a win of {sorted(winners)}")
        if len(winners) > 1:
            found.append(f"{key}: wins by {sorted(winners)}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of the main job, in a row (default 5)")
    args = parser.parse_args()
    if args.runs < 2:
        parser.error("--runs must be at least 2 (a contradiction needs two)")
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
    archive = common.RUNS / f"demo_repeat-{stamp}.tgz"
    with tempfile.TemporaryDirectory() as tmp:
        folders, walls, loads = [], [], []
        for k in range(1, args.runs + 1):
            results = Path(tmp) / f"run-{k}"
            print(f"run {k}/{args.runs}: hybridperf study {SPEC.relative_to(common.REPO)}", flush=True)
            loads.append(os.getloadavg()[0])
            began = time.monotonic()
            subprocess.run([sys.executable, "-m", "hybridperf", "study", str(SPEC), "--results", str(results),
                            "--no-report"], check=True, capture_output=True, text=True)
            walls.append(time.monotonic() - began)
            folders.append(results)
        found = [answers(json.loads(subprocess.run([sys.executable, "-m", "hybridperf", "report", str(f), "--json"],
                                                   capture_output=True, text=True, check=True).stdout))
                 for f in folders]
        with tarfile.open(archive, "w:gz") as tar:
            for f in folders:
                tar.add(f, arcname=f.name)
    write_atomic(archive.with_suffix(".json"), json.dumps(
        {"bench": "demo_repeat", "made": stamp, "spec": SPEC.read_text(), "archive": archive.name,
         "wall_seconds": walls, "load_before": loads, "machine": common.machine_state()}, indent=1) + "\n")
    for k, run in enumerate(found, 1):
        print(f"run {k}: " + "; ".join(f"{json.loads(p)} at {c} cores: {a['outcome']} "
                                       f"{a['winner'] or ', '.join(a['tied'])}" for (p, c), a in run.items()))
    undecided = sum(a["outcome"] == "undecided" for run in found for a in run.values())
    print(f"undecided scales: {undecided}; contradictions: {contradictions(found) or 'none'}")
    print(f"kept: {archive.relative_to(common.REPO)}")


if __name__ == "__main__":
    main()
