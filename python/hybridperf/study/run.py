"""Runs a study: expands the spec, skips the runs already stored, runs the rest through a backend with a
progress bar, and stores each run as it finishes.

Interrupting (Ctrl-C) stops the current run's processes and stores nothing for it; every stored run is
whole, so running the same command again resumes. A failed run (non-zero exit, failed correctness
check, timeout) is stored with its status and the end of its stderr, and the study goes on.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from hybridperf.store.db import RunRecord, Store
from hybridperf.study.expand import RunPlan, expand
from hybridperf.study.spec import Study


class Backend(Protocol):
    name: str

    def launch_line(self, plan: RunPlan) -> str: ...

    def run(self, plans: list[RunPlan], done: "callable") -> None: ...


@dataclass
class StudyOutcome:
    total: int
    skipped: int
    stored: list[RunRecord] = field(default_factory=list)
    interrupted: bool = False

    @property
    def failed(self) -> list[RunRecord]:
        return [r for r in self.stored if r.status != "ok"]


def pending(study: Study, store: Store, retry_failed: bool = False) -> tuple[list[RunPlan], int]:
    """The runs still to do, and how many of the study's runs are already stored."""
    plans = expand(study)
    statuses = ("ok", "check-failed") if retry_failed else ("ok", "check-failed", "failed", "timeout")
    stored = store.recorded_keys(study.name, statuses)
    todo = [p for p in plans if p.key not in stored]
    return todo, len(plans) - len(todo)


def run_study(study: Study, store: Store, backend: Backend, console: Console, source: str,
              retry_failed: bool = False) -> StudyOutcome:
    store.save_study(study.name, study.kernel, study.as_dict(), source, time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    todo, skipped = pending(study, store, retry_failed)
    outcome = StudyOutcome(total=len(todo) + skipped, skipped=skipped)
    if skipped:
        console.print(f"resuming {study.name}: {skipped} of {outcome.total} runs already stored")
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("eta"), TimeRemainingColumn())
    with Progress(*columns, console=console) as bar:
        task = bar.add_task(study.name, total=outcome.total, completed=skipped)

        def done(record: RunRecord) -> None:
            store.add_run(record)
            outcome.stored.append(record)
            for w in record.warnings:
                bar.console.print(f"[yellow]warning:[/yellow] {record.study} {record.nodes}n{record.ranks_per_node}r"
                                  f"{record.threads}t: {w}")
            if record.status != "ok":
                bar.console.print(f"[red]{record.status}[/red]: {record.launch}\n{(record.stderr or '').strip()[-600:]}",
                                  highlight=False, markup=True)
            bar.advance(task)

        try:
            backend.run(todo, done)
        except KeyboardInterrupt:
            outcome.interrupted = True
    return outcome


def default_results(study: Study) -> Path:
    return Path(study.results)
