"""The local backend: runs each planned run in turn on this machine with the project's launch line."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from hybridperf.launch import runner
from hybridperf.launch.lines import Configuration, Launch
from hybridperf.launch.machine import local_machine, Machine
from hybridperf.store.db import RunRecord
from hybridperf.study.backends import app as app_run, configuration, profile_path, record
from hybridperf.study.registry import Kind, this_machine_cores
from hybridperf.study.expand import RunPlan
from hybridperf.study.spec import Study


class LocalBackend:
    name = "local"
    exact = False

    def __init__(self, study: Study, results: Path, node: Machine | None = None):
        self.study, self.results = study, results
        self.node = node or (local_machine() if study.placements else None)  # placement chooses from its cores

    def config(self, plan: RunPlan) -> Configuration:
        return configuration(self.study, plan, self.node)

    def launch(self, plan: RunPlan) -> Launch:
        path = profile_path(self.results, plan)
        if self.study.app is not None:
            return app_run.prepare(self.study, plan, self.config(plan), path).launch
        return runner.prepare(plan.kernel, self.config(plan), plan.kernel_args(), path)

    def launch_line(self, plan: RunPlan) -> str:
        return self.launch(plan).shell()

    def run(self, plans: list[RunPlan], done: Callable[[RunRecord], None]) -> None:
        for plan in plans:
            started = time.time()
            path = profile_path(self.results, plan)
            if self.study.app is not None:
                launch, outcome = app_run.run(self.study, plan, self.config(plan), path)
            else:
                launch = self.launch(plan)
                outcome = runner.execute(launch, path, timeout=self.study.timeout, output=app_run.output_path(path))
            done(record(plan, self.study, self.name, launch.shell(), outcome, started, self.config(plan)))


KIND = Kind("local", lambda study, results, say: LocalBackend(study, results), exact=False, launches=True,
            node="this machine", cores=this_machine_cores, nodes=1)  # pyproject's entry point
