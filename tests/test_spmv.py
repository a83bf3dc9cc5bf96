"""hybridperf-spmv: the distributed product against a serial reference in every mode and grid, the
analytic row sums, exact halo message counts and sizes, and bad input."""

import pytest

from conftest import run_kernel_in

pytestmark = pytest.mark.kernel

FACE, EDGE, CORNER = "face", "edge", "corner"


@pytest.fixture
def spmv(tmp_path):
    return lambda ranks=1, threads=1, args=(): run_kernel_in(tmp_path, "spmv", ranks, threads, args)


@pytest.mark.parametrize(
    "ranks,threads,args",
    [
        (1, 1, ["--mode", "mpi"]),
        (2, 1, ["--mode", "mpi"]),
        (4, 1, ["--mode", "mpi"]),
        (8, 1, ["--mode", "mpi", "-n", "4"]),
        (1, 2, ["--mode", "hybrid"]),
        (1, 3, ["--mode", "hybrid"]),
        (2, 2, ["--mode", "hybrid"]),
        (1, 1, ["--mode", "serial", "--node-threads", "4"]),
        (3, 1, ["--mode", "mpi", "--coefficients", "constant"]),
        (4, 2, ["--mode", "hybrid", "-n", "3", "--coefficients", "constant"]),
    ],
    ids=lambda v: str(v).replace(" ", ""),
)
def test_distributed_product_equals_the_serial_reference(spmv, ranks, threads, args):
    run = spmv(ranks, threads, ["-n", 6, "--calls", 3, *args])
    assert run.returncode == 0, run.stderr
    checks = run.profile["checks"]
    assert checks["product_vs_reference"]["pass"] and checks["product_vs_reference"]["value"] < 1e-13
    if "constant" in args:
        assert checks["analytic_row_sums"]["pass"]


def test_problem_size_is_the_same_in_every_mode_on_a_node(spmv):
    """The paper's Table 1: rows per node = nt n^3, whether a rank per core or one per node."""
    shapes = {}
    for ranks, threads, mode in ((2, 1, "mpi"), (1, 2, "hybrid"), (1, 1, "serial")):
        run = spmv(ranks, threads, ["-n", 5, "--mode", mode, "--calls", 1, "--node-threads", 2])
        assert run.returncode == 0, run.stdout + run.stderr
        s = run.profile["spmv"]
        shapes[mode] = (s["global"], s["rows_per_node"])
    assert shapes["mpi"] == shapes["hybrid"] == shapes["serial"] == ([10, 5, 5], 250)
    four = spmv(1, 4, ["-n", 5, "--mode", "hybrid", "--calls", 1]).profile["spmv"]
    assert four["block"] == [10, 10, 5]  # 2n x 2n x n for 4 threads


def test_halo_messages_are_exact(spmv):
    """27 ranks as 3 x 3 x 3: the centre rank talks to all 26 neighbours; sizes are faces n^2,
    edges n and corners 1; every message is counted once per call."""
    n, calls = 2, 2
    run = spmv(27, 1, ["-n", n, "--calls", calls])
    assert run.returncode == 0, run.stderr
    halo = run.profile["spmv"]["halo_points"]
    centre = halo[13]  # coordinates (1, 1, 1)
    assert sum(p > 0 for p in centre) == 26
    kinds = sorted(centre)
    assert kinds == sorted([n * n] * 6 + [n] * 12 + [1] * 8)
    corner_rank = halo[0]
    assert sum(p > 0 for p in corner_rank) == 7
    p2p = run.profile["comm"]["p2p"]
    assert p2p["messages"] == calls * sum(p > 0 for rank in halo for p in rank)
    assert p2p["bytes"] == calls * 8 * sum(sum(rank) for rank in halo)


def test_bandwidth_counts_the_bytes_of_each_call(spmv):
    """Both bandwidths are bytes per product x calls over the product's time: the mean one from the
    region's total, the best one from the fastest call, which can only be faster."""
    calls = 5
    run = spmv(2, 1, ["-n", 8, "--calls", calls, "--mode", "mpi"])
    assert run.returncode == 0, run.stderr
    s, region = run.profile["spmv"], run.profile["regions"]["local_product"]["time"]
    # rank 0's CSR arrays, read once per product: 8-byte values and 4-byte column indices per nonzero, 8-byte
    # row pointers (rows + 1), y (rows), and x with its ghosts; the two bricks are mirror images, so rank 0
    # holds half the nonzeros and rows, and receives the ghosts its halo table lists
    nnz, rows, ghosts = s["nonzeros"] // 2, s["rows"] // 2, sum(s["halo_points"][0])
    assert (nnz, rows, ghosts) == ((3 * 8 - 1) * (3 * 8 - 2) ** 2, 8**3, 8**2)  # one face shared along x
    assert s["bytes_per_product"] == 12 * nnz + 8 * (rows + 1) + 8 * rows + 8 * (rows + ghosts)
    slowest_rank_rate = 1e-9 * s["bytes_per_product"] * calls / region["max"]
    assert 2 * slowest_rank_rate <= s["local_product_GBps"] * (1 + 1e-9)
    assert s["local_product_GBps_best"] >= s["local_product_GBps"] * (1 - 1e-9)


@pytest.mark.parametrize(
    "ranks,threads,args,message",
    [
        (1, 1, ["-n", "0"], "--n must be >= 1, got 0"),
        (2, 1, ["--grid", "3", "1", "1"], "--grid 3 1 1 needs 3 nodes (ranks / ranks per node), got 1"),
        (1, 1, ["--mode", "hybrid"], "--mode hybrid needs more than one thread per rank"),
        (1, 1, ["--mode", "quantum"], "--mode must be one of mpi|hybrid|serial"),
    ],
)
def test_bad_input(spmv, ranks, threads, args, message):
    run = spmv(ranks, threads, args)
    assert run.returncode == 2 and run.profile is None
    errors = [line for line in run.stderr.splitlines() if line.startswith("hybridperf-spmv: error:")]
    assert len(errors) == 1 and message in errors[0], run.stderr
