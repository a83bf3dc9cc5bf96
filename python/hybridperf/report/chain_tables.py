"""`hybridperf simulate chain`'s tables: IMB's Sendrecv chain replayed on a described cluster, its 0-byte time
against the rank count and its bandwidth per message size and rank count. Pure: the CLI passes
simulate.chain's figures."""

from __future__ import annotations

from collections.abc import Sequence

from hybridperf.report.tables import Table


def _title(cluster: str, ranks_per_node: int) -> str:
    return f"IMB Sendrecv chain on {cluster}, simulated ({ranks_per_node} ranks per node; t = t_max per iteration)"


def overheads(cluster: str, ranks_per_node: int, counts: Sequence[int], found: dict[int, dict[str, float]]) -> Table:
    """Per rank count: the 0-byte time of Sendrecv and of Send+Irecv+Wait in microseconds, and Sendrecv's over its
    time at the smallest count; `found`: chain.overheads, seconds per rank count and loop."""
    rows = [[str(p), f"{1e6 * found[p]['sendrecv']:.3f}", f"{1e6 * found[p]['send_irecv_wait']:.3f}",
             f"{found[p]['sendrecv'] / found[counts[0]]['sendrecv']:.2f}"] for p in counts]
    return (f"{_title(cluster, ranks_per_node)}: the 0-byte time against the rank count",
            ["ranks", "Sendrecv (us)", "Send+Irecv+Wait (us)", f"Sendrecv / at {counts[0]}"], rows)


def bandwidth(cluster: str, ranks_per_node: int, counts: Sequence[int], sizes: Sequence[int],
              found: dict[tuple[int, int], float]) -> Table:
    """Per message size (rows) and rank count (columns): Sendrecv's bandwidth, 2 x bytes / t_max in MB/s; `found`:
    per (ranks, bytes)."""
    rows = [[str(size), *(f"{found[p, size]:,.0f}" for p in counts)] for size in sizes]
    return (f"{_title(cluster, ranks_per_node)}: Sendrecv bandwidth, 2 x bytes / t_max (MB/s), per size (rows) and "
            "rank count (columns)", ["bytes", *map(str, counts)], rows)
