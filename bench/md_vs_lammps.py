#!/usr/bin/env python3
"""hybridperf-md against LAMMPS on the standard LJ benchmark, in one invocation, alternating runs.

Same input for both codes (lj/cut, fcc at density 0.8442, T 1.44, cutoff 2.5, skin 0.3, dt 0.005,
rebuild every 20 steps, 100 steps) at 32,000 and 131,072 atoms; both launched by hybridperf's own
launcher so binding is identical. Prints ns/atom-step (median of the repeats) for each code at
1x1 and 2x1, ours at 1x2, the ratios, the cost of our instrumentation (timers on vs off, same
run alternated), and our peak memory per atom at 1,048,576 atoms. Timings are only meaningful on
an otherwise idle machine; this is a benchmark, not a test.

    python bench/md_vs_lammps.py [--repeats 3] [--sizes 20 32] [--memory-size 64]

LAMMPS comes from Debian's `lammps` package (installed here if missing and we are root); without
it the LAMMPS columns are skipped with a message.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from hybridperf import profile  # noqa: E402
from hybridperf.launch import kernels, runner  # noqa: E402
from hybridperf.launch.lines import build_launch, Configuration  # noqa: E402
from hybridperf.launch.machine import local_machine  # noqa: E402

STEPS = 100
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


def find_lammps() -> str | None:
    lmp = shutil.which("lmp") or shutil.which("lmp_mpi")
    if lmp or os.geteuid() != 0:
        return lmp
    print("installing Debian's lammps package ...", flush=True)
    subprocess.run(["apt-get", "install", "-y", "-qq", "lammps"], check=False, capture_output=True)
    return shutil.which("lmp")


def run_ours(cores: int, size: int, ranks: int, threads: int, work: Path, extra: list[str] = ()) -> float:
    path = work / "ours.json"
    path.unlink(missing_ok=True)
    config = Configuration(1, ranks, threads, cores)
    launch = runner.prepare("md", config, ["-s", str(size), "--steps", str(STEPS), *extra], path)
    outcome = runner.execute(launch, path)
    if outcome.profile is None or outcome.returncode:
        sys.exit(f"hybridperf-md failed: {outcome.stderr}")
    return profile.figure(outcome.profile, "ns_per_atom_step")


def run_lammps(lmp: str, cores: int, size: int, ranks: int, work: Path) -> float:
    script = work / "in.lj"
    script.write_text(LAMMPS_INPUT.format(n=size, steps=STEPS))
    flavor = kernels.mpi_flavor(kernels.build_info(kernels.kernel_path("md"))["build"]["mpi_library"])
    launch = build_launch(Configuration(1, ranks, 1, cores), flavor, [lmp, "-in", str(script), "-log", "none"],
                          as_root=os.geteuid() == 0, launcher=kernels.launcher_for(flavor))
    out = subprocess.run(launch.command, env={**os.environ, **launch.env}, capture_output=True, text=True,
                         check=True, cwd=work).stdout
    match = re.search(r"Loop time of ([0-9.eE+-]+) on \d+ procs for (\d+) steps with (\d+) atoms", out)
    if not match:
        sys.exit(f"could not read LAMMPS's loop time:\n{out[-2000:]}")
    seconds, steps, atoms = float(match[1]), int(match[2]), int(match[3])
    return 1e9 * seconds / (steps * atoms)


def valgrind_build(work: Path) -> Path | None:
    """An AVX2 build of the kernel for callgrind (valgrind does not decode AVX-512 instructions)."""
    if not shutil.which("valgrind"):
        return None
    repo, build = Path(__file__).resolve().parents[1], work / "build-avx2"
    subprocess.run(["cmake", "-S", str(repo), "-B", str(build), "-DHYBRIDPERF_NATIVE=OFF",
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


def peak_memory_per_atom(size: int) -> float:
    """Bytes of peak resident memory per atom of a short single-rank run (no launcher in between)."""
    binary = kernels.kernel_path("md")
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run([str(binary), "-s", str(size), "--steps", "20"], env={**os.environ, "OMP_NUM_THREADS": "1"},
                   check=True, capture_output=True)
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if peak_kib <= before:
        print("  (peak memory not measurable: an earlier child was larger)")
    return peak_kib * 1024 / (4 * size**3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of each case (median reported)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 32], help="-s values (4 s^3 atoms)")
    parser.add_argument("--memory-size", type=int, default=64, help="-s for the memory measurement (0: skip)")
    args = parser.parse_args()
    cores = local_machine().cores
    lmp = find_lammps()
    if lmp is None:
        print("LAMMPS not found (apt-get install lammps): LAMMPS columns skipped")
    results: dict[tuple[str, int, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for size in args.sizes:
            for rep in range(args.repeats):
                print(f"-s {size}: round {rep + 1}/{args.repeats}", flush=True)
                for ranks, threads in ((1, 1), (2, 1), (1, 2)):
                    split = f"{ranks}x{threads}"
                    if ranks * threads > cores:
                        continue
                    results.setdefault(("ours", size, split), []).append(run_ours(cores, size, ranks, threads, work))
                    if lmp and threads == 1:
                        results.setdefault(("lammps", size, split), []).append(
                            run_lammps(lmp, cores, size, ranks, work))
                results.setdefault(("ours-timed", size, "1x1"), []).append(run_ours(cores, size, 1, 1, work))
                results.setdefault(("ours-untimed", size, "1x1"), []).append(
                    run_ours(cores, size, 1, 1, work, ["--no-timers"]))

    med = {k: statistics.median(v) for k, v in results.items()}
    print(f"\nns/atom-step, median of {args.repeats} (lower is better); targets: ours/LAMMPS <= 0.6, "
          "1x2 within 5% of 2x1, instrumentation <= 2%")
    print(f"{'atoms':>9} {'split':>5} {'ours':>9} {'LAMMPS':>9} {'ours/LAMMPS':>12}")
    for size in args.sizes:
        for split in ("1x1", "2x1", "1x2"):
            ours, theirs = med.get(("ours", size, split)), med.get(("lammps", size, split))
            if ours is None:
                continue
            ratio = f"{ours / theirs:12.3f}" if theirs else f"{'-':>12}"
            print(f"{4 * size**3:9d} {split:>5} {ours:9.1f} {theirs or float('nan'):9.1f} {ratio}")
        if ("ours", size, "1x2") in med and ("ours", size, "2x1") in med:
            print(f"{'':>9} ours 1x2 / 2x1 = {med[('ours', size, '1x2')] / med[('ours', size, '2x1')]:.3f}")
        timed, untimed = results[("ours-timed", size, "1x1")], results[("ours-untimed", size, "1x1")]
        print(f"{'':>9} timers on / --no-timers at 1x1: median {statistics.median(timed) / statistics.median(untimed):.3f}, "
              f"min {min(timed) / min(untimed):.3f} (wall clock; run-to-run noise here is a few percent)")
    with tempfile.TemporaryDirectory() as tmp:
        binary = valgrind_build(Path(tmp))
        if binary:
            timed, untimed = instructions(binary, []), instructions(binary, ["--no-timers"])
            print(f"instrumentation overhead in instructions (callgrind, AVX2 build, 4,000 atoms, 100 steps): "
                  f"{100 * (timed / untimed - 1):+.3f}% ({timed:,} vs {untimed:,})")
        else:
            print("valgrind not found: instruction-count overhead skipped")
    if args.memory_size:
        per_atom = peak_memory_per_atom(args.memory_size)
        print(f"peak memory at {4 * args.memory_size**3:,} atoms (1x1): {per_atom:.0f} bytes/atom (target <= 1024)")


if __name__ == "__main__":
    main()
