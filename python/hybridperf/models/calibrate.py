"""The calibrated model: every ranks x threads split of this machine predicted from one serial run and the
microbenchmarks, with no hybrid run.

- work W: the loop time of the kernel's serial run (1 rank x 1 thread; for SPMV its serial mode, the
  hybrid brick on one thread) — everything a split must share out;
- problem geometry: atoms, steps and cut-off (md) or n and calls (spmv) from that run's profile, giving
  each split's halo bytes and messages (Table 6.1 shape, models.split);
- alpha, beta: hybridperf-mixbench's Hockney fit of the ping-pong on this node, per message, plus the
  packing and unpacking of each message through memory at STREAM copy bandwidth (a halo message is
  gathered from and scattered to the atom arrays; the ping-pong prices the MPI copy alone);
- fork/join: hybridperf-ompbench's PARALLEL FOR overhead at the threads it measured, scaled with log2 of
  the thread count for others (tree barriers), times the kernel's threaded loops (models.split: md 15 per
  step, spmv 2 per call — pack and product);
- node efficiency: for a bandwidth-bound kernel (spmv) STREAM triad with c threads over c times triad
  with one (cores that share the memory system share its bandwidth, ranks or threads alike); 1 for md;
- multithreading efficiency e_mt(T): the computation time (the profile's `region_groups`) of a T-rank run
  over that of a T-thread run of the same problem, where the directory holds both.
What no profile gives falls back to a default that the Cluster marks assumed.

For the user's own program (kernel: app, app_problem) the geometry is not known, so what each process sends comes
from the program's own pure-MPI runs, counted by libhybridperf-mpi.so.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from hybridperf.models.split import Cluster, log2_scaled, md_problem, predict, Problem, Split, spmv_problem, ThreadEfficiency

BANDWIDTH_BOUND = {"spmv"}
HOW_AND_WHERE = {"mode", "profile", "write_data", "dump_forces", "check_decomposition", "no_timers", "plan",
                 "plan_ranks_per_node", "plan_threads"}


@dataclass(frozen=True)
class Calibration:
    alpha: float
    beta: float
    par_overhead_s: float
    par_threads: int
    triad: dict[int, float]  # threads -> GB/s
    sources: tuple[str, ...]
    beta_pack: float = 0.0  # s per message byte to pack and unpack (STREAM copy)
    assumed: frozenset[str] = frozenset()  # Cluster fields left at a default


def calibration(mixbench: dict[str, Any] | None, ompbench: dict[str, Any] | None,
                streams: list[dict[str, Any]]) -> Calibration:
    sources = []
    alpha, beta = 0.4e-6, 1 / 10e9
    if mixbench:
        fit = mixbench["mixbench"]["hockney"]["pingpong"]
        alpha, beta = fit["alpha_s"], fit["beta_s_per_byte"]
        sources.append(f"mixbench ping-pong: alpha {alpha * 1e6:.3g} us, beta {1e-9 / beta:.3g} GB/s")
    overhead, threads = 1e-6, 2
    if ompbench:
        value = next((f["value"] for f in ompbench["figures_of_merit"] if f["name"] == "overhead.PARALLEL_FOR"), None)
        if value is not None:
            overhead, threads = value * 1e-6, ompbench["run"]["threads_per_rank"]
            sources.append(f"ompbench PARALLEL FOR at {threads} threads: {value:.3g} us")
    triad = {s["run"]["threads_per_rank"]: s["stream"]["bandwidth_GBps"]["triad"] for s in streams}
    copy = {s["run"]["threads_per_rank"]: s["stream"]["bandwidth_GBps"]["copy"] for s in streams}
    # packing m bytes reads and writes m (2m of STREAM copy's counted bytes), so does unpacking
    beta_pack = 4.0 / (copy[1] * 1e9) if 1 in copy else 0.0
    if triad:
        sources.append("STREAM triad: " + ", ".join(f"{t} thread(s) {v:.3g} GB/s" for t, v in sorted(triad.items())))
    assumed = {"alpha_inter", "beta_inter", "alpha_intra", "beta_intra"} if not mixbench else set()
    assumed |= {"par_overhead"} if not ompbench else set()
    return Calibration(alpha, beta, overhead, max(threads, 2), triad, tuple(sources), beta_pack, frozenset(assumed))


def this_machine(cal: Calibration, cores: int, bandwidth_bound: bool) -> Cluster:
    def efficiency(busy: int) -> float:
        if not bandwidth_bound or 1 not in cal.triad or busy not in cal.triad:
            return 1.0
        return cal.triad[busy] / (busy * cal.triad[1])

    return Cluster("this machine", 1, cores, 1, cal.alpha, cal.beta, cal.alpha, cal.beta, par_overhead=log2_scaled(cal.par_overhead_s, cal.par_threads),
                   node_efficiency=efficiency, source="; ".join(cal.sources) or "defaults", uncertainty=0.1,
                   beta_pack=cal.beta_pack, assumed=cal.assumed)


def problem_from(serial: dict[str, Any], size: int | None = None, steps: int | None = None,
                 cores: int | None = None) -> Problem:
    """The problem a serial run solved, with its loop time as the work; or, given size (md: fcc cells per
    side; spmv: n), steps (md steps; spmv calls) or cores per node (spmv: one n^3 brick each), that
    problem rescaled, the work growing with atoms (rows) times steps (calls)."""
    kernel, work = serial["kernel"], next(f["value"] for f in serial["figures_of_merit"] if f["name"] == "loop_time")
    params = serial["params"]
    if kernel == "md":
        md = serial["md"]
        atoms, done = (4 * size**3 if size else md["atoms"]), steps or md["steps_done"]
        work *= atoms * done / (md["atoms"] * md["steps_done"])
        problem = md_problem(atoms, done, work, params["density"], md["ghost_cut"], params["neigh_every"],
                             params["thermo"])
    elif kernel == "spmv":
        s = serial["spmv"]
        n, calls, cores = size or s["n"], steps or s["calls"], cores or s["rows_per_node"] // s["n"] ** 3
        work *= n**3 * cores * calls / (s["rows_per_node"] * s["calls"])
        problem = spmv_problem(n, cores, calls, work)
    else:
        raise ValueError(f"the calibrated model knows md and spmv, not {kernel}")
    return replace(problem, work_source="measured: the serial run's loop time" + (", rescaled" if size or steps else ""))


def computation(profile: dict[str, Any]) -> float:
    """The computation regions' time; for a program without its own timing table (an app), its loop time."""
    names = [n for n in profile.get("region_groups", {}).get("computation", []) if n in profile["regions"]]
    if not names:
        return _loop_time(profile)
    return sum(profile["regions"][n]["time"]["avg"] for n in names)


def _loop_time(profile: dict[str, Any]) -> float:
    return next(f["value"] for f in profile["figures_of_merit"] if f["name"] == "loop_time")


def _power_law(points: list[tuple[int, float]], exponent: float) -> tuple[Callable[[int], float], str]:
    """y(n) through the points (n, y) as y_1 (n / n_1)^k: k fitted in log-log where two or more n were measured
    with y > 0, else `exponent` (assumed); and how it was got."""
    usable = sorted((n, y) for n, y in points if y > 0)
    n1, y1 = usable[-1] if usable else (2, 0.0)
    if len({n for n, _ in usable}) >= 2:
        logs = np.log([[n, y] for n, y in usable])
        exponent = float(np.polyfit(logs[:, 0], logs[:, 1], 1)[0])
        how = f"n^{exponent:.2f} fitted"
    else:
        how = f"n^{exponent:.2f} assumed"
    return (lambda n: y1 * (n / n1) ** exponent), how


def app_problem(profiles: list[dict[str, Any]], serial: dict[str, Any]) -> Problem:
    """The problem of the user's program (kernel: app) from its own runs of the serial run's problem: the work is
    the serial run's loop time; what one process sends per run -- point-to-point bytes and messages, and its
    collective calls -- is what the counting library measured on the pure-MPI runs, carried to other process
    counts n as a power law through them (fitted where two or more counts were run; else a 3-D domain's halo,
    bytes ~ n^-2/3 and messages flat, assumed). Its threaded loops are not counted: their fork/join cost is in
    the measured multithreading efficiency. ValueError when the runs cannot give these."""
    same = [p for p in profiles if p["kernel"] == "app" and problem(p["params"]) == problem(serial["params"])
            and p["run"]["threads_per_rank"] == 1 and p["run"]["ranks"] > 1 and "comm" in p]
    if not same:
        raise ValueError("no pure-MPI run of the serial run's problem with 2 or more ranks and MPI counts (the study "
                         "needs profile_mpi: true, the default for launch: mpi): what the program sends cannot be "
                         "known")
    per_rank = [(p["run"]["ranks"], p["comm"]) for p in same]
    halo, bytes_how = _power_law([(n, c["p2p"]["bytes_per_rank"]["avg"]) for n, c in per_rank], -2 / 3)
    messages, messages_how = _power_law([(n, c["p2p"]["messages_per_rank"]["avg"]) for n, c in per_rank], 0.0)
    largest = max(per_rank, key=lambda point: point[0])
    collectives = largest[1]["collective"]["calls"] / largest[0]
    counted = sorted({n for n, _ in per_rank})
    name = f"{serial['kernel_version'].rsplit('/', 1)[-1]} {_described(serial['params'])}"
    return Problem(name, _loop_time(serial), halo, messages, collectives, 0.0,
                   work_source="measured: the serial run's loop time",
                   comm_source=f"measured by libhybridperf-mpi.so at {', '.join(map(str, counted))} ranks; bytes "
                               f"{bytes_how}, messages {messages_how}")


def _described(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in problem(params).items())


def problem(params: dict[str, Any]) -> dict[str, Any]:
    """What defines the problem: the parameters but how it is run and where it writes."""
    return {k: v for k, v in params.items() if k not in HOW_AND_WHERE}


def thread_efficiency(profiles: list[dict[str, Any]], kernel: str, serial: dict[str, Any] | None) -> ThreadEfficiency | None:
    """e_mt(T) from runs of the serial run's problem at T ranks x 1 thread and 1 rank x T threads (the latest
    of each), the computation time of the first over the second; None where no such pair exists."""
    if serial is None:
        return None

    def same_problem(p: dict[str, Any]) -> bool:
        return p["kernel"] == kernel and problem(p["params"]) == problem(serial["params"])

    ranks = {p["run"]["ranks"]: p for p in profiles if same_problem(p) and p["run"]["threads_per_rank"] == 1}
    threads = {p["run"]["threads_per_rank"]: p for p in profiles if same_problem(p) and p["run"]["ranks"] == 1}
    points = tuple((t, computation(ranks[t]) / computation(threads[t])) for t in sorted(set(ranks) & set(threads))
                   if t > 1 and computation(threads[t]) > 0)
    if not points:
        return None
    return ThreadEfficiency(points, "measured: computation time of T ranks over T threads, " +
                            ", ".join(f"{t} threads {e:.3f}" for t, e in points))


def predict_splits(serial: dict[str, Any], cal: Calibration, cores: int) -> dict[Split, float]:
    """Every split of one node's cores that fills them."""
    problem = problem_from(serial)
    cluster = this_machine(cal, cores, serial["kernel"] in BANDWIDTH_BOUND)
    return {Split(1, r, cores // r): predict(cluster, problem, Split(1, r, cores // r))
            for r in range(1, cores + 1) if cores % r == 0}
