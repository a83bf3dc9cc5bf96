#!/usr/bin/env python3
"""hybridperf-ompbench against the EPCC OpenMP micro-benchmarks v4 (syncbench, schedbench), alternating runs.

Both programs run on this machine with the same OpenMP runtime, the same thread count (default 2),
the same launch line and binding (hybridperf's own launcher, one rank), and the same method settings
(--test-time, --delay-time, outer repetitions); each round runs one of each, in alternating order,
so load and clock drift fall on both. Prints the overhead of every construct both measure (median
over the rounds, with the spread), the ratio ours/EPCC with its 90% bootstrap interval over the
rounds, and whether it is within the target of +/-25%: "ok", "DIFFER" (the whole interval outside
the target) or "undecided" (the rounds cannot place the ratio, e.g. when EPCC's overhead is too
close to zero for its sign to be known). Timings are only meaningful on an otherwise idle machine;
this is a benchmark, not a test.

    EPCC_BENCH_DIR=/tmp/ref-epcc python bench/ompbench_vs_epcc.py [--repeats 5] [--threads 2] [--sched]
        [--test-time 1000] [--outer-reps 20] [--constructs PARALLEL,BARRIER,REDUCTION]

EPCC_BENCH_DIR holds EPCC's syncbench and schedbench, built outside this project from
https://github.com/EPCCed/epcc-openmp-microbenchmarks (openmpbench_C_v40); see docs/ompbench.md for
the build, which with GCC 12 needs a two-line stand-in for omp_init_lock_with_hint. Without it the
script says so and exits.
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

from hybridperf.analysis.stats import agreement, interval_text  # noqa: E402
from hybridperf.launch import kernels, runner  # noqa: E402
from hybridperf.launch.lines import build_launch, Configuration  # noqa: E402
from hybridperf.launch.machine import local_machine  # noqa: E402

TARGET = 0.25
# EPCC v4 measured on this machine with libgomp and 2 threads (the reference values).
QUOTED = {"PARALLEL": 0.82, "BARRIER": 0.26, "REDUCTION": 0.81}
SYNC = ["PARALLEL", "FOR", "PARALLEL_FOR", "BARRIER", "BARRIER_VAR", "SINGLE", "CRITICAL", "LOCK_CONTENDED",
        "LOCK_UNCONTENDED", "ORDERED", "ATOMIC", "ATOMIC_SEQCST", "REDUCTION"]
SCHED = ["STATIC", "STATICN", "DYNAMIC", "GUIDED"]
EPCC_LINE = re.compile(r"^(.+?) overhead\s+= (\S+) microseconds \+/- (\S+)", re.MULTILINE)


def epcc_dir() -> Path | None:
    value = os.environ.get("EPCC_BENCH_DIR")
    if not value:
        print("EPCC_BENCH_DIR is not set: skipped. Build EPCC v4 outside this project (docs/ompbench.md, "
              "'Comparing with EPCC') and set EPCC_BENCH_DIR to the folder holding syncbench and schedbench.")
        return None
    path = Path(value)
    if not (path / "syncbench").is_file():
        print(f"EPCC_BENCH_DIR={path} has no syncbench: skipped (build it there with make, see docs/ompbench.md).")
        return None
    return path


def run_ours(config: Configuration, args: list[str], work: Path) -> dict[str, float]:
    path = work / "ours.json"
    outcome = runner.execute(runner.prepare("ompbench", config, args, path), path)
    if outcome.profile is None or outcome.returncode not in (0, 3):
        sys.exit(f"hybridperf-ompbench failed ({outcome.returncode}): {outcome.stderr[-2000:]}")
    if outcome.returncode == 3:
        failed = [k for k, v in outcome.profile["checks"].items() if not v["pass"]]
        print(f"  (ours: checks failed: {', '.join(failed)} -- the machine is noisy)")
    return {c["name"]: c["overhead_us"] for c in outcome.profile["ompbench"]["constructs"]}


def run_epcc(config: Configuration, program: Path, args: list[str]) -> dict[str, float]:
    flavor = kernels.mpi_flavor(kernels.build_info(kernels.kernel_path("ompbench"))["build"]["mpi_library"])
    launch = build_launch(config, flavor, [str(program), *args], as_root=os.geteuid() == 0,
                          launcher=kernels.launcher_for(flavor))
    proc = subprocess.run(launch.command, env={**os.environ, **launch.env}, capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"{program.name} failed ({proc.returncode}): {(proc.stdout + proc.stderr)[-2000:]}")
    found = {m[1].strip().replace(" ", "_"): float(m[2]) for m in EPCC_LINE.finditer(proc.stdout)}
    if not found:
        sys.exit(f"no overhead lines in {program.name}'s output:\n{proc.stdout[-2000:]}")
    return found


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):9.4f} [{min(values):7.4f},{max(values):7.4f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="rounds, each running both programs once")
    parser.add_argument("--threads", type=int, default=2, help="OpenMP threads")
    parser.add_argument("--sched", action="store_true", help="also compare the schedules (schedbench)")
    parser.add_argument("--test-time", type=float, default=1000.0, help="target sample time, us (both)")
    parser.add_argument("--delay-time", type=float, default=0.1, help="delay, us (both)")
    parser.add_argument("--outer-reps", type=int, default=20, help="outer repetitions (both)")
    parser.add_argument("--constructs", default="", help="comma-separated subset (EPCC runs once per name)")
    args = parser.parse_args()
    epcc = epcc_dir()
    if epcc is None:
        return
    cores = local_machine().cores
    config = Configuration(1, 1, args.threads, cores, oversubscribe=args.threads > cores)
    method = ["--test-time", f"{args.test_time:g}", "--delay-time", f"{args.delay_time:g}"]
    names = [n.strip().upper() for n in args.constructs.split(",") if n.strip()]
    if not names:
        names = SYNC + (SCHED if args.sched else [])
    unknown = [n for n in names if n not in SYNC + SCHED]
    if unknown:
        sys.exit(f"--constructs: unknown {', '.join(unknown)} (choose from {', '.join(SYNC + SCHED)})")
    ours_args = ["--constructs", ",".join(names), "--outer-reps", str(args.outer_reps), "--ref-sd-tol", "1e6",
                 *method]
    epcc_runs = []  # (program, arguments) per EPCC invocation
    sync_names, sched_names = [n for n in names if n in SYNC], [n for n in names if n in SCHED]
    everything = not args.constructs
    epcc_method = ["--outer-repetitions", str(args.outer_reps), *method]
    if sync_names:
        runs = [[]] if everything else [["--measureonly", n] for n in sync_names]
        epcc_runs += [(epcc / "syncbench", [*epcc_method, *r]) for r in runs]
    for n in sched_names:
        epcc_runs.append((epcc / "schedbench", [*epcc_method, "--measureonly", n]))

    ours: dict[str, list[float]] = {}
    theirs: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(args.repeats):
            print(f"round {rep + 1}/{args.repeats} ({'ours first' if rep % 2 == 0 else 'EPCC first'})", flush=True)
            order = ["ours", "epcc"] if rep % 2 == 0 else ["epcc", "ours"]
            for who in order:
                if who == "ours":
                    for k, v in run_ours(config, ours_args, Path(tmp)).items():
                        ours.setdefault(k, []).append(v)
                else:
                    for program, run_args in epcc_runs:
                        for k, v in run_epcc(config, program, run_args).items():
                            theirs.setdefault(k, []).append(v)

    print(f"\nOverheads in us, median of {args.repeats} rounds [min, max]; {args.threads} threads, "
          f"test time {args.test_time:g} us, delay {args.delay_time:g} us, {args.outer_reps} outer repetitions; "
          f"target: ours/EPCC within +/-{TARGET:.0%}")
    print(f"{'construct':<18} {'ours':>28} {'EPCC v4':>28} {'ours/EPCC':>10} {'interval':>15} {'target':>9} "
          f"{'quoted':>7}")
    met = undecided = total = 0
    for name in ours:
        if name not in theirs:
            continue
        status, ratio, interval = agreement(ours[name], theirs[name], TARGET)
        met, undecided, total = met + (status == "ok"), undecided + (status == "undecided"), total + 1
        quoted = f"{QUOTED[name]:7.2f}" if name in QUOTED and args.threads == 2 else f"{'':>7}"
        print(f"{name:<18} {spread(ours[name]):>28} {spread(theirs[name]):>28} {ratio:10.3f} "
              f"{interval_text(interval):>15} {status if status != 'differ' else 'DIFFER':>9} {quoted}")
    print(f"{met} of {total} constructs within +/-{TARGET:.0%} of EPCC; of the {total - met} others, {undecided} "
          f"undecided at this noise and {total - met - undecided} differ")
    missing = sorted(set(theirs) - set(ours))
    if missing:
        print(f"EPCC only (not measured by hybridperf-ompbench): {', '.join(missing)}")


if __name__ == "__main__":
    main()
