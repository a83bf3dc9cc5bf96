"""Launch lines: a Configuration becomes the exact command and environment for Open MPI, MPICH or Slurm.

This is the only place in hybridperf that builds a command line, and it is pure: same inputs, same
line. What it encodes is what an expert would type so that each rank owns `threads` distinct cores
and each thread is pinned to one of them:
- Open MPI: `--map-by ppr:R:node:PE=T --bind-to core` (plain `mpirun -np 2` binds each rank to a
  single core, which stacks all its OpenMP threads on that core), `-x` to export OMP_* to remote
  nodes, `--allow-run-as-root` when root;
- MPICH (Hydra): `-ppn R -bind-to core:T`, `-genv` for the environment;
- Slurm: `srun --ntasks-per-node R --cpus-per-task T --cpu-bind=cores` with the CPU count given to
  the step explicitly (srun no longer inherits --cpus-per-task from sbatch);
and everywhere OMP_NUM_THREADS=T, OMP_PLACES=cores, OMP_PROC_BIND=close.
When ranks x threads exceed the cores of a node the run is oversubscribed: binding is switched off
(it cannot give distinct cores), OpenMP threads wait passively (spinning threads on shared cores
slow everything down by orders of magnitude), and a warning says timings are not meaningful.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Literal

from hybridperf.shapes import Placement

Flavor = Literal["openmpi", "mpich", "slurm"]
FLAVORS: tuple[str, ...] = ("openmpi", "mpich", "slurm")


class LaunchError(ValueError):
    """A configuration that cannot be launched as asked; the message says what to change."""


@dataclass(frozen=True)
class Configuration(Placement):
    """How a run is placed: nodes, MPI ranks per node, OpenMP threads per rank."""

    nodes: int
    ranks_per_node: int
    threads: int
    cores_per_node: int
    oversubscribe: bool = False  # allow ranks x threads > cores per node
    wait_policy: str | None = None  # OMP_WAIT_POLICY; None: passive when oversubscribed, else unset

    @property
    def cores_used_per_node(self) -> int:
        return self.ranks_per_node * self.threads

    @property
    def oversubscribed(self) -> bool:
        return self.cores_used_per_node > self.cores_per_node


@dataclass(frozen=True)
class Launch:
    command: list[str]
    env: dict[str, str]  # variables to set on top of the caller's environment
    warnings: list[str] = field(default_factory=list)

    def shell(self) -> str:
        """The command as one line a user can paste, environment first."""
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.env.items())
        return (env + " " if env else "") + shlex.join(self.command)


def validate(config: Configuration) -> list[str]:
    """Raises LaunchError for impossible configurations; returns warnings for questionable ones."""
    for name in ("nodes", "ranks_per_node", "threads", "cores_per_node"):
        if getattr(config, name) < 1:
            raise LaunchError(f"{name.replace('_', ' ')} must be at least 1, got {getattr(config, name)}")
    warnings = []
    if config.oversubscribed:
        if not config.oversubscribe:
            raise LaunchError(
                f"{config.ranks_per_node} ranks x {config.threads} threads = {config.cores_used_per_node} "
                f"exceeds the {config.cores_per_node} cores of a node; use fewer, or allow oversubscription"
            )
        warnings.append(
            f"oversubscribed: {config.ranks_per_node} ranks x {config.threads} threads on "
            f"{config.cores_per_node} cores per node; binding is off and timings are not meaningful"
        )
    return warnings


def _omp_env(config: Configuration) -> dict[str, str]:
    env = {"OMP_NUM_THREADS": str(config.threads)}
    if config.oversubscribed:
        env["OMP_PROC_BIND"] = "false"
    else:
        env["OMP_PLACES"] = "cores"
        env["OMP_PROC_BIND"] = "close"
    policy = config.wait_policy or ("passive" if config.oversubscribed else None)
    if policy:
        env["OMP_WAIT_POLICY"] = policy
    return env


def _openmpi(config: Configuration, env: dict[str, str], as_root: bool, hostfile: str | None) -> list[str]:
    cmd = ["mpirun"]
    if as_root:
        cmd.append("--allow-run-as-root")
    cmd += ["-np", str(config.ranks)]
    if hostfile:
        cmd += ["--hostfile", hostfile]
    if config.oversubscribed:
        cmd += ["--oversubscribe", "--map-by", f"ppr:{config.ranks_per_node}:node", "--bind-to", "none"]
    else:
        cmd += ["--map-by", f"ppr:{config.ranks_per_node}:node:PE={config.threads}", "--bind-to", "core"]
    for name in env:
        cmd += ["-x", name]
    return cmd


def _mpich(config: Configuration, env: dict[str, str], hostfile: str | None) -> list[str]:
    cmd = ["mpiexec", "-n", str(config.ranks), "-ppn", str(config.ranks_per_node)]
    if hostfile:
        cmd += ["-f", hostfile]
    if config.oversubscribed:
        cmd += ["-bind-to", "none"]
    else:
        cmd += ["-bind-to", f"core:{config.threads}", "-map-by", f"core:{config.threads}"]
    for name, value in env.items():
        cmd += ["-genv", name, value]
    return cmd


def _slurm(config: Configuration, env: dict[str, str], srun_mpi: str | None) -> list[str]:
    exports = ",".join(["ALL"] + [f"{k}={v}" for k, v in env.items()])
    cmd = [
        "srun",
        *([f"--mpi={srun_mpi}"] if srun_mpi else []),
        f"--nodes={config.nodes}",
        f"--ntasks={config.ranks}",
        f"--ntasks-per-node={config.ranks_per_node}",
        f"--cpus-per-task={config.threads}",
    ]
    cmd += ["--overcommit", "--cpu-bind=none"] if config.oversubscribed else ["--cpu-bind=cores"]
    cmd.append(f"--export={exports}")
    return cmd


def build_launch(
    config: Configuration,
    flavor: Flavor,
    program: list[str],
    *,
    as_root: bool = False,
    hostfile: str | None = None,
    launcher: str | None = None,
    srun_mpi: str | None = None,
    extra_env: dict[str, str] | None = None,
) -> Launch:
    """The launch line for `program` (binary and arguments) under `config`.

    `launcher` replaces the launcher's name (e.g. mpiexec.mpich); `hostfile` is needed for more
    than one node outside Slurm; `srun_mpi` is srun's --mpi plugin (e.g. pmix, which Debian's
    Open MPI needs; default: the site's MpiDefault); `extra_env` is exported to every rank besides
    OMP_* (an interposed library's LD_PRELOAD).
    """
    if flavor not in FLAVORS:
        raise LaunchError(f"unknown launcher '{flavor}': use one of {', '.join(FLAVORS)}")
    warnings = validate(config)
    if config.nodes > 1 and flavor != "slurm" and not hostfile:
        raise LaunchError(f"{config.nodes} nodes need a hostfile with {flavor}, or run under Slurm")
    env = {**_omp_env(config), **(extra_env or {})}
    if flavor == "openmpi":
        cmd = _openmpi(config, env, as_root, hostfile)
    elif flavor == "mpich":
        cmd = _mpich(config, env, hostfile)
    else:
        cmd = _slurm(config, env, srun_mpi)
    if launcher:
        cmd[0] = launcher
    return Launch(cmd + list(program), env, warnings)
