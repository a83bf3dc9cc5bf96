"""The analytic forms hybridperf tabulates, as the functions of the Finnis-Sinclair shape LAMMPS's eam/fs reads:

    E = sum_i F_a(rho_i) + 1/2 sum_i sum_j phi_ab(r_ij),    rho_i = sum_j rho_ab(r_ij)

for atom i of element a and neighbour j of element b. Two forms, pure functions of numpy arrays.

Gupta's (Cleri-Rosato's),

    E_i = sum_j A_ab e^{-p_ab (r_ij/r0_ab - 1)} - sqrt( sum_j Xi_ab(r_ij)^2 ),  Xi_ab(r) = xi_ab e^{-q_ab (r/r0_ab - 1)},

is of that shape with F(rho) = -sqrt(rho), rho_ab = Xi_ab^2 and phi_ab = 2 A_ab e^{...}: the 2 because the shape
halves the double pair sum and Gupta's E_i does not. Exponentials never reach zero, and a plain cutoff (DL_POLY's
gupt, which adds long-range corrections instead) leaves a step in the energy that molecular dynamics turns into
drift. The tail is LAMMPS's smatb's: between r_start and r_end each of the two exponentials, A e^{...} and Xi,
gives way to a3 x^3 + a4 x^4 + a5 x^5 in x = r - r_end, matching its value, slope and curvature at r_start; at
r_end all three are zero. As in smatb, the tail is on Xi and rho is its square.

Dai et al.'s extended Finnis-Sinclair form (J. Phys.: Condens. Matter 18, 4527 (2006); DL_POLY's exfs), one
element,

    E_i = -A sqrt(rho_i) + 1/2 sum_j V(r_ij),  rho_i = sum_j phi(r_ij),
    V(r) = (r - c)^2 (c0 + c1 r + c2 r^2 + c3 r^3 + c4 r^4) below c,  phi(r) = (r - d)^2 + B^2 (r - d)^4 below d,

is the shape as it stands: F(rho) = -A sqrt(rho), density phi, pair V, with the paper's own 1/2. It needs no tail:
the factor (r - c)^2, and (r - d)^2 in both of phi's terms, bring each function to zero with zero slope at its
cutoff, so energy and force are continuous there (the curvature jumps, as the paper's form has it). The cutoff is
max(c, d).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np


class FinnisSinclair(Protocol):
    """What a tabulated or summed form provides (Gupta and DaiFS); elements are indices into its elements."""

    @property
    def elements(self) -> tuple[Element, ...]: ...

    @property
    def cutoff(self) -> float: ...

    def embedding(self, element: int, rho: np.ndarray) -> np.ndarray: ...

    def density(self, source: int, at: int, r: np.ndarray) -> np.ndarray: ...

    def pair(self, a: int, b: int, r: np.ndarray) -> np.ndarray: ...


@dataclass(frozen=True)
class Element:
    """An element's line of a setfl file."""

    name: str
    number: int
    mass: float  # atomic mass units
    lattice: str  # fcc or bcc (sums.CELLS)
    lattice_constant: float  # Angstrom


def tail_coefficients(amplitude: float, decay: float, r0: float, r_start: float, r_end: float) -> np.ndarray:
    """a3, a4, a5 of the quintic that continues amplitude e^{-decay (r/r0 - 1)} from r_start to zero at r_end.

    The quintic LAMMPS's smatb computes in closed form (pair_smatb.cpp, init_one): with no constant, linear or
    quadratic term in r - r_end it is the only one that meets the three conditions at r_start."""
    value = amplitude * np.exp(-decay * (r_start / r0 - 1.0))
    slope = -decay / r0
    x = r_start - r_end
    conditions = np.array([[x**3, x**4, x**5], [3 * x**2, 4 * x**3, 5 * x**4], [6 * x, 12 * x**2, 20 * x**3]])
    return np.linalg.solve(conditions, value * np.array([1.0, slope, slope * slope]))


def smooth_exponential(r: np.ndarray, amplitude: float, decay: float, r0: float, r_start: float,
                       r_end: float) -> np.ndarray:
    """amplitude e^{-decay (r/r0 - 1)} below r_start, the smatb tail up to r_end, zero beyond."""
    r = np.asarray(r, dtype=float)
    a3, a4, a5 = tail_coefficients(amplitude, decay, r0, r_start, r_end)
    x = r - r_end
    tail = x**3 * (a3 + x * (a4 + x * a5))
    head = amplitude * np.exp(-decay * (r / r0 - 1.0))
    return np.where(r < r_start, head, np.where(r < r_end, tail, 0.0))


@dataclass(frozen=True)
class GuptaPair:
    """One pair of elements (the same or two) under the Gupta form, with its tail."""

    A: float  # eV
    xi: float  # eV
    p: float
    q: float
    r0: float  # Angstrom
    r_start: float  # Angstrom: the tail begins
    r_end: float  # Angstrom: everything is zero from here

    def pair(self, r: np.ndarray) -> np.ndarray:
        return 2.0 * smooth_exponential(r, self.A, self.p, self.r0, self.r_start, self.r_end)

    def density(self, r: np.ndarray) -> np.ndarray:
        return smooth_exponential(r, self.xi, self.q, self.r0, self.r_start, self.r_end) ** 2


@dataclass(frozen=True)
class Gupta:
    """A Gupta potential over some elements: every pair of them, keyed by (lower index, higher index)."""

    elements: tuple[Element, ...]
    pairs: dict[tuple[int, int], GuptaPair]

    def bond(self, a: int, b: int) -> GuptaPair:
        return self.pairs[(min(a, b), max(a, b))]

    @property
    def cutoff(self) -> float:
        return max(p.r_end for p in self.pairs.values())

    def embedding(self, element: int, rho: np.ndarray) -> np.ndarray:
        return -np.sqrt(rho)

    def density(self, source: int, at: int, r: np.ndarray) -> np.ndarray:
        """The density an atom of element `at` receives from a neighbour of element `source` (symmetric here)."""
        return self.bond(source, at).density(r)

    def pair(self, a: int, b: int, r: np.ndarray) -> np.ndarray:
        return self.bond(a, b).pair(r)


@dataclass(frozen=True)
class DaiFS:
    """Dai et al.'s extended Finnis-Sinclair form for one element, the paper's parameter names."""

    element: Element
    A: float  # eV/Angstrom: -A sqrt(rho) is in eV, rho in Angstrom^2
    B: float  # 1/Angstrom: phi's quartic term is B^2 (r - d)^4
    c: float  # Angstrom: V's cutoff
    c0: float  # V's polynomial: c_k in eV/Angstrom^(k+2)
    c1: float
    c2: float
    c3: float
    c4: float
    d: float  # Angstrom: phi's cutoff

    @property
    def elements(self) -> tuple[Element, ...]:
        return (self.element,)

    @property
    def cutoff(self) -> float:
        return max(self.c, self.d)

    def embedding(self, element: int, rho: np.ndarray) -> np.ndarray:
        return -self.A * np.sqrt(rho)

    def density(self, source: int, at: int, r: np.ndarray) -> np.ndarray:
        r = np.asarray(r, dtype=float)
        x2 = (r - self.d) ** 2
        return np.where(r < self.d, x2 + self.B**2 * x2 * x2, 0.0)

    def pair(self, a: int, b: int, r: np.ndarray) -> np.ndarray:
        r = np.asarray(r, dtype=float)
        polynomial = self.c0 + r * (self.c1 + r * (self.c2 + r * (self.c3 + r * self.c4)))
        return np.where(r < self.c, (r - self.c) ** 2 * polynomial, 0.0)
