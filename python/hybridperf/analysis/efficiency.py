"""Chow & Hysom's four efficiency parameters (seed-spec §E.3), computed from stored runs.

    e_mt     = t_comp_ser / (nt * t_comp_hyb)        multithreading efficiency     (> 1 favours hybrid)
    e_cache  = t_comp_mpi / t_comp_hyb               relative cache efficiency     (> 1 favours hybrid)
    e_ni     = t_comm_mpi(m1) / t_comm_hyb(m2)       network-interface efficiency  (> 1 favours hybrid)
    e_mp     = t_comm_hyb(p/nt) / t_comm_mpi(p)      message-passing scaled eff.   (< 1 favours hybrid!)

e_ni and e_mp are reciprocal ratios of the same two times; the paper measures e_ni on a small number
of nodes (message lengths m1, m2 differ, the NI effect isolated) and e_mp across node counts (scaled
problem), so here e_ni is computed at the smallest node count of each problem and e_mp at every one — both
only on two or more nodes: they measure the network between nodes, and on one node (where md's lone hybrid
rank still sends its halo to itself) they would time memory copies instead.

Runs take roles from their shape on a node of P cores: `mpi` is P ranks x 1 thread per node, `hyb` is
1 rank x P threads (nt = P), `ser` is 1 rank x 1 thread per node (the hybrid decomposition on one
thread: Chow & Hysom's SPMV-Serial). Runs are paired when they solve the same problem — the same
parameters, ignoring a parameter named `mode` and any parameter a study sets per configuration (they
say how the problem is run, e.g. SPMV's decomposition), and the same problem size where the kernel states
it (`analysis.scaling`: a weak-scaling study's 1-core run solves a core's share, not a node's) — on the same
number of nodes. Computation and communication times are the sums of the
regions the kernel's profile lists in `region_groups` (md: force + neighbor; halo_exchange +
migration + reduction), rank-averaged, per run; each role's time is the mean over its repeats, and
the error of a ratio is propagated from the SEMs (relative errors in quadrature).
Any kernel whose profile declares `region_groups` works.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from hybridperf.analysis.scaling import problem_size
from hybridperf.analysis.stats import summarize, Summary

ROLES = ("mpi", "hyb", "ser")
IGNORED_PARAMS = ("mode",)
NEEDS_NODES = "e_ni and e_mp need runs on two or more nodes"


class MissingRuns(ValueError):
    """A parameter that needs runs the store does not hold; the message says which."""


@dataclass(frozen=True)
class Value:
    value: float
    error: float

    def __str__(self) -> str:
        return f"{self.value:.3g} ± {self.error:.2g}"


def ratio(a: Summary, b: Summary, scale: float = 1.0) -> Value:
    """a / (scale * b) with first-order error propagation (independent measurements)."""
    if b.mean == 0 or a.mean == 0:
        raise MissingRuns("a time in the ratio is zero (a role that does not communicate, e.g. one rank)")
    value = a.mean / (scale * b.mean)
    return Value(value, value * math.hypot(a.error / a.mean, b.error / b.mean))


# The formulas, on summaries of the times (each exactly as printed in the paper).
def e_mt(t_comp_ser: Summary, t_comp_hyb: Summary, nt: int) -> Value:
    return ratio(t_comp_ser, t_comp_hyb, nt)


def e_cache(t_comp_mpi: Summary, t_comp_hyb: Summary) -> Value:
    return ratio(t_comp_mpi, t_comp_hyb)


def e_ni(t_comm_mpi_m1: Summary, t_comm_hyb_m2: Summary) -> Value:
    return ratio(t_comm_mpi_m1, t_comm_hyb_m2)


def e_mp(t_comm_hyb: Summary, t_comm_mpi: Summary) -> Value:
    return ratio(t_comm_hyb, t_comm_mpi)


def role(run: dict[str, Any], cores_per_node: int) -> str | None:
    rpn, threads = run["ranks_per_node"], run["threads"]
    if threads == 1 and rpn == cores_per_node and rpn > 1:
        return "mpi"
    if rpn == 1 and threads == cores_per_node and threads > 1:
        return "hyb"
    if rpn == 1 and threads == 1:
        return "ser"
    return None


def group_seconds(profile: dict[str, Any], group: str) -> float:
    names = profile.get("region_groups", {}).get(group)
    if names is None:
        raise MissingRuns(f"{profile['kernel']} profiles declare no region_groups.{group}: cannot split "
                          "computation from communication")
    return sum(profile["regions"][n]["time"]["avg"] for n in names if n in profile["regions"])


def mean_message_bytes(profile: dict[str, Any]) -> float | None:
    p2p = profile["comm"]["p2p"]
    return p2p["bytes"] / p2p["messages"] if p2p["messages"] else None


@dataclass
class RoleTimes:
    comp: Summary
    comm: Summary
    runs: list[dict[str, Any]] = field(repr=False)
    message_bytes: float | None = None
    messages: float = 0.0  # point-to-point messages per run

    def describe(self) -> str:
        r = self.runs[0]
        return f"{r['nodes']}n x {r['ranks_per_node']}r x {r['threads']}t (n={len(self.runs)})"


@dataclass
class EfficiencyRow:
    problem: dict[str, Any]
    size: float | None  # the problem size the kernel states (analysis.scaling), if it does
    nodes: int
    nt: int
    e_mt: Value | None
    e_cache: Value | None
    e_ni: Value | None
    e_mp: Value | None
    comm_to_comp: dict[str, float]  # per role
    paired: dict[str, str]  # parameter -> which runs
    missing: dict[str, str]  # parameter -> why it is absent
    message_bytes: dict[str, float | None]


def _problem_key(run: dict[str, Any], ignored: set[str]) -> str:
    return json.dumps([{k: v for k, v in run["params"].items() if k not in ignored}, problem_size(run["profile"])],
                      sort_keys=True)


def role_times(runs: list[dict[str, Any]], cores_per_node: int,
               ignored: set[str] = frozenset()) -> dict[tuple[str, int, str], RoleTimes]:
    """(problem, nodes, role) -> times over the repeats of the successful runs."""
    ignored = set(ignored) | set(IGNORED_PARAMS)
    grouped: dict[tuple[str, int, str], list[dict[str, Any]]] = {}
    for r in runs:
        who = role(r, cores_per_node)
        if who and r["status"] == "ok" and r["profile"]:
            grouped.setdefault((_problem_key(r, ignored), r["nodes"], who), []).append(r)
    out = {}
    for key, rs in grouped.items():
        sizes = [m for m in (mean_message_bytes(r["profile"]) for r in rs) if m is not None]
        out[key] = RoleTimes(summarize([group_seconds(r["profile"], "computation") for r in rs]),
                             summarize([group_seconds(r["profile"], "communication") for r in rs]), rs,
                             sum(sizes) / len(sizes) if sizes else None,
                             sum(r["profile"]["comm"]["p2p"]["messages"] for r in rs) / len(rs))
    return out


def _try(name: str, needs: list[tuple[str, RoleTimes | None]], compute, paired: dict, missing: dict):
    absent = [what for what, t in needs if t is None]
    if absent:
        missing[name] = "needs " + " and ".join(absent)
        return None
    try:
        value = compute()
    except MissingRuns as err:
        missing[name] = str(err)
        return None
    paired[name] = "; ".join(f"{what}: {t.describe()}" for what, t in needs)
    return value


def _communicating(times: RoleTimes, nodes: int) -> Summary:
    """The communication time of a role that really sends messages (one that sends none has only timer noise
    for 'communication', and the paper leaves those ratios out)."""
    if times.messages == 0:
        raise MissingRuns(f"the hyb run sends no messages on {nodes} nodes: its communication time is timer noise")
    return times.comm


def efficiency_rows(runs: list[dict[str, Any]], cores_per_node: int, ignored: set[str] = frozenset()) -> list[EfficiencyRow]:
    """One row per (problem, node count) that has at least one role measured; `ignored` parameters
    (those a spec sets per configuration) do not distinguish problems."""
    if any("comm" not in r["profile"] for r in runs if r.get("profile")):
        raise MissingRuns("some runs carry no MPI counts (an app run with profile_mpi: false): the parameters need "
                          "the point-to-point messages")
    times = role_times(runs, cores_per_node, ignored)
    nt = cores_per_node
    rows = []
    smallest: dict[str, int] = {}  # the fewest nodes, two or more, of each problem: where e_ni is measured
    order: dict[str, int] = {}
    one_node = "this study ran on one" if all(nodes < 2 for _, nodes, _ in times) else "these runs are on one"
    for problem, nodes, _ in times:
        if nodes >= 2:
            smallest[problem] = min(nodes, smallest.get(problem, nodes))
        order.setdefault(problem, len(order))
    for problem, nodes in sorted(dict.fromkeys((k[0], k[1]) for k in times), key=lambda k: (order[k[0]], k[1])):
        t = {who: times.get((problem, nodes, who)) for who in ROLES}
        paired: dict[str, str] = {}
        missing: dict[str, str] = {}
        label = f"{nodes} node(s)"
        mt = _try("e_mt", [(f"a ser run ({label}, 1 rank x 1 thread per node)", t["ser"]),
                           (f"a hyb run ({label}, 1 rank x {nt} threads)", t["hyb"])],
                  lambda: e_mt(t["ser"].comp, t["hyb"].comp, nt), paired, missing)
        cache = _try("e_cache", [(f"an mpi run ({label}, {nt} ranks x 1 thread per node)", t["mpi"]),
                                 (f"a hyb run ({label}, 1 rank x {nt} threads)", t["hyb"])],
                     lambda: e_cache(t["mpi"].comp, t["hyb"].comp), paired, missing)
        ni = mp = None
        if nodes < 2:
            missing["e_ni"] = missing["e_mp"] = f"{NEEDS_NODES}; {one_node} node"
        else:
            if nodes == smallest[problem]:
                ni = _try("e_ni", [(f"an mpi run ({label})", t["mpi"]), (f"a hyb run ({label})", t["hyb"])],
                          lambda: e_ni(t["mpi"].comm, _communicating(t["hyb"], nodes)), paired, missing)
            # e_mp(p/nt) = t_comm_hyb(p/nt) / t_comm_mpi(p): on the same nodes, the hybrid run has p/nt processes
            mp = _try("e_mp", [(f"a hyb run ({label})", t["hyb"]), (f"an mpi run ({label})", t["mpi"])],
                      lambda: e_mp(_communicating(t["hyb"], nodes), t["mpi"].comm), paired, missing)
        ratios = {who: rt.comm.mean / rt.comp.mean for who, rt in t.items() if rt and rt.comp.mean}
        params, size = json.loads(problem)
        rows.append(EfficiencyRow(params, size, nodes, nt, mt, cache, ni, mp, ratios, paired, missing,
                        {who: rt.message_bytes for who, rt in t.items() if rt}))
    return rows


def reading(rows: list[EfficiencyRow]) -> str:
    """One paragraph on what limits the hybrid version, from the parameters measured."""
    def mean(name: str) -> float | None:
        values = [getattr(r, name).value for r in rows if getattr(r, name)]
        return sum(values) / len(values) if values else None

    parts = []
    mt, cache, ni, mp = mean("e_mt"), mean("e_cache"), mean("e_ni"), mean("e_mp")
    if mt is not None:
        parts.append(f"Multithreading efficiency averages {mt:.2f}: " + (
            f"threading loses {100 * (1 - mt):.0f}% of the ideal speedup (memory bandwidth, serial sections or "
            "OpenMP overheads; if it is flat across sizes the loss is proportional to work, the paper's sign of a "
            "memory-bandwidth limit)" if mt < 0.97 else "threads deliver their full share of the node"))
    if cache is not None:
        parts.append(f"relative cache efficiency averages {cache:.2f} (" + (
            "the hybrid's per-node partition uses the caches worse than per-core partitions" if cache < 0.95 else
            "cache use is about the same" if cache < 1.05 else "the hybrid uses the caches better") + ")")
    if ni is not None:
        parts.append(f"NI efficiency averages {ni:.2f}: the hybrid's fewer, larger messages are "
                     + ("faster" if ni > 1 else "slower") + " than pure MPI's on the same nodes")
    if mp is not None:
        parts.append(f"e_mp averages {mp:.2f} (below 1 means hybrid communication is faster)")
    text = "; ".join(parts) + "." if parts else \
        "No parameter could be computed: the study lacks the mpi / hyb / ser runs it needs."
    return f"{text} {NEEDS_NODES}; this study ran on one." if rows and all(r.nodes < 2 for r in rows) else text
