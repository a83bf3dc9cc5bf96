"""The thesis's models fitted on a stored study and evaluated on it, as chapter 6 does.

Per parameter set, each configuration's points carry the thesis's layout (N_mpi = ranks, N_ppn = ranks
per node, N_omp = threads) and the minimum of their repeats (the thesis fits minimum times). Models:
- overall runtime (eq. 6.10) on the loop time: phi and alpha on pure-MPI points, then mu on the others;
- total communication (eq. 6.6), point-to-point (6.3) and collective (6.4) on the matching communication
  times: alpha and beta on pure-MPI points only, evaluated on the hybrid ones (the thesis's predictive use).
The problem size P (and the work) is the kernel's own: md atoms, spmv rows, else 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from hybridperf.analysis.sections import comm_seconds, Section
from hybridperf.models import thesis
from hybridperf.models.fitting import band, Fit, fit, percent_error


def problem_size(profile: dict) -> float:
    data = profile.get(profile["kernel"], {})
    return float(data.get("atoms") or data.get("rows") or 1)


def _comm_class(name: str) -> Callable[[dict], float]:
    return lambda p: p["comm"][name]["time"]["avg"]


METRICS: dict[str, Callable[[dict], float]] = {
    "total": lambda p: next(f["value"] for f in p["figures_of_merit"] if f["name"] == "loop_time"),
    "communication": comm_seconds,
    "p2p": _comm_class("p2p"),
    "collective": _comm_class("collective"),
}


def _overall(phi, mu, alpha, work, n_mpi, n_omp, n_ppn, K):
    return thesis.overall(phi, np.where(n_omp > 1, mu, 0.0), alpha, work, n_mpi, n_omp, n_ppn)


def _comm(alpha, beta, work, n_mpi, n_omp, n_ppn, K):
    return thesis.total_comm(alpha, beta, work, K, n_mpi, n_ppn)


def _p2p(alpha, beta, work, n_mpi, n_omp, n_ppn, K):
    return thesis.p2p(alpha, beta, work, K, n_mpi, n_ppn)


def _coll(alpha, beta, work, n_mpi, n_omp, n_ppn, K):
    return thesis.collective(alpha, beta, work, n_mpi, n_ppn)


MODELS = {  # name: (function, metric, stage-1 parameters, stage-2 parameters)
    "overall (6.10)": (_overall, "total", ("phi", "alpha"), ("mu",)),
    "total communication (6.6)": (_comm, "communication", ("alpha", "beta"), ()),
    "point-to-point (6.3)": (_p2p, "p2p", ("alpha", "beta"), ()),
    "collective (6.4)": (_coll, "collective", ("alpha", "beta"), ()),
}


@dataclass
class Row:
    configuration: str
    scale: int
    measured: float
    predicted: float
    low: float
    high: float
    error: float
    inside: bool
    fitted: bool


@dataclass
class ModelEvaluation:
    model: str
    fits: list[Fit]
    rows: list[Row]
    note: str = ""


def _points(section: Section, metric: str, cores_per_node: int):
    out = []
    for p in section.points:
        if not p.runs:
            continue
        values = [METRICS[metric](r["profile"]) for r in p.runs]
        k = thesis.k_share(p.ranks_per_node, cores_per_node)
        out.append((p, min(values), problem_size(p.runs[0]["profile"]), k))
    return out


def evaluate(section: Section, cores_per_node: int, model: str) -> ModelEvaluation:
    function, metric, first, second = MODELS[model]
    pts = _points(section, metric, cores_per_node)
    # a communication model is 0 for one process (thesis rule), so such points cannot inform its fit
    pure = [x for x in pts if x[0].threads == 1 and x[1] > 0 and (second or x[0].nodes * x[0].ranks_per_node > 1)]
    others = [x for x in pts if x[0].threads > 1]

    def xs(items):
        return {"work": np.array([i[2] for i in items]), "n_mpi": np.array([float(i[0].nodes * i[0].ranks_per_node) for i in items]),
                "n_omp": np.array([float(i[0].threads) for i in items]),
                "n_ppn": np.array([float(i[0].ranks_per_node) for i in items]), "K": np.array([i[3] for i in items])}

    if len(pure) < len(first):
        return ModelEvaluation(model, [], [], f"needs {len(first)} pure-MPI points with a non-zero time, has {len(pure)}")
    start = {"phi": pure[0][1] * pure[0][0].cores / pure[0][2], "alpha": 1e-6, "beta": 1e-9, "mu": 1e-9}
    fixed = {"mu": 0.0} if "mu" in second else {}
    try:
        stage1 = fit(function, xs(pure), [x[1] for x in pure], first, tuple(start[n] for n in first), fixed=fixed)
        fits = [stage1]
        if second and others:
            fixed = {n: stage1.value(n) for n in first}
            fits.append(fit(function, xs(others), [x[1] for x in others], second, tuple(start[n] for n in second),
                            fixed=fixed))
        elif second:
            fits.append(Fit(second, (0.0,), (0.0,)))
    except (RuntimeError, ValueError) as err:
        return ModelEvaluation(model, [], [], f"the fit failed: {err}")
    centre, low, high = band(function, fits, xs(pts))
    rows = [Row(x[0].configuration, x[0].scale, x[1], float(c), float(lo), float(hi),
                float(percent_error(c, x[1])) if x[1] else float("nan"), bool(lo <= x[1] <= hi),
                x in pure or (bool(second) and x in others))
            for x, c, lo, hi in zip(pts, centre, low, high)]
    return ModelEvaluation(model, fits, rows)


@dataclass
class Outlook:
    cores: int
    predicted: dict[str, float]  # configuration -> seconds
    measured: dict[str, float]  # configuration -> minimum measured seconds, where run

    @property
    def winner(self) -> str:
        return _best(self.predicted)

    @property
    def measured_winner(self) -> str | None:
        return _best(self.measured) if len(self.measured) > 1 else None


def _best(times: dict[str, float]) -> str:
    """The fastest configuration, or "tie" when the two fastest are the same run or prediction."""
    ranked = sorted(times, key=times.__getitem__)
    return "tie" if len(ranked) > 1 and math.isclose(times[ranked[0]], times[ranked[1]], rel_tol=1e-9) else ranked[0]


def outlook(section: Section, cores_per_node: int, doublings: int = 3) -> list[Outlook]:
    """The overall model (6.10), fitted as `evaluate` fits it, predicting every configuration at the study's
    core counts and at `doublings` doublings beyond the largest: which split wins where — the thesis's use
    of the model (§6.5) to say where hybrid overtakes pure MPI."""
    ev = evaluate(section, cores_per_node, "overall (6.10)")
    measured = [p for p in section.points if p.runs]
    if not ev.rows or not measured:
        return []
    value = {n: f.value(n) for f in ev.fits for n in f.names}
    work = problem_size(measured[0].runs[0]["profile"])
    configurations = list(dict.fromkeys(p.configuration for p in measured))
    largest = max(p.cores for p in measured)
    scales = sorted({p.cores for p in measured} | {largest * 2**k for k in range(1, doublings + 1)})
    out = []
    for cores in scales:
        predicted = {}
        for name in configurations:
            try:
                lay = thesis.layout(name, cores, cores_per_node)
            except ValueError:  # a configuration name the thesis's layouts do not describe
                continue
            mu = value["mu"] if lay.n_omp > 1 else 0.0
            predicted[name] = float(thesis.overall(value["phi"], mu, value["alpha"], work, lay.n_mpi, lay.n_omp,
                                                   lay.n_ppn))
        seen = {p.configuration: min(r["loop_time"] for r in p.runs) for p in measured if p.cores == cores}
        if predicted:
            out.append(Outlook(cores, predicted, seen))
    return out
