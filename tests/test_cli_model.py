"""`hybridperf model ...`: the thesis's models on a stored study, the recommendation on a preset cluster and on
this machine calibrated by its microbenchmarks, and their errors."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from hybridperf.models import calibrate

HYBRIDPERF = [sys.executable, "-m", "hybridperf"]


def cli(*args):
    return subprocess.run([*HYBRIDPERF, *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "200"})


@pytest.mark.kernel
def test_evaluate_leads_with_held_out_and_says_what_the_data_cannot_carry(tiny_study):
    """Two core counts: held out, too few points remain to fit; in-sample, the fit is exact (no error, no band) and
    the outlook stays at the measured core counts."""
    out = cli("model", "evaluate", tiny_study)
    assert out.returncode == 0, out.stderr
    text = out.stdout.replace("\n", " ")
    held, in_sample = text.index("overall (6.10), held out"), text.index("overall (6.10), in-sample")
    assert held < in_sample
    assert ("held out: needs 2 pure-MPI points with a non-zero time to fit on, has 1 of the 2 measured (left out: 2 "
            "cores; held out: each configuration's largest core count)") in " ".join(text.split())
    assert "exact: as many points as parameters, so no error and no band" in text
    # pure MPI at 1 core sends nothing, so one pure-MPI point with a communication time is too few to fit
    assert "total communication (6.6), in-sample" in text and ("in-sample: needs 2 pure-MPI points with a non-zero time "
                                                              "to fit on, has 1 of the 2 measured (left out: 1 core; "
                                                              "one process has no communication to fit (the thesis's "
                                                              "rule))") in " ".join(text.split())
    assert "not extrapolated" in text and "(extrapolated)" not in text
    pmnf = cli("model", "pmnf", tiny_study, "--metric", "force")
    assert pmnf.returncode == 0 and "needs measurements at 3 or more parameter values, got 2" in pmnf.stdout
    assert cli("model", "pmnf", tiny_study, "--metric", "nosuch").returncode != 0


@pytest.mark.kernel
def test_evaluate_without_a_study_fails_cleanly(tmp_path):
    out = cli("model", "evaluate", tmp_path)
    assert out.returncode != 0 and "has no results.db" in out.stderr


def table_rows(text: str) -> dict[str, list[str]]:
    return {cells[0]: cells[1:] for cells in ([c.strip() for c in line.split("│")[1:-1]]
                                              for line in text.splitlines() if line.startswith("│")) if cells}


def recommended(*args, run=None):
    """`hybridperf recommend ... --json`, parsed; `run`: how to run the command (default: cli)."""
    out = (run or cli)("recommend", *args, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def winners(answer_doc):
    return {a["nodes"]: a["winner"] for a in answer_doc["answers"]}


def inputs_of(answer_doc):
    return {i["name"]: i for i in answer_doc["inputs"]}


@pytest.mark.kernel
def test_recommend_on_merlin_from_the_thesis_inputs():
    """No knob is set: the work rate, threading losses and fork/join come from the thesis's tables, and pure MPI wins
    at every node count, the thesis's Infiniband finding, decided by its interval; every input's distance to another
    answer is there."""
    doc = recommended("--cluster", "merlin", "--nodes", "1,8,64")
    assert doc["method"] == "model" and winners(doc) == {1: "8r×1t", 8: "8r×1t", 64: "8r×1t"}
    assert all(a["verdict"] == "wins" and a["margin_low"] > 0 for a in doc["answers"]) and not doc["crossovers"]
    given = inputs_of(doc)
    assert "thesis Table 4.8" in given["work (serial seconds)"]["source"]
    assert "thesis Tables 4.6/4.7" in given["threading loss (1 - e_mt)"]["source"]
    assert given["time per byte between nodes"]["value"] == "2.5 GB/s" and not given["time per byte between nodes"]["assumed"]
    assert given["time per byte within a node"]["value"] == "4 GB/s" and given["time per byte within a node"]["assumed"]
    assert given["fork/join per threaded loop"]["value"] == "1.92 us at 8 threads"
    moves = {m["input"]: m["moves"] for m in doc["sensitivity"]["moves"]}
    assert 1 / moves["threading loss (1 - e_mt)"]["64"]["down"] == pytest.approx(11.16, rel=0.005)
    text = cli("recommend", "--cluster", "merlin", "--nodes", "1,8,64")
    assert "What would change the answer" in text.stdout and "the winner changes" not in text.stdout
    old = cli("model", "recommend", "--cluster", "merlin", "--nodes", "1,8,64")
    assert old.stdout == text.stdout and "is now `hybridperf recommend`" in old.stderr


@pytest.mark.kernel
def test_recommend_with_a_given_thread_loss_says_so():
    """An override is possible and is named as such; a large enough loss-free assumption changes the answer."""
    doc = recommended("--cluster", "merlin", "--nodes", "1,64", "--thread-loss", "0")
    assert inputs_of(doc)["threading loss (1 - e_mt)"]["source"] == "given: --thread-loss 0"
    assert winners(doc)[64] != "8r×1t"  # threads that lose nothing win at 64 nodes


@pytest.mark.kernel
@pytest.mark.parametrize("args,message", [
    (["--cluster", "nosuch"], "unknown cluster 'nosuch'"),
    (["--nodes", "1,x"], "--nodes must be comma-separated integers"),
    (["--kernel", "clomp"], "--kernel must be md, spmv or app"),
    (["--size", "0"], "--size and --steps must be 1 or more"),
    (["--work-seconds", "-1"], "--work-seconds above 0"),
    (["--cluster", "stella", "--nodes", "32"], "Stella has 16 nodes"),
    (["--by", "guess"], "--by must be one of measured, model, simulation"),
    (["--by", "measured"], "--by measured needs --calibration"),
    (["--by", "simulation", "--future"], "--future: closed-form inputs"),
    (["--cluster", "merlin", "--html", "/nonexistent/page.html"], "--html /nonexistent/page.html: no folder"),
])
def test_recommend_rejects_bad_input(args, message):
    out = cli("recommend", *args)
    assert out.returncode == 2 and message in out.stderr and out.stderr.count("\n") == 1


@pytest.fixture(scope="module")
def calibration_dir(tmp_path_factory, md_binary):
    """What docs/models.md asks for: ping-pong, PARALLEL FOR, STREAM at 1 and 2 threads, a serial md run.
    The delay loop's length is given: calibrating it to 0.1 us fails its own check on a loaded machine
    (the suite runs more workers than cores), which is not what these tests are about."""
    d = tmp_path_factory.mktemp("cal")
    for run in (["mixbench", "--ranks", 2, "--bench", "pingpong", "--sizes", "8,1K,64K"],
                ["ompbench", "--threads", 2, "-c", "PARALLEL_FOR", "--ref-sd-tol", "1e6", "--delay-length", 140],
                ["stream", "-s", 4], ["stream", "--threads", 2, "-s", 4],
                ["md", "-s", 8, "--steps", 20], ["md", "--ranks", 2, "-s", 8, "--steps", 20],
                ["md", "--threads", 2, "-s", 8, "--steps", 20]):
        out = cli("run", *run, "--results", d)
        assert out.returncode == 0, out.stderr
    return d


@pytest.mark.xdist_group("test_cli_model.calibration_dir")  # calibration_dir is made once, on one worker
@pytest.mark.kernel
def test_recommend_on_this_machine_uses_the_calibration_and_the_serial_run(calibration_dir):
    doc = recommended("--calibration", calibration_dir)
    assert "mixbench ping-pong: alpha" in doc["about"] and "ompbench PARALLEL FOR at 2 threads" in doc["about"]
    assert "STREAM triad: 1 thread(s)" in doc["about"]
    assert "md 2048 atoms x 20 steps" in doc["workload"] and [a["nodes"] for a in doc["answers"]] == [1]
    given = inputs_of(doc)
    assert "measured: computation time of T ranks over T threads, 2 threads" in given["threading loss (1 - e_mt)"][
        "source"]
    assert "measured: the serial run's loop time" in given["work (serial seconds)"]["source"]


@pytest.mark.xdist_group("test_cli_model.calibration_dir")  # calibration_dir is made once, on one worker
@pytest.mark.kernel
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="copies at once need 2 cores")
def test_copies_at_once_price_the_nodes_efficiency_and_stay_apart_from_the_serial_run(calibration_dir, tmp_path):
    """`hybridperf run --copies 2`: two profiles marked copy k of 2, each bound to a CPU of its own; in a
    calibration they price the node's efficiency (its source says so) and are not serial runs of the problem."""
    d = tmp_path / "cal"
    shutil.copytree(calibration_dir, d)
    out = cli("run", "md", "-s", 8, "--steps", 20, "--copies", 2, "--results", d)
    assert out.returncode == 0, out.stderr
    made = [json.loads(p.read_text()) for p in sorted((d / "runs").glob("md-*-copy*.json"))]
    assert [m["run"]["copy"] for m in made] == [{"index": 0, "of": 2}, {"index": 1, "of": 2}]
    assert len({m["run"]["affinity"][0]["threads"][0]["cpu"] for m in made}) == 2
    doc = recommended("--calibration", d)
    assert "node efficiency measured: the serial run alone over copies of it at once, 2 cores" in doc["about"]
    assert "1 run, spread not measured" in inputs_of(doc)["work (serial seconds)"]["source"]
    for bad, says in ((("--ranks", 2), "leave out --ranks"), (("--copies", 9), "--copies must be 2 to"),
                      (("--profile", tmp_path / "p.json"), "leave out --profile")):
        refused = cli("run", "md", "-s", 8, "--copies", 2, *bad, "--results", tmp_path / "bad")
        assert refused.returncode != 0 and says in refused.stderr and not (tmp_path / "bad").exists()


@pytest.mark.xdist_group("test_cli_model.calibration_dir")  # calibration_dir is made once, on one worker
@pytest.mark.kernel
def test_a_rescaled_problem_grows_its_work_with_atoms_times_steps(calibration_dir):
    serial = next(json.loads(p.read_text()) for p in (calibration_dir / "runs").glob("md-*.json"))
    base = calibrate.problem_from(serial)
    bigger = calibrate.problem_from(serial, size=16, steps=50)
    assert base.name == "md 2048 atoms x 20 steps" and bigger.name == "md 16384 atoms x 50 steps"
    assert bigger.work_seconds == pytest.approx(base.work_seconds * 8 * 2.5, rel=1e-12)
    assert bigger.parallel_loops == 15 * 50


@pytest.mark.kernel
def test_a_calibration_directory_without_profiles_is_refused(tmp_path):
    out = cli("recommend", "--calibration", tmp_path)
    assert out.returncode != 0 and "holds no profiles" in out.stderr


def cli_on(cores, *args):
    """The command on a machine of `cores` cores (this machine's split candidates), whatever the test machine has."""
    code = ("import sys; from hybridperf.launch import machine; "
            f"machine.local_machine = lambda: machine.Machine('test', 1, {cores}, {cores}, 1); "
            "from hybridperf.cli import main; sys.argv[0] = 'hybridperf'; main()")
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "250"})


def add_blocks(results, blocks, hybrid=1.0, refused=False):
    """More blocks of tiny-md's 12^3 race (its first block's runs, hybrid's times times `hybrid`), stored through
    the store's API; `refused`: one more block whose hybrid run ignored its threads, as a study stores it."""
    from hybridperf.app.profile import ignored_threads
    from hybridperf.store.db import RunRecord, Store

    from conftest import FIXTURES

    data = json.loads((FIXTURES / "tiny-md" / "study.json").read_text())
    first = [r for r in data["runs"]
             if r["params"]["size"] == 12 and r["repeat"] == 0 and r["ranks"] * r["threads"] == 2]
    with Store(results) as store:
        for block in range(3, 3 + blocks + refused):
            for run in first:
                fields = {k: v for k, v in run.items() if k != "profile_path"}
                fields.update(configurations=tuple(run["configurations"]), repeat=block,
                              run_key=f"{run['run_key']}-{block}")
                profile = json.loads((FIXTURES / "tiny-md" / run["profile_path"]).read_text())
                factor = hybrid if run["threads"] == 2 else 1.0
                if refused and block == 3 + blocks and run["threads"] == 2:
                    fields.update(status="failed", loop_time=None, exit_code=0, stderr=ignored_threads(
                        {"min": 1, "max": 1}, 2, "at MPI_Finalize") + "\nMPI_ABORT was invoked")
                    store.add_run(RunRecord(**fields, profile=None, profile_path=None))
                    continue
                time = next(f for f in profile["figures_of_merit"] if f["name"] == "loop_time")
                time["value"] *= factor
                path = results / "profiles" / f"{fields['run_key']}.json"
                path.write_text(json.dumps(profile))
                fields["loop_time"] = run["loop_time"] * factor
                store.add_run(RunRecord(**fields, profile=profile, profile_path=path))
    return results


@pytest.mark.kernel
def test_noisy_calibration_runs_give_no_sure_answer_and_the_undecided_race_is_shown(tiny_study):
    """tiny-md's repeats: one of its three 1x2 runs was 40% slow. The latest runs alone gave 2r×1t by 44%, winning
    every draw; the medians, their spread and the race that could not decide show no sure winner."""
    out = cli_on(2, "recommend", "--calibration", tiny_study, "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    [predicted] = doc["answers"]
    assert predicted["confidence"] < 0.9 and predicted["verdict"] == "undecided"
    assert all(p["low"] < p["seconds"] < p["high"] for p in predicted["predictions"])  # each with its interval
    measured = doc["measured"]
    assert [p["runs"] for p in measured["predictions"]] == [3, 3] and measured["verdict"] == "undecided"
    notes = " ".join(doc["notes"])
    assert "the race of study tiny-md at 2 cores: undecided after 3 blocks" in notes
    assert "the race did not decide" in notes
    assert "median of 3 runs, spread" in inputs_of(doc)["work (serial seconds)"]["source"]  # with its runs' spread
    # the 2x1 runs' median computation is a hair above the 1x2 runs': a negative loss, clamped and named
    [warning] = [line for line in out.stderr.splitlines() if "warning" in line]
    assert "threading loss at 2 threads measured -" in warning and "taken as 0" in warning
    assert warning.count("profiles/") == 2 and warning.count(".json") == 2
    text = cli_on(2, "recommend", "--calibration", tiny_study)
    assert any(line.startswith("1, measured") and "undecided" in line for line in text.stdout.splitlines())
    assert doc["disagreement"] is None  # an undecided race contradicts nothing


@pytest.mark.kernel
def test_a_decided_race_overrules_the_prediction(tiny_study):
    """Twelve more blocks in which 1 rank x 2 threads is 20% faster: the race decides for it, and the answer is the
    measurement's, whatever the model predicted; --by measured gives the race's answer in the same shape."""
    add_blocks(tiny_study, 12, hybrid=0.8)
    doc = recommended("--calibration", tiny_study, run=lambda *a: cli_on(2, *a))
    assert doc["measured"]["winner"] == "1r×2t" and doc["measured"]["verdict"] == "wins"
    notes = " ".join(doc["notes"])
    assert "at 2 cores: hybrid-1 wins" in notes
    assert "the answer at 1 node is the measured one, 1r×2t: the race decided, and overrules the prediction (2r×1t)" \
        in notes
    # said first, with the part whose share of the gap the model gets most wrong: the hybrid runs were made 20%
    # faster by scaling their loop time alone, so their measured compute drops while their messages do not
    differs = doc["disagreement"]
    assert differs.startswith("the model and the measured race disagree at 1 node: the race measured 2r×1t +")
    assert "slower than 1r×2t (wins); the model says -" in differs
    assert "The part that differs most is compute (threading and waiting included)" in differs
    text = cli_on(2, "recommend", "--calibration", tiny_study)
    assert text.stdout.startswith("the model and the measured race disagree")
    raced = recommended("--by", "measured", "--results", tiny_study, "--size", "12")
    assert set(raced) == set(doc) and raced["method"] == "measured"
    [answer] = raced["answers"]
    assert answer["winner"] == "1r×2t" and answer["verdict"] == "wins" and answer["margin_low"] > 0
    assert [p["runs"] for p in answer["predictions"]] == [15, 15]
    assert set(answer["predictions"][0]["parts"]) == set(predicted_parts(doc))
    assert raced["sensitivity"]["moves"] == [] and not any(i["movable"] for i in raced["inputs"])
    several = cli("recommend", "--by", "measured", "--results", tiny_study)
    assert several.returncode == 2 and "choose one with --size" in several.stderr


def predicted_parts(doc):
    return doc["answers"][0]["predictions"][0]["parts"]


@pytest.mark.kernel
def test_a_split_the_program_refused_is_left_out_and_says_why(tiny_study):
    """A stored 1x2 run that ran one busy thread: 1r×2t is never recommended, and the output names the run."""
    add_blocks(tiny_study, 0, refused=True)
    doc = recommended("--calibration", tiny_study, run=lambda *a: cli_on(2, *a))
    [answer] = doc["answers"]
    assert answer["winner"] == "2r×1t" and [p["split"] for p in answer["predictions"]] == ["2r×1t"]
    [left] = answer["left_out"]
    assert left["split"] == "1r×2t" and "the program was seen to refuse 2 threads per rank — run " in left["why"]
    notes = " ".join(doc["notes"])
    assert "of study tiny-md (1x2): the program ignored the thread count" in notes and "MPI_ABORT" not in notes
    text = cli_on(2, "recommend", "--calibration", tiny_study)
    assert any(line.split()[:1] == ["1"] and "left out" in line for line in text.stdout.splitlines())
    assert "What would change the answer" in text.stdout


@pytest.mark.kernel
@pytest.mark.skipif(shutil.which("smpirun") is None, reason="SimGrid's smpirun is not installed")
def test_a_simulated_margin_below_the_calibration_runs_noise_says_so(tiny_study):
    """The replay is exact, its measured e_mt is not: tiny-md's 1x2 runs spread ±23%, and a margin below that between
    a threaded split and another is marked as within the noise — undecided; the clamped e_mt is warned about here
    too. The document has the model's shape."""
    out = cli("recommend", "--by", "simulation", "--cluster", "stella", "--calibration", tiny_study, "--nodes", "1",
              "--window", "2", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    [answer] = doc["answers"]
    assert answer["margin"] < 0.23 and answer["note"] == "within the ±23% noise of the measured e_mt"
    assert answer["verdict"] == "undecided" and answer["margin_low"] < 0 < answer["margin_high"]
    assert inputs_of(doc)["threading efficiency (e_mt)"]["value"] == "±22.7% noise"
    assert "hybridperf: warning: threading loss at 2 threads measured -" in out.stderr
    model = recommended("--cluster", "stella", "--calibration", tiny_study, "--nodes", "1")
    assert set(doc) == set(model) and set(answer) == set(model["answers"][0])
    assert set(answer["predictions"][0]) == set(model["answers"][0]["predictions"][0])
    assert answer["predictions"][0]["parts"]["idle"] is not None and predicted_parts(model)["idle"] is None


@pytest.mark.kernel
def test_a_preset_marks_what_it_borrows_from_another_machine_as_assumed():
    """Stella is priced with Merlin's work rate, threading losses and fork/join: each is marked assumed in the table
    of what would change the answer; on Merlin itself they are the thesis's own (published)."""
    stella = inputs_of(recommended("--cluster", "stella", "--nodes", "16"))
    assert stella["work (serial seconds)"]["source"].startswith("assumed: Merlin's (the thesis's), another machine than")
    assert "assumed: Merlin's" in stella["threading loss (1 - e_mt)"]["source"]
    assert stella["fork/join per threaded loop"]["assumed"]
    merlin = inputs_of(recommended("--cluster", "merlin", "--nodes", "16"))
    assert not merlin["work (serial seconds)"]["assumed"] and not merlin["threading loss (1 - e_mt)"]["assumed"]
    assert merlin["fork/join per threaded loop"]["source"] == "measured or published"


@pytest.mark.kernel
def test_a_calibration_priced_on_a_preset_is_borrowed_from_this_machine(tiny_study):
    doc = recommended("--cluster", "merlin", "--nodes", "1", "--calibration", tiny_study)
    given = inputs_of(doc)
    assert "assumed: this machine's, another machine than Merlin" in given["work (serial seconds)"]["source"]
    assert "assumed: this machine's" in given["threading loss (1 - e_mt)"]["source"]
    assert doc["measured"] is None  # this machine's runs do not answer for Merlin


@pytest.mark.kernel
@pytest.mark.skipif(shutil.which("smpirun") is None, reason="SimGrid's smpirun is not installed")
def test_explain_puts_the_closed_form_beside_the_replay_and_names_the_parts_that_differ():
    """Stella, one node, a small problem: the replay prices the thesis's master-only halo packing and the closed
    form does not, so the threaded splits disagree beyond both intervals, in threading."""
    out = cli("recommend", "--explain", "--cluster", "stella", "--nodes", "1", "--size", "16", "--steps",
              "10", "--window", "2")
    assert out.returncode == 0, out.stderr
    rows = table_rows(out.stdout)
    assert set(rows) >= {"1r×8t", "2r×4t", "4r×2t", "8r×1t"}
    assert all(" | " in cell for cell in rows["1r×8t"][:6])  # every part both ways
    assert rows["1r×8t"][-1].startswith("threading")
    text = out.stdout.replace("\n", " ")
    assert "1r×8t: the closed form says" in text and "beyond both intervals" in text and "they differ in threading" \
        in text
    assert "winner: closed form 8r×1t by" in text and "simulation 8r×1t by" in text
    refused = cli("recommend", "--explain", "--by", "simulation")
    assert refused.returncode == 2 and "not with --explain" in refused.stderr and refused.stderr.count("\n") == 1


@pytest.mark.kernel
@pytest.mark.skipif(shutil.which("smpirun") is None, reason="SimGrid's smpirun is not installed")
def test_simulated_on_stella_the_borrowed_costs_are_in_the_sensitivity():
    doc = recommended("--by", "simulation", "--cluster", "stella", "--nodes", "1", "--size", "16", "--steps", "10",
                      "--window", "2")
    given = inputs_of(doc)
    assert given["compute costs"]["source"] == given["threading losses"]["source"] == "borrowed: Merlin's"
    moves = {m["input"] for m in doc["sensitivity"]["moves"]}
    assert {"fork/join", "compute costs", "threading losses"} <= moves
    assert not doc["sensitivity"]["exact"] and doc["sensitivity"]["limit"] == 2
