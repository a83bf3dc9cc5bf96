#!/usr/bin/env python3
"""hybridperf-spmv's local product against the machine's memory bandwidth and against scipy.sparse.

In randomised rounds: STREAM triad (hybridperf-stream) at 1 and 2 threads, our local product at 1 thread
(serial mode, one n^3 brick) and 2 threads (hybrid mode, a 2n x n x n brick) for several n, and
scipy.sparse's CSR product (single-threaded) on a matrix of the same size and sparsity (the 27-point
pattern as a Kronecker product of three tridiagonal matrices). Like STREAM, which reports its best
trial, the comparison takes the fastest of the product's calls (and of scipy's repeats); the mean
call's rate is shown beside it. Targets (bench/references.yaml), judged where the matrix is at least
four times the largest cache: the product's GB/s at least 0.85 of triad's, and ours faster than scipy
on one thread. Every sample goes to a run file in bench/runs/.

    python bench/spmv_bandwidth.py [--sizes 40 80 120] [--repeats 5] [--series NAME --series-size K]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy
import scipy.sparse as sp

import common
from hybridperf import profile
from hybridperf.analysis.verdicts import Band, judge_ratio
from hybridperf.launch import kernels
from hybridperf.launch.machine import local_machine

BENCH = "spmv_bandwidth"
OUT_OF_CACHE = 4  # a matrix this many times the largest cache is read from memory


def run(kernel: str, args: list[str], threads: int, work: Path) -> dict:
    path = work / f"{kernel}.json"
    path.unlink(missing_ok=True)
    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "OMP_PLACES": "cores", "OMP_PROC_BIND": "close"}
    subprocess.run([str(kernels.kernel_path(kernel)), *args, "--profile", str(path)], env=env, check=True,
                   capture_output=True)
    return profile.load(path)


def ours(n: int, threads: int, calls: int, work: Path) -> dict[str, float]:
    """GB/s of the local product (mean over the calls and fastest call), its bytes, and its fastest call's seconds."""
    mode = ["--mode", "serial", "--node-threads", "1"] if threads == 1 else ["--mode", "hybrid"]
    p = run("spmv", ["-n", str(n), "--calls", str(calls), *mode], threads, work)["spmv"]
    best = p["local_product_GBps_best"]
    return {"mean": p["local_product_GBps"], "best": best, "bytes": p["bytes_per_product"],
            "seconds": p["bytes_per_product"] / (1e9 * best)}


def triad(threads: int, work: Path) -> float:
    return run("stream", ["-s", "40", "-t", "5"], threads, work)["stream"]["bandwidth_GBps"]["triad"]


def scipy_seconds(n: int, repeats: int) -> float:
    """Best time of one CSR product with the 27-point pattern on an n^3 grid."""
    t = sp.diags([1.0, 1.0, 1.0], [-1, 0, 1], shape=(n, n), format="csr")
    a = sp.kron(sp.kron(t, t, format="csr"), t, format="csr")
    x = np.random.default_rng(1).random(a.shape[0])
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        a @ x
        best = min(best, time.perf_counter() - start)
    return best


def figures(runs: list[dict], bands: dict[str, Band]) -> list[common.Row]:
    cache = max(common.pooled(runs, "largest cache bytes") or [0])
    rows = []
    sizes = sorted({int(k.split()[2]) for run in runs for k in run["samples"] if k.startswith("ours ")})
    for threads in (1, 2):
        best_triad = common.pooled(runs, f"triad {threads}")
        for n in sizes:
            product = common.pooled(runs, f"ours {threads} {n}")
            if not product:
                continue
            judged = product[0]["bytes"] >= OUT_OF_CACHE * cache
            where = "" if judged else " (in cache: shown, not judged)"
            best = [p["best"] for p in product]
            mean = statistics.median(p["mean"] for p in product)
            rows.append(common.Row(f"{threads} thread(s), n = {n}: fastest call / triad{where}",
                                   f"{statistics.median(best):.2f} GB/s (mean call {mean:.2f})",
                                   f"triad {statistics.median(best_triad):.2f} GB/s",
                                   judge_ratio(best, best_triad, bands["product_over_triad"]) if judged else None))
    for n in sizes:
        product = common.pooled(runs, f"ours 1 {n}")
        scipy = common.pooled(runs, f"scipy {n}")
        judged = product[0]["bytes"] >= OUT_OF_CACHE * cache
        mine = [p["seconds"] for p in product]
        rows.append(common.Row(f"n = {n}, 1 thread: scipy.sparse time / ours{'' if judged else ' (in cache)'}",
                               f"{1e3 * statistics.median(mine):.3f} ms", f"scipy {1e3 * statistics.median(scipy):.3f} ms",
                               judge_ratio(scipy, mine, bands["scipy_over_ours"]) if judged else None))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[40, 80, 120])
    parser.add_argument("--calls", type=int, default=20)
    args = common.arguments(parser, BENCH)
    caches = [c.size_bytes * c.count for c in local_machine().caches if c.kind != "instruction"]
    run = common.start(BENCH, args)
    run.add("largest cache bytes", max(caches) if caches else 0)
    cases = {f"triad {t}": (lambda t=t: triad(t, work)) for t in (1, 2)}
    cases |= {f"ours {t} {n}": (lambda t=t, n=n: ours(n, t, args.calls, work)) for t in (1, 2) for n in args.sizes}
    cases |= {f"scipy {n}": (lambda n=n: scipy_seconds(n, 5)) for n in args.sizes}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for _, order in run.rounds(list(cases)):
            for name in order:
                run.add(name, cases[name]())
    path = run.save({"scipy": scipy.__version__, "numpy": np.__version__})
    import tables

    tables.print_bench(BENCH, path)


if __name__ == "__main__":
    main()
