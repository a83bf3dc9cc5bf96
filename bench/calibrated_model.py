#!/usr/bin/env python3
"""The calibrated model against measurement on this machine (issue 6's accuracy goal).

In each of --repeats rounds, one after the other: the calibration — hybridperf-mixbench's ping-pong (2
ranks), hybridperf-ompbench's PARALLEL FOR (all cores as threads), STREAM copy and triad at 1 and all
threads — then the serial run and every split of the node's cores for MD (the standard benchmark at 32,000
and 131,072 atoms) and SPMV (n = 20 and 40; serial, mpi and hybrid modes). The model predicts each split
from the median calibration and the serial run's median profile alone (no run of the split), and is
scored against the split's measured median: percentage error (target within 15%) and whether it names
the right winner — which it can only be said to do when the measured gap exceeds the summed SEMs.
A last column sets the host's noise aside: the prediction from the fastest serial run against the
fastest run of each split. Noise on a shared host only ever slows a run, and slows a run on every core
(which waits for its slowest core at each step) more than a serial one, so the medians understate what
the splits can do; the fastest runs are each configuration at its least disturbed.

    python bench/calibrated_model.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from hybridperf.launch import runner  # noqa: E402
from hybridperf.launch.lines import Configuration  # noqa: E402
from hybridperf.launch.machine import local_machine  # noqa: E402
from hybridperf.models import calibrate  # noqa: E402


def run(kernel: str, ranks: int, threads: int, args: list[str], work: Path) -> dict:
    cores = local_machine().cores
    path = work / f"{kernel}.json"
    launch = runner.prepare(kernel, Configuration(1, ranks, threads, cores), args, path)
    out = runner.execute(launch, path, timeout=1800)
    if out.profile is None or out.returncode:
        sys.exit(f"{kernel} {ranks}x{threads} failed: {out.stderr[-800:]}")
    return out.profile


def figure(profile: dict, name: str) -> float:
    return next(f["value"] for f in profile["figures_of_merit"] if f["name"] == name)


def median(profiles: list[dict], key) -> dict:
    return sorted(profiles, key=key)[len(profiles) // 2]


def calibration_runs(cores: int, work: Path):
    yield "mixbench", run("mixbench", 2, 1, ["--bench", "pingpong"], work)
    yield "ompbench", run("ompbench", 1, cores, ["-c", "PARALLEL_FOR", "--ref-sd-tol", "1"], work)
    for threads in sorted({1, cores}):
        yield f"stream {threads}", run("stream", 1, threads, ["-s", "40", "-t", "5"], work)


CASES = {
    "md -s 20": ("md", ["-s", "20"], {}),
    "md -s 32": ("md", ["-s", "32"], {}),
    "spmv n=20": ("spmv", ["-n", "20"], {"serial": ["--mode", "serial"], "mpi": ["--mode", "mpi"], "hybrid": ["--mode", "hybrid"]}),
    "spmv n=40": ("spmv", ["-n", "40"], {"serial": ["--mode", "serial"], "mpi": ["--mode", "mpi"], "hybrid": ["--mode", "hybrid"]}),
}


def mode_args(modes: dict, ranks: int, threads: int) -> list[str]:
    if not modes:
        return []
    return modes["serial" if ranks == threads == 1 else "mpi" if threads == 1 else "hybrid"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    cores = local_machine().cores
    splits = [(cores // t, t) for t in range(1, cores + 1) if cores % t == 0]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        measured: dict[tuple, list[float]] = {}
        serials: dict[str, list[dict]] = {}
        calibrations: dict[str, list[dict]] = {}
        for rep in range(args.repeats):
            print(f"round {rep + 1}/{args.repeats}", flush=True)
            # the calibration too is measured every round: one disturbed STREAM run would skew every prediction
            for name, profile in calibration_runs(cores, work):
                calibrations.setdefault(name, []).append(profile)
            for name, (kernel, base, modes) in CASES.items():
                for ranks, threads in [(1, 1)] + splits:
                    p = run(kernel, ranks, threads, base + mode_args(modes, ranks, threads), work)
                    measured.setdefault((name, ranks, threads), []).append(figure(p, "loop_time"))
                    if ranks == threads == 1:
                        serials.setdefault(name, []).append(p)
    cal = calibrate.calibration(median(calibrations["mixbench"], lambda p: p["mixbench"]["hockney"]["pingpong"]["alpha_s"]),
                                median(calibrations["ompbench"], lambda p: figure(p, "overhead.PARALLEL_FOR")),
                                [median(v, lambda p: p["stream"]["bandwidth_GBps"]["triad"])
                                 for k, v in calibrations.items() if k.startswith("stream")])
    print("calibration (medians of the rounds):\n" + "\n".join("  " + s for s in cal.sources))
    print(f"\nmedians of {args.repeats} rounds; target: every split within 15% and the right winner")
    print(f"{'case':<11} {'split':>6} {'predicted s':>12} {'measured s':>11} {'SEM':>8} {'error':>7} | "
          f"{'fastest: predicted':>18} {'measured':>9} {'error':>7}")
    for name in CASES:
        serial = median(serials[name], lambda p: figure(p, "loop_time"))
        predicted = calibrate.predict_splits(serial, cal, cores)
        fastest_serial = min(serials[name], key=lambda p: figure(p, "loop_time"))
        predicted_fastest = calibrate.predict_splits(fastest_serial, cal, cores)
        rows = {}
        for split, t in predicted.items():
            values = measured[(name, split.ranks, split.threads)]
            m, sem = statistics.median(values), statistics.stdev(values) / len(values) ** 0.5
            rows[(split.ranks, split.threads)] = (t, m, sem)
            tf, mf = predicted_fastest[split], min(values)
            print(f"{name:<11} {split.ranks}x{split.threads:<4} {t:12.4f} {m:11.4f} {sem:8.4f} {100 * (t - m) / m:+6.1f}% | "
                  f"{tf:18.4f} {mf:9.4f} {100 * (tf - mf) / mf:+6.1f}%")
        best_predicted = min(rows, key=lambda k: rows[k][0])
        order = sorted(rows, key=lambda k: rows[k][1])
        best, second = rows[order[0]], rows[order[1]]
        decided = second[1] - best[1] > best[2] + second[2]  # beyond the summed error bars (thesis §3.2.1)
        verdict = ("right" if best_predicted == order[0] else "WRONG") if decided else "undecided: gap within errors"
        print(f"{'':<11} winner predicted {best_predicted[0]}x{best_predicted[1]}, measured {order[0][0]}x{order[0][1]} "
              f"by {100 * (second[1] / best[1] - 1):.1f}% -> {verdict}")


if __name__ == "__main__":
    main()
