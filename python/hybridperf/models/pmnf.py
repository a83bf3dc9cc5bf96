"""Empirical models in Extra-P's performance model normal form (Calotoiu et al., SC13), one parameter.

A hypothesis is f(p) = c0 + c1 p^i log2^j(p). Extra-P's search space has i >= 0 (weak scaling); strong
scaling needs costs that fall with p, so negative exponents are allowed too. Each hypothesis is fitted
by linear least squares on every measurement (repeats included); hypotheses are ranked by leave-one-
out cross-validation — each distinct p left out in turn and predicted from the others — scored by
SMAPE, as Extra-P does, and ties go to the simpler term. Pure functions over arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

EXPONENTS_I = tuple(sorted({Fraction(k, 4) for k in range(-12, 13)} | {Fraction(k, 3) for k in range(-9, 10)}))
EXPONENTS_J = (0, 1, 2)


@dataclass(frozen=True)
class Hypothesis:
    i: Fraction
    j: int
    c0: float = 0.0
    c1: float = 0.0
    smape: float = float("inf")  # cross-validated, percent

    def term(self, p):
        p = np.asarray(p, dtype=float)
        return p ** float(self.i) * np.log2(p) ** self.j

    def __call__(self, p):
        return self.c0 + self.c1 * self.term(p)

    @property
    def constant(self) -> bool:
        return self.i == 0 and self.j == 0

    def formula(self) -> str:
        if self.constant:
            return f"{self.c0:.4g}"
        parts = []
        if self.i:
            parts.append(f"p^({self.i})" if self.i != 1 else "p")
        if self.j:
            parts.append("log2(p)" + (f"^{self.j}" if self.j > 1 else ""))
        return f"{self.c0:.4g} + {self.c1:.4g} * {' * '.join(parts)}"


def _fit(p: np.ndarray, y: np.ndarray, i: Fraction, j: int) -> tuple[float, float]:
    if i == 0 and j == 0:
        return float(np.mean(y)), 0.0
    term = p ** float(i) * np.log2(p) ** j
    a = np.column_stack([np.ones_like(term), term])
    (c0, c1), *_ = np.linalg.lstsq(a, y, rcond=None)
    return float(c0), float(c1)


def _smape(predicted: np.ndarray, actual: np.ndarray) -> float:
    return float(100 * np.mean(2 * np.abs(predicted - actual) / (np.abs(predicted) + np.abs(actual) + 1e-300)))


def select(p, y) -> Hypothesis:
    """The best single-term hypothesis for measurements y at parameter values p (repeats allowed)."""
    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=float)
    points = np.unique(p)
    if len(points) < 3:
        raise ValueError(f"a PMNF fit needs measurements at 3 or more parameter values, got {len(points)}")
    best = None
    for i in EXPONENTS_I:
        for j in EXPONENTS_J:
            errors = []
            for left in points:
                keep = p != left
                c0, c1 = _fit(p[keep], y[keep], i, j)
                errors.append(_smape(Hypothesis(i, j, c0, c1)(p[~keep]), y[~keep]))
            score = float(np.mean(errors))
            simpler = best is not None and abs(score - best.smape) < 1e-9 and (abs(i), j) < (abs(best.i), best.j)
            if best is None or score < best.smape - 1e-9 or simpler:
                c0, c1 = _fit(p, y, i, j)
                best = Hypothesis(i, j, c0, c1, score)
    return best
