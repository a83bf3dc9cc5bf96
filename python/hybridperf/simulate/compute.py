"""The compute model: seconds a rank computes between its communications, from what was measured on a node.

A region's time on a rank is its work units times the region's cost per unit on one core, shared by T threads
at an efficiency e(T), plus OpenMP's fork/join for each threaded loop entered:

    t(region) = units x cost / (T e(T))  +  [T > 1] loops x fork_join(T)

Units (from the kernel's plan): md's force and integration cost per owned atom and step, its neighbour-list
build per owned-or-ghost atom and rebuild, its halo packing per atom packed (packed and unpacked; threaded as
hybridperf-md does, or by the master thread alone as the thesis's code did). Costs come
either from a serial profile measured here (`measured`) or from the thesis's published Merlin figures
(`thesis_merlin`). e(T) is the measured efficiency where threads were measured and, beyond the last measured
count, the thesis's direct-overhead model (eq. 6.8): a threaded loop costs phi per unit of work plus mu x T per
unit of each thread's share, so e(T) = 1 / (1 + (mu/phi) T), mu/phi fitted by least squares to the measured
points. Pure functions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from hybridperf.models.split import ThreadEfficiency

# md's threaded loops: 2 integration halves and the force per step; a pack and an unpack per halo message
LOOPS_OUTSIDE_HALO = 3
LOOPS_PER_MESSAGE = 2


@dataclass(frozen=True)
class Threads:
    """e(T): measured points (interpolated as ThreadEfficiency does) up to the largest measured count, the
    direct-overhead model fitted to them beyond it."""

    measured: ThreadEfficiency

    @property
    def overhead_ratio(self) -> float:
        """mu/phi of eq. 6.8, least squares over the measured points: 1/e - 1 = (mu/phi) T."""
        points = [(t, e) for t, e in self.measured.points if t > 1 and e > 0]
        if not points:
            return 0.0
        return max(0.0, sum(t * (1 / e - 1) for t, e in points) / sum(t * t for t, _ in points))

    def __call__(self, threads: int) -> float:
        largest = max((t for t, _ in self.measured.points), default=1)
        if threads <= largest:
            return self.measured(threads)
        return 1 / (1 + self.overhead_ratio * threads)

    @property
    def source(self) -> str:
        return f"{self.measured.source}; beyond, eq. 6.8 with mu/phi = {self.overhead_ratio:.4g}"


@dataclass(frozen=True)
class ComputeModel:
    force: float  # s per owned atom and step, one core
    integrate: float  # s per owned atom and step
    neighbor: float  # s per owned or ghost atom and rebuild
    pack: float  # s per atom packed and unpacked
    threads: Threads
    fork_join: Callable[[int], float]  # s per threaded loop at T threads
    sources: dict[str, str] = field(default_factory=dict)  # input -> where it comes from
    pack_threaded: bool = True  # False: the master thread packs alone (the thesis's master-only movout)

    def share(self, seconds: float, threads: int) -> float:
        """One core's seconds of threaded work, spread over `threads`."""
        return seconds / (threads * self.threads(threads))

    def packing(self, atoms: float, threads: int) -> float:
        """Packing and unpacking `atoms` of one message: threaded, or by the master alone."""
        seconds = atoms * self.pack
        return self.share(seconds, threads) + self.loops(LOOPS_PER_MESSAGE, threads) if self.pack_threaded else seconds

    def loops(self, count: int, threads: int) -> float:
        return count * self.fork_join(threads) if threads > 1 else 0.0

    def describe(self) -> dict[str, Any]:
        """The inputs, as stored with every simulated run."""
        return {"force_s_per_atom_step": self.force, "integrate_s_per_atom_step": self.integrate,
                "neighbor_s_per_atom_rebuild": self.neighbor, "pack_s_per_atom": self.pack,
                "pack_threaded": self.pack_threaded,
                "thread_efficiency": {str(t): self.threads(t) for t in (2, 4, 8, 16)},
                "fork_join_s": {str(t): self.fork_join(t) for t in (2, 4, 8, 16)}, "sources": dict(self.sources)}


def _avg(profile: dict[str, Any], region: str) -> float:
    return profile["regions"].get(region, {}).get("time", {}).get("avg", 0.0)


def measured(serial: dict[str, Any], ghosts: int, threads: ThreadEfficiency,
             fork_join: Callable[[int], float], fork_join_source: str) -> ComputeModel:
    """Costs from a 1 rank x 1 thread md profile (its regions over its atoms, steps and builds; `ghosts` is what
    the plan of one rank gives, which the profile does not record)."""
    md = serial["md"]
    atoms, steps = md["atoms"], md["steps_done"]
    builds = max(1, steps // serial["params"].get("neigh_every", 20))
    packed = sum(md["halo"]["atoms_per_message"][0])
    where = f"measured: {serial['run']['command'][0].rsplit('/', 1)[-1]} 1 rank x 1 thread, {atoms} atoms"
    return ComputeModel(_avg(serial, "force") / (atoms * steps), _avg(serial, "integrate") / (atoms * steps),
                        _avg(serial, "neighbor") / ((atoms + ghosts) * builds),
                        _avg(serial, "halo_exchange") / (packed * steps) if packed else 0.0,
                        Threads(threads), fork_join,
                        {"costs": where, "threads": Threads(threads).source, "fork_join": fork_join_source})


def thesis_merlin(routines: list[dict[str, str]], threads: ThreadEfficiency, fork_join: Callable[[int], float],
                  fork_join_source: str, ghosts_per_rank: Callable[[float], float], bandwidth: float,
                  cores: int = 128) -> ComputeModel:
    """Costs of the thesis's MD code on a Merlin core (Table 4.8, pure MPI at `cores`): Forces as force,
    MoveA + MoveB + Hloop (its cell lists, rebuilt every step) as integration, and its movout, less the bytes'
    time on the network, per ghost atom as packing -- done by the master thread alone, as the thesis's hybrid
    code communicates (master-only). ghosts_per_rank(atoms per rank) is the halo the plan's geometry gives."""
    mine = {r["routine"]: float(r["seconds"]) for r in routines
            if r["configuration"] == "pure-mpi" and int(r["cores"]) == cores}
    atoms, steps = int(routines[0]["atoms"]), int(routines[0]["steps"])
    atom_steps = atoms * steps / cores
    move = mine["MoveA"] + mine["MoveB"] + mine["Hloop"]
    ghosts = ghosts_per_rank(atoms / cores)
    pack = (mine["Movout"] / steps - 24 * ghosts / bandwidth) / ghosts
    return ComputeModel(mine["Forces"] / atom_steps, move / atom_steps, 0.0, pack, Threads(threads), fork_join,
                        {"costs": f"thesis Table 4.8: Merlin pure MPI at {cores} cores, "
                                  f"{(mine['Forces'] + move) / atom_steps * 1e9:.0f} ns per atom-step; movout "
                                  f"{pack * 1e9:.0f} ns per ghost atom on the master thread",
                         "threads": Threads(threads).source, "fork_join": fork_join_source}, pack_threaded=False)
