#!/usr/bin/env python3
"""What libhybridperf-mpi.so costs an unmodified application: LAMMPS's standard LJ benchmark with and without it.

Debian's LAMMPS (`lmp`, Open MPI) runs in.lj -- lj/cut, fcc at density 0.8442, 32,000 atoms, 100 steps (the input
of bench/md_vs_lammps.py) -- at 2 ranks x 1 thread, launched by hybridperf's own launcher, once plain and once with
the library preloaded and writing its profile; the two cases run in random order in every round. The figure is
LAMMPS's own loop time with the library over without it, per round (the runs of a round are neighbours in time,
so the machine's drift cancels), against the target overhead <= 1% (bench/references.yaml); and a third case, the
library also writing the run's traces (HYBRIDPERF_MPI_TRACE, docs/pmpi.md#traces), over counting only, <= 2%. The library's counts
of the last run are kept as a note, to show it counted. Timings mean something only on an otherwise idle machine;
this is a benchmark, not a test.

    python bench/pmpi_overhead.py [--repeats 15]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path

import common
from hybridperf.analysis.verdicts import Band, judge_samples
from hybridperf.launch import kernels, pmpi
from hybridperf.launch.lines import Configuration, build_launch
from hybridperf.launch.machine import local_machine
from md_vs_lammps import LAMMPS_INPUT, debian_peers, version

BENCH = "pmpi_overhead"
SIZE, STEPS, RANKS, THREADS = 20, 100, 2, 1  # 4 x 20^3 = 32,000 atoms


def loop_seconds(lmp: str, script: Path, cores: int, work: Path, extra: dict[str, str]) -> float:
    """LAMMPS's "Loop time" of one run (its set-up and MPI_Finalize, where the library writes, excluded)."""
    launch = build_launch(Configuration(1, RANKS, THREADS, cores), "openmpi",
                          [lmp, "-nocite", "-in", str(script), "-log", "none"], as_root=os.geteuid() == 0,
                          launcher=kernels.launcher_for("openmpi"), extra_env=extra)
    out = common.run_checked(launch.command, launch.env, cwd=work, what="LAMMPS")
    match = re.search(r"Loop time of ([0-9.eE+-]+) on \d+ procs for \d+ steps with (\d+) atoms", out)
    if not match or int(match[2]) != 4 * SIZE**3:
        sys.exit(f"could not read LAMMPS's loop time for {4 * SIZE**3} atoms:\n{out[-2000:]}")
    return float(match[1])


def figures(runs: list[dict], bands: dict[str, Band]) -> list[common.Row]:
    plain, counted = common.pooled(runs, "without"), common.pooled(runs, "with")
    if not plain or not counted:
        return []
    ratios = [w / p for w, p in zip(counted, plain)]
    rows = [common.Row(f"LAMMPS in.lj, {4 * SIZE**3:,} atoms, {RANKS}x{THREADS}: loop time with the library / without "
                       "(per round)", f"{statistics.median(counted):.3f} s", f"{statistics.median(plain):.3f} s",
                       judge_samples(ratios, bands["overhead"]))]
    traced = common.pooled(runs, "traced")  # run files from before traces existed have none
    if traced:
        rows.append(common.Row(f"LAMMPS in.lj, {4 * SIZE**3:,} atoms, {RANKS}x{THREADS}: loop time with the library "
                               "writing traces (HYBRIDPERF_MPI_TRACE) / counting only (per round)",
                               f"{statistics.median(traced):.3f} s", f"{statistics.median(counted):.3f} s",
                               judge_samples([t / c for t, c in zip(traced, counted)], bands["trace_overhead"])))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args = common.arguments(parser, BENCH)
    peers = [p for p in debian_peers() if not p.suffix]
    if not peers:
        sys.exit("Debian's LAMMPS (lmp) is needed: apt-get install lammps")
    lmp = peers[0].lmp
    library = pmpi.library_for(Path(lmp))
    if library.path is None:
        sys.exit(f"no counting library for {lmp}: {library.reason}")
    cores = local_machine().cores
    run = common.start(BENCH, args)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        script = work / "in.lj"
        script.write_text(LAMMPS_INPUT.format(n=SIZE, steps=STEPS))
        counts = work / "counts.json"
        counting = {"LD_PRELOAD": str(library.path), "HYBRIDPERF_MPI_PROFILE": str(counts)}
        cases = {"without": {}, "with": counting, "traced": {**counting, "HYBRIDPERF_MPI_TRACE": str(work / "trace")}}
        for _, order in run.rounds(list(cases)):
            for name in order:
                run.add(name, loop_seconds(lmp, script, cores, work, cases[name]))
        comm = json.loads(counts.read_text())["comm"]
        run.notes.append("the library counted, per run: " + ", ".join(
            f"{cls} {c['calls']:,} calls, {c['messages']:,} messages, {c['bytes']:,} bytes" for cls, c in comm.items()))
    path = run.save({"lammps": version(peers[0]), "library": str(library.path)})
    import tables

    tables.print_bench(BENCH, path)


if __name__ == "__main__":
    main()
