"""Chow & Hysom's SPMV scaling on the IBM SP (seed-spec §E.5 Table 9, §H.3.29), simulated on the ibm-sp
description beside what they published.

Their model program at 500 ... 256,000 rows per 4-way node (n = 5 ... 40), on p^3 = 8 ... 216 nodes (Table 9)
or on the two nodes of Table 8, as SPMV-MPI (4 ranks of one thread per node) and SPMV-Hybrid (one rank of 4
threads); the plan is hybridperf-spmv's own (`--plan`, `--grid X Y Z` of nodes). Compute costs are theirs, per
size (Tables 2 and 5: spmv_costs.chow_hysom), so the simulator decides only what the network adds. 100 calls are simulated as a
window of `window` calls scaled to 100: every call is alike and nothing synchronises the ranks globally.
Communication is the paper's steps 1-4: the buffers' filling and the exchange. A simulator given a `Moved`
input (`--sensitivity`) replays with a figure of the description or the packing cost (`COMPUTE_MOVES`) moved.
Pure but `SpmvSimulator`, which replays."""

from __future__ import annotations

import math
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Callable

from hybridperf import cluster
from hybridperf.launch import kernels
from hybridperf.models import presets, published
from hybridperf.models.split import predict, Problem, Split, ThreadEfficiency
from hybridperf.simulate import point, spmv_costs
from hybridperf.simulate.outcome import Declared, Measured, Moved, rounded
from hybridperf.simulate.plan import parse, Plan
from hybridperf.simulate.study import fork_join_of

CLUSTER = "ibm-sp"
# Chow & Hysom's modes: the kernel's --mode that runs each, and the description its messages travel on
MODES = {"mpi": ("mpi", CLUSTER), "hybrid": ("hybrid", CLUSTER),
         "mpi-switch": ("mpi", "ibm-sp-switch")}  # Table 8's "MPI": on-node messages through the switch adapter
Grid = tuple[int, int, int]  # nodes along x, y, z
PER_NODE = 4
SIZES = {PER_NODE * n ** 3: n for n in range(5, 41, 5)}  # rows per 4-way node: n (the paper's 500 ... 256000)
NODES = (8, 27, 64, 125, 216)
CALLS = 100
WINDOW = 2  # calls replayed of the 100
# the compute inputs an outcome may declare assumed (its `inputs`' `moves`), each moved by a factor
COMPUTE_MOVES: dict[str, Callable[[spmv_costs.SpmvCosts, float], spmv_costs.SpmvCosts]] = {
    "pack": lambda costs, factor: replace(costs, pack=costs.pack * factor)}  # a point's packing: not published


def cube(nodes: int) -> Grid:
    """Table 9's p x p x p nodes."""
    p = round(nodes ** (1 / 3))
    return p, p, p


class SpmvSimulator:
    """Simulated total and communication seconds (per 100 calls) of SPMV-MPI and SPMV-Hybrid."""

    def __init__(self, window: int, progress: Callable[[str], None], moved: Moved | None = None):
        self.window, self.progress, self.moved = window, progress, moved
        # ibm-sp-switch keeps ibm-sp's network: a move of it moves both (Moved.on)
        self.specs = {name: moved.on(cluster.load(name)) if moved else cluster.load(name)
                      for name in {name for _, name in MODES.values()}}
        self.fork_join = fork_join_of(self.specs[CLUSTER])
        self.table2 = published.rows(published.DATA / "chow-hysom-table2-4way-4threads.csv")
        self.table5 = published.rows(published.DATA / "chow-hysom-table5-computation.csv")
        self.results: dict[tuple[int, Grid, str], tuple[float, float]] = {}
        self.priced: dict[int, spmv_costs.SpmvCosts] = {}  # per size: its one-node plan is planned once

    def _plan(self, size: int, grid: Grid, mode: str, calls: int) -> Plan:
        """The plan of the kernel's `mode` (mpi, hybrid)."""
        ranks_per_node, threads = (PER_NODE, 1) if mode == "mpi" else (1, PER_NODE)
        args = ("--n", str(SIZES[size]), "--calls", str(calls), "--mode", mode, "--grid", *map(str, grid))
        return parse(kernels.plan("spmv", args, math.prod(grid) * ranks_per_node, ranks_per_node, threads))

    def costs(self, size: int) -> spmv_costs.SpmvCosts:
        if size not in self.priced:
            one_node = self._plan(size, (1, 1, 1), "hybrid", 1)
            costs = spmv_costs.chow_hysom(size, one_node.ranks_plan[0].work["nnz"], *self.fork_join, self.table2,
                                          self.table5)
            self.priced[size] = self.moved.costs(costs, COMPUTE_MOVES) if self.moved else costs
        return self.priced[size]

    def __call__(self, size: int, nodes: int | Grid, mode: str) -> tuple[float, float]:
        """(total, communication) seconds over 100 calls of a mode (MODES) on p^3 `nodes` (Table 9's) or a grid of
        nodes."""
        grid = nodes if isinstance(nodes, tuple) else cube(nodes)
        key = (size, grid, mode)
        if key not in self.results:
            count, (kernel_mode, description) = math.prod(grid), MODES[mode]
            spec = self.specs[description]
            self.progress(f"{spec.name}: SPMV-{mode} at {size} rows per node on {count} nodes")
            plan = self._plan(size, grid, kernel_mode, self.window)
            split = Split(count, PER_NODE, 1) if kernel_mode == "mpi" else Split(count, 1, PER_NODE)
            model = self.costs(size)
            with tempfile.TemporaryDirectory(prefix="hybridperf-validate-") as work:  # its sums are not asked for
                raw = point.replays(plan, model, spec, split, Path(work), ("whole", "no-p2p"))
            scale = CALLS / self.window
            packing = max(model.regions(plan, r, split)["pack"] for r in plan.ranks_plan)
            p2p = max(0.0, raw["whole"] - raw["no-p2p"])
            self.results[key] = (raw["whole"] * scale, (p2p + packing) * scale)
        return self.results[key]

    def communication_ratio(self, size: int, nodes: int | Grid, numerator: str, denominator: str) -> float:
        """One mode's communication over another's."""
        return self(size, nodes, numerator)[1] / self(size, nodes, denominator)[1]

    def e_mp(self, size: int, nodes: int) -> float:
        """Chow & Hysom's message-passing scaled efficiency: hybrid's communication over MPI's (< 1 favours
        hybrid)."""
        return self.communication_ratio(size, nodes, "hybrid", "mpi")


def closed_form_winner(sim: SpmvSimulator, size: int, nodes: int) -> str:
    """The split model (models.split) on the same point: SPMV-MPI against SPMV-Hybrid with Table 2's serial time
    as the work and its e_mt(4), each rank sending its interior brick's 6 faces, 12 edges and 8 corners per
    call (the model knows no e_cache)."""
    n = SIZES[size]
    two = next(r for r in sim.table2 if int(r["size"]) == size)

    def brick(procs: int) -> tuple[int, int, int]:
        return (n, n, n) if procs == PER_NODE * nodes else (2 * n, 2 * n, n)

    def halo(procs: int) -> float:
        x, y, z = brick(procs)
        return 8.0 * (2 * (x * y + y * z + x * z) + 4 * (x + y + z) + 8) * CALLS

    problem = Problem(f"spmv {size} rows per node on {nodes} nodes", float(two["serial"]) * nodes, halo,
                      lambda procs: 26.0 * CALLS, 0.0, 2.0 * CALLS,
                      thread_efficiency=ThreadEfficiency(((PER_NODE, float(two["e_mt"])),), "Chow & Hysom Table 2"))
    model = presets.PRESETS[CLUSTER]
    mpi, hybrid = (predict(model, problem, sp) for sp in (Split(nodes, PER_NODE, 1), Split(nodes, 1, PER_NODE)))
    return f"{'mpi' if mpi < hybrid else 'hybrid'} ({min(mpi, hybrid):.3f} s against {max(mpi, hybrid):.3f})"


def total_ratio(sim: SpmvSimulator, d: Declared) -> Measured:
    """One mode's simulated total over the other's (`numerator`, `denominator`), beside both totals."""
    p = d.params
    totals = {mode: rounded(sim(p["size"], p["nodes"], mode)[0]) for mode in (p["numerator"], p["denominator"])}
    return Measured(rounded(totals[p["numerator"]] / totals[p["denominator"]]), totals,
                    closed_form_winner(sim, p["size"], p["nodes"]))


def e_mp(sim: SpmvSimulator, d: Declared) -> Measured:
    """The simulated e_mp at each published node count."""
    return Measured({n: rounded(sim.e_mp(d.params["size"], n)) for n in d.published})


def e_ni(sim: SpmvSimulator, d: Declared) -> Measured:
    """Table 8's ratio: one mode's simulated communication over the other's (`numerator`, `denominator`) on the
    outcome's grid of nodes, at each published size."""
    p = d.params
    grid = tuple(p["grid"])
    return Measured({size: rounded(sim.communication_ratio(size, grid, p["numerator"], p["denominator"]))
                     for size in d.published})


def descriptions(d: Declared) -> tuple[str, ...]:
    """The descriptions an SPMV outcome's modes run on (MPI and Hybrid where it names none)."""
    modes = [d.params[k] for k in ("numerator", "denominator") if k in d.params] or ["mpi", "hybrid"]
    return tuple(sorted({MODES[m][1] for m in modes}))


MEASURES: dict[str, Callable[[SpmvSimulator, Declared], Measured]] = {"spmv_total_ratio": total_ratio,
                                                                       "spmv_e_mp": e_mp, "spmv_e_ni": e_ni}
