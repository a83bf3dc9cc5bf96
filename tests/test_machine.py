"""hwloc topology parsing: counts and cache sharing from hwloc's own XML (synthetic topologies)."""

import shutil
import subprocess

import pytest

from hybridperf.launch.machine import local_machine, parse_topology

LSTOPO = shutil.which("lstopo-no-graphics") or shutil.which("lstopo")


@pytest.mark.skipif(LSTOPO is None, reason="hwloc's lstopo not installed")
def test_synthetic_dual_socket_machine():
    synthetic = "package:2 l3:1 l2:4 l1:1 core:1 pu:2"
    xml = subprocess.run([LSTOPO, "--input", synthetic, "--of", "xml"], capture_output=True, text=True,
                         check=True).stdout
    m = parse_topology(xml, "testhost")
    assert (m.packages, m.cores, m.pus, m.threads_per_core, m.cores_per_package) == (2, 8, 16, 2, 4)
    levels = {c.level: c for c in m.caches}
    assert levels[3].count == 2 and levels[3].cores_sharing == 4
    assert levels[2].count == 8 and levels[2].cores_sharing == 1


def test_local_machine_has_cores():
    m = local_machine()
    assert m.cores >= 1 and m.pus >= m.cores
