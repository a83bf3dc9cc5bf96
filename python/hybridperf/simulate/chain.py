"""IMB's Sendrecv chain (`hybridperf-mixbench --bench chain`, docs/mixbench.md) on a described cluster: each rank's
iterations as a SimGrid trace, replayed once per rank count, loop and message size, one rank per core as IMB
runs it (ranks fill nodes in order, replay.py).

The chain's pattern is its definition -- rank r sends to (r + 1) mod p and receives from (r - 1) mod p -- so it
needs no kernel plan; the operations are the kernel's call for call (kernels/mixbench/chain.c), and `plan.count`
gives the calls, messages and bytes its profile would count. A replay ends when its slowest rank does, so the
time per iteration is IMB's t_max, and the bandwidth IMB's Sendrecv figure, 2 x bytes / t_max."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hybridperf import cluster
from hybridperf.simulate import replay, traces
from hybridperf.simulate.plan import Op, Traffic, count

LOOPS = ("sendrecv", "send_irecv_wait")  # the kernel's two tables, chain_<loop>
TAG = 3  # the kernel's
REGION = "chain"
ITERATIONS = 10  # a replay is exact and every iteration alike: ten give the time per iteration past the first
SEED_RANKS = (8, 16, 32, 64, 128, 256, 512)  # the thesis's chains on Merlin (seed-spec §C.8)
DEFAULT_SIZES = (0, *(4 ** k for k in range(12)))  # 0 B, then 1 B to 4 MiB by factors of 4
MAX_SIZE = 1 << 30  # the kernel's largest message


class ChainError(ValueError):
    """A rank count or size the chain cannot take; the message says which and why."""


@dataclass(frozen=True)
class ChainPoint:
    ranks: int
    loop: str
    bytes: int
    iterations: int
    seconds: float  # per iteration: the slowest rank's (t_max)
    traffic: Traffic  # all ranks, all iterations, as the kernel's profile counts them

    @property
    def bandwidth_MBps(self) -> float:
        return 2 * self.bytes / self.seconds / 1e6 if self.seconds > 0 else 0.0


def neighbours(rank: int, ranks: int) -> tuple[int, int]:
    """(left, right): whom the rank receives from and sends to."""
    return (rank - 1) % ranks, (rank + 1) % ranks


def iteration_ops(rank: int, ranks: int, size: int, loop: str) -> tuple[Op, ...]:
    """One iteration of a loop on one rank, as the kernel makes it."""
    left, right = neighbours(rank, ranks)
    if loop == "sendrecv":
        return (Op("sendrecv", REGION, size, to=right, source=left, recv_bytes=size, tag=TAG),)
    return (Op("irecv", REGION, 0, source=left, recv_bytes=size, tag=TAG),
            Op("send", REGION, size, to=right, tag=TAG),
            Op("wait", REGION, 0, to=rank, source=left, tag=TAG))


def rank_ops(rank: int, ranks: int, size: int, loop: str, iterations: int = ITERATIONS) -> tuple[Op, ...]:
    return iteration_ops(rank, ranks, size, loop) * iterations


def parse_sizes(text: str) -> tuple[int, ...]:
    """'0,1K,64K,4M' -> sizes in bytes (K, M, G = 2^10, 2^20, 2^30), sorted, each once."""
    sizes = []
    for word in text.split(","):
        match = re.fullmatch(r"\s*(\d+)([KMG]?)\s*", word, re.IGNORECASE)
        if not match:
            raise ChainError(f"--sizes: {word.strip()!r} is not a size in bytes (e.g. 0, 8, 64K, 4M)")
        size = int(match[1]) << {"": 0, "K": 10, "M": 20, "G": 30}[match[2].upper()]
        if size > MAX_SIZE:
            raise ChainError(f"--sizes: {word.strip()} is larger than the largest message size, 1G")
        if size in sizes:
            raise ChainError(f"--sizes: {size} bytes is listed twice")
        sizes.append(size)
    return tuple(sorted(sizes))


def rank_counts(spec: cluster.ClusterSpec, given: Sequence[int] | None) -> tuple[int, ...]:
    """The given rank counts, checked against the cluster; by default the seeds' 8 ... 512 that fit on it."""
    capacity = spec.nodes * spec.cores_per_node
    if given is None:
        return tuple(p for p in SEED_RANKS if p <= capacity) or (capacity,)
    for p in given:
        if p < 2:
            raise ChainError(f"a chain needs at least 2 ranks, got {p}")
        if p > capacity:
            raise ChainError(f"{p} ranks, one per core, need {-(-p // spec.cores_per_node)} nodes of "
                             f"{spec.cores_per_node} cores; {spec.name} has {spec.nodes}")
    return tuple(sorted(set(given)))


def simulate(spec: cluster.ClusterSpec, counts: Sequence[int], sizes: Sequence[int], workdir: Path,
             progress: Callable[[str], None] = lambda line: None) -> list[ChainPoint]:
    """Every rank count x loop x size replayed on the cluster (I/O: SimGrid)."""
    points = []
    for p in counts:
        progress(f"chain: {p} ranks on {spec.name}, {len(LOOPS)} loops x {len(sizes)} sizes")
        for loop in LOOPS:
            for size in sizes:
                ops = [rank_ops(r, p, size, loop) for r in range(p)]
                texts = [traces.ops_trace(r, o, spec.cores_per_node, spec.interface()) for r, o in enumerate(ops)]
                total = replay.replay(texts, spec, spec.cores_per_node, workdir / f"p{p}")
                points.append(ChainPoint(p, loop, size, ITERATIONS, total / ITERATIONS,
                                         count([op for o in ops for op in o])))
    return points


def overheads(points: Sequence[ChainPoint]) -> dict[int, dict[str, float]]:
    """The 0-byte time per rank count and loop (seconds)."""
    found: dict[int, dict[str, float]] = {}
    for q in points:
        if q.bytes == 0:
            found.setdefault(q.ranks, {})[q.loop] = q.seconds
    return found


def as_json(points: Sequence[ChainPoint], spec: cluster.ClusterSpec) -> dict[str, Any]:
    return {
        "cluster": spec.name,
        "ranks_per_node": spec.cores_per_node,
        "direction": "periodic: rank r sends to (r + 1) mod p and receives from (r - 1) mod p",
        "time": "t_max: the replay's seconds per iteration (it ends with its slowest rank)",
        "bandwidth": "2 x bytes / t_max, in 10^6 bytes per second",
        "overhead_s": {str(p): loops for p, loops in overheads(points).items()},
        "points": [{"ranks": q.ranks, "loop": q.loop, "bytes": q.bytes, "iterations": q.iterations,
                    "seconds": q.seconds, "bandwidth_MBps": q.bandwidth_MBps, "calls": q.traffic.p2p_calls,
                    "messages": q.traffic.p2p_messages, "bytes_sent": q.traffic.p2p_bytes} for q in points],
    }
