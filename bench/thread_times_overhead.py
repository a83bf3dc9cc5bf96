#!/usr/bin/env python3
"""What timing the threads in md's parallel regions costs (kernels/common/hp_omp_idle.h, the profile's openmp_idle):
hybridperf-md with and without `--no-thread-times`.

The same binary runs both ways, in random order in every round: 1 rank x 2 threads (the threads are what is timed),
lj/cut, 16,384 atoms (-s 16), 200 steps, launched by hybridperf's own launcher. An ordinary lj step opens 15
parallel regions (two integrations, the halo update's 12 packs and unpacks, the forces), each now reading the clock
twice on the master and twice on each thread. The figure is the loop time with the thread times over without them,
per round (neighbours in time, so the machine's drift cancels), against the target overhead <= 2%
(bench/references.yaml). As wall-clock rounds on a shared machine swing by tens of percent, the cost is also
counted exactly: the instructions of a 1 rank x 1 thread run (4,000 atoms, 100 steps) under callgrind, both ways,
target <= 1%, of md built for AVX2 (valgrind does not decode AVX-512) outside the project (under
~/.cache/hybridperf-thread-times, or HYBRIDPERF_THREAD_TIMES_BUILDS). Timings mean something only on an otherwise
idle machine; this is a benchmark, not a test.

    python bench/thread_times_overhead.py [--repeats 15]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
from pathlib import Path

import common
from hybridperf.analysis.verdicts import Band
from hybridperf.launch import kernels
from hybridperf.launch.lines import Configuration, build_launch
from hybridperf.launch.machine import local_machine
from call_times_overhead import build
from md_vs_lammps import instructions

BENCH = "thread_times_overhead"
RANKS, THREADS, SIZE, STEPS = 1, 2, 16, 200
CASES = {"with": [], "without": ["--no-thread-times"]}


def loop_seconds(binary: Path, cores: int, work: Path, extra: list[str]) -> tuple[float, bool]:
    """The loop time of one run, and whether its profile holds the threads' idle time."""
    path = work / "profile.json"
    path.unlink(missing_ok=True)
    launch = build_launch(Configuration(1, RANKS, THREADS, cores), "openmpi",
                          [str(binary), "-s", str(SIZE), "--steps", str(STEPS), "--profile", str(path), *extra],
                          as_root=os.geteuid() == 0, launcher=kernels.launcher_for("openmpi"))
    common.run_checked(launch.command, launch.env, cwd=work, what=binary.name)
    p = json.loads(path.read_text())
    return p["regions"]["total"]["time"]["max"], "openmp_idle" in p


def figures(runs: list[dict], bands: dict[str, Band]) -> list[common.Row]:
    return common.overhead_rows(
        runs, bands, f"md {RANKS}x{THREADS}, {4 * SIZE**3:,} atoms, {STEPS} steps: loop time with thread times / "
        "without (per round)", "md 1x1, 4,000 atoms, 100 steps: instructions with thread times / without (callgrind)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args = common.arguments(parser, BENCH)
    binary = kernels.kernel_path("md")
    cores = local_machine().cores
    run = common.start(BENCH, args)
    with tempfile.TemporaryDirectory() as tmp:
        for _, order in run.rounds(list(CASES)):
            for name in order:
                seconds, timed = loop_seconds(binary, cores, Path(tmp), CASES[name])
                if timed != (name == "with"):
                    raise SystemExit(f"{binary}: openmp_idle {'missing' if name == 'with' else 'present'} in the "
                                     "profile: does the binary know --no-thread-times?")
                run.add(name, seconds)
    if shutil.which("valgrind"):
        builds = Path(os.environ.get("HYBRIDPERF_THREAD_TIMES_BUILDS",
                                     Path.home() / ".cache" / "hybridperf-thread-times"))
        avx2 = build(builds / "md-avx2", "md", True, "-DHYBRIDPERF_NATIVE=OFF", "-DCMAKE_C_FLAGS=-march=x86-64-v3")
        run.add("instructions", {case: instructions(avx2, extra) for case, extra in CASES.items()})
    else:
        run.notes.append("valgrind not found: the instructions were not counted")
    path = run.save({"md": str(binary)})
    import tables

    tables.print_bench(BENCH, path)


if __name__ == "__main__":
    main()
