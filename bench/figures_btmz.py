"""The figures docs/bt-mz.md quotes from NAS BT-MZ's studies on this 2-core machine (2026-11-26): studies/bt-mz.yaml
at class S, and the same spec at class W (study bt-mz-w), each raced to its end, their stores kept in
bench/runs/bt-mz/ and read by `hybridperf report --json` as the 16-core machine's are (figures_device). NPB-MZ is
not needed to read them; a second or two each."""

from __future__ import annotations

import statistics
from collections import defaultdict

import common
from figures_device import exported, lead, percent, scale

KEPT = common.REPO / "bench" / "runs" / "bt-mz"
STUDIES = {"S": (str(KEPT / "bt-mz-S-2core-results.tgz"), "r/bt-mz"),
           "W": (str(KEPT / "bt-mz-W-2core-results.tgz"), "r/bt-mz-w")}


def race(npb_class: str) -> dict:
    """The 2-core race (2 tasks x 1 thread against 1 task x 2 threads) of the class's study."""
    return scale(*STUDIES[npb_class], {"class": npb_class}, 2)


def verdict(npb_class: str) -> str:
    """'undecided after 30 blocks, pure-mpi ahead by 6% [0%, 12%]'."""
    found = race(npb_class)
    ahead = found["winner"] or found["leader"]
    return f"{found['outcome']} after {found['blocks']} blocks, {ahead} ahead by {lead(found)}"


def noise(npb_class: str) -> str:
    """The race's noise: the robust spread of its paired log ratios."""
    return f"±{percent(1 + race(npb_class)['noise']['pair_spread'])}"


def medians(npb_class: str) -> str:
    """Each split's median time (BT-MZ's own `Time in seconds`) over its counted runs, by cores, then tasks."""
    times: dict[tuple[int, int, int], list[float]] = defaultdict(list)
    for r in exported(*STUDIES[npb_class]):
        times[int(r["cores"]), -int(r["ranks"]), int(r["threads"])].append(float(r["loop_time"]))
    return ", ".join(f"{-ranks} × {threads}: {statistics.median(found):.2f} s"
                     for (_, ranks, threads), found in sorted(times.items()))


def messages(npb_class: str) -> str:
    """What the counting library saw of the 2-task runs' point-to-point traffic, the same in every run."""
    [(messages, calls, size)] = {(r["comm.p2p.messages"], r["comm.p2p.calls"], r["comm.p2p.bytes"])
                                 for r in exported(*STUDIES[npb_class]) if r["ranks"] == "2"}
    return f"{int(messages):,} messages in {int(calls):,} calls, {int(size):,} bytes"


FIGURES = {
    "btmz.s_verdict": lambda: verdict("S"),
    "btmz.s_noise": lambda: noise("S"),
    "btmz.w_verdict": lambda: verdict("W"),
    "btmz.w_noise": lambda: noise("W"),
    "btmz.w_blocks_needed": lambda: str(race("W")["blocks_needed"]),
    "btmz.s_medians": lambda: medians("S"),
    "btmz.w_medians": lambda: medians("W"),
    "btmz.s_messages": lambda: messages("S"),
}
