"""LAMMPS's setfl file, "fs" variant (pair_style eam/fs, and hybridperf-md --potential eam/fs), tabulated from
analytic functions. Pure: a model in, the file's text out.

The layout: three comment lines; "N el1 ... elN"; "Nrho drho Nr dr cutoff"; per element a "Z mass a0 lattice"
line, F on the rho grid, then for each element b the density an atom of element b receives from one of this
element, on the r grid; last r * phi for each pair a >= b (the lower triangle). Grids start at zero,
rho_k = k drho and r_k = k dr, five numbers a line.

The grids: 10,000 points each, as LAMMPS's own files. dr puts the last r point on the cutoff, where every
function of a smooth tail (Gupta's) or of a form that ends smoothly by itself (Dai's) is zero, so nothing is left
between the table's end and the cutoff (LAMMPS holds the last value there). rho reaches three times the densest
element's density in its own perfect crystal: room for compressed states (both codes extend F linearly past the
end). F = -A sqrt(rho) has an infinite slope at rho = 0, as in LAMMPS's Finnis-Sinclair files; no atom of a solid
comes near it.

Numbers are written %.16e, 17 significant digits: each reads back as the very double it was.
"""

from __future__ import annotations

import numpy as np

from hybridperf.potentials import sums
from hybridperf.potentials.forms import FinnisSinclair

POINTS = 10_000
DENSITY_HEADROOM = 3.0  # rho_max over the densest element's perfect-crystal density


def _numbers(values: np.ndarray) -> list[str]:
    return [" ".join(f"{v:.16e}" for v in values[k:k + 5]) for k in range(0, len(values), 5)]


def densest(model: FinnisSinclair) -> float:
    """The largest rho of any element in its own perfect crystal (its lattice line's fcc or bcc)."""
    densities = []
    for k, e in enumerate(model.elements):
        sites = sums.cell(e.lattice, e.lattice_constant)
        densities.append(float(sums.densities(model, sites, np.full(len(sites), k), e.lattice_constant)[0]))
    return max(densities)


def render(model: FinnisSinclair, comments: tuple[str, str, str]) -> str:
    n = len(model.elements)
    cutoff = model.cutoff
    dr = cutoff / (POINTS - 1)
    drho = DENSITY_HEADROOM * densest(model) / (POINTS - 1)
    r = np.arange(POINTS) * dr
    rho = np.arange(POINTS) * drho
    lines = [*comments, f"{n} {' '.join(e.name for e in model.elements)}",
             f"{POINTS} {drho:.16e} {POINTS} {dr:.16e} {cutoff:.16e}"]
    for a, element in enumerate(model.elements):
        lines.append(f"{element.number} {element.mass!r} {element.lattice_constant!r} {element.lattice}")
        lines += _numbers(model.embedding(a, rho))
        for b in range(n):
            lines += _numbers(model.density(a, b, r))
    for a in range(n):
        for b in range(a + 1):
            lines += _numbers(r * model.pair(a, b, r))
    return "\n".join(lines) + "\n"
