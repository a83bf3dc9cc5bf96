"""Direct sums of a Finnis-Sinclair-shaped potential over a periodic cubic cell, from the analytic functions: the
densest state a table must cover, and the reference its tabulation is checked against (tests/test_potentials.py).

Every periodic image within the cutoff is summed, so a cell smaller than twice the cutoff (one fcc unit cell, a
perfect crystal) is summed exactly. Pure; O(N^2 images), for the few hundred atoms a check needs.
"""

from __future__ import annotations

import numpy as np

from hybridperf.potentials.forms import FinnisSinclair

FCC = np.array([[0.0, 0.0, 0.0], [0.0, 0.5, 0.5], [0.5, 0.0, 0.5], [0.5, 0.5, 0.0]])
BCC = np.array([[0.0, 0.0, 0.0], [0.5, 0.5, 0.5]])
CELLS = {"fcc": FCC, "bcc": BCC}  # the lattices an element's setfl line may name


def fcc_cell(lattice_constant: float) -> np.ndarray:
    """The four sites of one cubic fcc cell (L1_2 Cu3Au is this with site 0 the Au)."""
    return FCC * lattice_constant


def cell(lattice: str, lattice_constant: float) -> np.ndarray:
    """The sites of one cubic cell of a lattice in CELLS."""
    return CELLS[lattice] * lattice_constant


def neighbours(positions: np.ndarray, box: float, cutoff: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(i, j, r) of every pair within the cutoff, j over all periodic images of the cell, i itself excluded."""
    reach = int(np.ceil(cutoff / box))
    shifts = np.arange(-reach, reach + 1)
    images = np.stack(np.meshgrid(shifts, shifts, shifts, indexing="ij"), -1).reshape(-1, 3) * box
    delta = positions[None, :, None, :] + images[None, None, :, :] - positions[:, None, None, :]
    r = np.linalg.norm(delta, axis=-1)  # [i, j, image]
    within = (r < cutoff) & (r > 0.0)
    i, j, _ = np.nonzero(within)
    return i, j, r[within]


def densities(model: FinnisSinclair, positions: np.ndarray, types: np.ndarray, box: float) -> np.ndarray:
    """rho_i of every atom of the cell; types index the model's elements."""
    i, j, r = neighbours(positions, box, model.cutoff)
    rho = np.zeros(len(positions))
    for a in np.unique(types):
        for b in np.unique(types):
            sel = (types[i] == a) & (types[j] == b)
            np.add.at(rho, i[sel], model.density(int(b), int(a), r[sel]))
    return rho


def energy(model: FinnisSinclair, positions: np.ndarray, types: np.ndarray, box: float) -> float:
    """The cell's potential energy, sum_i F(rho_i) + 1/2 sum_i sum_j phi(r_ij), in the model's units."""
    rho = densities(model, positions, types, box)
    i, j, r = neighbours(positions, box, model.cutoff)
    total = 0.0
    for a in np.unique(types):
        total += float(np.sum(model.embedding(int(a), rho[types == a])))
        for b in np.unique(types):
            sel = (types[i] == a) & (types[j] == b)
            total += 0.5 * float(np.sum(model.pair(int(a), int(b), r[sel])))
    return total
