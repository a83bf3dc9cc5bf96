"""Halo exchange: exactly 6 messages per exchange, and message sizes of the thesis's Table 6.1 shape.

Expected sizes are counted here geometrically, from the lattice alone: the -x message of a rank
holds the lattice sites in the slab [lo_x, lo_x + h) of its own brick; the -y message the sites in
[lo_y, lo_y + h) over the brick widened by h on both x sides (the x halos forwarded); the -z
message the slab over the brick widened in x and y -- (sd_h sd_d) h, (sd_w + 2h) sd_h h and
(sd_w + 2h)(sd_d + 2h) h in the thesis's notation, counted in atoms. Periodic images count.
"""

import itertools
import math

import pytest

pytestmark = pytest.mark.kernel

BASIS = [(0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5)]
DENSITY, CUT = 0.8442, 2.8  # cutoff 2.5 + skin 0.3


def face(length: float, c: int, dims: int) -> float:
    """The kernel's hp_decomp_face with box_lo = 0, evaluated the same way."""
    if c <= 0:
        return 0.0
    if c >= dims:
        return 0.0 + length
    return 0.0 + length * c / dims


def expected_messages(size: int, grid: tuple[int, int, int], coords: tuple[int, int, int]) -> list[int]:
    a = math.cbrt(4.0 / DENSITY)
    length = size * a
    lo = [face(length, coords[d], grid[d]) for d in range(3)]
    hi = [face(length, coords[d] + 1, grid[d]) for d in range(3)]
    sites = [((i + b[0]) * a, (j + b[1]) * a, (k + b[2]) * a)
             for i, j, k in itertools.product(range(size), repeat=3) for b in BASIS]

    def count(ranges):
        total = 0
        for site in sites:
            images = [[x + s * length for s in (-1, 0, 1) if r0 <= x + s * length < r1]
                      for x, (r0, r1) in zip(site, ranges)]
            total += math.prod(len(v) for v in images)
        return total

    own = [(lo[d], hi[d]) for d in range(3)]
    wide = [(lo[d] - CUT, hi[d] + CUT) for d in range(3)]
    messages = []
    for dim in range(3):
        span = [wide[d] if d < dim else own[d] for d in range(3)]
        for side in (0, 1):
            ranges = list(span)
            ranges[dim] = (lo[dim], lo[dim] + CUT) if side == 0 else (hi[dim] - CUT, hi[dim])
            messages.append(count(ranges))
    return messages


def rank_coords(rank: int, grid) -> tuple[int, int, int]:
    """MPI_Cart_create's row-major order (no reordering)."""
    return (rank // (grid[1] * grid[2]), (rank // grid[2]) % grid[1], rank % grid[2])


@pytest.mark.parametrize("ranks,grid,size", [(1, (1, 1, 1), 6), (2, (2, 1, 1), 7), (4, (2, 2, 1), 8),
                                             (4, (1, 2, 2), 8), (3, (1, 3, 1), 9)])
def test_halo_message_sizes_have_the_table_6_1_shape(run_md, ranks, grid, size):
    run = run_md(ranks, 1, ["-s", size, "--steps", 0, "--grid", *grid])
    assert run.returncode == 0, run.stderr
    measured = run.profile["md"]["halo"]["atoms_per_message"]
    assert len(measured) == ranks
    for rank in range(ranks):
        assert measured[rank] == expected_messages(size, grid, rank_coords(rank, grid)), f"rank {rank}"


def test_six_halo_messages_per_rank_per_exchange(run_md):
    steps, every, ranks = 60, 20, 4
    run = run_md(ranks, 1, ["-s", 8, "--steps", steps, "--neigh-every", every])
    assert run.returncode == 0, run.stderr
    per_exchange = run.profile["md"]["halo"]["messages_per_exchange"]
    assert per_exchange["min"] == per_exchange["max"] == 6
    # one halo exchange per step, plus one migration (also 6 messages) per rebuild
    p2p = run.profile["comm"]["p2p"]
    assert p2p["messages"] == ranks * 6 * (steps + steps // every)
    assert p2p["messages_per_rank"]["min"] == p2p["messages_per_rank"]["max"]
    assert sum(b["count"] for b in p2p["size_histogram"]) == p2p["messages"]


def test_hybrid_sends_fewer_bytes_in_total_but_more_per_rank(run_md):
    """The thesis's communication profile (Table 4.5): fewer, larger messages with fewer ranks."""
    pure = run_md(4, 1, ["-s", 10, "--steps", 20, "--grid", 2, 2, 1])
    hybrid = run_md(1, 4, ["-s", 10, "--steps", 20])
    pure_p2p, hybrid_p2p = pure.profile["comm"]["p2p"], hybrid.profile["comm"]["p2p"]
    assert hybrid_p2p["bytes"] < pure_p2p["bytes"]
    assert hybrid_p2p["bytes_per_rank"]["avg"] > pure_p2p["bytes_per_rank"]["avg"]
