"""How a run of the user's program is launched: its command with the placeholders filled, the program found, the
MPI library and OpenMP runtime it is linked with (ldd; the counting library for that MPI: launch.pmpi), and the
launch line. `mpi`: hybridperf's own line for that MPI (under Slurm, srun's), binding and OMP_* as for the
kernels, with the counting library preloaded; `self`: the program alone (it starts its own ranks or threads) with
OMP_NUM_THREADS, on the run's CPUs (taskset; under Slurm, the job's allocation)."""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hybridperf.app.spec import AppSpec
from hybridperf.launch import kernels, pmpi
from hybridperf.launch.lines import Configuration, Launch, build_launch
from hybridperf.shapes import Placement

MPI_PROFILE = "HYBRIDPERF_MPI_PROFILE"  # where libhybridperf-mpi.so writes its counts (docs/pmpi.md)
MPI_TRACE = "HYBRIDPERF_MPI_TRACE"  # the folder it writes its traces into (docs/pmpi.md#traces)
LIBOMP = "HYBRIDPERF_LIBOMP"  # LLVM's libomp.so.5, for openmp_runtime: libomp (default: Debian's, found by glob)


class AppError(ValueError):
    """The program cannot be run as the spec says; one line."""


def command_of(app: AppSpec, shape: Placement, params: dict[str, Any]) -> list[str]:
    """The command with {ranks}, {threads}, {ranks_per_node}, {nodes} and the run's parameters filled in, and the
    program's leading $NAME (a folder given by the environment: $HYBRIDPERF_NPB_MZ/bt-mz.{class}.{ranks}) read."""
    program, *args = [word.format(**_values(shape, params)) for word in app.command]
    return [from_environment(program), *args]


def from_environment(program: str) -> str:
    """The program's word with a leading $NAME replaced by that environment variable; AppError when it is unset."""
    match = re.match(r"\$([A-Za-z_][A-Za-z0-9_]*)", program)
    if not match:
        return program
    value = os.environ.get(match[1])
    if not value:
        raise AppError(f"program not found: {program} needs ${match[1]}, which is not set: set it to the folder "
                       "that holds the program")
    return value + program[match.end():]


def logs_of(app: AppSpec, shape: Placement, params: dict[str, Any]) -> list[str]:
    """The log files the program writes, placeholders filled."""
    return [name.format(**_values(shape, params)) for name in app.logs]


def env_of(app: AppSpec, shape: Placement, params: dict[str, Any]) -> dict[str, str]:
    """The variables the spec sets for the program, placeholders filled."""
    return {name: value.format(**_values(shape, params)) for name, value in app.env}


def _values(shape: Placement, params: dict[str, Any]) -> dict[str, Any]:
    return {"ranks": shape.ranks, "threads": shape.threads, "ranks_per_node": shape.ranks_per_node,
            "nodes": shape.nodes, **params}


def program_path(word: str, what: str = "program") -> Path:
    """The executable a word names (a path, or a name on PATH): the command's first, or `what` else."""
    found = shutil.which(word) if "/" not in word else word
    path = Path(found) if found else None
    if path is None or not path.exists():
        raise AppError(f"{what} not found: {word}" + ("" if "/" in word else " (not on PATH)"))
    if not path.is_file() or not os.access(path, os.X_OK):
        raise AppError(f"{what} is not an executable file: {path}")
    return path.resolve()


def openmp_runtime(libraries: str) -> str:
    for name, runtime in (("libgomp", "libgomp"), ("libomp.so", "libomp"), ("libiomp5", "libiomp5")):
        if name in libraries:
            return runtime
    return "none"


def llvm_libomp() -> Path:
    """LLVM's OpenMP runtime: $HYBRIDPERF_LIBOMP, else the newest /usr/lib/llvm-*/lib/libomp.so.5 (Debian's libomp5);
    AppError when there is none."""
    given = os.environ.get(LIBOMP)
    found = [Path(given)] if given else sorted(Path("/usr/lib").glob("llvm-*/lib/libomp.so.5"),
                                                key=lambda p: [int(n) for n in re.findall(r"\d+", p.parent.parent.name)])
    if not found or not found[-1].is_file():
        raise AppError(f"openmp_runtime: libomp needs LLVM's libomp ({given or '/usr/lib/llvm-*/lib/libomp.so.5'} not "
                       f"found): apt-get install libomp5, or set {LIBOMP} to its libomp.so.5")
    return found[-1]


def runtime_preload(app: AppSpec, runtime: str) -> tuple[list[str], str]:
    """The libraries to preload for the spec's OpenMP runtime, and the runtime the run has: LLVM's libomp over a
    program linked with GCC's libgomp (libomp answers GOMP_'s entry points, so the program's code runs on it,
    with OMPT); nothing where the spec keeps the program's own, or where it already has libomp (or no OpenMP)."""
    if app.openmp_runtime != "libomp" or runtime != "libgomp":
        return [], runtime
    return [str(llvm_libomp())], "libomp (preloaded over libgomp)"


@dataclass(frozen=True)
class AppLaunch:
    launch: Launch
    mpi: str  # openmpi | mpich | none
    openmp_runtime: str  # libgomp | libomp | libiomp5 | none
    program: str  # the executable, resolved


def launch_of(app: AppSpec, config: Configuration, params: dict[str, Any], counts: Path, *,
              under_slurm: bool = False, srun_mpi: str | None = None, trace: Path | None = None) -> AppLaunch:
    """The launch of one run of shape `config` with `params`; `counts` is where the counting library writes, `trace`
    the folder it writes the run's traces into (with app.trace).
    `under_slurm`: the line of a batch script's step (srun, with `srun_mpi` as its --mpi), or for launch: self the
    program alone in the job's allocation. AppError when the program or the counting library is missing."""
    argv = command_of(app, config, params)
    binary = program_path(argv[0])
    own_env = env_of(app, config, params)
    listing = pmpi.linked(binary, own_env)
    libraries = listing or ""  # a static or non-ELF program lists none
    preload, runtime = runtime_preload(app, openmp_runtime(libraries))
    if app.launch == "self":
        cpus = config.ranks_per_node * config.threads
        # the thread count only: a program that starts its own ranks places them itself (thread-MPI ranks share
        # one process, whose OMP_PLACES would put every rank's team on the same first cores)
        env = {"OMP_NUM_THREADS": str(config.threads), **own_env}
        pinned = argv if under_slurm else ["taskset", "--cpu-list", f"0-{cpus - 1}", *argv]  # Slurm confines a job
        return AppLaunch(Launch(pinned, env, []), "none", runtime, str(binary))
    flavor = pmpi.mpi_flavor(libraries) or "openmpi"  # a program without MPI still runs as copies under mpirun
    extra = dict(own_env)
    if app.profile_mpi:
        counting = pmpi.library_for(binary, ldd_output=listing)
        if counting.path is None:
            raise AppError(f"{binary}: {counting.reason} (or set profile_mpi: false to run it without counting MPI)")
        preload.append(str(counting.path))
        extra[MPI_PROFILE] = str(counts.resolve())
        if app.trace and trace is not None:
            extra[MPI_TRACE] = str(trace.resolve())
    if preload:  # the runtime first, so that its GOMP_ entry points are the ones the program's calls find
        extra["LD_PRELOAD"] = ":".join(preload)
    if under_slurm:  # srun starts the ranks; the spec's launcher is for runs outside Slurm
        launch = build_launch(config, "slurm", argv, srun_mpi=srun_mpi, extra_env=extra)
    else:
        launcher = str(program_path(app.launcher, "launcher")) if app.launcher else kernels.launcher_for(flavor)
        launch = build_launch(config, flavor, argv, as_root=os.geteuid() == 0,  # type: ignore[arg-type]
                              launcher=launcher, extra_env=extra)
    return AppLaunch(launch, flavor, runtime, str(binary))
