#!/usr/bin/env python3
"""How long the simulator takes for one md point, on this machine's 2 cores, and how much memory it needs:
the kernel's plan, the traces and the three SMPI replays of `hybridperf simulate` (the run, without its
messages, without its sums), timed end to end. Issue 13's target: a 1,024-rank point in under 60 s; issue 26's:
16,384 ranks in under 10 minutes.

The points, on Merlin's description (8-core nodes; above its 256 nodes, the same description with as many nodes
as the point needs -- a Merlin-like machine that was never built):
- 1,024 ranks: 4 x 40^3 = 256,000 atoms, 100 steps with a rebuild every 20 and sums at 50 and 100 -- the shape
  of the standard LJ benchmark.
- 4,096 and 16,384 ranks: the thesis's small simulation, 4 x 160^3 = 16,384,000 atoms (1,000 atoms a rank at
  16,384), as a window of 20 steps: one neighbour-list period (its rebuild at step 20) with one global sum at its
  end. Every period of a run is alike, so a run of P periods takes P windows (`simulate validate`'s window).

Peak memory is the largest resident size of any process the bench waited for (the kernel's plan, smpirun) and of
the bench's own Python, over the whole run: the largest point's.

    .venv/bin/python bench/simulate_scale.py [--repeats N] [--points 1024 4096 16384]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

import common
from hybridperf import cluster
from hybridperf.analysis.verdicts import Band, judge_samples
from hybridperf.launch import kernels
from hybridperf.models.split import Split
from hybridperf.simulate import point
from hybridperf.simulate.plan import parse
from hybridperf.simulate.replay import simgrid_version
from hybridperf.simulate.study import thesis_costs

BENCH = "simulate_scale"
CORES = 8  # Merlin's cores per node: one rank per core


@dataclass(frozen=True)
class Point:
    ranks: int
    size: int  # fcc cells per side
    steps: int
    thermo: int  # a global sum every `thermo` steps (the kernel's --thermo)
    target: float  # wall seconds

    @property
    def case(self) -> str:
        return f"seconds {self.ranks} ranks"


POINTS = {p.ranks: p for p in (Point(1024, 40, 100, 50, 60.0), Point(4096, 160, 20, 20, 600.0),
                               Point(16384, 160, 20, 20, 600.0))}
PEAK_CHILD, PEAK_SELF = "peak MiB plan or smpirun", "peak MiB python"


def one_point(p: Point, work: Path) -> float:
    """Seconds, wall clock, from asking the kernel for its plan to the third replay's answer."""
    merlin = cluster.load("merlin")
    nodes = p.ranks // CORES
    spec = replace(merlin, nodes=max(merlin.nodes, nodes))
    start = time.perf_counter()
    plan = parse(kernels.plan("md", ("-s", str(p.size), "--steps", str(p.steps), "--thermo", str(p.thermo)), p.ranks))
    point.simulate(plan, thesis_costs(spec), spec, Split(nodes, CORES, 1), work)
    return time.perf_counter() - start


def peak_mib(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024  # kilobytes on Linux


def figures(runs: list[dict], bands: dict[str, Band]) -> list[common.Row]:
    rows = []
    for p in POINTS.values():
        seconds = common.pooled(runs, p.case)
        if seconds:
            what = f"{p.steps} steps" if p.ranks == 1024 else f"a {p.steps}-step window"
            rows.append(common.Row(f"one md point of {p.ranks} ranks, {what}: wall seconds (target < {p.target:.0f})",
                                   f"{statistics.median(seconds):.1f}", f"{p.target:.0f}",
                                   judge_samples(seconds, bands[f"seconds_{p.ranks}_ranks"])))
    for key, figure, band in ((PEAK_CHILD, "peak memory of the plan or smpirun, MiB", "peak_child_mib"),
                              (PEAK_SELF, "peak memory of the Python side, MiB", "peak_python_mib")):
        peaks = common.pooled(runs, key)
        if peaks:
            limit = bands[band].high
            rows.append(common.Row(f"{figure} (largest point; target < {limit:.0f})", f"{max(peaks):.0f}",
                                   f"{limit:.0f}", judge_samples(peaks, bands[band])))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, nargs="+", choices=sorted(POINTS), default=sorted(POINTS),
                        metavar="RANKS", help=f"which points ({', '.join(map(str, sorted(POINTS)))}; default: all)")
    args = common.arguments(parser, BENCH)
    run = common.start(BENCH, args)
    with tempfile.TemporaryDirectory() as tmp:
        for _, order in run.rounds([POINTS[r].case for r in args.points]):
            for name in order:
                p = next(p for p in POINTS.values() if p.case == name)
                run.add(name, one_point(p, Path(tmp) / str(p.ranks)))
            run.add(PEAK_CHILD, peak_mib(resource.RUSAGE_CHILDREN))
            run.add(PEAK_SELF, peak_mib(resource.RUSAGE_SELF))
    path = run.save({"simgrid": simgrid_version()})
    import tables

    tables.print_bench(BENCH, path)


if __name__ == "__main__":
    main()
