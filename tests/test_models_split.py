"""The split model and the recommendation on synthetic clusters whose answer is known."""

from dataclasses import replace

import pytest

from hybridperf.models.presets import PRESETS
from hybridperf.models.split import Cluster, crossovers, md_problem, predict, recommend, Split, spmv_problem


def cluster(**kw):
    base = dict(name="synthetic", nodes=64, cores_per_node=8, sockets=2, alpha_inter=2e-6, beta_inter=1e-9,
                alpha_intra=0.5e-6, beta_intra=2.5e-10, uncertainty=0.05)
    return Cluster(**{**base, **kw})


MD = md_problem(atoms=2_000_000, steps=100, work_seconds=300.0)


def test_a_very_slow_network_favours_fewer_ranks():
    slow = cluster(alpha_inter=1e-2, beta_inter=1e-6)
    verdict = recommend(slow, MD, nodes=16)
    assert (verdict.winner.ranks_per_node, verdict.winner.threads) == (1, 8)
    assert verdict.confidence > 0.9


def test_free_communication_favours_pure_mpi_when_threads_cost_overhead():
    free = cluster(alpha_inter=0.0, beta_inter=0.0, alpha_intra=0.0, beta_intra=0.0,
                   par_overhead=lambda threads: 50e-6 * threads)
    verdict = recommend(free, MD, nodes=16)
    assert (verdict.winner.ranks_per_node, verdict.winner.threads) == (8, 1)
    assert verdict.margin > 0


def test_the_winner_changes_from_pure_mpi_to_hybrid_as_a_fixed_problem_spreads():
    """The thesis's picture: threads lose a little on the work (2% per extra thread), messages cost a
    per-node-link overhead; as a fixed problem spreads over more nodes the work per core shrinks and the
    winner moves from pure MPI to more threads per rank."""
    md = replace(MD, thread_efficiency=lambda threads: 1 / (1 + 0.02 * (threads - 1)))
    c = cluster(alpha_inter=20e-6, par_overhead=lambda threads: 2e-6)
    changes = crossovers(c, md, [1, 2, 4, 8, 16, 32, 64, 128, 256])
    assert changes, "expected a crossover"
    assert changes[0][1].threads == 1  # pure MPI wins first
    threads = [after.threads for _, _, after in changes]
    assert threads == sorted(threads) and threads[-1] == 8


def test_prediction_terms():
    c = cluster()
    one = Split(1, 1, 1)
    assert predict(c, MD, one) == pytest.approx(300.0)  # one core: the work alone
    hybrid, pure = Split(1, 1, 8), Split(1, 8, 1)
    assert predict(c, MD, hybrid) > 300.0 / 8  # plus the fork/join of the threaded loops
    assert predict(c, MD, pure) > 300.0 / 8  # plus on-node messages


def test_problem_geometry():
    assert MD.halo_bytes(8) < MD.halo_bytes(1) / 8 * 8  # less per process as processes multiply...
    assert MD.halo_bytes(8) * 8 > MD.halo_bytes(1)  # ...but more in total
    sp = spmv_problem(n=20, cores=8, calls=100, work_seconds=1.0)
    assert sp.halo_bytes(1) == 0 and sp.messages(1) == 0
    assert sp.halo_bytes(8) == pytest.approx(3 * 8 * 400 * 100)  # 2x2x2: one face per axis


def test_future_hardware_what_if():
    merlin = PRESETS["merlin"]
    future = merlin.future()
    assert (future.cores_per_node, future.alpha_inter, future.beta_inter) == (16, merlin.alpha_inter / 2,
                                                                            merlin.beta_inter / 2)
    assert MD.doubled().work_seconds == 2 * MD.work_seconds
