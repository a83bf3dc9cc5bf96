"""DL_POLY's test 20 (256,000 Cu3Au atoms, Gupta; the DL_POLY paper's Table 1, seed-spec §B.5, §H.3.26) simulated
on the clusters it ran on, for `hybridperf simulate validate`: DL_POLY's step (simulate.dlpoly: its 46 allreduces
and 36 messages per rank and step) over hybridperf-md's decomposition of the same lattice.

Compute costs are a node measurement, not a figure of DL_POLY's experiment: each region's seconds per atom-step on
one core here (resources/data/dlpoly-test20-costs.yaml) times the outcome's assumed `core_ratio` (how much slower
the cluster's core was); threading losses and fork/join are the thesis's, as for md. Every DL_POLY step
relocates, rebuilds its halo and link cells and sums alike, so a window of WINDOW steps stands for the run: the
outcomes compare configurations at a core count, never absolute times. Pure but `Test20.plan`, which writes the
potential's table and asks the kernel for plans."""

from __future__ import annotations

import dataclasses
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from hybridperf import cluster
from hybridperf.launch import kernels
from hybridperf.models.published import DATA
from hybridperf.potentials import params, setfl
from hybridperf.simulate.dlpoly import dlpoly_plan
from hybridperf.simulate.md_costs import MdCosts
from hybridperf.simulate.plan import parse, Plan
from hybridperf.simulate.study import thesis_costs

COSTS = DATA / "dlpoly-test20-costs.yaml"
WINDOW = 5  # steps replayed
ELEMENTS = ("Cu", "Au")
# L1_2 Cu3Au at DL_POLY's 3.751 Angstrom (its test 20's CONFIG), with the Gupta table (gupta_table) to name
CU3AU = ("--potential", "eam/fs", "--elements", ",".join(ELEMENTS), "--lattice", "l12", "--lattice-constant", "3.751")
TEST20 = (*CU3AU, "-s", "40")  # 4 x 40^3 = 256,000 atoms


@cache
def measured() -> dict[str, Any]:
    """The data file: when and where the costs were measured, and each region's seconds per atom-step."""
    return yaml.safe_load(COSTS.read_text())


@dataclass(frozen=True)
class Test20:
    """The workload validate.Simulator replays for a DL_POLY outcome: test 20's step at the outcome's core ratio,
    its seconds per step."""

    core_ratio: float
    problem = "dlpoly-test20"  # what a plan depends on (plans are shared between core ratios)
    label = "DL_POLY test 20, "  # what progress lines name it by
    per_simulated_second = 1 / WINDOW

    def plan(self, ranks: int) -> Plan:
        """DL_POLY's WINDOW steps of test 20 on `ranks` ranks."""
        with tempfile.TemporaryDirectory(prefix="hybridperf-dlpoly-") as tmp:
            args = (*TEST20, "--potential-file", str(gupta_table(Path(tmp))), "--steps", str(WINDOW))
            return dlpoly_plan(parse(kernels.plan("md", args, ranks)))

    def costs(self, spec: cluster.ClusterSpec) -> MdCosts:
        """The thesis's md model on the description, with this machine's test-20 costs per atom-step times the
        cluster core's assumed slowdown."""
        here = measured()["seconds_per_atom_step"]
        return dataclasses.replace(thesis_costs(spec), **{k: float(v) * self.core_ratio for k, v in here.items()})


def gupta_table(directory: Path) -> Path:
    """The Gupta Cu-Au potential tabulated as `hybridperf potential write gupta --elements Cu,Au` writes it."""
    model, comments = params.build(params.load("gupta"), list(ELEMENTS), None)
    path = directory / "CuAu.gupta.eam.fs"
    path.write_text(setfl.render(model, comments))
    return path
