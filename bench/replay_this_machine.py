#!/usr/bin/env python3
"""A traced program replayed by SimGrid on this machine's own description, and on three clusters (issue 27 item 4):
our md (-s 12, 200 steps) and LAMMPS's in.lj (1 cell a side, 100 steps), 2 ranks x 1 thread here, each run under
libhybridperf-mpi.so writing its SimGrid traces (docs/pmpi.md#traces), then replayed as `hybridperf simulate SPEC
--cluster NAME` replays a traced study's runs (simulate/app_replay.py): on `hybridperf cluster measure`'s
description of this machine (its measured ping-pong; both ranks on its one node), on that node's ideal network, and
on Merlin, CSEEM64T's Infinipath and CSEEM64T's GigE, a rank per node so that every message crosses the network.

Judged: the replay on this machine over the run's measured window (MPI_Init to MPI_Finalize, the library's clock),
per round, within ±10% (bench/references.yaml): the replay keeps each burst's measured seconds, so what it can miss
is the time inside the MPI calls. The clusters' replayed / measured and POP's transfer and serialization efficiency
(the ideal network's time over the network's; the busiest rank's compute over the ideal network's time) are shown for
information. The programs run in random order in every round. Timings mean something only on an otherwise idle
machine (beside other jobs a rank descheduled inside a call makes its peer wait, which no replay sees: 0.69 was seen
in CI); this is a benchmark, not a test.

    python bench/replay_this_machine.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import common
from hybridperf import cluster
from hybridperf.analysis.verdicts import Band, judge_samples
from hybridperf.app.launch import AppError, launch_of
from hybridperf.app.spec import parse_app
from hybridperf.launch import kernels
from hybridperf.launch.lines import Configuration
from hybridperf.simulate import app_replay

BENCH = "replay_this_machine"
RANKS = 2
PROGRAMS = {
    "md": lambda: [str(kernels.kernel_path("md")), "-s", "12", "--steps", "200"],
    "lammps": lambda: ["lmp", "-in", str(common.REPO / "studies" / "inputs" / "lj-melt.lmp"), "-var", "cells", "1",
                       "-var", "steps", "100", "-log", "none"],
}
CLUSTERS = ("merlin", "cseem64t-infinipath", "cseem64t-gige")  # a rank per node
HERE = "this-machine"


def traced_run(command: list[str], folder: Path) -> tuple[float, list[Path]]:
    """One run of the program at 2 ranks launched as a `trace: true` app study launches it (app.launch): the
    counting library preloaded, tracing. Its measured window (the slowest rank's MPI_Init to MPI_Finalize) and its
    ranks' trace files."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)

    def refused(_path: tuple, message: str) -> Exception:
        return SystemExit(message)

    # a spec needs a figure; none is read here (the measured window is the library's)
    app = parse_app({"command": command, "figures": {"unread": "(?P<value>x)"}, "trace": True}, set(), refused)
    try:
        how = launch_of(app, Configuration(1, RANKS, 1, RANKS), {}, folder / "profile.json", trace=folder / "trace")
    except AppError as err:
        sys.exit(str(err))
    common.run_checked(how.launch.command, how.launch.env, cwd=folder, what=Path(how.program).name)
    profile = json.loads((folder / "profile.json").read_text())
    if profile["trace"].get("truncated") or profile["trace"]["untraced"].get("thread"):
        sys.exit(f"{how.program}: its trace is not whole: {profile['trace']['summary']}")
    return max(profile["rank_times"]["elapsed"]), sorted((folder / "trace").glob("rank-*.txt"))


def this_machine(home: Path) -> cluster.ClusterSpec:
    """This machine described by `hybridperf cluster measure`, in a data folder of the bench's own."""
    subprocess.run([sys.executable, "-m", "hybridperf", "cluster", "measure"], check=True, capture_output=True,
                   env={**os.environ, "XDG_DATA_HOME": str(home)})
    return cluster.load(str(home / "hybridperf" / "clusters" / f"{HERE}.yaml"))


def replays(files: list[Path], specs: dict[str, cluster.ClusterSpec], work: Path) -> dict[str, dict[str, float]]:
    """Each cluster's replay of the traces: seconds, and the two efficiencies."""
    out = {}
    for name, spec in specs.items():
        per_node = RANKS if name == HERE else 1
        result = app_replay.replay_run(files, spec, per_node, 1.0, work / name)
        out[name] = {"seconds": result.seconds, "transfer": result.transfer_efficiency,
                     "serialization": result.serialization_efficiency}
    return out


def figures(runs: list[dict], bands: dict[str, Band]) -> list[common.Row]:
    rows = []
    for program in PROGRAMS:
        measured = common.pooled(runs, f"{program}.measured")
        replayed = common.pooled(runs, f"{program}.replayed")
        if not measured:
            continue
        window = f"{statistics.median(measured):.3f} s measured"
        ideal = [r[HERE]["seconds"] * r[HERE]["transfer"] for r in replayed]  # transfer = ideal / network time
        ratios = [s / m for s, m in zip(ideal, measured)]
        rows.append(common.Row(f"{program} 2x1 replayed on an ideal network (no latency, no bandwidth limit): "
                               "replayed / measured", f"{statistics.median(ideal):.3f} s (ratio "
                                                      f"{statistics.median(ratios):.3f})", window))
        for name in (HERE, *CLUSTERS):
            seconds = [r[name]["seconds"] for r in replayed]
            ratios = [s / m for s, m in zip(seconds, measured)]
            transfer = statistics.median(r[name]["transfer"] for r in replayed)
            serial = statistics.median(r[name]["serialization"] for r in replayed)
            where = "this machine, its ping-pong" if name == HERE else f"{name}, a rank per node"
            figure = (f"{program} 2x1 replayed on {where}: replayed / measured (transfer {transfer:.3f}, "
                      f"serialization {serial:.3f})")
            judged = judge_samples(ratios, bands["replayed_over_measured"]) if name == HERE else None
            rows.append(common.Row(figure, f"{statistics.median(seconds):.3f} s (ratio "
                                           f"{statistics.median(ratios):.3f})", window, judged))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args = common.arguments(parser, BENCH)
    if shutil.which("smpirun") is None:
        sys.exit("SimGrid's smpirun is not installed: scripts/bootstrap.sh installs it")
    programs = [p for p in PROGRAMS if p != "lammps" or shutil.which("lmp")]
    run = common.start(BENCH, args)
    if "lammps" not in programs:
        run.notes.append("LAMMPS (lmp) not found: only md was replayed")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        specs = {HERE: this_machine(work / "xdg"), **{name: cluster.load(name) for name in CLUSTERS}}
        run.notes.append(f"{HERE}: {specs[HERE].name}, measured by `hybridperf cluster measure` before the rounds")
        for k, order in run.rounds(programs):
            for program in order:
                measured, files = traced_run(PROGRAMS[program](), work / f"{program}-{k}")
                run.add(f"{program}.measured", measured)
                run.add(f"{program}.replayed", replays(files, specs, work / f"{program}-{k}-replays"))
    path = run.save({"md": str(kernels.kernel_path("md")), "lammps": shutil.which("lmp")})
    import tables

    tables.print_bench(BENCH, path)


if __name__ == "__main__":
    main()
