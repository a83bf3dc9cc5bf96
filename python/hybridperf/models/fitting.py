"""Least-squares fits with standard errors, and prediction bands from parameters +/- their errors.

The thesis fitted with Mathematica's FindFit and reported each estimate, its standard error and the
percentage error SE / estimate, then predicted with every parameter at -SE and at +SE to bound the
prediction [t_p^min, t_p^max] (seed-spec §D.12-D.13). Here scipy's curve_fit does the least squares;
residuals are relative by default (sigma = the measured value), because the data span two orders of
magnitude and an absolute fit would be decided by the smallest core counts alone — the choice is an
argument, and the thesis's (absolute) is available.
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class Fit:
    names: tuple[str, ...]
    estimates: tuple[float, ...]
    errors: tuple[float, ...]  # standard errors; NaN when no degree of freedom is left to estimate them
    dof: int = 1  # measurements minus parameters

    @property
    def exact(self) -> bool:
        """As many measurements as parameters: the curve passes through every point and says nothing about its
        own error, so there is no standard error and no band."""
        return self.dof <= 0

    @property
    def percent(self) -> tuple[float, ...]:
        return tuple(100 * abs(e / v) if v else float("inf") for v, e in zip(self.estimates, self.errors))

    def value(self, name: str) -> float:
        return self.estimates[self.names.index(name)]

    def as_dict(self) -> dict[str, dict[str, float]]:
        return {n: {"estimate": v, "error": e, "percent": p}
                for n, v, e, p in zip(self.names, self.estimates, self.errors, self.percent)}


def fit(model: Callable[..., np.ndarray], x: dict[str, np.ndarray], y: np.ndarray, names: tuple[str, ...],
        start: tuple[float, ...], relative: bool = True, fixed: dict[str, float] | None = None,
        nonnegative: bool = True) -> Fit:
    """Fits `model(**params, **x)` to y for the parameters `names` (others held at `fixed`). The thesis's
    parameters are times and overheads, so by default they are kept >= 0 (an unconstrained fit on few
    points can trade a negative overhead against a larger cost per unit of work)."""
    fixed = fixed or {}
    y = np.asarray(y, dtype=float)

    def f(_, *values):
        return model(**dict(zip(names, values)), **fixed, **x)

    if len(y) < len(names):
        raise ValueError(f"{len(y)} measurements cannot determine {len(names)} parameters ({', '.join(names)})")
    dof = len(y) - len(names)
    sigma = np.abs(y) if relative else None
    bounds = (0.0, np.inf) if nonnegative else (-np.inf, np.inf)
    from scipy.optimize import OptimizeWarning, curve_fit  # here: a third of every command's start-up otherwise

    with warnings.catch_warnings():
        # as many points as parameters leave no covariance: reported below as infinite errors, not a warning
        warnings.simplefilter("ignore", OptimizeWarning)
        values, cov = curve_fit(f, np.zeros(len(y)), y, p0=start, sigma=sigma, bounds=bounds, max_nfev=20000)
    if dof == 0 or not np.all(np.isfinite(cov)):
        errors = np.full(len(names), np.nan)
    else:
        errors = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    return Fit(names, tuple(float(v) for v in values), tuple(float(e) for e in errors), dof)


def band(model: Callable[..., np.ndarray], fits: list[Fit], x: dict[str, np.ndarray]) -> tuple[np.ndarray, ...]:
    """(prediction, minimum, maximum) with every fitted parameter at estimate -SE / +SE in turn; the band is NaN
    when a fit is exact (no error to move the parameters by)."""
    names = [n for f in fits for n in f.names]
    values = [v for f in fits for v in f.estimates]
    errors = [e for f in fits for e in f.errors]
    centre = model(**dict(zip(names, values)), **x)
    if any(f.exact for f in fits) or not np.all(np.isfinite(errors)):
        nan = np.full(np.shape(centre), np.nan)
        return centre, nan, nan
    corners = [model(**{n: v + s * e for n, v, e, s in zip(names, values, errors, signs)}, **x)
               for signs in itertools.product((-1.0, 1.0), repeat=len(names))]
    return centre, np.min(corners, axis=0), np.max(corners, axis=0)


def percent_error(predicted, actual):
    """|t_p - t_m| / t_m x 100 (the thesis's Table 6.5 -> 6.6 convention)."""
    return 100.0 * np.abs(np.asarray(predicted) - np.asarray(actual)) / np.asarray(actual)
