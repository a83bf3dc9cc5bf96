#!/usr/bin/env python3
"""Writes the golden references of the LJ physics (tests/golden/lj-*.yaml) from LAMMPS, as LAMMPS's own
unittest YAML files keep reference forces and energies: the initial per-atom forces and the thermodynamics
after 100 steps of LAMMPS run from the committed data file `lj.data`. tests/test_md_golden.py checks
hybridperf-md against them, so the physics is checked where no LAMMPS is installed.

    .venv/bin/python tests/golden/make_golden.py        # needs lmp (apt-get install lammps)

Run again only when the reference itself should change (a new data file, a new LAMMPS); say why in the
commit. The data file is hybridperf-md's fcc start (-s 4, 256 atoms, T 1.44) after 50 steps (`-s 4 --steps 50
--write-data`), so that atoms are off their lattice sites and feel forces.
"""

from __future__ import annotations

import datetime
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
STYLES = {"lj/cut": "lj/cut", "lj/sf": "lj/smooth/linear"}
STEPS = 100

INPUT = """units lj
atom_style atomic
read_data {data}
pair_style {style} 2.5
pair_coeff 1 1 1.0 1.0 2.5
neighbor 0.3 bin
neigh_modify delay 0 every 20 check no
fix 1 all nve
thermo {steps}
thermo_style custom step temp pe ke etotal press
thermo_modify norm yes format float %.17g
dump forces all custom {steps} forces.dump id fx fy fz
dump_modify forces sort id format float %.17g
run {steps}
"""


def thermo(log: str) -> dict[int, dict[str, float]]:
    lines = log.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:2] == ["Step", "Temp"]) + 1
    rows = {}
    for line in lines[start:]:
        fields = line.split()
        if not fields or not fields[0].isdigit():
            break
        step, *values = fields
        rows[int(step)] = dict(zip(("temp", "pe", "ke", "etotal", "press"), map(float, values)))
    return rows


def initial_forces(dump: str) -> str:
    """The first frame's `id fx fy fz` lines."""
    frame = dump.split("ITEM: TIMESTEP")[1]
    return frame.split("ITEM: ATOMS id fx fy fz\n")[1].strip() + "\n"


def _block(dumper: yaml.SafeDumper, text: str) -> yaml.Node:
    """Multi-line strings (the forces) as YAML literal blocks, one atom a line, as LAMMPS's unittest files."""
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style="|" if "\n" in text else None)


def main() -> None:
    yaml.SafeDumper.add_representer(str, _block)
    lmp = shutil.which("lmp")
    if lmp is None:
        sys.exit("make_golden: lmp not found (apt-get install lammps)")
    version = re.search(r"Massively Parallel Simulator - (.+)", subprocess.run([lmp, "-h"], capture_output=True,
                                                                                  text=True).stdout)[1].strip()
    for potential, style in STYLES.items():
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "in.lj").write_text(INPUT.format(data=HERE / "lj.data", style=style, steps=STEPS))
            log = subprocess.run([lmp, "-in", "in.lj", "-log", "none", "-nocite"], capture_output=True, text=True,
                                 check=True, cwd=tmp).stdout
            forces = initial_forces((Path(tmp) / "forces.dump").read_text())
        golden = {"lammps_version": version, "date_generated": datetime.date.today().isoformat(),
                  "data_file": "lj.data", "pair_style": f"{style} 2.5", "pair_coeff": "1 1 1.0 1.0 2.5",
                  "neighbor": "0.3 bin, rebuilt every 20 steps", "steps": STEPS, "thermo": thermo(log),
                  "init_forces": forces}
        path = HERE / f"lj-{potential.split('/')[1]}.yaml"
        header = f"# Golden reference for hybridperf-md --potential {potential}, written by tests/golden/make_golden.py\n"
        path.write_text(header + yaml.safe_dump(golden, sort_keys=False, width=120))
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
