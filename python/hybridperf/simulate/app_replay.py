"""The user's own program replayed on another network: the SimGrid traces libhybridperf-mpi.so wrote while it ran
(`trace: true`, docs/pmpi.md#traces) replayed on a cluster description's platform, and on an ideal network for
POP's split of communication efficiency into serialization and transfer (docs/pop.md).

A trace keeps each compute burst's measured seconds as flops of the platform's 1 Gflop/s hosts, so a burst takes on
the cluster what it took here divided by `speed`, the cluster's core speed over this machine's (1: as measured).
Ranks fill nodes `ranks_per_node` at a time (default: as the measured run placed them, as many as the cluster's
nodes hold at the run's threads per rank). Pure but `trace_files`, `RankFiles` and `replay_run`, which read the
trace files and run SimGrid."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from hybridperf import cluster
from hybridperf.simulate.point import spread
from hybridperf.simulate.replay import replay
from hybridperf.simulate.traces import FLOPS, OnDemand

IDEAL = "ideal"  # the network of no latency and no bandwidth limit
_COMPUTE = re.compile(r"^(\d+) compute ([0-9.eE+-]+)$", re.MULTILINE)


class NotReplayable(ValueError):
    """A stored run whose traces cannot be replayed; the message says why and what to do."""


def ideal(spec: cluster.ClusterSpec) -> cluster.ClusterSpec:
    """The description with POP's ideal network, within nodes and between them: messages take no time (SimGrid
    needs a finite bandwidth: 10^15 B/s moves a megabyte in a nanosecond)."""
    zero = cluster.Figure("0s", 0.0, "ideal network", assumed=False)
    unlimited = cluster.Figure("1000TBps", 1e15, "ideal network", assumed=False)
    return replace(spec, name=f"{spec.name}, ideal network", latency=zero, bandwidth=unlimited, intra_latency=zero,
                   intra_bandwidth=unlimited, per_message=None)


def trace_files(results: Path, profile: dict[str, Any]) -> list[Path]:
    """Each rank's trace of a stored app run, in rank order; NotReplayable when it has none or they are cut."""
    trace = profile.get("trace")
    if not trace:
        raise NotReplayable("the run has no traces: set `trace: true` in the study's app block and run it again")
    if trace.get("truncated"):
        raise NotReplayable(f"its traces were cut at the size limit ({trace.get('summary', 'truncated')}): raise "
                            "HYBRIDPERF_MPI_TRACE_LIMIT or shorten the run")
    folder = Path(trace["dir"])
    folder = folder if folder.is_absolute() else results / folder
    files = [folder / f"rank-{r}.txt" for r in range(int(profile["run"]["ranks"]))]
    missing = [f for f in files if not f.is_file()]
    if missing:
        raise NotReplayable(f"{missing[0]} is missing ({len(missing)} of {len(files)} ranks' traces)")
    return files


def scaled(text: str, speed: float) -> str:
    """A trace with its compute bursts sped up by `speed` (the cluster's core over this machine's)."""
    if speed == 1:
        return text
    return _COMPUTE.sub(lambda m: f"{m[1]} compute {float(m[2]) / speed:.9g}", text)


def compute_seconds(text: str) -> float:
    """A trace's compute bursts, in seconds on the platform's hosts: its rank's time outside MPI."""
    return sum(float(m[2]) for m in _COMPUTE.finditer(text)) / FLOPS


class RankFiles(OnDemand):
    """The ranks' traces, each read (and scaled) when the replayer asks for it."""

    def __init__(self, files: list[Path], speed: float = 1.0):
        self.files, self.speed = files, speed

    def __len__(self) -> int:
        return len(self.files)

    def make(self, index: int) -> str:
        return scaled(self.files[index].read_text(), self.speed)


def ranks_per_node(spec: cluster.ClusterSpec, ranks: int, threads: int, measured: int, asked: int | None) -> int:
    """How many of the run's ranks share a node of the cluster: as asked, else as measured, at most as many as a
    node's cores hold at `threads` each; NotReplayable when the cluster cannot hold the run."""
    if threads > spec.cores_per_node:
        raise NotReplayable(f"{threads} threads per rank do not fit {spec.name}'s {spec.cores_per_node}-core nodes")
    fits = spec.cores_per_node // threads
    if asked is not None and asked > fits:
        raise NotReplayable(f"--ranks-per-node {asked} x {threads} threads is more than {spec.name}'s "
                            f"{spec.cores_per_node}-core node")
    per_node = min(asked or measured, fits, ranks)
    if -(-ranks // per_node) > spec.nodes:
        raise NotReplayable(f"{ranks} ranks at {per_node} per node need {-(-ranks // per_node)} nodes; {spec.name} "
                            f"has {spec.nodes}")
    return per_node


@dataclass(frozen=True)
class Replayed:
    """One run's traces replayed: on the cluster, on the ideal network, and each rank's compute seconds there."""

    seconds: float
    ideal_seconds: float
    compute: tuple[float, ...]
    ranks_per_node: int

    @property
    def transfer_efficiency(self) -> float:
        """POP's: the ideal network's runtime over the network's (what moving the bytes costs)."""
        return self.ideal_seconds / self.seconds

    @property
    def serialization_efficiency(self) -> float:
        """POP's: the busiest rank's compute over the ideal network's runtime (waiting for a peer's compute
        that no network can remove)."""
        return max(self.compute) / self.ideal_seconds


def replay_run(files: list[Path], spec: cluster.ClusterSpec, per_node: int, speed: float, workdir: Path,
               timeout: float = 600.0) -> Replayed:
    """The traces replayed on the cluster and on its ideal network."""
    traces = RankFiles(files, speed)
    seconds = replay(traces, spec, per_node, workdir / "network", timeout)
    ideal_seconds = replay(traces, ideal(spec), per_node, workdir / IDEAL, timeout)
    compute = tuple(compute_seconds(traces[r]) for r in range(len(traces)))
    return Replayed(seconds, ideal_seconds, compute, per_node)


def profile(measured: dict[str, Any], result: Replayed, spec: cluster.ClusterSpec, speed: float, simgrid: str,
            source_run: str) -> dict[str, Any]:
    """The replayed run's profile: the measured one's problem, counts and build, its time the replay's. Each rank
    ends at the replay's time (rank_times: elapsed), its time outside MPI is its compute bursts, the rest is MPI
    (regions `compute` and `mpi`; the replay does not split MPI time by class, so the measured run's `comm`, whose
    counts it shares and whose times it does not, is left out);
    the app's own regions (its timing table) and figures are not simulated and are left out: the replay's time is
    its loop time, from MPI_Init to MPI_Finalize. What the OMPT tool measured of the threads (openmp_idle) is kept:
    it is inside the compute bursts, which the replay keeps."""
    ranks, seconds = int(measured["run"]["ranks"]), result.seconds
    per_node = result.ranks_per_node
    nodes = -(-ranks // per_node)
    mpi = [seconds - c for c in result.compute]
    region = lambda values: {"calls": 1, "time": spread(values), "imbalance": 0.0}  # noqa: E731
    return {
        **{k: v for k, v in measured.items() if k not in ("per_call", "trace", "region_groups", "comm")},
        "build": {**measured["build"], "mpi_library": f"{simgrid} SMPI replay of its traces under "
                                                      f"{measured['build']['mpi_library']}"},
        "run": {**measured["run"], "hosts": cluster.host_names(spec)[:nodes], "ranks_per_node": per_node,
                "nodes": nodes, "affinity": []},
        "figures_of_merit": [{"name": "loop_time", "value": seconds, "unit": "s", "better": "lower"}],
        "regions": {"total": region([seconds] * ranks), "compute": region(list(result.compute)), "mpi": region(mpi)},
        "region_groups": {"computation": ["compute"], "communication": ["mpi"]},
        "rank_times": {"elapsed": [seconds] * ranks, "mpi": mpi},
        "simulated": {"cluster": spec.key, "cluster_name": spec.name, "simgrid": simgrid, "replay_of": source_run,
                      "speed": speed, "ideal_seconds": result.ideal_seconds,
                      "measured_seconds": max(measured["rank_times"]["elapsed"]) if measured.get("rank_times")
                      else None,
                      "transfer_efficiency": result.transfer_efficiency,
                      "serialization_efficiency": result.serialization_efficiency},
    }
