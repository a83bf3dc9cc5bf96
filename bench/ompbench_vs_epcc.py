#!/usr/bin/env python3
"""hybridperf-ompbench against the EPCC OpenMP micro-benchmarks v4 (syncbench, schedbench), in randomised rounds.

Both programs run on this machine with the same OpenMP runtime, the same thread count (default 2),
the same launch line and binding (hybridperf's own launcher, one rank), and the same method settings
(--test-time, --delay-time, outer repetitions); each round runs one of each, in an order drawn from the
run's seed, so load and clock drift fall on both. The overhead of every construct both measure is
judged as the ratio ours/EPCC of the medians over the rounds against the target of ±25%
(bench/references.yaml): within / differs / undecided by its 90% bootstrap interval. An overhead whose
median is below NEAR_ZERO_US in either code (a lock or critical section of a few nanoseconds, which EPCC's
reference loop can report below zero) has no meaningful ratio: it is judged by the difference ours − EPCC
in µs against the declared `overhead_near_zero_us` band. Each process repeats every construct
`--outer-reps` times and reports their mean; what varies between rounds is the process (its placement
and the machine's state), so a figure that is undecided needs more rounds, not more repetitions inside. Every sample goes to a
run file in bench/runs/; bench/tables.py makes the tables. Timings are only meaningful on an otherwise
idle machine; this is a benchmark, not a test.

    EPCC_BENCH_DIR=/tmp/ref-epcc python bench/ompbench_vs_epcc.py [--repeats 9] [--threads 2] [--sched]
        [--test-time 1000] [--outer-reps 20] [--constructs PARALLEL,BARRIER,REDUCTION]
        [--series NAME --series-size K]

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
import sys
import tempfile
from pathlib import Path

import common
from hybridperf.analysis.verdicts import Band, judge_difference, judge_ratio
from hybridperf.launch import kernels, runner
from hybridperf.launch.lines import Configuration, build_launch
from hybridperf.launch.machine import local_machine

BENCH = "ompbench_vs_epcc"
SYNC = ["PARALLEL", "FOR", "PARALLEL_FOR", "BARRIER", "BARRIER_VAR", "SINGLE", "CRITICAL", "LOCK_CONTENDED",
        "LOCK_UNCONTENDED", "ORDERED", "ATOMIC", "ATOMIC_SEQCST", "REDUCTION"]
SCHED = ["STATIC", "STATICN", "DYNAMIC", "GUIDED"]
NEAR_ZERO_US = 0.05  # below this median overhead in either code, a construct is judged by its difference
EPCC_LINE = re.compile(r"^(.+?) overhead\s+= (\S+) microseconds \+/- (\S+)", re.MULTILINE)


def epcc_dir(programs: list[str]) -> Path | None:
    """The folder EPCC_BENCH_DIR names, when it holds every program; otherwise None, after saying what is missing."""
    value = common.require(os.environ.get("EPCC_BENCH_DIR"), "EPCC v4 (EPCC_BENCH_DIR)",
                           "Build EPCC v4 outside this project (docs/ompbench.md, 'Comparing with EPCC') and set "
                           f"EPCC_BENCH_DIR to the folder holding {', '.join(programs)}.")
    if value is None:
        return None
    path = Path(value)
    missing = [p for p in programs if not (path / p).is_file()]
    if missing:
        print(f"EPCC_BENCH_DIR={path} has no {', '.join(missing)}: skipped (build them there with make, see "
              "docs/ompbench.md).")
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


def overheads(text: str) -> dict[str, float]:
    """EPCC's overhead lines by our names: "COPYIN 729 overhead = ..." is COPYIN_729."""
    return {m[1].strip().replace(" ", "_"): float(m[2]) for m in EPCC_LINE.finditer(text)}


def run_epcc(config: Configuration, program: Path, args: list[str]) -> dict[str, float]:
    flavor = kernels.mpi_flavor(kernels.build_info(kernels.kernel_path("ompbench"))["build"]["mpi_library"])
    launch = build_launch(config, flavor, [str(program), *args], as_root=os.geteuid() == 0,  # type: ignore[arg-type]
                          launcher=kernels.launcher_for(flavor))
    out = common.run_checked(launch.command, launch.env, what=program.name)
    found = overheads(out)
    if not found:
        sys.exit(f"no overhead lines in {program.name}'s output:\n{out[-2000:]}")
    return found


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.4f} [{min(values):.4f}, {max(values):.4f}]"


def figures(runs: list[dict], bands: dict[str, Band]) -> list[common.Row]:
    """Per construct both measured: the overhead in µs (median over the rounds [min, max]) and its ratio, or for
    an overhead near zero, the difference."""
    ours, theirs = common.pooled(runs, "ours"), common.pooled(runs, "epcc")
    rows = []
    for name in dict.fromkeys(k for sample in ours for k in sample):
        mine, ref = [s[name] for s in ours if name in s], [s[name] for s in theirs if name in s]
        if not ref:
            continue
        if min(statistics.median(mine), statistics.median(ref)) < NEAR_ZERO_US:
            rows.append(common.Row(f"{name} overhead, µs: ours − EPCC", _spread(mine), _spread(ref),
                                   judge_difference(mine, ref, bands["overhead_near_zero_us"])))
        else:
            rows.append(common.Row(f"{name} overhead, µs", _spread(mine), _spread(ref),
                                   judge_ratio(mine, ref, bands["overhead"])))
    return rows


def add_method_options(parser: argparse.ArgumentParser) -> None:
    """The settings both programs share: threads and EPCC's method."""
    parser.add_argument("--threads", type=int, default=2, help="OpenMP threads")
    parser.add_argument("--test-time", type=float, default=1000.0, help="target sample time, us (both)")
    parser.add_argument("--delay-time", type=float, default=0.1, help="delay, us (both)")
    parser.add_argument("--outer-reps", type=int, default=20, help="outer repetitions (both)")


def method_args(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """The method's settings as (our options, EPCC's options)."""
    method = ["--test-time", f"{args.test_time:g}", "--delay-time", f"{args.delay_time:g}"]
    return (["--outer-reps", str(args.outer_reps), "--ref-sd-tol", "1e6", *method],
            ["--outer-repetitions", str(args.outer_reps), *method])


def compare(bench: str, args: argparse.Namespace, epcc: Path, ours_args: list[str],
            epcc_runs: list[tuple[Path, list[str]]]) -> None:
    """The rounds: ours once (ours_args) and EPCC's programs once each (epcc_runs), in the round's order; then the
    run file and its table."""
    cores = local_machine().cores
    config = Configuration(1, 1, args.threads, cores, oversubscribe=args.threads > cores)
    run = common.start(bench, args)
    with tempfile.TemporaryDirectory() as tmp:
        for _, order in run.rounds(["ours", "epcc"]):
            for who in order:
                if who == "ours":
                    run.add("ours", run_ours(config, ours_args, Path(tmp)))
                    continue
                found: dict[str, float] = {}
                for program, program_args in epcc_runs:
                    found.update(run_epcc(config, program, program_args))
                run.add("epcc", found)
    path = run.save({"EPCC v4": str(epcc), "OpenMP runtime":
                     kernels.build_info(kernels.kernel_path("ompbench"))["build"]["openmp_runtime"]})
    import tables

    tables.print_bench(bench, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_method_options(parser)
    parser.add_argument("--sched", action="store_true", help="also compare the schedules (schedbench)")
    parser.add_argument("--constructs", default="", help="comma-separated subset (EPCC runs once per name)")
    args = common.arguments(parser, BENCH)
    names = [n.strip().upper() for n in args.constructs.split(",") if n.strip()] or SYNC + (SCHED if args.sched else [])
    unknown = [n for n in names if n not in SYNC + SCHED]
    if unknown:
        parser.error(f"--constructs: unknown {', '.join(unknown)} (choose from {', '.join(SYNC + SCHED)})")
    sync_names, sched_names = [n for n in names if n in SYNC], [n for n in names if n in SCHED]
    epcc = epcc_dir(["syncbench"] * bool(sync_names) + ["schedbench"] * bool(sched_names))
    if epcc is None:
        return
    ours_method, epcc_method = method_args(args)
    epcc_runs = []  # (program, arguments) per EPCC invocation: all of syncbench at once unless a subset is asked
    if sync_names:
        subsets = [[]] if not args.constructs else [["--measureonly", n] for n in sync_names]
        epcc_runs += [(epcc / "syncbench", [*epcc_method, *subset]) for subset in subsets]
    epcc_runs += [(epcc / "schedbench", [*epcc_method, "--measureonly", n]) for n in sched_names]
    compare(BENCH, args, epcc, ["--constructs", ",".join(names), *ours_method], epcc_runs)


if __name__ == "__main__":
    main()
