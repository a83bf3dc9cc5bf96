#!/usr/bin/env python3
"""hybridperf-clomp against LLNL's CLOMP 1.2 on the same machine and runtime, alternating runs.

Both programs get the same seven inputs and are launched by hybridperf's own launcher with the same
configuration (1 rank, numThreads cores, OMP_PLACES=cores, OMP_PROC_BIND=close, the same wait policy),
so binding and environment are identical; the order alternates from one repeat to the next. For each
input and variant it prints the median speedup over serial and overhead against the best case
(us per sweep) of each code, their ratio, and whether the targets hold: speedups within +-10% and
overheads within +-20% of CLOMP 1.2's. Ours are read from the profile; CLOMP 1.2's from its text
output (per-variant runtimes and the subcycle count, from which speedup and overhead are computed
exactly as CLOMP does, with more digits than it prints). Timings are only meaningful on an otherwise
idle machine; this is a benchmark, not a test.

    CLOMP_REF=/tmp/ref-clomp/clomp python bench/clomp_vs_clomp12.py [--repeats 5] [--time-scale N]
        [--wait-policy active|passive]

CLOMP 1.2 is not part of this project: build it outside, from LLNL's clomp.c, with the flags ours is
built with, `gcc -O3 -march=native -fopenmp clomp.c -o /tmp/ref-clomp/clomp -lm`, and point CLOMP_REF at
the binary (without -march=native GCC cannot fuse the zone update into an FMA and CLOMP's loop runs at
half our speed). Without CLOMP_REF the benchmark is skipped with a message.

A sub-microsecond overhead is the difference of two runtimes of about a second, so each ratio comes
with a 90% bootstrap interval (hybridperf.stats.agreement), and a figure outside its target is called
"differ" only when the whole interval is outside it; "undecided" when this machine's run-to-run noise
cannot place the ratio on either side. --save keeps every run's figures in a JSON file and --load
prints the tables again from one or more such files, their runs pooled, without running anything.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from hybridperf.analysis.stats import agreement, interval_text  # noqa: E402
from hybridperf.launch import kernels, runner  # noqa: E402
from hybridperf.launch.lines import build_launch, Configuration  # noqa: E402
from hybridperf.launch.machine import local_machine  # noqa: E402

INPUTS = [[2, -1, 64, 100, 32, 1, 100], [2, 1, 16, 400, 32, 1, 100]]
# Our variant names and CLOMP 1.2's labels for them.
LABELS = {"serial_ref": "Serial Ref", "best_case": "Bestcase OMP", "for_static": "Static OMP",
          "for_dynamic": "Dynamic OMP", "manual": "Manual OMP"}
SPEEDUP_TOLERANCE, OVERHEAD_TOLERANCE = 0.10, 0.20
Figures = dict[str, dict[str, float]]  # variant -> {"speedup", "overhead", "us_per_loop"}


def configuration(inputs: list[int], wait_policy: str | None) -> Configuration:
    threads = inputs[0] if inputs[0] > 0 else local_machine().cores
    return Configuration(1, 1, threads, local_machine().cores, oversubscribe=True, wait_policy=wait_policy)


def run_ours(inputs: list[int], wait_policy: str | None, work: Path) -> Figures:
    path = work / "ours.json"
    launch = runner.prepare("clomp", configuration(inputs, wait_policy), [str(a) for a in inputs], path)
    outcome = runner.execute(launch, path)
    if outcome.profile is None or outcome.returncode:
        sys.exit(f"hybridperf-clomp failed (exit {outcome.returncode}): {outcome.stderr}")
    variants = outcome.profile["clomp"]["variants"]
    return {v: {"speedup": variants[v]["speedup"], "overhead": variants[v]["overhead_us_per_loop"] or 0.0,
                "us_per_loop": variants[v]["us_per_loop"]} for v in LABELS}


def parse_clomp12(text: str) -> Figures:
    """Per-variant speedup and overhead from CLOMP 1.2's runtimes ("Static OMP  Runtime: 1.234 ...")."""
    match = re.search(r"Total Subcycles:\s*(\d+)", text)
    if not match:
        sys.exit(f"could not read CLOMP 1.2's subcycle count:\n{text[-2000:]}")
    subcycles = int(match[1])
    seconds = {}
    for variant, label in LABELS.items():
        found = re.search(rf"^\s*{label}\s+Runtime:\s+([0-9.]+)", text, re.MULTILINE)
        if not found:
            sys.exit(f"could not read CLOMP 1.2's {label} runtime:\n{text[-2000:]}")
        seconds[variant] = float(found[1])
    serial, best = seconds["serial_ref"], seconds["best_case"]
    return {v: {"speedup": serial / s if s > 0 else float("nan"),
                "overhead": 1e6 * (s - best) / subcycles,
                "us_per_loop": 1e6 * s / subcycles} for v, s in seconds.items()}


def run_reference(ref: str, inputs: list[int], wait_policy: str | None) -> Figures:
    flavor = kernels.mpi_flavor(kernels.build_info(kernels.kernel_path("clomp"))["build"]["mpi_library"])
    program = [ref, *map(str, inputs)]
    launch = build_launch(configuration(inputs, wait_policy), flavor, program,  # type: ignore[arg-type]
                          as_root=os.geteuid() == 0, launcher=kernels.launcher_for(flavor))
    proc = subprocess.run(launch.command, env={**os.environ, **launch.env}, capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"CLOMP 1.2 failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
    return parse_clomp12(proc.stdout)


def values(runs: list[Figures], variant: str, key: str) -> list[float]:
    return [r[variant][key] for r in runs]


def verdict(ours: list[float], ref: list[float], tolerance: float) -> tuple[str, bool, bool]:
    """The table cells of one target (ratio, verdict, interval) and whether it is met / decided."""
    status, ratio, interval = agreement(ours, ref, tolerance)
    word = {"ok": "ok", "differ": "DIFFER", "undecided": "undecided"}[status]
    return f"{ratio:>6.3f} {interval_text(interval):>13} {word:>9}", status == "ok", status != "undecided"


def compare(inputs: list[int], ours: list[Figures], ref: list[Figures]) -> tuple[int, int, int]:
    """Prints the side-by-side table of one input; returns (targets met, undecided, targets)."""
    print(f"\ninput: {' '.join(map(str, inputs))}  ({len(ours)} runs each, medians; ratio ours/CLOMP 1.2 "
          "with its 90% bootstrap interval)")
    print(f"{'variant':<12} {'us/loop ours':>12} {'CLOMP 1.2':>10} | {'speedup ours':>12} {'CLOMP 1.2':>10} "
          f"{'ratio':>6} {'interval':>13} {'+-10%':>9} | {'overhead ours':>13} {'CLOMP 1.2':>10} "
          f"{'ratio':>6} {'interval':>13} {'+-20%':>9}")
    met = undecided = total = 0
    for v in LABELS:
        us = (f"{v:<12} {statistics.median(values(ours, v, 'us_per_loop')):>12.3f} "
              f"{statistics.median(values(ref, v, 'us_per_loop')):>10.3f}")
        if v == "serial_ref":
            print(us + f" | {'1':>12} {'1':>10}")
            continue
        cells = [us]
        targets = [("speedup", SPEEDUP_TOLERANCE)] + ([("overhead", OVERHEAD_TOLERANCE)] if v != "best_case" else [])
        for key, tolerance in targets:
            mine, theirs = values(ours, v, key), values(ref, v, key)
            text, ok, decided = verdict(mine, theirs, tolerance)
            met, undecided, total = met + ok, undecided + (not decided), total + 1
            cells.append(f"{statistics.median(mine):>12.3f} {statistics.median(theirs):>10.3f} {text}")
        print(" | ".join(cells))
    return met, undecided, total


def measure(inputs: list[list[int]], repeats: int, ref: str, wait_policy: str | None) -> dict:
    """{input as text: (our runs, CLOMP 1.2's runs)}, alternating which runs first."""
    results: dict[str, tuple[list[Figures], list[Figures]]] = {" ".join(map(str, i)): ([], []) for i in inputs}
    with tempfile.TemporaryDirectory() as tmp:
        for repeat in range(repeats):
            for i in inputs:
                ours, theirs = results[" ".join(map(str, i))]
                order = ["ours", "ref"] if repeat % 2 == 0 else ["ref", "ours"]
                for who in order:
                    print(f"  repeat {repeat + 1}/{repeats}: {who:<4} {' '.join(map(str, i))}", flush=True)
                    if who == "ours":
                        ours.append(run_ours(i, wait_policy, Path(tmp)))
                    else:
                        theirs.append(run_reference(ref, i, wait_policy))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs of each program per input (default 5)")
    parser.add_argument("--time-scale", type=int, default=None,
                        help="replace the inputs' timeScale (100) to shorten runs, e.g. 1 for a smoke test")
    parser.add_argument("--wait-policy", choices=["active", "passive"], default=None,
                        help="OMP_WAIT_POLICY for both programs (default: the runtime's own)")
    parser.add_argument("--save", type=Path, metavar="FILE", help="write every run's figures to this JSON file")
    parser.add_argument("--load", type=Path, nargs="+", metavar="FILE",
                        help="print the tables from files written by --save, their runs pooled; run nothing")
    args = parser.parse_args()
    if args.load:
        report(load(args.load))
        return
    if args.save and not args.save.parent.is_dir():
        sys.exit(f"--save: no folder {args.save.parent}")
    ref = os.environ.get("CLOMP_REF")
    if not ref or not os.access(ref, os.X_OK):
        print("CLOMP_REF is not set to an executable CLOMP 1.2: skipping. Build it outside the project, e.g. "
              "`gcc -O3 -march=native -fopenmp clomp.c -o /tmp/ref-clomp/clomp -lm`, and set CLOMP_REF=/tmp/ref-clomp/clomp.")
        return
    try:
        kernels.kernel_path("clomp")
    except kernels.KernelNotFound as err:
        sys.exit(str(err))
    inputs = [i[:6] + [args.time_scale] if args.time_scale else i for i in INPUTS]
    print(f"hybridperf-clomp vs CLOMP 1.2 ({ref}), {args.repeats} alternating runs per input, "
          f"wait policy {args.wait_policy or 'runtime default'}")
    results = measure(inputs, args.repeats, ref, args.wait_policy)
    if args.save:
        args.save.write_text(json.dumps(results))
        print(f"runs saved to {args.save}")
    report(results)


def load(paths: list[Path]) -> dict:
    """The runs of several --save files, pooled per input."""
    pooled: dict[str, tuple[list[Figures], list[Figures]]] = {}
    for path in paths:
        try:
            runs = json.loads(path.read_text())
            for text, (ours, theirs) in runs.items():
                if not all(set(LABELS) <= set(r) for r in ours + theirs):
                    raise ValueError(f"a run of input {text!r} lacks a variant")
                mine, ref = pooled.setdefault(text, ([], []))
                mine += ours
                ref += theirs
        except (OSError, ValueError, TypeError, AttributeError) as err:
            sys.exit(f"--load: cannot read {path} (written by --save?): {err}")
    return pooled


def report(results: dict) -> None:
    met = undecided = total = 0
    for text, (ours, theirs) in results.items():
        m, u, t = compare([int(x) for x in text.split()], ours, theirs)
        met, undecided, total = met + m, undecided + u, total + t
    print(f"\ntargets met: {met} of {total} (speedups within +-10%, overheads within +-20% of CLOMP 1.2); "
          f"of the {total - met} others, {undecided} undecided at this noise and {total - met - undecided} differ")


if __name__ == "__main__":
    main()
