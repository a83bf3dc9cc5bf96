#!/usr/bin/env python3
"""hybridperf-mixbench's ping-pong against a plain MPI ping-pong, side by side, in randomised rounds.

The fidelity target (docs/mixbench.md): our one-way latency at 8 B and ping-pong bandwidth at 1 MiB
within ±15% of a plain MPI ping-pong's on the same placement. The plain reference is a 40-line C
program written for this script (below), compiled with the mpicc of the MPI library the kernel was
built with into a temporary directory. When OSU_DIR names a directory holding an osu_latency built
outside the project (e.g. OSU micro-benchmarks configured with CC=mpicc), it runs as a third column;
otherwise that column is skipped with a message. All three use OSU's iteration counts (10000 timed
and 100 warm-up iterations up to 8 KiB, 1000 and 10 above) and are launched by hybridperf's own
launcher on 2 ranks x 1 thread, so binding is identical; each round runs the programs in an order drawn
from the run's seed, so drift in the machine's state spreads over all of them. The ratios of the
medians over the rounds are judged within / differs / undecided by their 90% bootstrap intervals
(bench/references.yaml); every sample goes to a run file in bench/runs/. Timings are only meaningful
on an otherwise idle machine; this is a benchmark, not a test.

    python bench/mixbench_vs_pingpong.py [--repeats 5] [--iters N]    # --iters: fewer, for a smoke run
    OSU_DIR=/path/to/osu/pt2pt python bench/mixbench_vs_pingpong.py
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import common
from hybridperf.analysis.verdicts import Band, judge_ratio
from hybridperf.launch import kernels, runner
from hybridperf.launch.lines import Configuration, build_launch
from hybridperf.launch.machine import local_machine

BENCH = "mixbench_vs_pingpong"
SMALL, LARGE = 8, 1 << 20

# The reference: blocking send/receive between ranks 0 and 1, the same buffers each time, half the
# round trip averaged over the timed iterations. Arguments: SIZE:ITERS:WARMUP ...
PLAIN_PINGPONG = r"""
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int a = 1; a < argc; a++) {
        int size, iters, warmup;
        if (sscanf(argv[a], "%d:%d:%d", &size, &iters, &warmup) != 3) MPI_Abort(MPI_COMM_WORLD, 2);
        char *sbuf = malloc(size), *rbuf = malloc(size);
        memset(sbuf, 1, size);
        memset(rbuf, 0, size);
        double t0 = 0.0;
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = -warmup; i < iters; i++) {
            if (i == 0) t0 = MPI_Wtime();
            if (rank == 0) {
                MPI_Send(sbuf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(rbuf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(rbuf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(sbuf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
        }
        double seconds = MPI_Wtime() - t0;
        if (rank == 0) printf("%d %.12e\n", size, seconds / (2.0 * iters));
        free(sbuf);
        free(rbuf);
    }
    MPI_Finalize();
    return 0;
}
"""

Result = dict[int, float]  # size -> one-way seconds


def counts(size: int, iters: int | None) -> tuple[int, int]:
    """(timed, warm-up) iterations at a size: OSU's defaults, or --iters for both ranges."""
    if iters:
        return iters, max(1, iters // 100)
    return (10000, 100) if size <= 8192 else (1000, 10)


def flavor_and_mpicc() -> tuple[str, str]:
    info = kernels.build_info(kernels.kernel_path("mixbench"))
    flavor = kernels.mpi_flavor(info["build"]["mpi_library"])
    names = ["mpicc.openmpi", "mpicc"] if flavor == "openmpi" else ["mpicc.mpich", "mpicc"]
    for name in names:
        if shutil.which(name):
            return flavor, name
    sys.exit(f"no mpicc for {flavor} found ({', '.join(names)}): install the MPI development package")


def compile_reference(work: Path, mpicc: str) -> Path:
    source, exe = work / "plain_pingpong.c", work / "plain_pingpong"
    source.write_text(PLAIN_PINGPONG)
    subprocess.run([mpicc, "-O2", "-std=c11", str(source), "-o", str(exe)], check=True)
    return exe


def launch(config: Configuration, flavor: str, program: list[str]) -> str:
    line = build_launch(config, flavor, program, as_root=os.geteuid() == 0,  # type: ignore[arg-type]
                        launcher=kernels.launcher_for(flavor))
    return common.run_checked(line.command, line.env, what=program[0])


def run_ours(config: Configuration, work: Path, iters: int | None) -> Result:
    path = work / "ours.json"
    extra = ["--iters", str(iters), "--iters-large", str(iters), "--warmup", str(counts(SMALL, iters)[1]),
             "--warmup-large", str(counts(LARGE, iters)[1])] if iters else []
    outcome = runner.execute(runner.prepare("mixbench", config, ["--sizes", f"{SMALL},{LARGE}", *extra], path), path)
    if outcome.profile is None or outcome.returncode:
        sys.exit(f"hybridperf-mixbench failed: {outcome.stderr[-2000:]}")
    return {str(r["bytes"]): r["time"]["avg"] for r in outcome.profile["mixbench"]["tables"]["pingpong"]}


def run_plain(config: Configuration, flavor: str, exe: Path, iters: int | None) -> Result:
    args = [f"{m}:{counts(m, iters)[0]}:{counts(m, iters)[1]}" for m in (SMALL, LARGE)]
    out = launch(config, flavor, [str(exe), *args])
    return {size: float(t) for size, t in (line.split() for line in out.splitlines() if line.strip())}


def run_osu(config: Configuration, flavor: str, exe: Path, iters: int | None) -> Result:
    extra = ["-i", str(iters), "-x", str(counts(SMALL, iters)[1])] if iters else []
    out = launch(config, flavor, [str(exe), *extra])
    rows = {int(m[1]): float(m[2]) * 1e-6 for m in re.finditer(r"^(\d+)\s+([0-9.]+)\s*$", out, re.M)}
    return {str(m): rows[m] for m in (SMALL, LARGE)}


def find_osu() -> Path | None:
    root = os.environ.get("OSU_DIR")
    if not root:
        print("OSU_DIR not set: osu_latency column skipped (plain ping-pong only)")
        return None
    found = sorted(Path(root).rglob("osu_latency"))
    if not found:
        print(f"OSU_DIR={root} holds no osu_latency: column skipped")
        return None
    return found[0]


def figures(runs: list[dict], bands: dict[str, Band]) -> list[common.Row]:
    """Latency at 8 B and bandwidth at 1 MiB: ours against the plain ping-pong (osu_latency shown beside)."""
    def times(name: str, size: int) -> list[float]:
        return [r[str(size)] for r in common.pooled(runs, name)]

    def shown(name: str, size: int) -> str:
        values = times(name, size)
        if not values:
            return "–"
        return f"{1e6 * statistics.median(values):.3f} µs" if size == SMALL else \
            f"{size / statistics.median(values) / 1e6:,.0f} MB/s"

    rows = [common.Row("latency 8 B (one way)", shown("ours", SMALL), f"plain {shown('plain', SMALL)}",
                       judge_ratio(times("ours", SMALL), times("plain", SMALL), bands["latency"])),
            # bandwidth ours / plain = plain's time / ours
            common.Row("bandwidth 1 MiB", shown("ours", LARGE), f"plain {shown('plain', LARGE)}",
                       judge_ratio(times("plain", LARGE), times("ours", LARGE), bands["bandwidth"]))]
    if times("osu", SMALL):
        rows.append(common.Row("osu_latency, for information", "", f"{shown('osu', SMALL)}, {shown('osu', LARGE)}"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iters", type=int, default=None,
                        help="timed iterations at every size instead of OSU's 10000/1000 (smoke runs)")
    args = common.arguments(parser, BENCH)
    cores = local_machine().cores
    if cores < 2:
        sys.exit("a ping-pong needs 2 cores")
    config = Configuration(1, 2, 1, cores)
    flavor, mpicc = flavor_and_mpicc()
    osu = find_osu()
    run = common.start(BENCH, args)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        plain = compile_reference(work, mpicc)
        programs = {"ours": lambda: run_ours(config, work, args.iters),
                    "plain": lambda: run_plain(config, flavor, plain, args.iters)}
        if osu:
            programs["osu"] = lambda: run_osu(config, flavor, osu, args.iters)
        for _, order in run.rounds(list(programs)):
            for name in order:
                run.add(name, programs[name]())
    path = run.save({"MPI": kernels.launcher_version(flavor), "osu_latency": str(osu) if osu else None})
    import tables

    tables.print_bench(BENCH, path)


if __name__ == "__main__":
    main()
