"""LAMMPS data files: round trip, restart equivalence, and clear errors for what is not supported."""

import pytest

from conftest import relative

pytestmark = pytest.mark.kernel

GOOD_HEADER = """LAMMPS data file

2 atoms
1 atom types

0 4 xlo xhi
0 4 ylo yhi
0 4 zlo zhi

Masses

1 1

Atoms # atomic

1 1 1.0 1.0 1.0 0 0 0
2 1 2.2 1.0 1.0 0 0 0
"""


def test_run_from_written_state_equals_run_from_lattice(run_md, tmp_path):
    data = tmp_path / "state.data"
    assert run_md(1, 1, ["-s", 7, "--steps", 0, "--write-data", data]).returncode == 0
    from_lattice = run_md(2, 1, ["-s", 7, "--steps", 100])
    from_file = run_md(2, 1, ["--read-data", data, "--steps", 100])
    assert from_file.returncode == 0, from_file.stderr
    assert from_file.profile["md"]["atoms"] == 4 * 7**3
    for key in ("pe", "etotal", "press"):
        assert relative(from_file.thermo()[key], from_lattice.thermo()[key]) < 1e-12


def test_write_read_write_is_a_fixed_point(run_md, tmp_path):
    first, second = tmp_path / "a.data", tmp_path / "b.data"
    assert run_md(1, 1, ["-s", 6, "--steps", 20, "--write-data", first]).returncode == 0
    assert run_md(2, 1, ["--read-data", first, "--steps", 0, "--write-data", second]).returncode == 0
    strip = lambda text: text.split("\n", 1)[1]  # the title line names the step
    assert strip(first.read_text()) == strip(second.read_text())


def test_file_without_velocities_gets_generated_ones(run_md, tmp_path):
    data = tmp_path / "box.data"
    data.write_text(GOOD_HEADER.replace("0 4 xlo", "0 8 xlo").replace("0 4 ylo", "0 8 ylo").replace("0 4 zlo", "0 8 zlo"))
    run = run_md(1, 1, ["--read-data", data, "--steps", 0, "--temp", 2.0])
    assert run.returncode == 0, run.stderr
    assert run.thermo(0)["temp"] == pytest.approx(2.0, rel=1e-12)
