"""An app study replayed on a cluster (`hybridperf simulate SPEC --cluster NAME` of a `kernel: app` study run with
`trace: true`): every run of the study's latest campaign whose traces are whole is replayed on the description's
platform and on its ideal network (simulate.app_replay) and stored as a run of the study `<study>-on-<cluster>`,
in the same block and position, so that its race pairs the splits as the measured one did and each split keeps
its runs' own spread (each replay carries its run's measured compute). I/O: reads the store and the traces, runs
SimGrid, writes profiles and the store."""

from __future__ import annotations

import json
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from hybridperf import cluster
from hybridperf.analysis.taxonomy import Mode
from hybridperf.files import write_atomic
from hybridperf.launch.runner import RunOutcome
from hybridperf.simulate import app_replay
from hybridperf.simulate.replay import simgrid_version
from hybridperf.store.db import RunRecord, Store
from hybridperf.study.backends import record
from hybridperf.study.campaign import lifecycle
from hybridperf.study.expand import RunPlan
from hybridperf.study.spec import Study
from hybridperf.study.stored import REPLAYED_ON

BACKEND = "replay"  # the stored runs' backend: traces replayed, not planned (the simgrid backend's)


class NothingToReplay(ValueError):
    """The study has no run whose traces can be replayed; the message says why."""


@dataclass
class Replays:
    study: str  # the replayed study's name: <study>-on-<cluster>
    campaign: int
    runs: list[tuple[dict[str, Any], app_replay.Replayed]] = field(default_factory=list)  # (measured run, replay)
    skipped: list[str] = field(default_factory=list)  # one line per measured run not replayed, with why


def replay_study(study: Study, results: Path, spec: cluster.ClusterSpec, speed: float, per_node: int | None,
                 say: Callable[[str], None] = lambda line: None) -> Replays:
    """Every traced run of the study's latest campaign replayed on the cluster and stored (a new campaign of
    `<study>-on-<cluster>`). A stored replay keeps its measured run's shape (nodes, ranks per node), which names
    the split it races as; where its ranks were placed on the cluster is its profile's `run`."""
    with Store(results) as store:
        if study.name not in store.studies():
            raise NothingToReplay(f"{results} holds no runs of {study.name}: run it first (hybridperf study SPEC, with "
                                  "`trace: true` in its app block)")
        measured = [r for r in store.runs(study.name, store.campaign(study.name).number)
                    if r["status"] == "ok" and r["profile"]]
        traced, skipped = [], []
        for run in measured:
            try:
                traced.append((run, app_replay.trace_files(results, run["profile"])))
            except app_replay.NotReplayable as err:
                skipped.append(f"{run['run_key']}: {err}")
        if not traced:
            raise NothingToReplay(f"no run of {study.name}'s latest campaign can be replayed: " +
                                  (skipped[0].split(": ", 1)[1] if skipped else "none succeeded"))
        name = f"{study.name}-on-{spec.key}"
        replayed = replace(study, name=name)
        with lifecycle(store, name, study.kernel, replayed.as_dict(), f"replayed from {study.name}",
                       {REPLAYED_ON: spec.key}, resume=False) as running:
            out = Replays(name, running.campaign.number, skipped=skipped)
            simgrid = simgrid_version()
            for k, (run, files) in enumerate(traced, 1):
                say(f"replaying {k}/{len(traced)}: {run['run_key']} ({run['ranks']} ranks x {run['threads']} "
                    "threads)")
                result = _replay(run, files, spec, speed, per_node)
                store.add_run(_record(run, result, spec, speed, simgrid, replayed, running.campaign.number, results))
                out.runs.append((run, result))
    return out


def _replay(run: dict[str, Any], files: list[Path], spec: cluster.ClusterSpec, speed: float,
            per_node: int | None) -> app_replay.Replayed:
    placed = app_replay.ranks_per_node(spec, run["ranks"], run["threads"], run["ranks_per_node"], per_node)
    with tempfile.TemporaryDirectory(prefix="hybridperf-app-replay-") as work:
        return app_replay.replay_run(files, spec, placed, speed, Path(work))


def _record(run: dict[str, Any], result: app_replay.Replayed, spec: cluster.ClusterSpec, speed: float,
            simgrid: str, replayed: Study, campaign: int, results: Path) -> RunRecord:
    """The replay's record, made as every run's is (study.backends.record): the measured run's shape, block and
    position in the replayed study, under the measured run's key on the cluster (each replay named after the run
    it replays)."""
    key = f"{run['run_key']}-on-{spec.key}"
    profile = app_replay.profile(run["profile"], result, spec, speed, simgrid, run["run_key"])
    path = results / "profiles" / f"{key}.json"
    write_atomic(path, json.dumps(profile, indent=1))
    plan = RunPlan(nodes=run["nodes"], ranks_per_node=run["ranks_per_node"], threads=run["threads"],
                   study=replayed.name, kernel=run["kernel"], params=run["params"],
                   configurations=tuple(run["configurations"]), mode=Mode(run["mode"], bool(run["oversubscribed"])),
                   repeat=run["repeat"], campaign=campaign, position=run["position"], warmup=bool(run["warmup"]))
    launch = f"smpirun -np {run['ranks']} -platform {spec.key}.xml -replay traces.txt"
    outcome = RunOutcome(0, path, profile, "", False, 0.0)
    return replace(record(plan, replayed, BACKEND, launch, outcome, time.time()), run_key=key)
