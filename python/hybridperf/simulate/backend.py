"""The simgrid backend: a study's runs replayed by SimGrid on a described cluster instead of run, beside the local
and Slurm backends. Each planned run is planned by the kernel (`--plan`), replayed on the description's platform
with the compute model's costs (simulate.point: the run and the run without each kind of communication), and
written up as a profile marked simulated; its record is built where every backend's is
(study.backends.record), so a simulated study is stored, resumed and reported exactly as a measured one.

Compute costs (`simgrid: {costs: ...}`): `measured` — the results directory's own 1 rank x 1 thread run of each
problem, on this node; `thesis` — the thesis's Merlin core (md); `auto` — measured where the store holds such a
run, else the thesis's for md."""

from __future__ import annotations

import json
import shlex
import time
import tempfile
from pathlib import Path
from typing import Callable

from hybridperf import cluster
from hybridperf.files import write_atomic
from hybridperf.launch.runner import RunOutcome
from hybridperf.simulate import point, study as simulation
from hybridperf.simulate.compute import ComputeModel
from hybridperf.simulate.plan import Plan
from hybridperf.simulate.replay import ReplayFailed, simgrid_version, smpirun
from hybridperf.profile import simulated
from hybridperf.store.db import holds_store, RunRecord, Store
from hybridperf.study.backends import profile_path, record
from hybridperf.study.registry import Kind, this_machine_cores
from hybridperf.study.expand import RunPlan
from hybridperf.study.spec import Study

ModelOf = Callable[[dict], ComputeModel]  # a point's parameters -> the compute model of its problem


def measured_profiles(results: Path) -> list[dict]:
    """The results directory's measured (not simulated) ok profiles: what `measured` costs come from."""
    if not holds_store(results):
        return []
    with Store(results) as store:
        return [r["profile"] for r in store.runs() if r["status"] == "ok" and r["profile"]
                and simulated(r["profile"]) is None]


def resolve_costs(costs: str, profiles: list[dict], kernel: str, spec: cluster.ClusterSpec, where: str,
                  say: Callable[[str], None] = lambda line: None) -> str:
    """`auto` resolved: measured where the profiles hold a one-core run of the kernel, else (md) the thesis's,
    said; `measured` checked (a SimulationError naming what to run)."""
    if costs == "thesis":
        if kernel != "md":
            raise simulation.SimulationError(f"costs thesis prices md on the thesis's Merlin core; simulate {kernel} "
                                             "with measured costs (simulate validate uses Chow & Hysom's published "
                                             "SPMV costs)")
        return costs
    try:
        simulation.costs_from(profiles, kernel, spec, where)
        return "measured"
    except simulation.SimulationError:
        if costs == "measured" or kernel != "md":
            raise
        say(f"costs: the thesis's Merlin core (no measured 1 rank x 1 thread run in {where}; measure the study here "
            "first for this node's)")
        return "thesis"


def models(costs: str, profiles: list[dict], kernel: str, spec: cluster.ClusterSpec, where: str) -> ModelOf:
    """The compute model of each point's problem: measured here (one per problem), or the thesis's for md."""
    if costs == "thesis":
        model = simulation.thesis_costs(spec)
        return lambda params: model
    cache: dict[tuple, ComputeModel] = {}

    def measured(params: dict) -> ComputeModel:
        key = tuple(sorted((k, str(v)) for k, v in params.items() if k not in simulation.PER_RUN))
        if key not in cache:
            cache[key] = simulation.costs_from(profiles, kernel, spec, where, params)
        return cache[key]
    return measured


class SimGridBackend:
    name = "simgrid"
    exact = True  # a replay is exact under its inputs: one block decides

    def __init__(self, study: Study, results: Path, say: Callable[[str], None] = lambda line: None):
        smpirun()  # SimGridMissing before any work
        self.study, self.results = study, results
        self.spec = cluster.with_noise(cluster.load(study.simgrid["cluster"]), study.simgrid.get("noise_seed"))
        self.profiles = measured_profiles(results)
        self.costs = resolve_costs(study.simgrid.get("costs", "auto"), self.profiles, study.kernel, self.spec,
                                   str(results), say)
        self.model_of = self.models_on(self.spec)
        self.plans: dict[tuple, Plan] = {}
        self.ran: dict[str, RunPlan] = {}  # run key -> what was replayed (for a sensitivity afterwards)
        self.simgrid = simgrid_version()

    def models_on(self, spec: cluster.ClusterSpec) -> ModelOf:
        """The compute models on a (moved) description."""
        return models(self.costs, self.profiles, self.study.kernel, spec, str(self.results))

    def plan_of(self, run: RunPlan) -> Plan:
        return simulation.plan_of(self.study, self.spec, run, self.plans)

    def command(self, run: RunPlan) -> list[str]:
        return ["smpirun", "-np", str(run.ranks), "-platform", f"{self.spec.key}.xml", "-replay", "traces.txt"]

    def launch_line(self, run: RunPlan) -> str:
        return shlex.join(self.command(run))

    def run(self, plans: list[RunPlan], done: Callable[[RunRecord], None]) -> None:
        for run in plans:
            started = time.time()
            done(record(run, self.study, self.name, self.launch_line(run), self._replay(run), started))
            self.ran[run.key] = run

    def _replay(self, run: RunPlan) -> RunOutcome:
        """One point replayed and written up as a profile (a failed replay: SimGrid's message, nothing written)."""
        plan, model, path = self.plan_of(run), self.model_of(run.params), profile_path(self.results, run)
        began = time.time()
        with tempfile.TemporaryDirectory(prefix="hybridperf-replay-") as work:
            try:
                result = point.simulate(plan, model, self.spec, run, Path(work), per_rank=True)
            except ReplayFailed as err:
                return RunOutcome(1, None, None, str(err), elapsed=time.time() - began, reason=str(err))
        profile = point.profile(plan, result, model, self.spec, run, run.params, self.command(run), self.simgrid)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(profile, indent=1))
        return RunOutcome(0, path, profile, "", elapsed=time.time() - began)


KIND = Kind("simgrid", lambda study, results, say: SimGridBackend(study, results, say), exact=True, launches=False,
            node="a node of the described cluster, simulated", cores=this_machine_cores)  # pyproject's entry point
