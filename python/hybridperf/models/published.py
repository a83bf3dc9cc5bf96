"""The seeds' published measurements that the models use, read from the shipped data/ (hybridperf.resources; each
file names its source).

- The MD code's shared-memory overheads in `force` on Merlin (thesis Tables 4.6/4.7): the multithreading
  efficiency e_mt(T) = 1 - (hybrid - pure MPI) / hybrid for T = 4 (hybrid-2) and T = 8 (hybrid-1);
- its time per routine on Merlin (Table 4.8): the computation per atom-step of a core.
(EPCC's PARALLEL FOR overhead on Merlin, Table 3.1, is in the cluster's description, merlin.yaml.)
"""

from __future__ import annotations

import csv
import statistics
from pathlib import Path

from hybridperf import resources

DATA = resources.path("data")
COMPUTATION = ("Forces", "MoveA", "MoveB", "Hloop")  # Table 4.8's routines that compute (Movout and Sum talk)


def rows(path: Path) -> list[dict[str, str]]:
    with path.open() as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def force_efficiencies(path: Path = DATA / "thesis-table4.6-4.7-force-overheads.csv",
                       cluster: str = "Merlin") -> dict[int, list[float]]:
    """threads -> e_mt of every published core count and size on `cluster`: 1 - the overhead's percentage of the
    hybrid routine's time."""
    out: dict[int, list[float]] = {}
    for r in rows(path):
        if r["cluster"] == cluster:
            out.setdefault(int(r["threads"]), []).append(1 - float(r["percent"]) / 100)
    return out


def _median_efficiency(published: dict[int, list[float]], what: str, points_are: str) \
        -> tuple[tuple[tuple[int, float], ...], str]:
    """The median e_mt per thread count, and a source line with the published range."""
    points = tuple((t, statistics.median(v)) for t, v in sorted(published.items()))
    spread = "; ".join(f"{t} threads {min(v):.3f}–{max(v):.3f}" for t, v in sorted(published.items()))
    return points, f"{what}: median of {len(published[8])} published {points_are} per thread count (range {spread})"


def merlin_thread_efficiency() -> tuple[tuple[tuple[int, float], ...], str]:
    """The md code's force loop on Merlin (thesis Tables 4.6/4.7): its median e_mt per thread count."""
    return _median_efficiency(force_efficiencies(), "thesis Tables 4.6/4.7 (MD force on Merlin)",
                              "core counts and sizes")


def dlpoly_thread_efficiency(cluster: str = "Merlin") -> tuple[tuple[tuple[int, float], ...], str]:
    """DL_POLY's two_body_forces loop, test 30, on `cluster` (the DL_POLY paper's Tables 5.3/5.4): its median e_mt
    per thread count, each percentage read as Tables 4.6/4.7's are, a share of the hybrid loop's time (the seeds
    say "of total runtime", but the seconds over the percentages, 239 s for hybrid-1 at 8 Merlin cores and 4.6 s at
    512, are no run's total in the paper's Table 1)."""
    return _median_efficiency(force_efficiencies(DATA / "dlpoly-table5.3-5.4-loop-overheads.csv", cluster),
                              f"DL_POLY paper Tables 5.3/5.4 (test 30's force loop on {cluster})", "core counts")


def merlin_md_seconds_per_atom_step(path: Path = DATA / "thesis-table4.8-merlin-routines.csv",
                                    cores: int = 128) -> float:
    """A Merlin core's computation per atom and step in the thesis's MD code: the pure-MPI times of the
    computing routines at `cores`, times the cores, over atoms x steps."""
    mine = [r for r in rows(path) if r["configuration"] == "pure-mpi" and int(r["cores"]) == cores
            and r["routine"] in COMPUTATION]
    atoms, steps = int(mine[0]["atoms"]), int(mine[0]["steps"])
    return sum(float(r["seconds"]) for r in mine) * cores / (atoms * steps)
