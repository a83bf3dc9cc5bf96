"""The same physics whatever the split: energies agree across ranks, threads and grid shapes."""

import pytest

from conftest import relative

pytestmark = pytest.mark.kernel

ARGS = ["-s", "8", "--steps", "200", "--thermo", "100"]  # 2048 atoms; 4 ranks fit along one axis
SPLITS = [
    (2, 1, None),
    (4, 1, None),  # oversubscribed on 2 cores
    (1, 2, None),
    (2, 2, None),
    (2, 1, "1 2 1"),
    (2, 1, "1 1 2"),
    (4, 1, "4 1 1"),
    (4, 1, "1 2 2"),
    (3, 1, "3 1 1"),
]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    from conftest import run_md_in

    run = run_md_in(tmp_path_factory.mktemp("ref"), 1, 1, ARGS)
    assert run.returncode == 0, run.stderr
    return run


@pytest.mark.parametrize("ranks,threads,grid", SPLITS, ids=lambda v: str(v).replace(" ", ""))
def test_energies_agree_with_one_rank(run_md, reference, ranks, threads, grid):
    args = ARGS + (["--grid", *grid.split()] if grid else [])
    run = run_md(ranks, threads, args)
    assert run.returncode == 0, run.stderr
    if grid:
        assert run.profile["md"]["grid"] == [int(g) for g in grid.split()]
    assert run.profile["run"]["ranks"] == ranks
    assert run.profile["run"]["threads_per_rank"] == threads
    for step in (0, -1):
        ours, ref = run.thermo(step), reference.thermo(step)
        assert ours["step"] == ref["step"]
        for key in ("etotal", "pe"):
            assert relative(ours[key], ref[key]) < 1e-9, (key, step, ours[key], ref[key])


def test_initial_state_is_bit_identical_across_decompositions(run_md, tmp_path):
    """Velocities come from a counter-based generator and exact integer sums: the written files match."""
    files = []
    for ranks, threads, grid in [(1, 1, None), (3, 1, "3 1 1"), (2, 2, "1 1 2")]:
        out = tmp_path / f"init-{ranks}-{threads}.data"
        args = ["-s", "8", "--steps", "0", "--write-data", str(out)] + (["--grid", *grid.split()] if grid else [])
        run = run_md(ranks, threads, args)
        assert run.returncode == 0, run.stderr
        files.append(out.read_bytes())
    assert files[0] == files[1] == files[2]
