#!/usr/bin/env python3
"""hybridperf-mixbench's ping-pong against a plain MPI ping-pong, side by side, alternating runs.

The fidelity target (docs/mixbench.md): our one-way latency at 8 B and ping-pong bandwidth at 1 MiB
within ±15% of a plain MPI ping-pong's on the same placement. The plain reference is a 40-line C
program written for this script (below), compiled with the mpicc of the MPI library the kernel was
built with into a temporary directory. When OSU_DIR names a directory holding an osu_latency built
outside the project (e.g. OSU micro-benchmarks configured with CC=mpicc), it runs as a third column;
otherwise that column is skipped with a message. All three use OSU's iteration counts (10000 timed
and 100 warm-up iterations up to 8 KiB, 1000 and 10 above) and are launched by hybridperf's own
launcher on 2 ranks x 1 thread, so binding is identical; rounds alternate the programs so drift in
the machine's state spreads over all of them. Medians over the rounds are reported. Timings are
only meaningful on an otherwise idle machine; this is a benchmark, not a test.

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

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from hybridperf.launch import kernels, runner  # noqa: E402
from hybridperf.launch.lines import build_launch, Configuration  # noqa: E402
from hybridperf.launch.machine import local_machine  # noqa: E402

SMALL, LARGE = 8, 1 << 20
TARGET = 0.15

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
    proc = subprocess.run(line.command, env={**os.environ, **line.env}, capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"{program[0]} failed:\n{proc.stderr[-2000:]}")
    return proc.stdout


def run_ours(config: Configuration, work: Path, iters: int | None) -> Result:
    path = work / "ours.json"
    extra = ["--iters", str(iters), "--iters-large", str(iters), "--warmup", str(counts(SMALL, iters)[1]),
             "--warmup-large", str(counts(LARGE, iters)[1])] if iters else []
    outcome = runner.execute(runner.prepare("mixbench", config, ["--sizes", f"{SMALL},{LARGE}", *extra], path), path)
    if outcome.profile is None or outcome.returncode:
        sys.exit(f"hybridperf-mixbench failed: {outcome.stderr[-2000:]}")
    return {r["bytes"]: r["time"]["avg"] for r in outcome.profile["mixbench"]["tables"]["pingpong"]}


def run_plain(config: Configuration, flavor: str, exe: Path, iters: int | None) -> Result:
    args = [f"{m}:{counts(m, iters)[0]}:{counts(m, iters)[1]}" for m in (SMALL, LARGE)]
    out = launch(config, flavor, [str(exe), *args])
    return {int(size): float(t) for size, t in (line.split() for line in out.splitlines() if line.strip())}


def run_osu(config: Configuration, flavor: str, exe: Path, iters: int | None) -> Result:
    extra = ["-i", str(iters), "-x", str(counts(SMALL, iters)[1])] if iters else []
    out = launch(config, flavor, [str(exe), *extra])
    rows = {int(m[1]): float(m[2]) * 1e-6 for m in re.finditer(r"^(\d+)\s+([0-9.]+)\s*$", out, re.M)}
    return {m: rows[m] for m in (SMALL, LARGE)}


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="alternating rounds (medians reported)")
    parser.add_argument("--iters", type=int, default=None,
                        help="timed iterations at every size instead of OSU's 10000/1000 (smoke runs)")
    args = parser.parse_args()
    cores = local_machine().cores
    if cores < 2:
        sys.exit("a ping-pong needs 2 cores")
    config = Configuration(1, 2, 1, cores)
    flavor, mpicc = flavor_and_mpicc()
    osu = find_osu()
    results: dict[str, list[Result]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        plain = compile_reference(work, mpicc)
        for rep in range(args.repeats):
            print(f"round {rep + 1}/{args.repeats}", flush=True)
            results.setdefault("hybridperf-mixbench", []).append(run_ours(config, work, args.iters))
            results.setdefault("plain ping-pong", []).append(run_plain(config, flavor, plain, args.iters))
            if osu:
                results.setdefault("osu_latency", []).append(run_osu(config, flavor, osu, args.iters))

    median = {name: {m: statistics.median(r[m] for r in runs) for m in (SMALL, LARGE)}
              for name, runs in results.items()}
    print(f"\n2 ranks x 1 thread, {flavor}, medians of {args.repeats} alternating rounds")
    print(f"{'':22}{'latency 8 B (us)':>20}{'bandwidth 1 MiB (MB/s)':>26}")
    for name, t in median.items():
        print(f"{name:22}{1e6 * t[SMALL]:20.3f}{LARGE / t[LARGE] / 1e6:26.1f}")
    ours, plain_t = median["hybridperf-mixbench"], median["plain ping-pong"]
    lat = ours[SMALL] / plain_t[SMALL]
    bw = (LARGE / ours[LARGE]) / (LARGE / plain_t[LARGE])
    verdict = all(abs(x - 1) <= TARGET for x in (lat, bw))
    print(f"{'ours / plain':22}{lat:20.3f}{bw:26.3f}   target: within ±{TARGET:.0%}: "
          f"{'met' if verdict else 'NOT met'}")


if __name__ == "__main__":
    main()
