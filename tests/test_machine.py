"""hwloc topology parsing: counts and cache sharing from hwloc's own XML (synthetic topologies); the MPI
launchers' versions as `hybridperf info` shows them."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from hybridperf.launch.kernels import launcher_for, launcher_version, version_line
from hybridperf.launch.machine import local_machine, parse_topology

LSTOPO = shutil.which("lstopo-no-graphics") or shutil.which("lstopo")


@pytest.mark.kernel
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


@pytest.mark.kernel
def test_local_machine_counts_what_linux_counts():
    """hwloc's count against Linux's own: every hardware thread the OS lists, and one core per distinct (package,
    core id) pair of /proc/cpuinfo."""
    m = local_machine()
    assert m.pus == os.cpu_count()
    cpuinfo = Path("/proc/cpuinfo").read_text().split("\n\n")
    pairs = {(re.search(r"physical id\s*: (\d+)", c).group(1), re.search(r"core id\s*: (\d+)", c).group(1))
             for c in cpuinfo if "core id" in c and "physical id" in c}
    if not pairs:
        pytest.skip("/proc/cpuinfo names no cores here")
    assert m.cores == len(pairs)


HYDRA = """HYDRA build details:
    Version:                                 4.0.2
    Release Date:                            Thu Apr  7 12:34:45 CDT 2022
    CC:                              gcc -g -O2
    Process Manager:                         pmi
"""


def test_mpich_launcher_shows_mpich_version():
    """Hydra's first line is a heading; the version is on its `Version:` line (MPICH's own release)."""
    assert version_line(HYDRA) == "MPICH 4.0.2 (Hydra)"
    assert version_line("mpirun (Open MPI) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/\n") == \
        "mpirun (Open MPI) 4.1.4"
    assert version_line("") == "unknown"


@pytest.mark.kernel
@pytest.mark.skipif(launcher_for("mpich") is None, reason="no MPICH launcher installed")
def test_info_names_the_installed_mpich_version():
    assert re.search(r": MPICH \d+\.\d+", launcher_version("mpich")), launcher_version("mpich")
