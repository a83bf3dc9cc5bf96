"""The one prediction engine (predict/): the verdict rule every answer uses, the one sensitivity routine on a
predictor whose answer is known, measured answers from a stored study's race, and one JSON shape."""

from dataclasses import dataclass
from pathlib import Path

import pytest

from hybridperf.models.split import Split
from hybridperf.predict import render, sensitivity
from hybridperf.analysis.contest import decide, Standing
from hybridperf.predict.answer import Input, Prediction, ranked_answer, Recommendation
from hybridperf.predict.measured import MeasuredPredictor


@pytest.mark.parametrize("low,high,verdict", [
    (1.01, 1.05, "wins"),  # the whole interval above 1 and not inside the band
    (1.001, 1.01, "tie"),  # above 1 but inside ±2%: by the declared band, a tie
    (0.99, 1.015, "tie"),  # wholly inside ±2%
    (0.99, 1.03, "undecided"),  # crosses 1 and leaves the band
    (None, None, "undecided"),  # unbounded
])
def test_every_answer_is_decided_by_the_contest_rule(low, high, verdict):
    """A prediction's answer and a race's are the same function of the runner-up's interval (analysis.contest)."""
    predictions = [Prediction(PURE, 1.0, 1.0, 1.0, {}), Prediction(HYBRID, 1.02, 1.0, 1.05, {})]
    answer = ranked_answer(1, predictions, 0.02, {HYBRID: (low or float("inf"), high or float("inf"))})
    assert answer.verdict == verdict == decide("a", [Standing("b", "", 1.02, low, high)], 0.02).outcome


PURE, HYBRID = Split(1, 2, 1), Split(1, 1, 2)
@dataclass(frozen=True)
class Toy:
    """Pure MPI takes 1 s; hybrid 1.2 s times the input 'threads' (so it wins once that falls below 1/1.2)."""

    cheap: bool
    method: str = "model"

    def inputs(self):
        return (Input("threads", "1", "assumed", True), Input("runs", "3", "measured", False, movable=False))

    def times(self, nodes, splits, moved=None):
        factor = moved[1] if moved and moved[0] == "threads" else 1.0
        return {s: 1.0 if s == PURE else 1.2 * factor for s in splits}

    def answer(self, nodes):
        t = self.times(nodes, [PURE, HYBRID])
        return ranked_answer(nodes, [Prediction(s, v, v, v, {}) for s, v in t.items()])

    def from_zero(self, name):
        return False


def test_a_cheap_predictor_gets_the_exact_factor_and_a_costly_one_the_probe():
    cheap = Toy(cheap=True)
    moves = sensitivity.moves(cheap, [cheap.answer(1)])
    assert set(moves) == {"threads"}  # a measured input is not moved
    move = moves["threads"][1]
    assert move.up is None and move.down == pytest.approx(1 / 1.2, rel=1e-6) and move.exact
    costly = Toy(cheap=False)
    probed = sensitivity.moves(costly, [costly.answer(1)])["threads"][1]
    assert probed.down == 0.5 and not probed.exact and probed.text() == "≤÷2"


def test_nothing_to_win_against_moves_nothing():
    lone = ranked_answer(1, [Prediction(PURE, 1.0, 1.0, 1.0, {})])
    assert sensitivity.moves(Toy(cheap=True), [lone])["threads"][1].text() == "–"


def test_a_stored_race_is_a_measured_answer(tiny_study):
    """tiny-md's race at 2 cores, size 12 (3 blocks): the answer is the race's own outcome, leader first, with the
    runner-up's lead and its interval as the race gives them, and every run counted."""
    from hybridperf.study.stored import stored

    found = stored(tiny_study, None)
    section = next(s for s in found.sections() if s.params["size"] == 12)
    verdict = max(section.verdicts, key=lambda v: v.scale)
    answer = MeasuredPredictor("tiny-md", section).answer(1)
    assert answer.verdict == verdict.outcome and answer.winner == Split(*verdict.shapes[verdict.winner])
    runner = verdict.race.runner_up
    assert answer.margin == pytest.approx(runner.ratio - 1)
    assert [p.runs for p in answer.predictions] == [3, 3]
    assert all(p.parts["point-to-point"] is not None for p in answer.predictions)
    assert answer.predictions[0].parts["threading"] is None  # the profiles do not split it from compute


def test_the_json_and_html_carry_every_answer():
    toy = Toy(cheap=True)
    answers = (toy.answer(1),)
    rec = Recommendation("model", "toy", "toy problem", "a toy", toy.inputs(), answers,
                         sensitivity.moves(toy, list(answers)))
    doc = render.as_json(rec)
    assert doc["answers"][0]["winner"] == "2r×1t" and doc["answers"][0]["verdict"] == "wins"
    assert doc["sensitivity"]["moves"][0]["moves"]["1"]["text"] == "÷1.2"
    page = render.html_page(rec)
    assert page.count("<table>") == 4 and "÷1.2" in page and "2r×1t" in page


def test_a_study_without_a_race_or_with_several_problems_is_refused():
    from hybridperf.analysis.sections import Section
    from hybridperf.predict.answer import Unanswerable
    from hybridperf.predict.question import measured_study

    with pytest.raises(Unanswerable, match="no race"):
        measured_study("s", [Section({"size": 8}, "cores", [], [], [])], None)
    two = [Section({"size": 8}, "cores", [], [], []), Section({"size": 12}, "cores", [], [], [])]
    with pytest.raises(Unanswerable, match="choose one with --size"):
        measured_study("s", two, None)
    with pytest.raises(Unanswerable, match="no problem of size 20"):
        measured_study("s", two, 20)


def test_a_calibration_made_elsewhere_prices_its_own_node():
    """--cluster this prices the node the calibration measured (its widest run), not the machine reading it."""
    from hybridperf.predict.question import Calibration

    def run(rpn, threads):
        return {"run": {"ranks_per_node": rpn, "threads_per_rank": threads}}

    assert Calibration([run(1, 1), run(1, 16), run(16, 1), run(2, 1)], [], []).node_cores() == 16
    assert Calibration([], [], []).node_cores() is None


def test_runs_are_counted_one_way_warm_ups_left_out(tiny_study):
    """The race, `recommend --by measured` and the report count the same runs: each counted run once (a 1-core run
    is both pure MPI's and hybrid-1's point), warm-ups and blocks run again not at all."""
    from hybridperf.study.stored import stored
    from hybridperf.store.db import Store

    found = stored(tiny_study, None)
    section = next(s for s in found.sections() if s.params["size"] == 12)
    with Store(tiny_study) as store:
        counted = [r for r in store.runs("tiny-md") if r["params"]["size"] == 12]
    assert len(counted) == len({r["run_key"] for p in section.points for r in p.runs})
    value = MeasuredPredictor("tiny-md", section).inputs()[0].value
    assert value.startswith(f"{len(counted)} counted runs of study tiny-md") and "warm-ups" in value


@pytest.mark.skipif(__import__("shutil").which("smpirun") is None, reason="SimGrid's smpirun is not installed")
def test_a_simulation_replays_the_calibrations_own_number_of_steps():
    """--by simulation with a calibration that ran 50 steps predicts 50 steps (20 replayed, scaled 2.5x), not the
    thesis's 500; without a calibration the thesis's problem and its 500."""
    from hybridperf.predict.simulated import simulation_of

    serial = {"kernel": "md", "run": {"ranks": 1, "threads_per_rank": 1},
              "params": {"size": 8, "steps": 50, "potential": "lj/cut", "thermo": 50}}
    calibrated = simulation_of("stella", "md", None, None, [serial], 20)
    assert (calibrated.steps, calibrated.window, calibrated.scale) == (50, 20, 2.5)
    assert simulation_of("stella", "md", None, None, [], 20).steps == 500
    assert simulation_of("stella", "md", None, 40, [serial], 20).steps == 40  # --steps still says


@pytest.mark.parametrize("assumed, source, shown", [
    (True, "", "assumed"), (True, "borrowed: Merlin's", "assumed: borrowed: Merlin's"),
    (True, "assumed: a 2010s core", "assumed: a 2010s core"), (False, "measured", "measured"), (False, "", "–"),
])
def test_an_inputs_source_says_assumed_once_and_never_bare(assumed, source, shown):
    assert render.source_text(Input("x", "1", source, assumed)) == shown


@pytest.mark.skipif(__import__("shutil").which("smpirun") is None, reason="SimGrid's smpirun is not installed")
def test_this_machines_own_costs_are_not_borrowed_on_its_own_description(tmp_path, monkeypatch):
    """--cluster this-machine is this machine, described by `cluster measure`: the calibration's costs are its own,
    not 'borrowed: this machine's'; on a shipped cluster they are borrowed."""
    import shutil as files

    from hybridperf import cluster
    from hybridperf.predict.simulated import simulation_of

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    described = cluster.user_dir() / f"{cluster.THIS_MACHINE}.yaml"
    described.parent.mkdir(parents=True)
    files.copy(Path(cluster.__file__).parent / "resources" / "clusters" / "stella.yaml", described)
    serial = {"kernel": "md", "run": {"ranks": 1, "threads_per_rank": 1},
              "params": {"size": 8, "steps": 50, "potential": "lj/cut", "thermo": 50}}
    assert simulation_of(cluster.THIS_MACHINE, "md", None, None, [serial], 20).borrowed is None
    assert simulation_of("stella", "md", None, None, [serial], 20).borrowed == "this machine's"


@pytest.mark.skipif(__import__("shutil").which("smpirun") is None, reason="SimGrid's smpirun is not installed")
def test_a_simulation_of_a_size_the_calibration_ran_takes_that_sizes_one_core_run():
    from hybridperf.predict.simulated import simulation_of

    def serial(size, steps, start):
        return {"kernel": "md", "run": {"ranks": 1, "threads_per_rank": 1, "start_time": start},
                "params": {"size": size, "steps": steps, "potential": "lj/cut", "thermo": 50}}

    profiles = [serial(20, 50, "1"), serial(32, 25, "2")]  # the size 32 run the later, as the demo stores them
    assert simulation_of("stella", "md", 20, None, profiles, 20).one_core["params"]["size"] == 20
    assert simulation_of("stella", "md", 20, None, profiles, 20).steps == 50
    assert simulation_of("stella", "md", None, None, profiles, 20).one_core["params"]["size"] == 32  # the latest


def test_a_calibration_reads_measured_profiles_only(tmp_path):
    """A replay stored beside the runs (simulate --cores 8 writes its profiles there too) is not a run of this
    machine: an 8-rank replay does not make it an 8-core node, nor a replayed 1 x 1 its serial run."""
    import json

    from hybridperf.predict.holdings import calibration_of

    def profile(ranks, simulated, start):
        run = {"ranks": ranks, "ranks_per_node": ranks, "threads_per_rank": 1, "nodes": 1, "start_time": start}
        return {"kernel": "md", "status": "ok", "run": run, "params": {"size": 8},
                **({"simulated": {"cluster": "merlin"}} if simulated else {})}

    (tmp_path / "profiles").mkdir()
    for name, doc in {"a": profile(2, False, "1"), "b": profile(8, True, "2"), "c": profile(1, True, "3")}.items():
        (tmp_path / "profiles" / f"{name}.json").write_text(json.dumps(doc))
    cal = calibration_of(tmp_path)
    assert cal.node_cores() == 2 and cal.serial("md") is None
