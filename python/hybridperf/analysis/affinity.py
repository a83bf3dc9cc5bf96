"""Did the threads run where they were meant to? Compares a profile's recorded affinity with the intent.

The intent of every non-oversubscribed configuration is one thread per core: the threads of a rank
on distinct cores, and no two threads of a node on the same core. Pure function over the profile's
`run.affinity` (per rank, per thread: the CPUs it was allowed and the CPU it was seen on).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any


def placement_warnings(run: dict[str, Any], cores_per_node: int) -> list[str]:
    """Warnings about threads sharing a core or requested cores left idle; [] when placement is right."""
    warnings: list[str] = []
    ranks = run.get("affinity", [])
    threads_per_rank = run.get("threads_per_rank", 1)
    per_host: dict[str, list[tuple[int, int, frozenset[int], int]]] = defaultdict(list)
    for rank in ranks:
        for t in rank["threads"]:
            per_host[rank["host"]].append((rank["rank"], t["thread"], frozenset(t["allowed"]), t["cpu"]))

    for host, threads in per_host.items():
        wanted = len(threads)
        if wanted > cores_per_node:
            continue  # oversubscribed on purpose: sharing is expected
        bound = [t for t in threads if len(t[2]) < cores_per_node]
        pinned: dict[int, list[str]] = defaultdict(list)
        for rank, thread, allowed, _ in bound:
            if len(allowed) == 1:
                pinned[next(iter(allowed))].append(f"rank {rank} thread {thread}")
        for cpu, who in sorted(pinned.items()):
            if len(who) > 1:
                warnings.append(f"{host}: {', '.join(who)} are all pinned to CPU {cpu}")
        by_rank: dict[int, list[frozenset[int]]] = defaultdict(list)
        for rank, _, allowed, _ in threads:
            by_rank[rank].append(allowed)
        for rank, sets in sorted(by_rank.items()):
            usable = frozenset().union(*sets)
            if threads_per_rank > 1 and len(usable) < threads_per_rank:
                warnings.append(
                    f"{host}: rank {rank} runs {threads_per_rank} threads on {len(usable)} CPU(s) "
                    f"{sorted(usable)}: its threads share cores"
                )
        seen = {cpu for *_, cpu in threads}
        if len(seen) < wanted and not warnings:
            warnings.append(
                f"{host}: {wanted} threads were last seen on only {len(seen)} distinct CPU(s) {sorted(seen)}; "
                "requested cores stayed idle"
            )
    return warnings


def binding_warnings(run: dict[str, Any], chosen: tuple[tuple[int, ...], ...]) -> list[str]:
    """Warnings for ranks whose threads were allowed other CPUs than their placement chose (`chosen`: each local
    rank's CPUs, every node alike; ranks numbered node by node); [] when every rank got exactly its cores."""
    warnings = []
    for rank in run.get("affinity", []):
        want = set(chosen[rank["rank"] % len(chosen)])
        got = set().union(*(t["allowed"] for t in rank["threads"]))
        if got != want:
            warnings.append(f"{rank['host']}: rank {rank['rank']} was allowed CPUs {sorted(got)}, not the "
                            f"{sorted(want)} its placement chose")
    return warnings
