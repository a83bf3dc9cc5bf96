"""The thesis's models fitted on a stored study and evaluated on it, as chapter 6 does — held out first.

Per parameter set, each configuration's points carry the thesis's layout (N_mpi = ranks, N_ppn = ranks
per node, N_omp = threads) and the minimum of their repeats (the thesis fits minimum times). Models:
- overall runtime (eq. 6.10) on the loop time: phi and alpha on pure-MPI points, then mu on the others;
- total communication (eq. 6.6), point-to-point (6.3) and collective (6.4) on the matching communication
  times: alpha and beta on pure-MPI points only, evaluated on the hybrid ones (the thesis's predictive use).
The problem size P (and the work) is the kernel's own: md atoms, spmv rows, else 1.
Evaluated two ways: held out (fitted without each configuration's largest core count, which is then
predicted) and in-sample (fitted on every point and evaluated on the same points, as the thesis did — a
description, not a prediction). A fit with as many points as parameters is exact: no error, no band.
The outlook predicts beyond the measured core counts only when every stage of the fit has a degree of
freedom left, and marks those predictions as extrapolated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from hybridperf.analysis.contest import exact
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
class ModelRow:
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
    rows: list[ModelRow]
    note: str = ""
    held_out: bool = False

    @property
    def exact(self) -> bool:
        return any(f.exact for f in self.fits)


def _points(section: Section, metric: str, cores_per_node: int):
    out = []
    for p in section.points:
        if not p.runs:
            continue
        values = [METRICS[metric](r["profile"]) for r in p.runs]
        k = thesis.k_share(p.ranks_per_node, cores_per_node)
        out.append((p, min(values), problem_size(p.runs[0]["profile"]), k))
    return out


def _shape(x) -> tuple[int, int, int]:
    return x[0].nodes, x[0].ranks_per_node, x[0].threads


def _xs(items) -> dict[str, np.ndarray]:
    return {"work": np.array([i[2] for i in items]),
            "n_mpi": np.array([float(i[0].nodes * i[0].ranks_per_node) for i in items]),
            "n_omp": np.array([float(i[0].threads) for i in items]),
            "n_ppn": np.array([float(i[0].ranks_per_node) for i in items]), "K": np.array([i[3] for i in items])}


def evaluate(section: Section, cores_per_node: int, model: str, held_out: bool = False) -> ModelEvaluation:
    """The model fitted (communication models on pure MPI only) and evaluated on every point; held out, fitted
    without each configuration's largest core count."""
    function, metric, first, second = MODELS[model]
    pts = _points(section, metric, cores_per_node)
    largest = {c: max(x[0].cores for x in pts if x[0].configuration == c) for c in {x[0].configuration for x in pts}}
    # a shape measured under two names (one core is both pure-mpi and hybrid-1) is one measurement to fit on
    kept = [x for x in pts if not (held_out and x[0].cores == largest[x[0].configuration])]
    usable = list({_shape(x): x for x in reversed(kept)}.values())[::-1]  # the first of each shape, in order
    # a communication model is 0 for one process (thesis rule), so such points cannot inform its fit
    pure = [x for x in usable if x[0].threads == 1 and x[1] > 0 and (second or x[0].nodes * x[0].ranks_per_node > 1)]
    others = [x for x in usable if x[0].threads > 1]
    kind = "held out" if held_out else "in-sample"
    if len(pure) < len(first):
        measured = list({_shape(x): x for x in pts if x[0].threads == 1}.values())
        used = {_shape(x) for x in pure}
        left = [f"{x[0].cores} core{'s' if x[0].cores > 1 else ''}" for x in measured if _shape(x) not in used]
        why = [] if not left else [f"left out: {', '.join(left)}"]
        if held_out and measured:
            why.append("held out: each configuration's largest core count")
        if not second and any(x[0].nodes * x[0].ranks_per_node == 1 for x in measured):
            why.append("one process has no communication to fit (the thesis's rule)")
        return ModelEvaluation(model, [], [], f"{kind}: needs {len(first)} pure-MPI points with a non-zero time to fit "
                                              f"on, has {len(pure)} of the {len(measured)} measured"
                                              + (f" ({'; '.join(why)})" if why else ""), held_out)
    start = {"phi": pure[0][1] * pure[0][0].cores / pure[0][2], "alpha": 1e-6, "beta": 1e-9, "mu": 1e-9}
    fixed = {"mu": 0.0} if "mu" in second else {}
    try:
        stage1 = fit(function, _xs(pure), [x[1] for x in pure], first, tuple(start[n] for n in first), fixed=fixed)
        fits = [stage1]
        if second and others:
            fixed = {n: stage1.value(n) for n in first}
            fits.append(fit(function, _xs(others), [x[1] for x in others], second, tuple(start[n] for n in second),
                            fixed=fixed))
        elif second:
            fits.append(Fit(second, (0.0,), (0.0,)))  # no hybrid point: no threading overhead to fit
    except (RuntimeError, ValueError) as err:
        return ModelEvaluation(model, [], [], f"{kind}: the fit failed: {err}", held_out)
    centre, low, high = band(function, fits, _xs(pts))
    trained = {_shape(x) for x in pure} | ({_shape(x) for x in others} if second else set())
    rows = [ModelRow(x[0].configuration, x[0].scale, x[1], float(c), float(lo), float(hi),
                float(percent_error(c, x[1])) if x[1] else float("nan"),
                bool(lo <= x[1] <= hi) if np.isfinite(lo) else False, _shape(x) in trained)
            for x, c, lo, hi in zip(pts, centre, low, high)]
    return ModelEvaluation(model, fits, rows, held_out=held_out)


@dataclass
class Outlook:
    cores: int
    predicted: dict[str, float]  # configuration -> seconds
    extrapolated: bool  # beyond the largest measured core count
    measured_winner: str | None = None  # by the report's race, where two or more shapes were measured
    measured_outcome: str | None = None  # that race's outcome: wins, tie or undecided
    tie_within: float = 0.02  # the study's band

    @property
    def winner(self) -> str:
        """The predicted fastest configuration, or "tie" where the contest of the predictions (exact figures, the
        study's band: analysis.contest) calls it one."""
        contest = exact(self.predicted, self.tie_within)
        return "tie" if contest.outcome == "tie" else contest.leader


def outlook(section: Section, cores_per_node: int, doublings: int = 2) -> list[Outlook]:
    """The overall model (6.10), fitted in-sample, predicting every configuration at the study's core counts —
    and at up to `doublings` doublings beyond the largest only when every stage of the fit has a degree of
    freedom left; the measured winner at each measured core count by the report's race (`Section.verdicts`)."""
    ev = evaluate(section, cores_per_node, "overall (6.10)")
    measured = [p for p in section.points if p.runs]
    if not ev.rows or not measured:
        return []
    value = {n: f.value(n) for f in ev.fits for n in f.names}
    work = problem_size(measured[0].runs[0]["profile"])
    configurations = list(dict.fromkeys(p.configuration for p in measured))
    largest = max(p.cores for p in measured)
    beyond = doublings if not ev.exact else 0
    out = []
    for cores in sorted({p.cores for p in measured} | {largest * 2**k for k in range(1, beyond + 1)}):
        predicted = {}
        for name in configurations:
            try:
                lay = thesis.layout(name, cores, cores_per_node)
            except ValueError:  # a configuration that does not exist at this core count
                continue
            mu = value["mu"] if lay.n_omp > 1 else 0.0
            predicted[name] = float(thesis.overall(value["phi"], mu, value["alpha"], work, lay.n_mpi, lay.n_omp,
                                                   lay.n_ppn))
        scale = next((p.scale for p in measured if p.cores == cores), None)
        verdict = next((v for v in section.verdicts if v.scale == scale and v.outcome != "only"), None)
        if predicted:
            out.append(Outlook(cores, predicted, cores > largest, verdict.winner if verdict else None,
                               verdict.outcome if verdict else None, section.rule.tie_within))
    return out
