"""`hybridperf simulate SPEC --cluster NAME` for a `kernel: app` study: its traced runs replayed on the cluster
and on an ideal network, shown beside what was measured, stored and reported (docs/simulation.md#your-own-program-replayed)."""

from __future__ import annotations

from pathlib import Path

from hybridperf import cluster
from hybridperf.cli.ui import console, errors
from hybridperf.report import replay_table
from hybridperf.report.terminal import rich_table
from hybridperf.simulate import app_study
from hybridperf.study.spec import Study


def replay_app(study: Study, described: cluster.ClusterSpec, results: Path, speed: float,
               per_node: int | None) -> str:
    """Replays and shows the study's traced runs; the replayed study's name (for its report)."""
    done = app_study.replay_study(study, results, described, speed, per_node,
                                  say=lambda line: errors.print(line, highlight=False))
    for line in done.skipped:
        errors.print(f"[yellow]not replayed:[/yellow] {line}", highlight=False)
    replays = [(run, r.ranks_per_node, r.seconds, r.ideal_seconds, r.transfer_efficiency, r.serialization_efficiency)
               for run, r in done.runs]
    console.print(rich_table(*replay_table.table(study.name, described.name, speed, replays), whole=1))
    console.print(f"{done.study}: {len(done.runs)} runs replayed, {len(done.skipped)} not; results in "
                  f"{results / 'results.db'}")
    return done.study
