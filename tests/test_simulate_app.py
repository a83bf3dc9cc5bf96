"""Replaying an app's own traces (issue 27 item 4): a trace's bursts and messages priced on a cluster and on an
ideal network, and POP's split of communication efficiency from the two, checked on traces whose replay is known
in closed form; then a stored traced study replayed by the command."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hybridperf import cluster
from hybridperf.analysis import pop
from hybridperf.simulate import app_replay
from hybridperf.store.db import RunRecord, Store
from hybridperf.study.spec import load

from conftest import CORES

needs_smpi = pytest.mark.skipif(shutil.which("smpirun") is None, reason="SimGrid's smpirun is not installed")
HYBRIDPERF = [sys.executable, "-m", "hybridperf"]
REPO = Path(__file__).resolve().parents[1]
MD = REPO / "build" / "bin" / "hybridperf-md"
MESSAGE = 100_000_000  # bytes: 40 ms at Merlin's 20 Gb/s, seen in the 6 digits SimGrid prints

# rank 0 computes 1 s, sends 100 MB to rank 1 and computes 0.5 s; rank 1 computes 0.2 s, receives, computes 0.5 s
TRACES = ["0 init\n0 compute 1e9\n0 send 1 0 100000000 6\n0 compute 5e8\n0 finalize\n",
          "1 init\n1 compute 2e8\n1 recv 0 0 100000000 6\n1 compute 5e8\n1 finalize\n"]


def test_compute_bursts_are_seconds_on_the_platforms_hosts_and_scale_with_speed():
    assert app_replay.compute_seconds(TRACES[0]) == 1.5
    faster = app_replay.scaled(TRACES[0], 2.0)
    assert app_replay.compute_seconds(faster) == 0.75 and "send 1 0 100000000 6" in faster
    assert app_replay.scaled(TRACES[1], 1.0) is TRACES[1]


def test_ranks_fill_nodes_as_measured_or_asked_within_what_a_node_holds():
    merlin = cluster.load("merlin")  # 8 cores a node
    assert app_replay.ranks_per_node(merlin, 2, 1, 2, None) == 2
    assert app_replay.ranks_per_node(merlin, 2, 1, 2, 1) == 1
    assert app_replay.ranks_per_node(merlin, 16, 4, 16, None) == 2  # 4-thread ranks: two a node
    with pytest.raises(app_replay.NotReplayable, match="do not fit"):
        app_replay.ranks_per_node(merlin, 2, 16, 1, None)
    with pytest.raises(app_replay.NotReplayable, match="more than"):
        app_replay.ranks_per_node(merlin, 4, 2, 4, 8)


def _write(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    files = [folder / f"rank-{r}.txt" for r in range(len(TRACES))]
    for f, text in zip(files, TRACES):
        f.write_text(text)
    return files


@pytest.mark.kernel
@needs_smpi
def test_a_replay_prices_the_messages_and_the_ideal_network_removes_them(tmp_path: Path):
    """On Merlin with a rank per node, the 100 MB cross the network once: the run takes 1.5 s of compute plus
    the latency and 10^8 B at 20 Gb/s (both ranks end together: the send waits for its transfer, the receiver for
    its data). On the ideal network it takes 1.5 s: rank 1 waits for rank 0's first second, which no network can
    remove, so serialization is max compute / T_ideal = 1.5 / 1.5 and transfer T_ideal / T."""
    merlin = cluster.load("merlin")
    result = app_replay.replay_run(_write(tmp_path / "trace"), merlin, 1, 1.0, tmp_path / "work")
    transfer = merlin.latency.value + MESSAGE / merlin.bandwidth.value
    assert result.seconds == pytest.approx(1.5 + transfer, rel=1e-5)
    assert result.ideal_seconds == pytest.approx(1.5, rel=1e-5)
    assert result.compute == (1.5, 0.7)
    assert result.serialization_efficiency == pytest.approx(1.0, rel=1e-5)
    assert result.transfer_efficiency == pytest.approx(1.5 / (1.5 + transfer), rel=1e-5)
    both = app_replay.replay_run(_write(tmp_path / "trace"), merlin, 2, 2.0, tmp_path / "one-node")
    on_node = merlin.intra_latency.value + MESSAGE / merlin.intra_bandwidth.value
    assert both.seconds == pytest.approx(0.75 + on_node, rel=1e-5)  # twice the core speed, one node's memory


def _stored_study(results: Path) -> Path:
    """A store holding one traced 2-rank app run, as a `kernel: app` study with `trace: true` leaves it; the spec
    that names it."""
    spec = results / "traced.yaml"
    spec.write_text(f"study: traced\nkernel: app\napp:\n  command: [\"true\"]\n  launch: mpi\n  parser: lammps\n"
                    f"configurations: [pure-mpi]\ncores: [2]\nrepeats: 1\ncores_per_node: 2\nresults: {results}\n")
    _write(results / "traces" / "run-1")
    profile = {"schema": "hybridperf.profile/1", "kernel": "app", "kernel_version": "test",
               "build": {"compiler": "gcc", "flags": "", "mpi_library": "Open MPI v4.1.4", "mpi_standard": "3.1",
                         "openmp_version": 0, "openmp_runtime": "libgomp", "git_revision": "unknown"},
               "run": {"command": ["true"], "start_time": "2026-11-26T12:00:00Z", "hosts": ["here"], "ranks": 2,
                       "threads_per_rank": 1, "ranks_per_node": 2, "nodes": 1, "environment": {}, "affinity": [],
                       "mpi_thread_level": {"requested": "MPI_THREAD_SINGLE", "provided": "MPI_THREAD_SINGLE"}},
               "params": {}, "status": "ok", "checks": {}, "regions": {},
               "figures_of_merit": [{"name": "loop_time", "value": 1.4, "unit": "s", "better": "lower"}],
               "rank_times": {"elapsed": [1.6, 1.6], "mpi": [0.1, 0.9]},
               "trace": {"dir": "traces/run-1", "ranks": 2, "truncated": False}}
    path = results / "profiles" / "run-1.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(profile))
    study = load(spec).as_dict()  # as a study stores its spec
    with Store(results) as store:
        store.save_study("traced", "app", study, str(spec), "now")
        c = store.start_campaign("traced", study, 1, {}, "now")
        store.add_run(RunRecord("run-1", "traced", "app", {}, ("pure-mpi",), 1, 2, 2, 1, "pure-mpi", False, 1, "ok", 0,
                                1.4, "now", 1.7, "local", "mpirun", [], None, profile, path, c.number, 0))
    return spec


@pytest.mark.kernel
@needs_smpi
def test_simulate_replays_a_traced_app_study_and_reports_it(tmp_path: Path):
    spec = _stored_study(tmp_path)
    out = subprocess.run([*HYBRIDPERF, "simulate", str(spec), "--cluster", "merlin", "--ranks-per-node", "1"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "traced-on-merlin: 1 runs replayed, 0 not" in out.stdout
    with Store(tmp_path) as store:
        (run,) = store.runs("traced-on-merlin")
    assert run["backend"] == "replay" and (run["nodes"], run["ranks_per_node"]) == (1, 2)  # the split it races as
    merlin = cluster.load("merlin")
    seconds = 1.5 + merlin.latency.value + MESSAGE / merlin.bandwidth.value
    assert run["loop_time"] == pytest.approx(seconds, rel=1e-5)
    assert run["profile"]["run"]["nodes"] == 2 and run["profile"]["simulated"]["replay_of"] == "run-1"
    factors = pop.of_profile(run["profile"]).values
    assert factors["mpi_serialization_efficiency"] * factors["mpi_transfer_efficiency"] == \
        pytest.approx(factors["mpi_communication_efficiency"], rel=1e-5)  # POP: communication = serialization x transfer
    page = (tmp_path / "report-merlin.html").read_text()
    assert "<b>Replayed</b> on Merlin" in page and "MPI transfer" in page and "replays of traces" in page


@pytest.mark.kernel
@needs_smpi
def test_recommend_by_simulation_replays_your_program_on_the_cluster_and_by_measured_says_whose_machine(tmp_path):
    """Issue 42 item 7: the user's own program has all three ways on a cluster. --by simulation --kernel app replays
    its traced runs there (stored beside it as `hybridperf simulate` stores them) and answers in the one shape;
    --by measured --cluster answers for the machine the study ran on and says it is not that cluster; the
    measured study stays the folder's default for `report`."""
    _stored_study(tmp_path)
    out = subprocess.run([*HYBRIDPERF, "recommend", "--by", "simulation", "--kernel", "app", "--calibration",
                          str(tmp_path), "--cluster", "merlin", "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["method"] == "simulation" and doc["cluster"] == "Merlin" and "traced-on-merlin" in doc["workload"]
    [answer] = doc["answers"]
    [prediction] = answer["predictions"]
    merlin = cluster.load("merlin")
    # as measured, both ranks on one node: the 100 MB cross Merlin's node memory
    on_node = merlin.intra_latency.value + MESSAGE / merlin.intra_bandwidth.value
    assert prediction["split"] == "2r×1t" and prediction["seconds"] == pytest.approx(1.5 + on_node, rel=1e-5)
    assert doc["inputs"][0]["source"] == "simulated: the measured runs' traces replayed with SimGrid"
    measured = subprocess.run([*HYBRIDPERF, "recommend", "--by", "measured", "--results", str(tmp_path), "--cluster",
                               "merlin"], capture_output=True, text=True, env={**os.environ, "COLUMNS": "80"})
    assert measured.returncode == 0, measured.stderr
    assert "--cluster merlin: this answer is the machine study traced ran on, not merlin" in measured.stderr
    tables = [line for line in measured.stdout.splitlines() if line.startswith(("1 ", "nodes", "──"))]
    assert "study traced," in measured.stdout and len(tables) >= 6 and max(map(len, tables)) <= 80  # prose folds
    report = subprocess.run([*HYBRIDPERF, "report", str(tmp_path)], capture_output=True, text=True)
    assert report.returncode == 0, report.stderr
    assert "traced-on-merlin" not in report.stdout and (tmp_path / "report.html").exists()
    named = subprocess.run([*HYBRIDPERF, "report", str(tmp_path), "--study", "traced-on-merlin"], capture_output=True,
                           text=True)
    assert named.returncode == 0 and "traces replayed on merlin" in named.stdout
    assert (tmp_path / "report-merlin.html").exists()


@pytest.mark.kernel
@needs_smpi
def test_a_study_without_traces_is_refused_in_one_line(tmp_path: Path):
    spec = _stored_study(tmp_path)
    profile = tmp_path / "profiles" / "run-1.json"
    profile.write_text(json.dumps({k: v for k, v in json.loads(profile.read_text()).items() if k != "trace"}))
    out = subprocess.run([*HYBRIDPERF, "simulate", str(spec), "--cluster", "merlin"], capture_output=True, text=True)
    assert out.returncode != 0 and "set `trace: true`" in out.stderr
    assert not (tmp_path / "report-merlin.html").exists()
    with Store(tmp_path) as store:
        assert "traced-on-merlin" not in store.studies()
    steps = subprocess.run([*HYBRIDPERF, "simulate", str(spec), "--cluster", "merlin", "--steps", "3"],
                           capture_output=True, text=True)
    assert steps.returncode != 0 and "--steps" in steps.stderr


def test_a_cut_trace_is_not_replayed(tmp_path: Path):
    profile = {"run": {"ranks": 2}, "trace": {"dir": "t", "truncated": True, "summary": "rank 1 reached the limit"}}
    with pytest.raises(app_replay.NotReplayable, match="rank 1 reached the limit"):
        app_replay.trace_files(tmp_path, profile)


# Replayed on this machine's own description, a traced run keeps its measured compute and prices only its MPI
# calls anew (by the measured ping-pong's latency and bandwidth). How close the replay comes to the measured window
# depends on the load: on a quiet machine md's replays took 0.977-0.985 of it and LAMMPS's 0.99; beside the rest of
# the suite on the 2 shared cores 0.855, in CI 0.69, and beside three busy loops 0.67-0.74 (a rank descheduled
# inside a call makes its peer wait, which the replay does not see). So the test asserts what load cannot move:
# each rank's bursts add up to its measured time outside MPI (the trace and the profile read the same clock: 1e-10
# apart, loaded or not; before md's probes were left out of the bursts, 20% apart under load), and the replay
# takes at least the busiest rank's compute and at most its measured window plus CEILING (a burst priced twice
# would be 2x; SMPI pricing a call above what it cost here is what the ceiling bounds).
BURSTS_TOLERANCE = 1e-6
CEILING = 0.10


@pytest.fixture(scope="module")
def this_machine(tmp_path_factory) -> Path:
    """This machine described by `hybridperf cluster measure` (its ping-pong and fork/join; no OS noise, which the
    replays here do not draw), written where it would write it by default, in a folder of its own (--out and
    --host said, as a user may)."""
    home = tmp_path_factory.mktemp("xdg")
    path = home / "hybridperf" / "clusters" / "this-machine.yaml"
    out = subprocess.run([*HYBRIDPERF, "cluster", "measure", "--out", str(path), "--host", "testnode",
                          "--noise-quanta", "0"],
                         capture_output=True, text=True, timeout=300, env={**os.environ, "XDG_DATA_HOME": str(home)})
    assert out.returncode == 0, out.stderr
    return path


@pytest.mark.kernel
@pytest.mark.xdist_group("test_simulate_app.this_machine")  # measured once, on one worker
def test_cluster_measure_describes_this_machine(this_machine):
    spec = cluster.load(str(this_machine))
    assert spec.nodes == 1 and spec.cores_per_node == CORES and spec.fork_join_threads == CORES
    assert spec.intra_latency.value > 0 and spec.intra_bandwidth.value > 0  # how fast: bench/'s, not a test's
    assert "measured: hybridperf-mixbench pingpong" in spec.intra_latency.source and spec.latency.assumed


MD_APP = f"""  command: [{MD}, -s, "{{size}}", --steps, "{{steps}}"]
  figures:
    loop_time: {{regex: 'loop_s=(?P<value>[0-9.eE+-]+)', unit: s}}"""
LAMMPS_APP = f"""  command: [lmp, -in, {REPO / "studies" / "inputs" / "lj-melt.lmp"}, -var, cells, "{{cells}}", -var, steps,
            "{{steps}}", -log, none]
  parser: lammps"""


@pytest.mark.xdist_group("test_simulate_app.this_machine")
@pytest.mark.kernel
@needs_smpi
@pytest.mark.parametrize("program, app, params", [
    ("md", MD_APP, "size: 12\n  steps: 200"),
    pytest.param("lammps", LAMMPS_APP, "cells: 1\n  steps: 100",
                 marks=pytest.mark.skipif(shutil.which("lmp") is None, reason="LAMMPS (lmp) is not installed")),
])
def test_a_traced_run_replayed_on_this_machine_keeps_its_compute_and_prices_its_calls(tmp_path, this_machine, program, app, params):
    """Issue 27 item 5: our md and LAMMPS's in.lj, 2 ranks here, traced, then replayed on this machine's
    description: each rank's bursts are its measured time outside MPI, and each replay lies between the busiest
    rank's compute and its measured window (MPI_Init to MPI_Finalize, the library's) plus CEILING."""
    results = tmp_path / "res"
    spec = tmp_path / f"{program}.yaml"
    spec.write_text(f"study: {program}\nkernel: app\napp:\n{app}\n  trace: true\nparams:\n  {params}\n"
                    f"configurations: [pure-mpi]\ncores: [2]\nrepeats: 1\nresults: {results}\n")
    run = subprocess.run([*HYBRIDPERF, "study", str(spec), "--no-report"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    out = subprocess.run([*HYBRIDPERF, "simulate", str(spec), "--cluster", str(this_machine)], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    with Store(results) as store:
        replayed = store.runs(f"{program}-on-this-machine")
        measured = {m["run_key"]: m["profile"] for m in store.runs(program)}
    assert replayed
    for r in replayed:
        simulated = r["profile"]["simulated"]
        ranks = measured[simulated["replay_of"]]["rank_times"]
        outside_mpi = [e - m for e, m in zip(ranks["elapsed"], ranks["mpi"])]
        times = r["profile"]["rank_times"]
        bursts = [e - m for e, m in zip(times["elapsed"], times["mpi"])]
        assert bursts == pytest.approx(outside_mpi, rel=BURSTS_TOLERANCE), (program, bursts, outside_mpi)
        assert max(bursts) * (1 - 1e-5) <= r["loop_time"] <= simulated["measured_seconds"] * (1 + CEILING), \
            (program, simulated)
        for factor in ("transfer_efficiency", "serialization_efficiency"):  # <= 1 but for SimGrid's 6 printed digits
            assert 0 < simulated[factor] <= 1 + 1e-5, (program, factor, simulated)
