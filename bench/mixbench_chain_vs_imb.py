#!/usr/bin/env python3
"""hybridperf-mixbench's chain against the Intel MPI Benchmarks' IMB-MPI1 Sendrecv, side by side, in randomised rounds.

The fidelity target (docs/mixbench.md): our chain's 0-byte time and its bandwidth at 64 KiB and 1 MiB within
±15% of IMB-MPI1 Sendrecv's on the same ranks. Both are the same periodic chain (rank r sends to r + 1 and
receives from r - 1 with MPI_Sendrecv), timed as IMB times it: t_max, the slowest rank's time per iteration,
and 2 x bytes / t_max as the bandwidth. Both run the same iterations at every size (IMB with -iter N
-iter_policy off) after IMB's warm-up of a tenth of them (at least 10), on --ranks ranks x 1 thread launched
by hybridperf's own launcher, so binding is identical; IMB with -npmin RANKS runs the world's chain only.
Each round runs the two in an order drawn from the run's seed. The ratios of the medians over the rounds
are judged within / differs / undecided by their 90% bootstrap intervals (bench/references.yaml); every
sample goes to a run file in bench/runs/. Our MPI_Send + MPI_Irecv + MPI_Wait loop is shown beside, for
information (IMB has no such loop). Timings are only meaningful on an otherwise idle machine.

IMB-MPI1 is built outside the project (https://github.com/intel/mpi-benchmarks, `make IMB-MPI1` with the
MPI the kernel was built with); HYBRIDPERF_IMB names the executable or the folder holding it:

    HYBRIDPERF_IMB=~/.cache/imb/src/IMB-MPI1 python bench/mixbench_chain_vs_imb.py [--repeats 10] [--iters N]
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
from hybridperf.analysis.verdicts import Band, judge_ratio
from hybridperf.launch import kernels, runner
from hybridperf.launch.lines import Configuration, build_launch
from hybridperf.launch.machine import local_machine

BENCH = "mixbench_chain_vs_imb"
SIZES = (0, 65536, 1 << 20)
ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s*$", re.M)

Result = dict[str, float]  # size -> t_max, seconds per iteration


def find_imb() -> Path | None:
    value = common.require(os.environ.get("HYBRIDPERF_IMB"), "IMB-MPI1 (HYBRIDPERF_IMB)",
                           "Build the Intel MPI Benchmarks outside this project (make IMB-MPI1, docs/mixbench.md) "
                           "and set HYBRIDPERF_IMB to IMB-MPI1 or the folder holding it.")
    if value is None:
        return None
    path = Path(value).expanduser()
    path = path / "IMB-MPI1" if path.is_dir() else path
    if not (path.is_file() and os.access(path, os.X_OK)):
        print(f"HYBRIDPERF_IMB={value} is not IMB-MPI1 nor a folder holding it: skipped.")
        return None
    return path


def warmup(iters: int) -> int:
    return max(10, iters // 10)  # IMB's: a tenth of the iterations, at least 10


def run_ours(config: Configuration, work: Path, iters: int) -> tuple[Result, Result]:
    """(Sendrecv, Send + Irecv + Wait): the world's chain rows."""
    path = work / "ours.json"
    sizes = ",".join(str(m) for m in SIZES if m)  # the chain adds 0 bytes itself
    args = ["--bench", "chain", "--sizes", sizes, "--iters", str(iters), "--iters-large", str(iters),
            "--warmup", str(warmup(iters)), "--warmup-large", str(warmup(iters))]
    outcome = runner.execute(runner.prepare("mixbench", config, args, path), path)
    if outcome.profile is None or outcome.returncode:
        sys.exit(f"hybridperf-mixbench failed: {outcome.stderr[-2000:]}")
    tables = outcome.profile["mixbench"]["tables"]

    def world(loop: str) -> Result:
        return {str(r["bytes"]): r["time"]["max"] for r in tables[f"chain_{loop}"] if r["ranks"] == config.ranks}

    return world("sendrecv"), world("send_irecv_wait")


def run_imb(config: Configuration, flavor: str, imb: Path, work: Path, iters: int) -> Result:
    lengths = work / "msglen.txt"
    lengths.write_text("".join(f"{m}\n" for m in SIZES))
    program = [str(imb), "Sendrecv", "-npmin", str(config.ranks), "-iter", str(iters), "-iter_policy", "off",
               "-msglen", str(lengths)]
    line = build_launch(config, flavor, program, as_root=os.geteuid() == 0,  # type: ignore[arg-type]
                        launcher=kernels.launcher_for(flavor))
    out = common.run_checked(line.command, line.env, cwd=work, what="IMB-MPI1")
    rows = {m[1]: float(m[4]) * 1e-6 for m in ROW.finditer(out)}  # t_max, usec
    missing = [str(m) for m in SIZES if str(m) not in rows]
    if missing:
        sys.exit(f"IMB-MPI1 printed no Sendrecv row for {', '.join(missing)} bytes:\n{out[-2000:]}")
    return {str(m): rows[str(m)] for m in SIZES}


def figures(runs: list[dict], bands: dict[str, Band]) -> list[common.Row]:
    """0-byte time and bandwidth at 64 KiB and 1 MiB: ours against IMB (our Send + Irecv + Wait beside)."""
    def times(name: str, size: int) -> list[float]:
        return [r[str(size)] for r in common.pooled(runs, name)]

    def shown(name: str, size: int) -> str:
        t = statistics.median(times(name, size))
        return f"{1e6 * t:.3f} µs" if size == 0 else f"{2 * size / t / 1e6:,.0f} MB/s"

    rows = [common.Row("chain 0 B, t_max", shown("ours", 0), f"IMB {shown('imb', 0)}",
                       judge_ratio(times("ours", 0), times("imb", 0), bands["latency"]))]
    for size in SIZES[1:]:
        # bandwidth ours / IMB = IMB's time / ours
        rows.append(common.Row(f"chain bandwidth {size // 1024:,} KiB", shown("ours", size),
                               f"IMB {shown('imb', size)}",
                               judge_ratio(times("imb", size), times("ours", size), bands["bandwidth"])))
    split = ", ".join(shown("ours_send_irecv_wait", m) for m in SIZES)
    rows.append(common.Row("our MPI_Irecv + MPI_Send + MPI_Wait, for information", "", split))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ranks", type=int, default=2, help="ranks of the chain, one per core (default: 2)")
    parser.add_argument("--iters", type=int, default=1000, help="timed iterations at every size, both (default: "
                                                                "1000, IMB's)")
    args = common.arguments(parser, BENCH)
    if args.ranks < 2 or args.iters < 1:
        parser.error("--ranks is at least 2 and --iters at least 1")
    imb = find_imb()
    if imb is None:
        return
    cores = local_machine().cores
    if args.ranks > cores:
        sys.exit(f"--ranks {args.ranks}: this machine has {cores} cores, and the chain runs one rank per core")
    config = Configuration(1, args.ranks, 1, cores)
    flavor = kernels.mpi_flavor(kernels.build_info(kernels.kernel_path("mixbench"))["build"]["mpi_library"])
    run = common.start(BENCH, args)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for _, order in run.rounds(["ours", "imb"]):
            for who in order:
                if who == "imb":
                    run.add("imb", run_imb(config, flavor, imb, work, args.iters))
                    continue
                sendrecv, split = run_ours(config, work, args.iters)
                run.add("ours", sendrecv)
                run.add("ours_send_irecv_wait", split)
    path = run.save({"MPI": kernels.launcher_version(flavor), "IMB-MPI1": str(imb)})
    import tables

    tables.print_bench(BENCH, path)


if __name__ == "__main__":
    main()
