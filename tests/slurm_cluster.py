"""Start and stop the one-node Slurm cluster of scripts/slurm-local.sh from tests.

Plain functions, no pytest fixtures:

    import slurm_cluster
    if not slurm_cluster.available():
        pytest.skip("Slurm is not installed (scripts/slurm-local.sh install)")
    env = {**os.environ, **slurm_cluster.start()}   # {"SLURM_CONF": "/tmp/hybridperf-slurm/slurm.conf"}
    subprocess.run(["sbatch", "--wait", "job.sh"], env=env, check=True)
    slurm_cluster.stop()

start() is idempotent (a running cluster is reused) and stop() leaves no daemon behind. The state
directory is $HYBRIDPERF_SLURM_DIR if set, else /tmp/hybridperf-slurm. See docs/slurm-local.md.

There is one cluster per machine, and one user's stop() takes it from under every other: tests that start
it hold `with slurm_cluster.in_use():` from start() to stop(), so that pytest's workers (and the docs blocks
that run scripts/slurm-local.sh) take turns.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
from pathlib import Path
from typing import Iterator

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "slurm-local.sh"

# what the cluster needs on the machine: the daemons (in /usr/sbin) and the client commands
_DAEMONS = ("munged", "slurmctld", "slurmd")
_CLIENTS = ("sbatch", "srun", "squeue", "sinfo", "scontrol")
_SBIN = os.pathsep.join((os.environ.get("PATH", ""), "/usr/sbin", "/sbin"))


@contextlib.contextmanager
def in_use() -> Iterator[None]:
    """Hold the machine's one cluster for this process until the block ends; others wait their turn."""
    directory = Path(os.environ.get("HYBRIDPERF_SLURM_DIR", "/tmp/hybridperf-slurm"))
    lock = directory.parent / f".{directory.name}.lock"
    with lock.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def available() -> bool:
    """True if Slurm and munge are installed and this process can start them (root, or sudo)."""
    if not SCRIPT.is_file():
        return False
    if any(shutil.which(name, path=_SBIN) is None for name in _DAEMONS + _CLIENTS):
        return False
    return os.geteuid() == 0 or shutil.which("sudo") is not None


def _run(command: str, timeout: float) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        ["bash", str(SCRIPT), command],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if result.returncode != 0:
        message = result.stderr.strip().splitlines()
        reason = message[-1] if message else f"exit code {result.returncode}"
        raise RuntimeError(f"scripts/slurm-local.sh {command} failed: {reason}")
    return result


def start(timeout: float = 120.0) -> dict[str, str]:
    """Start the cluster (or find it running) and return the variables clients need, e.g.
    {"SLURM_CONF": "/tmp/hybridperf-slurm/slurm.conf"}. Raises RuntimeError on failure."""
    result = _run("start", timeout)
    env: dict[str, str] = {}
    for line in result.stdout.splitlines():
        line = line.strip()
        if line.startswith("export ") and "=" in line:
            name, _, value = line[len("export "):].partition("=")
            env[name.strip()] = value.strip()
    if "SLURM_CONF" not in env:
        raise RuntimeError(f"scripts/slurm-local.sh start printed no SLURM_CONF: {result.stdout!r}")
    return env


def stop(timeout: float = 120.0) -> None:
    """Cancel all jobs and stop the daemons started by start(); does nothing if none run."""
    _run("stop", timeout)
