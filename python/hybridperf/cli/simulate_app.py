"""`hybridperf simulate SPEC --cluster NAME` for a `kernel: app` study: its traced runs replayed on the cluster
and on an ideal network, shown beside what was measured, stored and reported (docs/simulation.md#your-own-program-replayed)."""

from __future__ import annotations

from pathlib import Path

from rich.table import Table

from hybridperf import cluster
from hybridperf.cli.ui import console, errors
from hybridperf.simulate import app_study
from hybridperf.study.spec import Study


def replay_app(study: Study, described: cluster.ClusterSpec, results: Path, speed: float,
               per_node: int | None) -> str:
    """Replays and shows the study's traced runs; the replayed study's name (for its report)."""
    done = app_study.replay_study(study, results, described, speed, per_node,
                                  say=lambda line: errors.print(line, highlight=False))
    for line in done.skipped:
        errors.print(f"[yellow]not replayed:[/yellow] {line}", highlight=False)
    core = "as measured" if speed == 1 else f"{speed:g}x this machine's"
    placed = sorted({r.ranks_per_node for _, r in done.runs})
    table = Table(title=f"{study.name} replayed on {described.name} ({'/'.join(map(str, placed))} ranks per node, "
                        f"cores {core}) and on an ideal network: seconds from MPI_Init to MPI_Finalize (ratio: "
                        "replayed / measured), POP's transfer and serialization efficiency")
    table.add_column("split", no_wrap=True)
    for col in ("cores", "block", "measured", "replayed", "ideal", "ratio", "transfer", "serial."):
        table.add_column(col, justify="right")
    for run, r in done.runs:
        rank_times = run["profile"].get("rank_times")
        measured = max(rank_times["elapsed"]) if rank_times else None
        table.add_row(" = ".join(run["configurations"]), str(run["ranks"] * run["threads"]), str(run["repeat"]),
                      f"{measured:.4g}" if measured else "-", f"{r.seconds:.4g}", f"{r.ideal_seconds:.4g}",
                      f"{r.seconds / measured:.3f}" if measured else "-", f"{r.transfer_efficiency:.3f}",
                      f"{r.serialization_efficiency:.3f}")
    console.print(table)
    console.print(f"{done.study}: {len(done.runs)} runs replayed, {len(done.skipped)} not; results in "
                  f"{results / 'results.db'}")
    return done.study
