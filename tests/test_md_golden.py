"""The LJ physics against committed LAMMPS references (tests/golden/, written by make_golden.py), so that it is
checked on every machine, LAMMPS installed or not: per-atom forces of the initial state (hybridperf-md
--dump-forces, LAMMPS's dump format) and the thermodynamics after 100 steps, on one rank and on two."""

import pytest
import yaml

from conftest import relative

from pathlib import Path

pytestmark = pytest.mark.kernel

GOLDEN = Path(__file__).parent / "golden"


def forces(text: str) -> dict[int, tuple[float, float, float]]:
    rows = text.split("ITEM: ATOMS id fx fy fz\n")[-1].strip().splitlines()
    return {int(r.split()[0]): tuple(map(float, r.split()[1:])) for r in rows}


@pytest.mark.parametrize("potential", ["lj/cut", "lj/sf"])
@pytest.mark.parametrize("ranks", [1, 2])
def test_forces_and_thermo_match_the_lammps_reference(run_md, tmp_path, potential, ranks):
    golden = yaml.safe_load((GOLDEN / f"lj-{potential.split('/')[1]}.yaml").read_text())
    dump = tmp_path / "forces.dump"
    run = run_md(ranks, 1, ["--read-data", GOLDEN / golden["data_file"], "--potential", potential,
                            "--steps", golden["steps"], "--thermo", golden["steps"], "--dump-forces", dump])
    assert run.returncode == 0, run.stderr
    ours, theirs = forces(dump.read_text()), forces(golden["init_forces"])
    assert ours.keys() == theirs.keys() and len(ours) == 256
    scale = max(abs(c) for f in theirs.values() for c in f)  # components near zero are judged on the largest
    for atom, reference in theirs.items():
        for mine, ref in zip(ours[atom], reference):
            assert abs(mine - ref) <= 1e-8 * scale, (atom, mine, ref)
    for row in run.profile["md"]["thermo"]:
        ref = golden["thermo"][row["step"]]
        for key in ("temp", "pe", "ke", "etotal", "press"):
            assert relative(row[key], ref[key]) < 1e-8, (potential, row["step"], key, row[key], ref[key])
