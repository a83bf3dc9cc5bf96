"""Side-by-side comparison of one kernel run in several ranks x threads splits: the README's main job.

`parse_split` and `comparison_rows` are pure; the CLI runs the configurations and prints the rows.
Communication time is the sum of the regions a kernel declares as communication in its profile
(`region_groups`), so the comparison knows nothing kernel-specific.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from hybridperf.profile import failed_checks, figure
from hybridperf.shapes import NAMED_CONFIGURATIONS, NotApplicable, shape


@dataclass(frozen=True)
class RanksThreads:
    ranks: int
    threads: int

    def __str__(self) -> str:
        return f"{self.ranks}x{self.threads}"


def parse_split(text: str) -> RanksThreads:
    """'2x1' -> 2 ranks x 1 thread."""
    match = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not match or int(match[1]) < 1 or int(match[2]) < 1:
        raise ValueError(f"'{text}' is not RANKSxTHREADS with both at least 1 (e.g. 2x1)")
    return RanksThreads(int(match[1]), int(match[2]))


def default_splits(cores: int) -> list[RanksThreads]:
    """1x1, then the thesis's three configurations on one node (pure MPI, hybrid-1, hybrid-2), shaped as
    everywhere else (`shapes.shape`); a configuration that does not exist or repeats another is left out."""
    splits = [RanksThreads(1, 1)]
    for name in NAMED_CONFIGURATIONS:
        try:
            _, ranks, threads = shape(name, cores, cores=cores)
        except NotApplicable:
            continue
        splits.append(RanksThreads(ranks, threads))
    return list(dict.fromkeys(splits))


def communication_seconds(profile: dict[str, Any]) -> float:
    names = profile.get("region_groups", {}).get("communication", [])
    return sum(profile["regions"][n]["time"]["max"] for n in names if n in profile["regions"])


def comparison_rows(runs: list[tuple[RanksThreads, dict[str, Any]]]) -> list[dict[str, Any]]:
    """One row per run: loop time, speedup over the 1x1 run (if any), communication share, bytes."""
    base = next((p for s, p in runs if s == RanksThreads(1, 1)), None)
    base_time = figure(base, "loop_time") if base else None
    rows = []
    for split, p in runs:
        loop = figure(p, "loop_time") or 0.0
        comm = communication_seconds(p)
        p2p = p["comm"]["p2p"]
        rows.append(
            {
                "split": str(split),
                "loop_time": loop,
                "per_unit": next((f["value"] for f in p["figures_of_merit"] if f["better"] == "lower"), None),
                "per_unit_name": next((f["name"] for f in p["figures_of_merit"] if f["better"] == "lower"), ""),
                "speedup": base_time / loop if base_time and loop else None,
                "comm_time": comm,
                "comm_share": comm / loop if loop else 0.0,
                "p2p_bytes_per_rank": p2p["bytes_per_rank"]["avg"],
                "p2p_bytes_total": p2p["bytes"],
                "p2p_messages": p2p["messages"],
                "failed_checks": failed_checks(p),
            }
        )
    return rows
