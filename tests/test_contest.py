"""One contest core (analysis.contest): the rule that turns candidates' intervals into wins, tie or undecided, and the
proof that every way of asking goes through it — the same times fed to a simulated study (exact replays), to
`recommend --by simulation` and to `compare` (a sampled race) give the same word."""

from dataclasses import replace

import pytest

from hybridperf import cluster
from hybridperf.analysis.contest import decide, exact, preferred, Standing
from hybridperf.predict import simulated
from hybridperf.predict.answer import name
from hybridperf.simulate import recommend
from hybridperf.store.db import RunRecord, Store
from hybridperf.study import adhoc, spec as specs
from hybridperf.study.run import run_study, Silent


def standing(low, high, state="", candidate="b"):
    return Standing(candidate, state, (low + high) / 2 if low and high else 1.0, low, high)


@pytest.mark.parametrize("low, high, outcome", [
    (1.03, 1.08, "wins"),  # wholly above 1 and not inside ±2%
    (1.005, 1.015, "tie"),  # above 1 but inside the band: by the declared band, a tie
    (0.99, 1.01, "tie"),
    (0.99, 1.05, "undecided"),
    (None, None, "undecided"),  # unbounded
])
def test_one_rule_decides_from_the_runner_ups_interval(low, high, outcome):
    assert decide("a", [standing(low, high)], 0.02).outcome == outcome
    assert decide("a", [standing(low, high)], 0.02, running=True).outcome == ("open" if outcome == "undecided"
                                                                              else outcome)


def test_a_candidate_taken_out_before_stays_out_and_failed_ones_leave_the_leader_alone():
    lost = decide("a", [standing(1.0, 1.01, "loses", "b"), standing(0.99, 1.01, "", "c")], 0.02)
    assert lost.outcome == "tie" and {s.candidate: s.state for s in lost.standings} == \
        {"a": "leader", "b": "loses", "c": "tied"}
    alone = decide("a", [Standing("b", "failed", None, None, None)], 0.02)
    assert alone.outcome == "wins" and alone.failed == ("b",)
    assert decide("a", [], 0.02).outcome == "only"


def test_exact_figures_are_intervals_of_zero_width_and_a_tie_prefers_the_fewest_ranks():
    tie = exact({"4x1": 1.00, "1x4": 1.01, "2x2": 1.5}, 0.02)
    assert tie.outcome == "tie" and tie.tied == ("4x1", "1x4") and tie.exact
    assert preferred(tie, {"4x1": 4, "1x4": 1, "2x2": 2}) == "1x4"
    win = exact({"4x1": 1.00, "1x4": 1.10}, 0.02)
    assert win.outcome == "wins" and win.runner_up.lead_text() == "+10.0% (exact)"


TIMES = {(2, 1): 1.00}  # 2 ranks x 1 thread; the other split's time is the case's


class Fixed:
    """A backend whose every run of a split takes that split's fixed time: a simulated study's (exact replays) or
    a sampled one's, without noise."""

    def __init__(self, times, backend):
        self.times, self.name, self.exact = times, backend, backend == "simgrid"  # replays, as simgrid's

    def launch_line(self, plan):
        return "fixed"

    def run(self, plans, done):
        for p in plans:
            done(RunRecord(p.key, p.study, p.kernel, p.params, p.configurations, p.nodes, p.ranks, p.ranks_per_node,
                           p.threads, p.mode.name, False, p.repeat, "ok", 0, self.times[(p.ranks_per_node, p.threads)],
                           "2026-12-04T00:00:00", 0.0, self.name, "fixed", [], None, None, None, p.campaign,
                           p.position, p.warmup))


SIMULATED = """study: fixed
kernel: md
params: {size: 8, steps: 2}
configurations: [2x1, 1x2]
nodes: [1]
backend: simgrid
simgrid: {cluster: merlin, costs: thesis}
results: RESULTS
"""


def _simulated_study_word(tmp_path, times) -> str:
    study = specs.parse(SIMULATED.replace("RESULTS", str(tmp_path / "sim")), cores_per_node=2)
    with Store(tmp_path / "sim") as store:
        outcome = run_study(study, store, Fixed(times, "simgrid"), Silent(), "fixed.yaml")
    return next(iter(outcome.races.values())).outcome


def _recommend_word(monkeypatch, times) -> str:
    spec = replace(cluster.load("merlin"), sockets=1, cores_per_socket=2)
    sim = simulated.Simulation("md", spec, lambda s: None, lambda sp: None, 10, 10, None, None, None)

    def parts(plan, model, spec, split, scale):
        return {"compute": times[(split.ranks_per_node, split.threads)], "threading": 0.0, "point-to-point": 0.0,
                "collectives": 0.0, recommend.REST: 0.0}

    monkeypatch.setattr(recommend, "simulated_parts", parts)
    answer = simulated.SimulatedPredictor(sim).answer(1)
    assert {name(p.split) for p in answer.predictions} == {"2r×1t", "1r×2t"}
    return answer.verdict


def _compare_word(tmp_path, times) -> str:
    study = adhoc.compare_study("md", ["-s", "8", "--steps", "2"], [(2, 1), (1, 2)], 2,
                                {"tie_within": 0.02, "max_blocks": 40, "budget": None}, str(tmp_path / "cmp"))
    with Store(tmp_path / "cmp") as store:
        outcome = run_study(study, store, Fixed(times, "local"), Silent(), "hybridperf compare")
    return next(iter(outcome.races.values())).outcome


@pytest.mark.kernel
@pytest.mark.parametrize("other, word", [(1.01, "tie"), (1.10, "wins"), (0.90, "wins")])
def test_the_same_times_give_the_same_word_by_simulation_by_recommend_and_by_compare(tmp_path, monkeypatch,
                                                                                   md_binary, other, word):
    times = {**TIMES, (1, 2): other}
    assert _simulated_study_word(tmp_path, times) == _recommend_word(monkeypatch, times) == \
        _compare_word(tmp_path, times) == word
