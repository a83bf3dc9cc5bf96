"""spmv's compute model: seconds a rank computes in one call of Chow & Hysom's model program, from what was
measured on a node (`measured`) or from what they published for the IBM SP (`chow_hysom`).

The product is memory-bound (seed-spec §E.6: ~15% lost to memory bandwidth, for hybrid and MPI alike), so the
loss is a node's, not a rank's: when c cores of a node multiply at once -- c threads of one rank or c ranks
of one thread -- each runs at e(c) of one core alone. e(c) is Chow & Hysom's multithreading efficiency e_mt,
measured as SPMV-Serial's time over c times SPMV-Hybrid's (per nonzero). A rank of T threads on a node
where c cores multiply:

    product(rank) = nnz x cost / (T e(c)) [x e_cache where ranks of one thread share the node]  + fork/join
    pack(rank)    = sum over messages of points x pack cost: / (T e(c)) threaded above 4096 points, else by the
                    master alone at e(R) (the node's R masters fill their buffers at once)

e_cache (t_comp_mpi / t_comp_hyb on one node, their Table 5) is 1 unless given: on this machine it is not
fitted, so that the MPI point is predicted, not reproduced. Pure."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from hybridperf.models.split import ThreadEfficiency
from hybridperf.shapes import Placement
from hybridperf.simulate.compute import StepCompute, Threads
from hybridperf.simulate.plan import Plan, RankPlan

THREADED_PACK = 4096  # halo.c threads a buffer's fill above this many points
DOUBLE = 8


@dataclass(frozen=True)
class SpmvCosts:
    product: float  # s per nonzero, one core alone
    pack: float  # s per halo point copied into a send buffer, one core
    node: Threads  # e(c): per-core speed when c cores of a node multiply, relative to one core alone
    fork_join: Callable[[int], float]  # s per threaded loop at T threads
    e_cache: float = 1.0  # pure MPI's computation over hybrid's on a full node
    sources: dict[str, str] = field(default_factory=dict)
    p2p_region = "exchange"
    sum_region = "reduction"
    region_groups = {"computation": ["local_product"], "communication": ["pack", "exchange"]}

    def _speed(self, split: Placement) -> float:
        """Seconds of one core's threaded work become these seconds on the rank: shared by its T threads on a
        node where all R x T cores work at once."""
        return 1 / (split.threads * self.node(split.ranks_per_node * split.threads))

    def _loops(self, count: int, threads: int) -> float:
        return count * self.fork_join(threads) if threads > 1 else 0.0

    def _pack(self, rank: RankPlan, split: Placement) -> float:
        """Step 1: every send buffer filled; threaded above 4096 points, else by the master alone while the
        node's other masters do the same (R busy cores)."""
        seconds = 0.0
        for op in rank.ordinary:
            if op.kind == "isend":
                points = op.bytes / DOUBLE
                if split.threads > 1 and points > THREADED_PACK:
                    seconds += points * self.pack * self._speed(split) + self._loops(1, split.threads)
                else:
                    seconds += points * self.pack / self.node(split.ranks_per_node)
        return seconds

    def _product(self, rank: RankPlan, split: Placement) -> float:
        """Step 5; e_cache is the product's (Table 5), for ranks of one thread sharing a node."""
        e_cache = self.e_cache if split.threads == 1 and split.ranks_per_node > 1 else 1.0
        return rank.work["nnz"] * self.product * self._speed(split) * e_cache + self._loops(1, split.threads)

    def step(self, plan: Plan, rank: RankPlan, step: int, split: Placement) -> StepCompute:
        """Step 1 (fill every buffer) before the messages, step 5 (the local product) after them."""
        return StepCompute(self._pack(rank, split), tuple(0.0 for _ in plan.halo_ops(rank, step)),
                           self._product(rank, split))

    def regions(self, plan: Plan, rank: RankPlan, split: Placement) -> dict[str, float]:
        return {"pack": self._pack(rank, split) * plan.steps,
                "local_product": self._product(rank, split) * plan.steps}

    def describe(self) -> dict[str, Any]:
        return {"product_s_per_nonzero": self.product, "pack_s_per_point": self.pack, "e_cache": self.e_cache,
                "node_efficiency": {str(c): self.node(c) for c in (2, 4, 8, 16)},
                "fork_join_s": {str(t): self.fork_join(t) for t in (2, 4, 8, 16)}, "sources": dict(self.sources)}


def _per_nonzero(profile: dict[str, Any]) -> float:
    """Seconds per nonzero of a rank's local product, one call."""
    s = profile["spmv"]
    return profile["regions"]["local_product"]["time"]["avg"] * profile["run"]["ranks"] / (s["nonzeros"] * s["calls"])


def _pack_per_point(profile: dict[str, Any]) -> float:
    s = profile["spmv"]
    points = sum(map(sum, s["halo_points"]))
    return profile["regions"]["pack"]["time"]["avg"] * profile["run"]["ranks"] / (points * s["calls"]) \
        if points else 0.0


def measured(serial: dict[str, Any], profiles: list[dict[str, Any]], fork_join: Callable[[int], float],
             fork_join_source: str) -> SpmvCosts:
    """Costs from an SPMV-Serial profile; e(c) from SPMV-Hybrid profiles of one rank of c threads with the same
    brick edge; packing from a multi-rank profile of it (0 where there is none: one node's runs of one rank
    exchange nothing)."""
    n = serial["spmv"]["n"]
    same = [p for p in profiles if p["spmv"]["n"] == n]
    cost = _per_nonzero(serial)
    hybrid = {p["run"]["threads_per_rank"]: p for p in same
              if p["spmv"]["mode"] == "hybrid" and p["run"]["ranks"] == 1}
    points = tuple((t, cost / (t * _per_nonzero(p))) for t, p in sorted(hybrid.items()))
    packers = [p for p in same if p["run"]["ranks"] > 1 and p["run"]["threads_per_rank"] == 1]
    packer = max(packers, key=lambda p: p["run"]["ranks"], default=None)
    node = Threads(ThreadEfficiency(points, "measured: SPMV-Serial over c x SPMV-Hybrid per nonzero, " + ", ".join(
        f"{t} cores {e:.3f}" for t, e in points) if points else "assumed: cores share nothing"))
    # the packers filled their buffers all at once: one core alone is node(R) faster
    pack = _pack_per_point(packer) * node(packer["run"]["ranks"]) if packer else 0.0
    return SpmvCosts(cost, pack, node, fork_join,
                     sources={"costs": f"measured: hybridperf-spmv --mode {serial['spmv']['mode']} on one core, "
                                       f"n = {n}, {serial['spmv']['rows']} rows",
                              "pack": f"measured: {packer['run']['ranks']} ranks" if packer
                              else "none measured (one rank exchanges nothing): 0",
                              "node": node.source, "fork_join": fork_join_source})


def chow_hysom(size: int, node_nonzeros: int, fork_join: Callable[[int], float], fork_join_source: str,
               table2: list[dict[str, str]], table5: list[dict[str, str]]) -> SpmvCosts:
    """The IBM SP's costs at one problem size (rows per node), as Chow & Hysom measured them on one 4-way node:
    a nonzero from SPMV-Serial's time (Table 2) over the node brick's nonzeros (the plan's, `node_nonzeros`),
    e(4) = their e_mt (Table 2), e_cache = MPI over hybrid computation (Table 5). Packing was not published:
    a point is priced as a nonzero, marked assumed."""
    two = next(r for r in table2 if int(r["size"]) == size)
    five = next(r for r in table5 if int(r["size"]) == size)
    calls = 100  # the tables sum 100 calls
    product = float(two["serial"]) / (calls * node_nonzeros)
    e_mt = float(two["e_mt"])
    return SpmvCosts(product, product, Threads(ThreadEfficiency(((4, e_mt),), f"Chow & Hysom Table 2: e_mt {e_mt}")),
                     fork_join, float(five["mpi"]) / float(five["hybrid"]),
                     {"costs": f"Chow & Hysom Table 2: SPMV-Serial {two['serial']} s / 100 calls at {size} rows per "
                               f"node, {product * 1e9:.1f} ns per nonzero",
                      "pack": "assumed: a point packed costs a nonzero's time (not published)",
                      "node": f"Chow & Hysom Table 2: e_mt(4) = {e_mt}",
                      "e_cache": f"Chow & Hysom Table 5: {five['mpi']} / {five['hybrid']} s",
                      "fork_join": fork_join_source})
