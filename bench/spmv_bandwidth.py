#!/usr/bin/env python3
"""hybridperf-spmv's local product against the machine's memory bandwidth and against scipy.sparse.

In one invocation, alternating: STREAM triad (hybridperf-stream) at 1 and 2 threads, our local product
at 1 thread (serial mode, one n^3 brick) and 2 threads (hybrid mode, a 2n x n x n brick) for several n,
and scipy.sparse's CSR product (single-threaded) on a matrix of the same size and sparsity (the
27-point pattern as a Kronecker product of three tridiagonal matrices). Prints GB/s and the ratio to
triad (target: >= 0.85 for n large enough to leave cache) and the time per product against scipy's
(target: ours faster on one thread). Like STREAM, which reports its best trial, the comparison uses the
fastest of the calls (and of scipy's repeats); the mean call's rate is printed beside it.

    python bench/spmv_bandwidth.py [--sizes 40 80 120] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from hybridperf import profile  # noqa: E402
from hybridperf.launch import kernels  # noqa: E402


def run(kernel: str, args: list[str], threads: int, work: Path) -> dict:
    path = work / f"{kernel}.json"
    path.unlink(missing_ok=True)
    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "OMP_PLACES": "cores", "OMP_PROC_BIND": "close"}
    subprocess.run([str(kernels.kernel_path(kernel)), *args, "--profile", str(path)], env=env, check=True,
                   capture_output=True)
    return profile.load(path)


def ours(n: int, threads: int, calls: int, work: Path) -> dict[str, float]:
    """GB/s of the local product (mean over the calls and fastest call) and seconds of its fastest call."""
    mode = ["--mode", "serial", "--node-threads", "1"] if threads == 1 else ["--mode", "hybrid"]
    p = run("spmv", ["-n", str(n), "--calls", str(calls), *mode], threads, work)["spmv"]
    best = p["local_product_GBps_best"]
    return {"mean": p["local_product_GBps"], "best": best, "seconds": p["bytes_per_product"] / (1e9 * best)}


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[40, 80, 120])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()
    rates: dict[tuple, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for rep in range(args.repeats):
            print(f"round {rep + 1}/{args.repeats}", flush=True)
            for threads in (1, 2):
                rates.setdefault(("triad", threads), []).append(triad(threads, work))
                for n in args.sizes:
                    for key, value in ours(n, threads, args.calls, work).items():
                        rates.setdefault((key, threads, n), []).append(value)
            for n in args.sizes:
                rates.setdefault(("scipy", n), []).append(scipy_seconds(n, 5))
    med = {k: statistics.median(v) for k, v in rates.items()}
    print(f"\nmedians of {args.repeats} rounds; targets: local product >= 0.85 x triad out of cache; faster than scipy")
    print("GB/s of the fastest call against triad's best (STREAM's convention), and of the mean call")
    print(f"{'threads':>7} {'n':>5} {'rows':>9} {'best':>8} {'triad':>8} {'ratio':>7} {'mean':>8} {'ratio':>7}")
    for threads in (1, 2):
        triad_best = med[("triad", threads)]
        for n in args.sizes:
            rows = n**3 * (1 if threads == 1 else 2)
            best, mean = med[("best", threads, n)], med[("mean", threads, n)]
            print(f"{threads:7d} {n:5d} {rows:9d} {best:8.2f} {triad_best:8.2f} {best / triad_best:7.3f} "
                  f"{mean:8.2f} {mean / triad_best:7.3f}")
    print(f"\n{'n':>5} {'ours 1 thread [ms]':>19} {'scipy.sparse [ms]':>18} {'scipy / ours':>13}  (fastest call each)")
    for n in args.sizes:
        mine, theirs = med[("seconds", 1, n)], med[("scipy", n)]
        print(f"{n:5d} {1e3 * mine:19.3f} {1e3 * theirs:18.3f} {theirs / mine:13.2f}")


if __name__ == "__main__":
    main()
