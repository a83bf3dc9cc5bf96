"""The many-body potentials of hybridperf-md (eam/fs, tersoff): the same numbers as LAMMPS from the same files, the
same numbers on any split into ranks and threads, DL_POLY's extra exchanges counted exactly, and bad input refused.

LAMMPS's own potential files (Debian's `lammps` package, installed by `make test`) are used unchanged; the tests
that need them or `lmp` are skipped, saying so, when they are absent.
"""

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import cpu_has_avx512, lammps_run, relative
from golden.make_golden import thermo

LMP = shutil.which("lmp")
POTENTIALS = Path("/usr/share/lammps/potentials")
FE = POTENTIALS / "Fe_mm.eam.fs"  # Mendelev et al. 2003, one element
ALFE = POTENTIALS / "AlFe_mm.eam.fs"  # Mendelev et al. 2005, two elements
SIC = POTENTIALS / "SiC.tersoff"  # Tersoff 1989, as DL_POLY's Test 10
needs_files = pytest.mark.skipif(not ALFE.exists(), reason=f"LAMMPS potential files not in {POTENTIALS}: "
                                 "apt-get install lammps")
needs_lammps = pytest.mark.skipif(LMP is None, reason="LAMMPS (lmp) not installed: apt-get install lammps")

SYSTEMS = {  # name: (pair style, potential file, --elements, lattice options: boxes wide enough for 2 ranks)
    "Fe": ("eam/fs", FE, "Fe", ["-s", 6]),
    "Al3Fe": ("eam/fs", ALFE, "Al,Fe", ["--lattice", "l12", "--lattice-constant", "3.75", "-s", 4]),
    "SiC": ("tersoff", SIC, "Si,C", ["--lattice", "zincblende", "--lattice-constant", "4.36", "-s", 3]),
}
KEYS = ("temp", "pe", "ke", "etotal", "press")


def potential(system: str) -> list:
    style, path, elements, _ = SYSTEMS[system]
    return ["--potential", style, "--potential-file", path, "--elements", elements]


@pytest.fixture
def start(run_md, tmp_path):
    """A thermalised state (50 steps from the lattice at 1200 K) as a LAMMPS data file, per system."""
    def make(system: str) -> Path:
        data = tmp_path / f"{system}.data"
        run = run_md(1, 1, [*potential(system), *SYSTEMS[system][3], "--temp", 1200, "--steps", 50,
                            "--thermo", 50, "--write-data", data])
        assert run.returncode == 0, run.stderr
        return data
    return make


def lammps(system: str, data: Path, steps: int, workdir: Path) -> tuple[dict, str]:
    style, path, elements, _ = SYSTEMS[system]
    out = lammps_run(LMP, f"""units metal
atom_style atomic
read_data {data}
pair_style {style}
pair_coeff * * {path} {elements.replace(",", " ")}
neighbor 1.0 bin
neigh_modify delay 0 every 20 check no
fix 1 all nve
timestep 0.001
dump d all custom {steps + 1} lammps.dump id fx fy fz
dump_modify d format float %.17g sort id
thermo 50
""", steps, workdir, system)
    return thermo(out), (workdir / "lammps.dump").read_text()


def forces(text: str) -> dict[int, tuple[float, ...]]:
    rows = text.split("ITEM: ATOMS id fx fy fz\n")[-1].strip().splitlines()
    return {int(r.split()[0]): tuple(map(float, r.split()[1:])) for r in rows}


@pytest.mark.external
@needs_files
@needs_lammps
@pytest.mark.parametrize("system", SYSTEMS)
def test_thermo_and_forces_match_lammps_from_the_same_files(run_md, start, tmp_path, system):
    data = start(system)
    dump = tmp_path / "ours.dump"
    ours = run_md(2, 1, [*potential(system), "--read-data", data, "--steps", 100, "--thermo", 50, "--dump-forces", dump])
    assert ours.returncode == 0, ours.stderr
    theirs, their_dump = lammps(system, data, 100, tmp_path)
    assert sorted(theirs) == [0, 50, 100]
    for row in ours.profile["md"]["thermo"]:
        for key in KEYS:
            assert relative(row[key], theirs[row["step"]][key]) < 1e-8, (system, row["step"], key)
    mine, reference = forces(dump.read_text()), forces(their_dump)
    assert mine.keys() == reference.keys() and len(mine) in (216, 256, 432)
    scale = max(abs(c) for f in reference.values() for c in f)
    assert max(abs(a - b) for atom in reference for a, b in zip(mine[atom], reference[atom])) <= 1e-8 * scale


@pytest.mark.kernel
@needs_files
@pytest.mark.parametrize("system", SYSTEMS)
def test_the_same_run_on_any_split_into_ranks_and_threads(run_md, start, system):
    data = start(system)
    runs = {(r, t): run_md(r, t, [*potential(system), "--read-data", data, "--steps", 40, "--neigh-every", 10])
            for r, t in [(1, 1), (2, 1), (1, 2), (2, 2)]}
    reference = runs[(1, 1)]
    for split, run in runs.items():
        assert run.returncode == 0, (split, run.stderr)
        assert len(run.profile["md"]["thermo"]) == 41  # --thermo 1 by default in metal units, as DL_POLY sums
        for row, ref in zip(run.profile["md"]["thermo"], reference.profile["md"]["thermo"]):
            for key in KEYS:
                assert relative(row[key], ref[key]) <= 1e-10, (split, row["step"], key)
    checks = reference.profile["checks"]
    assert checks["energy_drift"]["pass"] and checks["energy_drift"]["value"] < 1e-5


@needs_files
@pytest.mark.parametrize("system", ["Fe", "Al3Fe"])
def test_eam_pair_kernels_agree(run_md, start, system):
    """The AVX-512 and plain C density and force loops compute the same trajectory (to rounding), threads adding
    into private copies included."""
    if not cpu_has_avx512():
        pytest.skip("this CPU has no AVX-512")
    data = start(system)
    args = [*potential(system), "--read-data", data, "--steps", 40, "--neigh-every", 10]
    plain, simd = (run_md(2, 2, [*args, "--pair-kernel", kernel]) for kernel in ("plain", "avx512"))
    assert plain.returncode == 0 and simd.returncode == 0, plain.stderr + simd.stderr
    for row, ref in zip(simd.profile["md"]["thermo"], plain.profile["md"]["thermo"]):
        for key in KEYS:
            assert relative(row[key], ref[key]) <= 1e-10, (row["step"], key)


@pytest.mark.kernel
@needs_files
def test_density_exchange_is_a_second_halo_exchange_counted_exactly(run_md):
    """No rebuild inside the loop (--neigh-every beyond --steps): every step sends 6 position messages (3 doubles per
    ghost), 6 partial densities home (1 double per ghost), 6 F'(rho) messages out (1 double per ghost) and 6 forces
    home (3 doubles per ghost); each rank receives each of its ghosts once per exchange. The density region is
    entered twice a step (the pass, then F(rho) once the ghosts' shares are home), as its exchange is."""
    steps = 10
    run = run_md(2, 2, [*potential("Fe"), "-s", 6, "--steps", steps, "--neigh-every", 100])
    assert run.returncode == 0, run.stderr
    p2p = run.profile["comm"]["p2p"]
    ghosts = sum(sum(rank) for rank in run.profile["md"]["halo"]["atoms_per_message"])
    assert p2p["calls"] == 2 * 6 * 4 * steps
    assert p2p["bytes"] == steps * ghosts * (3 + 1 + 1 + 3) * 8
    regions = run.profile["regions"]
    assert regions["density"]["calls"] == regions["density_exchange"]["calls"] == 2 * steps
    assert regions["force_reduction"]["calls"] == regions["force_exchange"]["calls"] == steps
    groups = run.profile["region_groups"]
    assert {"density", "force_reduction"} <= set(groups["computation"])
    assert {"density_exchange", "force_exchange"} <= set(groups["communication"])
    assert run.profile["md"]["units"] == "metal" and run.profile["md"]["masses"] == [55.845]


@pytest.mark.kernel
@needs_files
def test_tersoff_forces_of_ghosts_go_home_by_a_reverse_exchange_counted_exactly(run_md):
    """Per step: 6 position messages (3 doubles per ghost) and 6 force messages back (3 doubles per ghost); the
    threads' private force copies are summed in their own region."""
    steps = 10
    run = run_md(2, 2, [*potential("SiC"), "--lattice", "zincblende", "--lattice-constant", 4.36, "-s", 3,
                        "--steps", steps, "--neigh-every", 100])
    assert run.returncode == 0, run.stderr
    p2p = run.profile["comm"]["p2p"]
    ghosts = sum(sum(rank) for rank in run.profile["md"]["halo"]["atoms_per_message"])
    assert p2p["calls"] == 2 * 12 * steps
    assert p2p["bytes"] == steps * ghosts * (3 + 3) * 8
    assert run.profile["regions"]["force_reduction"]["calls"] == run.profile["regions"]["force_exchange"]["calls"]
    groups = run.profile["region_groups"]
    assert "force_reduction" in groups["computation"] and "force_exchange" in groups["communication"]
    assert run.profile["md"]["masses"] == [28.0855, 12.0107]  # standard atomic weights: .tersoff files carry none


@pytest.mark.kernel
@needs_files
def test_tersoff_energy_is_tersoffs_for_3c_sic(run_md):
    run = run_md(1, 1, [*potential("SiC"), "--lattice", "zincblende", "--lattice-constant", 4.32, "-s", 3,
                        "--steps", 0, "--temp", 0])
    assert run.returncode == 0, run.stderr
    assert run.thermo(0)["pe"] == pytest.approx(-6.16378, abs=1e-5)  # LAMMPS: SiC.tersoff, 3C at 4.32 A


@pytest.mark.kernel
@needs_files
@pytest.mark.parametrize("lattice,size,atoms", [("bcc", 5, 250), ("l12", 4, 256), ("zincblende", 3, 216),
                                               ("diamond", 3, 216)])
def test_lattices_have_the_seeds_shapes(run_md, lattice, size, atoms):
    system = "Fe" if lattice in ("bcc", "diamond") else "Al3Fe"
    run = run_md(1, 1, [*potential(system), "--lattice", lattice, "--lattice-constant", 4.0, "-s", size, "--steps", 0])
    assert run.returncode == 0, run.stderr
    assert run.profile["md"]["atoms"] == atoms


@pytest.mark.kernel
@needs_files
def test_lattice_and_its_constant_come_from_the_file_by_default(run_md):
    run = run_md(1, 1, [*potential("Fe"), "-s", 4, "--steps", 0])
    assert run.returncode == 0, run.stderr
    assert run.profile["md"]["atoms"] == 128  # bcc, as Fe_mm.eam.fs says
    assert run.profile["md"]["box"][0] == pytest.approx(4 * 2.855324)
    assert run.thermo(0)["pe"] == pytest.approx(-4.122435, abs=1e-6)  # LAMMPS's cohesive energy for this file


def setfl(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bad.eam.fs"
    path.write_text(text)
    return path


GOOD_HEAD = "c\nc\nc\n1 Fe\n10 0.1 10 0.6 5.0\n26 55.845 2.86 bcc\n"


@pytest.mark.kernel
@needs_files
@pytest.mark.parametrize("args,message", [
    (["--potential", "eam/fs", "--elements", "Fe"], "--potential eam/fs needs --potential-file"),
    (["--potential", "eam/fs", "--potential-file", FE], "needs --elements"),
    ([*potential("Fe")[:-1], "Cu"], "--elements: Cu is not in"),
    ([*potential("Al3Fe"), "--lattice", "l12"], "--lattice l12 needs --lattice-constant"),
    ([*potential("Fe"), "--cutoff", "4"], "the cutoff comes from the potential file"),
    ([*potential("Fe"), "--density", "0.8"], "--density is for lj"),
    ([*potential("Al3Fe")], "the lattice has 1 atom type but --elements names 2"),
    (["--potential-file", FE], "--potential-file and --elements are for the many-body potentials"),
    ([*potential("Fe")[:2], "--potential-file", "/nonexistent.eam.fs", "--elements", "Fe"],
     "cannot read potential file /nonexistent.eam.fs"),
    (["--potential", "tersoff", "--potential-file", SIC, "--elements", "Si,C"], "--potential tersoff needs --lattice"),
], ids=["no-file", "no-elements", "unknown-element", "no-constant", "cutoff", "density", "types", "lj-file",
        "missing-file", "tersoff-lattice"])
def test_bad_input_is_one_line_and_exit_2(md_binary, tmp_path, args, message):
    proc = subprocess.run([str(md_binary), *map(str, args)], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and message in proc.stderr, proc.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.kernel
@pytest.mark.parametrize("text,message", [
    ("c\nc\nc\n2 Fe\n", "line 4: expected 'N element1 ... elementN'"),
    ("c\nc\nc\n1 Fe\n10 0.1 10 0.6\n", "line 5: expected 'Nrho drho Nr dr cutoff'"),
    (GOOD_HEAD + "1 2 3 x 5\n", "line 7: 'x' is not a number (in F(rho) of Fe)"),
    (GOOD_HEAD + "1 2 3 4 5 6 7 8 9 10\n" + "1 2 3\n", "file ends after 3 of the 10 numbers of rho(r) of Fe for Fe"),
    ("c\nc\nc\n1 Fe\n10 0.1 10 0.6 5.0\n26 -1 2.86 bcc\n", "line 6: the element's mass must be positive"),
], ids=["element-count", "grids", "not-a-number", "truncated", "mass"])
def test_malformed_setfl_files_name_the_line(md_binary, tmp_path, text, message):
    path = setfl(tmp_path, text)
    proc = subprocess.run([str(md_binary), "--potential", "eam/fs", "--potential-file", str(path), "--elements", "Fe"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and message in proc.stderr, proc.stderr


@pytest.mark.kernel
@needs_files
def test_data_file_with_more_types_than_elements_is_refused(run_md, start, md_binary, tmp_path):
    data = start("Al3Fe")
    proc = subprocess.run([str(md_binary), *map(str, potential("Fe")), "--read-data", str(data)], capture_output=True,
                          text=True, cwd=tmp_path)
    assert proc.returncode == 2 and "the data file has 2 atom types but --elements names 1" in proc.stderr


TERSOFF_SI = "Si Si Si 3.0 1.0 0.0 100390 16.217 -0.59825 0.78734 1.1e-6 1.73222 471.18 2.85 0.15 2.4799 1830.8\n"


@pytest.mark.kernel
@pytest.mark.parametrize("text,elements,message", [
    ("# Si only\n" + TERSOFF_SI, "Si,C", "has no entry for Si Si C"),
    (TERSOFF_SI.replace("16.217", "16.2x7"), "Si", "line 1: '16.2x7' is not a number (field 8 of the entry)"),
    (TERSOFF_SI.replace("3.0 1.0", "2.0 1.0"), "Si", "line 1: illegal Tersoff parameters"),
    (TERSOFF_SI + TERSOFF_SI, "Si", "line 2: a second entry for these elements"),
    ("# comment\n" + TERSOFF_SI.replace(" 2.4799 1830.8", "\n2.4799"), "Si", "file ends inside an entry"),
], ids=["missing-triplet", "not-a-number", "illegal", "duplicate", "truncated"])
def test_malformed_tersoff_files_name_the_line(md_binary, tmp_path, text, elements, message):
    path = tmp_path / "bad.tersoff"
    path.write_text(text)
    proc = subprocess.run([str(md_binary), "--potential", "tersoff", "--potential-file", str(path), "--elements",
                           elements, "--lattice", "diamond", "--lattice-constant", "5.43"], capture_output=True,
                          text=True, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and message in proc.stderr, proc.stderr


@pytest.mark.kernel
@needs_files
def test_tersoff_needs_masses_from_the_data_file(run_md, start, md_binary, tmp_path):
    data = start("SiC")
    text = data.read_text()
    masses = text[text.index("Masses"):text.index("Atoms")]
    data.write_text(text.replace(masses, ""))
    proc = subprocess.run([str(md_binary), *map(str, potential("SiC")), "--read-data", str(data)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2 and "gives no mass for atom type 1 (Si)" in proc.stderr, proc.stderr
