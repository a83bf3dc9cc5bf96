"""The energies docs/potentials.md quotes for the Gupta (Cleri & Rosato) Cu–Au parameters, summed directly from the
analytic form (potentials.sums) as tests/test_potentials.py checks them: each metal at its lattice constant and
L1₂ Cu₃Au, for each number of neighbour shells the tail may keep. bench/figures.py marks and checks them; pure."""

from __future__ import annotations

from functools import cache

import numpy as np

from hybridperf.potentials import params, sums

CU, AU, CU3AU = 3.615, 4.079, 3.751  # Å: Cleri & Rosato's fitted lattice constants; Cu₃Au's used by the tests
SYSTEMS = {"Cu": (CU, [0, 0, 0, 0]), "Au": (AU, [1, 1, 1, 1]), "Cu3Au": (CU3AU, [1, 0, 0, 0])}  # 0 Cu, 1 Au


@cache
def energies(shells: int) -> tuple[float, dict[str, float]]:
    """(the file's cutoff, eV/atom of each system) with the tails at `shells` neighbour shells."""
    model = params.gupta(params.load("gupta"), ["Cu", "Au"], shells)
    return model.cutoff, {name: sums.energy(model, sums.fcc_cell(a), np.array(types), a) / 4
                          for name, (a, types) in SYSTEMS.items()}


def ev(value: float) -> str:
    return f"{value:.4f}".replace("-", "−")


def table() -> str:
    default = params.load("gupta").shells
    lines = [f"| `--shells` | cutoff (Å) | Cu at {CU} (eV/atom) | Au at {AU} | Cu₃Au at {CU3AU} |",
             "|---|---|---|---|---|"]
    for shells in range(2, default + 1):
        cutoff, e = energies(shells)
        cells = [str(shells), f"{cutoff:.3f}", *(ev(e[name]) for name in SYSTEMS)]
        lines.append("| " + " | ".join(f"**{c}**" if shells == default else c for c in cells) + " |")
    return "\n".join(lines) + "\n"


def default_energy(system: str) -> str:
    return ev(energies(params.load("gupta").shells)[1][system])


FIGURES = {f"potentials.gupta_{name.lower()}": (lambda n=name: default_energy(n)) for name in SYSTEMS}
BLOCKS = {"gupta_shells": table}
