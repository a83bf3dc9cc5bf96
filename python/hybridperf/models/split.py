"""Predicted time of any ranks x threads split, from the parts the microbenchmarks price.

    t = W / (N_mpi N_omp e(cores per node) e_mt(N_omp))   the work, shared by every core
      + [N_omp > 1] n_par o_par(N_omp) / 1               OpenMP fork/join of the threaded loops (ompbench)
      + messages alpha_eff + bytes (beta_eff + beta_pack) point-to-point halo traffic (mixbench alpha/beta;
                                                        packing and unpacking at STREAM copy bandwidth)
      + collectives alpha_coll log2(N_mpi)              global sums

This is the thesis's decomposition (§6.1: communication profile + threading overheads) with its terms
priced from measurements instead of fitted: W is the serial work of the problem, e_mt the kernel's
multithreading efficiency (the thesis's direct overheads, proportional to the work), e the node's
efficiency with c cores busy (1 for compute-bound kernels; the STREAM ratio for bandwidth-bound ones),
the halo bytes and message counts come from the decomposition (`Problem`), alpha and beta are per
placement (on-node and off-node; K, the share of halo traffic leaving the node, weights them as in the
thesis), and the processes of a node share its network interface: their off-node messages queue at it
(alpha and beta times N_ppn for the off-node part — Chow & Hysom's Tables 6-7, where per-message
overhead grows with the pairs per node, and the N_ppn factors of the thesis's eqs. 6.3-6.4).
Uncertainty: every input carries a relative error -- the assumed error bars of unmeasured inputs, and for
measured ones the spread of the runs they were calibrated on (the work's, e_mt's: `ThreadEfficiency.noise`) --
and a Monte Carlo over them gives each prediction's spread and the probability that the predicted winner
really wins. A split the program was seen to refuse (`Problem.max_threads`) is never a candidate. Where an
input is not measured, the answer must not rest on it unseen: `variants` lists every input with its
provenance and how to move it, for predict.sensitivity to find how far it would have to move for another split
to win. `parts` gives each term alone, for setting the closed form
beside a simulation of the same split. Pure functions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from hybridperf.models import thesis
from hybridperf import shapes
from hybridperf.shapes import Placement


@dataclass(frozen=True)
class ThreadEfficiency:
    """e_mt(T), the share of ideal speedup T threads keep on the kernel's work (Chow & Hysom's multithreading
    efficiency; the thesis's direct overheads), from measured points: 1 at one thread, linear in log2 T between
    the points, the last point's value beyond them. `source` says where the points come from."""

    points: tuple[tuple[int, float], ...] = ()
    source: str = "assumed: threads lose nothing"
    noise: float = 0.0  # relative error of the measured points: the spread of the runs they came from
    warnings: tuple[str, ...] = ()  # measured points clamped to e_mt <= 1, naming the runs

    def __call__(self, threads: int) -> float:
        known = sorted({(1, 1.0), *self.points})
        if threads >= known[-1][0]:
            return known[-1][1]
        for (t0, e0), (t1, e1) in zip(known, known[1:]):
            if t0 <= threads <= t1:
                w = (math.log2(threads) - math.log2(t0)) / (math.log2(t1) - math.log2(t0))
                return e0 + w * (e1 - e0)
        return 1.0

    @property
    def assumed(self) -> bool:
        return self.source.startswith("assumed")

    def scaled(self, factor: float) -> "ThreadEfficiency":
        """The same efficiencies with their losses (1 - e) multiplied by factor (threads keep at least 1%)."""
        return replace(self, points=tuple((t, max(0.01, 1 - factor * (1 - e))) for t, e in self.points))

    @classmethod
    def from_loss(cls, loss: float, threads: list[int], source: str) -> "ThreadEfficiency":
        """e_mt(T) = 1 / (1 + loss (T - 1)) at the given thread counts."""
        return cls(tuple((t, 1 / (1 + loss * (t - 1))) for t in threads if t > 1), source)


def log2_scaled(value: float, at_threads: int) -> Callable[[int], float]:
    """A fork/join cost measured at `at_threads`, scaled with log2 T (a tree barrier) to other thread counts."""
    return lambda threads: value * math.log2(max(threads, 2)) / math.log2(max(at_threads, 2))


@dataclass(frozen=True)
class Cluster:
    name: str
    nodes: int
    cores_per_node: int
    sockets: int
    alpha_inter: float  # s per message between nodes
    beta_inter: float  # s per byte between nodes
    alpha_intra: float  # s per message within a node
    beta_intra: float  # s per byte within a node
    par_overhead: Callable[[int], float] = field(default=lambda threads: 1e-6 * math.log2(max(threads, 2)))  # s
    beta_pack: float = 0.0  # s per byte to pack a message before sending and unpack it after receiving
    node_efficiency: Callable[[int], float] = field(default=lambda cores: 1.0)
    source: str = ""
    uncertainty: float = 0.2  # relative error of the network and overhead figures
    assumed: frozenset[str] = frozenset()  # the figures above that no measurement or seed gives

    def future(self) -> "Cluster":
        """The thesis's what-if (§6.6, seed-spec §D.11): two 8-core sockets per node, an interconnect of twice
        the bandwidth and half the latency; what happens inside a node (MPI through shared memory, OpenMP's
        overheads) unchanged."""
        return replace(self, name=f"{self.name} (future: 16 cores/node, 2x bandwidth, 1/2 latency)",
                       cores_per_node=16, sockets=2, alpha_inter=self.alpha_inter / 2, beta_inter=self.beta_inter / 2)


@dataclass(frozen=True)
class Problem:
    """What a run must do, as functions of the number of MPI processes."""

    name: str
    work_seconds: float  # serial work of the measured part, on one core
    halo_bytes: Callable[[int], float]  # bytes one process sends per run
    messages: Callable[[int], float]  # point-to-point messages one process sends per run
    collectives: float  # global reductions per run
    parallel_loops: float  # threaded loops entered per run (fork/join count)
    work_error: float = 0.05
    thread_efficiency: ThreadEfficiency = ThreadEfficiency()
    work_source: str = "assumed"
    comm_source: str = "the kernel's decomposition (Table 6.1 shape)"
    max_threads: int | None = None  # the most threads per rank the program was not seen to refuse (None: any)
    refusal: str = ""  # why splits with more are left out: the stored run that refused them

    def doubled(self) -> "Problem":
        return replace(self, name=f"{self.name} x2", work_seconds=2 * self.work_seconds,
                       halo_bytes=lambda n: 2 ** (2 / 3) * self.halo_bytes(n))


# threaded loops per step of hybridperf-md: two integration halves, the force, six halo packs and six unpacks
MD_LOOPS_PER_STEP = 15.0


def md_problem(atoms: int, steps: int, work_seconds: float, density: float = 0.8442, ghost_cut: float = 2.8,
               neigh_every: int = 20, thermo_every: int = 0) -> Problem:
    """hybridperf-md: the halo of a cubic brick of atoms/N_mpi atoms, in the three-phase shape of Table 6.1
    (6 messages per step plus 6 migration messages per rebuild, 24 bytes per ghost atom)."""

    def halo(n: int) -> float:
        side = (atoms / n / density) ** (1 / 3)
        ghosts = density * thesis.halo_cells(side, side, side, ghost_cut)
        return 24.0 * ghosts * steps

    rebuilds = steps // neigh_every
    sums = steps // thermo_every if thermo_every else 2
    return Problem(f"md {atoms} atoms x {steps} steps", work_seconds, halo,
                   lambda n: 6.0 * (steps + rebuilds), float(sums), MD_LOOPS_PER_STEP * steps)


def spmv_problem(n: int, cores: int, calls: int, work_seconds: float) -> Problem:
    """hybridperf-spmv in MPI mode on one node: `procs` bricks of the node's nt n^3 rows; a process sends its
    faces shared with other bricks (n^2 points of 8 bytes each, 2 (f - 1) / f faces on average along an
    axis split f ways), once per call. One process per node exchanges nothing."""

    def split(procs: int) -> list[int]:
        f, k = [], procs
        for d in range(3):
            a = round(k ** (1 / (3 - d)))
            while k % a:
                a -= 1
            f.append(a)
            k //= a
        return f

    def halo(procs: int) -> float:
        return sum(8.0 * n * n * 2 * (f - 1) / f for f in split(procs)) * calls

    def messages(procs: int) -> float:
        return sum(2 * (f - 1) / f for f in split(procs)) * calls

    return Problem(f"spmv n={n} on {cores} cores", work_seconds, halo, messages, 0.0, 2.0 * calls)


@dataclass(frozen=True)
class Split(Placement):
    nodes: int
    ranks_per_node: int
    threads: int

    def __str__(self) -> str:
        return f"{self.nodes}n x {self.ranks_per_node}r x {self.threads}t"


PARTS = ("compute", "threading", "point-to-point", "collectives")


def parts(cluster: Cluster, problem: Problem, split: Split, scale: dict[str, float] | None = None) -> dict[str, float]:
    """Predicted seconds of each part of the run (PARTS): the work shared by every core as if threads lost nothing;
    what threads cost (their loss on the work, 1 / e_mt - 1 of it, and the fork/join of the threaded loops); the
    halo; the global sums. `scale` multiplies inputs (for the Monte Carlo): work, network, overhead, and e_mt by
    its measurement's noise (threads), never above 1."""
    s = scale or {}
    n_mpi, n_ppn, n_omp = split.ranks, split.ranks_per_node, split.threads
    busy = min(cluster.cores_per_node, n_ppn * n_omp)
    efficiency = problem.thread_efficiency.scaled(s.get("overhead", 1.0))(n_omp)
    if n_omp > 1:
        efficiency = min(1.0, efficiency * s.get("threads", 1.0))
    work = s.get("work", 1.0) * problem.work_seconds / (n_mpi * n_omp * cluster.node_efficiency(busy))
    threads = s.get("overhead", 1.0) * problem.parallel_loops * cluster.par_overhead(n_omp) if n_omp > 1 else 0.0
    k = thesis.k_share(n_ppn, cluster.cores_per_node) if split.nodes > 1 else 0.0
    net = s.get("network", 1.0)
    alpha = net * (k * cluster.alpha_inter * n_ppn + (1 - k) * cluster.alpha_intra)
    beta = net * (k * cluster.beta_inter * n_ppn + (1 - k) * cluster.beta_intra)
    p2p = problem.messages(n_mpi) * alpha + problem.halo_bytes(n_mpi) * (beta + cluster.beta_pack) if n_mpi > 1 else 0.0
    coll = problem.collectives * alpha * 2 * math.log2(n_mpi) if n_mpi > 1 else 0.0
    return dict(zip(PARTS, (work, work * (1 / efficiency - 1) + threads, p2p, coll)))


def predict(cluster: Cluster, problem: Problem, split: Split, scale: dict[str, float] | None = None) -> float:
    """Predicted seconds: the sum of the parts."""
    return sum(parts(cluster, problem, split, scale).values())


def splits_of(cluster: Cluster, nodes: int) -> list[Split]:
    """Every ranks x threads per node that fills the node's cores (shapes.splits: most ranks first)."""
    return [Split(nodes, r, t) for r, t in shapes.splits(cluster.cores_per_node)]


def refused(problem: Problem, split: Split) -> bool:
    """Whether the program was seen to refuse the split's thread count."""
    return problem.max_threads is not None and split.threads > problem.max_threads


def candidates(cluster: Cluster, problem: Problem, nodes: int) -> list[Split]:
    """The splits that may be recommended: every split of the node but those the program refused (pure MPI,
    one thread per rank, is always among them)."""
    return [s for s in splits_of(cluster, nodes) if not refused(problem, s)]


@dataclass
class Priced:
    """Every candidate split priced, with the Monte Carlo over its inputs' error bars: what the closed form says, for
    predict's contest (predict.model) to decide."""

    nodes: int
    times: dict[Split, tuple[float, float]]  # prediction, standard deviation
    winner: Split  # the fastest prediction
    runner_up: Split | None
    margin: float  # runner-up / winner - 1
    confidence: float  # share of Monte Carlo draws in which the winner wins
    log_sd: dict[Split, float]  # the standard deviation of each prediction's log over the draws
    log_ratio_sd: dict[Split, float]  # ... and of the log of its time over the winner's, draw by draw


def recommend(cluster: Cluster, problem: Problem, nodes: int, draws: int = 400, seed: int = 1) -> Priced:
    """The candidate splits' predictions with their Monte Carlo spread, the fastest, its margin and how often it
    wins."""
    splits = candidates(cluster, problem, nodes)
    rng = np.random.default_rng(seed)
    u = cluster.uncertainty
    samples = np.empty((draws, len(splits)))
    for d in range(draws):
        scale = {"work": rng.lognormal(0, problem.work_error), "network": rng.lognormal(0, u),
                 "overhead": rng.lognormal(0, u), "threads": rng.lognormal(0, problem.thread_efficiency.noise)}
        samples[d] = [predict(cluster, problem, s, scale) for s in splits]
    central = [predict(cluster, problem, s) for s in splits]
    order = np.argsort(central)
    winner = splits[order[0]]
    runner = splits[order[1]] if len(splits) > 1 else None
    wins = np.mean(np.argmin(samples, axis=1) == order[0])
    logs = np.log(samples)
    return Priced(nodes, {s: (c, float(np.std(samples[:, i]))) for i, (s, c) in enumerate(zip(splits, central))},
                  winner, runner, float(central[order[1]] / central[order[0]] - 1) if runner else 0.0, float(wins),
                  {s: float(np.std(logs[:, i])) for i, s in enumerate(splits)},
                  {s: float(np.std(logs[:, i] - logs[:, order[0]])) for i, s in enumerate(splits)})


def crossovers(cluster: Cluster, problem: Problem, node_counts: list[int]) -> list[tuple[int, Split, Split]]:
    """(node count, previous winner, new winner) wherever the predicted winner changes."""
    out, previous = [], None
    for n in node_counts:
        winner = recommend(cluster, problem, n, draws=1).winner
        if previous and (winner.ranks_per_node, winner.threads) != (previous.ranks_per_node, previous.threads):
            out.append((n, previous, winner))
        previous = winner
    return out


# ---------------------------------------------------------------- the inputs, to move one at a time

THREAD_LOSS = "threading loss (1 - e_mt)"


@dataclass(frozen=True)
class Variant:
    """One input of a prediction: its value and where it comes from, and the cluster and problem with it
    multiplied by a factor (`vary`)."""

    value: str
    source: str
    assumed: bool
    vary: Callable[[float], tuple[Cluster, Problem]]


def variants(cluster: Cluster, problem: Problem) -> dict[str, Variant]:
    """Every input of a prediction, by name. A threading loss priced from nothing (no measured points) cannot be
    multiplied: `with_loss` sets it instead."""
    def cluster_times(name: str) -> Callable[[float], tuple[Cluster, Problem]]:
        return lambda f: (replace(cluster, **{name: getattr(cluster, name) * f}), problem)

    def source(name: str) -> tuple[str, bool]:
        return ("assumed", True) if name in cluster.assumed else ("measured or published", False)

    par = cluster.par_overhead
    eff = problem.thread_efficiency
    n, halo, messages = cluster.cores_per_node, problem.halo_bytes, problem.messages
    losses = ", ".join(f"{1 - e:.1%} at {t}" for t, e in eff.points) + " threads" if eff.points else "none"
    return {
        "work (serial seconds)": Variant(f"{problem.work_seconds:.4g} s", problem.work_source,
                                         problem.work_source.startswith("assumed"),
                                         lambda f: (cluster, replace(problem, work_seconds=problem.work_seconds * f))),
        THREAD_LOSS: Variant(losses, eff.source, eff.assumed,
                             lambda f: (cluster, replace(problem, thread_efficiency=eff.scaled(f)))),
        "point-to-point sent per process": Variant(
            f"{halo(n):.3g} B in {messages(n):.3g} messages at {n} processes", problem.comm_source, False,
            lambda f: (cluster, replace(problem, halo_bytes=lambda k: f * halo(k), messages=lambda k: f * messages(k)))),
        "fork/join per threaded loop": Variant(f"{par(cluster.cores_per_node) * 1e6:.3g} us at {cluster.cores_per_node} "
                                               "threads", *source("par_overhead"),
                                               lambda f: (replace(cluster, par_overhead=lambda t: f * par(t)), problem)),
        "latency between nodes": Variant(f"{cluster.alpha_inter * 1e6:.3g} us", *source("alpha_inter"),
                                         cluster_times("alpha_inter")),
        "time per byte between nodes": Variant(f"{1e-9 / cluster.beta_inter:.3g} GB/s", *source("beta_inter"),
                                               cluster_times("beta_inter")),
        "latency within a node": Variant(f"{cluster.alpha_intra * 1e6:.3g} us", *source("alpha_intra"),
                                         cluster_times("alpha_intra")),
        "time per byte within a node": Variant(f"{1e-9 / cluster.beta_intra:.3g} GB/s", *source("beta_intra"),
                                               cluster_times("beta_intra")),
    }


def with_loss(cluster: Cluster, problem: Problem, loss: float) -> Problem:
    """The problem with threads that lose `loss` per extra thread: e_mt(T) = 1 / (1 + loss (T - 1))."""
    threads = sorted({s.threads for s in splits_of(cluster, 1)} - {1})
    return replace(problem, thread_efficiency=ThreadEfficiency.from_loss(loss, threads, ""))
