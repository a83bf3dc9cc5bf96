#!/usr/bin/env python3
"""What the per-call time histograms (kernels/common/hp_calltimes.h) cost: hybridperf-spmv with and without them.

The same kernel is built a second time with CMake's HYBRIDPERF_CALL_TIMES=OFF, outside the project (under
~/.cache/hybridperf-call-times, or HYBRIDPERF_CALL_TIMES_BUILDS), and the two run in random order in every round:
pure MPI on 2 ranks, n = 4 (64 rows a rank, so the loop is almost all MPI calls: the case where a per-call cost
shows most), 200,000 products, each rank making 3 MPI calls and timing 3 regions per product. The figure is the
loop time with the histograms over without them, per round (neighbours in time, so the machine's drift cancels),
against the target overhead <= 2% (bench/references.yaml). Wall-clock rounds on a shared machine swing by tens of
percent, so the cost is also counted exactly: the instructions of a single-rank hybridperf-md run (4,000 atoms,
100 steps; its halo messages to itself are MPI calls too) under callgrind, built both ways for AVX2 (valgrind does
not decode AVX-512), target <= 1%, with the instructions each timed call costs. Timings mean something only on an
otherwise idle machine; this is a benchmark, not a test.

    python bench/call_times_overhead.py [--repeats 15]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import common
from hybridperf.analysis.verdicts import Band
from hybridperf.launch import kernels
from hybridperf.launch.lines import Configuration, build_launch
from hybridperf.launch.machine import local_machine
from md_vs_lammps import instructions

BENCH = "call_times_overhead"
RANKS, N, CALLS = 2, 4, 200_000


MD_ARGS = ["-s", "10", "--steps", "100"]  # md_vs_lammps.instructions' run: 4,000 atoms


def build(where: Path, kernel: str, call_times: bool, *options: str) -> Path:
    """hybridperf-KERNEL built from this checkout, with or without the histograms; its path."""
    for step in (["cmake", "-S", str(common.REPO), "-B", str(where), "-DCMAKE_BUILD_TYPE=Release",
                  f"-DHYBRIDPERF_CALL_TIMES={'ON' if call_times else 'OFF'}", *options],
                 ["cmake", "--build", str(where), "--target", f"hybridperf-{kernel}"]):
        proc = subprocess.run(step, capture_output=True, text=True)
        if proc.returncode:
            sys.exit(f"could not build hybridperf-{kernel} in {where}:\n{(proc.stdout + proc.stderr)[-2000:]}")
    return where / "bin" / f"hybridperf-{kernel}"


def counted_instructions(builds: Path) -> dict[str, int]:
    """md's instructions under callgrind built with and without the histograms, and the calls they timed."""
    avx2 = ("-DHYBRIDPERF_NATIVE=OFF", "-DCMAKE_C_FLAGS=-march=x86-64-v3")
    binaries = {case: build(builds / f"md-{case}-avx2", "md", case == "with", *avx2) for case in ("with", "without")}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "md.json"
        subprocess.run([str(binaries["with"]), *MD_ARGS, "--profile", str(path)], check=True, capture_output=True,
                       env={**os.environ, "OMP_NUM_THREADS": "1"})
        p = json.loads(path.read_text())
    timed = sum(c.get("per_call", {}).get("count", 0) for c in (*p["regions"].values(), *p["comm"].values()))
    return {**{case: instructions(b, []) for case, b in binaries.items()}, "timed_calls": timed}


def loop_seconds(binary: Path, cores: int, work: Path) -> tuple[float, bool]:
    """The loop time (slowest rank) of one run, and whether its profile holds per-call times."""
    path = work / "profile.json"
    path.unlink(missing_ok=True)
    launch = build_launch(Configuration(1, RANKS, 1, cores), "openmpi",
                          [str(binary), "-n", str(N), "--calls", str(CALLS), "--mode", "mpi", "--profile", str(path)],
                          as_root=os.geteuid() == 0, launcher=kernels.launcher_for("openmpi"))
    common.run_checked(launch.command, launch.env, cwd=work, what=binary.name)
    p = json.loads(path.read_text())
    return p["regions"]["total"]["time"]["max"], "per_call" in p["comm"]["p2p"]


def figures(runs: list[dict], bands: dict[str, Band]) -> list[common.Row]:
    rows = common.overhead_rows(
        runs, bands, f"spmv {RANKS}x1, n={N}, {CALLS:,} products: loop time with per-call histograms / without "
        "(per round)", "md 1x1, 4,000 atoms, 100 steps: instructions with per-call histograms / without (callgrind)")
    counted = common.pooled(runs, "instructions")
    if rows and counted:
        c = counted[-1]
        rows += [common.Row(f"the same difference per timed call ({c['timed_calls']:,} calls and region stops; "
                            "with the end-of-run reductions and writing; for information)", f"{(c['with'] - c['without']) / c['timed_calls']:.1f} instructions",
                            "")]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args = common.arguments(parser, BENCH)
    ours = kernels.kernel_path("spmv")
    builds = Path(os.environ.get("HYBRIDPERF_CALL_TIMES_BUILDS", Path.home() / ".cache" / "hybridperf-call-times"))
    without = build(builds / "spmv-without", "spmv", False)
    cores = local_machine().cores
    run = common.start(BENCH, args)
    binaries = {"with": ours, "without": without}
    with tempfile.TemporaryDirectory() as tmp:
        for _, order in run.rounds(list(binaries)):
            for name in order:
                seconds, histograms = loop_seconds(binaries[name], cores, Path(tmp))
                if histograms != (name == "with"):
                    sys.exit(f"{binaries[name]}: per-call times {'missing' if name == 'with' else 'present'}: "
                             "is the build what its name says?")
                run.add(name, seconds)
    if shutil.which("valgrind"):
        run.add("instructions", counted_instructions(builds))
    else:
        run.notes.append("valgrind not found: the instructions were not counted")
    path = run.save({"with": str(ours), "without": str(without)})
    import tables

    tables.print_bench(BENCH, path)


if __name__ == "__main__":
    main()
