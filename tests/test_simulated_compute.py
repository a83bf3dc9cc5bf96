"""The simulation's compute beside the closed form's, from one calibration: a calibration whose c x 1 runs ran other
steps than its serial run (`hybridperf run md --ranks 2`'s default 100 beside a study's 50) must price the node's
efficiency n(c) per step, or the simulated compute of c ranks is that of their run's length, not of the problem's
(issue 42: 2r x 1t simulated at 1.0 s where the closed form and the runs said 0.47 s)."""

import copy
import json
from pathlib import Path

import pytest

from hybridperf import cluster as clusters
from hybridperf.launch import kernels
from hybridperf.models import calibrate, split
from hybridperf.models.split import Split
from hybridperf.simulate import study
from hybridperf.simulate.compute import compute_seconds
from hybridperf.simulate.plan import parse

pytestmark = pytest.mark.kernel

FIXTURE = Path(__file__).parent / "fixtures" / "tiny-md" / "profiles"
SIZE, STEPS = 12, 20  # the fixture's larger problem: 6,912 atoms, 20 steps, 3 repeats of 1x1, 2x1 and 1x2
TOLERANCE = 0.15  # the replay counts ghosts in the lists and packing, n(2) from the 2x1 runs; the closed form neither


def _longer(profile: dict, factor: int) -> dict:
    """The same run `factor` times as long: every region's time, the loop time, the steps."""
    out = copy.deepcopy(profile)
    out["params"]["steps"] = out["md"]["steps_done"] = STEPS * factor
    for region in out["regions"].values():
        region["time"] = {k: v * factor if isinstance(v, float) else v for k, v in region["time"].items()}
    for figure in out["figures_of_merit"]:
        if figure["name"] == "loop_time":
            figure["value"] *= factor
    out["run"]["start_time"] = out["run"]["start_time"].replace("04:45", "05:45")  # run after the study
    return out


def test_simulated_compute_of_ranks_run_at_other_steps_agrees_with_the_closed_form():
    profiles = [json.loads(p.read_text()) for p in sorted(FIXTURE.glob("*.json"))]
    profiles = [p for p in profiles if p["params"]["size"] == SIZE]
    # the 2x1 runs at twice the serial run's steps, as `hybridperf run md --ranks 2` (100 steps) beside a study's 50
    profiles = [_longer(p, 2) if p["run"]["ranks"] == 2 else p for p in profiles]
    serials = sorted((p for p in profiles if p["run"]["ranks"] == p["run"]["threads_per_rank"] == 1),
                     key=lambda p: p["run"]["start_time"])
    serial = serials[-1]
    pair = Split(1, 2, 1)

    spec = clusters.load("stella")  # only its fork/join enters, which one thread per rank never pays
    model = study.costs_from(profiles, "md", spec, "the test's runs",
                             {"potential": serial["params"]["potential"], "thermo": serial["params"]["thermo"]})
    plan = parse(kernels.plan("md", ("-s", str(SIZE), "--potential", serial["params"]["potential"], "--thermo",
                                     str(serial["params"]["thermo"]), "--steps", str(STEPS)), pair.ranks, 1, 1))
    simulated = max(compute_seconds(plan, rank, model, pair) for rank in plan.ranks_plan)  # simulated_parts' compute

    machine = calibrate.this_machine(calibrate.calibration(None, None, []), 2, bandwidth_bound=False)
    problem = calibrate.problem_from(serial, SIZE, STEPS, 2, calibrate.serial_work(profiles, serial))
    closed = split.parts(machine, problem, pair)["compute"]
    assert simulated == pytest.approx(closed, rel=TOLERANCE), (simulated, closed)
    # each input is what its runs give: n(2) per step, the serial run's computation over 2 x the 2x1 runs'
    per_step = [calibrate.computation(p) / p["md"]["steps_done"] for p in profiles if p["run"]["ranks"] == 2]
    one = [calibrate.computation(p) / STEPS for p in serials]
    assert min(one) / (2 * max(per_step)) - 1e-9 <= model.node(2) <= max(one) / (2 * min(per_step)) + 1e-9
    assert 0.8 < model.node(2) <= 1.05

