"""Placement: the cores each policy chooses on Merlin's node (Table 4.3's numbering, as a synthetic hwloc topology),
the exact launch lines, the spec's placement axis, Table 4.4's Diff with its verdict, and one small real study."""

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from hybridperf.analysis.affinity import binding_warnings
from hybridperf.analysis.placement import diffs, LOOP
from hybridperf.analysis.race import Rule
from hybridperf.analysis.sections import Point, Section
from hybridperf.analysis.verdicts import Band, judge_samples
from hybridperf.launch import placement
from hybridperf.launch.lines import build_launch, Configuration, LaunchError
from hybridperf.launch.machine import parse_topology
from hybridperf.report import placement_table
from hybridperf.shapes import NotApplicable, placed, shape
from hybridperf.study import spec
from hybridperf.study.backends.local import LocalBackend
from hybridperf.study.backends.slurm import SlurmBackend
from hybridperf.study.expand import expand, races

FIXTURES = Path(__file__).parent / "fixtures"
# lstopo --input "pack:2 l2:2(size=6291456) core:2 pu:1(indexes=0,2,4,6,1,3,5,7)" --of xml: Merlin's node, CPUs
# 0..7 on packages 0,1,0,1,... and core ids 0,0,1,1,2,2,3,3, cores 0 and 1 of a package sharing an L2 (Table 4.3)
MERLIN = parse_topology((FIXTURES / "merlin-node.xml").read_text(), "merlin")
# this build machine's shape: one package, two cores, a private L2 each and one L3 over both
VM = parse_topology((FIXTURES / "two-core-vm.xml").read_text(), "vm")
HYBRIDPERF = [sys.executable, "-m", "hybridperf"]


def cpus(policy, ranks, threads, node=MERLIN):
    return placement.bind(node, policy, ranks, threads).cpus()


def test_merlins_node_is_read_as_table_4_3_numbers_it():
    assert [s.cpu for s in MERLIN.sites] == [0, 2, 4, 6, 1, 3, 5, 7]  # hwloc's logical order
    assert [s.package for s in MERLIN.sites] == [0, 0, 0, 0, 1, 1, 1, 1]
    assert [s.shared for s in MERLIN.sites] == [0, 0, 1, 1, 2, 2, 3, 3]  # L2 pairs


def test_four_on_one_socket_share_l2_and_spread_four_share_none_as_the_thesis_chose():
    """§A.11: one socket is CPUs {0,2,4,6}; avoiding L2 sharing is {0,1,4,5}, for processes and for threads."""
    assert cpus("compact", 4, 1) == ((0,), (2,), (4,), (6,))
    assert cpus("spread", 4, 1) == ((0,), (4,), (1,), (5,))
    assert cpus("compact", 1, 4) == ((0, 2, 4, 6),)
    assert cpus("spread", 1, 4) == ((0, 4, 1, 5),)
    # two ranks of two threads: each rank in one package, its two threads on different L2s
    assert cpus("spread", 2, 2) == ((0, 4), (1, 5))
    assert cpus("compact", 2, 2) == ((0, 2), (4, 6))
    # a full node is the same whatever the policy; oversubscribing ranks keep half a core per thread
    assert cpus("spread", 8, 1) == cpus("compact", 8, 1)
    assert cpus("oversubscribe", 2, 4) == ((0, 2), (4, 6))
    assert cpus("underpopulate", 4, 1) == cpus("spread", 4, 1)


def test_a_node_too_small_is_one_clear_error():
    with pytest.raises(placement.PlacementError, match="needs 4 cores; a node of vm has 2"):
        placement.bind(VM, "spread", 4, 1)


def test_on_one_package_compact_and_spread_coincide_and_say_so():
    assert cpus("spread", 2, 1, VM) == cpus("compact", 2, 1, VM) == ((0,), (1,))
    assert placement.coincide(VM, 1, 2) == ("1 x 2: compact and spread bind the same CPUs (0,1) on vm, 1 package(s) "
                                            "whose first shared cache holds 2 core(s): they race as an A/A pair, "
                                            "which should tie")
    assert placement.coincide(MERLIN, 4, 1) is None


def test_placement_shapes():
    assert placed("underpopulate", 1, 8, 1) == (2, 4, 1)  # ppn 8 against ppn 4 on twice the nodes
    assert placed("underpopulate", 1, 1, 8) == (2, 1, 4)
    assert placed("oversubscribe", 1, 2, 2) == (1, 2, 4)
    assert placed("spread", 3, 2, 4) == (3, 2, 4)
    assert shape("pure-mpi@underpopulate", 8, cores=16) == (4, 4, 1)
    with pytest.raises(NotApplicable):
        placed("underpopulate", 1, 1, 1)


def launch(policy, ranks, threads, flavor, nodes=1):
    config = Configuration(nodes, ranks, threads, 8, oversubscribe=policy == "oversubscribe",
                           binding=placement.bind(MERLIN, policy, ranks, threads))
    return build_launch(config, flavor, ["md"], rankfile="r.txt", hostfile="hosts" if nodes > 1 else None)


def test_open_mpi_lines_compact_by_map_by_and_the_rest_by_a_rankfile_of_logical_cores():
    assert launch("compact", 4, 1, "openmpi").command == [
        "mpirun", "-np", "4", "--map-by", "ppr:4:node:PE=1", "--bind-to", "core", "-x", "OMP_NUM_THREADS", "-x",
        "OMP_PLACES", "-x", "OMP_PROC_BIND", "md"]
    spread = launch("spread", 2, 2, "openmpi")
    assert spread.command == ["mpirun", "-np", "2", "--rankfile", "r.txt", "-x", "OMP_NUM_THREADS", "-x", "OMP_PLACES",
                              "-x", "OMP_PROC_BIND", "md"]
    assert spread.files == {"r.txt": "rank 0=localhost slot=0,2\nrank 1=localhost slot=4,6\n"}  # CPUs 0,4 and 1,5
    with pytest.raises(LaunchError, match="spread placement on 2 nodes: Open MPI's rankfile binds one here"):
        launch("spread", 2, 2, "openmpi", nodes=2)


def test_mpich_lines_bind_each_rank_to_its_os_cpus():
    assert launch("spread", 4, 1, "mpich").command[:8] == ["mpiexec", "-n", "4", "-ppn", "4", "-bind-to",
                                                           "user:0,4,1,5", "-genv"]
    assert "user:0+4,1+5" in launch("spread", 2, 2, "mpich").command
    assert launch("compact", 2, 2, "mpich").command[5:9] == ["-bind-to", "core:2", "-map-by", "core:2"]


def test_slurm_lines_give_sockets_distribution_and_the_exact_cpus():
    line = launch("spread", 4, 1, "slurm").command
    assert line[:9] == ["srun", "--nodes=1", "--ntasks=4", "--ntasks-per-node=4", "--cpus-per-task=1",
                        "--ntasks-per-socket=2", "--distribution=block:cyclic", "--cpu-bind=map_cpu:0,4,1,5",
                        "--export=ALL,OMP_NUM_THREADS=1,OMP_PLACES=cores,OMP_PROC_BIND=close"]
    assert launch("compact", 4, 1, "slurm").command[5:8] == ["--ntasks-per-socket=4", "--distribution=block:block",
                                                            "--cpu-bind=map_cpu:0,2,4,6"]
    assert "--cpu-bind=mask_cpu:0x33" in launch("spread", 1, 4, "slurm").command  # CPUs 0,1,4,5
    over = launch("oversubscribe", 2, 4, "slurm").command
    assert over[5:9] == ["--overcommit", "--ntasks-per-socket=2", "--distribution=block:block",
                         "--cpu-bind=mask_cpu:0x5,0x50"]
    assert "OMP_WAIT_POLICY=passive" in over[9]


SPEC = """study: placed
kernel: md
params: {{size: 6, steps: 20}}
configurations: [pure-mpi, hybrid-1]
placement: [compact, spread]
cores: [2]
repeats: {repeats}
results: {results}
"""


@pytest.mark.kernel
def test_the_axis_races_each_configuration_once_per_placement(tmp_path, md_binary):
    study = spec.parse(SPEC.format(repeats=1, results=tmp_path), "s.yaml", cores_per_node=2)
    (race,) = races(study)
    assert [c.candidate for c in race.candidates] == ["pure-mpi@compact", "pure-mpi@spread", "hybrid-1@compact",
                                                      "hybrid-1@spread"]
    assert len({c.key for c in race.candidates}) == 4
    assert [c.placement for c in race.candidates] == ["compact", "spread", "compact", "spread"]


@pytest.mark.kernel
def test_configurations_may_name_their_placement_without_the_axis(tmp_path, md_binary):
    text = SPEC.format(repeats=1, results=tmp_path).replace("placement: [compact, spread]\n", "")
    study = spec.parse(text.replace("[pure-mpi, hybrid-1]", "[pure-mpi@compact, hybrid-1@oversubscribe]"), "s.yaml",
                       cores_per_node=2)
    assert [c.candidate for c in races(study)[0].candidates] == ["pure-mpi@compact", "hybrid-1@oversubscribe"]
    assert study.placements == {"compact", "oversubscribe"} and LocalBackend(study, tmp_path).node is not None
    with pytest.raises(spec.SpecError, match="s.yaml:4: pure-mpi@spread names its own placement"):
        spec.parse(SPEC.format(repeats=1, results=tmp_path).replace("[pure-mpi,", "[pure-mpi@spread,"), "s.yaml",
                   cores_per_node=2)


@pytest.mark.kernel
@pytest.mark.parametrize("line, message", [
    ("placement: [compact, spred]", "s.yaml:5: unknown placement 'spred': use compact, spread, underpopulate, "
                                    "oversubscribe (did you mean 'spread'?)"),
    ("placement: [compact, compact]", "s.yaml:5: placement compact is listed twice"),
    ("placement: [underpopulate]", "s.yaml:5: underpopulate runs each point on twice the nodes, and the local "
                                   "backend has one: use backend: slurm"),
])
def test_a_wrong_placement_is_one_error_with_its_line(tmp_path, md_binary, line, message):
    text = SPEC.format(repeats=1, results=tmp_path).replace("placement: [compact, spread]", line)
    with pytest.raises(spec.SpecError) as err:
        spec.parse(text, "s.yaml", cores_per_node=2)
    assert str(err.value) == message


@pytest.mark.external
def test_slurm_scripts_of_a_placement_study_against_the_test_clusters_node(tmp_path, md_binary):
    """Pure: the one-node cluster of scripts/slurm-local.sh is this 2-core machine (slurmd -C's topology)."""
    text = SPEC.format(repeats=1, results=tmp_path) + "backend: slurm\nslurm: {mpi: pmix}\n"
    study = spec.parse(text, "s.yaml", cores_per_node=2)
    backend = SlurmBackend(study, tmp_path, node=VM)
    plans = {p.candidate: p for p in expand(study)}
    script = backend.script_text(plans["pure-mpi@spread"], backend.launch(plans["pure-mpi@spread"]))
    assert "#SBATCH --nodes=1\n#SBATCH --exclusive\n#SBATCH --ntasks-per-node=2\n#SBATCH --cpus-per-task=1\n" in script
    assert ("srun --mpi=pmix --nodes=1 --ntasks=2 --ntasks-per-node=2 --cpus-per-task=1 --ntasks-per-socket=2 "
            "--distribution=block:cyclic --cpu-bind=map_cpu:0,1 ") in script
    hybrid = backend.script_text(plans["hybrid-1@compact"], backend.launch(plans["hybrid-1@compact"]))
    assert "--ntasks-per-socket=1 --distribution=block:block --cpu-bind=mask_cpu:0x3 " in hybrid


def point(configuration, times):
    """A measured point at 4 cores on one node: pure MPI's 4 x 1 or hybrid's 1 x 4, a run per block."""
    runs = [{"repeat": k, "loop_time": t, "profile": {"regions": {"force": {"time": {"avg": 0.8 * t}}}}}
            for k, t in enumerate(times)]
    ranks, threads = (4, 1) if configuration.startswith("pure-mpi") else (1, 4)
    return Point(configuration, 4, 4, 1, ranks, threads, "", None, 0, runs)


def test_table_4_4_diff_per_region_with_its_verdict():
    """Diff = (shared − exclusive) / shared per block: the thesis's 4.43% (pure MPI, total) is outside a ±2% band,
    1.25% (hybrid) inside it; with the blocks all alike the interval is the value itself."""
    shared, pure = [2436.699] * 5, [2328.641] * 5
    hybrid_shared, hybrid = [3622.872] * 5, [3577.680] * 5
    section = Section({}, "cores", [point("pure-mpi@compact", shared), point("pure-mpi@spread", pure),
                                    point("hybrid-1@compact", hybrid_shared), point("hybrid-1@spread", hybrid)],
                      [], ["total", "force"], Rule(tie_within=0.02))
    found = {(d.configuration, d.region): d for d in diffs(section)}
    assert set(found) == {("pure-mpi", LOOP), ("pure-mpi", "force"), ("hybrid-1", LOOP), ("hybrid-1", "force")}
    total = found["pure-mpi", LOOP]
    assert (total.placement, total.scale, total.shared, total.other) == ("spread", 4, 2436.699, 2328.641)
    assert total.judgement.estimate == pytest.approx(0.04434, abs=5e-5) and total.judgement.word == "differs"
    assert found["hybrid-1", LOOP].judgement.estimate == pytest.approx(0.01247, abs=5e-5)
    assert found["hybrid-1", LOOP].judgement.word == "within" and found["hybrid-1", "force"].judgement.n == 5


def test_the_rows_of_one_comparison_share_its_confidence_by_bonferroni():
    """A comparison of k = 4 rows (the loop time, three regions) judges each at 1 − 10%/4 = 97.5%, so that the four
    verdicts hold together at the study's 90%: region a's Diff, whose 90% interval alone lies above +2% (`differs`),
    is `undecided` at 97.5%. With one region, k = 2 and each row is at 95%."""
    diff = [0.0, 0.01, 0.025, 0.03, 0.04, 0.05, 0.05, 0.06, 0.07, 0.08]  # region a under spread, per block

    def placed(policy, a_times):
        runs = [{"repeat": k, "loop_time": 1.0, "profile": {"regions": {"a": {"time": {"avg": a}},
                                                                        "b": {"time": {"avg": 1.0}},
                                                                        "c": {"time": {"avg": 1.0}}}}}
                for k, a in enumerate(a_times)]
        return Point(f"pure-mpi@{policy}", 2, 2, 1, 2, 1, "", None, 0, runs)

    points = [placed("compact", [1.0] * len(diff)), placed("spread", [1.0 - d for d in diff])]
    found = {d.region: d for d in diffs(Section({}, "cores", points, [], ["total", "a", "b", "c"], Rule()))}
    assert set(found) == {LOOP, "a", "b", "c"}
    assert all(d.confidence == pytest.approx(0.975, abs=1e-12) for d in found.values())
    values = [(1.0 - (1.0 - d)) / 1.0 for d in diff]  # as diffs() takes them
    alone = judge_samples(values, Band(-0.02, 0.02), 0.90)
    assert (alone.word, alone.low) == ("differs", pytest.approx(0.025))
    a = found["a"].judgement
    assert (a.word, a.low, a.high) == ("undecided", pytest.approx(0.0175), pytest.approx(0.065))
    assert a.estimate == alone.estimate == pytest.approx(0.045)
    assert [found[r].judgement.word for r in (LOOP, "b", "c")] == ["within"] * 3
    (_, _, rows) = placement_table.table(Section({}, "cores", points, [], ["total", "a", "b", "c"], Rule()))
    assert [row[8] for row in rows] == ["97.5%"] * 4
    one = diffs(Section({}, "cores", points, [], ["a"], Rule()))
    assert [(d.region, d.confidence) for d in one] == [(LOOP, pytest.approx(0.95)), ("a", pytest.approx(0.95))]


def test_configurations_of_one_shape_are_one_row():
    """On one core pure MPI and hybrid are the same 1 x 1 runs: one Diff, named as their race names them."""
    one = [Point(f"{c}@{p}", 1, 1, 1, 1, 1, "", None, 0, point(c, [1.0, 0.5 if p == "spread" else 1.0]).runs)
           for c in ("pure-mpi", "hybrid-1") for p in ("compact", "spread")]
    (d,) = diffs(Section({}, "cores", one, [], [], Rule()))
    assert (d.configuration, d.judgement.estimate) == ("pure-mpi = hybrid-1", pytest.approx(0.25))


def test_a_diff_of_one_block_is_undecided():
    section = Section({}, "cores", [point("pure-mpi@compact", [1.0]), point("pure-mpi@spread", [0.9])], [], [],
                      Rule())
    (d,) = diffs(section)
    assert d.judgement.word == "undecided" and d.judgement.estimate == pytest.approx(0.1)


def test_a_rank_bound_elsewhere_than_chosen_is_a_warning():
    run = {"affinity": [{"rank": 0, "host": "n1", "threads": [{"thread": 0, "allowed": [0], "cpu": 0}]},
                        {"rank": 1, "host": "n1", "threads": [{"thread": 0, "allowed": [0, 1], "cpu": 1}]}]}
    assert binding_warnings(run, ((0,), (1,))) == ["n1: rank 1 was allowed CPUs [0, 1], not the [1] its placement "
                                                   "chose"]
    assert binding_warnings(run, ((0,), (0, 1))) == []


@pytest.mark.kernel
def test_a_placement_study_runs_here_binds_what_it_chose_and_reports_its_diffs(tmp_path, md_binary):
    path = tmp_path / "placed.yaml"
    path.write_text(SPEC.format(repeats=2, results=tmp_path / "r").replace("[pure-mpi, hybrid-1]", "[pure-mpi]"))
    out = subprocess.run([*HYBRIDPERF, "study", str(path)], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "COLUMNS": "250"})  # the tables' titles on one line
    assert out.returncode == 0, out.stderr
    assert "note: 2 x 1: compact and spread bind the same CPUs (0,1)" in out.stderr
    assert "what placement costs" in out.stdout and "pure-mpi" in out.stdout
    db = sqlite3.connect(tmp_path / "r" / "results.db")
    db.row_factory = sqlite3.Row
    runs = [dict(r) for r in db.execute("SELECT * FROM runs WHERE warmup = 0")]
    assert sorted(r["configurations"] for r in runs) == ["pure-mpi@compact"] * 2 + ["pure-mpi@spread"] * 2
    for r in runs:
        assert r["status"] == "ok" and json.loads(r["warnings"]) == []
        profile = json.loads((tmp_path / "r" / r["profile_path"]).read_text())
        bound = [t["allowed"] for rank in profile["run"]["affinity"] for t in rank["threads"]]
        assert bound == [[0], [1]]  # what both policies chose here
        assert ("--rankfile" in r["launch"]) == r["configurations"].endswith("@spread")
    report = subprocess.run([*HYBRIDPERF, "report", str(tmp_path / "r"), "--json"], capture_output=True, text=True,
                            timeout=120)
    rows = json.loads(report.stdout)["sections"][0]["placement"]
    assert {(r["configuration"], r["placement"], r["region"]) for r in rows} >= {("pure-mpi", "spread", "loop time"),
                                                                                 ("pure-mpi", "spread", "force")}
    assert all(r["blocks"] == 2 and r["verdict"] in ("within", "differs", "undecided") for r in rows)
