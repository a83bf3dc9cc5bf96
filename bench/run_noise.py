#!/usr/bin/env python3
"""How noisy one run of the main job's splits is, and what a longer run buys: the demo's two splits (pure MPI and
hybrid-1 on this node) at each problem size and number of steps, in a fixed design of paired blocks (no early
stop: the stopping rule must not choose which runs are seen), through the study machinery itself.

Per (size, steps): the noise of the paired log ratios (1.4826 × their median absolute deviation: what a race's
interval shrinks with), each split's own, the wall time of a run (launch to exit, start-up included) and of its
loop, and from those what deciding costs: the blocks the Huber sequence needs, at this noise, to tie at the band
(the easier of a tie and a win for a difference of zero), times a block's wall time. A longer run averages more
steps (less noise per run) but costs more seconds per block; the row with the fewest seconds to decide is what
the demo should run.

    python bench/run_noise.py                     # sizes 20 and 32, steps 50, 200 and 500, 8 blocks each
    python bench/run_noise.py --blocks 4 --steps 50,100   # a smaller sweep

Every run is kept: the study's store is archived beside the run file (bench/runs/run_noise-<time>.tgz)."""

from __future__ import annotations

import argparse
import datetime
import json
import math
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import common
from hybridperf.analysis.race import Rule, spread
from hybridperf.files import write_atomic
from hybridperf.store.db import Store

SPEC = """study: run-noise
kernel: md
description: the demo's splits in a fixed design of paired blocks, to measure the noise per run
params: {{size: [{sizes}], steps: [{steps}]}}
configurations: [pure-mpi, hybrid-1]
cores: [node]
repeats: {blocks}
disturbed: keep
timeout: 900
results: {results}
"""


def measure(sizes: list[int], steps: list[int], blocks: int, results: Path) -> None:
    spec = results.parent / "run-noise.yaml"
    spec.write_text(SPEC.format(sizes=", ".join(map(str, sizes)), steps=", ".join(map(str, steps)), blocks=blocks,
                                results=results))
    subprocess.run([sys.executable, "-m", "hybridperf", "study", str(spec), "--no-report"], check=True)


def rows(results: Path, band: float) -> list[dict]:
    """Per (size, steps): the noise, the wall times, and the seconds to decide at `band`."""
    with Store(results) as store:
        runs = [r for r in store.runs("run-noise") if r["status"] == "ok"]
    out = []
    for key in sorted({(r["params"]["size"], r["params"]["steps"]) for r in runs}):
        mine = [r for r in runs if (r["params"]["size"], r["params"]["steps"]) == key]
        by_block: dict[int, dict[int, float]] = {}
        for r in mine:
            by_block.setdefault(r["repeat"], {})[r["threads"]] = math.log(r["loop_time"])
        ratios = [b[1] - b[max(b)] for b in by_block.values() if len(b) == 2]
        pair = spread(ratios)
        runs_per_split = {t: [math.exp(b[t]) for b in by_block.values() if t in b] for t in {r["threads"] for r in mine}}
        rule = Rule(tie_within=band, budget=None)
        needed = rule.blocks_for(rule.band, pair, 2) if pair else None
        wall = statistics.mean(r["elapsed"] for r in mine)
        out.append({"size": key[0], "steps": key[1], "blocks": len(ratios), "pair_noise": pair,
                    "run_noise": {str(t): spread([math.log(v) for v in vs]) for t, vs in runs_per_split.items()},
                    "median_ratio": math.exp(statistics.median(ratios)) if ratios else None,
                    "wall": wall, "loop": statistics.mean(r["loop_time"] for r in mine),
                    "blocks_to_decide": needed, "seconds_to_decide": needed * 2 * wall if needed else None})
    return out


def table(found: list[dict], band: float) -> str:
    lines = [f"| size | steps | blocks | pair noise | run noise (pure MPI, hybrid-1) | wall s/run | loop s/run | "
             f"blocks to tie at ±{100 * band:g}% | seconds to decide |", "|---|---|---|---|---|---|---|---|---|"]
    for r in found:
        noise = ", ".join(f"±{100 * v:.1f}%" for v in r["run_noise"].values() if v is not None)
        seconds = f"{r['seconds_to_decide']:.0f}" if r["seconds_to_decide"] else "–"
        lines.append(f"| {r['size']} | {r['steps']} | {r['blocks']} | ±{100 * r['pair_noise']:.1f}% | {noise} | "
                     f"{r['wall']:.2f} | {r['loop']:.2f} | {r['blocks_to_decide'] or '–'} | {seconds} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="20,32", help="md sizes (cells per side), comma-separated")
    parser.add_argument("--steps", default="50,200,500", help="steps per run, comma-separated")
    parser.add_argument("--blocks", type=int, default=8, help="paired blocks per (size, steps)")
    parser.add_argument("--band", type=float, default=0.03, help="the tie band the seconds to decide are for")
    parser.add_argument("--store", type=Path, help="report on this run-noise store instead of measuring")
    args = parser.parse_args()
    if args.store:
        print(table(rows(args.store, args.band), args.band))
        return
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S")
    with tempfile.TemporaryDirectory(prefix="hybridperf-run-noise-") as tmp:
        results = Path(tmp) / "results"
        before = common.machine_state()
        measure([int(s) for s in args.sizes.split(",")], [int(s) for s in args.steps.split(",")], args.blocks,
                results)
        found = rows(results, args.band)
        archive = common.RUNS / f"run_noise-{stamp}.tgz"
        with tarfile.open(archive, "w:gz") as tar:
            tar.add(results, arcname="results")
    document = {"bench": "run_noise", "made": stamp, "machine_before": before, "band": args.band,
                "blocks": args.blocks, "rows": found, "store": archive.name}
    write_atomic(common.RUNS / f"run_noise-{stamp}.json", json.dumps(document, indent=1) + "\n")
    print(table(found, args.band))
    print(f"wrote {archive.relative_to(common.REPO)} and its run file")


if __name__ == "__main__":
    main()
