"""`hybridperf simulate SPEC --cluster NAME`'s table for an app study: each traced run's seconds as measured, replayed
on the cluster and on an ideal network, and POP's transfer and serialization efficiency. Pure: the CLI passes
simulate.app_replay.Replayed's figures."""

from __future__ import annotations

from typing import Any

from hybridperf.report.tables import Table

# one run replayed: the measured run (as stored), the ranks per node it was replayed with, its seconds on the cluster
# and on the ideal network, and POP's transfer and serialization efficiency
Replay = tuple[dict[str, Any], int, float, float, float, float]


def table(study: str, cluster: str, speed: float, replays: list[Replay]) -> Table:
    """Per run: its split, cores and block, seconds from MPI_Init to MPI_Finalize measured (its slowest rank's),
    replayed and on the ideal network, replayed over measured, and the two efficiencies; `speed`: the cluster's
    core speed over this machine's."""
    core = "as measured" if speed == 1 else f"{speed:g}x this machine's"
    placed = sorted({per_node for _, per_node, *_ in replays})
    rows = []
    for run, _, seconds, ideal, transfer, serialization in replays:
        rank_times = run["profile"].get("rank_times")
        measured = max(rank_times["elapsed"]) if rank_times else None
        rows.append([" = ".join(run["configurations"]), str(run["ranks"] * run["threads"]), str(run["repeat"]),
                     f"{measured:.4g}" if measured else "-", f"{seconds:.4g}", f"{ideal:.4g}",
                     f"{seconds / measured:.3f}" if measured else "-", f"{transfer:.3f}", f"{serialization:.3f}"])
    return (f"{study} replayed on {cluster} ({'/'.join(map(str, placed))} ranks per node, cores {core}) and on an "
            "ideal network: seconds from MPI_Init to MPI_Finalize (ratio: replayed / measured), POP's transfer and "
            "serialization efficiency",
            ["split", "cores", "block", "measured", "replayed", "ideal", "ratio", "transfer", "serial."], rows)
