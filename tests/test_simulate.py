"""The simulator (docs/simulation.md): the kernel's plan against the real run's profile, traces and SMPI replay
against the compute model and the network's figures, the study command, its bad input, and the validation
against the seeds."""

import csv
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from hybridperf import cluster, profile
from hybridperf.launch import kernels
from hybridperf.models import published, thesis
from hybridperf.models.split import Split, ThreadEfficiency
from hybridperf.simulate import outcome, paje, point, rules, spmv_costs, study as simulation, traces
from hybridperf.simulate import validate as validation, validate_spmv
from hybridperf.simulate.compute import compute_seconds, Threads
from hybridperf.simulate.md_costs import MdCosts
from hybridperf.simulate.plan import Op, parse, Plan, RankPlan, traffic
from hybridperf.simulate.replay import replay, ReplayFailed
from hybridperf.simulate.sensitivity import Scaled
from hybridperf.simulate.backend import SimGridBackend
from hybridperf.store.db import Store
from hybridperf.study import spec as specs
from hybridperf.study.run import run_study, Silent

from conftest import run_kernel_in

HYBRIDPERF = [sys.executable, "-m", "hybridperf"]
SMPI = shutil.which("smpirun") is not None
needs_smpi = pytest.mark.skipif(not SMPI, reason="SimGrid's smpirun missing: apt-get install libsimgrid-dev")
REPO = Path(__file__).parents[1]

TWO_NODES = """
name: two
nodes: 2
sockets: 1
cores_per_socket: 2
network:
  latency: {value: LATENCY, source: test}
  bandwidth: {value: BANDWIDTH, source: test}
  topology: {kind: star, source: test}
intra_node:
  latency: {value: LATENCY, source: test}
  bandwidth: {value: BANDWIDTH, source: test}
fork_join: {value: 1us, threads: 2, source: test}
"""


def two_nodes(latency: str, bandwidth: str = "1GBps") -> cluster.ClusterSpec:
    return cluster.parse(TWO_NODES.replace("LATENCY", latency).replace("BANDWIDTH", bandwidth), "two")


MODEL = MdCosts(force=1e-6, integrate=1e-7, neighbor=2e-7, pack=1e-8, threads=Threads(ThreadEfficiency()),
                fork_join=lambda t: 1e-6)


def md_plan(args: tuple[str, ...], ranks: int):
    return parse(kernels.plan("md", args, ranks))


POTENTIALS = Path("/usr/share/lammps/potentials")
MANY_BODY = [  # DL_POLY's shapes: eam/fs one and two elements (densities home, F' out, forces home), Tersoff
    ("--potential", "eam/fs", "--potential-file", str(POTENTIALS / "Fe_mm.eam.fs"), "--elements", "Fe", "-s", "6"),
    ("--potential", "eam/fs", "--potential-file", str(POTENTIALS / "AlFe_mm.eam.fs"), "--elements", "Al,Fe",
     "--lattice", "l12", "--lattice-constant", "3.75", "-s", "5"),
    ("--potential", "tersoff", "--potential-file", str(POTENTIALS / "SiC.tersoff"), "--elements", "Si,C",
     "--lattice", "zincblende", "--lattice-constant", "4.36", "-s", "4")]


@pytest.mark.kernel
@pytest.mark.parametrize("ranks, args", [(2, ("-s", "6", "--steps", "5", "--thermo", "0")),
                                         (4, ("-s", "8", "--steps", "7", "--thermo", "3")),
                                         *[pytest.param(2, (*a, "--steps", "5", "--temp", "1"),
                                                        marks=pytest.mark.skipif(not POTENTIALS.exists(),
                                                                                 reason="apt-get install lammps"))
                                           for a in MANY_BODY]])
def test_plan_equals_the_real_runs_messages_and_bytes(run_md, ranks, args):
    """Call for call, message for message and byte for byte: the plan's traffic per rank is what the run's profile
    counts, and
    its halo messages carry the atoms the run sent in each direction (rank numbering as MPI_Cart_create's)."""
    real = run_md(ranks=ranks, args=args)
    assert real.returncode == 0, real.stderr
    plan = md_plan(args, ranks)
    comm = real.profile["comm"]
    sent = [traffic(plan, r) for r in plan.ranks_plan]
    assert sum(t.p2p_calls for t in sent) == comm["p2p"]["calls"]
    assert sum(t.p2p_messages for t in sent) == comm["p2p"]["messages"]
    assert sum(t.p2p_bytes for t in sent) == comm["p2p"]["bytes"]
    assert sum(t.collectives for t in sent) == comm["collective"]["calls"]
    assert sum(t.collective_bytes for t in sent) == comm["collective"]["bytes"]
    halo = [[op.bytes // 24 for op in r.ordinary if op.region == "halo_exchange"] for r in plan.ranks_plan]
    assert halo == real.profile["md"]["halo"]["atoms_per_message"]
    assert list(plan.grid) == real.profile["md"]["grid"]
    assert sum(r.work["atoms"] for r in plan.ranks_plan) == real.profile["md"]["atoms"]


@pytest.mark.kernel
def test_plan_refuses_what_a_run_would(md_binary):
    out = subprocess.run([str(md_binary), "-s", "4", "--plan", "64"], capture_output=True, text=True)
    assert out.returncode == 2 and "thinner than cutoff + skin" in out.stderr
    with pytest.raises(kernels.KernelRefused, match="planning a --read-data system is not supported"):
        kernels.plan("md", ("--read-data", "x.data"), 2)


@pytest.mark.kernel
def test_trace_follows_the_step_structure():
    plan = md_plan(("-s", "6", "--steps", "4", "--neigh-every", "2", "--thermo", "0"), 2)
    lines = traces.rank_trace(plan, plan.ranks_plan[0], MODEL, Split(1, 2, 1)).splitlines()
    actions = [line.split()[1] for line in lines]
    assert actions[0] == "init" and actions[-1] == "finalize"
    # steps 1 and 3: 6 halo messages; 2 and 4 rebuild: 6 migration + 6 halo; the sum at step 4 only
    assert actions.count("sendRecv") == 6 + 12 + 6 + 12 and actions.count("allreduce") == 1
    assert actions.index("allreduce") == len(actions) - 2



@pytest.mark.kernel
def test_rank_traces_are_made_on_demand_and_equal_the_list_of_them():
    """A replay asks for one rank's trace at a time (no list of all ranks' texts at 16,384 ranks): the same
    texts, in rank order, as rank_trace of each rank, with the omitted regions and the network interface's additions
    passed on."""
    plan = md_plan(("-s", "8", "--steps", "4", "--neigh-every", "2", "--thermo", "2"), 4)
    split, omit, interface = Split(2, 2, 1), frozenset({"reduction"}), cluster.Interface(24, 1e-9)
    lazy = traces.RankTraces(plan, MODEL, split, omit, interface)
    made = [traces.rank_trace(plan, r, MODEL, split, omit, interface) for r in plan.ranks_plan]
    assert len(lazy) == 4 and list(lazy) == made and lazy[3] == made[3] and lazy[1:3] == made[1:3]
    assert not any("allreduce" in text for text in lazy) and len(set(made)) == 4 and " sleep " in made[0]


@pytest.mark.kernel
def test_a_replay_past_its_timeout_leaves_no_simulator_running(tmp_path, monkeypatch):
    """smpirun starts the simulator as its child: past the timeout both are killed, not smpirun alone."""
    fake = tmp_path / "bin" / "smpirun"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\nsleep 60 &\necho $! > child.pid\nwait\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(ReplayFailed, match="ran past 1 s"):
        replay(["0 init\n0 finalize\n"], two_nodes("1us"), 1, tmp_path / "work", timeout=1)
    stat = Path(f"/proc/{(tmp_path / 'work' / 'child.pid').read_text().strip()}/stat")
    deadline = time.monotonic() + 5  # SIGKILL is delivered asynchronously: give the kernel a moment
    while stat.exists() and stat.read_text().split()[2] != "Z" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not stat.exists() or stat.read_text().split()[2] == "Z"  # gone, or dead and not yet reaped

@pytest.mark.kernel
def test_sends_are_eager_up_to_4096_ranks_and_rendezvous_above(tmp_path, monkeypatch):
    """SimGrid 3.32 searches one list of every eager (detached) send at each completion: above 4,096 ranks the
    replay makes sends rendezvous, at and below it keeps SMPI's eager sends (replay.EAGER_RANKS)."""
    fake = tmp_path / "bin" / "smpirun"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\necho "$@" > arguments\necho "Simulated time: 1.5 seconds"\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    spec = dataclasses.replace(two_nodes("1us"), nodes=2049)
    for ranks, rendezvous in ((4096, False), (4097, True)):
        work = tmp_path / str(ranks)
        assert replay(["0 init\n0 finalize\n"] * ranks, spec, 2, work) == 1.5
        assert ("smpi/send-is-detached-thresh:0" in (work / "arguments").read_text()) == rendezvous
        assert len((work / "traces.txt").read_text().split()) == ranks


@pytest.mark.kernel
@needs_smpi
def test_free_network_replays_the_compute_model(tmp_path):
    """Zero latency and unlimited bandwidth: the replay takes what the slowest rank computes."""
    plan = md_plan(("-s", "6", "--steps", "3"), 2)
    free = two_nodes("1e-9ns", "1e9TBps")
    for threads in (1, 2):
        split = Split(2, 1, threads)
        texts = [traces.rank_trace(plan, r, MODEL, split) for r in plan.ranks_plan]
        expected = max(compute_seconds(plan, r, MODEL, split) for r in plan.ranks_plan)
        assert replay(texts, free, 1, tmp_path) == pytest.approx(expected, rel=1e-5)


@pytest.mark.kernel
@needs_smpi
def test_doubling_the_latency_adds_a_latency_per_message_on_the_path(tmp_path):
    """2 ranks on 2 nodes, grid 2x1x1: per step the two x messages cross the network (the y and z ones go to the
    rank itself); the last step's sum adds its own. Doubling the latency again adds twice as much."""
    plan = md_plan(("-s", "6", "--steps", "3", "--thermo", "0"), 2)
    texts = [traces.rank_trace(plan, r, MODEL, Split(2, 1, 1)) for r in plan.ranks_plan]
    t1, t2, t4 = (replay(texts, two_nodes(latency), 1, tmp_path / latency) for latency in ("10us", "20us", "40us"))
    assert t4 - t2 == pytest.approx(2 * (t2 - t1), rel=1e-3)
    crossings = 2 * plan.steps
    assert crossings * 10e-6 <= t2 - t1 <= (crossings + 4) * 10e-6


@pytest.mark.kernel
@needs_smpi
def test_simulated_profile_is_a_profile(tmp_path):
    plan = md_plan(("-s", "6", "--steps", "3"), 4)
    spec = two_nodes("2us")
    split = Split(2, 2, 1)
    result = point.simulate(plan, MODEL, spec, split, tmp_path)
    assert result.seconds >= result.compute > 0 and result.p2p > 0
    made = point.profile(plan, result, MODEL, spec, split, {"size": 6}, ["smpirun"], "SimGrid 3.32")
    profile.validate(made)
    assert made["comm"]["p2p"]["bytes"] == sum(traffic(plan, r).p2p_bytes for r in plan.ranks_plan)
    assert made["simulated"]["cluster"] == "two"


def test_cores_must_fill_the_clusters_nodes():
    merlin = cluster.load("merlin")
    with pytest.raises(simulation.SimulationError, match="8-core nodes"):
        simulation.scales(merlin, (64, 60))
    with pytest.raises(simulation.SimulationError, match="more than Merlin has"):
        simulation.scales(merlin, (4096,))
    assert simulation.scales(merlin, None) == (8, 16, 32, 64, 128, 256, 512)


SPEC = """
study: tiny-md
kernel: md
params: {size: 8, steps: 20}
configurations: [pure-mpi, hybrid-1]
cores: [1, 2]
results: RESULTS
"""


@pytest.mark.kernel
@needs_smpi
def test_simulate_command_stores_and_reports_simulated_runs(tiny_study, tmp_path):
    spec = tmp_path / "tiny.yaml"
    spec.write_text(SPEC.replace("RESULTS", str(tiny_study)))
    out = subprocess.run([*HYBRIDPERF, "simulate", str(spec), "--cluster", "merlin", "--cores", "8,16", "--steps",
                          "4"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert (tiny_study / "report-merlin.html").exists()
    with Store(tiny_study) as store:
        runs = store.runs("tiny-md-on-merlin")
    assert {(r["nodes"], r["ranks_per_node"], r["threads"]) for r in runs} == {(1, 8, 1), (1, 1, 8), (2, 8, 1),
                                                                                (2, 1, 8)}
    assert all(r["backend"] == "simgrid" and r["status"] == "ok" for r in runs)
    costs = runs[0]["profile"]["simulated"]["compute_model"]
    with Store(tiny_study) as store:  # the force cost is one serial run's force time per atom-step
        per_atom_step = [(p["regions"]["force"]["time"]["avg"] + p["regions"].get("force_reduction", {}).get(
            "time", {}).get("avg", 0.0)) / (p["md"]["atoms"] * p["md"]["steps_done"])
            for r in store.runs("tiny-md") if r["ranks"] * r["threads"] == 1 and (p := r["profile"])]
    assert per_atom_step and min(per_atom_step) <= costs["force_s_per_atom_step"] <= max(per_atom_step)
    assert "measured" in costs["sources"]["costs"]


@pytest.mark.kernel
@needs_smpi
def test_sensitivity_replays_each_contest_with_every_assumed_input_moved(tiny_study, tmp_path):
    """--sensitivity: at each core count the winner and runner-up of the simulation, and for each of Merlin's
    assumed figures and the compute costs whether halving or doubling it makes the runner-up win."""
    spec = tmp_path / "tiny.yaml"
    spec.write_text(SPEC.replace("RESULTS", str(tiny_study)))
    command = [*HYBRIDPERF, "simulate", str(spec), "--no-report", "--cluster", "merlin", "--cores", "8,16", "--steps",
               "2"]
    assert subprocess.run(command, capture_output=True, text=True).returncode == 0  # campaign 1 of the simulation
    out = subprocess.run([*command, "--sensitivity"], capture_output=True, text=True)  # campaign 2: its own keys
    assert out.returncode == 0, out.stderr
    header, *rows = list(csv.reader((tiny_study / "sensitivity-merlin.csv").read_text().splitlines()))
    assert header[-3:] == ["intra-node latency", "intra-node bandwidth", "compute costs"]
    with Store(tiny_study) as store:
        runs = store.runs("tiny-md-on-merlin", campaign=2)
    for row in rows:
        cores = int(row[header.index("cores")])
        here = sorted((r for r in runs if r["ranks"] * r["threads"] == cores), key=lambda r: r["loop_time"])
        assert row[header.index("winner")] == here[0]["configurations"][0]
        assert float(row[header.index("margin")]) == pytest.approx(here[1]["loop_time"] / here[0]["loop_time"] - 1)
        assert all(move in ("–", "≤÷2", "≤×2", "≤×2 ≤÷2") for move in row[header.index("margin") + 1:])
    assert sorted(int(row[header.index("cores")]) for row in rows) == [8, 16]


@pytest.mark.kernel
def test_scaled_compute_costs_scale_every_second():
    plan = md_plan(("-s", "6", "--steps", "3"), 2)
    split = Split(1, 2, 1)
    for rank in plan.ranks_plan:
        assert compute_seconds(plan, rank, Scaled(MODEL, 2.0), split) == \
            pytest.approx(2 * compute_seconds(plan, rank, MODEL, split), rel=1e-12)


@pytest.mark.kernel
def test_simulate_bad_input_is_one_line_and_writes_nothing(tmp_path):
    spec = tmp_path / "tiny.yaml"
    spec.write_text(SPEC.replace("RESULTS", str(tmp_path / "none")))
    cases = [(["--cluster", "nowhere"], "unknown cluster 'nowhere'"),
             (["--cluster", "merlin", "--cores", "12"], "not a whole number of Merlin's 8-core nodes"),
             (["--cluster", "merlin", "--cores", "8", "--costs", "measured"], "has no results.db")]
    for extra, message in cases:
        out = subprocess.run([*HYBRIDPERF, "simulate", str(spec), "--no-report", *extra], capture_output=True,
                             text=True)
        assert out.returncode == 2 and message in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "none").exists()


@pytest.mark.kernel
@needs_smpi
def test_simulate_on_a_fresh_machine_prices_md_with_the_thesis_and_says_so(tmp_path):
    spec = tmp_path / "tiny.yaml"
    spec.write_text(SPEC.replace("RESULTS", str(tmp_path / "fresh")))
    out = subprocess.run([*HYBRIDPERF, "simulate", str(spec), "--no-report", "--cluster", "merlin", "--cores", "8",
                          "--steps", "2"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "costs: the thesis's Merlin core (no measured 1 rank x 1 thread run" in out.stderr
    assert (tmp_path / "fresh" / "results.db").exists() and not (tmp_path / "fresh" / "report-merlin.html").exists()


@pytest.mark.kernel
def test_simulate_without_simgrid_says_how_to_install(tiny_study, tmp_path):
    spec = tmp_path / "tiny.yaml"
    spec.write_text(SPEC.replace("RESULTS", str(tiny_study)))
    python_only = {**os.environ, "PATH": str(Path(sys.executable).parent)}
    out = subprocess.run([*HYBRIDPERF, "simulate", str(spec), "--no-report", "--cluster", "merlin", "--cores", "8"],
                         capture_output=True, text=True, env=python_only)
    assert out.returncode == 2 and "apt-get install libsimgrid-dev" in out.stderr


@pytest.mark.kernel
@needs_smpi
def test_a_failed_replay_is_stored_as_a_failed_simulated_run(tiny_study, monkeypatch):
    def refuse(*args, **kwargs):
        raise ReplayFailed("smpirun -replay exited 134: free(): invalid pointer")

    monkeypatch.setattr(point, "simulate", refuse)
    merlin = cluster.load("merlin")
    study = simulation.on_cluster(specs.parse(SPEC.replace("RESULTS", str(tiny_study)), cores_per_node=8), merlin,
                                  (8,), 2, "merlin", "thesis")
    with Store(tiny_study) as store:
        outcome = run_study(study, store, SimGridBackend(study, tiny_study), Silent(), "tiny.yaml")
        stored = store.runs(study.name)
    assert outcome.failed and all(r["status"] == "failed" and "invalid pointer" in r["reason"] for r in stored)
    assert all(r.outcome == "failed" for r in outcome.races.values())


# SPEC's study, replayed on 1 and 2 of Merlin's nodes
SIMULATED = (SPEC.replace("tiny-md", "tiny-sim").replace("steps: 20", "steps: 2").replace("cores:", "nodes:")
             + "backend: simgrid\nsimgrid: {cluster: merlin, costs: thesis}\n")


@pytest.mark.kernel
@needs_smpi
def test_an_interrupted_simulated_study_resumes_where_it_stopped(tmp_path):
    """backend simgrid is a study backend like the others: interrupted after two replays (the first race's block),
    the same command resumes campaign 1 and replays only the second race's two points; each point once."""
    spec = tmp_path / "sim.yaml"
    spec.write_text(SIMULATED.replace("RESULTS", str(tmp_path / "res")))
    study = specs.load(spec)
    assert study.cores_per_node == 8 and study.rule.max_blocks == 1  # Merlin's nodes; one replay decides

    class Interrupted(SimGridBackend):
        def run(self, plans, done):
            for plan in plans:
                if len(self.ran) == 2:
                    raise KeyboardInterrupt
                super().run([plan], done)

    with Store(tmp_path / "res") as store:
        first = run_study(study, store, Interrupted(study, tmp_path / "res"), Silent(), str(spec))
    assert first.ended == "interrupted" and len(first.stored) == 2
    out = subprocess.run([*HYBRIDPERF, "study", str(spec), "--no-report"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "resuming tiny-sim campaign 1: 2 runs already stored" in out.stdout
    with Store(tmp_path / "res") as store:
        runs = store.runs("tiny-sim")
        [campaign] = store.campaigns("tiny-sim")
    assert campaign.ended == "decided" and len(runs) == 4 and len({r["run_key"] for r in runs}) == 4
    assert {(r["nodes"], r["ranks_per_node"], r["threads"]) for r in runs} == {(1, 8, 1), (1, 1, 8), (2, 8, 1),
                                                                                (2, 1, 8)}
    assert all(r["backend"] == "simgrid" and r["status"] == "ok" and not r["warmup"] for r in runs)


def test_a_simulated_spec_names_its_cluster_and_takes_no_stopping_rule(tmp_path):
    cases = [(SIMULATED.replace("simgrid: {cluster: merlin, costs: thesis}\n", ""), "needs simgrid: {cluster: NAME}"),
             (SIMULATED.replace("cluster: merlin", "cluster: nowhere"), "unknown cluster 'nowhere'"),
             (SIMULATED.replace("costs: thesis", "costs: cheap"), "costs must be one of auto, measured, thesis"),
             (SIMULATED + "repeats: 3\n", "no repeats"),
             (SIMULATED + "decide: {confidence: 95%}\n", "its decide block takes only tie_within"),
             (SIMULATED.replace("kernel: md", "kernel: stream").replace("size: 8, steps: 2", "size: 8"),
              "has no --plan mode"),
             (SIMULATED.replace("backend: simgrid", "backend: local"), "a simgrid: block goes with backend: simgrid")]
    for text, message in cases:
        with pytest.raises(specs.SpecError, match=re.escape(message)):
            specs.parse(text.replace("RESULTS", str(tmp_path)), cores_per_node=2)


@pytest.mark.kernel
def test_a_simulated_spec_keeps_its_declared_tie_band(tmp_path):
    study = specs.parse((SIMULATED + "decide: {tie_within: 5%}\n").replace("RESULTS", str(tmp_path)), cores_per_node=2)
    assert study.rule.tie_within == 0.05 and study.rule.max_blocks == 1


@pytest.mark.parametrize("rule, published, simulated, tolerance, params, expected", [
    ("ratio_within", 0.4, 0.45, 0.25, {}, True),
    ("ratio_within", 0.4, 0.5, 0.25, {}, True),  # at the tolerance
    ("ratio_within", 0.4, 0.51, 0.25, {}, False),
    ("ratio_within", {32: {"hybrid-1": 5.0, "hybrid-2": 2.5}}, {32: {"hybrid-1": 4.0, "hybrid-2": 2.5}}, 0.25, {}, True),
    ("ratio_within", {32: {"hybrid-1": 5.0, "hybrid-2": 2.5}}, {32: {"hybrid-1": 3.7, "hybrid-2": 2.5}}, 0.25, {}, False),
    ("ratio_within", {32: {"hybrid-1": 5.0}}, {64: {"hybrid-1": 5.0}}, 0.25, {}, False),  # a figure per key
    ("ratio_within", 1.9, 1.03, 0.25, {}, False),  # the right direction, the wrong size
    ("ratio_within", 1.1, 0.95, 0.25, {}, False),  # within 25% but the other side of 1: the other winner
    ("ratio_within", {8: 0.4, 27: 1.5}, {8: 0.42, 27: 1.3}, 0.25, {}, True),
    ("ratio_within", {8: 0.4, 27: 1.5}, {8: 0.42, 27: 1.1}, 0.25, {}, False),  # one count out is out
    ("winner_at_every_count", {16: "pure-mpi", 32: "pure-mpi"}, {16: "pure-mpi", 32: "pure-mpi"}, 0, {}, True),
    ("winner_at_every_count", {16: "pure-mpi", 32: "pure-mpi"}, {16: "pure-mpi", 32: "hybrid-1"}, 0, {}, False),
    ("winner_at_every_count", {16: "pure-mpi", 32: "pure-mpi"}, {16: "pure-mpi", 32: "hybrid-1"}, 1, {}, True),
    ("crossover_within_steps", 48, 64, 1, {"counts": [16, 32, 64, 96]}, True),  # the first count above 48
    ("crossover_within_steps", 48, 96, 1, {"counts": [16, 32, 64, 96]}, True),  # one step away: the edge
    ("crossover_within_steps", 48, 16, 1, {"counts": [16, 32, 64, 96]}, False),
    ("crossover_within_steps", 48, None, 1, {"counts": [16, 32, 64, 96]}, False),  # hybrids never win
    ("above", 2, {384: 2.5, 512: 13.2}, 0, {}, True),
    ("above", 2, {384: 2.0, 512: 13.2}, 0, {}, False),  # at the threshold is not above it
    ("below", 1, {8: 0.8, 27: 0.99}, 0, {}, True),
    ("below", 1, {8: 0.8, 27: 1.0}, 0, {}, False),
    ("above", 1, {16: {"hybrid-1": 1.5, "hybrid-2": 1.2}}, 0, {}, True),  # a threshold for every configuration
    ("above", 1, {16: {"hybrid-1": 1.5, "hybrid-2": 0.9}}, 0, {}, False),
])
def test_each_rule_judges_synthetic_figures(rule, published, simulated, tolerance, params, expected):
    assert rules.judge(rule, published, simulated, tolerance, params) is expected


def test_every_declared_outcome_has_its_figure_rule_and_inputs():
    """validate-outcomes.yaml is complete: every field, a known rule and measure, a published figure of numbers
    (or winners), and held_out only where no input comes from the outcome's own experiment."""
    tables = re.compile(r"(?:Table|Fig\.) \d+(?:\.\d+)?")
    raw = yaml.safe_load(outcome.DECLARED.read_text())
    assert len({entry["name"] for entry in raw}) == len(raw) >= 10
    for entry in raw:
        assert set(entry) == set(outcome.FIELDS), entry["name"]
        assert entry["claim"] and entry["source"] and entry["published"] is not None
        assert entry["rule"] in rules.RULES
        assert entry["measure"] in {**validation.MEASURES, **validate_spmv.MEASURES}
        assert isinstance(entry["tolerance"], (int, float)) and entry["tolerance"] >= 0
        figures = [figure for figure, _ in rules.values(entry["published"], {})]
        kind = str if entry["rule"] == "winner_at_every_count" else (int, float)
        assert all(isinstance(v, kind) for v in figures), entry["name"]
        swept = {*outcome.INPUT_FIELDS, *outcome.SWEPT_FIELDS}  # an assumed input's range: test_simulate_sensitivity
        assert entry["inputs"] and all(set(i) in ({*outcome.INPUT_FIELDS}, swept) for i in entry["inputs"])
        assert entry["held_out"] is not any(i["same_experiment"] for i in entry["inputs"]), entry["name"]
        for i in entry["inputs"]:  # not empty: asserted above
            if set(tables.findall(i["from"])) & set(tables.findall(entry["source"])):
                assert i["same_experiment"] and not entry["held_out"], (entry["name"], i["from"])
        if entry["rule"] == "crossover_within_steps":
            assert entry["params"]["counts"] == sorted(entry["params"]["counts"])
        assert entry["params"].get("costs", "merlin") in simulation.THESIS_TABLES, entry["name"]


def test_declared_spmv_figures_are_table_8s_and_9s():
    table8 = {int(r["size"]): {k: float(v) for k, v in r.items()}
              for r in published.rows(published.DATA / "chow-hysom-table8-ni.csv")}
    table9 = {(int(r["size"]), int(r["nodes"])): {k: float(v) for k, v in r.items()}
              for r in published.rows(published.DATA / "chow-hysom-table9-scaling.csv")}
    declared = [d for d in outcome.declared() if d.measure in ("spmv_e_mp", "spmv_e_ni", "spmv_total_ratio")]
    assert {d.measure for d in declared} == {"spmv_e_mp", "spmv_e_ni", "spmv_total_ratio"}
    for d in declared:
        if d.measure == "spmv_e_mp":
            for nodes, value in d.published.items():
                row = table9[d.params["size"], nodes]
                assert value == round(row["comm_hybrid"] / row["comm_mpi"], 2), (d.name, nodes)
        elif d.measure == "spmv_e_ni":  # Table 8's communication of one mode over another's
            column = {"mpi": "mpi_shared_memory", "mpi-switch": "mpi", "hybrid": "hybrid"}  # ibm-sp has shared memory
            for size, value in d.published.items():
                row = table8[size]
                ratio = row[column[d.params["numerator"]]] / row[column[d.params["denominator"]]]
                assert value == round(ratio, 3), (d.name, size)
        elif d.measure == "spmv_total_ratio":
            row = table9[d.params["size"], d.params["nodes"]]
            assert d.published == round(row[f"total_{d.params['numerator']}"] / row[f"total_{d.params['denominator']}"], 3)


class _FakeMd(validation.Simulator):
    """Pure MPI fast below 48 cores, the hybrids above, hybrid-2 a little faster than hybrid-1; hybrid-1's master
    packs four times pure MPI's, its force takes 7% longer and its integration 20%, on every cluster; each rank
    of a plan sends 1000 bytes per step times (512 / ranks) ** (2/3), as a cube's faces; no replay."""

    def plan(self, ranks: int, workload: validation.Workload | None = None) -> Plan:
        sent = round(1000 * (512 / ranks) ** (2 / 3))
        one = (Op("sendrecv", "halo_exchange", sent, 0, 0, sent),)
        return Plan("md", ranks, (ranks, 1, 1), {}, 2, frozenset(), frozenset(),
                    tuple(RankPlan(r, {}, one, one, ()) for r in range(ranks)))

    def region(self, name: str, cores: int, configuration: str, workload: validation.Thesis, region: str) -> float:
        return {"halo_pack": 4.0, "force": 1.07, "integrate": 1.2}[region] if configuration == "hybrid-1" else 1.0

    def seconds(self, name: str, cores: int, configuration: str, workload: validation.Workload | None = None) -> float:
        hybrid = configuration != "pure-mpi"
        return 10.0 + (-1 if hybrid else 1) * (cores - 48) / 100 - (0.01 if configuration == "hybrid-2" else 0)

    def mpi_times(self, name: str, cores: int, configuration: str, workload: validation.Workload | None = None) \
            -> paje.MpiTimes:
        """Two ranks: rank 0 in the messages and sums below, rank 1 twice as long in each."""
        p2p, sums = (0.5, 0.1) if configuration != "pure-mpi" else (1.0, 0.3)
        seconds = self.seconds(name, cores, configuration, workload)
        return paje.MpiTimes((seconds, seconds), (p2p, 2 * p2p), (sums, 2 * sums))


class _FakeSpmv(validate_spmv.SpmvSimulator):
    """MPI through the switch adapter communicates 1.25x as long as MPI with shared memory, Hybrid half as long."""

    def __call__(self, size: int, nodes: int, mode: str) -> tuple[float, float]:
        return {"mpi-switch": (2.5, 1.25), "mpi": (2.0, 1.0), "hybrid": (1.0, 0.5)}[mode]


def test_validate_judges_every_declared_outcome_by_its_rule():
    """The whole of `simulate validate` but the replays: each declared outcome measured, judged and emitted with
    the fields the docs read."""
    found = validation.outcomes(md=_FakeMd(1, lambda line: None), spmv=_FakeSpmv(1, lambda line: None))
    assert [o.name for o in found] == [d.name for d in outcome.declared()]
    by_name = {o.name: o for o in found}
    assert by_name["cseem64t_gige_crossover"].simulated == 64 and by_name["cseem64t_gige_crossover"].reproduced
    assert by_name["merlin_pure_fastest"].simulated[64] == "hybrid-2" and not by_name["merlin_pure_fastest"].reproduced
    assert by_name["merlin_sum_ratio"].simulated == {384: 3.0, 512: 3.0} and by_name["merlin_sum_ratio"].reproduced
    # DL_POLY: the hybrids win from 64 cores; Table 1 has them from 256 on Merlin (two steps away), 64 on Stella
    merlin, stella = by_name["dlpoly_merlin_test20_crossover"], by_name["dlpoly_stella_test20_crossover"]
    assert merlin.simulated == 64 and not merlin.reproduced and stella.simulated == 64 and stella.reproduced
    assert merlin.detail[512] == {"hybrid-1": outcome.rounded(14.64 / 5.36), "hybrid-2": outcome.rounded(14.64 / 5.35)}
    # movout: (packing 1 + messages 1) / (packing 4 + messages 0.5), within 25% of Infinipath's 0.427 only
    infinipath = by_name["movout_ratio_infinipath"]
    assert infinipath.simulated == {"cseem64t-infinipath": outcome.rounded(2 / 4.5)} and infinipath.reproduced
    assert infinipath.detail["cseem64t-infinipath"]["hybrid-1"] == {"packing": 4.0, "messages": 0.5}
    assert not by_name["movout_ratio_gige"].reproduced and not by_name["movout_ratio_merlin"].reproduced
    assert set(by_name["movout_ratio_merlin"].simulated) == {128, 512}
    assert by_name["spmv_500_total"].simulated == 2.0 and by_name["spmv_500_total"].reproduced
    assert not by_name["spmv_256000_total"].reproduced  # published hybrid / MPI 1.136, here 0.5
    e_ni = by_name["spmv_e_ni"]  # MPI's communication over Hybrid's: 1 / 0.5 at every size of Table 8
    assert e_ni.simulated == {size: 2.0 for size in e_ni.published} and not e_ni.reproduced
    # hybrid-2 0.01 s ahead of hybrid-1 everywhere: Merlin's order, not CSEEM64T's
    assert by_name["merlin_hybrid_order"].reproduced and not by_name["cseem64t_infinipath_hybrid_order"].reproduced
    assert by_name["merlin_hybrid_order"].detail[64] == outcome.rounded((10 - 0.16) / (10 - 0.16 - 0.01))
    # DL_POLY's shares of the step at 32 cores, pure MPI, over both ranks as ITAC's flat profile (Table 5.1): sums
    # 0.3 and 0.6 s, messages 1 and 2 s, of 9.84 each; the seeds' timers (movout, sums) are rank 0's alone
    shares = by_name["dlpoly_allreduce_share"], by_name["dlpoly_p2p_share"]
    assert [o.simulated for o in shares] == [outcome.rounded(0.45 / 9.84), outcome.rounded(1.5 / 9.84)]
    assert not any(o.reproduced for o in shares) and shares[1].detail == {"step_s": 9.84, "p2p_s": 1.5}
    # bytes per rank as a cube's faces: 8 ** (2/3) = 4 times pure MPI's with 8 times fewer ranks (hybrid-1)
    data = by_name["md_data_ratio"]
    assert data.simulated[512] == {"hybrid-1": 4.0, "hybrid-2": outcome.rounded(4 ** (2 / 3))}
    assert data.detail[512]["pure-mpi"] == 1000 and not data.reproduced
    # Table 4.9: the same replays on both networks (1 s of movout each way), hybrid-1's losses, sums 0.3 / 0.1
    assert by_name["movout_networks_pure"].simulated == 1.0 and not by_name["movout_networks_pure"].reproduced
    assert by_name["movout_networks_hybrid1"].detail["cseem64t-gige"] == {"packing": 4.0, "messages": 0.5}
    force, integrate = by_name["cseem64t_force_overhead"], by_name["cseem64t_integrate_overhead"]
    assert force.simulated == {"cseem64t-infinipath": 0.07, "cseem64t-gige": 0.07} and force.reproduced
    assert integrate.simulated["cseem64t-gige"] == 0.2 and not integrate.reproduced
    assert integrate.detail["cseem64t-infinipath"] == {"hybrid-1": 1.2, "pure-mpi": 1.0}
    sums = by_name["cseem64t_infinipath_sum_ratio"], by_name["cseem64t_gige_sum_ratio"]
    assert [o.simulated for o in sums] == [{96: 3.0}, {96: 3.0}] and [o.reproduced for o in sums] == [True, False]
    assert sums[0].detail == {96: {"pure-mpi": 0.3, "hybrid-1": 0.1}}
    # DL_POLY's bytes: 4 times per process (hybrid-1) with 8 times fewer ranks, so half in all
    per_process, total = by_name["dlpoly_test20_data_per_process"], by_name["dlpoly_test20_data_total"]
    assert per_process.simulated[512]["hybrid-1"] == 4.0 and total.simulated[512]["hybrid-1"] == 0.5
    assert set(total.simulated) == {16, 32, 64, 128, 256, 512} and per_process.reproduced and total.reproduced
    collectives = by_name["dlpoly_merlin_test20_collective_crossover"]  # hybrids' sums cheaper from 16: 3 steps early
    assert collectives.simulated == 16 and not collectives.reproduced and collectives.detail[16]["pure-mpi"] == 0.3
    stella = by_name["dlpoly_stella_test20_collective_crossover"]  # from 16: 2 steps before 64, the count after 32
    assert stella.simulated == 16 and not stella.reproduced and set(stella.detail) == {16, 32, 64, 128}
    # Table 8's MPI through the switch adapter: 1.25x MPI with shared memory (within 25% of 1.19-1.60 everywhere)
    gain, e_ni_switch = by_name["spmv_shared_memory_gain"], by_name["spmv_e_ni_switch"]
    assert set(gain.simulated.values()) == {1.25} and gain.reproduced
    assert e_ni_switch.simulated[500] == 2.5 and not e_ni_switch.reproduced  # the paper's 4.1
    emitted = json.loads(json.dumps(validation.as_json(found)))
    for o in emitted:
        assert {"name", "claim", "source", "published", "simulated", "rule", "tolerance", "held_out", "reproduced",
                "inputs", "closed_form"} <= set(o)


# parts (names or their prefixes), so that two test workers replay them side by side. Table 4.9's movout ratios and
# compute overheads at 96 cores (the MD simulator's plans, replays without each kind of message, packing, a region's
# time, and rules; one simulator, so the movouts across networks reuse the replays) and DL_POLY's Table 5.1 shares
# (its step at 32 ranks) are replayed here; the other outcomes (the GigE crossover's 15 points, Merlin's and
# Infinipath's 64-512 ranks, the sums, DL_POLY's crossovers and its plans to 512 ranks, SPMV's 216 nodes and Table
# 8's two: minutes of replays) only by `make figures`,
# which remakes the kept output the docs are made from. Their measures are checked by the fake-simulator test above,
# the SPMV network by tests/test_simulate_network.py and the plans against real runs below.
VALIDATE_PARTS = {"table49": ("movout_ratio_infinipath", "movout_ratio_gige", "movout_networks", "cseem64t_force",
                              "cseem64t_integrate"),
                  "dlpoly": ("dlpoly_allreduce_share", "dlpoly_p2p_share")}
FIGURES_ONLY = ("merlin_", "cseem64t_infinipath", "cseem64t_gige", "movout_ratio_merlin", "md_", "dlpoly_merlin",
                "dlpoly_stella", "dlpoly_test20_data", "spmv_")


@pytest.mark.kernel
@needs_smpi
def test_time_inside_the_calls_is_rank_zeros_and_refused_past_the_traced_limit(monkeypatch):
    """DL_POLY's step at 32 ranks: rank 0's seconds inside its sums are its own from the trace, no more than its
    loop; with the traced limit below 32 ranks the replay is not traced, and asking for them says why."""
    sim = validation.Simulator(1, lambda line: None)
    workload = validation.validate_dlpoly.Test20(2.5)
    times = sim.mpi_times("merlin", 32, "pure-mpi", workload)
    assert len(times.elapsed) == 32 and 0 < times.collective[0] < times.elapsed[0]
    assert sim.inside("sums", "merlin", 32, "pure-mpi", workload) == times.collective[0]
    assert sim.inside("p2p", "merlin", 32, "pure-mpi", workload) == times.p2p[0]
    monkeypatch.setattr(point, "TRACED_RANKS", 16)
    with pytest.raises(ValueError, match=r"more ranks than a replay is traced for \(16\)"):
        validation.Simulator(1, lambda line: None).mpi_times("merlin", 32, "pure-mpi", workload)


def test_the_validate_parts_cover_every_outcome_once():
    names = [d.name for d in outcome.declared()]
    parts = [n for prefixes in (*VALIDATE_PARTS.values(), FIGURES_ONLY) for n in names if n.startswith(prefixes)]
    assert sorted(parts) == sorted(names)


@pytest.mark.kernel
@needs_smpi
@pytest.mark.parametrize("part", VALIDATE_PARTS)
def test_validate_reports_every_outcome_as_stored_for_the_docs(part):
    """The docs' table and counts are generated from the output `make figures` keeps (tests/test_figures.py checks
    the pages against it); here the command must still print exactly that, outcome for outcome."""
    names = [d.name for d in outcome.declared() if d.name.startswith(VALIDATE_PARTS[part])]
    out = subprocess.run([*HYBRIDPERF, "simulate", "validate", "--json", "--outcome", ",".join(names)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)
    assert [o["name"] for o in found] == names
    for o in found:  # simulated is None where a crossover never happens
        assert o["source"] and o["published"] is not None and "simulated" in o and o["inputs"]
        assert isinstance(o["reproduced"], bool) and isinstance(o["held_out"], bool) and o["rule"] in rules.RULES
    kept = json.loads((REPO / "bench" / "runs" / "simulated-figures.json").read_text())["commands"]["validate"]
    assert kept["command"] == "hybridperf simulate validate --json"
    assert found == [o for o in kept["output"] if o["name"] in names], \
        "simulate validate prints other outcomes than the docs were made from: make figures"


@pytest.mark.kernel
@needs_smpi
def test_report_of_simulated_runs_says_they_are_simulated(tiny_study, tmp_path):
    spec = tmp_path / "tiny.yaml"
    spec.write_text(SPEC.replace("RESULTS", str(tiny_study)))
    out = subprocess.run([*HYBRIDPERF, "simulate", str(spec), "--cluster", "merlin", "--cores", "8", "--steps", "2"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    page = (tiny_study / "report-merlin.html").read_text()
    assert "<b>Simulated</b> on Merlin with SimGrid" in page and "do not apply" in page
    # between simulated points the lead is exact: decided by the values, not left undecided for want of repeats
    assert re.search(r"<td[^>]*>(wins|tie) \(simulated\)</td>", page) and "A simulated lead is exact" in page
    assert "(simulated: exact under the cluster description" in page


SPMV = ("--n", "3", "--calls", "3")


@pytest.mark.kernel
@pytest.mark.parametrize("ranks, threads, mode", [(4, 1, "mpi"), (2, 2, "hybrid")])
def test_spmv_plan_equals_the_real_runs_messages_and_bytes(tmp_path, ranks, threads, mode):
    """Every call's Isends, Irecvs and Waitall, to whom and how many bytes, and each rank's nonzeros: what the
    real run (all ranks on this one node) counts."""
    args = (*SPMV, "--mode", mode)
    real = run_kernel_in(tmp_path, "spmv", ranks, threads, args)
    assert real.returncode == 0, real.stderr
    plan = parse(kernels.plan("spmv", args, ranks, ranks, threads))
    comm, section = real.profile["comm"], real.profile["spmv"]
    sent = [traffic(plan, r) for r in plan.ranks_plan]
    assert sum(t.p2p_calls for t in sent) == comm["p2p"]["calls"]
    assert sum(t.p2p_messages for t in sent) == comm["p2p"]["messages"]
    assert sum(t.p2p_bytes for t in sent) == comm["p2p"]["bytes"]
    assert sum(t.collectives for t in sent) == comm["collective"]["calls"] == 0
    assert sum(r.work["nnz"] for r in plan.ranks_plan) == section["nonzeros"]
    assert plan.problem["rows"] == section["rows"] and list(plan.grid) == section["rank_grid"]
    # the points sent to each neighbour, against the run's per-direction counts
    for r, counts in zip(plan.ranks_plan, section["halo_points"]):
        assert sorted(op.bytes // 8 for op in r.ordinary if op.kind == "isend") == sorted(c for c in counts if c)


@pytest.mark.kernel
@needs_smpi
def test_spmv_free_network_replays_the_compute_model(tmp_path):
    plan = parse(kernels.plan("spmv", (*SPMV, "--mode", "mpi"), 4, 2, 1))
    costs = spmv_costs.SpmvCosts(product=2e-9, pack=1e-9, node=Threads(ThreadEfficiency(((2, 0.8),), "test")),
                                 fork_join=lambda t: 1e-6)
    split = Split(2, 2, 1)
    texts = [traces.rank_trace(plan, r, costs, split) for r in plan.ranks_plan]
    expected = max(compute_seconds(plan, r, costs, split) for r in plan.ranks_plan)
    # two cores of a node multiply at once: each at e(2) = 0.8 of one alone
    assert costs.regions(plan, plan.ranks_plan[0], split)["local_product"] == pytest.approx(
        plan.ranks_plan[0].work["nnz"] * 2e-9 / 0.8 * plan.steps)
    assert replay(texts, two_nodes("1e-9ns", "1e9TBps"), 2, tmp_path) == pytest.approx(expected, rel=1e-5)
    result = point.simulate(plan, costs, two_nodes("5us"), split, tmp_path)
    assert result.seconds > result.compute and result.p2p > 0 and result.collective == 0
    made = point.profile(plan, result, costs, two_nodes("5us"), split, {"n": 3}, ["smpirun"], "SimGrid 3.32")
    profile.validate(made)
    assert made["comm"]["p2p"]["bytes"] == sum(traffic(plan, r).p2p_bytes for r in plan.ranks_plan)
    assert set(made["regions"]) == {"pack", "local_product", "exchange", "total"}


@pytest.mark.kernel
def test_spmv_costs_from_measured_runs(tmp_path):
    """Serial prices a nonzero, hybrid on 2 threads gives e(2), the 2-rank MPI run prices packing."""
    runs = {cfg: run_kernel_in(tmp_path, "spmv", ranks, threads, ("--n", "12", "--calls", "5", "--mode", mode,
                                                                  "--node-threads", "2"))
            for cfg, (ranks, threads, mode) in {"serial": (1, 1, "serial"), "hybrid": (1, 2, "hybrid"),
                                                "mpi": (2, 1, "mpi")}.items()}
    assert all(r.returncode == 0 for r in runs.values())
    costs = spmv_costs.measured(runs["serial"].profile, [r.profile for r in runs.values()], lambda t: 1e-6, "test")
    section = runs["serial"].profile["spmv"]
    assert costs.product == pytest.approx(runs["serial"].profile["regions"]["local_product"]["time"]["avg"]
                                          / (section["nonzeros"] * section["calls"]))
    # e(2) is the serial run's time per nonzero over twice the hybrid's: derived exactly from the two profiles, not
    # bounded, for how far two loaded cores beat one is timing (a band of (0, 2.5) failed CI at 2.79 under load)
    hybrid = runs["hybrid"].profile
    per_nonzero = hybrid["regions"]["local_product"]["time"]["avg"] / (hybrid["spmv"]["nonzeros"]
                                                                       * hybrid["spmv"]["calls"])
    assert costs.node(2) == pytest.approx(costs.product / (2 * per_nonzero)) and costs.pack > 0
    assert "measured" in costs.node.source


def test_the_thesis_core_is_priced_from_either_machines_routine_table():
    """Merlin's own runs (Table 4.8 at 128 cores, Tables 4.6/4.7's losses) by default; CSEEM64T's (Table 4.9 over
    Infinipath at 96 cores) with DL_POLY's force loop on Merlin (Tables 5.3/5.4) for an outcome of the Merlin runs
    to be held out: a core's seconds per atom-step from the computing routines, the packing from movout less the
    bytes' time of each rank's ghosts."""
    merlin = cluster.load("merlin")
    own, borrowed = simulation.thesis_costs(merlin), simulation.thesis_costs(merlin, "cseem64t")
    atom_steps = 44957696 * 500
    assert own.force == pytest.approx(137.7295 * 128 / atom_steps)
    assert borrowed.force == pytest.approx(193.77336 * 96 / atom_steps)
    assert borrowed.integrate == pytest.approx((7.377 + 3.64191 + 2.07302) * 96 / atom_steps)
    side = (44957696 / 96 / simulation.DENSITY) ** (1 / 3)
    ghosts = simulation.DENSITY * thesis.halo_cells(side, side, side, simulation.GHOST_CUT)
    bandwidth = cluster.load("cseem64t-infinipath").bandwidth.value
    assert borrowed.pack == pytest.approx((7.90706 / 500 - 24 * ghosts / bandwidth) / ghosts)
    assert not borrowed.pack_threaded and borrowed.fork_join(8) == own.fork_join(8)  # the description's
    assert borrowed.threads(8) == pytest.approx(1 - 0.0606) and borrowed.threads(4) == pytest.approx(1 - 0.0495)
    assert "Table 4.9: CSEEM64T (Infinipath)" in borrowed.sources["costs"]
    assert "Tables 5.3/5.4" in borrowed.sources["threads"] and "Tables 4.6/4.7" in own.sources["threads"]
    # Stella's rows of Tables 5.3/5.4 are not Merlin's
    assert published.force_efficiencies(published.DATA / "dlpoly-table5.3-5.4-loop-overheads.csv", "Stella")[8][0] \
        == pytest.approx(1 - 0.0471)


def test_an_md_outcome_is_simulated_with_the_costs_it_declares():
    sim = validation.Simulator(1, lambda line: None)
    [fastest] = validation.chosen(("merlin_pure_fastest",))
    assert fastest.held_out and validation.thesis_of(sim, fastest.params).costs_from == "cseem64t"
    [infinipath] = validation.chosen(("movout_ratio_infinipath",))
    assert validation.thesis_of(sim, infinipath.params) == validation.Thesis(1, 224)  # Merlin's by default


def test_md_node_efficiency_slows_every_busy_core():
    """n(c): with two ranks of one thread on a node at n(2) = 0.5, each computes twice as long as alone."""
    slow = MdCosts(force=1e-6, integrate=0.0, neighbor=0.0, pack=0.0, threads=Threads(ThreadEfficiency()),
                   fork_join=lambda t: 0.0, node=Threads(ThreadEfficiency(((2, 0.5),), "test")))
    assert slow.share(1.0, Split(1, 2, 1)) == pytest.approx(2.0)
    assert slow.share(1.0, Split(2, 1, 1)) == pytest.approx(1.0)  # one busy core per node
    assert slow.share(1.0, Split(1, 1, 2)) == pytest.approx(1.0)  # 2 threads, each at n(2): 1 / (2 x 0.5)


def test_this_machine_undescribed_says_how_to_describe_it(tmp_path):
    """(`cluster measure` itself: tests/test_simulate_app.py's this_machine, which the replays there use.)"""
    with pytest.raises(cluster.ClusterError, match="hybridperf cluster measure"):
        cluster.load("this-machine", directory=tmp_path)


@pytest.mark.kernel
def test_cluster_measure_on_a_busy_machine_says_what_its_figures_include(tmp_path):
    """Another process busy while this machine is measured: its OS noise and latencies include that process, and
    the command says so as `study` does (a busy loop takes a core's share far above the check's 10%)."""
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        done = subprocess.run([*HYBRIDPERF, "cluster", "measure", "--out", str(tmp_path / "node.yaml"),
                               "--noise-quanta", "50"], capture_output=True, text=True)
    finally:
        hog.kill()
    assert done.returncode == 0, done.stderr
    assert f"(pid {hog.pid}) used" in done.stderr and "the OS noise and latencies measured now include it" in done.stderr


@pytest.mark.kernel
@needs_smpi
def test_recommend_simulate_names_a_winner_and_the_assumed_figures_effect():
    out = subprocess.run([*HYBRIDPERF, "recommend", "--by", "simulation", "--cluster", "merlin", "--size", "16",
                          "--steps", "10", "--window", "5", "--nodes", "1,2", "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert [a["nodes"] for a in doc["answers"]] == [1, 2]
    assert {p["split"] for p in doc["answers"][0]["predictions"]} == {"8r×1t", "4r×2t", "2r×4t", "1r×8t"}
    # Merlin's on-node latency and bandwidth are assumed: each is moved, the measured network is not
    moved = {m["input"] for m in doc["sensitivity"]["moves"]}
    assert {"intra-node latency", "intra-node bandwidth"} <= moved and "network latency" not in moved
    refused = subprocess.run([*HYBRIDPERF, "recommend", "--by", "simulation", "--cluster", "merlin", "--kernel",
                              "spmv"], capture_output=True, text=True)
    assert refused.returncode != 0 and "needs --calibration" in refused.stderr and len(refused.stderr.splitlines()) == 1


@pytest.mark.kernel
@needs_smpi
def test_simulate_spmv_study_plans_each_mode_on_the_clusters_nodes(tmp_path):
    """A measured SPMV study simulated on the IBM SP: each configuration planned in its own mode, so every
    point holds n^3 rows per core of the cluster (MPI's bricks per rank, hybrid's per node)."""
    spec = tmp_path / "spmv.yaml"
    spec.write_text(f"""study: tiny-spmv
kernel: spmv
params: {{n: 6, calls: 4}}
configurations:
  - pure-mpi: {{mode: mpi}}
  - hybrid-1: {{mode: hybrid}}
  - 1x1: {{mode: serial}}
nodes: [1]
repeats: 1
results: {tmp_path / 'results'}
""")
    assert subprocess.run([*HYBRIDPERF, "study", str(spec), "--no-report"], capture_output=True).returncode == 0
    out = subprocess.run([*HYBRIDPERF, "simulate", str(spec), "--no-report", "--cluster", "ibm-sp", "--cores", "8"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    with Store(tmp_path / "results") as store:
        simulated = [r for r in store.runs() if r["backend"] == "simgrid"]
    modes = {r["profile"]["spmv"]["mode"]: r["profile"] for r in simulated if r["configurations"] != ["1x1"]}
    assert set(modes) == {"mpi", "hybrid"}
    assert all(p["spmv"]["rows"] == 8 * 6**3 for p in modes.values())
    assert modes["mpi"]["run"]["ranks"] == 8 and modes["hybrid"]["run"]["threads_per_rank"] == 4


@pytest.mark.kernel
def test_spmv_e_cache_prices_mpis_product_not_its_packing():
    plan = parse(kernels.plan("spmv", (*SPMV, "--mode", "mpi"), 4, 4, 1))
    plain = spmv_costs.SpmvCosts(product=2e-9, pack=1e-9, node=Threads(ThreadEfficiency()), fork_join=lambda t: 0.0)
    cached = spmv_costs.SpmvCosts(product=2e-9, pack=1e-9, node=Threads(ThreadEfficiency()), fork_join=lambda t: 0.0,
                                  e_cache=0.5)
    split, rank = Split(1, 4, 1), plan.ranks_plan[0]
    a, b = plain.regions(plan, rank, split), cached.regions(plan, rank, split)
    assert b["local_product"] == pytest.approx(a["local_product"] / 2) and b["pack"] == pytest.approx(a["pack"])


MANY_BODY_SPEC = f"""study: fe
kernel: md
params: {{potential: eam/fs, potential_file: {POTENTIALS / 'Fe_mm.eam.fs'}, elements: [Fe], size: 10, steps: 10}}
configurations: [pure-mpi, hybrid-1]
cores: [1, 2]
repeats: 1
results: RESULTS
"""


@pytest.mark.kernel
@needs_smpi
@pytest.mark.skipif(not POTENTIALS.exists(), reason="apt-get install lammps")
def test_simulate_many_body_study_prices_the_density_pass_before_its_exchanges(tmp_path):
    """DL_POLY's shape on a cluster: a measured eam/fs study (1 rank x 1 thread, 2 x 1 and 1 x 2) simulated on
    Merlin; its density pass is costed from the serial run and placed before the exchanges that carry it."""
    spec = tmp_path / "fe.yaml"
    spec.write_text(MANY_BODY_SPEC.replace("RESULTS", str(tmp_path / "res")))
    measured = subprocess.run([*HYBRIDPERF, "study", str(spec), "--no-report"], capture_output=True, text=True)
    assert measured.returncode == 0, measured.stderr
    out = subprocess.run([*HYBRIDPERF, "simulate", str(spec), "--no-report", "--cluster", "merlin", "--cores", "8,16",
                          "--steps", "4"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    with Store(tmp_path / "res") as store:
        runs = store.runs("fe-on-merlin")
    assert len(runs) == 4 and all(r["status"] == "ok" for r in runs)
    costs = runs[0]["profile"]["simulated"]["compute_model"]
    assert costs["density_s_per_atom_step"] > 0 and costs["force_s_per_atom_step"] > 0
    assert all(r["profile"]["regions"]["density"]["time"]["avg"] > 0 for r in runs)


@pytest.mark.kernel
def test_a_profiles_default_options_are_left_to_the_kernel(md_binary):
    """An lj run's profile records `elements: []` and `lattice_constant: 0`; given back as `--elements ''` and
    `--lattice-constant 0` the kernel refused every measured simulation of the main job (`simulate
    studies/local.yaml --cluster stella`)."""
    options = simulation.profile_options("md", {"elements": [], "lattice_constant": 0, "size": 32, "grid": [2, 1, 1],
                                                "neigh_every": 10, "density": 0.8442})
    assert options == {"size": 32, "grid": [2, 1, 1], "neigh-every": 10}
    assert simulation.profile_options("md", {"elements": ["Cu", "Au"]}) == {"elements": "Cu,Au"}
