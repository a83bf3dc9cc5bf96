"""POP's efficiency factors of one run, from its profile (docs/pop.md). Pure.

The factors multiply (POP's hierarchy; DLB TALP's hybrid model, `talp_metrics.rst`):
parallel efficiency = MPI parallel efficiency × OpenMP parallel efficiency;
MPI parallel efficiency = MPI communication efficiency × MPI load balance, and load balance = within-node ×
between-node; OpenMP parallel efficiency = OpenMP load balance × scheduling × serialization efficiency.

Inputs, per rank i of N with M threads: E_i, the seconds in the measured window, and C_i, in MPI calls within it
(the profile's `rank_times`: the kernels' loop, or the MPI library's counting window for an app); O_i = E_i − C_i
is the time outside MPI (POP's useful time of the MPI model); T = max E_i. Then

- MPI load balance = mean O / max O; within nodes = max over nodes of the node's mean O / max O; between nodes =
  mean O / max over nodes of the node's mean O;
- MPI communication efficiency = max O / T; MPI parallel efficiency = mean O / T;
- OpenMP, with A = Σ O_i and the threads' idle time split as TALP does: serial (outside parallel regions,
  M − 1 threads idle), load imbalance (Σ per region of max − mean busy time) and scheduling (Σ per region of
  region time − max busy time): serialization = (A − I_ser) / A, load balance = (A − I_ser − I_lb) / (A − I_ser),
  scheduling = (A − I) / (A − I_ser − I_lb). With M = 1 no thread is ever idle: each is 1.

What a run does not carry gives None and the reason, never a guess: OpenMP load balance and scheduling need each
thread's busy time inside parallel regions, and serialization the time in them (`openmp_idle`), which the md and
spmv kernels record in their loops and the MPI library's OMPT tool for an app on an OMPT runtime; the other kernels
do not record them; IPC needs the instructions and cycles the run counted outside MPI (`rank_times.counters`,
kernels/common/hp_counters.h), which a machine without a PMU cannot count. A run replayed from its traces on an ideal
network (simulate.app_replay) also has POP's split of communication efficiency: serialization = max O / T_ideal,
transfer = T_ideal / T.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any, Sequence

MPI_FACTORS = ("mpi_parallel_efficiency", "mpi_communication_efficiency", "mpi_load_balance",
               "mpi_load_balance_in", "mpi_load_balance_out")
OMP_FACTORS = ("openmp_parallel_efficiency", "openmp_load_balance", "openmp_scheduling_efficiency",
               "openmp_serialization_efficiency")
RUN_FACTORS = ("parallel_efficiency", *MPI_FACTORS, *OMP_FACTORS, "ipc")
# communication efficiency = serialization × transfer: known only for a run replayed on an ideal network
REPLAY_FACTORS = ("mpi_serialization_efficiency", "mpi_transfer_efficiency")
NAMES = {
    "global_efficiency": "global efficiency", "computation_scalability": "computation scalability",
    "ipc_scalability": "IPC scalability", "instruction_scalability": "instruction scalability",
    "parallel_efficiency": "parallel efficiency", "mpi_parallel_efficiency": "MPI parallel efficiency",
    "mpi_communication_efficiency": "MPI communication efficiency", "mpi_load_balance": "MPI load balance",
    "mpi_load_balance_in": "MPI load balance within nodes", "mpi_load_balance_out": "MPI load balance between nodes",
    "openmp_parallel_efficiency": "OpenMP parallel efficiency", "openmp_load_balance": "OpenMP load balance",
    "openmp_scheduling_efficiency": "OpenMP scheduling efficiency",
    "openmp_serialization_efficiency": "OpenMP serialization efficiency", "ipc": "IPC",
    "mpi_serialization_efficiency": "MPI serialization efficiency", "mpi_transfer_efficiency": "MPI transfer efficiency",
}
THREAD_TIMED = ("md", "spmv")  # the kernels that time their threads in their loops' parallel regions (hp_omp_idle)
NO_THREAD_TIMES = ("the kernel does not record each thread's busy time inside its parallel regions (md and spmv do; "
                   "the MPI library's OMPT tool does, for a program on an OpenMP runtime with OMPT)")
NO_KERNEL_REGIONS = "the kernel does not record how long each rank spends in parallel regions (md and spmv do)"
SIMULATED_THREADS = ("a simulated run: its compute model prices a rank's threads as a whole (their efficiency "
                     "e_mt), not each thread's busy time")
UNTIMED = "the {kernel} run did not time its threads (it ran with --no-timers or --no-thread-times)"
NO_REPLAY = ("the run's traces were not replayed on an ideal network (an app study run with `trace: true`, then "
             "hybridperf simulate SPEC --cluster NAME: docs/simulation.md)")
NO_COUNTERS = ("the profile has no hardware counts (written before runs read perf_event counters): IPC and "
               "instruction scalability are unavailable")


@dataclass(frozen=True)
class RankTimes:
    """POP's per-rank inputs: the window's seconds, the seconds in MPI within it, and each rank's node."""

    elapsed: tuple[float, ...]
    mpi: tuple[float, ...]
    nodes: tuple[str, ...] | None  # None: which node each rank ran on is not known

    @property
    def outside(self) -> list[float]:
        return [e - c for e, c in zip(self.elapsed, self.mpi)]


@dataclass(frozen=True)
class Counts:
    """Each rank's perf_event counts outside MPI in the window (`rank_times.counters`), by event name; none where
    they could not be counted, with why."""

    events: dict[str, tuple[int, ...]]
    unavailable: str = NO_COUNTERS

    def total(self, event: str) -> int | None:
        return sum(self.events[event]) if event in self.events else None

    def ipc(self) -> tuple[float | None, str]:
        """POP's useful IPC: all ranks' instructions over their cycles; None and why where not counted."""
        instructions, cycles = self.total("instructions"), self.total("cycles")
        if instructions is not None and cycles:
            return instructions / cycles, ""
        if self.events:
            return None, (f"the run counted {', '.join(self.events)} (HYBRIDPERF_COUNTERS=software), not "
                          "instructions and cycles")
        return None, self.unavailable


@dataclass(frozen=True)
class OpenMP:
    """What a run says of its OpenMP side, summed over its ranks: threads per rank M, the seconds in parallel
    regions, and of the threads' idle time in them the load imbalance (per region execution, max − mean of the
    threads' busy seconds) and the scheduling loss (the region's seconds − the slowest thread's); None: not known."""

    threads: int
    in_regions: float | None = None
    imbalance: float | None = None
    scheduling: float | None = None
    no_regions: str = ""  # why in_regions is None
    no_split: str = NO_THREAD_TIMES  # why imbalance and scheduling are None


def region_idle(busy: Sequence[float], seconds: float) -> tuple[float, float]:
    """One execution of a parallel region: its load imbalance and scheduling seconds, from each thread's busy
    seconds and the region's (what the MPI library's OMPT tool adds up per rank, kernels/pmpi/ompt_idle.c)."""
    return max(busy) - statistics.fmean(busy), seconds - max(busy)


@dataclass
class Factors:
    values: dict[str, float | None]
    why: dict[str, str] = field(default_factory=dict)  # factor -> why it is None


def _ratio(a: float, b: float) -> float | None:
    return a / b if b > 0 else None


def mpi_factors(t: RankTimes) -> tuple[dict[str, float | None], dict[str, str]]:
    outside, runtime = t.outside, max(t.elapsed)
    mean, top = statistics.fmean(outside), max(outside)
    values: dict[str, float | None] = {
        "mpi_parallel_efficiency": _ratio(mean, runtime), "mpi_communication_efficiency": _ratio(top, runtime),
        "mpi_load_balance": _ratio(mean, top)}
    why = {}
    if t.nodes is None:
        values["mpi_load_balance_in"] = values["mpi_load_balance_out"] = None
        why["mpi_load_balance_in"] = why["mpi_load_balance_out"] = "which node each rank ran on is not recorded"
    else:
        by_node: dict[str, list[float]] = {}
        for node, o in zip(t.nodes, outside):
            by_node.setdefault(node, []).append(o)
        busiest_node = max(statistics.fmean(v) for v in by_node.values())
        values["mpi_load_balance_in"] = _ratio(busiest_node, top)
        values["mpi_load_balance_out"] = _ratio(mean, busiest_node)
    return values, why


def openmp_factors(t: RankTimes, omp: OpenMP) -> tuple[dict[str, float | None], dict[str, str]]:
    """TALP's split of the threads' idle time, over all ranks at once (A = Σ O_i)."""
    if omp.threads == 1:
        return {name: 1.0 for name in OMP_FACTORS}, {}
    m, available = omp.threads, sum(t.outside)
    values: dict[str, float | None] = {name: None for name in OMP_FACTORS}
    why = {name: omp.no_split for name in OMP_FACTORS}
    if omp.in_regions is None:
        why["openmp_serialization_efficiency"] = omp.no_regions
        return values, why
    serial_idle = (m - 1) / m * (available - omp.in_regions)
    values["openmp_serialization_efficiency"] = _ratio(available - serial_idle, available)
    del why["openmp_serialization_efficiency"]
    if omp.imbalance is None or omp.scheduling is None:
        return values, why
    imbalance, scheduling = omp.imbalance, omp.scheduling
    values["openmp_load_balance"] = _ratio(available - serial_idle - imbalance, available - serial_idle)
    values["openmp_scheduling_efficiency"] = _ratio(available - serial_idle - imbalance - scheduling,
                                                    available - serial_idle - imbalance)
    values["openmp_parallel_efficiency"] = _ratio(available - serial_idle - imbalance - scheduling, available)
    for name in ("openmp_load_balance", "openmp_scheduling_efficiency", "openmp_parallel_efficiency"):
        del why[name]
    return values, why


def factors(t: RankTimes | None, omp: OpenMP, counted: Counts | None = None) -> Factors:
    """Every factor of RUN_FACTORS of one run; None where its inputs are missing, with why (no `counted`: the run
    has no counts)."""
    if t is None:
        missing = "the profile has no per-rank times (rank_times, which runs write since hybridperf measures POP)"
        values: dict[str, float | None] = {name: None for name in RUN_FACTORS}
        if omp.threads == 1:
            values |= {name: 1.0 for name in OMP_FACTORS}
        return Factors(values, {name: NO_COUNTERS if name == "ipc" else missing
                                for name in RUN_FACTORS if values[name] is None})
    values, why = mpi_factors(t)
    omp_values, omp_why = openmp_factors(t, omp)
    values |= omp_values
    why |= omp_why
    mpi_pe, omp_pe = values["mpi_parallel_efficiency"], values["openmp_parallel_efficiency"]
    values["parallel_efficiency"] = None if mpi_pe is None or omp_pe is None else mpi_pe * omp_pe
    if values["parallel_efficiency"] is None:
        why["parallel_efficiency"] = "the OpenMP parallel efficiency is not known"
    values["ipc"], no_ipc = (counted or Counts({})).ipc()
    if values["ipc"] is None:
        why["ipc"] = no_ipc
    return Factors(values, why)


def counts(profile: dict[str, Any]) -> Counts:
    """The profile's counts (`rank_times.counters`: per event a number per rank, or `unavailable`)."""
    counters = (profile.get("rank_times") or {}).get("counters")
    if counters is None:
        return Counts({})
    if "unavailable" in counters:
        return Counts({}, f"hardware counters unavailable: {counters['unavailable']}")
    return Counts({name: tuple(v) for name, v in counters.items()})


def rank_times(profile: dict[str, Any]) -> RankTimes | None:
    """The profile's per-rank inputs, each rank's node from its affinity record (or one node for a one-node run)."""
    times = profile.get("rank_times")
    if not times:
        return None
    run = profile["run"]
    hosts = {a["rank"]: a["host"] for a in run.get("affinity") or []}
    n = len(times["elapsed"])
    nodes: Sequence[str] | None = None
    if len(hosts) == n:
        nodes = [hosts[r] for r in range(n)]
    elif run.get("nodes") == 1:
        nodes = ["node"] * n
    elif profile.get("simulated"):  # a replay fills its nodes in order, ranks_per_node ranks each
        nodes = [f"node {r // int(run['ranks_per_node'])}" for r in range(n)]
    return RankTimes(tuple(times["elapsed"]), tuple(times["mpi"]), None if nodes is None else tuple(nodes))


def openmp(profile: dict[str, Any]) -> OpenMP:
    """The run's OpenMP side: its threads, and its ranks' time in parallel regions and its threads' idle time in
    them (`openmp_idle`) where a kernel of THREAD_TIMED or an app's OpenMP tool recorded them; an app's OMPT
    regions' times alone where its tool could not split them (summed over ranks: each region's mean over ranks ×
    ranks)."""
    threads = int(profile["run"]["threads_per_rank"])
    idle = profile.get("openmp_idle")
    if profile["kernel"] != "app":
        if idle is not None:
            return split_idle(threads, idle)
        if profile.get("simulated"):
            return OpenMP(threads, no_regions=SIMULATED_THREADS, no_split=SIMULATED_THREADS)
        if profile["kernel"] in THREAD_TIMED:
            untimed = UNTIMED.format(kernel=profile["kernel"])
            return OpenMP(threads, no_regions=untimed, no_split=untimed)
        return OpenMP(threads, no_regions=NO_KERNEL_REGIONS)
    if (profile.get("app") or {}).get("openmp_tool") != "ompt":
        why = ("the program ran on an OpenMP runtime without OMPT (GCC's libgomp has none; LLVM's libomp has: "
               "openmp_runtime: libomp runs it there, docs/apps.md), so its parallel regions were not timed")
        return OpenMP(threads, no_regions=why, no_split=why)
    if idle is None:
        ranks = int(profile["run"]["ranks"])
        seconds = sum(r["time"]["avg"] for name, r in profile["regions"].items() if name.startswith("omp_"))
        return OpenMP(threads, in_regions=ranks * seconds, no_split="the OMPT runtime did not report its threads' "
                                                                    "implicit tasks and barrier waits")
    return split_idle(threads, idle)


def split_idle(threads: int, idle: dict[str, list[float]]) -> OpenMP:
    """A profile's `openmp_idle` (per rank: seconds in regions, load imbalance, scheduling, executions not split),
    summed over the ranks."""
    if sum(idle["unsplit_regions"]):
        return OpenMP(threads, in_regions=sum(idle["regions"]),
                      no_split=f"{sum(idle['unsplit_regions']):g} parallel region executions had a thread whose busy "
                               "time is not known (nested regions, or a thread that reached no barrier)")
    return OpenMP(threads, sum(idle["regions"]), imbalance=sum(idle["load_imbalance"]),
                  scheduling=sum(idle["scheduling"]))


def replay_factors(profile: dict[str, Any]) -> Factors:
    """POP's split of communication efficiency, from a replay on the ideal network (simulate.app_replay):
    serialization = max O / T_ideal, transfer = T_ideal / T."""
    simulated = profile.get("simulated") or {}
    if "ideal_seconds" not in simulated:
        return Factors({name: None for name in REPLAY_FACTORS}, {name: NO_REPLAY for name in REPLAY_FACTORS})
    return Factors({"mpi_serialization_efficiency": simulated["serialization_efficiency"],
                    "mpi_transfer_efficiency": simulated["transfer_efficiency"]})


def of_profile(profile: dict[str, Any]) -> Factors:
    """RUN_FACTORS and REPLAY_FACTORS of a run."""
    found, replayed = factors(rank_times(profile), openmp(profile), counts(profile)), replay_factors(profile)
    return Factors(found.values | replayed.values, found.why | replayed.why)
