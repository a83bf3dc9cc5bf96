#!/usr/bin/env python3
"""How long the simulator takes for one md point of 1,024 ranks, on this machine's 2 cores (issue 13's target:
under 60 s): the kernel's plan, the traces and the three SMPI replays of `hybridperf simulate` (the run, without
its messages, without its sums), timed end to end in each round.

The point: 4 x 40^3 = 256,000 atoms on 1,024 ranks (8 x 8 x 16 bricks) of Merlin's 8-core nodes, 100 steps
with a rebuild every 20 and sums at 50 and 100 -- the shape of the standard LJ benchmark at 1,024 ranks.

    .venv/bin/python bench/simulate_scale.py [--repeats N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
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
RANKS, SIZE, STEPS = 1024, 40, 100


def one_point(work: Path) -> float:
    """Seconds, wall clock, from asking the kernel for its plan to the third replay's answer."""
    merlin = cluster.load("merlin")
    start = time.perf_counter()
    plan = parse(kernels.plan("md", ("-s", str(SIZE), "--steps", str(STEPS)), RANKS))
    point.simulate(plan, thesis_costs(merlin), merlin, Split(RANKS // 8, 8, 1), work)
    return time.perf_counter() - start


def figures(runs: list[dict], bands: dict[str, Band]) -> list[common.Row]:
    seconds = common.pooled(runs, "seconds 1024 ranks")
    if not seconds:
        return []
    return [common.Row(f"one md point of {RANKS} ranks, {STEPS} steps: wall seconds (target < 60)",
                       f"{statistics.median(seconds):.1f}", "60", judge_samples(seconds, bands["seconds_1024_ranks"]))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args = common.arguments(parser, BENCH)
    run = common.start(BENCH, args)
    with tempfile.TemporaryDirectory() as tmp:
        for _, order in run.rounds(["seconds 1024 ranks"]):
            for name in order:
                run.add(name, one_point(Path(tmp)))
    path = run.save({"simgrid": simgrid_version()})
    import tables

    tables.print_bench(BENCH, path)


if __name__ == "__main__":
    main()
