"""Configuration shapes: the one place that turns a configuration name at a scale into nodes x ranks per
node x threads per rank.

The thesis's three configurations (seed-spec §C.1) on nodes of P cores: `pure-mpi` is P ranks of 1
thread per node, `hybrid-1` one rank of P threads, `hybrid-2` two ranks of P/2 threads (it does not
exist where a node has an odd number of cores, or one core); `RxT` is R ranks of T threads per node.
A scale is a total core count (fewer cores than a node: one partly used node) or a node count.
`NAME@PLACEMENT` is a configuration placed by a policy (`placed`): compact and spread keep its shape (they differ
in which cores it gets: launch.placement), underpopulate moves it onto twice the nodes at half the ranks (or, at
one rank per node, half the threads) per node, oversubscribe gives each rank twice its threads on its own cores.
Spec validation, run expansion, the analysis of a stored study and the thesis's models all ask here,
so a configuration has the same shape everywhere. Pure functions, no imports from the rest of the
package: every layer may use this module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

NAMED_CONFIGURATIONS = ("pure-mpi", "hybrid-1", "hybrid-2")
ALL = "all"  # `configurations: all`: every split of the node (every_split)
EXPLICIT = re.compile(r"([1-9]\d*)x([1-9]\d*)")
PLACEMENTS = ("compact", "spread", "underpopulate", "oversubscribe")


class NotApplicable(ValueError):
    """A configuration that does not exist at a scale (hybrid-2 on one core): such a point is skipped."""


class Placement:
    """The shape of a run — nodes x MPI ranks per node x OpenMP threads per rank — for the dataclasses
    that declare those three fields (launch configurations, planned runs, modelled splits)."""

    nodes: int
    ranks_per_node: int
    threads: int

    @property
    def ranks(self) -> int:
        return self.nodes * self.ranks_per_node

    @property
    def cores(self) -> int:
        return self.ranks * self.threads


def is_configuration(name: str) -> bool:
    base, placement = split_placement(name)
    return (base in NAMED_CONFIGURATIONS or EXPLICIT.fullmatch(base) is not None) and placement in (None, *PLACEMENTS)


def split_placement(name: str) -> tuple[str, str | None]:
    """'pure-mpi@spread' -> ('pure-mpi', 'spread'); a name without a placement -> (name, None)."""
    base, at, placement = name.partition("@")
    return base, (placement if at else None)


def placed(placement: str, nodes: int, ranks_per_node: int, threads: int) -> tuple[int, int, int]:
    """The shape a configuration runs in under a placement policy. Raises NotApplicable where underpopulating has
    nothing to halve (one rank of one thread per node)."""
    if placement == "underpopulate":
        if ranks_per_node % 2 == 0:
            return 2 * nodes, ranks_per_node // 2, threads
        if ranks_per_node == 1 and threads % 2 == 0:
            return 2 * nodes, 1, threads // 2
        raise NotApplicable(f"underpopulate halves the ranks (or threads) per node; {ranks_per_node} x {threads} "
                            "cannot be halved")
    if placement == "oversubscribe":
        return nodes, ranks_per_node, 2 * threads
    if placement not in PLACEMENTS:
        raise ValueError(f"unknown placement '{placement}': use {', '.join(PLACEMENTS)}")
    return nodes, ranks_per_node, threads


def shape(configuration: str, cores_per_node: int, cores: int | None = None,
          nodes: int | None = None) -> tuple[int, int, int]:
    """(nodes, ranks per node, threads) of a configuration at a total core count or at a node count.
    Raises NotApplicable where the configuration does not exist, ValueError where the scale cannot hold it."""
    if (cores is None) == (nodes is None):
        raise ValueError("give a core count or a node count, not both")
    configuration, placement = split_placement(configuration)
    if placement is not None:
        return placed(placement, *shape(configuration, cores_per_node, cores, nodes))
    explicit = EXPLICIT.fullmatch(configuration)
    if not explicit and configuration not in NAMED_CONFIGURATIONS:
        raise ValueError(f"unknown configuration '{configuration}': use {', '.join(NAMED_CONFIGURATIONS)} or "
                         "RANKSxTHREADS per node")
    if explicit:
        rpn, threads = int(explicit[1]), int(explicit[2])
        if cores is None:
            return nodes, rpn, threads
        if cores < rpn * threads:
            raise NotApplicable(f"{configuration} needs {rpn * threads} cores, more than {cores}")
        if cores % (rpn * threads):
            raise ValueError(f"{cores} cores cannot be split into {configuration} per node")
        return cores // (rpn * threads), rpn, threads
    if nodes is not None:
        width = cores_per_node
    elif cores >= cores_per_node:
        if cores % cores_per_node:
            raise ValueError(f"{cores} cores is not a whole number of {cores_per_node}-core nodes")
        nodes, width = cores // cores_per_node, cores_per_node
    else:
        nodes, width = 1, cores
    if configuration == "pure-mpi":
        return nodes, width, 1
    if configuration == "hybrid-1":
        return nodes, 1, width
    if width < 2 or width % 2:
        raise NotApplicable(f"hybrid-2 needs an even number of cores per node, got {width}")
    return nodes, 2, width // 2


def splits(cores_per_node: int) -> list[tuple[int, int]]:
    """Every (ranks, threads) per node whose product is the node's cores, most ranks first: the one enumeration of
    the splits a node allows (the model, the simulator and `configurations: all` all ask here)."""
    return [(r, cores_per_node // r) for r in range(cores_per_node, 0, -1) if cores_per_node % r == 0]


def every_split(cores_per_node: int) -> tuple[str, ...]:
    """`configurations: all` as names: pure-mpi and hybrid-1 at the ends (so that on part of a node, as at one core,
    they take the cores there are), RxT for the splits between (which exist only on whole nodes)."""
    named = {(cores_per_node, 1): "pure-mpi", (1, cores_per_node): "hybrid-1"}
    return tuple(dict.fromkeys(named.get((r, t), f"{r}x{t}") for r, t in splits(cores_per_node)))


@dataclass(frozen=True)
class DesignPoint:
    """One configuration at one scale of a design."""

    configuration: str
    scale: int  # cores or nodes, as the design's axis
    nodes: int
    ranks_per_node: int
    threads: int

    @property
    def cores(self) -> int:
        return self.nodes * self.ranks_per_node * self.threads

    @property
    def key(self) -> tuple[int, int, int]:
        return self.nodes, self.ranks_per_node, self.threads


@dataclass(frozen=True)
class Design:
    """Which configurations a study measures at which scales: what analysis needs of a study's spec."""

    configurations: tuple[str, ...]
    axis: str  # "cores" or "nodes"
    scales: tuple[int, ...]
    cores_per_node: int
    configuration_params: dict[str, dict[str, Any]] = field(default_factory=dict)  # per configuration

    @property
    def configuration_keys(self) -> set[str]:
        """Parameters set per configuration: they say how a problem is run, not which problem it is."""
        return {k for params in self.configuration_params.values() for k in params}

    def points(self) -> list[DesignPoint]:
        """Every configuration at every scale where it exists, scales outermost."""
        out = []
        for scale in self.scales:
            for config in self.configurations:
                where = {self.axis: scale}
                try:
                    n, r, t = shape(config, self.cores_per_node, **where)
                except NotApplicable:
                    continue
                out.append(DesignPoint(config, scale, n, r, t))
        return out
