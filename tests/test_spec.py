"""Study specs: exact expansion into runs, and every validation error naming its line."""

from pathlib import Path

import pytest

from hybridperf import shapes
from hybridperf.analysis.race import Rule
from hybridperf.study import spec
from hybridperf.study.expand import expand, races
from hybridperf.study.spec import SpecError, parse

BASE = """study: s
kernel: md
params:
  size: [8, 10]
  steps: 20
configurations: [pure-mpi, hybrid-1]
cores: [1, 2]
repeats: 2
"""


@pytest.mark.kernel
def test_matrix_expansion_is_exact():
    found = races(parse(BASE, "s.yaml", cores_per_node=2))
    assert [(r.params, r.scale) for r in found] == [({"size": 8, "steps": 20}, 1), ({"size": 8, "steps": 20}, 2),
                                                    ({"size": 10, "steps": 20}, 1), ({"size": 10, "steps": 20}, 2)]
    assert [[c.candidate for c in r.candidates] for r in found] == [["pure-mpi = hybrid-1"], ["pure-mpi", "hybrid-1"]] * 2
    plans = expand(parse(BASE, "s.yaml", cores_per_node=2))
    shapes = [(p.params["size"], p.nodes, p.ranks_per_node, p.threads, p.configurations) for p in plans]
    expected = []
    for size in (8, 10):
        expected += [(size, 1, 1, 1, ("pure-mpi", "hybrid-1")),  # one 1-core run serves both
                     (size, 1, 2, 1, ("pure-mpi",)), (size, 1, 1, 2, ("hybrid-1",))]
    assert shapes == expected
    assert all(p.params["steps"] == 20 for p in plans)
    assert len({p.key for p in plans}) == len(plans)
    assert plans[1].kernel_args() == ["--size", "8", "--steps", "20"]


@pytest.mark.kernel
def test_a_block_runs_its_candidates_in_the_order_given_and_each_run_has_its_own_key():
    race = races(parse(BASE, "s.yaml", cores_per_node=2))[1]
    block = race.block(4, ["hybrid-1", "pure-mpi"], campaign=2)
    assert [(p.candidate, p.repeat, p.position, p.campaign) for p in block] == [("hybrid-1", 4, 0, 2),
                                                                                 ("pure-mpi", 4, 1, 2)]
    warm = race.warmup("pure-mpi", 2)
    keys = {p.key for p in block} | {warm.key} | {p.key for p in race.block(5, ["pure-mpi", "hybrid-1"], 2)}
    assert warm.warmup and len(keys) == 5


@pytest.mark.kernel
def test_the_stopping_rule_is_declared_in_the_spec():
    racing = parse(BASE.replace("repeats: 2", "decide: {confidence: 95%, tie_within: 3%, max_blocks: 12, "
                                              "budget: 1m30s}"), "s.yaml", 2)
    assert racing.rule == Rule(confidence=0.95, tie_within=0.03, min_blocks=3, max_blocks=12, budget=90.0)
    assert parse(BASE, "s.yaml", 2).rule == Rule(min_blocks=2, max_blocks=2, budget=None)  # repeats: fixed blocks
    assert parse(BASE.replace("repeats: 2\n", ""), "s.yaml", 2).rule == Rule()  # the defaults race
    assert parse(BASE.replace("repeats: 2", "decide: {budget: none, tie_within: 0.05}"), "s.yaml", 2).rule.budget is None


@pytest.mark.kernel
def test_zip_groups_vary_together_and_multiply_with_lists():
    text = BASE.replace("  size: [8, 10]\n  steps: 20\n", "  potential: [lj/cut, lj/sf]\n") + \
        "zip:\n  - {size: [8, 10], steps: [40, 20]}\n"
    plans = [p for p in expand(parse(text, "s.yaml", 2)) if p.cores == 1]
    assert [(p.params["potential"], p.params["size"], p.params["steps"]) for p in plans] == [
        ("lj/cut", 8, 40), ("lj/cut", 10, 20), ("lj/sf", 8, 40), ("lj/sf", 10, 20)]


def test_configuration_shapes_over_cores_and_nodes():
    assert shapes.shape("pure-mpi", 8, cores=64) == (8, 8, 1)
    assert shapes.shape("hybrid-1", 8, cores=64) == (8, 1, 8)
    assert shapes.shape("hybrid-2", 8, cores=64) == (8, 2, 4)
    assert shapes.shape("4x2", 8, cores=64) == (8, 4, 2)
    assert shapes.shape("hybrid-1", 8, cores=4) == (1, 1, 4)
    assert shapes.shape("hybrid-2", 4, nodes=6) == (6, 2, 2)
    with pytest.raises(shapes.NotApplicable):
        shapes.shape("hybrid-2", 8, cores=1)
    with pytest.raises(ValueError, match="whole number of 8-core nodes"):
        shapes.shape("pure-mpi", 8, cores=12)


@pytest.mark.kernel
def test_powers_of_two_and_node_shorthand():
    study = parse(BASE.replace("cores: [1, 2]", "cores: powers-of-two"), "s.yaml", cores_per_node=8)
    assert study.cores == (1, 2, 4, 8)
    assert parse(BASE.replace("cores: [1, 2]", "cores: [1, node]"), "s.yaml", 2).cores == (1, 2)


@pytest.mark.parametrize(
    "change,message",
    [
        (("repeats: 2", "repeat: 2"), "s.yaml:8: unknown key 'repeat' (did you mean 'repeats'?)"),
        (("repeats: 2", "decide: {tie_witin: 2%}"), "s.yaml:8: unknown decide key 'tie_witin' (did you mean 'tie_within'?)"),
        (("repeats: 2", "decide: {tie_within: 2}"), "s.yaml:8: tie_within must be a percentage or a fraction"),
        (("repeats: 2", "decide: {budget: soon}"), "s.yaml:8: budget must be a duration such as 90s"),
        (("repeats: 2", "decide: {min_blocks: 9, max_blocks: 4}"), "s.yaml:8: need 1 <= min_blocks <= max_blocks"),
        (("repeats: 2", "repeats: 2\ndecide: {}"), "s.yaml:8: give repeats (a fixed number of blocks) or decide"),
        (("  steps: 20", "  stepz: 20"), "s.yaml:5: md has no option 'stepz' (did you mean 'steps'?)"),
        (("  steps: 20", "  steps: -3"), "s.yaml:5: steps must be >= 0, got -3"),
        (("  steps: 20", "  steps: many"), "s.yaml:5: steps takes a value of type int, got 'many'"),
        (("  steps: 20", "  potential: morse"), "s.yaml:5: potential must be one of lj/cut|lj/sf"),
        (("  steps: 20", "  profile: x.json"), "s.yaml:5: profile is set by hybridperf itself"),
        (("[pure-mpi, hybrid-1]", "[pure-mpi, hybird-1]"), "s.yaml:6: unknown configuration 'hybird-1'"),
        (("[pure-mpi, hybrid-1]\ncores: [1, 2]", "[4x1]\ncores: [4]"),
         "s.yaml:6: 4x1 at 4 cores puts 4 ranks x 1 threads on 2-core nodes; set oversubscribe: true"),
        (("cores: [1, 2]", "cores: [1, 4]"), "s.yaml:7: pure-mpi at 4 cores needs 2 nodes; the local backend has one"),
        (("cores: [1, 2]", "nodes: [1, 2]"), "needs 2 nodes; the local backend has one"),
        (("cores: [1, 2]", "cores: [1, 2]\nnodes: [1]"), "give exactly one of 'cores'"),
        (("kernel: md", "kernel: lammps"), "s.yaml:2: unknown kernel 'lammps'"),
        (("study: s", "study: 's s'"), "s.yaml:1: study must be a name"),
        (("size: [8, 10]", "size: [2, 10]"), "s.yaml:3: pure-mpi at 2 cores with size=2, steps=20: subdomain is 1.68 wide in x"),
        (("repeats: 2", "repeats: 0"), "s.yaml:8: repeats must be a whole number of at least 1"),
        (("repeats: 2", "repeats: 2\nbackend: pbs"), "s.yaml:9: backend must be one of local, simgrid, slurm"),
        (("configurations: [pure-mpi, hybrid-1]\n", ""), "missing required key 'configurations'"),
        (("params:", "params: [oops"), "not valid YAML"),
    ],
)
@pytest.mark.kernel
def test_validation_errors_name_the_line(change, message):
    with pytest.raises(SpecError) as err:
        parse(BASE.replace(*change), "s.yaml", cores_per_node=2)
    assert message in str(err.value)


@pytest.mark.kernel
def test_zip_lengths_must_agree():
    text = BASE + "zip:\n  - {cutoff: [2.5, 2.2], skin: [0.3]}\n"
    with pytest.raises(SpecError, match=r"s.yaml:10: zip group lists differ in length: \[1, 2\]"):
        parse(text, "s.yaml", 2)


@pytest.mark.kernel
def test_oversubscription_allowed_explicitly():
    text = (BASE.replace("cores: [1, 2]", "cores: [4]").replace("size: [8, 10]", "size: 12")
            .replace("[pure-mpi, hybrid-1]", "[4x1, 1x4]") + "oversubscribe: true\n")
    plans = expand(parse(text, "s.yaml", 2))
    assert {(p.ranks_per_node, p.threads) for p in plans} == {(4, 1), (1, 4)}
    assert all(p.mode.oversubscribed for p in plans)


SHIPPED = sorted((Path(__file__).parents[1] / "studies").glob("*.yaml"))


def test_the_shipped_studies_are_there():
    assert {"local.yaml", "thesis-md.yaml", "chow-hysom.yaml", "lammps-lj.yaml"} <= {p.name for p in SHIPPED}


@pytest.mark.kernel
@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_studies_are_valid(path):
    """Each on its own (the largest plan their points at 2 cores for seconds), so that test workers share them."""
    assert expand(spec.load(path, cores_per_node=2)), path


@pytest.mark.kernel
def test_a_fixed_three_value_option_is_one_value_for_md_and_spmv():
    """grid: [2, 1, 1] is one grid, not a sweep of three; a list of grids sweeps them."""
    md = expand(parse(BASE.replace("  steps: 20\n", "  steps: 20\n  grid: [2, 1, 1]\n")
                      .replace("[pure-mpi, hybrid-1]", "[pure-mpi]").replace("cores: [1, 2]", "cores: [2]"),
                      "s.yaml", cores_per_node=2))
    assert {tuple(p.params["grid"]) for p in md} == {(2, 1, 1)}
    assert md[0].kernel_args() == ["--size", "8", "--steps", "20", "--grid", "2", "1", "1"]
    spmv = expand(parse("study: s\nkernel: spmv\nparams: {n: 4, grid: [1, 1, 1]}\nconfigurations: [pure-mpi]\n"
                        "cores: [2]\nrepeats: 1\n", "s.yaml", cores_per_node=2))
    assert [p.kernel_args() for p in spmv] == [["--n", "4", "--grid", "1", "1", "1"]]
    swept = expand(parse("study: s\nkernel: spmv\nparams: {n: 4, grid: [[1, 1, 1], [0, 0, 0]]}\n"
                         "configurations: [pure-mpi]\ncores: [2]\nrepeats: 1\n", "s.yaml", cores_per_node=2))
    assert [p.params["grid"] for p in swept] == [[1, 1, 1], [0, 0, 0]]


@pytest.mark.kernel
def test_the_kernel_decides_which_grids_fit():
    """The decomposition is the kernel's own (MPI_Dims_create of its MPI library): with --grid 1 0 0 on 8 ranks
    the free dimensions split 8 as 4 x 2, so at -s 6 the 4-way dimension is too thin, where a balanced 2 x 2 x 2
    would have fitted."""
    text = ("study: s\nkernel: md\nparams: {size: 6, grid: [1, 0, 0]}\nconfigurations: [8x1]\ncores: [8]\n"
            "oversubscribe: true\nrepeats: 1\n")
    with pytest.raises(SpecError, match="8x1 at 8 cores with size=6, grid=\\[1, 0, 0\\]: subdomain is 2.519 wide in y"):
        parse(text, "s.yaml", cores_per_node=2)
    assert expand(parse(text.replace("grid: [1, 0, 0]", "grid: [0, 0, 0]"), "s.yaml", cores_per_node=2))


APP_SPEC = """study: a
kernel: app
app:
  command: [lmp, -in, {script}, -log, none]
  parser: lammps
params: {{}}
configurations: [pure-mpi]
cores: [1]
"""


@pytest.mark.kernel
def test_relative_paths_are_taken_beside_the_spec_then_from_where_it_runs(tmp_path, monkeypatch):
    """A spec copied with its inputs runs from anywhere; a path with no folder anywhere is refused before running;
    a file named from the current directory (not beside the spec) is left as given."""
    copied = tmp_path / "copy"
    (copied / "inputs").mkdir(parents=True)
    (copied / "inputs" / "in.lj").write_text("# input\n")
    (copied / "Fe.eam.fs").write_text("# potential\n")
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "here").mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    found = spec.load(_write(copied / "a.yaml", APP_SPEC.format(script="inputs/in.lj")), cores_per_node=2)
    assert found.app["command"] == ["lmp", "-in", "../copy/inputs/in.lj", "-log", "none"]
    assert spec.load(_write(copied / "b.yaml", APP_SPEC.format(script="here/in.lj")), cores_per_node=2).app[
        "command"][2] == "here/in.lj"
    with pytest.raises(SpecError, match=r"a.yaml:4: 'lost/in.lj': there is no folder 'lost' beside the spec .* or under"):
        spec.load(_write(copied / "a.yaml", APP_SPEC.format(script="lost/in.lj")), cores_per_node=2)
    md = BASE.replace("steps: 20", "steps: 20\n  potential: eam/fs\n  potential_file: Fe.eam.fs\n  elements: Fe")
    with pytest.raises(SpecError, match=r"--potential-file \.\./copy/Fe\.eam\.fs --elements Fe: \.\./copy/Fe\.eam\.fs line 1"):
        parse(md, "md.yaml", cores_per_node=2, base=copied)  # the kernel was given the file beside the spec


def _write(path, text):
    path.write_text(text)
    return path


@pytest.mark.kernel
def test_what_the_kernel_refuses_of_options_together_is_refused_before_running():
    """A construct ompbench does not know passes the option table (a list of words) but not the kernel's own
    check of its options, asked through --check-args."""
    text = "study: o\nkernel: ompbench\nparams: {constructs: [PARALLEL, NOPE]}\nconfigurations: [hybrid-1]\ncores: [2]\n"
    with pytest.raises(SpecError, match=r"o.yaml:3: hybrid-1: hybridperf-ompbench refuses --constructs PARALLEL,NOPE: "
                                        r"--constructs: unknown construct 'NOPE'"):
        parse(text, "o.yaml", cores_per_node=2)


@pytest.mark.kernel
def test_a_stored_campaign_is_judged_by_the_rule_it_ran_by():
    """A campaign's spec carries its whole rule; one stored before it did raced by the sign sequence, 30 blocks."""
    study = parse("study: s\nkernel: md\nconfigurations: [pure-mpi]\ncores: [1]\ndecide: {tie_within: 3%}\n",
                  cores_per_node=2)
    stored = study.as_dict()
    assert stored["rule"]["interval"] == "both" and spec.from_dict(stored).rule == study.rule
    legacy = {k: v for k, v in stored.items() if k != "rule"}
    assert spec.from_dict(legacy).rule == Rule(tie_within=0.03, max_blocks=30, interval="sign")
    assert spec.from_dict({**legacy, "decide": None}).rule == Rule(max_blocks=30, interval="sign")
    fixed = spec.from_dict({**legacy, "decide": None, "repeats": 5}).rule
    assert (fixed.min_blocks, fixed.max_blocks, fixed.interval, fixed.budget) == (5, 5, "sign", None)


@pytest.mark.kernel
def test_configurations_all_is_every_split_of_the_node():
    study = parse("study: s\nkernel: md\nparams: {size: 12}\nconfigurations: all\ncores: [1, 16]\n", cores_per_node=16)
    assert study.configurations == ("pure-mpi", "8x2", "4x4", "2x8", "hybrid-1")
    found = {r.scale: [c.candidate for c in r.candidates] for r in races(study)}
    assert found == {1: ["pure-mpi = hybrid-1"], 16: ["pure-mpi", "8x2", "4x4", "2x8", "hybrid-1"]}
    assert shapes.splits(12) == [(12, 1), (6, 2), (4, 3), (3, 4), (2, 6), (1, 12)]


@pytest.mark.kernel
def test_a_decide_interval_and_a_disturbed_policy_are_checked():
    base = "study: s\nkernel: md\nconfigurations: [pure-mpi]\ncores: [1]\n"
    with pytest.raises(SpecError, match="interval must be one of both, huber, sign, got 'hubre' \\(did you mean 'huber'"):
        parse(base + "decide: {interval: hubre}\n", cores_per_node=2)
    assert parse(base + "decide: {interval: sign}\n", cores_per_node=2).rule.interval == "sign"
    assert parse(base + "disturbed: rerun\n", cores_per_node=2).disturbed == "rerun"


@pytest.mark.kernel
def test_a_rule_that_can_never_decide_is_warned_of_with_the_blocks_it_needs():
    from hybridperf.study.expand import undecidable

    base = "study: s\nkernel: md\nparams: {size: 12}\nconfigurations: [pure-mpi, hybrid-1]\ncores: [1, 2]\n"
    fixed = undecidable(parse(base + "repeats: 3\n", cores_per_node=2))
    assert fixed == ["size=12 at 2 cores: 2 candidates need at least 6 blocks before any answer; repeats: 3 can only "
                     "end undecided (give at least 6)"]  # the 1-core baseline is no race
    assert undecidable(parse(base + "decide: {max_blocks: 5}\n", cores_per_node=2))
    assert undecidable(parse(base + "decide: {max_blocks: 6}\n", cores_per_node=2)) == []
