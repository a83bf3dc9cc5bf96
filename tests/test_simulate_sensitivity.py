"""`hybridperf simulate validate --sensitivity` (docs/simulation.md): which inputs of an outcome are swept over
their declared ranges (a cluster figure's range is parsed and checked in tests/test_clusters.py), the walk and
bisection that find where a rule holds, checked against closed forms on a simulator whose figure moves by the
factor, and the command's JSON, table and bad input — all without a replay."""

import json

import pytest
from rich.console import Console
from typer.testing import CliRunner

from hybridperf import cluster
from hybridperf.cli import app as cli_app, simulate as cli_simulate
from hybridperf.predict import outcomes as swept
from hybridperf.report.seeds_tables import first_clause
from hybridperf.simulate import outcome, paje, validate as validation, validate_spmv
from hybridperf.simulate.outcome import Moved

GIGE = "cseem64t-gige"
MOVOUT = next(d for d in outcome.declared() if d.name == "movout_ratio_gige")  # published 1.902
def test_an_outcome_sweeps_its_assumed_inputs_and_no_published_one():
    """Merlin's latency, bandwidth and fork/join are published: its two intra-node figures and its assumed OS noise
    are swept, then the compute costs and threading losses borrowed from CSEEM64T and DL_POLY. CSEEM64T's movout on
    GigE: its four assumed figures, then the compute costs and threading losses borrowed from Merlin."""
    found = {d.name: [a.input for a in swept.assumed(d)] for d in outcome.declared()}
    assert found["merlin_pure_fastest"] == ["intra-node latency (merlin)", "intra-node bandwidth (merlin)",
                                            "OS noise (merlin)", "compute per atom-step of a core",
                                            "threading losses of force"]
    assert found["movout_ratio_gige"] == [f"{f} ({GIGE})" for f in ("network latency", "intra-node latency",
                                                                    "intra-node bandwidth", "fork/join")] + [
        "compute per atom-step of a core and packing per ghost atom", "threading losses of force"]
    assert found["spmv_500_total"][-1] == "packing per point, as a nonzero's time" and len(found["spmv_500_total"]) == 4
    assert found["dlpoly_merlin_test20_crossover"][-1].startswith("packing per 24 bytes of a halo message")
    assert not any(a.startswith("packing") for a in found["dlpoly_test20_data_total"])  # bytes, not seconds
    for d in outcome.declared():
        moves = validate_spmv.COMPUTE_MOVES if d.measure in validate_spmv.MEASURES else validation.COMPUTE_MOVES
        for i in d.inputs:
            assert set(i) in ({*outcome.INPUT_FIELDS}, {*outcome.INPUT_FIELDS, *outcome.SWEPT_FIELDS}), d.name
            if "moves" in i:
                assert i["moves"] in moves and not i["same_experiment"] and i["range_source"], d.name
                assert 0 < i["range"][0] <= 1 <= i["range"][1], d.name


@pytest.mark.parametrize("low, high, holds, expected", [
    (0.5, 2.0, lambda x: 0.75 <= x <= 1.25, (0.75, 1.25, False)),  # both edges inside the range
    (0.5, 2.0, lambda x: x <= 1.6, (0.5, 1.6, False)),  # holds down to the range's end
    (0.5, 2.0, lambda x: True, (0.5, 2.0, True)),
    (0.5, 2.0, lambda x: 1.25 <= x <= 1.8, (1.25, 1.8, False)),  # not at the nominal: the stretch above it
    (0.25, 4.0, lambda x: x <= 0.4 or x >= 3.0, (0.25, 0.4, False)),  # two stretches: the nearer in log wins
    (0.5, 2.0, lambda x: x > 3, (None, None, False)),  # nowhere in the range
    (1.0, 2.0, lambda x: x <= 1.5, (1.0, 1.5, False)),  # a range with nothing below the nominal
])
def test_the_stretch_where_a_rule_holds_is_found_to_its_closed_form(low, high, holds, expected):
    found = swept.holding(holds, low, high, grid=4, bisections=40)
    assert found[2] is expected[2]
    for got, want in zip(found[:2], expected[:2]):
        assert (got is None and want is None) or got == pytest.approx(want, rel=1e-9)


def test_the_default_walk_brackets_each_edge_within_an_eighth_of_its_step():
    """Grid 1 and 3 bisections: an edge between the nominal and the range's end is found within end^(1/8), on the
    side where the rule holds, after one simulation at each end and three more per edge."""
    asked = []

    def holds(x: float) -> bool:
        asked.append(x)
        return 0.75 <= x <= 1.25

    low, high, everywhere = swept.holding(holds, 0.5, 2.0)
    assert 0.75 <= low < 0.75 * 2 ** (1 / 8) and 1.25 / 2 ** (1 / 8) < high <= 1.25 and not everywhere
    assert len(asked) == 1 + 2 * (1 + swept.BISECTIONS)


class _Movout(validation.Simulator):
    """Movout times (point-to-point, no packing) whose pure / hybrid-1 ratio is the published one, on GigE times
    `scale` and times the factor of GigE's latency when it is moved; every other input changes nothing. No
    replay."""

    scale = 1.0

    def packing(self, name: str, cores: int, configuration: str, workload: validation.Thesis) -> float:
        return 0.0

    def mpi_times(self, name: str, cores: int, configuration: str, workload: validation.Workload | None = None) \
            -> paje.MpiTimes:
        m = self.moved
        factor = m.factor if m and (m.what, m.cluster) == ("latency", GIGE) else 1.0
        ratio = 1.902 * self.scale * factor if name == GIGE else 0.427
        return paje.MpiTimes((10.0,), (ratio if configuration == "pure-mpi" else 1.0,), (0.1,))


def _sweeper(scale: float, bisections: int = swept.BISECTIONS) -> swept.Sweeper:
    class Scaled(_Movout):
        pass

    Scaled.scale = scale
    return swept.Sweeper(lambda moved: Scaled(1, lambda line: None, moved), lambda moved: None,
                         bisections=bisections)


def _by_input(found: swept.Swept) -> dict[str, swept.Holds]:
    return {h.input: h for h in found.sensitivity}


def test_a_ratio_rule_holds_over_its_closed_form_range():
    """movout on GigE within ±25% of 1.902 while the simulated ratio is 1.902 x f: f in [0.75, 1.25]; every other
    input holds across its whole declared range."""
    [found] = swept.swept(_sweeper(1.0, bisections=40), [MOVOUT])
    assert found.outcome.reproduced
    holds = _by_input(found)
    latency = holds[f"network latency ({GIGE})"]
    assert (latency.holds_from, latency.holds_to, latency.holds_everywhere) == (0.75, 1.25, False)
    others = [h for name, h in holds.items() if name != latency.input]
    assert len(others) == 5 and all(h.holds_everywhere and (h.holds_from, h.holds_to) == h.range for h in others)


def test_an_outcome_missed_at_its_nominal_inputs_shows_where_it_would_hold():
    """Simulated 0.6 x 1.902 x f: within ±25% for f in [1.25, 2.083], cut at the declared ×2 — yet not reproduced,
    which is decided at the nominal inputs alone."""
    [found] = swept.swept(_sweeper(0.6, bisections=40), [MOVOUT])
    assert not found.outcome.reproduced
    latency = _by_input(found)[f"network latency ({GIGE})"]
    assert (latency.holds_from, latency.holds_to, latency.holds_everywhere) == (1.25, 2.0, False)
    assert latency.text() == "×1.25–×2"
    assert all(h.text() == "nowhere" for h in found.sensitivity if h is not latency)


def test_the_noise_is_replayed_as_declared_and_moved_by_its_scale():
    """validate replays Merlin with its declared (assumed) noise drawn from one seed; the sweep moves the
    slowdowns' scale across the declared range, its nominal the node's mean slowdown."""
    sim = validation.Simulator(1, lambda line: None)
    merlin = sim.described("merlin")
    assert merlin.noisy and merlin.noise.seed == validation.NOISE_SEED and merlin.noise.scale == 1.0
    assert not sim.described(GIGE).noisy  # no noise declared: constant speed
    [noise] = [a for a in swept.assumed(next(d for d in outcome.declared() if d.name == "merlin_sum_ratio"))
               if a.what == "noise"]
    assert noise.nominal == "1% per 1ms" and noise.range == (0.0625, 16.0) and noise.cluster == "merlin"
    moved = validation.Simulator(1, lambda line: None, noise.at(4.0)).described("merlin")
    assert moved.noise.scale == 4.0 and moved.noise.mean == pytest.approx(0.04)


@pytest.mark.kernel
def test_moves_reach_the_description_and_the_compute_model():
    spec = cluster.load(GIGE)
    moved = Moved("latency", 2.0, GIGE).on(spec)
    assert moved.latency.value == pytest.approx(2 * spec.latency.value) and moved.bandwidth == spec.bandwidth
    assert Moved("latency", 2.0, "merlin").on(spec) is spec  # another cluster's figure leaves this one alone
    costs = validate_spmv.SpmvSimulator(1, lambda line: None).costs(500)
    assert Moved("pack", 4.0).costs(costs, validate_spmv.COMPUTE_MOVES).pack == pytest.approx(4 * costs.pack)
    assert Moved("latency", 4.0, GIGE).costs(costs, validate_spmv.COMPUTE_MOVES) is costs
    md = validation.Thesis(1).costs(spec)  # md's packing per atom moves alone (DL_POLY's outcomes declare it)
    packed = Moved("pack", 0.25).costs(md, validation.COMPUTE_MOVES)
    assert packed.pack == pytest.approx(0.25 * md.pack) and packed.force == md.force


def test_a_figure_two_descriptions_share_is_one_input_moved_in_both():
    """ibm-sp-switch keeps ibm-sp's network and gives its own on-node figures: moving ibm-sp's bandwidth moves
    both, its on-node bandwidth ibm-sp's alone; the sweep lists the shared figure once."""
    sp, switch = cluster.load("ibm-sp"), cluster.load("ibm-sp-switch")
    both = Moved("bandwidth", 2.0, "ibm-sp")
    assert both.on(switch).bandwidth.value == pytest.approx(2 * sp.bandwidth.value)
    assert Moved("intra_bandwidth", 2.0, "ibm-sp").on(switch) is switch  # its own figure, not ibm-sp's
    assert Moved("bandwidth", 2.0, "merlin").on(switch) is switch  # another network's figure
    [gain] = validation.chosen(("spmv_shared_memory_gain",))
    inputs = [a.input for a in swept.assumed(gain)]
    assert inputs.count("network bandwidth (ibm-sp)") == 1 and "network bandwidth (ibm-sp-switch)" not in inputs
    assert "intra-node bandwidth (ibm-sp)" in inputs and "intra-node bandwidth (ibm-sp-switch)" in inputs


@pytest.fixture
def command(monkeypatch):
    """`hybridperf simulate validate` in this process, on _Movout's simulator instead of replays."""
    monkeypatch.setattr(cli_simulate, "smpirun", lambda: "smpirun")
    monkeypatch.setattr(swept.Sweeper, "replaying", classmethod(lambda cls, *args: _sweeper(1.0)))
    monkeypatch.setattr(cli_simulate, "console", Console(width=250, soft_wrap=True))

    def run(*args: str):
        return CliRunner().invoke(cli_app.app, ["simulate", "validate", *args])

    return run


def test_the_command_prints_each_outcome_with_its_sensitivity(command):
    out = command("--sensitivity", "--json", "--outcome", "movout_ratio_gige")
    assert out.exit_code == 0, out.output
    [found] = json.loads(out.stdout)
    assert found["name"] == "movout_ratio_gige" and found["reproduced"] is True
    assert len(found["sensitivity"]) == 6
    for h in found["sensitivity"]:
        assert {"input", "nominal", "range", "holds_from", "holds_to", "holds_everywhere"} <= set(h)
        assert len(h["range"]) == 2 and isinstance(h["holds_everywhere"], bool)
    [latency] = [h for h in found["sensitivity"] if h["input"] == f"network latency ({GIGE})"]
    # the default walk: ×2 and ×0.5 miss, three bisections each side
    assert latency["holds_from"] == outcome.rounded(0.5 ** (3 / 8)) and latency["holds_to"] == outcome.rounded(2 ** 0.25)
    assert latency["nominal"] == "50us" and latency["range"] == [0.5, 2.0]


def test_the_table_shows_the_range_over_which_each_rule_holds(command):
    out = command("--sensitivity", "--outcome", "movout_ratio_gige")
    assert out.exit_code == 0, out.output
    assert "network latency (cseem64t-gige)" in out.stdout and "×0.7711–×1.189" in out.stdout
    assert "×0.8–×1.5 (everywhere)" in out.stdout  # the compute costs' declared range, all of it
    assert "1 of 1 outcomes reproduced at the nominal inputs, 0 of them across every declared range" in out.stdout


@pytest.mark.parametrize("width, sourced", [(100, False), (200, True)])
def test_the_plain_table_gives_each_source_where_it_fits(command, monkeypatch, width: int, sourced: bool):
    """A claim's source beneath it only on a wide terminal (beside six columns it would wrap a word a line), else
    the count says where to find it; no closed-form column where no outcome has that model."""
    monkeypatch.setattr(cli_simulate, "console", Console(width=width, soft_wrap=True))
    outcomes = validation.outcomes
    monkeypatch.setattr(validation, "outcomes",
                        lambda window, progress, names: outcomes(md=_Movout(1, progress), names=names))
    out = command("--outcome", "movout_ratio_gige")
    assert out.exit_code == 0, out.output
    assert "movout at 96" in out.stdout and "closed-form model" not in out.stdout
    assert ("thesis Table 4.9" in out.stdout) is sourced
    assert ("each claim's source: --json, or a terminal 160 columns wide" in out.stdout) is not sourced


@pytest.mark.parametrize("args, message", [
    (("--sensitivity", "--outcome", "movout"), "unknown outcome 'movout': the outcomes are merlin_pure_fastest, "),
    (("--grid", "2"), "--grid is how finely --sensitivity sweeps"),
    (("--sensitivity", "--grid", "0"), "Invalid value for '--grid'"),
])
def test_bad_input_is_one_line(command, args, message):
    out = command(*args)
    assert out.exit_code != 0 and message in out.output
    if "hybridperf: error" in out.output:
        assert len(out.output.strip().splitlines()) == 1



@pytest.mark.parametrize("width, whole", [(100, False), (200, True)])
def test_the_sensitivity_table_cuts_each_source_where_it_would_not_fit(command, monkeypatch, width: int, whole: bool):
    """A borrowed input's nominal is where it comes from, a sentence: on a narrow terminal its first clause, and
    the count says where the rest is; a description's figure ('50us') as it is."""
    monkeypatch.setattr(cli_simulate, "console", Console(width=width, soft_wrap=True))
    out = command("--sensitivity", "--outcome", "movout_ratio_gige")
    assert out.exit_code == 0, out.output
    assert "50us" in out.stdout and "4.6/4.7" in out.stdout
    assert ("another machine's runs" in out.stdout) is whole  # the compute input's source past its first clause
    assert ("each input's whole source: --json, or a terminal 160 columns wide" in out.stdout) is not whole


def test_a_source_is_cut_at_its_first_clause():
    assert first_clause("thesis Table 4.8 (Merlin, another machine's runs)") == "thesis Table 4.8"
    assert first_clause("measured here: resources/data/x.yaml") == "measured here"
    assert first_clause("0.5us") == "0.5us" and first_clause("1% per 1ms") == "1% per 1ms"
