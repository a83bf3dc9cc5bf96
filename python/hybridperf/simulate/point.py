"""One simulated point: a plan replayed on a platform at a split, priced whole and without each kind of
communication, and written up as a profile of the kernel's schema (marked `simulated`) so that stores, reports
and exports treat it as any run. Pure but `simulate`, which replays."""

from __future__ import annotations

import os
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from hybridperf import cluster
from hybridperf.profile import imbalance
from hybridperf.shapes import Placement
from hybridperf.simulate import paje, traces
from hybridperf.simulate.compute import compute_seconds, ComputeModel
from hybridperf.simulate.plan import Plan, POINT_TO_POINT, traffic
from hybridperf.simulate.replay import replay, ReplayFailed, TRACE_FILE

# Above this many ranks a replay is not traced: SMPI's trace grows with ranks x calls, about 70 bytes a call (32 ranks
# of 5 DL_POLY steps, 13,000 calls, wrote 0.9 MB), so 4,096 ranks of 20 md steps, about 650,000 calls, some 45 MB
TRACED_RANKS = 4096


@dataclass(frozen=True)
class Simulated:
    seconds: float  # the run's simulated loop time
    compute: float  # the slowest rank's compute: the run's time on a network that costs nothing
    p2p: float  # what the point-to-point messages add: seconds - the time replayed without them
    collective: float  # what the global sums add
    regions: dict[str, float]  # the slowest rank's compute per region, seconds
    ranks: paje.MpiTimes | None = None  # each rank's loop and its time inside MPI calls, where the run was traced


def regions_of(plan: Plan, point_to_point: bool) -> frozenset[str]:
    """The regions of the plan's point-to-point operations (or of its other ones: the global sums)."""
    return frozenset(op.region for r in plan.ranks_plan for ops in (r.ordinary, r.rebuild, r.thermo) for op in ops
                     if (op.kind in POINT_TO_POINT) == point_to_point)


REPLAYS = ("whole", "no-p2p", "no-sums")  # the run; without its point-to-point messages; without its global sums


def replays(plan: Plan, model: ComputeModel, spec: cluster.ClusterSpec, split: Placement, workdir: Path,
            names: tuple[str, ...] = REPLAYS, replayer: Callable[..., float] = replay,
            traced: bool = False) -> dict[str, float]:
    """Simulated seconds of each replay of the run that `names` asks for (of REPLAYS). Replays that omit the same
    operations are one (a plan without global sums replays "no-sums" as its whole run). They are independent
    SimGrid processes, each in its own folder: they run side by side, as many at once as there are cores.
    `traced`: the whole run's replay also writes SMPI's trace, workdir / "whole" / TRACE_FILE."""
    omits = {"whole": frozenset(), "no-p2p": regions_of(plan, True), "no-sums": regions_of(plan, False)}
    distinct = {omits[name]: name for name in reversed(names)}  # each omitted set once, under its first name

    def run(omitted: frozenset[str]) -> float:
        texts = traces.RankTraces(plan, model, split, omitted, spec.interface())
        return replayer(texts, spec, split.ranks_per_node, workdir / distinct[omitted], traced=traced and not omitted)

    with ThreadPoolExecutor(max_workers=min(len(distinct), os.cpu_count() or 1)) as pool:
        replayed = dict(zip(distinct, pool.map(run, distinct)))
    return {name: replayed[omits[name]] for name in names}


def traced_times(workdir: Path) -> paje.MpiTimes:
    """Each rank's times inside MPI calls, from the trace of the whole run's replay (`replays(..., traced=True)`
    in workdir)."""
    try:
        with open(workdir / "whole" / TRACE_FILE) as trace:
            return paje.mpi_times(trace)
    except (OSError, paje.TraceUnreadable) as err:
        raise ReplayFailed(f"SMPI's trace of the replay cannot be read: {err}") from None


def simulate(plan: Plan, model: ComputeModel, spec: cluster.ClusterSpec, split: Placement, workdir: Path,
             replayer: Callable[..., float] = replay, per_rank: bool = False) -> Simulated:
    """The run priced whole and without each kind of communication (up to three replays); with `per_rank`, up to
    TRACED_RANKS ranks, each rank's time inside MPI calls from SMPI's trace of the whole run too."""
    traced = per_rank and split.ranks <= TRACED_RANKS
    replayed = replays(plan, model, spec, split, workdir, REPLAYS, replayer, traced)
    whole = replayed["whole"]
    seconds = {r.rank: compute_seconds(plan, r, model, split) for r in plan.ranks_plan}
    slowest = max(plan.ranks_plan, key=lambda r: seconds[r.rank])
    ranks = traced_times(workdir) if traced else None
    return Simulated(whole, seconds[slowest.rank], max(0.0, whole - replayed["no-p2p"]),
                     max(0.0, whole - replayed["no-sums"]), model.regions(plan, slowest, split), ranks)


def spread(values: list[float]) -> dict[str, Any]:
    """A stat of per-rank values: min, avg, max and the ranks holding the extremes."""
    low, high = min(range(len(values)), key=values.__getitem__), max(range(len(values)), key=values.__getitem__)
    return {"min": values[low], "min_rank": low, "avg": statistics.fmean(values), "max": values[high],
            "max_rank": high}


def _comm_class(calls: list[int], messages: list[int], sent: list[int], seconds: Sequence[float]) -> dict[str, Any]:
    """A class of calls: the plan's counts, and its seconds per rank."""
    time_ = spread(list(seconds))
    return {"calls": sum(calls), "messages": sum(messages), "bytes": sum(sent), "time": time_,
            "imbalance": imbalance(time_["max"], time_["avg"]),
            "bytes_per_rank": spread([float(b) for b in sent]),
            "messages_per_rank": spread([float(c) for c in messages]), "size_histogram": []}


def _kernel_section(plan: Plan) -> dict[str, Any]:
    """The kernel's own section of a profile, as far as a plan knows it."""
    if plan.kernel == "md":
        return {"atoms": plan.problem["atoms"], "steps_done": plan.steps, "grid": list(plan.grid)}
    return {"rows": plan.problem["rows"], "calls": plan.steps, "mode": plan.problem["mode"],
            "grid": list(plan.grid)}


def profile(plan: Plan, result: Simulated, model: ComputeModel, spec: cluster.ClusterSpec, split: Placement,
            params: dict[str, Any], command: list[str], simgrid: str) -> dict[str, Any]:
    """A profile (hybridperf.profile/1) of the simulated run. Region times are the slowest rank's compute and the
    replays' differences for communication; message and byte counts are the plan's, exactly. The time of each
    class of calls (`comm`) is each rank's inside them where the run was traced, with its loop's (`rank_times`:
    POP's inputs), as a PMPI profiler measures them; else what the class adds, alike on every rank."""
    sent = [traffic(plan, r) for r in plan.ranks_plan]
    ranks = len(sent)
    p2p, collective = (result.ranks.p2p, result.ranks.collective) if result.ranks else \
        ([result.p2p] * ranks, [result.collective] * ranks)
    hosts = cluster.host_names(spec)[:split.nodes]
    region = lambda seconds, calls: {"calls": calls, "time": {"min": seconds, "min_rank": 0, "avg": seconds,  # noqa: E731
                                                               "max": seconds, "max_rank": 0}, "imbalance": 0.0}
    regions = {name: region(seconds, plan.steps) for name, seconds in result.regions.items()}
    regions |= {model.p2p_region: region(result.p2p, plan.steps), "total": region(result.seconds, 1)}
    if regions_of(plan, False):
        regions[model.sum_region] = region(result.collective, plan.steps)
    return {
        "schema": "hybridperf.profile/1", "kernel": plan.kernel, "kernel_version": "plan",
        "build": {"compiler": "none: simulated", "flags": "", "mpi_library": f"{simgrid} SMPI replay",
                  "mpi_standard": "3.1", "openmp_version": 0, "openmp_runtime": "compute model",
                  "git_revision": "simulated"},
        "run": {"command": command, "start_time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "hosts": hosts, "ranks": split.ranks, "threads_per_rank": split.threads,
                "ranks_per_node": split.ranks_per_node, "nodes": split.nodes,
                "mpi_thread_level": {"requested": "MPI_THREAD_FUNNELED", "provided": "MPI_THREAD_FUNNELED"},
                "environment": {}, "affinity": []},
        "params": params, "status": "ok", "checks": {},
        "figures_of_merit": [{"name": "loop_time", "value": result.seconds, "unit": "s", "better": "lower"}],
        "regions": regions,
        "region_groups": model.region_groups,
        "comm": {"p2p": _comm_class([t.p2p_calls for t in sent], [t.p2p_messages for t in sent],
                                    [t.p2p_bytes for t in sent], p2p),
                 "collective": _comm_class([t.collectives for t in sent], [t.collectives for t in sent],
                                           [t.collective_bytes for t in sent], collective),
                 "barrier": _comm_class([0] * ranks, [0] * ranks, [0] * ranks, [0.0] * ranks)},
        **({"rank_times": {"elapsed": list(result.ranks.elapsed), "mpi": list(result.ranks.mpi)}}
           if result.ranks else {}),
        plan.kernel: _kernel_section(plan),
        "simulated": {"cluster": spec.key, "cluster_name": spec.name, "simgrid": simgrid,
                      "compute_seconds": result.compute, "compute_model": model.describe(),
                      **({"noise": spec.noise.describe()} if spec.noisy and spec.noise else {})},
    }
