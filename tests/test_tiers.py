"""The suite's tiers (docs/building.md#tests): an unmarked test is a unit test, and a unit test cannot start a
process — so `make check` runs in under a minute on a machine that has built nothing it would need."""

import subprocess

import pytest

from conftest import StartedAProcess


def test_a_unit_test_that_starts_a_process_fails_naming_its_tier(request):
    assert request.node.get_closest_marker("unit") is not None
    with pytest.raises(StartedAProcess, match="mark it @pytest.mark.kernel"):
        subprocess.run(["true"], check=True)


@pytest.mark.kernel
def test_a_kernel_test_may(request):
    assert request.node.get_closest_marker("unit") is None
    assert subprocess.run(["true"]).returncode == 0
