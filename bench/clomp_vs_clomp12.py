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

A sub-microsecond overhead is the difference of two runtimes of about a second, so a miss is also
marked "ranges overlap" when the per-run overheads of the two codes (min..max over the repeats) overlap:
the difference is then within this machine's run-to-run noise.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from hybridperf import kernels, runner  # noqa: E402
from hybridperf.launch import Configuration, build_launch  # noqa: E402
from hybridperf.machine import local_machine  # noqa: E402

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


def median(runs: list[Figures], variant: str, key: str) -> float:
    return statistics.median(r[variant][key] for r in runs)


def ranges_overlap(ours: list[Figures], ref: list[Figures], variant: str, key: str) -> bool:
    mine, theirs = [r[variant][key] for r in ours], [r[variant][key] for r in ref]
    return min(mine) <= max(theirs) and min(theirs) <= max(mine)


def compare(inputs: list[int], ours: list[Figures], ref: list[Figures]) -> tuple[int, int]:
    """Prints the side-by-side table of one input; returns (targets met, targets)."""
    print(f"\ninput: {' '.join(map(str, inputs))}  ({len(ours)} runs each, medians)")
    print(f"{'variant':<12} {'us/loop ours':>12} {'CLOMP 1.2':>10} | {'speedup ours':>12} {'CLOMP 1.2':>10} "
          f"{'ratio':>6} {'+-10%':>5} | {'overhead ours':>13} {'CLOMP 1.2':>10} {'ratio':>6} {'+-20%':>5}")
    met = total = 0
    for v in LABELS:
        line = (f"{v:<12} {median(ours, v, 'us_per_loop'):>12.3f} {median(ref, v, 'us_per_loop'):>10.3f} | ")
        if v == "serial_ref":
            print(line + f"{'1':>12} {'1':>10}")
            continue
        s_ours, s_ref = median(ours, v, "speedup"), median(ref, v, "speedup")
        ok = abs(s_ours / s_ref - 1) <= SPEEDUP_TOLERANCE
        met, total = met + ok, total + 1
        line += f"{s_ours:>12.3f} {s_ref:>10.3f} {s_ours / s_ref:>6.3f} {'ok' if ok else 'MISS':>5} |"
        if v != "best_case":
            o_ours, o_ref = median(ours, v, "overhead"), median(ref, v, "overhead")
            ok = abs(o_ours - o_ref) <= OVERHEAD_TOLERANCE * abs(o_ref)
            met, total = met + ok, total + 1
            ratio = f"{o_ours / o_ref:>6.2f}" if o_ref else f"{'-':>6}"
            line += f" {o_ours:>13.3f} {o_ref:>10.3f} {ratio} {'ok' if ok else 'MISS':>5}"
            if not ok and ranges_overlap(ours, ref, v, "overhead"):
                line += "  (ranges overlap)"
            if abs(o_ref) < 0.05:
                line += "  (reference overhead ~0: ratio is noise)"
        print(line)
    return met, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs of each program per input (default 5)")
    parser.add_argument("--time-scale", type=int, default=None,
                        help="replace the inputs' timeScale (100) to shorten runs, e.g. 1 for a smoke test")
    parser.add_argument("--wait-policy", choices=["active", "passive"], default=None,
                        help="OMP_WAIT_POLICY for both programs (default: the runtime's own)")
    args = parser.parse_args()
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
    results = {tuple(i): ([], []) for i in inputs}
    with tempfile.TemporaryDirectory() as tmp:
        for repeat in range(args.repeats):
            for i in inputs:
                ours, theirs = results[tuple(i)]
                order = ["ours", "ref"] if repeat % 2 == 0 else ["ref", "ours"]
                for who in order:
                    print(f"  repeat {repeat + 1}/{args.repeats}: {who:<4} {' '.join(map(str, i))}", flush=True)
                    if who == "ours":
                        ours.append(run_ours(i, args.wait_policy, Path(tmp)))
                    else:
                        theirs.append(run_reference(ref, i, args.wait_policy))
    met = total = 0
    for i in inputs:
        m, t = compare(i, *results[tuple(i)])
        met, total = met + m, total + t
    print(f"\ntargets met: {met} of {total} (speedups within +-10%, overheads within +-20% of CLOMP 1.2)")


if __name__ == "__main__":
    main()
