#!/usr/bin/env python3
"""The simulator against measurement on one node (issue 13's check): the node described as a one-node cluster
(`hybridperf cluster measure`: MPI ping-pong between two of its ranks, OpenMP's PARALLEL FOR at all its
cores), the studies studies/simulator-check-md.yaml and studies/simulator-check-spmv.yaml measured on it
(`hybridperf study`, its order randomised, 5 repeats), and every measured split of two or more cores
simulated with the compute model those same studies give (`--costs measured`: md's 1 x 1 run and its
T x 1 / 1 x T pairs; spmv's serial mode and its hybrid runs). Judged per split: simulated over each
measured repeat, the median within ±15% by its 90% bootstrap interval; the measured spread (max - min over
the median) says how steady the split was. A split marked (fitted) gave the compute model one of its
efficiencies; the others (md's R x T with both above 1, spmv's MPI mode) are predictions. The run file keeps every measured sample and simulated time.

    python bench/simulate_this_machine.py [--md-results DIR --spmv-results DIR] [--cluster FILE]

Without results directories it runs both studies here first; with them (measured elsewhere, e.g. on a
16-core node, and copied back) it only simulates. The order of the measurements is the study's.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import common
from hybridperf import cluster
from hybridperf.analysis.verdicts import Band, judge_samples
from hybridperf.launch import kernels
from hybridperf.models.split import Split
from hybridperf.simulate import point, study as simulation
from hybridperf.simulate.backend import measured_profiles
from hybridperf.simulate.plan import parse
from hybridperf.simulate.replay import simgrid_version
from hybridperf.store.db import Store

BENCH = "simulate_this_machine"
STUDIES = {"md": "studies/simulator-check-md.yaml", "spmv": "studies/simulator-check-spmv.yaml"}


def label(kernel: str, params: dict, ranks: int, threads: int) -> str:
    """The split's name, and whether the compute model was fitted to it: md's n(c) and e(T) come from its c x 1
    and 1 x T runs, spmv's e(c) from its hybrid runs; the other splits are predictions."""
    problem = f"-s {params['size']}" if kernel == "md" else f"n={params['n']} {params['mode']}"
    fitted = ranks == 1 or threads == 1 if kernel == "md" else params["mode"] == "hybrid"
    return f"{kernel} {problem} {ranks}x{threads}{' (fitted)' if fitted else ''}"


def simulate_store(run: common.Run, kernel: str, directory: Path, spec: cluster.ClusterSpec) -> None:
    """Every measured split of 2+ cores: its measured loop times and its simulated one, into the run file."""
    model = simulation.costs_from(measured_profiles(directory), kernel, spec, str(directory))
    with Store(directory) as store:
        measured: dict[tuple, list[float]] = {}
        for r in store.runs():
            if r["status"] == "ok" and r["backend"] != "simgrid" and r["ranks"] * r["threads"] >= 2:
                key = (tuple(sorted(r["params"].items())), r["ranks"], r["threads"])
                measured.setdefault(key, []).append(r["loop_time"])
    run.notes.append(f"{kernel}: measured in {directory}; compute model {model.describe()['sources']}")
    for (params, ranks, threads), times in sorted(measured.items()):
        options = dict(params)
        args = tuple(simulation._args(options))
        plan = parse(kernels.plan(kernel, args, ranks, ranks, threads))
        with tempfile.TemporaryDirectory() as work:
            result = point.simulate(plan, model, spec, Split(1, ranks, threads), Path(work))
        name = label(kernel, options, ranks, threads)
        print(f"{name}: simulated {result.seconds:.4g} s, measured median {statistics.median(times):.4g} s")
        run.samples[f"{name} measured"] = times
        run.samples[f"{name} simulated"] = [result.seconds]


def figures(runs: list[dict], bands: dict[str, Band]) -> list[common.Row]:
    rows = []
    for run in runs[-1:]:  # one node's check: a run is judged alone
        # where it was measured, which need not be where it was simulated (the run file's machine)
        node = next(n.split(": ", 2)[2].split(", intra-node")[0] for n in run["notes"] if n.startswith("cluster: "))
        for key in sorted(k for k in run["samples"] if k.endswith(" measured")):
            name = key.removesuffix(" measured")
            times, simulated = run["samples"][key], run["samples"][f"{name} simulated"][0]
            median = statistics.median(times)
            spread = (max(times) - min(times)) / median
            rows.append(common.Row(f"{node}: {name}: simulated / measured (spread {spread:.0%})",
                                   f"{simulated:.4g} s", f"{median:.4g} s",
                                   judge_samples([simulated / t for t in times], bands["simulated_over_measured"])))
    return rows


def measure_here(kernel: str, results: Path) -> None:
    subprocess.run([sys.executable, "-m", "hybridperf", "study", STUDIES[kernel], "--results", str(results),
                    "--no-report"], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--md-results", type=Path, help="a store of studies/simulator-check-md.yaml's runs")
    parser.add_argument("--spmv-results", type=Path, help="a store of studies/simulator-check-spmv.yaml's runs")
    parser.add_argument("--cluster", default=cluster.THIS_MACHINE,
                        help="the node's description (default: this-machine, measured if absent)")
    args = common.arguments(parser, BENCH)
    if args.cluster == cluster.THIS_MACHINE and cluster.THIS_MACHINE not in cluster.names():
        subprocess.run([sys.executable, "-m", "hybridperf", "cluster", "measure"], check=True)
    spec = cluster.load(args.cluster)
    run = common.start(BENCH, args)
    run.notes.append(f"cluster: {args.cluster}: {spec.name}, intra-node {spec.intra_latency.text} "
                     f"{spec.intra_bandwidth.text}, fork/join {spec.fork_join.text} at {spec.fork_join_threads}")
    with tempfile.TemporaryDirectory() as tmp:
        for kernel in ("md", "spmv"):
            directory = getattr(args, f"{kernel}_results") or Path(tmp) / kernel
            if not (directory / "results.db").exists():
                measure_here(kernel, directory)
            simulate_store(run, kernel, directory, spec)
    path = run.save({"simgrid": simgrid_version()})
    import tables

    tables.print_bench(BENCH, path)


if __name__ == "__main__":
    main()
