"""hybridperf-mixbench: exact message and byte counts per size, the Hockney fit in the profile, the
thread level, and bad input (one error line, exit 2, no profile).

Runs go through the project's own launcher (hybridperf.runner.prepare) like a user's would, with
tiny iteration counts: these tests check what was sent and counted, never how fast.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import kernel_binary, KernelRun, run_kernel_in
from hybridperf.launch import kernels
from hybridperf.study import spec
from hybridperf.study.expand import expand

pytestmark = pytest.mark.kernel

REPO = Path(__file__).resolve().parents[1]
LARGE = 8192  # sizes above this use --iters-large
QUICK = ["--iters", "5", "--iters-large", "3", "--warmup", "2", "--warmup-large", "1"]


def run_mixbench_in(tmp_path: Path, ranks: int = 2, threads: int = 1, args: list[str] = ()) -> KernelRun:
    return run_kernel_in(tmp_path, "mixbench", ranks, threads, args)


@pytest.fixture(scope="session")
def mixbench_binary() -> Path:
    return kernel_binary("mixbench")


@pytest.fixture
def run_mixbench(tmp_path, mixbench_binary):
    return lambda ranks=2, threads=1, args=(): run_mixbench_in(tmp_path, ranks, threads, list(args))


def iterations(size: int) -> int:
    return 3 if size > LARGE else 5


def ok(run: KernelRun) -> dict:
    assert run.returncode == 0, run.stdout + run.stderr
    p = run.profile
    assert p is not None and p["status"] == "ok" and p["kernel"] == "mixbench"
    assert all(c["pass"] for c in p["checks"].values()), p["checks"]
    assert any(f["name"] == "loop_time" and f["better"] == "lower" for f in p["figures_of_merit"])
    return p


def histogram(p: dict, cls: str) -> dict[int, int]:
    return {b["min_bytes"]: b["count"] for b in p["comm"][cls]["size_histogram"]}


def bin_of(size: int) -> int:
    return 0 if size == 0 else 1 << (size.bit_length() - 1)


# ---------------------------------------------------------------- byte counts


def test_pingpong_counts_every_message_and_byte_exactly(run_mixbench):
    sizes = [1, 8, 1000, 8192, 9000, 65536]
    p = ok(run_mixbench(2, 1, ["--sizes", ",".join(map(str, sizes)), *QUICK]))
    rows = p["mixbench"]["tables"]["pingpong"]
    assert [r["bytes"] for r in rows] == sizes
    for r in rows:
        n = iterations(r["bytes"])
        assert r["iterations"] == n
        assert r["messages"] == r["expected_messages"] == 2 * n  # one send per iteration on each rank
        assert r["bytes_sent"] == r["expected_bytes"] == 2 * n * r["bytes"]
        assert r["errors"] == 0 and r["time"]["avg"] > 0
    p2p = p["comm"]["p2p"]
    assert p2p["messages"] == sum(2 * iterations(m) for m in sizes)
    assert p2p["bytes"] == sum(2 * iterations(m) * m for m in sizes)
    assert p2p["calls"] == 2 * p2p["messages"]  # every send has its receive
    expected_bins: dict[int, int] = {}
    for m in sizes:
        expected_bins[bin_of(m)] = expected_bins.get(bin_of(m), 0) + 2 * iterations(m)
    assert histogram(p, "p2p") == expected_bins
    assert p["comm"]["collective"]["calls"] == 0 and p["comm"]["barrier"]["calls"] == 0
    # no thread tax on the plain loop: Open MPI 4.1 locks internally at any level above SINGLE
    assert p["run"]["mpi_thread_level"]["requested"] == "MPI_THREAD_SINGLE"
    assert p["mixbench"]["pair"] == {"ranks": [0, 1], "pairs": 1, "same_node": True}


def test_comm_timers_are_off_unless_asked(run_mixbench):
    untimed = ok(run_mixbench(2, 1, ["--sizes", "8", *QUICK]))
    timed = ok(run_mixbench(2, 1, ["--sizes", "8", "--comm-timers", *QUICK]))
    assert untimed["comm"]["p2p"]["time"]["max"] == 0
    assert timed["comm"]["p2p"]["time"]["min"] > 0
    assert timed["comm"]["p2p"]["bytes"] == untimed["comm"]["p2p"]["bytes"] == 2 * 5 * 8


def test_pingpong_range_doubles_from_min_to_max(run_mixbench):
    p = ok(run_mixbench(2, 1, ["--min-size", "3", "--max-size", "40", *QUICK]))
    assert [r["bytes"] for r in p["mixbench"]["tables"]["pingpong"]] == [3, 6, 12, 24]
    assert p["comm"]["p2p"]["bytes"] == 2 * 5 * (3 + 6 + 12 + 24)


def test_pingpong_output_has_osu_columns_and_perf_line(run_mixbench):
    run = run_mixbench(2, 1, ["--sizes", "8,1M", *QUICK])
    ok(run)
    lines = run.stdout.splitlines()
    header = [line for line in lines if line.startswith("# Size")]
    assert header and "Latency (us)" in header[0] and "Bandwidth (MB/s)" in header[0]
    data = {int(line.split()[0]): [float(x) for x in line.split()[1:]] for line in lines
            if line[:1].isdigit() and len(line.split()) == 3}
    assert set(data) == {8, 1 << 20}
    rows = {r["bytes"]: r for r in run.profile["mixbench"]["tables"]["pingpong"]}
    for size, (latency, bandwidth) in data.items():
        assert latency == pytest.approx(1e6 * rows[size]["time"]["avg"], abs=0.006)
        assert bandwidth == pytest.approx(size / rows[size]["time"]["avg"] / 1e6, rel=1e-3, abs=0.006)
    perf = [line for line in lines if line.startswith("PERF ")]
    assert len(perf) == 1 and "kernel=mixbench" in perf[0] and "latency_us=" in perf[0]


def test_concurrent_pairs_count_every_pair(run_mixbench):
    p = ok(run_mixbench(4, 1, ["--pairs", "2", "--sizes", "16,20000", *QUICK]))
    rows = p["mixbench"]["tables"]["pingpong"]
    for r in rows:
        n = iterations(r["bytes"])
        assert r["ranks"] == 4 and r["messages"] == 4 * n and r["bytes_sent"] == 4 * n * r["bytes"]
        assert r["time"]["max_rank"] in (0, 1) and r["time"]["min_rank"] in (0, 1)  # the pinging ranks measure
    assert p["comm"]["p2p"]["messages_per_rank"]["min"] == p["comm"]["p2p"]["messages_per_rank"]["max"]


def test_collectives_against_rank_count(run_mixbench):
    sizes = [4, 8, 24, 10004, 16384]  # 4 and 10004 are not whole doubles: no allreduce rows
    p = ok(run_mixbench(3, 1, ["--bench", "collectives", "--sizes", ",".join(map(str, sizes)), *QUICK]))
    allreduce = p["mixbench"]["tables"]["allreduce"]
    assert [(r["ranks"], r["bytes"]) for r in allreduce] == [(2, 8), (2, 24), (2, 16384), (3, 8), (3, 24), (3, 16384)]
    for r in allreduce:
        n = iterations(r["bytes"])
        assert r["messages"] == r["ranks"] * n and r["bytes_sent"] == r["ranks"] * n * r["bytes"]
        assert r["errors"] == 0
    barrier = p["mixbench"]["tables"]["barrier"]
    assert [(r["ranks"], r["iterations"]) for r in barrier] == [(2, 5), (3, 5)]
    coll = p["comm"]["collective"]
    assert coll["calls"] == coll["messages"] == sum(r["messages"] for r in allreduce)
    assert coll["bytes"] == sum(r["bytes_sent"] for r in allreduce)
    assert p["comm"]["barrier"]["calls"] == 2 * 5 + 3 * 5 and p["comm"]["barrier"]["bytes"] == 0
    assert p["comm"]["p2p"]["calls"] == 0
    assert set(p["mixbench"]["hockney"]) == {"allreduce_p2", "allreduce_p3"}


def test_mixed_styles_count_per_thread_messages(run_mixbench):
    sizes = [1, 1001, 9000]
    p = ok(run_mixbench(2, 2, ["--bench", "mixed", "--sizes", ",".join(map(str, sizes)), *QUICK]))
    assert p["run"]["mpi_thread_level"] == {"requested": "MPI_THREAD_MULTIPLE", "provided": "MPI_THREAD_MULTIPLE"}
    tables = p["mixbench"]["tables"]
    assert set(tables) == {"mixed_single", "mixed_masteronly", "mixed_funnelled", "mixed_multiple"}
    total = 0
    for name, rows in tables.items():
        per_iteration = 2 if name == "mixed_multiple" else 1  # multiple: each of the 2 threads sends its part
        for r in rows:
            n = iterations(r["bytes"])
            assert r["messages"] == r["expected_messages"] == 2 * n * per_iteration
            assert r["bytes_sent"] == r["expected_bytes"] == 2 * n * r["bytes"]
            assert r["errors"] == 0
            total += r["bytes_sent"]
        if name == "mixed_single":
            assert all(r["ratio_to_single"] == 1 for r in rows)
    assert p["comm"]["p2p"]["bytes"] == total
    # size 1 over 2 threads in the multiple style: one 1-byte and one empty message per iteration and rank
    assert histogram(p, "p2p")[0] == 2 * iterations(1)


def test_halo_sends_six_faces_per_exchange(run_mixbench):
    sizes = [8, 10000]
    p = ok(run_mixbench(2, 2, ["--bench", "halo", "--sizes", "8,10000", "--styles", "masteronly,funnelled", *QUICK]))
    assert p["mixbench"]["grid"] == [2, 1, 1]
    assert p["run"]["mpi_thread_level"]["requested"] == "MPI_THREAD_FUNNELED"
    for name in ("halo_masteronly", "halo_funnelled"):
        rows = p["mixbench"]["tables"][name]
        assert [r["bytes"] for r in rows] == sizes
        for r in rows:
            n = iterations(r["bytes"])
            assert r["ranks"] == 2 and r["messages"] == 2 * 6 * n and r["bytes_sent"] == 2 * 6 * n * r["bytes"]
            assert r["errors"] == 0
    assert p["comm"]["p2p"]["bytes"] == 2 * 2 * 6 * sum(iterations(m) * m for m in sizes)


def test_alternating_reports_slowdowns_against_a_quiet_baseline(run_mixbench):
    p = ok(run_mixbench(2, 1, ["--bench", "alternating", "--region-reps", "3", "--region-work", "20000"]))
    alt = p["mixbench"]["alternating"]
    assert alt["root"] == 0 and alt["regions_per_phase"] == 3 and alt["threads"] == 1
    for phase in ("baseline", "waiting", "busy"):
        assert alt[f"{phase}_s"] > 0 and alt[f"{phase}_min_s"] <= alt[f"{phase}_s"]
    assert alt["slowdown_waiting"] == pytest.approx(alt["waiting_s"] / alt["baseline_s"])
    assert alt["slowdown_busy"] == pytest.approx(alt["busy_s"] / alt["baseline_s"])
    assert alt["barriers_per_rank"] == 4 * 3  # two barriers around each region, two phases
    assert p["comm"]["barrier"]["calls"] == 2 * 4 * 3
    assert p["comm"]["p2p"]["calls"] == 0  # the baseline's release messages are not counted
    names = {f["name"] for f in p["figures_of_merit"]}
    assert {"alternating_slowdown_waiting", "alternating_slowdown_busy"} <= names


def test_alternating_runs_on_one_rank(run_mixbench):
    p = ok(run_mixbench(1, 2, ["--bench", "alternating", "--region-reps", "2", "--region-work", "10000"]))
    assert p["mixbench"]["alternating"]["threads"] == 2


CHAIN_TABLES = ("chain_sendrecv", "chain_send_irecv_wait")
CHAIN_CALLS = {"chain_sendrecv": 1, "chain_send_irecv_wait": 3}  # MPI_Sendrecv | MPI_Irecv, MPI_Send, MPI_Wait


@pytest.mark.parametrize("ranks,counts", [(2, [2]), (3, [2, 3]), (4, [2, 4])])
def test_chain_counts_every_rank_message_and_byte_of_both_loops(run_mixbench, ranks, counts):
    sizes = [1, 8192, 8193, 65536]  # the chain adds 0 bytes; 8193 and above use --iters-large
    p = ok(run_mixbench(ranks, 1, ["--bench", "chain", "--sizes", ",".join(map(str, sizes)), *QUICK]))
    assert p["run"]["mpi_thread_level"]["requested"] == "MPI_THREAD_SINGLE"
    tables = p["mixbench"]["tables"]
    assert set(tables) == set(CHAIN_TABLES)
    calls = messages = volume = 0
    per_rank = [0] * ranks  # messages each rank sent: a rank sends one per iteration of every chain it is in
    bins: dict[int, int] = {}
    for name in CHAIN_TABLES:
        rows = tables[name]
        assert [(r["ranks"], r["bytes"]) for r in rows] == [(c, m) for c in counts for m in [0, *sizes]]
        for r in rows:
            n, c = iterations(r["bytes"]), r["ranks"]
            assert r["iterations"] == n
            assert r["messages"] == r["expected_messages"] == c * n  # one send per iteration on each of c ranks
            assert r["bytes_sent"] == r["expected_bytes"] == c * n * r["bytes"]
            assert r["errors"] == 0
            assert r["bandwidth_MBps"] == pytest.approx(2 * r["bytes"] / r["time"]["max"] / 1e6, rel=1e-12)
            assert r["time"]["max_rank"] < c and r["time"]["min_rank"] < c  # only the chain's ranks measure
            calls += CHAIN_CALLS[name] * c * n
            messages += c * n
            volume += c * n * r["bytes"]
            bins[bin_of(r["bytes"])] = bins.get(bin_of(r["bytes"]), 0) + c * n
            for rank in range(c):
                per_rank[rank] += n
    p2p = p["comm"]["p2p"]
    assert (p2p["calls"], p2p["messages"], p2p["bytes"]) == (calls, messages, volume)
    assert (p2p["messages_per_rank"]["min"], p2p["messages_per_rank"]["max"]) == (min(per_rank), max(per_rank))
    assert histogram(p, "p2p") == bins
    assert p["comm"]["collective"]["calls"] == 0 and p["comm"]["barrier"]["calls"] == 0
    summary = p["mixbench"]["chain"]["per_rank_count"]
    assert [s["ranks"] for s in summary] == counts
    for s in summary:
        for loop, name in (("sendrecv", "chain_sendrecv"), ("send_irecv_wait", "chain_send_irecv_wait")):
            rows = [r for r in tables[name] if r["ranks"] == s["ranks"]]
            assert s[loop]["overhead_s"] == rows[0]["time"]["max"] and rows[0]["bytes"] == 0
            peak = max(rows, key=lambda r: r["bandwidth_MBps"])
            assert (s[loop]["peak_bytes"], s[loop]["peak_bandwidth_MBps"]) == (peak["bytes"], peak["bandwidth_MBps"])
    assert set(p["mixbench"]["hockney"]) == {f"{name}_p{c}" for name in CHAIN_TABLES for c in counts}
    figures = {f["name"]: f for f in p["figures_of_merit"]}
    world = [r for r in tables["chain_sendrecv"] if r["ranks"] == ranks]
    assert figures["chain_overhead"]["value"] == pytest.approx(1e6 * world[0]["time"]["max"], rel=1e-12)
    assert figures["chain_bandwidth"]["better"] == "higher"


def test_chain_counts_its_loops_after_them_exactly_as_the_timed_wrappers_count_each_call(run_mixbench):
    """The chain's timed loops hold only the MPI calls (counted once after each loop); --comm-timers sends every call
    through the instrumented wrappers instead, each timed: the counts and histograms agree call for call."""
    args = ["--bench", "chain", "--sizes", "1,65536", *QUICK]
    counted, timed = (ok(run_mixbench(2, 1, args + extra))["comm"]["p2p"] for extra in ([], ["--comm-timers"]))
    iterations_per_rank = 2 * 5 + 3  # 0 B and 1 B at --iters, 64 KiB at --iters-large, in each of the two loops
    for p2p in (counted, timed):
        assert (p2p["calls"], p2p["messages"]) == (2 * 4 * iterations_per_rank, 2 * 2 * iterations_per_rank)
        assert p2p["bytes"] == 2 * 2 * (5 * 1 + 3 * 65536)
        assert p2p["per_call"]["count"] == p2p["calls"]
    assert counted["size_histogram"] == timed["size_histogram"]
    assert counted["time"]["max"] == 0 and counted["per_call"]["bins"] == [
        {"min_seconds": 0, "max_seconds": 1e-07, "count": 2 * 4 * iterations_per_rank}]  # untimed: 0 s each
    assert timed["time"]["min"] > 0 and timed["per_call"]["max"] > 0


# ---------------------------------------------------------------- the Hockney fit


def weighted_fit(m: list[float], t: list[float]) -> tuple[float, float, float]:
    """alpha, beta and the weighted R^2 of t = alpha + beta m, each point weighted 1 / t^2 (relative errors)."""
    w = [1 / x**2 for x in t]
    sw = sum(w)
    mbar = sum(wi * mi for wi, mi in zip(w, m)) / sw
    tbar = sum(wi * ti for wi, ti in zip(w, t)) / sw
    beta = sum(wi * (mi - mbar) * (ti - tbar) for wi, mi, ti in zip(w, m, t)) / sum(
        wi * (mi - mbar) ** 2 for wi, mi in zip(w, m))
    alpha = tbar - beta * mbar
    residual = sum(wi * (ti - alpha - beta * mi) ** 2 for wi, mi, ti in zip(w, m, t))
    spread = sum(wi * (ti - tbar) ** 2 for wi, ti in zip(w, t))
    return alpha, beta, 1 - residual / spread


def test_profile_fit_is_the_weighted_least_squares_of_its_rows(run_mixbench):
    p = ok(run_mixbench(2, 1, ["--sizes", "1,64,4K,64K,1M", "--fit-min", "64", "--fit-max", "65536", *QUICK]))
    rows = [r for r in p["mixbench"]["tables"]["pingpong"] if 64 <= r["bytes"] <= 65536]
    alpha, beta, r2 = weighted_fit([r["bytes"] for r in rows], [r["time"]["avg"] for r in rows])
    fit = p["mixbench"]["hockney"]["pingpong"]
    assert (fit["fit_min_bytes"], fit["fit_max_bytes"], fit["points"]) == (64, 65536, 3)
    assert fit["alpha_s"] == pytest.approx(alpha, rel=1e-6, abs=1e-15)
    assert fit["beta_s_per_byte"] == pytest.approx(beta, rel=1e-6)
    assert fit["r2"] == pytest.approx(r2, rel=1e-6)


def test_hockney_unit_test_recovers_a_synthetic_series(tmp_path):
    """tests/c/test_hockney.c, compiled here too so the fit is tested even where ctest is not run."""
    cc = "cc"
    exe = tmp_path / "test_hockney"
    build = subprocess.run([cc, "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-I", str(REPO / "tests/c"),
                            "-I", str(REPO / "kernels/mixbench"), str(REPO / "tests/c/test_hockney.c"),
                            str(REPO / "kernels/mixbench/hockney.c"), "-o", str(exe), "-lm"],
                           capture_output=True, text=True)
    if build.returncode and "not found" in build.stderr:
        pytest.skip("no C compiler")
    assert build.returncode == 0, build.stderr
    result = subprocess.run([str(exe)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


# ---------------------------------------------------------------- bad input


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("hybridperf-mixbench: error:")]


MULTI_RANK_CASES = [
    (["--pair", "0,2"], "--pair 0,2: rank 2 is outside the communicator of 2 ranks (0..1)"),
    (["--pair", "-1,1"], "--pair -1,1: rank -1 is outside the communicator of 2 ranks (0..1)"),
    (["--pairs", "2"], "--pairs 2 needs 4 ranks, got 2"),
    (["--bench", "halo", "--grid", "3", "1", "1"], "--grid 3 1 1 needs 3 ranks, got 2"),
    # Open MPI here provides MPI_THREAD_MULTIPLE; the cap takes the "provided < required" path
    (["--bench", "mixed", "--test-thread-cap", "serialized"],
     "the multiple style needs MPI_THREAD_MULTIPLE but the MPI library provides only MPI_THREAD_SERIALIZED"),
    (["--bench", "all", "--styles", "masteronly", "--test-thread-cap", "single"],
     "--bench all needs MPI_THREAD_FUNNELED (the master calls MPI while OpenMP threads exist) but the MPI library "
     "provides only MPI_THREAD_SINGLE"),
]


@pytest.mark.parametrize("args,message", MULTI_RANK_CASES, ids=[c[1][:40] for c in MULTI_RANK_CASES])
def test_bad_input_with_two_ranks_reports_once(run_mixbench, args, message):
    run = run_mixbench(2, 1, args)
    assert run.returncode == 2
    lines = error_lines(run.stderr)
    assert len(lines) == 1 and message in lines[0], run.stderr
    assert run.profile is None and not run.profile_path.exists()


def test_pingpong_runs_on_a_library_without_thread_support(run_mixbench):
    p = ok(run_mixbench(2, 1, ["--bench", "network", "--sizes", "8", "--test-thread-cap", "single", *QUICK]))
    assert p["mixbench"]["tables"]["pingpong"][0]["messages"] == 2 * 5


def test_help_options_and_version(mixbench_binary):
    help_text = subprocess.run([str(mixbench_binary), "--help"], capture_output=True, text=True, check=True).stdout
    for option in ("--bench", "--sizes", "--min-size", "--max-size", "--pair", "--styles", "--thread-level",
                   "--iters", "--warmup", "--profile"):
        assert option in help_text
    options = {o["name"]: o for o in kernels.options("mixbench")}
    assert {"bench", "sizes", "pair", "styles", "region-reps", "region-work"} <= set(options)
    assert options["sizes"]["type"] == "list" and options["sizes"]["default"] == []  # empty: the doubling range
    assert options["styles"]["type"] == "list"
    assert options["styles"]["default"] == ["single", "masteronly", "funnelled", "multiple"]
    assert options["pair"]["type"] == "path" and options["pair"]["default"] == "0,1"  # two ranks, not a list
    version = subprocess.run([str(mixbench_binary), "--version"], capture_output=True, text=True, check=True).stdout
    assert version.startswith("hybridperf-mixbench ")


# ---------------------------------------------------------------- the study spec


def test_placement_study_spec_is_valid(mixbench_binary):
    study = spec.load(REPO / "studies" / "mixbench-placement.yaml", cores_per_node=2)
    plans = expand(study)
    shapes = {(plan.params["bench"], plan.ranks, plan.threads) for plan in plans}
    assert ("network", 2, 1) in shapes and ("alternating", 2, 2) in shapes


def test_check_decomposition_says_which_rank_counts_a_run_needs_and_runs_nothing(mixbench_binary):
    """What a study asks before running (study/feasibility.py): the kernel's own rank checks, per rank count."""
    out = subprocess.run([str(mixbench_binary), "--bench", "pingpong", "--pairs", "2", "--check-decomposition", "1,4"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert [(r["ranks"], r["ok"], r["error"]) for r in json.loads(out.stdout)] == [
        (1, False, "--bench pingpong needs at least 2 ranks, got 1"), (4, True, None)]
    bad = subprocess.run([str(mixbench_binary), "--check-decomposition", "2,x"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stdout == "" and "'x' is not a rank count" in bad.stderr
