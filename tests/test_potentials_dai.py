"""Dai et al.'s extended Finnis-Sinclair form written as a LAMMPS eam/fs file (hybridperf potential write dai-fs,
docs/potentials.md): the file reads back as the published functions, Dai's Cu parameters give the lattice constant
and cohesive energy they were fitted to, hybridperf-md and LAMMPS compute from the file the energy of the direct
sum, and what the form cannot do is refused in one line.

The LAMMPS check needs Debian's `lmp` (installed by `make test`); it is skipped, saying so, when `lmp` is absent.
"""

import math
import re
from pathlib import Path

import numpy as np
import pytest

from conftest import relative
from hybridperf.potentials import params, setfl, sums
from test_potentials import LMP, assert_starts_at_the_direct_sum, cli, lammps_energy, read_setfl, written

# Dai et al. 2006's Cu, written out here rather than read from the data file, so that a changed or misread
# value fails the tests.
A, D, C, POLY, B = 0.391865, 4.32, 4.29, (10.18724, -12.82033, 6.176587, -1.341391, 0.109842), -0.881096
CU = 3.615  # Angstrom: the lattice constant the parameters were fitted to
COHESIVE = 3.49  # eV per atom, the cohesive energy they were fitted to


def published_pair(r: np.ndarray) -> np.ndarray:
    return np.where(r <= C, (r - C) ** 2 * sum(c * r**k for k, c in enumerate(POLY)), 0.0)


def published_density(r: np.ndarray) -> np.ndarray:
    return np.where(r <= D, (r - D) ** 2 + B**2 * (r - D) ** 4, 0.0)


@pytest.fixture(scope="module")
def cu(tmp_path_factory) -> Path:
    """The Cu file."""
    return written(tmp_path_factory, "dai-fs", "Cu", "Cu.dai.eam.fs")


@pytest.fixture(scope="module")
def model():
    return params.build(params.load("dai-fs"), ["Cu"], None)[0]


def fcc(a: float, cells: int) -> np.ndarray:
    offsets = np.array([(i, j, k) for i in range(cells) for j in range(cells) for k in range(cells)]) * a
    return (sums.fcc_cell(a)[None, :, :] + offsets[:, None, :]).reshape(-1, 3)


def per_atom(model, a: float) -> float:
    return sums.energy(model, sums.fcc_cell(a), np.zeros(4, int), a) / 4


@pytest.mark.xdist_group("test_potentials_dai.cu")  # cu is made once, on one worker
@pytest.mark.kernel
def test_the_file_reads_back_as_the_published_functions(cu):
    f = read_setfl(cu)
    assert f["names"] == ["Cu"] and f["element"] == [["29", "63.546", "3.615", "fcc"]]
    assert f["cutoff"] == D and (f["nr"] - 1) * f["dr"] == pytest.approx(D, rel=1e-15)
    r, rho = np.arange(f["nr"]) * f["dr"], np.arange(f["nrho"]) * f["drho"]
    np.testing.assert_allclose(f["F"][0], -A * np.sqrt(rho), rtol=1e-15, atol=0)
    np.testing.assert_allclose(f["rho"][(0, 0)], published_density(r), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(f["rphi"][(0, 0)], r * published_pair(r), rtol=1e-12, atol=1e-13)
    assert f["rho"][(0, 0)][-1] == 0.0 and np.all(f["rphi"][(0, 0)][r >= C] == 0.0)
    assert f["nrho"] * f["drho"] > 2.9 * (12 * published_density(CU / math.sqrt(2)) + 6 * published_density(CU))
    assert "Dai, Y. Kong, J. H. Li and B. X. Liu" in f["comments"][1] and "10.1088/0953-8984/18/19/008" in \
        f["comments"][1] and "B -0.881096" in f["comments"][2]


def test_both_functions_end_at_their_cutoffs_with_zero_value_and_slope(model):
    h = 1e-6
    for function, cut in ((lambda r: model.pair(0, 0, r), C), (lambda r: model.density(0, 0, r), D)):
        below = function(np.array([cut - h, cut - 2 * h]))
        assert abs(below[0]) < 1e-10 and abs((below[0] - below[1]) / h) < 1e-5
        assert function(np.array([cut, cut + h, cut + 1.0])).tolist() == [0.0, 0.0, 0.0]
    assert model.cutoff == D


def test_cu_has_the_lattice_constant_and_cohesive_energy_it_was_fitted_to(model):
    """The minimum of the direct sum over lattice constants (a parabola through the best scanned point and its
    neighbours): within 1% of 3.615 Angstrom, and -3.49 eV per atom within 2%. A wrong sign of either term or a
    pair sum not halved moves both far outside."""
    scan = np.arange(3.45, 3.80, 0.005)
    energies = np.array([per_atom(model, a) for a in scan])
    k = int(np.argmin(energies))
    assert 0 < k < len(scan) - 1, "no minimum inside the scan"
    curvature = energies[k - 1] - 2 * energies[k] + energies[k + 1]
    best = scan[k] + 0.005 * (energies[k - 1] - energies[k + 1]) / (2 * curvature)
    assert relative(best, CU) < 0.01, best
    assert relative(-per_atom(model, best), COHESIVE) < 0.02, per_atom(model, best)


@pytest.mark.xdist_group("test_potentials_dai.cu")  # cu is made once, on one worker
@pytest.mark.kernel
def test_hybridperf_md_runs_the_file(run_md, cu, model):
    run = run_md(1, 1, ["--potential", "eam/fs", "--potential-file", cu, "--elements", "Cu", "-s", 3, "--steps", 20])
    assert_starts_at_the_direct_sum(run, 108, per_atom(model, CU))


@pytest.mark.xdist_group("test_potentials_dai.cu")  # cu is made once, on one worker
@pytest.mark.external
@pytest.mark.skipif(LMP is None, reason="LAMMPS (lmp) not installed: apt-get install lammps")
def test_lammps_gives_the_energy_of_the_direct_sum(cu, model, tmp_path):
    """A thermally disordered Cu cell, so that pairs fall all along the tables and across both cutoffs."""
    cells, box = 3, 3 * CU
    positions = (fcc(CU, cells) + np.random.default_rng(11).normal(0.0, 0.08, (4 * cells**3, 3))) % box
    types = np.zeros(len(positions), int)
    theirs = lammps_energy(tmp_path, cu, {"Cu": 63.546}, positions, types, box)
    assert relative(theirs, sums.energy(model, positions, types, box)) < 1e-6


@pytest.mark.kernel
def test_list_names_the_form():
    shown = cli("potential", "list")
    assert shown.returncode == 0 and "dai-fs" in shown.stdout and "Dai" in shown.stdout


@pytest.mark.kernel
@pytest.mark.parametrize("args,message", [
    (["--elements", "Fe"], "has no parameters for 'Fe'; it has Cu (a new element's values go in "
                           "data/potentials/dai-fs-2006.yaml"),
    (["--elements", "Cu,Fe"], "dai-fs is written for one element at a time (no cross terms are implemented)"),
    (["--elements", "Cu,Cu"], "--elements names Cu,Cu; give one of Cu"),
    (["--elements", "Cu", "--shells", "3"], "--shells places gupta's tail; dai-fs has none"),
], ids=["unknown-element", "two-elements", "twice", "shells"])
def test_bad_requests_are_one_line_and_exit_2(tmp_path, args, message):
    out = cli("potential", "write", "dai-fs", *args, "--out", tmp_path / "x.eam.fs")
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and message in out.stderr, out.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("change,message", [
    (("    c: 4.29", "    c: -4.29"), "parameters.Cu.c: expected a positive number, got -4.29"),
    (("    B: -0.881096", "    B: minus one"), "parameters.Cu.B: expected a number, got 'minus one'"),
    (("    c4: 0.109842\n", ""), "parameters.Cu: expected exactly A, d, c, c0, c1, c2, c3, c4, B, source"),
    (("parameters:\n", "parameters:\n  Fe: {}\n"), "parameters: expected a mapping with an entry for each of the "
                                                   "elements Cu and no other"),
    (("    lattice: fcc", "    lattice: hcp"), "elements.Cu: lattice 'hcp': only fcc or bcc is tabulated for dai-fs"),
    (("form: dai-fs", "form: exfs"), "form: expected one of gupta, dai-fs, got 'exfs'"),
    (("parameters:", "parameter:"), "missing parameters"),
], ids=["negative", "not-a-number", "missing-key", "extra-element", "hcp", "form", "missing"])
def test_a_broken_parameter_file_is_refused_naming_the_key(change, message):
    text = (params.DATA / params.FORMS["dai-fs"]).read_text()
    assert change[0] in text
    with pytest.raises(params.PotentialError, match=re.escape(message)):
        params.parse(text.replace(*change, 1), "dai-fs.yaml")


def test_a_bcc_element_gets_its_density_range_from_its_bcc_crystal():
    """How an element such as Fe would go in: a bcc element line, whose own crystal sets the table's rho range."""
    text = (params.DATA / params.FORMS["dai-fs"]).read_text().replace("    lattice: fcc", "    lattice: bcc", 1)
    model = params.build(params.parse(text, "dai-fs.yaml"), ["Cu"], None)[0]
    a = model.elements[0].lattice_constant
    expected = 8 * published_density(a * math.sqrt(3) / 2) + 6 * published_density(a)  # bcc's two shells within d
    assert setfl.densest(model) == pytest.approx(float(expected), rel=1e-12)
    assert setfl.render(model, ("", "", "")).splitlines()[5] == "29 63.546 3.615 bcc"
