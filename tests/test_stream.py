"""hybridperf-stream: the result check, the byte accounting of its bandwidth figures, bad input."""

import os
import subprocess

import pytest

from conftest import kernel_binary
from hybridperf import profile

pytestmark = pytest.mark.kernel


@pytest.fixture(scope="module")
def stream_binary():
    return kernel_binary("stream")


def test_bandwidth_counts_the_named_bytes_and_the_check_passes(stream_binary, tmp_path):
    out = tmp_path / "s.json"
    proc = subprocess.run([str(stream_binary), "-s", "2", "-t", "3", "--profile", str(out)], capture_output=True,
                          text=True, env={**os.environ, "OMP_NUM_THREADS": "2"})
    assert proc.returncode == 0, proc.stderr
    p = profile.load(out)
    assert p["checks"]["result_error"]["pass"] and p["run"]["threads_per_rank"] == 2
    s = p["stream"]
    assert s["elements"] == 2_000_000
    for name, arrays in (("copy", 2), ("scale", 2), ("add", 3), ("triad", 3)):
        seconds = p["regions"][name]["time"]["max"]
        assert s["bandwidth_GBps"][name] == pytest.approx(arrays * 8 * 2e6 / seconds * 1e-9)
