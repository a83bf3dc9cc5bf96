"""POP's efficiency factors (analysis.pop, analysis.pop_study; docs/pop.md): synthetic runs whose factors are known
in closed form, the product identities, None with a reason where a run lacks the inputs, and a real tiny md study
whose report carries the factors and the sentence that explains its winner."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from types import SimpleNamespace

import pytest

from conftest import run_kernel_in
from hybridperf.analysis import pop
from hybridperf.analysis.pop_study import Estimate, explanation, point_factors, PointFactors
from hybridperf.analysis.sections import Point
from hybridperf.analysis.stats import summarize

HYBRIDPERF = [sys.executable, "-m", "hybridperf"]


def times(outside: list[float], elapsed: float = 2.5, nodes: tuple[str, ...] | None = None) -> pop.RankTimes:
    """Ranks that all ran `elapsed` seconds, rank i outside MPI for outside[i] of them."""
    return pop.RankTimes(tuple(elapsed for _ in outside), tuple(elapsed - o for o in outside), nodes)


def test_rank_zero_computing_twice_as_long_gives_load_balance_mean_over_max():
    f = pop.factors(times([2.0, 1.0, 1.0, 1.0], nodes=("a",) * 4), pop.OpenMP(1)).values
    assert f["mpi_load_balance"] == 1.25 / 2.0  # mean 1.25 over max 2
    assert f["mpi_communication_efficiency"] == 2.0 / 2.5  # max useful over the runtime
    assert f["mpi_parallel_efficiency"] == 1.25 / 2.5
    assert f["mpi_load_balance_in"] == 0.625 and f["mpi_load_balance_out"] == 1.0  # one node: all of it within


def test_load_balance_splits_into_within_and_between_nodes():
    f = pop.factors(times([2.0, 1.0, 1.0, 1.0], nodes=("a", "a", "b", "b")), pop.OpenMP(1)).values
    assert f["mpi_load_balance_in"] == 1.5 / 2.0  # the busiest node's mean over the busiest rank
    assert f["mpi_load_balance_out"] == pytest.approx(1.25 / 1.5)  # the mean over the busiest node's mean
    assert f["mpi_load_balance_in"] * f["mpi_load_balance_out"] == pytest.approx(f["mpi_load_balance"], rel=1e-15)


def test_a_serial_section_on_the_master_gives_its_serialization_efficiency():
    """One rank, 4 threads, 10 s outside MPI of which 6 in parallel regions: the 4 serial seconds leave 3 threads
    idle, so serialization = (10 − 3/4 · 4) / 10 = 0.7; balanced regions leave load balance and scheduling at 1."""
    f = pop.factors(times([10.0], elapsed=10.0, nodes=("a",)),
                    pop.OpenMP(4, 6.0, *pop.region_idle((6.0, 6.0, 6.0, 6.0), 6.0))).values
    assert f["openmp_serialization_efficiency"] == pytest.approx(0.7, rel=1e-15)
    assert f["openmp_load_balance"] == 1.0 and f["openmp_scheduling_efficiency"] == 1.0
    assert f["openmp_parallel_efficiency"] == pytest.approx(0.7, rel=1e-15)
    assert f["parallel_efficiency"] == pytest.approx(0.7, rel=1e-15)  # no MPI: MPI parallel efficiency is 1


def test_openmp_load_balance_and_scheduling_in_closed_form():
    # a 4 s region whose threads are busy 4, 2, 2 and 2 s: load balance = mean busy / max busy = 2.5 / 4
    assert pop.region_idle((4.0, 2.0, 2.0, 2.0), 4.0) == (1.5, 0.0)
    f = pop.factors(times([4.0], elapsed=4.0, nodes=("a",)),
                    pop.OpenMP(4, 4.0, *pop.region_idle((4.0, 2.0, 2.0, 2.0), 4.0))).values
    assert (f["openmp_load_balance"], f["openmp_scheduling_efficiency"]) == (0.625, 1.0)
    # a 5 s region whose two threads are each busy 4 s: the fifth second is scheduling (runtime) loss
    f = pop.factors(times([5.0], elapsed=5.0, nodes=("a",)), pop.OpenMP(2, 5.0, *pop.region_idle((4.0, 4.0), 5.0))).values
    assert (f["openmp_load_balance"], f["openmp_scheduling_efficiency"], f["openmp_serialization_efficiency"]) == \
        (1.0, 0.8, 1.0)


def test_the_products_hold():
    """Parallel = MPI × OpenMP; MPI = communication × load balance; OpenMP = load balance × scheduling × serial."""
    executions = [((3.0, 1.0), 3.5), ((1.0, 0.5), 1.5), ((2.0, 2.0), 2.5), ((0.4, 0.4), 0.5)]  # over both ranks
    imbalance, scheduling = (sum(x) for x in zip(*(pop.region_idle(b, s) for b, s in executions)))
    f = pop.factors(pop.RankTimes((9.0, 8.0), (1.0, 2.5), ("a", "b")), pop.OpenMP(2, 8.0, imbalance, scheduling)).values
    assert f["mpi_parallel_efficiency"] == pytest.approx(f["mpi_communication_efficiency"] * f["mpi_load_balance"])
    assert f["openmp_parallel_efficiency"] == pytest.approx(
        f["openmp_load_balance"] * f["openmp_scheduling_efficiency"] * f["openmp_serialization_efficiency"])
    assert f["parallel_efficiency"] == pytest.approx(f["mpi_parallel_efficiency"] * f["openmp_parallel_efficiency"])
    assert all(0 < f[name] <= 1 for name in pop.RUN_FACTORS if name != "ipc")


def profile_of(threads: int = 1, rank_times: dict | None = None, kernel: str = "md", **extra) -> dict:
    p = {"kernel": kernel, "run": {"ranks": 2, "threads_per_rank": threads, "nodes": 1, "affinity": []},
         "regions": {"total": {"time": {"avg": 2.0}}}, **extra}
    if rank_times:
        p["rank_times"] = rank_times
    return p


def test_missing_inputs_give_none_with_a_reason():
    f = pop.of_profile(profile_of(threads=2))  # no rank_times (a profile from before), OpenMP data none either
    assert all(f.values[name] is None for name in pop.RUN_FACTORS)
    assert "rank_times" in f.why["mpi_load_balance"] and "hardware counts" in f.why["ipc"]
    one_thread = pop.of_profile(profile_of(threads=1))
    assert all(one_thread.values[name] == 1.0 for name in pop.OMP_FACTORS)  # M = 1: no thread is ever idle


@pytest.mark.parametrize("kernel", ["clomp", "stream", "ompbench", "mixbench"])
def test_a_kernel_that_does_not_time_its_threads_has_its_mpi_factors_and_no_openmp_ones(kernel):
    f = pop.of_profile(profile_of(threads=2, rank_times={"elapsed": [2.0, 2.0], "mpi": [0.5, 1.0]}, kernel=kernel))
    assert f.values["mpi_load_balance"] == 1.25 / 1.5  # outside MPI 1.5 and 1.0 s
    assert all(f.values[name] is None for name in (*pop.OMP_FACTORS, "parallel_efficiency"))
    assert f.why["openmp_serialization_efficiency"] == pop.NO_KERNEL_REGIONS
    assert f.why["openmp_load_balance"] == f.why["openmp_scheduling_efficiency"] == pop.NO_THREAD_TIMES


@pytest.mark.parametrize("kernel", pop.THREAD_TIMED)
def test_a_run_of_a_kernel_that_times_its_threads_but_did_not_names_the_flags(kernel):
    untimed = pop.of_profile(profile_of(threads=2, rank_times={"elapsed": [2.0, 2.0], "mpi": [0.5, 1.0]},
                                        kernel=kernel))
    assert all(untimed.values[name] is None for name in pop.OMP_FACTORS)
    assert untimed.why["openmp_load_balance"] == untimed.why["openmp_serialization_efficiency"] == \
        f"the {kernel} run did not time its threads (it ran with --no-timers or --no-thread-times)"


def test_an_md_run_that_timed_its_threads_gets_every_openmp_factor():
    """2 ranks × 2 threads, 1.5 s outside MPI each, 1.0 s in parallel regions each, 0.25 s imbalance and 0.125 s
    scheduling each: A = 3, I_ser = 1/2 · (3 − 2) = 0.5, I_lb = 0.5, I_sch = 0.25."""
    md = profile_of(threads=2, rank_times={"elapsed": [2.0, 2.0], "mpi": [0.5, 0.5]},
                    openmp_idle={"regions": [1.0, 1.0], "load_imbalance": [0.25, 0.25], "scheduling": [0.125, 0.125],
                                 "unsplit_regions": [0, 0]})
    f = pop.of_profile(md).values
    assert f["openmp_serialization_efficiency"] == pytest.approx(2.5 / 3, rel=1e-15)
    assert f["openmp_load_balance"] == pytest.approx(2.0 / 2.5, rel=1e-15)
    assert f["openmp_scheduling_efficiency"] == pytest.approx(1.75 / 2.0, rel=1e-15)
    assert f["openmp_parallel_efficiency"] == pytest.approx(1.75 / 3, rel=1e-15)
    assert f["parallel_efficiency"] == pytest.approx(1.75 / 3 * 1.5 / 2.0, rel=1e-15)


def test_an_app_with_ompt_regions_gets_its_serialization_efficiency():
    """2 ranks × 2 threads, 1.5 s outside MPI each, parallel regions 1.0 s per rank on average: serialization =
    (3 − 1/2 · (3 − 2)) / 3."""
    app = profile_of(threads=2, kernel="app", rank_times={"elapsed": [2.0, 2.0], "mpi": [0.5, 0.5]},
                     app={"openmp_tool": "ompt"})
    app["regions"] |= {"omp_a+0x10": {"time": {"avg": 0.75}}, "omp_b+0x20": {"time": {"avg": 0.25}}}
    assert pop.of_profile(app).values["openmp_serialization_efficiency"] == pytest.approx(2.5 / 3, rel=1e-15)
    # the MPI library's OMPT tool split its threads' idle time: 0.5 s imbalance, 0.25 s scheduling over both ranks
    app["openmp_idle"] = {"regions": [1.0, 1.0], "load_imbalance": [0.25, 0.25], "scheduling": [0.25, 0.0],
                          "unsplit_regions": [0, 0]}
    f = pop.of_profile(app).values
    assert f["openmp_load_balance"] == pytest.approx((2.5 - 0.5) / 2.5, rel=1e-15)
    assert f["openmp_scheduling_efficiency"] == pytest.approx((2.0 - 0.25) / 2.0, rel=1e-15)
    assert f["openmp_parallel_efficiency"] == pytest.approx(1.75 / 3, rel=1e-15)
    app["openmp_idle"]["unsplit_regions"] = [0, 2]
    assert "2 parallel region executions" in pop.of_profile(app).why["openmp_load_balance"]
    without = profile_of(threads=2, kernel="app", rank_times={"elapsed": [2.0, 2.0], "mpi": [0.5, 0.5]},
                         app={"openmp_tool": "unavailable"})
    assert "without OMPT" in pop.of_profile(without).why["openmp_serialization_efficiency"]


def estimate(value: float) -> Estimate:
    return Estimate(value, value, value, 1)


def test_the_explanation_names_the_leaf_factor_that_differs_most():
    table = [PointFactors("hybrid-1", 2, {"mpi_communication_efficiency": estimate(0.97),
                                          "mpi_load_balance_in": estimate(0.99), "parallel_efficiency": estimate(0.5),
                                          "openmp_serialization_efficiency": estimate(0.98)}),
             PointFactors("pure-mpi", 2, {"mpi_communication_efficiency": estimate(0.88),
                                          "mpi_load_balance_in": estimate(0.95), "parallel_efficiency": estimate(0.9),
                                          "openmp_serialization_efficiency": estimate(1.0)})]
    verdict = SimpleNamespace(runner_up=SimpleNamespace(candidate="pure-mpi"), winner="hybrid-1", scale=2,
                              outcome="wins", race=SimpleNamespace(leader="hybrid-1"))
    # parallel efficiency differs by more, but is a product of the others: the leaves explain
    assert explanation(table, verdict, "cores") == ("hybrid-1 wins at 2 cores: its MPI communication efficiency is "
                                                    "0.97 against 0.88 for pure-mpi; its OpenMP serialization costs "
                                                    "2%.")
    # equal at 2 digits: 3 are given
    table[1].values |= {"mpi_communication_efficiency": estimate(0.968), "mpi_load_balance_in": estimate(0.99)}
    assert explanation(table, verdict, "cores").startswith("hybrid-1 wins at 2 cores: its MPI communication "
                                                           "efficiency is 0.970 against 0.968 for pure-mpi")
    # BT-MZ on 16 cores: 4x4 led 2x8 while every MPI factor favoured 2x8; its OpenMP factors were not measured
    table[1].values = {"mpi_communication_efficiency": estimate(0.99), "mpi_load_balance_in": estimate(0.995),
                       "openmp_serialization_efficiency": estimate(1.0)}
    table[0].values["openmp_load_balance"], table[0].why["ipc"] = None, "no counters"
    table[0].why["openmp_load_balance"] = table[0].why["openmp_scheduling_efficiency"] = "no OMPT"
    assert explanation(table, verdict, "cores") == (
        "hybrid-1 wins at 2 cores, though each factor both carry favours pure-mpi (MPI communication efficiency 0.97 "
        "against 0.99 for pure-mpi): its lead lies in what they do not take apart; not measured: OpenMP load "
        "balance, OpenMP scheduling efficiency — no OMPT.")
    # where the global efficiency has the lead the leaves do not, the sentence gives it, as the table does
    table[0].values["global_efficiency"], table[1].values["global_efficiency"] = estimate(0.69), estimate(0.28)
    assert "its lead lies in what they do not take apart; the global efficiency has it, 0.69 against 0.28;" in \
        explanation(table, verdict, "cores")
    del table[0].values["global_efficiency"], table[1].values["global_efficiency"]
    # a tie's preferred has no lead: the sentence says where the two differ, and claims nothing of a lead
    tie = SimpleNamespace(runner_up=SimpleNamespace(candidate="pure-mpi"), winner="hybrid-1", scale=2,
                          outcome="tie", race=SimpleNamespace(leader="pure-mpi"))
    assert explanation(table, tie, "cores") == (
        "hybrid-1 is preferred of the tie at 2 cores (fewer ranks; neither is faster beyond the band): they differ "
        "most in MPI communication efficiency 0.97 against 0.99 for pure-mpi.")
    # what the runner-up alone lacks may hide its loss too (a simulated hybrid's threads): said for it
    del table[1].values["openmp_serialization_efficiency"]
    table[1].why["openmp_serialization_efficiency"] = table[1].why["openmp_load_balance"] = "a simulated run"
    assert explanation(table, verdict, "cores").endswith(
        "not measured: OpenMP load balance, OpenMP scheduling efficiency — no OMPT; not measured for pure-mpi: "
        "OpenMP serialization efficiency — a simulated run.")
    table[1].values = {}
    assert "no POP factor is known for both" in explanation(table, verdict, "cores")


@pytest.mark.kernel
def test_md_writes_each_ranks_times_consistent_with_its_statistics(tmp_path):
    run = run_kernel_in(tmp_path, "md", ranks=2, args=("-s", "6", "--steps", "10"))
    assert run.returncode == 0, run.stderr
    p = run.profile
    elapsed, mpi = p["rank_times"]["elapsed"], p["rank_times"]["mpi"]
    total = p["regions"]["total"]["time"]
    assert len(elapsed) == len(mpi) == 2
    assert (min(elapsed), max(elapsed)) == (total["min"], total["max"])  # the same per-rank numbers, gathered
    assert sum(mpi) / 2 == pytest.approx(sum(c["time"]["avg"] for c in p["comm"].values()), rel=1e-12)
    assert all(0 < m < e for m, e in zip(mpi, elapsed))


TINY = """study: tiny-pop
kernel: md
params: {{size: 6, steps: 10}}
configurations: [pure-mpi, hybrid-1]
cores: [2]
repeats: 2
results: {results}
"""


@pytest.mark.kernel
def test_a_real_study_reports_its_factors_and_explains_its_leader(tmp_path):
    spec = tmp_path / "tiny.yaml"
    spec.write_text(TINY.format(results=tmp_path / "results"))
    proc = subprocess.run([*HYBRIDPERF, "study", str(spec), "--no-report"], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = subprocess.run([*HYBRIDPERF, "report", str(tmp_path / "results"), "--json"], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    section = json.loads(out.stdout)["sections"][0]
    points = {p["configuration"]: p for p in section["pop"]}
    assert set(points) == {"pure-mpi", "hybrid-1"} and all(p["cores"] == 2 for p in points.values())
    for name in ("mpi_parallel_efficiency", "mpi_communication_efficiency", "mpi_load_balance"):
        for p in points.values():
            assert 0 < p["factors"][name]["median"] <= 1 and p["factors"][name]["runs"] == 2
    # global efficiency is measured against the reference point's median (docs/pop.md): at 2 cores both points are
    # the reference's scale, so a run faster than that median passes 1 by the runs' noise (1.09 seen on a loaded
    # machine), and a run slowed by another process falls far below it (0.29 seen with two busy loops beside the
    # test); twice the reference's efficiency would be a wrong reference or a wrong time
    for p in points.values():
        assert 0 < p["factors"]["global_efficiency"]["median"] < 2 and p["factors"]["global_efficiency"]["runs"] == 2
    assert points["pure-mpi"]["factors"]["openmp_parallel_efficiency"]["median"] == 1.0  # one thread per rank
    for name in pop.OMP_FACTORS:  # md times its threads in the loop (openmp_idle)
        factor = points["hybrid-1"]["factors"][name]
        assert 0 < factor["median"] <= 1 and factor["runs"] == 2
    ipc = points["hybrid-1"]["factors"]["ipc"]  # none on a machine without hardware counters (this project's)
    if ipc is None:
        assert points["hybrid-1"]["unavailable"]["ipc"].startswith("hardware counters unavailable: ")
    else:
        assert 0.05 < ipc["median"] < 10
    # at 2 cores, hybrid-1 is one rank: nothing to balance, nothing to wait for but its own collectives
    assert points["hybrid-1"]["factors"]["mpi_load_balance"]["median"] == 1.0
    (scale,) = section["scales"]
    leader = scale["preferred"]
    other = ({"pure-mpi", "hybrid-1"} - {leader}).pop()
    why = scale["why"]
    assert why.startswith(f"{leader} ") and f"for {other}" in why
    factor = next(name for name in pop.NAMES.values() if f"its {name} is" in why)
    key = next(k for k, v in pop.NAMES.items() if v == factor)
    mine, theirs = (points[c]["factors"][key]["median"] for c in (leader, other))
    assert f"is {mine:.2f} against {theirs:.2f}" in why
    assert not math.isclose(mine, theirs)


def counted_profile(ranks: int, elapsed: float, mpi: float, instructions: int, cycles: int) -> dict:
    """A one-thread run whose ranks each counted `instructions` and `cycles` outside MPI."""
    counters = {"instructions": [instructions] * ranks, "cycles": [cycles] * ranks}
    return {"kernel": "md", "run": {"threads_per_rank": 1, "ranks": ranks, "nodes": 1},
            "rank_times": {"elapsed": [elapsed] * ranks, "mpi": [mpi] * ranks, "counters": counters}}


def test_ipc_and_instruction_scalability_split_computation_scalability():
    """POP: computation scalability = IPC scalability × instruction scalability × frequency scalability. The
    reference (1 core) runs 4e9 instructions in 2e9 cycles (IPC 2) in 2 s; at 2 cores each rank runs 2.2e9 in
    1.25e9 cycles in its 1 s outside MPI: 10% more instructions, IPC 1.76, at 1.25 times the frequency."""
    reference, two = counted_profile(1, 2.0, 0.0, 4_000_000_000, 2_000_000_000), \
        counted_profile(2, 1.1, 0.1, 2_200_000_000, 1_250_000_000)
    assert pop.of_profile(reference).values["ipc"] == 2.0
    points = [Point("pure-mpi", cores, cores, 1, cores, 1, "", summarize([p["rank_times"]["elapsed"][0]] * 2), 0,
                    [{"profile": p}]) for cores, p in ((1, reference), (2, two))]
    table = {f.scale: f.values for f in point_factors(SimpleNamespace(points=points), [("pure-mpi", p) for p in points])}
    ipc_s, instructions_s = table[2]["ipc_scalability"].median, table[2]["instruction_scalability"].median
    assert ipc_s == pytest.approx(4.4 / 2.5 / 2, rel=1e-12) and instructions_s == pytest.approx(4 / 4.4, rel=1e-12)
    frequency_s = (2.5e9 / 2.0) / (2e9 / 2.0)  # cycles per useful second against the reference's
    assert ipc_s * instructions_s * frequency_s == pytest.approx(table[2]["computation_scalability"].median, rel=1e-12)
    assert table[1]["ipc_scalability"].median == table[1]["instruction_scalability"].median == 1.0


def test_counts_that_are_not_instructions_and_cycles_give_no_ipc_and_say_why():
    software = pop.Counts({"task-clock": (10,), "cpu-clock": (11,)})
    assert software.ipc() == (None, "the run counted task-clock, cpu-clock (HYBRIDPERF_COUNTERS=software), not "
                                    "instructions and cycles")
    profile = counted_profile(1, 1.0, 0.0, 1, 1)
    profile["rank_times"]["counters"] = {"unavailable": "switched off (HYBRIDPERF_COUNTERS=off)"}
    assert pop.of_profile(profile).why["ipc"] == "hardware counters unavailable: switched off (HYBRIDPERF_COUNTERS=off)"


def test_the_terminal_table_shows_every_factor_a_sentence_names():
    """'its OpenMP load balance is 1.00 against 0.72' under a table without that column: the column is added."""
    from hybridperf.report.pop_table import HEADERS, terminal_rows, TERMINAL

    from hybridperf.analysis.pop_study import FACTORS

    table = [PointFactors(name, 2, {**dict.fromkeys(FACTORS), "openmp_load_balance": estimate(balance),
                                    "global_efficiency": estimate(0.7)})
             for name, balance in (("hybrid-1", 1.0), ("1x2@spread", 0.72))]
    verdict = SimpleNamespace(runner_up=SimpleNamespace(candidate="1x2@spread"), winner="hybrid-1", scale=2,
                              outcome="wins", race=SimpleNamespace(leader="hybrid-1"))
    assert "openmp_load_balance" not in TERMINAL
    sentence = explanation(table, verdict, "cores")
    assert sentence.startswith("hybrid-1 wins at 2 cores: its OpenMP load balance is 1.00 against 0.72")
    headers, rows = terminal_rows(SimpleNamespace(axis="cores", verdicts=[verdict]), table)
    column = headers.index(HEADERS["openmp_load_balance"])
    assert [row[column] for row in rows] == ["1.00", "0.72"]  # the numbers the sentence gives
