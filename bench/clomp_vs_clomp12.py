#!/usr/bin/env python3
"""hybridperf-clomp against LLNL's CLOMP 1.2 on the same machine and runtime, in randomised rounds.

Both programs get the same two inputs and are launched by hybridperf's own launcher with the same
configuration (1 rank, numThreads cores, OMP_PLACES=cores, OMP_PROC_BIND=close, the same wait policy),
so binding and environment are identical; each round runs the four cases (two inputs x two codes) in an
order drawn from the run's seed. Ours are read from the profile; CLOMP 1.2's from its text output
(per-variant runtimes and the subcycle count, from which speedup and overhead are computed exactly as
CLOMP does, with more digits than it prints). Targets (bench/references.yaml): speedups within ±10% and
overheads within ±20% of CLOMP 1.2's, each judged within / differs / undecided by the 90% bootstrap
interval of the median per-round ratio (an overhead with a round at or below zero: of the ratio of the medians,
rounds resampled in pairs). Every sample goes to a run file in bench/runs/; bench/tables.py makes
the tables. Timings are only meaningful on an otherwise idle machine; this is a benchmark, not a test.

    CLOMP_REF=/tmp/ref-clomp/clomp python bench/clomp_vs_clomp12.py [--repeats 30] [--time-scale N]
        [--wait-policy active|passive] [--series NAME --series-size K]

CLOMP 1.2 is not part of this project: build it outside, from LLNL's clomp.c, with the flags ours is
built with, `gcc -O3 -march=native -fopenmp clomp.c -o /tmp/ref-clomp/clomp -lm`, and point CLOMP_REF at
the binary (without -march=native GCC cannot fuse the zone update into an FMA and CLOMP's loop runs at
half our speed). Without CLOMP_REF the benchmark is skipped with a message.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path

import common
from hybridperf.analysis.verdicts import Band, judge_ratio, judge_ratio_of_medians
from hybridperf.launch import kernels, runner
from hybridperf.launch.lines import Configuration, build_launch
from hybridperf.launch.machine import local_machine

BENCH = "clomp_vs_clomp12"
INPUTS = [[2, -1, 64, 100, 32, 1, 100], [2, 1, 16, 400, 32, 1, 100]]
# Our variant names and CLOMP 1.2's labels for them.
LABELS = {"serial_ref": "Serial Ref", "best_case": "Bestcase OMP", "for_static": "Static OMP",
          "for_dynamic": "Dynamic OMP", "manual": "Manual OMP"}
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
    launch = build_launch(configuration(inputs, wait_policy), flavor, [ref, *map(str, inputs)],  # type: ignore[arg-type]
                          as_root=os.geteuid() == 0, launcher=kernels.launcher_for(flavor))
    return parse_clomp12(common.run_checked(launch.command, launch.env, what="CLOMP 1.2"))


def case(code: str, inputs: list[int]) -> str:
    return f"{code} {' '.join(map(str, inputs))}"


def figures(runs: list[dict], bands: dict[str, Band]) -> list[common.Row]:
    """Per input and variant: µs per loop for information, speedup and overhead against their targets."""
    rows = []
    inputs = dict.fromkeys(key.split(" ", 1)[1] for run in runs for key in run["samples"])
    for text in inputs:
        ours, ref = common.pooled(runs, f"ours {text}"), common.pooled(runs, f"clomp12 {text}")
        for v in LABELS:
            def values(samples: list[Figures], key: str, v: str = v) -> list[float]:
                return [s[v][key] for s in samples]

            mine, theirs = values(ours, "us_per_loop"), values(ref, "us_per_loop")
            rows.append(common.Row(f"`{text}` {v}: µs per loop", f"{statistics.median(mine):.3f}",
                                   f"{statistics.median(theirs):.3f}"))
            if v == "serial_ref":
                continue
            for key in ("speedup",) + (("overhead",) if v != "best_case" else ()):
                mine, theirs = values(ours, key), values(ref, key)
                judged = judge_ratio(mine, theirs, bands[key])
                if key == "overhead" and not judged.bounded:  # a round's overhead at or below zero: its medians
                    judged = judge_ratio_of_medians(mine, theirs, bands[key])
                rows.append(common.Row(f"`{text}` {v}: {key}", f"{statistics.median(mine):.3f}",
                                       f"{statistics.median(theirs):.3f}", judged))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-scale", type=int, default=None,
                        help="replace the inputs' timeScale (100) to shorten runs, e.g. 1 for a smoke test")
    parser.add_argument("--wait-policy", choices=["active", "passive"], default=None,
                        help="OMP_WAIT_POLICY for both programs (default: the runtime's own)")
    args = common.arguments(parser, BENCH)
    ref = common.require(os.environ.get("CLOMP_REF"), "CLOMP 1.2 (CLOMP_REF)",
                         "Build it outside the project, e.g. `gcc -O3 -march=native -fopenmp clomp.c -o "
                         "/tmp/ref-clomp/clomp -lm`, and set CLOMP_REF=/tmp/ref-clomp/clomp.")
    if ref is None:
        return
    if not os.access(ref, os.X_OK):
        sys.exit(f"CLOMP_REF={ref} is not an executable")
    kernels.kernel_path("clomp")
    inputs = [i[:6] + [args.time_scale] if args.time_scale else i for i in INPUTS]
    run = common.start(BENCH, args)
    by_case = {case(code, i): (code, i) for i in inputs for code in ("ours", "clomp12")}
    with tempfile.TemporaryDirectory() as tmp:
        for _, order in run.rounds(list(by_case)):
            for name in order:
                code, i = by_case[name]
                run.add(name, run_ours(i, args.wait_policy, Path(tmp)) if code == "ours"
                        else run_reference(ref, i, args.wait_policy))
    digest = hashlib.sha256(Path(ref).read_bytes()).hexdigest()[:16]
    path = run.save({"CLOMP 1.2": f"{ref} (sha256 {digest})",
              "hybridperf-clomp": kernels.build_info(kernels.kernel_path("clomp"))["build"]["openmp_runtime"]})
    import tables

    tables.print_bench(BENCH, path)


if __name__ == "__main__":
    main()
