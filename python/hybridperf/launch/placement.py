"""Placement: which cores of a node each rank is bound to, chosen from hwloc's topology (launch.machine's sites).

The thesis asked whether cache sharing matters by binding 4 processes (or threads) to one socket of a Merlin node,
where pairs of cores share an L2 — CPUs {0,2,4,6} — against spreading them so that no two share one — {0,1,4,5}
(seed-spec §A.11–§A.12, Table 4.3's numbering). The policies here make that choice on any node:
- compact: the cores in hwloc's logical order — one package first, cores that share a cache side by side;
- spread: one core from each package in turn, and within a package one from each shared cache in turn, so that
  as few cores as possible share a package or a cache (on Merlin's numbering: exactly {0,1,4,5} for four);
- underpopulate: the spread choice on each of twice the nodes (shapes.placed halves the ranks per node), the rest
  of each node idle — the thesis's ppn 8 against ppn 4 on twice the nodes, placed so cache is not shared;
- oversubscribe: the compact cores, each rank running twice its threads on them (MPC's oversubscribed mode).
The chosen cores are then handed out in logical order, `threads` to each rank (half that when oversubscribed),
so a rank's cores stay in one package when the ranks outnumber the packages. Where two policies choose the same
cores (one package whose cores share no cache but one they all share, as a 2-core virtual machine) `coincide`
says so in one line. The launcher's own words for a choice are here too — Open MPI's rankfile (hwloc's logical
core numbers), MPICH Hydra's `-bind-to user:` list and Slurm's `--cpu-bind` map or masks (the operating system's
CPU numbers) — and lines.py puts them on the line. Pure functions.
"""

from __future__ import annotations

from dataclasses import dataclass

from hybridperf.launch.machine import Machine, Site


class PlacementError(ValueError):
    """A placement the node cannot hold; the message says what to change."""


@dataclass(frozen=True)
class Binding:
    """Each rank's cores on one node (every node of a run is bound alike), and the policy that chose them."""

    policy: str
    ranks: tuple[tuple[Site, ...], ...]

    def cpus(self) -> tuple[tuple[int, ...], ...]:
        """Each rank's CPUs as the operating system numbers them (what a profile's affinity records)."""
        return tuple(tuple(s.cpu for s in rank) for rank in self.ranks)

    def ranks_per_package(self) -> int:
        """The most ranks any one package holds (a rank counted in the package of its first core)."""
        counts: dict[int, int] = {}
        for rank in self.ranks:
            counts[rank[0].package] = counts.get(rank[0].package, 0) + 1
        return max(counts.values())


def _compact(sites: tuple[Site, ...]) -> list[Site]:
    return sorted(sites, key=lambda s: s.logical)


def _round_robin(groups: list[list[Site]]) -> list[Site]:
    """The first of each group, then the second of each, and so on."""
    out: list[Site] = []
    for i in range(max((len(g) for g in groups), default=0)):
        out += [g[i] for g in groups if i < len(g)]
    return out


def _spread(sites: tuple[Site, ...]) -> list[Site]:
    """Packages in turn; within each package, its shared caches in turn."""
    packages: dict[int, dict[int, list[Site]]] = {}
    for s in _compact(sites):
        packages.setdefault(s.package, {}).setdefault(s.shared, []).append(s)
    return _round_robin([_round_robin(list(caches.values())) for caches in packages.values()])


def cores_per_rank(policy: str, threads: int) -> int:
    """Cores a rank is bound to: one per thread, or one per two threads when the policy oversubscribes."""
    return max(1, threads // 2) if policy == "oversubscribe" else threads


def bind(machine: Machine, policy: str, ranks_per_node: int, threads: int) -> Binding:
    """Each rank's cores on a node for a run of this shape (the policy's shape already applied: shapes.placed)."""
    width = cores_per_rank(policy, threads)
    wanted = ranks_per_node * width
    if not machine.sites:
        raise PlacementError(f"{machine.hostname}: the node's cores are not known (install hwloc: lstopo)")
    if wanted > len(machine.sites):
        raise PlacementError(f"{policy} placement of {ranks_per_node} ranks x {width} cores needs {wanted} cores; "
                             f"a node of {machine.hostname} has {len(machine.sites)}")
    order = _compact(machine.sites) if policy in ("compact", "oversubscribe") else _spread(machine.sites)
    chosen = _compact(tuple(order[:wanted]))
    return Binding(policy, tuple(tuple(chosen[r * width:(r + 1) * width]) for r in range(ranks_per_node)))


def coincide(machine: Machine, ranks_per_node: int, threads: int) -> str | None:
    """One line when compact and spread choose the same cores for this shape on this node; None when they differ."""
    compact = bind(machine, "compact", ranks_per_node, threads)
    spread = bind(machine, "spread", ranks_per_node, threads)
    if compact.cpus() != spread.cpus():
        return None
    cpus = ",".join(str(c) for rank in compact.cpus() for c in rank)
    sharing = max(sum(s.shared == t.shared for t in machine.sites) for s in machine.sites)
    return (f"{ranks_per_node} x {threads}: compact and spread bind the same CPUs ({cpus}) on {machine.hostname}, "
            f"{machine.packages} package(s) whose first shared cache holds {sharing} core(s): they race as an A/A "
            "pair, which should tie")


def rankfile(binding: Binding) -> str:
    """Open MPI's rankfile for the binding on this node: `rank R=localhost slot=L,...`, L hwloc's logical core
    numbers (Open MPI reads slots as logical unless told otherwise). One node only: Open MPI 4.1 aborts on the
    relative host names (`+n0`) a rankfile for several would need."""
    return "".join(f"rank {i}=localhost slot={','.join(str(s.logical) for s in rank)}\n"
                   for i, rank in enumerate(binding.ranks))


def hydra_user(binding: Binding) -> str:
    """MPICH Hydra's `-bind-to` value: `user:0+4,1+5`, each local rank's OS CPU numbers joined by '+'."""
    return "user:" + ",".join("+".join(str(c) for c in rank) for rank in binding.cpus())


def slurm_cpu_bind(binding: Binding) -> str:
    """srun's `--cpu-bind` value: `map_cpu:0,1,4,5` for one CPU per task, else `mask_cpu:0x11,0x22`."""
    cpus = binding.cpus()
    if all(len(rank) == 1 for rank in cpus):
        return "map_cpu:" + ",".join(str(rank[0]) for rank in cpus)
    return "mask_cpu:" + ",".join(hex(sum(1 << c for c in rank)) for rank in cpus)


def slurm_distribution(policy: str) -> str:
    """srun's `--distribution`: tasks in blocks over nodes; within a node in blocks over sockets (compact) or
    cyclically over them (the others)."""
    return "block:block" if policy in ("compact", "oversubscribe") else "block:cyclic"
