"""The thesis's overall runtime model (eq. 6.10) evaluated on the published DL_POLY timings.

Two evaluations, each per cluster and test (data/dlpoly-table1.csv):
- the thesis's way: phi and alpha fitted on every pure-MPI total (8 ... 512 cores), then mu on every
  hybrid total (H1 and H2) with phi and alpha fixed — the data the thesis used (§6.4, Tables 6.11-6.14);
- held-out extrapolation: the same two-stage fit on all but the two largest core counts of each
  configuration, then those two predicted for every configuration.
Reported: each fit's parameters with standard errors, per point the prediction, its band from the
parameters at +/- SE, the percentage error and whether the measurement lies in the band, the median
error on hybrid totals (against the thesis's own, data/thesis-table6.13-6.14-errors.csv), and the
predicted versus published crossover: the smallest core count from which the better hybrid beats pure
MPI. The problem size in the model is the atom count; phi and mu absorb the time steps.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from hybridperf.models import thesis
from hybridperf.models.published import DATA, rows
from hybridperf.models.fitting import band, Fit, fit, percent_error

CONFIGURATIONS = ("pure-mpi", "hybrid-1", "hybrid-2")
CORES_PER_NODE = 8  # Merlin and Stella


@dataclass(frozen=True)
class DlpolyPoint:
    cluster: str
    test: int
    atoms: int
    configuration: str
    cores: int
    seconds: float


def load(path: Path = DATA / "dlpoly-table1.csv") -> list[DlpolyPoint]:
    return [DlpolyPoint(r["cluster"], int(r["test"]), int(r["atoms"]), r["configuration"], int(r["cores"]),
                  float(r["seconds"])) for r in rows(path)]


def thesis_errors(path: Path = DATA / "thesis-table6.13-6.14-errors.csv") -> dict[tuple, float]:
    return {(r["cluster"], int(r["test"]), r["configuration"], int(r["cores"])): float(r["percent_error"])
            for r in rows(path)}


def runtime(phi, mu, alpha, work, n_mpi, n_omp, n_ppn):
    """Eq. 6.10, with the mu term only where there are threads (pure MPI has none, §6.4)."""
    return thesis.overall(phi, np.where(n_omp > 1, mu, 0.0), alpha, work, n_mpi, n_omp, n_ppn)


def _x(points: list[DlpolyPoint]) -> dict[str, np.ndarray]:
    lays = [thesis.layout(p.configuration, p.cores, CORES_PER_NODE) for p in points]
    return {"work": np.array([p.atoms for p in points], float), "n_mpi": np.array([l.n_mpi for l in lays], float),
            "n_omp": np.array([l.n_omp for l in lays], float), "n_ppn": np.array([l.n_ppn for l in lays], float)}


@dataclass
class DlpolyRow:
    point: DlpolyPoint
    predicted: float
    low: float
    high: float
    error: float  # percent
    inside: bool
    trained: bool


@dataclass
class Evaluation:
    cluster: str
    test: int
    kind: str  # "thesis" or "held-out"
    stage1: Fit
    stage2: Fit
    rows: list[DlpolyRow] = field(default_factory=list)

    def crossover(self, predicted: bool) -> int | None:
        """Smallest core count from which the better hybrid is faster than pure MPI (and stays so)."""
        by_cores: dict[int, dict[str, float]] = {}
        for r in self.rows:
            by_cores.setdefault(r.point.cores, {})[r.point.configuration] = r.predicted if predicted else r.point.seconds
        counts = sorted(c for c, v in by_cores.items() if set(CONFIGURATIONS) <= set(v))
        wins = [min(by_cores[c]["hybrid-1"], by_cores[c]["hybrid-2"]) < by_cores[c]["pure-mpi"] for c in counts]
        for i, c in enumerate(counts):
            if all(wins[i:]):
                return c
        return None

    def median_hybrid_error(self, held_out_only: bool = False) -> float:
        errors = [r.error for r in self.rows if r.point.configuration != "pure-mpi" and (not held_out_only or not r.trained)]
        return statistics.median(errors) if errors else float("nan")


def evaluate(points: list[DlpolyPoint], cluster: str, test: int, held_out: bool, relative: bool = True) -> Evaluation:
    mine = sorted((p for p in points if p.cluster == cluster and p.test == test and p.configuration in CONFIGURATIONS),
                  key=lambda p: (p.configuration, p.cores))
    largest = {c: sorted(p.cores for p in mine if p.configuration == c)[-2:] for c in CONFIGURATIONS}
    trained = [p for p in mine if not (held_out and p.cores in largest[p.configuration])]
    pure = [p for p in trained if p.configuration == "pure-mpi"]
    hybrid = [p for p in trained if p.configuration != "pure-mpi"]
    first = min(pure, key=lambda p: p.cores)
    phi0 = first.seconds * first.cores / first.atoms
    stage1 = fit(runtime, _x(pure), [p.seconds for p in pure], ("phi", "alpha"), (phi0, 1e-6),
                 relative=relative, fixed={"mu": 0.0})
    stage2 = fit(runtime, _x(hybrid), [p.seconds for p in hybrid], ("mu",), (0.1 * phi0,), relative=relative,
                 fixed={"phi": stage1.value("phi"), "alpha": stage1.value("alpha")})
    centre, low, high = band(runtime, [stage1, stage2], _x(mine))
    actual = np.array([p.seconds for p in mine])
    errors = percent_error(centre, actual)
    out = Evaluation(cluster, test, "held-out" if held_out else "thesis", stage1, stage2)
    for p, c, lo, hi, e in zip(mine, centre, low, high, errors):
        out.rows.append(DlpolyRow(p, float(c), float(lo), float(hi), float(e), bool(lo <= p.seconds <= hi), p in trained))
    return out


def cases(points: list[DlpolyPoint]) -> list[tuple[str, int]]:
    return sorted({(p.cluster, p.test) for p in points})


def steps_apart(a: int | None, b: int | None) -> int | None:
    """How many doublings separate two core counts (None when either is missing)."""
    if a is None or b is None:
        return None
    return abs(int(round(np.log2(a) - np.log2(b))))


@dataclass(frozen=True)
class WhatIf:
    cores: int
    now: dict[str, float]  # configuration -> predicted seconds on the machine measured
    future: dict[str, float]  # ... on the hypothetical one


def future_what_if(points: list[DlpolyPoint], cluster: str = "Merlin", test: int = 20,
                   counts: tuple[int, ...] = (16, 32, 64, 128, 256, 512, 1024)) -> list[WhatIf]:
    """The thesis's what-if (§6.6, seed-spec §D.11): eq. 6.10 fitted on the published timings (in-sample, as the
    thesis did), then predicted for a machine with 16 cores per node, the communication parameter alpha halved,
    the shared-memory parameters (phi, mu) unchanged and the problem doubled; pure MPI and hybrid-1 only."""
    ev = evaluate(points, cluster, test, held_out=False)
    phi, alpha, mu = ev.stage1.value("phi"), ev.stage1.value("alpha"), ev.stage2.value("mu")
    atoms = next(p.atoms for p in points if (p.cluster, p.test) == (cluster, test))
    out = []
    for cores in counts:
        times = []
        for cores_per_node, a, work in ((CORES_PER_NODE, alpha, atoms), (16, alpha / 2, 2 * atoms)):
            here = {}
            for name in ("pure-mpi", "hybrid-1"):
                lay = thesis.layout(name, cores, cores_per_node)
                here[name] = float(runtime(phi, mu, a, work, np.array(lay.n_mpi), np.array(lay.n_omp), lay.n_ppn))
            times.append(here)
        out.append(WhatIf(cores, *times))
    return out
