#!/usr/bin/env python3
"""The calibrated model against measurement on this machine.

Each round runs, in an order drawn from the run's seed: the calibration — hybridperf-mixbench's ping-pong
(2 ranks), hybridperf-ompbench's PARALLEL FOR (all cores as threads), STREAM at 1 and all threads — and,
for MD (the standard benchmark at 32,000 and 131,072 atoms) and SPMV (n = 20 and 40; serial, mpi and
hybrid modes), the serial run, the serial run as one copy per core at once (`hybridperf run --copies`: the
node's efficiency; run files from before 2026-11-27 have none, and their model has md's at 1 and spmv's from
STREAM) and every split of the node's cores. Each round's calibration, serial run and copies give the model's
prediction of every split (models.calibrate: no run of the split is used), so the
predictions vary with the calibration's noise as the measurements do with theirs. Judged per split
(bench/references.yaml): the median prediction over the median measurement within ±15%, by its 90%
bootstrap interval; and per case whether the predicted winner is the faster split or tied with it: the
measured time of the other split over the predicted winner's, which must be above 0.98 (within: right, or
the two within the race's 2% tie band, where the pick does not matter; differs: the other split is more than
2% faster; undecided: this noise cannot tell). The run file keeps of each profile what the model reads.

    python bench/calibrated_model.py [--repeats 9] [--series NAME --series-size K]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import common
from hybridperf.analysis.verdicts import Band, judge_ratio
from hybridperf.launch import runner
from hybridperf.launch.lines import Configuration
from hybridperf.launch.machine import local_machine
from hybridperf.models import calibrate

BENCH = "calibrated_model"
CASES = {
    "md -s 20": ("md", ["-s", "20"], {}),
    "md -s 32": ("md", ["-s", "32"], {}),
    "spmv n=20": ("spmv", ["-n", "20"], {"serial": ["--mode", "serial"], "mpi": ["--mode", "mpi"], "hybrid": ["--mode", "hybrid"]}),
    "spmv n=40": ("spmv", ["-n", "40"], {"serial": ["--mode", "serial"], "mpi": ["--mode", "mpi"], "hybrid": ["--mode", "hybrid"]}),
}
# What the model reads of each profile (models.calibrate), so that a run file can be judged again.
KEPT = {"kernel": None, "figures_of_merit": None, "params": None, "run": ("ranks", "threads_per_rank", "copy"),
        "md": ("atoms", "steps_done", "ghost_cut"), "spmv": ("n", "calls", "rows_per_node"),
        "mixbench": ("hockney",), "stream": ("bandwidth_GBps",)}


def trim(profile: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key, fields in KEPT.items():
        if key in profile:
            out[key] = profile[key] if fields is None else {f: profile[key][f] for f in fields if f in profile[key]}
    return out


def run(kernel: str, ranks: int, threads: int, args: list[str], work: Path) -> dict:
    path = work / f"{kernel}.json"
    launch = runner.prepare(kernel, Configuration(1, ranks, threads, local_machine().cores), args, path)
    out = runner.execute(launch, path, timeout=1800)
    if out.profile is None or out.returncode:
        checks = (out.profile or {}).get("checks", {})
        failed = ", ".join(f"{name} ({c['value']:.4g}, expected {c['expected']:.4g} ± {c['tolerance']:.4g})"
                           for name, c in checks.items() if not c["pass"])
        sys.exit(f"{kernel} {ranks}x{threads} failed" + (f" its checks {failed}" if failed else "")
                 + f": {out.stderr[-800:]}")
    return trim(out.profile)


def run_copies(kernel: str, copies: int, args: list[str], work: Path) -> list[dict]:
    """The serial run as `copies` copies at once, each on its own core."""
    launches = runner.prepare_copies(kernel, local_machine(), copies, args, work / f"{kernel}.json")
    outcomes = runner.execute_copies(launches, timeout=1800)
    if any(o.profile is None or o.returncode for o in outcomes):
        sys.exit(f"{kernel} as {copies} copies failed: " + " | ".join(o.stderr[-400:] for o in outcomes))
    return [trim(o.profile) for o in outcomes if o.profile is not None]


def figure(profile: dict, name: str) -> float:
    return next(f["value"] for f in profile["figures_of_merit"] if f["name"] == name)


def splits(cores: int) -> list[tuple[int, int]]:
    return [(cores // t, t) for t in range(1, cores + 1) if cores % t == 0]


def mode_args(modes: dict, ranks: int, threads: int) -> list[str]:
    if not modes:
        return []
    return modes["serial" if ranks == threads == 1 else "mpi" if threads == 1 else "hybrid"]


def predictions(runs: list[dict], case: str) -> dict[tuple[int, int], list[float]]:
    """Per split, the prediction of each round from that round's calibration and serial run."""
    out: dict[tuple[int, int], list[float]] = {}
    for r in runs:
        s = r["samples"]
        for k in range(len(s[f"{case} 1x1"])):
            cal = calibrate.calibration(s["mixbench"][k], s["ompbench"][k],
                                        [s[key][k] for key in s if key.startswith("stream ")])
            serial = s[f"{case} 1x1"][k]
            copies = calibrate.copies_efficiency([serial], s[f"{case} copies"][k], serial) \
                if f"{case} copies" in s else calibrate.Copies({})
            for split, seconds in calibrate.predict_splits(serial, cal, s["cores"][0], copies).items():
                out.setdefault((split.ranks, split.threads), []).append(seconds)
    return out


def figures(runs: list[dict], bands: dict[str, Band]) -> list[common.Row]:
    rows = []
    for case in (c for c in CASES if common.pooled(runs, f"{c} 1x1")):
        predicted = predictions(runs, case)
        measured = {split: [figure(p, "loop_time") for p in common.pooled(runs, f"{case} {split[0]}x{split[1]}")]
                    for split in predicted}
        for (ranks, threads), values in predicted.items():
            rows.append(common.Row(f"{case}, {ranks}x{threads}: predicted / measured seconds",
                                   f"{statistics.median(values):.4f}",
                                   f"{statistics.median(measured[(ranks, threads)]):.4f}",
                                   judge_ratio(values, measured[(ranks, threads)], bands["predicted_over_measured"])))
        ranked = sorted(predicted, key=lambda s: statistics.median(predicted[s]))
        winner, other = ranked[0], ranked[-1]
        rows.append(common.Row(f"{case}: predicted winner {winner[0]}x{winner[1]} — measured {other[0]}x{other[1]} "
                               f"/ {winner[0]}x{winner[1]}", f"{statistics.median(measured[winner]):.4f}",
                               f"{statistics.median(measured[other]):.4f}",
                               judge_ratio(measured[other], measured[winner], bands["predicted_winner"])))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args = common.arguments(parser, BENCH)
    cores = local_machine().cores
    run_file = common.start(BENCH, args)
    run_file.add("cores", cores)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        cases = {"mixbench": lambda: run("mixbench", 2, 1, ["--bench", "pingpong"], work),
                 "ompbench": lambda: run("ompbench", 1, cores, ["-c", "PARALLEL_FOR", "--ref-sd-tol", "1e6"], work)}
        cases |= {f"stream {t}": (lambda t=t: run("stream", 1, t, ["-s", "40", "-t", "5"], work))
                  for t in sorted({1, cores})}
        for name, (kernel, base, modes) in CASES.items():
            cases[f"{name} copies"] = (lambda k=kernel, a=base + mode_args(modes, 1, 1): run_copies(k, cores, a, work))
            for ranks, threads in [(1, 1)] + splits(cores):
                cases[f"{name} {ranks}x{threads}"] = (lambda k=kernel, r=ranks, t=threads, a=base + mode_args(modes, ranks, threads):
                                                      run(k, r, t, a, work))
        for _, order in run_file.rounds(list(cases)):
            for name in order:
                run_file.add(name, cases[name]())
    path = run_file.save()
    import tables

    tables.print_bench(BENCH, path)


if __name__ == "__main__":
    main()
