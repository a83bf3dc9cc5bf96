"""DL_POLY's step for the simulator (simulate/dlpoly.py, issue 26): its MPI operations counted exactly over an md
plan's decomposition, and replayed: with a free network it takes the compute model's time, and its sums cost what
the latency of 46 allreduces a step says."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from hybridperf import cluster
from hybridperf.launch import kernels
from hybridperf.models.split import Split, ThreadEfficiency
from hybridperf.simulate import point, traces, validate_dlpoly
from hybridperf.simulate.compute import compute_seconds, Threads
from hybridperf.simulate.dlpoly import dlpoly_plan, outside_share, step_ops
from hybridperf.simulate.md_costs import MdCosts
from hybridperf.simulate.plan import parse, traffic
from hybridperf.simulate.study import thesis_costs

POTENTIALS = Path("/usr/share/lammps/potentials")
FE = ("--potential", "eam/fs", "--potential-file", str(POTENTIALS / "Fe_mm.eam.fs"), "--elements", "Fe", "-s", "6")
MODEL = MdCosts(force=1e-6, integrate=1e-7, neighbor=2e-7, pack=1e-8, threads=Threads(ThreadEfficiency()),
                fork_join=lambda t: 1e-6, density=3e-7)
needs_smpi = pytest.mark.skipif(shutil.which("smpirun") is None, reason="SimGrid's smpirun is not installed")


@pytest.fixture(scope="module")
def fe_plans() -> tuple:
    md = parse(kernels.plan("md", (*FE, "--steps", "3"), 4))
    return md, dlpoly_plan(md)


@pytest.mark.xdist_group("test_simulate_dlpoly.fe_plans")  # fe_plans is made once, on one worker
@pytest.mark.kernel
def test_a_step_issues_46_allreduces_and_36_messages(fe_plans):
    md, dl = fe_plans
    for rank in dl.ranks_plan:
        ops = dl.halo_ops(rank, 1)
        assert sum(op.kind == "allreduce" for op in ops) == 46
        messages = [op for op in ops if op.kind == "sendrecv"]
        assert len(messages) == 36 and {op.calls for op in messages} == {3}  # MPI_Irecv, MPI_Send, MPI_Wait
        assert dl.sum_ops(rank, 1) == () and dl.halo_ops(rank, 2) == ops  # every step relocates and re-halos
    assert dl.rebuild_steps == frozenset({1, 2, 3}) and dl.grid == md.grid and dl.problem == md.problem


@pytest.mark.xdist_group("test_simulate_dlpoly.fe_plans")  # fe_plans is made once, on one worker
@pytest.mark.kernel
def test_halo_bytes_are_five_words_per_atom_of_the_md_halo(fe_plans):
    md, dl = fe_plans
    for before, after in zip(md.ranks_plan, dl.ranks_plan):
        halo = [op for op in before.ordinary if op.region == "halo_exchange"]
        atoms = sum(op.bytes // 24 for op in halo)
        sent = [op for op in after.ordinary if op.kind == "sendrecv"]
        by_region = {region: sum(op.bytes for op in sent if op.region == region)
                     for region in ("migration", "halo_exchange", "density_exchange")}
        # per direction: a 4-byte count; data: the deport's count word, the atoms' 5 words (positions, densities)
        assert by_region == {"migration": 6 * (4 + 8), "halo_exchange": 6 * 4 + 40 * atoms,
                             "density_exchange": 6 * 4 + 40 * atoms}
        assert [(op.to, op.source) for op in sent if op.region == "halo_exchange"][1::2] == \
               [(op.to, op.source) for op in halo]
        t = traffic(dl, after)
        assert (t.p2p_messages, t.p2p_calls, t.collectives) == (3 * 36, 3 * 108, 3 * 46)
        # 41 gchecks and the atom count (4 bytes), the virial of the densities, 15 energies, 2 stresses
        assert t.collective_bytes == 3 * (42 * 4 + 8 + 15 * 8 + 2 * 9 * 8)


@pytest.mark.parametrize("brick, cut", [((10.0, 10.0, 10.0), 2.0), ((18.76, 18.76, 18.76), 7.07),
                                        ((9.0, 14.0, 30.0), 8.5), ((5.0, 5.0, 5.0), 5.0)])
def test_the_share_of_neighbours_outside_a_brick_is_the_sampled_one(brick, cut):
    """outside_share's closed form against atoms and neighbours drawn at random: a point in the brick, a point in
    the ball of `cut` around it, how often the second lies outside (200,000 draws: a standard error below 0.0012)."""
    rng = np.random.default_rng(7)
    n = 200_000
    inside = rng.random((n, 3)) * brick
    direction = rng.normal(size=(n, 3))
    direction /= np.linalg.norm(direction, axis=1)[:, None]
    neighbour = inside + direction * cut * rng.random(n)[:, None] ** (1 / 3)
    sampled = np.mean(np.any((neighbour < 0) | (neighbour > brick), axis=1))
    assert outside_share(brick, cut) == pytest.approx(sampled, abs=0.005)


@pytest.mark.kernel
@pytest.mark.xdist_group("test_simulate_dlpoly.fe_plans")  # fe_plans is made once, on one worker
def test_pairs_across_a_brick_s_faces_are_priced_twice(fe_plans):
    """Every rank's force and density work is its atoms' times one plus the share of their neighbours outside its
    brick (DL_POLY computes those pairs on both sides); a brick thinner than the cut-off is refused."""
    md, dl = fe_plans
    brick = tuple(side / n for side, n in zip(md.problem["box"], md.grid))
    share = outside_share(brick, md.problem["cutoff"])
    assert 0.3 < share < 1 and md.problem["cutoff"] == pytest.approx(md.problem["ghost_cut"] - 1.0)  # metal's skin
    split = Split(1, 4, 1)
    for rank in dl.ranks_plan:
        assert rank.work["pair_atoms"] == round(rank.work["atoms"] * (1 + share))
        regions = MODEL.regions(dl, rank, split)
        assert regions["force"] == pytest.approx(rank.work["pair_atoms"] * MODEL.force * dl.steps)
        assert regions["density"] == pytest.approx(rank.work["pair_atoms"] * MODEL.density * dl.steps)
        assert regions["integrate"] == pytest.approx(rank.work["atoms"] * MODEL.integrate * dl.steps)
    with pytest.raises(ValueError, match="thinner than the cut-off"):
        outside_share((4.0, 20.0, 20.0), 5.0)


@pytest.mark.kernel
def test_without_a_metal_the_density_exchange_and_its_sums_go():
    md = parse(kernels.plan("md", ("-s", "6", "--steps", "1"), 2))
    ops = step_ops(tuple(op for op in md.ranks_plan[0].ordinary if op.region == "halo_exchange"), metal=False)
    assert sum(op.kind == "allreduce" for op in ops) == 46 - 17 and sum(op.kind == "sendrecv" for op in ops) == 24
    with pytest.raises(ValueError, match="6 halo messages"):
        step_ops(ops[:3], metal=True)
    with pytest.raises(ValueError, match="over an md plan"):
        dlpoly_plan(replace(md, kernel="spmv"))


@pytest.mark.xdist_group("test_simulate_dlpoly.fe_plans")  # fe_plans is made once, on one worker
@pytest.mark.kernel
def test_the_trace_sums_a_logical_as_one_double(fe_plans):
    _, dl = fe_plans
    lines = traces.rank_trace(dl, dl.ranks_plan[0], MODEL, Split(1, 4, 1)).splitlines()
    sums = [line.split()[2] for line in lines if line.split()[1] == "allreduce"]
    assert len(sums) == 3 * 46 and sums.count("1") == 3 * 43 and sums.count("15") == 3 and sums.count("9") == 6


@pytest.mark.xdist_group("test_simulate_dlpoly.fe_plans")  # fe_plans is made once, on one worker
@pytest.mark.kernel
@needs_smpi
def test_replayed_its_sums_cost_their_latency(fe_plans, tmp_path):
    """4 ranks on 4 nodes: free, the replay is the compute model's time; with a latency, the 46 sums of each of the
    3 steps cost at least 2 latencies each (a recursive-doubling allreduce of 4 ranks: 2 rounds)."""
    _, dl = fe_plans
    spec = cluster.load("merlin")
    split = Split(4, 1, 1)
    result = point.simulate(dl, MODEL, spec, split, tmp_path)
    assert result.compute == pytest.approx(max(compute_seconds(dl, r, MODEL, split) for r in dl.ranks_plan))
    assert result.collective >= 3 * 46 * 2 * spec.latency.value * 0.99
    assert result.seconds > result.compute + result.collective * 0.99


@pytest.mark.kernel
def test_validates_test_20_is_256000_cu3au_atoms_priced_at_the_core_ratio():
    """simulate validate's DL_POLY workload: test 20's lattice from the Gupta table it writes itself, DL_POLY's step
    on every rank, and this machine's measured costs times the outcome's core ratio (the rest the thesis's)."""
    workload = validate_dlpoly.Test20(2.5)
    plan = workload.plan(8)
    assert plan.problem["atoms"] == 256_000 and plan.steps == validate_dlpoly.WINDOW and len(plan.ranks_plan) == 8
    assert all(sum(op.kind == "allreduce" for op in plan.halo_ops(r, 1)) == 46 for r in plan.ranks_plan)
    merlin = cluster.load("merlin")
    costs, here = workload.costs(merlin), validate_dlpoly.measured()["seconds_per_atom_step"]
    assert (costs.force, costs.density, costs.neighbor) == pytest.approx(
        (2.5 * here["force"], 2.5 * here["density"], 2.5 * here["neighbor"]), rel=1e-12)
    assert costs.threads == thesis_costs(merlin).threads and costs.pack == thesis_costs(merlin).pack
