"""What simulating a study needs (simulate.backend replays it): the study as it would run on a described cluster
(`on_cluster`: study name `<study>-on-<cluster>`, backend simgrid), the compute costs of its problems — measured
here (`costs_from` this store's one-core runs) or the thesis's Merlin core — and the kernel's plan of each
point."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace
from typing import Callable

from hybridperf import cluster
from hybridperf.launch import kernels
from hybridperf.models import calibrate, published, thesis
from hybridperf.models.split import log2_scaled, ThreadEfficiency
from hybridperf.simulate import md_costs, spmv_costs
from hybridperf.simulate.compute import ComputeModel
from hybridperf.simulate.plan import parse, Plan
from hybridperf.study.expand import RunPlan
from hybridperf.study.params import to_args
from hybridperf.study.spec import PLANNED, Study

DENSITY, GHOST_CUT = 0.8442, 2.8  # hybridperf-md's defaults: density, cutoff + skin


class SimulationError(ValueError):
    """Input the simulator cannot use; the message says what to change."""


def scales(spec: cluster.ClusterSpec, cores: tuple[int, ...] | None) -> tuple[int, ...]:
    """The core counts to simulate: given ones checked against the cluster, or one node, two, four ... up to
    the cluster or 64 nodes."""
    if cores is None:
        nodes, out = 1, []
        while nodes <= min(spec.nodes, 64):
            out.append(nodes * spec.cores_per_node)
            nodes *= 2
        return tuple(out)
    for c in cores:
        if c % spec.cores_per_node:
            raise SimulationError(f"{c} cores is not a whole number of {spec.name}'s {spec.cores_per_node}-core "
                                  f"nodes; use multiples of {spec.cores_per_node}")
        if c > spec.nodes * spec.cores_per_node:
            raise SimulationError(f"{c} cores is more than {spec.name} has ({spec.nodes} nodes x "
                                  f"{spec.cores_per_node} cores)")
    return cores


def on_cluster(study: Study, spec: cluster.ClusterSpec, cores: tuple[int, ...] | None, steps: int | None,
               name: str, costs: str = "auto", noise_seed: int | None = None) -> Study:
    """The study as it would run on the cluster (`name`: its description's name or file): backend simgrid, its
    nodes, the core counts, one replay per point (a replay is exact); with the description's noise drawn from
    `noise_seed`, a study of its own (`<study>-on-<cluster>-noise<seed>`)."""
    if study.kernel not in PLANNED:
        raise SimulationError(f"simulate plans {', '.join(PLANNED)} runs; {study.kernel} has no --plan mode yet")
    params = dict(study.params) | ({"steps": [steps]} if steps else {})
    cluster.with_noise(spec, noise_seed)  # a ClusterError where the description declares no noise
    noisy = {"noise_seed": noise_seed} if noise_seed is not None else {}
    return replace(study, name=f"{study.name}-on-{spec.key}" + (f"-noise{noise_seed}" if noisy else ""),
                   params=params, cores=scales(spec, cores), nodes=None, cores_per_node=spec.cores_per_node,
                   repeats=None, decide=None, backend="simgrid", simgrid={"cluster": name, "costs": costs, **noisy},
                   oversubscribe=False)


def fork_join_of(spec: cluster.ClusterSpec) -> tuple[Callable[[int], float], str]:
    return (log2_scaled(spec.fork_join.value, spec.fork_join_threads),
            f"{spec.name}'s description: {spec.fork_join.text} at {spec.fork_join_threads} threads")


@dataclass(frozen=True)
class ThesisTable:
    """One of the thesis's routine tables as compute costs: its file and machine, the pure-MPI core count it
    prices a core at, the description whose bandwidth its movout's bytes crossed, and the threading losses that go
    with it."""

    file: str
    machine: str  # the file's `cluster` column
    where: str  # what the costs' source says
    cores: int
    network: str
    threads: Callable[[], tuple[tuple[tuple[int, float], ...], str]]


# "merlin": Merlin's own runs (Tables 4.8, 4.6/4.7); "cseem64t": none of the Merlin MD runs -- CSEEM64T's
# Woodcrest core (Table 4.9, over Infinipath, whose bytes cost least) with the threading losses of DL_POLY's force
# loop on Merlin (the DL_POLY paper's Tables 5.3/5.4), so that an outcome of the Merlin MD runs can be held out
OWN_TABLE = "merlin"  # the pricing a workload has unless it names another
THESIS_TABLES = {
    "merlin": ThesisTable("thesis-table4.8-merlin-routines.csv", "Merlin", "thesis Table 4.8: Merlin", 128, "merlin",
                          published.merlin_thread_efficiency),
    "cseem64t": ThesisTable("thesis-table4.9-cseem64t-routines.csv", "CSEEM64T (Infinipath)",
                            "thesis Table 4.9: CSEEM64T (Infinipath)", 96, "cseem64t-infinipath",
                            published.dlpoly_thread_efficiency)}


def thesis_costs(spec: cluster.ClusterSpec, table: str = OWN_TABLE) -> md_costs.MdCosts:
    """The thesis's core as one of its routine tables gives it (THESIS_TABLES: Merlin's by default), with that
    table's threading losses and the description's fork/join."""
    t = THESIS_TABLES[table]
    points, source = t.threads()

    def ghosts(atoms: float) -> float:  # the plan's geometry: a cubic brick at md's density and ghost cut
        side = (atoms / DENSITY) ** (1 / 3)
        return DENSITY * thesis.halo_cells(side, side, side, GHOST_CUT)

    rows = [r for r in published.rows(published.DATA / t.file) if r["cluster"] == t.machine]
    return md_costs.thesis_routines(rows, t.where, ThreadEfficiency(points, source), *fork_join_of(spec), ghosts,
                                    cluster.load(t.network).bandwidth.value, t.cores)


# per-step and per-call costs do not depend on how many steps run, nor on how a run is laid out
PER_RUN = frozenset({"steps", "calls", "node_threads", "grid"})


def _problem_key(params: dict) -> tuple:
    return tuple(sorted((k, str(v)) for k, v in calibrate.problem(params).items() if k not in PER_RUN))


def same_problem(profile: dict, wanted: dict) -> bool:
    """Whether a measured profile solved the problem `wanted` names (a study's parameters, dashes or not)."""
    have = profile["params"]
    return all(_text(have.get(k.replace("-", "_"))) == _text(v) for k, v in wanted.items()
               if k.replace("-", "_") not in PER_RUN and k.replace("-", "_") in calibrate.problem(have))


def _text(value) -> str:
    """A parameter as text: a list (elements, a grid) as its command line writes it, joined by commas."""
    return ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def _steps(profile: dict) -> int:
    """The steps (spmv: calls) a profile's times were summed over."""
    done = profile.get("md", {}).get("steps_done") or profile.get("spmv", {}).get("calls")
    return int(done or profile["params"].get("steps") or profile["params"].get("calls") or 1)


def _representatives(profiles: list[dict]) -> list[dict]:
    """Of each repeated point (same problem, steps, mode, ranks and threads), the run of median loop time: the costs
    come from a typical run, not from whichever repeat was stored last. Runs of other steps are other points, not
    repeats: their totals (which e_mt compares, as calibrate.thread_efficiency does) are of another length."""
    groups: dict[tuple, list[dict]] = {}
    for p in profiles:
        key = (_problem_key(p["params"]), _steps(p), p["params"].get("mode"), p["run"]["ranks"],
               p["run"]["threads_per_rank"])
        groups.setdefault(key, []).append(p)
    return [sorted(g, key=lambda p: p["figures_of_merit"][0]["value"])[(len(g) - 1) // 2] for g in groups.values()]


def _per_step(profile: dict) -> float:
    return calibrate.computation(profile) / _steps(profile)


def node_efficiency(profiles: list[dict], serial: dict) -> ThreadEfficiency:
    """n(c): the serial run's computation per step over c times that of c ranks of one thread, same problem (per
    step: a c x 1 run of other steps than the serial run's, `hybridperf run`'s 100 beside a study's 50, says the
    same of the node); where runs of several lengths give c, their median."""
    key = _problem_key(serial["params"])
    one = _per_step(serial)
    by_count: dict[int, list[float]] = {}
    for p in profiles:
        if _problem_key(p["params"]) == key and p["run"]["threads_per_rank"] == 1 and p["run"]["ranks"] > 1 \
                and calibrate.computation(p) > 0:
            by_count.setdefault(p["run"]["ranks"], []).append(one / (p["run"]["ranks"] * _per_step(p)))
    points = tuple((c, statistics.median(e)) for c, e in sorted(by_count.items()))
    if not points or one <= 0:
        return ThreadEfficiency((), "assumed: busy cores run as fast as one alone (no c x 1 run measured)")
    return ThreadEfficiency(points, "measured: serial computation per step over c x that of c ranks, " +
                            ", ".join(f"{c} cores {e:.3f}" for c, e in points))


def costs_from(profiles: list[dict], kernel: str, spec: cluster.ClusterSpec, where: str,
               problem: dict | None = None) -> ComputeModel:
    """The compute model from measured profiles of the kernel: the one-core run (md: 1 rank x 1 thread; spmv:
    SPMV-Serial) of the problem asked for (or the latest problem), the repeat of median time; the node's and
    the threads' efficiency from the other runs of that problem."""
    profiles = _representatives([p for p in profiles if p["kernel"] == kernel and "simulated" not in p])
    serial = [p for p in profiles if p["run"]["ranks"] == 1 and p["run"]["threads_per_rank"] == 1
              and (problem is None or same_problem(p, problem))]
    if not serial:
        asked = f" of {', '.join(f'{k}={v}' for k, v in problem.items())}" if problem else ""
        raise SimulationError(f"no measured 1 rank x 1 thread {kernel} run{asked} in {where}: run the study here "
                              "first (hybridperf study SPEC)" + (", or use --costs thesis" if kernel == "md" else ""))
    latest = max(serial, key=lambda p: p["run"]["start_time"])
    if kernel == "spmv":
        return spmv_costs.measured(latest, profiles, *fork_join_of(spec))
    one = parse(kernels.plan(kernel, tuple(_args(profile_options(kernel, latest["params"]))), 1))
    threads = calibrate.thread_efficiency(profiles, kernel, latest) or ThreadEfficiency()
    return md_costs.measured(latest, one.ranks_plan[0].work["ghosts"], threads, *fork_join_of(spec),
                             node=node_efficiency(profiles, latest))


# what a many-body potential's profile records but its file decides (the cutoff) or its lattice (the density)
DERIVED_FOR_METAL = frozenset({"cutoff", "density"})


def profile_options(kernel: str, params: dict) -> dict:
    """A profile's parameters as the kernel's options: names with dashes (the profile's JSON has neigh_every),
    list options as their command-line text, and none the kernel derives itself or that holds the kernel's default
    (which it would use anyway, and some of which it refuses when given: an lj run's `elements: []` and
    `lattice_constant: 0`)."""
    table = {o["name"]: o for o in kernels.options(kernel)}
    metal = params.get("potential") in ("eam/fs", "tersoff")
    out = {}
    for key, value in params.items():
        name = key.replace("_", "-")
        if key in calibrate.HOW_AND_WHERE or (metal and key in DERIVED_FOR_METAL) or value is None or \
                (name in table and value == table[name]["default"]):
            continue
        listed = name in table and table[name]["type"] == "list" and isinstance(value, list)
        out[name] = ",".join(map(str, value)) if listed else value
    return out


def _args(params: dict) -> list[str]:
    """The kernel's arguments for a plan of the run: its problem and, for spmv, its mode (which sizes bricks),
    without where the run writes."""
    return to_args({k: v for k, v in params.items() if k == "mode" or k not in calibrate.HOW_AND_WHERE})


def plan_of(study: Study, spec: cluster.ClusterSpec, run_plan: RunPlan, plans: dict[tuple, Plan]) -> Plan:
    """The kernel's plan of a point, made once per problem and layout (`plans` keeps them)."""
    args = tuple(_args(run_plan.params))
    if study.kernel == "spmv" and "--node-threads" not in args:  # serial mode: the cluster's node, not this one
        args += ("--node-threads", str(spec.cores_per_node))
    placed = (run_plan.ranks_per_node, run_plan.threads) if study.kernel in kernels.PLACED_PLANS else (1, 1)
    key = (args, run_plan.ranks, *placed)
    if key not in plans:
        plans[key] = parse(kernels.plan(study.kernel, args, run_plan.ranks, *placed))
    return plans[key]
