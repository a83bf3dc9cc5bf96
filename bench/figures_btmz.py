"""The figures docs/bt-mz.md quotes from NAS BT-MZ's studies: on this 2-core machine (2026-11-26), studies/bt-mz.yaml
at class S and the same spec at class W (study bt-mz-w), each raced to its end, their stores kept in
bench/runs/bt-mz/; on the lent 16-core node (the same day), every split at 8 cores (class W) and at 16 (W and A),
raced within a budget, the stores kept in bench/runs/device/bt-mz-16core-results.tgz. All read by `hybridperf
report --json` as the 16-core machine's other studies are (figures_device). NPB-MZ is not needed to read them; a
second or two each."""

from __future__ import annotations

import statistics
from collections import defaultdict

import common
from figures_device import DEVICE, exported, lead, percent, report, scale

KEPT = common.REPO / "bench" / "runs" / "bt-mz"
STUDIES = {"S": (str(KEPT / "bt-mz-S-2core-results.tgz"), "r/bt-mz"),
           "W": (str(KEPT / "bt-mz-W-2core-results.tgz"), "r/bt-mz-w")}


NODE = "bt-mz-16core-results.tgz"
NODE_RACES = {"w8": ("r8", "W", 8), "w16": ("r16", "W", 16), "a16": ("r16", "A", 16)}  # store, class, cores
OMPT = ("bt-mz-16core-ompt-results.tgz", "r16-ompt")  # class W at 16 cores on LLVM's libomp (openmp_runtime)
RUNTIMES = DEVICE / "bt-mz-runtimes-16core.txt"  # lines: shape, runtime, round, BT-MZ's seconds


def race(npb_class: str) -> dict:
    """The 2-core race (2 tasks x 1 thread against 1 task x 2 threads) of the class's study."""
    return scale(*STUDIES[npb_class], {"class": npb_class}, 2)


def node_race(key: str) -> dict:
    results, npb_class, cores = NODE_RACES[key]
    return scale(NODE, results, {"class": npb_class}, cores)


def said(found: dict) -> str:
    """'undecided after 30 blocks, pure-mpi ahead of hybrid-1 by 6% [0%, 12%]'."""
    ahead = found["winner"] or found["leader"]
    return f"{found['outcome']} after {found['blocks']} blocks, {ahead} ahead of {found['lead']['candidate']} by " \
           f"{lead(found)}"


def noise(found: dict) -> str:
    """The race's noise: the robust spread of its paired log ratios."""
    return f"±{percent(1 + found['noise']['pair_spread'])}"


def medians(rows: list[dict]) -> str:
    """Each split's median time (BT-MZ's own `Time in seconds`) over its counted runs, by cores, then tasks."""
    times: dict[tuple[int, int, int], list[float]] = defaultdict(list)
    for r in rows:
        times[int(r["cores"]), -int(r["ranks"]), int(r["threads"])].append(float(r["loop_time"]))
    return ", ".join(f"{-ranks} × {threads}: {statistics.median(found):.2f} s"
                     for (_, ranks, threads), found in sorted(times.items()))


def node_medians(key: str) -> str:
    results, npb_class, cores = NODE_RACES[key]
    return medians([r for r in exported(NODE, results) if r["param.class"] == npb_class and int(r["cores"]) == cores])


def node_losers(key: str) -> str:
    """The candidates that lost their race before it stopped, with the block they last ran in."""
    lost = [s for s in node_race(key)["standings"] if s["state"] == "loses"]
    return ", ".join(f"{s['candidate']} (after {s['runs']} blocks)" for s in lost) or "none"


def node_mpi_balance(key: str) -> str:
    """Each split's MPI load balance (median), the factor BT-MZ's uneven zones set."""
    results, npb_class, cores = NODE_RACES[key]
    section = next(s for s in report(NODE, results)["sections"] if s["params"]["class"] == npb_class)
    return ", ".join(f"{p['configuration']} {p['factors']['mpi_load_balance']['median']:.2f}"
                     for p in section["pop"] if p["cores"] == cores)


def ompt_factor(name: str) -> str:
    """One POP factor's median per split of the libomp campaign, where known."""
    section = report(*OMPT)["sections"][0]
    return ", ".join(f"{p['configuration']} {p['factors'][name]['median']:.2f}" for p in section["pop"]
                     if p["factors"].get(name))


def runtimes() -> str:
    """Per shape, BT-MZ's median time under each runtime (3 rounds, launched by hand on the node)."""
    times: dict[tuple[str, str], list[float]] = defaultdict(list)
    for line in RUNTIMES.read_text().splitlines():
        shape, runtime, _, seconds = line.split()
        times[shape, runtime].append(float(seconds))
    shapes = list(dict.fromkeys(shape for shape, _ in times))
    return "; ".join(f"{shape.replace('x', ' × ')}: " + ", ".join(
        f"{runtime} {statistics.median(found):.2f} s" for (s, runtime), found in times.items() if s == shape)
        for shape in shapes)


def messages(npb_class: str) -> str:
    """What the counting library saw of the 2-task runs' point-to-point traffic, the same in every run."""
    [(messages, calls, size)] = {(r["comm.p2p.messages"], r["comm.p2p.calls"], r["comm.p2p.bytes"])
                                 for r in exported(*STUDIES[npb_class]) if r["ranks"] == "2"}
    return f"{int(messages):,} messages in {int(calls):,} calls, {int(size):,} bytes"


NODE_FIGURES = {"verdict": lambda k: said(node_race(k)), "noise": lambda k: noise(node_race(k)),
                "blocks_needed": lambda k: str(node_race(k)["blocks_needed"]), "medians": node_medians,
                "losers": node_losers, "mpi_balance": node_mpi_balance}  # the 16-core races' figures, by race key
FIGURES = {
    "btmz.s_verdict": lambda: said(race("S")),
    "btmz.s_noise": lambda: noise(race("S")),
    "btmz.w_verdict": lambda: said(race("W")),
    "btmz.w_noise": lambda: noise(race("W")),
    "btmz.w_blocks_needed": lambda: str(race("W")["blocks_needed"]),
    "btmz.s_medians": lambda: medians(exported(*STUDIES["S"])),
    "btmz.w_medians": lambda: medians(exported(*STUDIES["W"])),
    "btmz.s_messages": lambda: messages("S"),
    "btmz.ompt_medians": lambda: medians(exported(*OMPT)),
    "btmz.ompt_scheduling": lambda: ompt_factor("openmp_scheduling_efficiency"),
    "btmz.ompt_load_balance": lambda: ompt_factor("openmp_load_balance"),
    "btmz.runtimes": runtimes,
    **{f"btmz.node_{key}_{what}": (lambda key=key, make=NODE_FIGURES[what]: make(key))
       for key in NODE_RACES for what in NODE_FIGURES if key == "w8" or what not in ("blocks_needed", "losers")},
}
