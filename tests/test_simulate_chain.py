"""IMB's Sendrecv chain in the simulator (simulate/chain.py, `hybridperf simulate chain`): its traces make the
kernel's calls and messages exactly, and a replay on Merlin's description gives the closed form of its network
(latency plus bytes over bandwidth, a node's ranks on its loopback), so the bandwidth rises with the size."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from conftest import run_kernel_in
from hybridperf import cluster
from hybridperf.simulate import chain, traces
from hybridperf.simulate.plan import count

needs_smpi = pytest.mark.skipif(shutil.which("smpirun") is None,
                                reason="SimGrid's smpirun missing: apt-get install libsimgrid-dev")
CALLS = {"sendrecv": 1, "send_irecv_wait": 3}  # MPI_Sendrecv | MPI_Irecv, MPI_Send, MPI_Wait
SIZES = (0, 1, 1024, 65536, 1 << 20, 4 << 20)


@pytest.mark.parametrize("ranks", [8, 64])
@pytest.mark.parametrize("loop", chain.LOOPS)
def test_chain_ops_send_right_receive_left_and_count_as_the_kernel_does(ranks, loop):
    ops = [chain.rank_ops(r, ranks, 1000, loop, iterations=7) for r in range(ranks)]
    traffic = count([op for o in ops for op in o])
    assert (traffic.p2p_calls, traffic.p2p_messages, traffic.p2p_bytes) == (
        CALLS[loop] * ranks * 7, ranks * 7, ranks * 7 * 1000)
    assert traffic.collectives == 0
    for r, mine in enumerate(ops):
        assert {op.to for op in mine if op.kind in ("sendrecv", "send")} == {(r + 1) % ranks}
        assert {op.source for op in mine if op.kind in ("sendrecv", "irecv")} == {(r - 1) % ranks}
    lines = traces.ops_trace(0, ops[0][:CALLS[loop]]).splitlines()
    left = ranks - 1
    assert lines == (["0 init", f"0 sendRecv 1000 1 1000 {left} 6 6", "0 finalize"] if loop == "sendrecv" else
                     ["0 init", f"0 irecv {left} 3 1000 6", "0 send 1 3 1000 6", f"0 wait {left} 0 3", "0 finalize"])


@pytest.mark.kernel
def test_simulated_messages_per_iteration_are_the_kernels(tmp_path):
    """The kernel's chain rows at 4 ranks against the simulator's operations for 4 ranks, per iteration."""
    run = run_kernel_in(tmp_path, "mixbench", 4, 1, ["--bench", "chain", "--sizes", "1000", "--iters", "3",
                                                      "--warmup", "1"])
    assert run.returncode == 0, run.stdout + run.stderr
    for loop in chain.LOOPS:
        rows = run.profile["mixbench"]["tables"][f"chain_{loop}"]
        row = next(r for r in rows if (r["ranks"], r["bytes"]) == (4, 1000))
        simulated = count([op for r in range(4) for op in chain.rank_ops(r, 4, 1000, loop, iterations=1)])
        assert (row["messages"] // row["iterations"], row["bytes_sent"] // row["iterations"]) == (
            simulated.p2p_messages, simulated.p2p_bytes)


def test_sizes_and_rank_counts_are_checked():
    merlin = cluster.load("merlin")
    assert chain.parse_sizes("64K,0,1") == (0, 1, 65536)
    assert chain.rank_counts(merlin, None) == (8, 16, 32, 64, 128, 256, 512)
    for text, message in (("1,x", "'x' is not a size in bytes"), ("1K,1024", "1024 bytes is listed twice"),
                          ("2G", "larger than the largest message size")):
        with pytest.raises(chain.ChainError, match=message):
            chain.parse_sizes(text)
    with pytest.raises(chain.ChainError, match="at least 2 ranks, got 1"):
        chain.rank_counts(merlin, (1, 8))
    with pytest.raises(chain.ChainError, match="4096 ranks, one per core, need 512 nodes of 8 cores; Merlin has 256"):
        chain.rank_counts(merlin, (4096,))


@pytest.mark.kernel
@needs_smpi
def test_simulated_chain_at_8_and_64_ranks_on_merlin(tmp_path):
    merlin = cluster.load("merlin")
    points = chain.simulate(merlin, (8, 64), SIZES, tmp_path)
    assert [(q.ranks, q.loop, q.bytes) for q in points] == [
        (p, loop, m) for p in (8, 64) for loop in chain.LOOPS for m in SIZES]
    link = {8: (merlin.intra_latency.value, merlin.intra_bandwidth.value),  # one node: its loopback
            64: (merlin.latency.value, merlin.bandwidth.value)}  # 8 nodes: each node's link, once each way
    for q in points:
        sent = q.ranks * q.iterations
        assert (q.traffic.p2p_messages, q.traffic.p2p_bytes) == (sent, sent * q.bytes)
        latency, bandwidth = link[q.ranks]
        assert q.seconds == pytest.approx(latency + q.bytes / bandwidth, rel=0.02)
    for p in (8, 64):
        for loop in chain.LOOPS:
            curve = [q.bandwidth_MBps for q in points if (q.ranks, q.loop) == (p, loop)]
            assert all(a < b for a, b in zip(curve, curve[1:]))  # Hockney: 2m / (L + m/B) rises with m
        same = [(a.seconds, b.seconds) for a, b in zip(points, points[len(SIZES):]) if a.ranks == b.ranks == p
                and (a.loop, b.loop) == chain.LOOPS]
        assert len(same) == len(SIZES)
        assert all(a == pytest.approx(b, rel=1e-3) for a, b in same)  # no protocol in the model: the loops agree
    overhead = chain.overheads(points)
    assert overhead[64]["sendrecv"] / overhead[8]["sendrecv"] == pytest.approx(
        merlin.latency.value / merlin.intra_latency.value, rel=0.02)


@pytest.mark.kernel
@needs_smpi
def test_cli_chain_prints_json_and_refuses_bad_input():
    command = [sys.executable, "-m", "hybridperf", "simulate", "chain", "--cluster", "merlin"]
    out = subprocess.run([*command, "--cores", "8,16", "--sizes", "0,4M", "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)
    assert set(found["overhead_s"]) == {"8", "16"} and len(found["points"]) == 2 * 2 * 2
    assert {(q["ranks"], q["messages"]) for q in found["points"]} == {(8, 80), (16, 160)}
    for args, message in ((["--cores", "1"], "a chain needs at least 2 ranks, got 1"),
                          (["--sizes", "1Q"], "'1Q' is not a size in bytes"),
                          (["--sensitivity"], "--sensitivity moves a simulated study's inputs")):
        bad = subprocess.run([*command, *args], capture_output=True, text=True)
        assert bad.returncode != 0 and message in bad.stderr and bad.stdout == "", bad.stderr
    other = subprocess.run([sys.executable, "-m", "hybridperf", "simulate", "validate", "--sizes", "8"],
                           capture_output=True, text=True)
    assert other.returncode != 0 and "--sizes is the chain's" in other.stderr
