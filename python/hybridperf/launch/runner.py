"""Runs one kernel under one configuration and keeps its profile.

The launch line comes from launch.py; this module only executes it, streams the kernel's output,
and moves the finished profile into the results directory. A run that fails leaves no profile
behind (the kernel writes its profile atomically, and only at the end).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from hybridperf import profile
from hybridperf.files import write_atomic
from hybridperf.launch import kernels
from hybridperf.launch.busy import BusyThreads
from hybridperf.launch.disturbance import Disturbance, Meter
from hybridperf.launch.lines import build_launch, Configuration, Flavor, Launch, LaunchError
from hybridperf.launch.machine import Machine
from hybridperf.launch.placement import Binding


@dataclass
class RunOutcome:
    returncode: int
    profile_path: Path | None
    profile: dict[str, Any] | None
    stderr: str
    timed_out: bool = False
    elapsed: float = 0.0
    output: Path | None = None  # where the run's output was kept (None: nowhere)
    reason: str | None = None  # why it failed, when the front end knows better than its output says
    disturbance: Disturbance | None = None  # what other processes took from it (None: not measured)


def default_profile_path(results: Path, kernel: str, config: Configuration) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = results / "runs" / f"{kernel}-{stamp}-{config.nodes}n{config.ranks_per_node}r{config.threads}t"
    path, n = base.with_suffix(".json"), 1
    while path.exists():
        path, n = Path(f"{base}-{n}.json"), n + 1
    return path


def prepare(
    kernel: str,
    config: Configuration,
    kernel_args: list[str],
    profile_path: Path,
    flavor: Flavor | None = None,
    hostfile: str | None = None,
    srun_mpi: str | None = None,
) -> Launch:
    """The full launch (binary, its arguments and --profile) for a kernel run."""
    binary = kernels.kernel_path(kernel)
    if flavor is None:
        flavor = kernels.mpi_flavor(kernels.build_info(binary)["build"]["mpi_library"])  # type: ignore[assignment]
    program = [str(binary), *kernel_args]
    if "--profile" not in kernel_args:
        program += ["--profile", str(profile_path)]
    return build_launch(
        config,
        flavor,  # type: ignore[arg-type]
        program,
        as_root=os.geteuid() == 0,
        hostfile=hostfile,
        launcher=kernels.launcher_for(flavor),
        srun_mpi=srun_mpi,
        rankfile=str(profile_path.with_suffix(".rankfile")),
    )


def execute(launch: Launch, profile_path: Path, echo: bool = False, timeout: float | None = None,
            output: Path | None = None, cwd: Path | None = None, watch: BusyThreads | None = None,
            alone: bool = True) -> RunOutcome:
    """Runs the launch line; the kernel's stdout streams through when echo is on, or goes to `output`; `watch`
    reads the run's busy threads while it runs; `alone` (no other run of ours at once): what other processes
    took from it is measured (launch.disturbance).

    The launcher runs in its own process group, so a timeout or Ctrl-C stops every rank, not just
    mpirun; on Ctrl-C the group is killed and KeyboardInterrupt propagates. A profile left by an
    earlier attempt is removed first, so a profile found afterwards is this run's."""
    for folder in (profile_path.parent, output.parent if output else None):
        if folder:
            folder.mkdir(parents=True, exist_ok=True)
    profile_path.unlink(missing_ok=True)
    for path, text in launch.files.items():  # what the line reads (a rankfile), written where it says
        Path(path).write_text(text)
    env = {**os.environ, **launch.env}
    meter = Meter()
    meter.start()
    started = time.monotonic()
    sink = output.open("w") if output else None
    proc = subprocess.Popen(launch.command, env=env, stdout=sink or (None if echo else subprocess.DEVNULL),
                            stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=cwd)
    if watch:
        watch.start(proc.pid)  # a new session's id is its leader's pid
    timed_out = False
    try:
        _, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _stop(proc)
        _, stderr = proc.communicate()
    except BaseException:
        _stop(proc)
        proc.wait()
        raise
    finally:
        if sink:
            sink.close()
        if watch:
            watch.stop()
    elapsed = time.monotonic() - started
    disturbance = meter.stop() if alone else None
    loaded = profile.load(profile_path) if profile_path.exists() and not timed_out else None
    return RunOutcome(proc.returncode, profile_path if loaded else None, loaded, stderr or "", timed_out, elapsed,
                      output, disturbance=disturbance)


def prepare_copies(kernel: str, machine: Machine, copies: int, kernel_args: list[str], profile_path: Path,
                   flavor: Flavor | None = None) -> list[tuple[Launch, Path]]:
    """`copies` launches of the kernel's 1 rank x 1 thread run on this node, copy k bound to its k-th core (hwloc's
    logical order), each with its own profile (profile_path's name with -copyK)."""
    if flavor == "slurm":
        raise LaunchError("--copies runs on this node, through mpirun or mpiexec: not with --launcher slurm")
    if not 2 <= copies <= len(machine.sites):
        raise LaunchError(f"--copies must be 2 to the node's {len(machine.sites) or '(unknown: install hwloc)'} "
                          f"cores, got {copies}")
    out = []
    for k, site in enumerate(machine.sites[:copies]):
        path = profile_path.with_name(f"{profile_path.stem}-copy{k}{profile_path.suffix}")
        config = Configuration(1, 1, 1, machine.cores, binding=Binding("copies", ((site,),)))
        out.append((prepare(kernel, config, kernel_args, path, flavor), path))
    return out


def execute_copies(launches: list[tuple[Launch, Path]], timeout: float | None = None) -> list[RunOutcome]:
    """Runs the launches all at once (copies of one run, each bound to its own core: the node's throughput with
    every core busy) and marks each profile written as copy k of n (`run.copy`)."""
    with tempfile.TemporaryDirectory(prefix="hybridperf-copies-") as tmp:
        # Open MPI 4's launchers started at one instant race to create their session directory under TMPDIR and
        # one fails ("mkdir ... File exists", open-mpi/ompi#8510): each copy gets a TMPDIR of its own, and a session
        # directory base of its own where the caller named one (OMPI_MCA_orte_tmpdir_base overrides TMPDIR)
        own = []
        for k, (launch, path) in enumerate(launches):
            (Path(tmp) / str(k)).mkdir()
            mine = str(Path(tmp) / str(k))
            own.append((replace(launch, env={**launch.env, "TMPDIR": mine, "OMPI_MCA_orte_tmpdir_base": mine}), path))
        with ThreadPoolExecutor(max_workers=len(own)) as pool:
            outcomes = list(pool.map(lambda launch: execute(*launch, timeout=timeout, alone=False), own))
    for k, outcome in enumerate(outcomes):
        if outcome.profile is not None and outcome.profile_path is not None:
            outcome.profile["run"]["copy"] = {"index": k, "of": len(launches)}
            write_atomic(outcome.profile_path, json.dumps(outcome.profile, indent=1))
    return outcomes


def _stop(proc: subprocess.Popen) -> None:
    """Terminates the run's whole process group: the launcher and every rank it started."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=5)
            return
        except subprocess.TimeoutExpired:
            continue
