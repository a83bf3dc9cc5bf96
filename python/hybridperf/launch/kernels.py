"""Where the kernel binaries are, how they were built, and which MPI launcher matches them.

A kernel must be launched by the launcher of the MPI library it was linked with; that library is
read from the binary itself (`--build-info`), never guessed from whatever `mpirun` is on PATH.

The binaries are looked for in $HYBRIDPERF_BIN_DIR, then on PATH (where an installing user puts them), and last in
the build/bin of the source checkout this package runs from, if it runs from one (an editable install): that
fallback is for development, and is looked at only when a kernel is asked for.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Any

KERNELS: tuple[str, ...] = ("md", "stream", "spmv", "clomp", "ompbench", "mixbench")
ENV = "HYBRIDPERF_BIN_DIR"


class KernelNotFound(FileNotFoundError):
    pass


def checkout_build() -> Path | None:
    """The build folder of the source checkout this package runs from (python/hybridperf in a tree with the
    kernels' CMakeLists.txt), or None for an installed package."""
    root = Path(__file__).resolve().parents[3]
    return root / "build" if (root / "CMakeLists.txt").is_file() and (root / "kernels").is_dir() else None


def _candidates(name: str) -> list[Path]:
    """Where a binary may be, in the order looked at."""
    env, on_path = os.environ.get(ENV), shutil.which(name)
    build = checkout_build()
    return [*([Path(env) / name] if env else []), *([Path(on_path)] if on_path else []),
            *([build / "bin" / name] if build else [])]


def bin_dir() -> Path | None:
    """The folder the kernels are found in ($HYBRIDPERF_BIN_DIR, PATH's, the checkout's build/bin), or None."""
    found = next((p for k in KERNELS for p in _candidates(f"hybridperf-{k}") if p.is_file()), None)
    return Path(os.environ[ENV]) if os.environ.get(ENV) else found.parent if found else None


def kernel_path(kernel: str) -> Path:
    if kernel not in KERNELS:
        raise KernelNotFound(f"unknown kernel '{kernel}': available kernels are {', '.join(KERNELS)}")
    name = f"hybridperf-{kernel}"
    found = next((p for p in _candidates(name) if p.is_file()), None)
    if found is None:
        raise KernelNotFound(f"{name} not found on PATH: build the kernels (`make build`, docs/building.md) and put "
                             f"their bin folder on PATH, or set {ENV}")
    return found


@lru_cache(maxsize=None)
def build_info(path: Path) -> dict[str, Any]:
    """The binary's own description of its build (compiler, flags, MPI library, OpenMP)."""
    result = subprocess.run([str(path), "--build-info"], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise KernelNotFound(f"{path} --build-info failed: {result.stderr.strip() or result.returncode}")
    return json.loads(result.stdout)


def mpi_flavor(mpi_library: str) -> str:
    """'openmpi' or 'mpich' (MPICH and its derivatives use the Hydra launcher)."""
    return "openmpi" if "open mpi" in mpi_library.lower() else "mpich"


_LAUNCHERS = {
    "openmpi": ["mpirun.openmpi", "mpirun"],
    "mpich": ["mpiexec.mpich", "mpiexec.hydra", "mpiexec"],
    "slurm": ["srun"],
}


def version_line(output: str) -> str:
    """The version a launcher's `--version` prints, in one line. Open MPI and Slurm put it on their first line
    ('mpirun (Open MPI) 4.1.4'); MPICH's Hydra opens with a heading, 'HYDRA build details:', and gives it on an
    indented 'Version:' line — Hydra ships with MPICH and carries MPICH's release number."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    if lines and lines[0].startswith("HYDRA"):
        version = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("Version:")), "")
        return f"MPICH {version} (Hydra)" if version else lines[0]
    return lines[0] if lines else "unknown"


def _is_flavor(exe: str, flavor: str) -> bool:
    """Generic names (mpirun, mpiexec) may belong to either library: ask the executable."""
    if flavor == "slurm" or exe.endswith((".openmpi", ".mpich", ".hydra")):
        return True
    text = subprocess.run([exe, "--version"], capture_output=True, text=True, check=False)
    says_openmpi = "open mpi" in (text.stdout + text.stderr).lower() or "openrte" in text.stdout.lower()
    return says_openmpi == (flavor == "openmpi")


@lru_cache(maxsize=None)
def launcher_for(flavor: str) -> str | None:
    """The launcher executable of a flavour (Debian installs both MPI libraries side by side), or None.
    Slurm's srun is always named srun: a batch script runs it on the cluster, not here."""
    if flavor == "slurm":
        return "srun"
    for name in _LAUNCHERS[flavor]:
        if shutil.which(name) and _is_flavor(name, flavor):
            return name
    return None


def launcher_version(flavor: str) -> str:
    """The launcher and its version line; for Slurm, whether a controller can be reached (srun answers even
    --version only once it has found a configuration)."""
    exe = launcher_for(flavor)
    if not exe or not shutil.which(exe):
        return "not found"
    try:  # without a configuration srun may look for a controller for a minute before it gives up
        result = subprocess.run([exe, "--version"], capture_output=True, text=True, check=False, timeout=10)
    except subprocess.TimeoutExpired:
        result = None
    if flavor == "slurm" and (result is None or result.returncode != 0):
        return "Slurm installed, no controller reachable (no usable slurm.conf; set SLURM_CONF)"
    return f"{exe}: {version_line(result.stdout + result.stderr) if result else 'no answer to --version in 10 s'}"


@lru_cache(maxsize=None)
def options(kernel: str) -> tuple[dict[str, Any], ...]:
    """The kernel's option table, as the binary describes it (`--options`): name, type, default, bounds."""
    path = kernel_path(kernel)
    result = subprocess.run([str(path), "--options"], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise KernelNotFound(f"{path} --options failed: {result.stderr.strip() or result.returncode}")
    return tuple(json.loads(result.stdout))


class KernelRefused(ValueError):
    """The kernel refused the parameters it was asked to check; the message is its own."""


def checks_decomposition(kernel: str) -> bool:
    """Whether the kernel can say which rank counts a problem accepts (`--check-decomposition`)."""
    return any(o["name"] == "check-decomposition" for o in options(kernel))


@lru_cache(maxsize=256)
def check_decomposition(kernel: str, args: tuple[str, ...], ranks: tuple[int, ...]) -> dict[int, str | None]:
    """For each rank count, why the kernel would refuse to run `args` on it (None: it would run), as the
    kernel's own decomposition decides — the binary is run alone (an MPI singleton) and computes nothing."""
    command = [str(kernel_path(kernel)), *args, "--check-decomposition", ",".join(map(str, ranks))]
    return {r["ranks"]: r["error"] for r in json.loads(_ask(command, "--check-decomposition"))}


PLACED_PLANS = ("spmv",)  # kernels whose bricks depend on ranks per node and threads per rank


def plan(kernel: str, args: tuple[str, ...], ranks: int, ranks_per_node: int = 1, threads: int = 1) -> dict[str, Any]:
    """What a run of `args` on `ranks` ranks would send, per rank and step type, as the kernel's own
    decomposition and halo selection decide (`--plan`, one process, no forces; docs/simulation.md). One OpenMP
    thread: the plan packs every rank's halo in turn, each pack too small to share, and a second thread's
    barriers made a 4,096-rank plan take 9 s instead of 5 on an idle 2-core machine, 40 s on a busy one."""
    placed = ("--plan-ranks-per-node", str(ranks_per_node), "--plan-threads", str(threads)) \
        if kernel in PLACED_PLANS else ()
    return json.loads(_ask([str(kernel_path(kernel)), *args, "--plan", str(ranks), *placed], "--plan",
                           {**os.environ, "OMP_NUM_THREADS": "1"}))


# A kernel asked a question is one MPI process that talks to no other: Open MPI may start it alone, on its own
# loopback transport, without probing the network. Its MPI_Init then takes 0.03 s here instead of 0.37 s (a study
# asks several such questions before it starts; MPICH ignores these).
ALONE = {"OMPI_MCA_ess_singleton_isolated": "1", "OMPI_MCA_pml": "ob1", "OMPI_MCA_btl": "self"}


def _ask(command: list[str], what: str, env: dict[str, str] | None = None) -> str:
    """stdout of a kernel asked a question it answers without running; KernelRefused with its own message."""
    result = subprocess.run(command, capture_output=True, text=True, check=False,
                            env={**(env or os.environ), **ALONE})
    if result.returncode != 0:
        own = [line.split("error: ", 1)[-1] for line in result.stderr.splitlines() if "error: " in line]
        raise KernelRefused(own[0] if own else f"{Path(command[0]).name} {what} failed: "
                                                  f"{result.stderr.strip()[-300:] or result.returncode}")
    return result.stdout


def check_args(kernel: str, args: tuple[str, ...]) -> None:
    """Raises KernelRefused with the kernel's own message when it would refuse these arguments (it parses them
    as a run would, `--check-args`, and runs nothing)."""
    _ask([str(kernel_path(kernel)), *args, "--check-args"], "--check-args")
