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


def force_efficiencies(path: Path = DATA / "thesis-table4.6-4.7-force-overheads.csv") -> dict[int, list[float]]:
    """threads -> e_mt of every published core count and size."""
    out: dict[int, list[float]] = {}
    for r in rows(path):
        out.setdefault(int(r["threads"]), []).append(1 - float(r["percent"]) / 100)
    return out


def merlin_thread_efficiency() -> tuple[tuple[tuple[int, float], ...], str]:
    """The median e_mt per thread count, and a source line with the published range."""
    published = force_efficiencies()
    points = tuple((t, statistics.median(v)) for t, v in sorted(published.items()))
    spread = "; ".join(f"{t} threads {min(v):.3f}–{max(v):.3f}" for t, v in sorted(published.items()))
    return points, (f"thesis Tables 4.6/4.7 (MD force on Merlin): median of {len(published[8])} published core "
                    f"counts and sizes per thread count (range {spread})")


def merlin_md_seconds_per_atom_step(path: Path = DATA / "thesis-table4.8-merlin-routines.csv",
                                    cores: int = 128) -> float:
    """A Merlin core's computation per atom and step in the thesis's MD code: the pure-MPI times of the
    computing routines at `cores`, times the cores, over atoms x steps."""
    mine = [r for r in rows(path) if r["configuration"] == "pure-mpi" and int(r["cores"]) == cores
            and r["routine"] in COMPUTATION]
    atoms, steps = int(mine[0]["atoms"]), int(mine[0]["steps"])
    return sum(float(r["seconds"]) for r in mine) * cores / (atoms * steps)
