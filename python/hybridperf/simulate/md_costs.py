"""md's compute model: seconds a rank computes between its communications, from what was measured on a node.

A region's time on a rank is its work units times the region's cost per unit on one core, shared by T threads
at an efficiency e(T) (compute.Threads), slowed where c cores of the node compute at once by the node's
efficiency n(c), plus OpenMP's fork/join for each threaded loop entered:

    t(region) = units x cost / (T e(T) n(R T))  +  [T > 1] loops x fork_join(T)

n(c) is a node's: one core alone runs faster than each of c busy ones (shared caches and memory bandwidth,
clock boost), which a serial profile alone cannot show. Measured, it is the serial run's computation per step
over c times that of a run of c ranks of one thread (per step: the two may have run different steps); e(T) is
then threads' loss beyond it (T ranks over T threads, as calibrate measures it). The thesis's costs are already
those of full nodes (n = 1).

Units (from the kernel's plan): force and integration cost per owned atom and step (the force and density per
`pair_atoms` where a plan has them: DL_POLY's pairs across a brick's faces computed twice), the neighbour-list build
per owned-or-ghost atom and rebuild, halo packing per atom packed (packed and unpacked; threaded as
hybridperf-md does, or by the master thread alone as the thesis's code did). Costs come either from a serial
profile measured here (`measured`) or from the thesis's published figures of a machine (`thesis_routines`). A step
runs as hybridperf-md runs it (kernels/md/main.c): half kick | halo (rebuild: migration, the halo build, then
the lists) | force and half kick | global sum at thermo steps. A many-body potential's step puts its own
exchanges between its computations, as its plan orders them: eam/fs's density pass before the densities go
home (then F'(rho) out), the force loop before the forces go home; Tersoff's force loop before its forces go
home. Their time per owned atom and step is measured as the force's is. Pure."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from hybridperf.models.split import ThreadEfficiency
from hybridperf.shapes import Placement
from hybridperf.simulate.compute import StepCompute, Threads
from hybridperf.simulate.plan import Plan, RankPlan

# md's threaded loops: 2 integration halves and the force per step; a pack and an unpack per halo message
LOOPS_OUTSIDE_HALO = 3
LOOPS_PER_MESSAGE = 2
POSITION = 24  # bytes per atom in a halo message (3 doubles)


@dataclass(frozen=True)
class MdCosts:
    force: float  # s per owned atom and step, one core (a many-body potential's force loop and copies' sum)
    integrate: float  # s per owned atom and step
    neighbor: float  # s per owned or ghost atom and rebuild
    pack: float  # s per atom packed and unpacked
    threads: Threads
    fork_join: Callable[[int], float]  # s per threaded loop at T threads
    sources: dict[str, str] = field(default_factory=dict)  # input -> where it comes from
    pack_threaded: bool = True  # False: the master thread packs alone (the thesis's master-only movout)
    density: float = 0.0  # s per owned atom and step: eam/fs's density pass and embedding terms
    node: Threads = Threads(ThreadEfficiency((), "full nodes: no loss of their own"))  # n(c)
    p2p_region = "halo_exchange"
    sum_region = "reduction"
    region_groups = {"computation": ["force", "density", "integrate", "neighbor", "halo_pack"],
                     "communication": ["halo_exchange", "reduction"]}

    def share(self, seconds: float, split: Placement) -> float:
        """One core's seconds of threaded work, spread over the split's threads on a node as busy as the split."""
        threads = split.threads
        return seconds / (threads * self.threads(threads) * self.node(split.ranks_per_node * threads))

    def packing(self, atoms: float, split: Placement) -> float:
        """Packing and unpacking `atoms` of one message: threaded, or by the master alone."""
        seconds = atoms * self.pack
        if self.pack_threaded:
            return self.share(seconds, split) + self.loops(LOOPS_PER_MESSAGE, split.threads)
        return seconds / self.node(split.ranks_per_node)  # the master alone, beside the node's other masters

    def loops(self, count: int, threads: int) -> float:
        return count * self.fork_join(threads) if threads > 1 else 0.0

    def step(self, plan: Plan, rank: RankPlan, step: int, split: Placement) -> StepCompute:
        atoms, pairs = rank.work["atoms"], pair_atoms(rank)
        half = self.share(atoms * self.integrate / 2, split)
        # a many-body potential computes before its own exchanges: each computation before the first message of
        # the exchange that carries its result
        before = {"density_exchange": self.density, "force_exchange": self.force}
        per_message, computed = [], set()
        for op in plan.halo_ops(rank, step):
            seconds = self.packing(op.bytes / POSITION, split) if op.region == "halo_exchange" else 0.0
            if op.region in before and op.region not in computed:
                computed.add(op.region)
                seconds += self.share(pairs * before[op.region], split) + self.loops(1, split.threads)
            per_message.append(seconds)
        lists = self.share((atoms + rank.work["ghosts"]) * self.neighbor, split) if step in plan.rebuild_steps \
            else 0.0
        force = 0.0 if "force_exchange" in computed else self.share(pairs * self.force, split)
        after = force + half + lists + self.loops(LOOPS_OUTSIDE_HALO, split.threads)
        return StepCompute(half, tuple(per_message), after)

    def regions(self, plan: Plan, rank: RankPlan, split: Placement) -> dict[str, float]:
        atoms, pairs = rank.work["atoms"], pair_atoms(rank)
        return {"force": self.share(pairs * self.force * plan.steps, split),
                **({"density": self.share(pairs * self.density * plan.steps, split)} if self.density else {}),
                "integrate": self.share(atoms * self.integrate * plan.steps, split),
                "neighbor": self.share((atoms + rank.work["ghosts"]) * self.neighbor * len(plan.rebuild_steps),
                                       split),
                "halo_pack": self.packing(rank.work["packed"], split) * plan.steps}

    def describe(self) -> dict[str, Any]:
        """The inputs, as stored with every simulated run."""
        return {"force_s_per_atom_step": self.force, "density_s_per_atom_step": self.density,
                "integrate_s_per_atom_step": self.integrate,
                "neighbor_s_per_atom_rebuild": self.neighbor, "pack_s_per_atom": self.pack,
                "pack_threaded": self.pack_threaded,
                "thread_efficiency": {str(t): self.threads(t) for t in (2, 4, 8, 16)},
                "node_efficiency": {str(c): self.node(c) for c in (2, 4, 8, 16)},
                "fork_join_s": {str(t): self.fork_join(t) for t in (2, 4, 8, 16)}, "sources": dict(self.sources)}


def pair_atoms(rank: RankPlan) -> int:
    """The owned atoms whose pairs the force and density passes compute, counting a pair again where the code
    computes it on both sides of a brick's face (DL_POLY: simulate.dlpoly) -- the owned atoms themselves where
    every pair is computed once."""
    return rank.work.get("pair_atoms", rank.work["atoms"])


def _avg(profile: dict[str, Any], region: str) -> float:
    return profile["regions"].get(region, {}).get("time", {}).get("avg", 0.0)


def measured(serial: dict[str, Any], ghosts: int, threads: ThreadEfficiency,
             fork_join: Callable[[int], float], fork_join_source: str,
             node: ThreadEfficiency = ThreadEfficiency((), "assumed: busy cores run as fast as one alone")) -> MdCosts:
    """Costs from a 1 rank x 1 thread md profile (its regions over its atoms, steps and builds; `ghosts` is what
    the plan of one rank gives, which the profile does not record); n(c) and e(T) as measured."""
    md = serial["md"]
    atoms, steps = md["atoms"], md["steps_done"]
    builds = max(1, steps // serial["params"].get("neigh_every", 20))
    packed = sum(md["halo"]["atoms_per_message"][0])
    where = f"measured: {serial['run']['command'][0].rsplit('/', 1)[-1]} 1 rank x 1 thread, {atoms} atoms"
    force = _avg(serial, "force") + _avg(serial, "force_reduction")  # the copies' sum: nothing on one thread
    return MdCosts(force / (atoms * steps), _avg(serial, "integrate") / (atoms * steps),
                   _avg(serial, "neighbor") / ((atoms + ghosts) * builds),
                   _avg(serial, "halo_exchange") / (packed * steps) if packed else 0.0,
                   Threads(threads), fork_join,
                   {"costs": where, "threads": Threads(threads).source, "node": Threads(node).source,
                    "fork_join": fork_join_source}, node=Threads(node), density=_avg(serial, "density") / (atoms * steps))


def thesis_routines(routines: list[dict[str, str]], where: str, threads: ThreadEfficiency,
                    fork_join: Callable[[int], float], fork_join_source: str, ghosts_per_rank: Callable[[float], float],
                    bandwidth: float, cores: int) -> MdCosts:
    """Costs of the thesis's MD code on a core of the machine whose routine table `routines` is (`where`, e.g.
    "thesis Table 4.8: Merlin"; pure MPI at `cores`): Forces as force, MoveA + MoveB + Hloop (its cell lists,
    rebuilt every step) as integration, and its movout, less the bytes' time at the network's `bandwidth`, per
    ghost atom as packing -- done by the master thread alone, as the thesis's hybrid code communicates
    (master-only). ghosts_per_rank(atoms per rank) is the halo the plan's geometry gives."""
    mine = {r["routine"]: float(r["seconds"]) for r in routines
            if r["configuration"] == "pure-mpi" and int(r["cores"]) == cores}
    atoms, steps = int(routines[0]["atoms"]), int(routines[0]["steps"])
    atom_steps = atoms * steps / cores
    move = mine["MoveA"] + mine["MoveB"] + mine["Hloop"]
    ghosts = ghosts_per_rank(atoms / cores)
    pack = (mine["Movout"] / steps - 24 * ghosts / bandwidth) / ghosts
    return MdCosts(mine["Forces"] / atom_steps, move / atom_steps, 0.0, pack, Threads(threads), fork_join,
                        {"costs": f"{where} pure MPI at {cores} cores, "
                                  f"{(mine['Forces'] + move) / atom_steps * 1e9:.0f} ns per atom-step; movout "
                                  f"{pack * 1e9:.0f} ns per ghost atom on the master thread",
                         "threads": Threads(threads).source, "fork_join": fork_join_source}, pack_threaded=False)
