"""Each rank's time inside MPI calls in a replay, from SMPI's Paje trace (simulate.paje): read from a trace, the
waiting it attributes, and what a simulated profile and POP's factors make of it."""

import shutil

import pytest

from hybridperf import profile
from hybridperf.analysis import pop
from hybridperf.models.split import Split
from hybridperf.simulate import paje, point
from hybridperf.simulate.replay import replay, TRACE_FILE

from test_simulate import md_plan, MODEL, two_nodes

needs_smpi = pytest.mark.skipif(shutil.which("smpirun") is None, reason="SimGrid's smpirun missing")

# what SMPI 3.32 writes of a two-rank replay, its %EventDef header left out: state values 1-5 (a gather is named
# without SMPI's action_ prefix), containers 1-2
TWO_RANKS = """\
0 1 0 MPI
2 2 1 MPI_STATE
5 1 2 smpi_replay_run_init "0 1 0"
5 2 2 action_allreduce "1 0 1"
5 3 2 kernel "0.5 0.5 0.5"
5 4 2 smpi_replay_run_finalize "0 1 0"
5 5 2 gather "1 1 0"
6 0.000000 1 1 0 "rank-0"
6 0.000000 2 1 0 "rank-1"
12 0.000000 2 1 1
12 0.000000 2 2 1
13 0.000000 2 1
13 0.000000 2 2
12 0.100000 2 1 3
13 0.300000 2 1
12 0.250000 2 2 3
13 0.300000 2 2
12 0.500000 2 1 2
13 0.510000 2 1
12 0.200000 2 2 2
13 0.510000 2 2
12 0.520000 2 1 5
13 0.550000 2 1
12 0.600000 2 1 4
12 0.600000 2 2 4
13 0.600000 2 1
13 0.600000 2 2
"""


def test_a_ranks_loop_and_its_time_in_each_class_of_calls_are_read_from_the_trace():
    times = paje.mpi_times(TWO_RANKS.splitlines())
    assert times.elapsed == pytest.approx((0.6, 0.6))
    assert times.p2p == pytest.approx((0.2, 0.05))
    assert times.collective == pytest.approx((0.04, 0.31))  # rank 1 waited 0.3 s for rank 0 at the sum
    assert times.mpi == pytest.approx((0.24, 0.36))


def test_a_trace_without_a_ranks_finalize_is_refused():
    cut = [line for line in TWO_RANKS.splitlines() if not line.startswith(("12 0.600000 2 2", "13 0.600000 2 2"))]
    with pytest.raises(paje.TraceUnreadable, match="init and finalize"):
        paje.mpi_times(cut)


@pytest.mark.kernel
@needs_smpi
def test_a_rank_that_waits_for_a_late_peer_waits_inside_the_sum(tmp_path):
    """Rank 0 computes 2 ms, rank 1 0.5 ms, then both exchange a message and sum: rank 1 waits 1.5 ms, in its
    receive (the sendRecv comes first); the trace prices the replay as the untraced one does."""
    texts = ["0 init\n0 compute 2e6\n0 sendRecv 8 1 8 1 6 6\n0 allreduce 1 0 0\n0 finalize\n",
             "1 init\n1 compute 5e5\n1 sendRecv 8 0 8 0 6 6\n1 allreduce 1 0 0\n1 finalize\n"]
    spec = two_nodes("10us")
    plain = replay(texts, spec, 1, tmp_path / "plain")
    traced = replay(texts, spec, 1, tmp_path / "traced", traced=True)
    assert traced == plain
    with open(tmp_path / "traced" / TRACE_FILE) as trace:
        times = paje.mpi_times(trace)
    assert max(times.elapsed) == pytest.approx(plain, rel=1e-6)
    assert times.p2p[1] - times.p2p[0] == pytest.approx(1.5e-3, rel=1e-3)
    # the sum itself, no one late there: at most its two messages (reduce, then broadcast), 10 us each
    assert max(times.collective) <= 2 * 10e-6 * 1.01


@pytest.mark.kernel
@needs_smpi
def test_a_simulated_profile_carries_each_ranks_mpi_time_and_pops_mpi_factors(tmp_path, monkeypatch):
    plan = md_plan(("-s", "6", "--steps", "3"), 4)
    spec, split = two_nodes("2us"), Split(2, 2, 1)
    result = point.simulate(plan, MODEL, spec, split, tmp_path / "traced", per_rank=True)
    assert result.ranks is not None and len(result.ranks.elapsed) == 4
    assert max(result.ranks.elapsed) == pytest.approx(result.seconds, rel=1e-6)
    assert all(0 < m < e for m, e in zip(result.ranks.mpi, result.ranks.elapsed))
    made = point.profile(plan, result, MODEL, spec, split, {"size": 6}, ["smpirun"], "SimGrid 3.32")
    profile.validate(made)
    assert made["rank_times"]["mpi"] == list(result.ranks.mpi)
    assert made["comm"]["p2p"]["time"]["max"] == max(result.ranks.p2p)
    factors = pop.of_profile(made).values
    outside = [e - m for e, m in zip(result.ranks.elapsed, result.ranks.mpi)]
    assert factors["mpi_communication_efficiency"] == pytest.approx(max(outside) / max(result.ranks.elapsed))
    assert factors["mpi_load_balance_in"] is not None and factors["openmp_parallel_efficiency"] == 1.0
    # above TRACED_RANKS no trace: what each class adds, alike on every rank, and no POP inputs
    monkeypatch.setattr(point, "TRACED_RANKS", 2)
    untraced = point.simulate(plan, MODEL, spec, split, tmp_path / "untraced", per_rank=True)
    assert untraced.ranks is None and untraced.seconds == result.seconds
    made = point.profile(plan, untraced, MODEL, spec, split, {"size": 6}, ["smpirun"], "SimGrid 3.32")
    assert "rank_times" not in made and made["comm"]["p2p"]["imbalance"] == 0.0
