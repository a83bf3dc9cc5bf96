"""Runs one kernel under one configuration and keeps its profile.

The launch line comes from launch.py; this module only executes it, streams the kernel's output,
and moves the finished profile into the results directory. A run that fails leaves no profile
behind (the kernel writes its profile atomically, and only at the end).
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hybridperf import kernels, profile
from hybridperf.launch import Configuration, Flavor, Launch, build_launch


@dataclass
class RunOutcome:
    returncode: int
    profile_path: Path | None
    profile: dict[str, Any] | None
    stderr: str


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
    )


def execute(launch: Launch, profile_path: Path, echo: bool = False) -> RunOutcome:
    """Runs the launch line; the kernel's stdout streams through when echo is on."""
    profile_path.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **launch.env}
    out = None if echo else subprocess.DEVNULL
    proc = subprocess.run(launch.command, env=env, stdout=out, stderr=subprocess.PIPE, text=True, check=False)
    stderr, code = proc.stderr, proc.returncode
    loaded = profile.load(profile_path) if profile_path.exists() else None
    return RunOutcome(code, profile_path if loaded else None, loaded, stderr)
