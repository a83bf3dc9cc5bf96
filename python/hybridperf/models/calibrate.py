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
- node efficiency n(c): where the calibration ran the serial run's problem as c copies at once, each on its own
  core (`hybridperf run KERNEL --copies c`), the serial run's loop time over the copies' (the kernel's own speed
  per core with c cores busy: shared caches, memory bandwidth, clocks); else, for a bandwidth-bound kernel (spmv),
  STREAM triad with c threads over c times triad with one (cores that share the memory system share its
  bandwidth, ranks or threads alike), and 1 for md;
- multithreading efficiency e_mt(T): the median computation time (the profile's `region_groups`) of the T-rank
  runs over that of the T-thread runs of the same problem, where the directory holds both.
What no profile gives falls back to a default that the Cluster marks assumed.

A measured figure is only as good as the runs behind it: the work and e_mt are the medians of every run of the
problem, and carry their runs' spread (`Spread`) into the prediction's interval; a figure from one run has no
measured spread, so it carries an assumed one. A figure outside its physical bounds -- threads faster than ranks
(a negative threading loss), a node more efficient than its cores alone, a negative latency -- is what a run
slowed by another job gives: it is clamped to the bound, with a warning naming the runs.

For the user's own program (kernel: app, app_problem) the geometry is not known, so what each process sends comes
from the program's own pure-MPI runs, counted by libhybridperf-mpi.so.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from hybridperf.models.split import Cluster, log2_scaled, md_problem, predict, Problem, Split, spmv_problem, ThreadEfficiency
from hybridperf.profile import FILE

BANDWIDTH_BOUND = {"spmv"}
HOW_AND_WHERE = {"mode", "profile", "write_data", "dump_forces", "check_decomposition", "no_timers", "no_thread_times",
                 "pair_kernel",  # how forces are computed (the kernel picks AVX-512 where the machine has it): not the problem
                 "plan", "plan_ranks_per_node", "plan_threads"}
# A figure measured by one run has no spread of its own; on the shared machines this is built on one run in six
# or so is 10-50% slow (analysis.race), so one run is taken to be good to about 10%, and marked assumed.
ONE_RUN_NOISE = 0.10


@dataclass(frozen=True)
class Spread:
    """What the runs of one figure give: their median, their relative spread (the standard deviation of the logs;
    ONE_RUN_NOISE, assumed, for one run) and how many there were."""

    median: float
    noise: float
    runs: int

    def describe(self) -> str:
        if self.runs == 1:
            return f"1 run, spread not measured: ±{ONE_RUN_NOISE:.0%} assumed"
        return f"median of {self.runs} runs, spread ±{self.noise:.1%}"


def spread(values: list[float]) -> Spread:
    """The Spread of one or more positive values."""
    if len(values) == 1:
        return Spread(values[0], ONE_RUN_NOISE, 1)
    return Spread(float(np.median(values)), float(np.std(np.log(values), ddof=1)), len(values))


def run_name(profile: dict[str, Any]) -> str:
    """How a warning names a run: kernel, ranks x threads, and its profile's file (a study's is named for the
    run key) or, where the reader noted none, its start time."""
    run = profile["run"]
    return (f"{profile['kernel']} {run['ranks']}x{run['threads_per_rank']} "
            f"({profile.get(FILE) or 'started ' + run.get('start_time', '?')})")


@dataclass(frozen=True)
class Microbenchmarks:
    alpha: float
    beta: float
    par_overhead_s: float
    par_threads: int
    triad: dict[int, float]  # threads -> GB/s
    sources: tuple[str, ...]
    beta_pack: float = 0.0  # s per message byte to pack and unpack (STREAM copy)
    assumed: frozenset[str] = frozenset()  # Cluster fields left at a default
    warnings: tuple[str, ...] = ()  # figures clamped to their physical bounds, naming the runs


def calibration(mixbench: dict[str, Any] | None, ompbench: dict[str, Any] | None,
                streams: list[dict[str, Any]]) -> Microbenchmarks:
    sources, warnings = [], []
    alpha, beta = 0.4e-6, 1 / 10e9
    if mixbench:
        fit = mixbench["mixbench"]["hockney"]["pingpong"]
        alpha, beta = fit["alpha_s"], fit["beta_s_per_byte"]
        if alpha < 0:  # a straight line through noisy ping-pong times can cross zero below the smallest message
            warnings.append(f"mixbench's latency fit is {alpha * 1e6:.3g} us, below 0, in {run_name(mixbench)}: "
                            "taken as 0")
            alpha = 0.0
        sources.append(f"mixbench ping-pong: alpha {alpha * 1e6:.3g} us, beta {1e-9 / beta:.3g} GB/s")
    overhead, threads = 1e-6, 2
    if ompbench:
        value = next((f["value"] for f in ompbench["figures_of_merit"] if f["name"] == "overhead.PARALLEL_FOR"), None)
        if value is not None:
            if value < 0:  # EPCC's overhead is a difference of two timings, which noise can make negative
                warnings.append(f"ompbench's PARALLEL FOR overhead is {value:.3g} us, below 0, in "
                                f"{run_name(ompbench)}: taken as 0")
                value = 0.0
            overhead, threads = value * 1e-6, ompbench["run"]["threads_per_rank"]
            sources.append(f"ompbench PARALLEL FOR at {threads} threads: {value:.3g} us")
    measured = {s["run"]["threads_per_rank"]: s for s in streams}
    triad = {t: s["stream"]["bandwidth_GBps"]["triad"] for t, s in measured.items()}
    copy = {t: s["stream"]["bandwidth_GBps"]["copy"] for t, s in measured.items()}
    # packing m bytes reads and writes m (2m of STREAM copy's counted bytes), so does unpacking
    beta_pack = 4.0 / (copy[1] * 1e9) if 1 in copy else 0.0
    if triad:
        sources.append("STREAM triad: " + ", ".join(f"{t} thread(s) {v:.3g} GB/s" for t, v in sorted(triad.items())))
    for t in sorted(triad):
        if 1 in triad and t > 1 and triad[t] > t * triad[1]:  # c cores cannot each stream faster than one alone
            warnings.append(f"STREAM triad at {t} threads, {triad[t]:.3g} GB/s, is more than {t} x {triad[1]:.3g} "
                            f"GB/s at 1 (node efficiency {triad[t] / (t * triad[1]):.3f} > 1), in "
                            f"{run_name(measured[t])} against {run_name(measured[1])}: taken as 1")
            triad[t] = t * triad[1]
    assumed = {"alpha_inter", "beta_inter", "alpha_intra", "beta_intra"} if not mixbench else set()
    assumed |= {"par_overhead"} if not ompbench else set()
    return Microbenchmarks(alpha, beta, overhead, max(threads, 2), triad, tuple(sources), beta_pack, frozenset(assumed),
                       tuple(warnings))


@dataclass(frozen=True)
class Copies:
    """n(c) measured by copies of the serial run's problem: per c, the serial runs' median loop time over the
    copies' median; how it was got; the values clamped to 1, with the runs named."""

    efficiency: dict[int, float]
    source: str = ""
    warnings: tuple[str, ...] = ()


def copies_efficiency(profiles: list[dict[str, Any]], copies: list[dict[str, Any]],
                      serial: dict[str, Any] | None) -> Copies:
    """n(c) from the copies (`run.copy`: index k of c) of the serial run's problem, against every 1 rank x 1
    thread run of it alone. A copy faster than the run alone (n > 1: the serial runs were slowed by another job)
    is taken as 1, with a warning."""
    if serial is None:
        return Copies({})
    alone = serial_work(profiles, serial)
    by_count: dict[int, list[dict[str, Any]]] = {}
    for p in copies:
        if p["kernel"] == serial["kernel"] and problem(p["params"]) == problem(serial["params"]):
            by_count.setdefault(int(p["run"]["copy"]["of"]), []).append(p)
    efficiency, described, warnings = {}, [], []
    for count, runs in sorted(by_count.items()):
        together = spread([_loop_time(p) for p in runs])
        n = alone.median / together.median
        if n > 1:
            warnings.append(f"{count} copies at once ran faster than the run alone ({together.median:.4g} s against "
                            f"{alone.median:.4g} s, {run_name(runs[0])}): node efficiency taken as 1")
            n = 1.0
        efficiency[count] = n
        described.append(f"{count} cores {n:.3f} ({together.describe()} of the copies)")
    source = "node efficiency measured: the serial run alone over copies of it at once, " + ", ".join(described)
    return Copies(efficiency, source if efficiency else "", tuple(warnings))


def this_machine(cal: Microbenchmarks, cores: int, bandwidth_bound: bool, copies: Copies = Copies({})) -> Cluster:
    def efficiency(busy: int) -> float:
        if busy in copies.efficiency:
            return copies.efficiency[busy]
        if not bandwidth_bound or 1 not in cal.triad or busy not in cal.triad:
            return 1.0
        return cal.triad[busy] / (busy * cal.triad[1])

    source = "; ".join([*cal.sources, *([copies.source] if copies.source else [])]) or "defaults"
    return Cluster("this machine", 1, cores, 1, cal.alpha, cal.beta, cal.alpha, cal.beta, par_overhead=log2_scaled(cal.par_overhead_s, cal.par_threads),
                   node_efficiency=efficiency, source=source, uncertainty=0.1,
                   beta_pack=cal.beta_pack, assumed=cal.assumed)


def serial_work(profiles: list[dict[str, Any]], serial: dict[str, Any]) -> Spread:
    """The loop times of every 1 rank x 1 thread run of the serial run's problem (the serial run among them)."""
    same = [p for p in profiles if p["kernel"] == serial["kernel"] and p["run"]["ranks"] == 1
            and p["run"]["threads_per_rank"] == 1 and problem(p["params"]) == problem(serial["params"])]
    return spread([_loop_time(p) for p in same or [serial]])


def problem_from(serial: dict[str, Any], size: int | None = None, steps: int | None = None,
                 cores: int | None = None, work_runs: Spread | None = None) -> Problem:
    """The problem a serial run solved, with its loop time as the work (or `work_runs`' median: the serial runs of
    that problem, whose spread becomes the work's error); or, given size (md: fcc cells per side; spmv: n),
    steps (md steps; spmv calls) or cores per node (spmv: one n^3 brick each), that problem rescaled, the work
    growing with atoms (rows) times steps (calls)."""
    work_runs = work_runs or spread([_loop_time(serial)])
    kernel, work = serial["kernel"], work_runs.median
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
    return replace(problem, work_error=work_runs.noise,
                   work_source="measured: the serial run's loop time" + (", rescaled" if size or steps else "") +
                               f"; {work_runs.describe()}")


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
    the median loop time of its serial runs (their spread its error); what one process sends per run --
    point-to-point bytes and messages, and its collective calls -- is what the counting library measured on the pure-MPI runs, carried to other process
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
    work = serial_work(profiles, serial)
    return Problem(name, work.median, halo, messages, collectives, 0.0, work_error=work.noise,
                   work_source=f"measured: the serial run's loop time; {work.describe()}",
                   comm_source=f"measured by libhybridperf-mpi.so at {', '.join(map(str, counted))} ranks; bytes "
                               f"{bytes_how}, messages {messages_how}")


def _described(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in problem(params).items())


def problem(params: dict[str, Any]) -> dict[str, Any]:
    """What defines the problem: the parameters but how it is run and where it writes."""
    return {k: v for k, v in params.items() if k not in HOW_AND_WHERE}


def thread_efficiency(profiles: list[dict[str, Any]], kernel: str,
                      serial: dict[str, Any] | None) -> ThreadEfficiency | None:
    """e_mt(T) from every run of the serial run's problem at T ranks x 1 thread and at 1 rank x T threads: the
    median computation time of the first over that of the second. Its noise is the two sides' spreads together
    (the largest over T). An e_mt above 1 -- threads faster than ranks, a negative threading loss, which is what
    one run slowed by another job gives -- is taken as 1, with a warning naming the runs of the medians. None
    where no such pair exists."""
    if serial is None:
        return None

    def runs(ranks: int, threads: int) -> list[dict[str, Any]]:
        return sorted((p for p in profiles if p["kernel"] == kernel and p["run"]["ranks"] == ranks
                       and p["run"]["threads_per_rank"] == threads and computation(p) > 0
                       and problem(p["params"]) == problem(serial["params"])), key=computation)

    points, noise, warnings, described = [], 0.0, [], []
    counts = {p["run"]["threads_per_rank"] for p in profiles if p["run"]["ranks"] == 1} - {1}
    for t in sorted(counts):
        by_ranks, by_threads = runs(t, 1), runs(1, t)
        if not by_ranks or not by_threads:
            continue
        r, h = spread([computation(p) for p in by_ranks]), spread([computation(p) for p in by_threads])
        e = r.median / h.median
        if e > 1:
            middle = (run_name(by_ranks[(len(by_ranks) - 1) // 2]), run_name(by_threads[(len(by_threads) - 1) // 2]))
            warnings.append(f"threading loss at {t} threads measured {1 - e:.1%} (threads faster than ranks: "
                            f"{middle[0]} computed {r.median:.4g} s, {middle[1]} {h.median:.4g} s): taken as 0")
            e = 1.0
        points.append((t, e))
        noise = max(noise, float(np.hypot(r.noise, h.noise)))
        described.append(f"{t} threads {e:.3f} ({t}x1: {r.describe()}; 1x{t}: {h.describe()})")
    if not points:
        return None
    return ThreadEfficiency(tuple(points), "measured: computation time of T ranks over T threads, " +
                            ", ".join(described), noise, tuple(warnings))


def predict_splits(serial: dict[str, Any], cal: Microbenchmarks, cores: int, copies: Copies = Copies({})) \
        -> dict[Split, float]:
    """Every split of one node's cores that fills them."""
    problem = problem_from(serial)
    cluster = this_machine(cal, cores, serial["kernel"] in BANDWIDTH_BOUND, copies)
    return {Split(1, r, cores // r): predict(cluster, problem, Split(1, r, cores // r))
            for r in range(1, cores + 1) if cores % r == 0}
