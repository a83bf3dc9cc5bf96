"""The energies docs/potentials.md quotes for the Gupta (Cleri & Rosato) Cu–Au parameters, summed directly from the
analytic form (potentials.sums) as tests/test_potentials.py checks them: each metal at its lattice constant and
L1₂ Cu₃Au, for each number of neighbour shells the tail may keep. bench/figures.py marks and checks them; pure."""

from __future__ import annotations

from functools import cache

import numpy as np

from hybridperf.potentials import params, setfl, sums

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


# ---------------------------------------------------------------- Dai et al.'s Finnis-Sinclair Cu

EV_PER_CUBIC_ANGSTROM_IN_GPA = 160.21766


@cache
def dai_cu():
    return params.build(params.load("dai-fs"), ["Cu"], None)[0]


def dai_energy(a: float) -> float:
    """eV per atom of perfect fcc Cu at lattice constant a."""
    return sums.energy(dai_cu(), sums.fcc_cell(a), np.zeros(4, int), a) / 4


@cache
def dai_minimum() -> tuple[float, float, float]:
    """(a, eV/atom, GPa) at the energy's minimum over the lattice constant: golden-section search, then the bulk
    modulus B = V d2E/dV2 = 4 E''(a) / (9 a) for V = a^3 / 4 per atom, E'' by central differences."""
    low, high = 3.45, 3.80
    ratio = (5 ** 0.5 - 1) / 2
    while high - low > 1e-7:
        a, b = high - ratio * (high - low), low + ratio * (high - low)
        low, high = (low, b) if dai_energy(a) < dai_energy(b) else (a, high)
    best, h = (low + high) / 2, 1e-3
    curvature = (dai_energy(best - h) - 2 * dai_energy(best) + dai_energy(best + h)) / h ** 2
    return best, dai_energy(best), 4 * curvature / (9 * best) * EV_PER_CUBIC_ANGSTROM_IN_GPA


METAL_SKIN = 1.0  # Å: hybridperf-md's skin in metal units


@cache
def gupta_default():
    """The Cu-Au Gupta model with its file's default tails."""
    return params.gupta(params.load("gupta"), ["Cu", "Au"], params.load("gupta").shells)


def gupta_cu3au_neighbours() -> str:
    """Neighbours per atom of L1₂ Cu₃Au within the default Gupta cutoff plus the skin: what a full list holds."""
    i, _, _ = sums.neighbours(sums.fcc_cell(CU3AU), CU3AU, gupta_default().cutoff + METAL_SKIN)
    return f"{len(i) / 4:.0f}"


def gupta_au_sites() -> str:
    """The density at the Au sites of L1₂ Cu₃Au (site 0), default Gupta tails."""
    sites = sums.densities(gupta_default(), sums.fcc_cell(CU3AU), np.array(SYSTEMS["Cu3Au"][1]), CU3AU)
    return f"{sites[0]:.1f}"


FIGURES = {f"potentials.gupta_{name.lower()}": (lambda n=name: default_energy(n)) for name in SYSTEMS} | {
    "potentials.dai_lattice": lambda: f"{dai_minimum()[0]:.3f}",
    "potentials.dai_energy": lambda: ev(dai_minimum()[1]),
    "potentials.dai_energy_at_fit": lambda: ev(dai_energy(CU)),
    "potentials.dai_bulk_modulus": lambda: f"{dai_minimum()[2]:.0f}",
    "potentials.dai_densest": lambda: f"{setfl.densest(dai_cu()):.1f}",
    "potentials.gupta_densest": lambda: f"{setfl.densest(gupta_default()):.2f}",
    "potentials.gupta_au_sites": gupta_au_sites,
    "potentials.gupta_cu3au_neighbours": gupta_cu3au_neighbours,
}
BLOCKS = {"gupta_shells": table}
