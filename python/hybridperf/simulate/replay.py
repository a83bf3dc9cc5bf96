"""Replaying traces with SimGrid's SMPI (`smpirun -replay`) on a cluster description's platform. The I/O edge of
the simulator: writes the traces, platform and host file into a directory, runs SimGrid, reads the simulated
time.

Ranks are placed as a launcher fills nodes: ranks_per_node consecutive ranks per host. SMPI's calibrated
piecewise factors (fitted to one real cluster) are switched off, so that a message costs what the description
says: its latency end to end plus its bytes over the bandwidth of each link it crosses, links shared by the
messages that cross them at once (the node's link by all its ranks). Where the description's noise is drawn
(cluster.with_noise), each node used gets its own speed profile (simulate.noise)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path

from hybridperf import cluster
from hybridperf.simulate import noise

EXACT = ("--cfg=smpi/bw-factor:0:1", "--cfg=smpi/lat-factor:0:1", "--cfg=network/crosstraffic:0")
# The replayer keeps no globals of its own per rank, so each rank need not load its own copy of it (SMPI's
# privatization): the same simulated times, 150 MB instead of 245 at 4,096 ranks, and at 16,384 ranks the
# copies' mappings pass Linux's default 65,530 per process and smpirun fails ("cannot apply additional memory
# protection after relocation").
SHARED = ("--cfg=smpi/privatization:0",)
# SMPI sends a message below 64 KiB eagerly, as a detached communication, and SimGrid 3.32 keeps every detached
# communication in one list that each completion searches (CommImpl::finish's activities_.remove): a replay's time
# grows as the square of the ranks in flight (4,096 ranks' halo 24 s, 16,384's past 600 s). Above EAGER_RANKS every
# send waits for its transfer instead (rendezvous): at 2,048 and 4,096 ranks that moved the simulated time of the
# thesis window by +0.75% and +1.1%, and it brings 16,384 ranks' whole replay to about 190 s. At and below it,
# replays keep SMPI's eager sends, as every figure of the docs was simulated.
EAGER_RANKS = 4096
RENDEZVOUS = ("--cfg=smpi/send-is-detached-thresh:0",)
# SMPI's own trace of the run (Paje), from which simulate.paje reads each rank's time inside MPI calls
TRACE_FILE = "trace.paje"
# timestamps to the nanosecond (SimGrid writes 6 decimals by default: a microsecond, coarser than a message)
TRACED = ("--cfg=tracing:yes", "--cfg=tracing/smpi:yes", f"--cfg=tracing/filename:{TRACE_FILE}",
          "--cfg=tracing/precision:9")
INSTALL = "SimGrid's smpirun is not installed: apt-get install libsimgrid-dev (or run scripts/bootstrap.sh)"


class SimGridMissing(RuntimeError):
    """smpirun is not on PATH."""


class ReplayFailed(RuntimeError):
    """SimGrid refused or crashed; the message ends with what it printed."""


def smpirun() -> str:
    path = shutil.which("smpirun")
    if not path:
        raise SimGridMissing(INSTALL)
    return path


def simgrid_version() -> str:
    """'SimGrid 3.32', from smpirun's own banner."""
    out = subprocess.run([smpirun(), "-version"], capture_output=True, text=True, check=False)
    match = re.search(r"SimGrid version ([0-9.]+)", out.stdout + out.stderr)
    return f"SimGrid {match[1]}" if match else "SimGrid (version unknown)"


def replay(traces: Sequence[str], spec: cluster.ClusterSpec, ranks_per_node: int, workdir: Path,
           timeout: float = 600.0, traced: bool = False) -> float:
    """Simulated seconds of the run whose rank r's trace is traces[r]. The traces are iterated once, each written
    to its file before the next is asked for (traces.RankTraces makes them on demand). `traced`: SMPI also writes
    its Paje trace of the run, workdir / TRACE_FILE (the same simulated time)."""
    ranks = len(traces)
    hosts = cluster.host_names(spec)
    if ranks > ranks_per_node * len(hosts):
        raise ReplayFailed(f"{ranks} ranks at {ranks_per_node} per node need {-(-ranks // ranks_per_node)} nodes; "
                           f"{spec.name} has {len(hosts)}")
    workdir.mkdir(parents=True, exist_ok=True)
    names = []
    for r, text in enumerate(traces):
        path = workdir / f"rank-{r}.txt"
        path.write_text(text)
        names.append(str(path))
    (workdir / "traces.txt").write_text("\n".join(names) + "\n")
    nodes = -(-ranks // ranks_per_node)
    (workdir / "platform.xml").write_text(cluster.platform_xml(spec, noise.elements(spec, nodes)))
    (workdir / "hosts.txt").write_text("".join(f"{hosts[r // ranks_per_node]}\n" for r in range(ranks)))
    sends = RENDEZVOUS if ranks > EAGER_RANKS else ()
    command = [smpirun(), "-np", str(ranks), "-platform", "platform.xml", "-hostfile", "hosts.txt",
               "-replay", "traces.txt", *EXACT, *SHARED, *sends, *(TRACED if traced else ()),
               "--cfg=smpi/display-timing:yes", "--log=root.thres:warning", "--log=smpi_utils.thres:info"]
    # smpirun is a script that starts the simulator as its child: past the timeout the whole group is killed, or
    # the simulator would run on, orphaned
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=workdir,
                          start_new_session=True) as process:
        try:
            printed, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise ReplayFailed(f"smpirun -replay ran past {timeout:.0f} s") from None
    match = re.search(r"Simulated time: ([0-9.eE+-]+) seconds", printed)
    if process.returncode != 0 or not match:
        raise ReplayFailed(f"smpirun -replay exited {process.returncode}: {printed.strip()[-1500:]}")
    return float(match[1])
