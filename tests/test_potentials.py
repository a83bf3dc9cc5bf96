"""Analytic potentials written as LAMMPS eam/fs files (hybridperf potential, docs/potentials.md): the file reads back
as the functions it tabulates, the parameters give the cohesive energies they were fitted to, hybridperf-md runs
the file, and LAMMPS computes from it the energy a direct sum of the analytic form gives.

The LAMMPS check needs Debian's `lmp` (installed by `make test`); it is skipped, saying so, when `lmp` is absent.
"""

import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import relative
from hybridperf.potentials import forms, params, sums

HYBRIDPERF = [sys.executable, "-m", "hybridperf"]
LMP = shutil.which("lmp")
CU3AU = 3.751  # Angstrom, the measured lattice constant of ordered (L1_2) Cu3Au


def cli(*args, cwd=None):
    return subprocess.run([*HYBRIDPERF, *map(str, args)], capture_output=True, text=True, cwd=cwd)


def written(tmp_path_factory, form: str, elements: str, name: str) -> Path:
    """A potential file written by the command a user runs."""
    path = tmp_path_factory.mktemp("potential") / name
    out = cli("potential", "write", form, "--elements", elements, "--out", path)
    assert out.returncode == 0, out.stderr
    return path


@pytest.fixture(scope="module")
def cuau(tmp_path_factory) -> Path:
    """The Cu-Au Gupta file."""
    return written(tmp_path_factory, "gupta", "Cu,Au", "CuAu.eam.fs")


def lammps_energy(tmp_path: Path, potential: Path, masses: dict[str, float], positions: np.ndarray,
                  types: np.ndarray, box: float) -> float:
    """LAMMPS's potential energy (eam/fs on `potential`) of atoms of the elements of `masses`, in a cubic box."""
    atoms = "\n".join(f"{k + 1} {t + 1} {float(x)!r} {float(y)!r} {float(z)!r}"
                      for k, (t, (x, y, z)) in enumerate(zip(types, positions)))
    mass_lines = "\n".join(f"{k + 1} {m!r}" for k, m in enumerate(masses.values()))
    (tmp_path / "system.data").write_text(f"system\n\n{len(types)} atoms\n{len(masses)} atom types\n\n"
                                          f"0 {box!r} xlo xhi\n0 {box!r} ylo yhi\n0 {box!r} zlo zhi\n\n"
                                          f"Masses\n\n{mass_lines}\n\nAtoms # atomic\n\n{atoms}\n")
    (tmp_path / "in.system").write_text(f"units metal\natom_style atomic\nread_data system.data\npair_style eam/fs\n"
                                        f"pair_coeff * * {potential} {' '.join(masses)}\nrun 0\n"
                                        "print \"PE $(pe:%.17g)\"\n")
    out = subprocess.run([LMP, "-in", "in.system", "-log", "none"], capture_output=True, text=True, cwd=tmp_path,
                         check=True).stdout
    return float(next(line for line in out.splitlines() if line.startswith("PE ")).split()[1])


@pytest.fixture(scope="module")
def model() -> forms.Gupta:
    p = params.load("gupta")
    return params.gupta(p, ["Cu", "Au"], p.shells)


def read_setfl(path: Path) -> dict:
    """The file as LAMMPS reads it: three comment lines, two header lines, then a stream of numbers."""
    lines = path.read_text().splitlines()
    names = lines[3].split()[1:]
    assert int(lines[3].split()[0]) == len(names)
    nrho, drho, nr, dr, cutoff = lines[4].split()
    nrho, nr = int(nrho), int(nr)
    words = " ".join(lines[5:]).split()
    setfl = {"comments": lines[:3], "names": names, "nrho": nrho, "drho": float(drho), "nr": nr, "dr": float(dr),
             "cutoff": float(cutoff), "element": [], "F": [], "rho": {}, "rphi": {}}
    at = 0
    for a in range(len(names)):
        setfl["element"].append(words[at:at + 4])
        at += 4
        setfl["F"].append(np.array(words[at:at + nrho], dtype=float))
        at += nrho
        for b in range(len(names)):
            setfl["rho"][(a, b)] = np.array(words[at:at + nr], dtype=float)
            at += nr
    for a in range(len(names)):
        for b in range(a + 1):
            setfl["rphi"][(a, b)] = np.array(words[at:at + nr], dtype=float)
            at += nr
    assert at == len(words)
    return setfl


def l12(a: float, cells: int) -> tuple[np.ndarray, np.ndarray]:
    """Cu3Au, L1_2: fcc with the cube corners Au (element 1) and the face centres Cu (element 0)."""
    offsets = np.array([(i, j, k) for i in range(cells) for j in range(cells) for k in range(cells)]) * a
    positions = (sums.fcc_cell(a)[None, :, :] + offsets[:, None, :]).reshape(-1, 3)
    return positions, np.tile([1, 0, 0, 0], cells**3)


def assert_starts_at_the_direct_sum(run, atoms: int, energy_per_atom: float) -> None:
    """hybridperf-md ran on these atoms, its first energy is the direct sum's, and it conserved energy."""
    assert run.returncode == 0, run.stderr
    assert run.profile["md"]["atoms"] == atoms
    assert relative(run.thermo(0)["pe"], energy_per_atom) < 1e-9
    assert run.profile["checks"]["energy_drift"]["pass"]


@pytest.mark.xdist_group("test_potentials.cuau")  # cuau is made once, on one worker
@pytest.mark.kernel
def test_the_file_reads_back_as_the_analytic_functions(cuau, model):
    f = read_setfl(cuau)
    assert f["names"] == ["Cu", "Au"]
    assert f["element"] == [["29", "63.546", "3.615", "fcc"], ["79", "196.96657", "4.079", "fcc"]]
    assert f["nr"] == f["nrho"] == 10_000 and f["cutoff"] == pytest.approx(math.sqrt(6) * 4.079 / math.sqrt(2))
    assert f["nr"] * f["dr"] >= f["cutoff"] and (f["nr"] - 1) * f["dr"] == pytest.approx(f["cutoff"], rel=1e-15)
    assert f["nrho"] * f["drho"] > 2.9 * sums.densities(model, sums.fcc_cell(4.079), np.ones(4, int), 4.079)[0]
    r, rho = np.arange(f["nr"]) * f["dr"], np.arange(f["nrho"]) * f["drho"]
    for a in range(2):
        np.testing.assert_allclose(f["F"][a], -np.sqrt(rho), rtol=1e-15, atol=0)
        for b in range(2):
            np.testing.assert_allclose(f["rho"][(a, b)], model.density(a, b, r), rtol=1e-15, atol=0)
        for b in range(a + 1):
            np.testing.assert_allclose(f["rphi"][(a, b)], r * model.pair(a, b, r), rtol=1e-15, atol=0)
    for table in [*f["rho"].values(), *f["rphi"].values()]:
        assert table[-1] == 0.0  # the last point is the cutoff, where every tail has ended
    assert "Cu-Au: mixed, not published" in f["comments"][1] and "Cleri" in f["comments"][1]


def test_the_tail_is_lammps_smatb_quintic_and_joins_smoothly():
    A, p, r0, start, end = 0.2061, 10.229, 2.8842885605, 6.45, 7.07
    es = end - start  # LAMMPS's closed form, pair_smatb.cpp init_one
    expp = A * math.exp(p * (1.0 - start / r0))
    ap, bp, cp = -1.0 / es**3, p / (r0 * es**2), -(p * p) / (es * r0 * r0)
    lammps = [expp * (20 * ap + 8 * bp + cp) / 2, expp * (15 * ap + 7 * bp + cp) / es,
              expp * (12 * ap + 6 * bp + cp) / (2 * es**2)]
    np.testing.assert_allclose(forms.tail_coefficients(A, p, r0, start, end), lammps, rtol=1e-12)
    h = 1e-5
    for joint in (start, end):
        below = forms.smooth_exponential(joint - np.array([0.0, h, 2 * h]) - 1e-12, A, p, r0, start, end)
        above = forms.smooth_exponential(joint + np.array([0.0, h, 2 * h]) + 1e-12, A, p, r0, start, end)
        slope_below, slope_above = (below[0] - below[1]) / h, (above[1] - above[0]) / h
        curve_below = (below[0] - 2 * below[1] + below[2]) / h**2
        curve_above = (above[2] - 2 * above[1] + above[0]) / h**2
        assert above[0] == pytest.approx(below[0], rel=1e-9, abs=1e-15)
        assert slope_above == pytest.approx(slope_below, rel=1e-3, abs=1e-9)
        assert curve_above == pytest.approx(curve_below, rel=1e-2, abs=1e-6)
    assert forms.smooth_exponential(np.array([end, end + 1.0]), A, p, r0, start, end).tolist() == [0.0, 0.0]


@pytest.mark.parametrize("element,a,cohesive", [(0, 3.615, -3.544), (1, 4.079, -3.779)])
def test_pure_metals_have_the_cohesive_energies_the_parameters_were_fitted_to(model, element, a, cohesive):
    """Cleri & Rosato 1993's fitted cohesive energies of Cu and Au, at their lattice constants."""
    per_atom = sums.energy(model, sums.fcc_cell(a), np.full(4, element), a) / 4
    assert relative(per_atom, cohesive) < 1e-3


def test_the_parameter_file_is_what_it_says():
    p = params.load("gupta")
    for name, element in p.elements.items():
        assert p.pairs[frozenset([name])].values["r0"] == pytest.approx(element.lattice_constant / math.sqrt(2),
                                                                        rel=1e-9)
    cu, au, mixed = (p.pairs[frozenset(k)] for k in (["Cu"], ["Au"], ["Cu", "Au"]))
    assert mixed.source.startswith("mixed, not published")
    for key in ("p", "q", "r0"):
        assert mixed.values[key] == pytest.approx((cu.values[key] + au.values[key]) / 2, rel=1e-9)
    for key in ("A", "xi"):
        assert mixed.values[key] == pytest.approx(math.sqrt(cu.values[key] * au.values[key]), rel=1e-9)


@pytest.mark.parametrize("change,message", [
    (("shells: 5", "shells: 0"), "shells: expected a positive whole number, got 0"),
    (("    xi: 1.224", "    xi: -1.224"), "pairs.Cu-Cu.xi: expected a positive number, got -1.224"),
    (("  Cu-Au:", "  Cu-Ag:"), "pairs.Cu-Ag: expected 'A-B' of two of the elements Cu, Au"),
    (("    lattice: fcc", "    lattice: bcc"), "elements.Cu: lattice 'bcc': only fcc is tabulated"),
    (("citation: ", "citations: "), "missing citation"),
], ids=["shells", "negative", "unknown-pair", "bcc", "missing"])
def test_a_broken_parameter_file_is_refused_naming_the_key(change, message):
    text = (params.DATA / params.FORMS["gupta"]).read_text()
    assert change[0] in text
    with pytest.raises(params.PotentialError, match=message):
        params.parse(text.replace(*change, 1), "gupta.yaml")


def test_cu3au_is_bound(model):
    positions, types = l12(CU3AU, 1)
    per_atom = sums.energy(model, positions, types, CU3AU) / 4
    assert math.isfinite(per_atom) and -3.8 < per_atom < -3.5


@pytest.mark.xdist_group("test_potentials.cuau")  # cuau is made once, on one worker
@pytest.mark.kernel
def test_hybridperf_md_runs_the_file(run_md, cuau, model):
    run = run_md(1, 1, ["--potential", "eam/fs", "--potential-file", cuau, "--elements", "Cu,Au", "--lattice", "l12",
                        "--lattice-constant", CU3AU, "-s", 3, "--steps", 20])
    positions, types = l12(CU3AU, 1)
    assert_starts_at_the_direct_sum(run, 108, sums.energy(model, positions, types, CU3AU) / 4)


@pytest.mark.xdist_group("test_potentials.cuau")  # cuau is made once, on one worker
@pytest.mark.external
@pytest.mark.skipif(LMP is None, reason="LAMMPS (lmp) not installed: apt-get install lammps")
def test_lammps_gives_the_energy_of_the_direct_sum(cuau, model, tmp_path):
    """A thermally disordered Cu3Au cell, so that pairs fall all along the tables and into the tails."""
    cells, box = 3, 3 * CU3AU
    positions, types = l12(CU3AU, cells)
    positions = (positions + np.random.default_rng(7).normal(0.0, 0.08, positions.shape)) % box
    theirs = lammps_energy(tmp_path, cuau, {"Cu": 63.546, "Au": 196.96657}, positions, types, box)
    assert relative(theirs, sums.energy(model, positions, types, box)) < 1e-6


@pytest.mark.kernel
def test_list_and_help_name_the_form():
    shown = cli("potential", "list")
    assert shown.returncode == 0 and "gupta" in shown.stdout and "Cleri" in shown.stdout
    helped = cli("potential", "write", "--help")
    assert helped.returncode == 0 and "--elements" in helped.stdout and "--shells" in helped.stdout


@pytest.mark.kernel
@pytest.mark.parametrize("args,message", [
    (["gupta", "--elements", "Cu,Fe"], "has no parameters for 'Fe'; it has Cu, Au"),
    (["morse", "--elements", "Fe"], "unknown form 'morse': the forms are gupta, dai-fs"),
    (["gupta", "--elements", "Cu,Cu"], "--elements names Cu twice"),
], ids=["unknown-element", "unknown-form", "twice"])
def test_bad_requests_are_one_line_and_exit_2(tmp_path, args, message):
    out = cli("potential", "write", *args, "--out", tmp_path / "x.eam.fs")
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and message in out.stderr, out.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.kernel
def test_an_unwritable_path_is_one_line_and_exit_2(tmp_path):
    blocker = tmp_path / "a-file"  # missing folders are made; a file where one should be is not
    blocker.write_text("")
    out = cli("potential", "write", "gupta", "--elements", "Cu", "--out", blocker / "x.eam.fs")
    assert out.returncode == 2 and out.stderr.startswith("hybridperf: error: cannot write") and \
        out.stderr.count("\n") == 1, out.stderr
