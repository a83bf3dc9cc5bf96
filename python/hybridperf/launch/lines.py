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
A configuration with a placement (launch.placement's Binding: each rank's cores) is bound to exactly those cores:
compact is the lines above (they fill cores in hwloc's order, which is compact); the other policies need the
launcher's explicit form, Open MPI's `--rankfile` (written beside the profile; `--map-by` cannot say "one core per
shared cache, across packages"), Hydra's `-bind-to user:0+4,1+5`, and under Slurm, for every policy,
`--ntasks-per-socket`, `--distribution=block:block|block:cyclic` and `--cpu-bind=map_cpu:|mask_cpu:` (srun's default
distribution is cyclic over sockets, so even compact must be asked for).
When ranks x threads exceed the cores of a node the run is oversubscribed: binding is switched off
(it cannot give distinct cores), OpenMP threads wait passively (spinning threads on shared cores
slow everything down by orders of magnitude), and a warning says timings are not meaningful.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Literal

from hybridperf.launch import placement
from hybridperf.launch.placement import Binding
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
    binding: Binding | None = None  # each rank's cores on a node, when a placement chose them

    @property
    def cores_used_per_node(self) -> int:
        return self.ranks_per_node * self.threads

    @property
    def oversubscribed(self) -> bool:
        """More threads than cores: on a node, or (with a placement) on a rank's own cores."""
        if self.binding is not None and any(len(cores) < self.threads for cores in self.binding.ranks):
            return True
        return self.cores_used_per_node > self.cores_per_node


@dataclass(frozen=True)
class Launch:
    command: list[str]
    env: dict[str, str]  # variables to set on top of the caller's environment
    warnings: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # files the line reads (an Open MPI rankfile): path -> text

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
        if config.binding is not None:
            warnings.append(f"oversubscribed: each rank runs {config.threads} threads on its "
                            f"{len(config.binding.ranks[0])} core(s), waiting passively")
        else:
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


def _explicit(config: Configuration) -> Binding | None:
    """The binding a launcher must spell out: any placement but compact, which the plain lines already make."""
    return config.binding if config.binding is not None and config.binding.policy != "compact" else None


def _openmpi(config: Configuration, env: dict[str, str], as_root: bool, hostfile: str | None,
             rankfile: str | None) -> list[str]:
    cmd = ["mpirun"]
    if as_root:
        cmd.append("--allow-run-as-root")
    cmd += ["-np", str(config.ranks)]
    if hostfile:
        cmd += ["--hostfile", hostfile]
    if _explicit(config):
        cmd += ["--rankfile", str(rankfile)]
    elif config.oversubscribed:
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
    explicit = _explicit(config)
    if explicit:
        cmd += ["-bind-to", placement.hydra_user(explicit)]
    elif config.oversubscribed:
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
    if config.binding is not None:
        cmd += [*(["--overcommit"] if config.oversubscribed else []),
                f"--ntasks-per-socket={config.binding.ranks_per_package()}",
                f"--distribution={placement.slurm_distribution(config.binding.policy)}",
                f"--cpu-bind={placement.slurm_cpu_bind(config.binding)}"]
    else:
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
    rankfile: str | None = None,
) -> Launch:
    """The launch line for `program` (binary and arguments) under `config`.

    `launcher` replaces the launcher's name (e.g. mpiexec.mpich); `hostfile` is needed for more
    than one node outside Slurm; `srun_mpi` is srun's --mpi plugin (e.g. pmix, which Debian's
    Open MPI needs; default: the site's MpiDefault); `extra_env` is exported to every rank besides
    OMP_* (an interposed library's LD_PRELOAD); `rankfile` is where Open MPI's rankfile goes when a placement
    needs one (its text comes back in Launch.files, for the runner to write).
    """
    if flavor not in FLAVORS:
        raise LaunchError(f"unknown launcher '{flavor}': use one of {', '.join(FLAVORS)}")
    warnings = validate(config)
    if config.nodes > 1 and flavor != "slurm" and not hostfile:
        raise LaunchError(f"{config.nodes} nodes need a hostfile with {flavor}, or run under Slurm")
    env = {**_omp_env(config), **(extra_env or {})}
    files = {}
    explicit = _explicit(config)
    if flavor == "openmpi" and explicit:
        if not rankfile:
            raise LaunchError(f"{explicit.policy} placement with Open MPI needs a rankfile path")
        if config.nodes > 1:
            raise LaunchError(f"{explicit.policy} placement on {config.nodes} nodes: Open MPI's rankfile binds one "
                              "here; run it under Slurm (backend: slurm)")
        files[rankfile] = placement.rankfile(explicit)
    if flavor == "openmpi":
        cmd = _openmpi(config, env, as_root, hostfile, rankfile)
    elif flavor == "mpich":
        cmd = _mpich(config, env, hostfile)
    else:
        cmd = _slurm(config, env, srun_mpi)
    if launcher:
        cmd[0] = launcher
    return Launch(cmd + list(program), env, warnings, files)
