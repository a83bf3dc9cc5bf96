"""Networks as they behave (issue 26 item 4): what a description's figures make SimGrid do, checked against the
published micro-benchmarks they come from."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from hybridperf import cluster
from hybridperf.simulate import traces
from hybridperf.simulate.plan import Op
from hybridperf.simulate.replay import replay, smpirun, SimGridMissing

ITERATIONS = 20
TABLE6 = {1: 43.5e-6, 2: 71.5e-6, 3: 98.1e-6, 4: 125.2e-6}  # Chow & Hysom Table 6: off-node overhead, k pairs
TABLE6_BANDWIDTH = {1: 42.9e6, 2: 38.2e6, 3: 27.6e6, 4: 20.8e6}  # the same table: bandwidth per processor, k pairs
LARGE = 1 << 20  # bytes: a message whose time is its bandwidth's


def _smpi() -> bool:
    try:
        smpirun()
        return True
    except SimGridMissing:
        return False


needs_smpi = pytest.mark.skipif(not _smpi(), reason="SimGrid's smpirun is not installed (scripts/bootstrap.sh)")


def pairs_trace(spec: cluster.ClusterSpec, pairs: int, size: int = 1) -> list[str]:
    """Table 6's micro-test on two 4-way nodes: `pairs` ranks of node 0 each exchange a message of `size` bytes
    with one of node 1 (receive posted, send, wait for both), ITERATIONS times; the node's other ranks idle."""
    per_node = spec.cores_per_node
    texts = []
    for r in range(2 * per_node):
        slot = r % per_node
        peer = r + per_node if r < per_node else r - per_node
        ops = [] if slot >= pairs else [Op("irecv", "x", 0, source=peer, recv_bytes=size),
                                        Op("isend", "x", size, to=peer), Op("waitall", "x", 0)] * ITERATIONS
        texts.append(traces.ops_trace(r, ops, per_node, spec.interface()))
    return texts


@pytest.mark.kernel
@needs_smpi
def test_the_ibm_sp_interface_takes_its_messages_in_turn_as_table_6_measured(tmp_path: Path):
    """One pair's overhead is the description's latency; each added pair adds the interface's time per message
    (both taken from Table 6's 1 and 4 pairs): 2 and 3 pairs, not used, must follow within 3%."""
    spec = cluster.load("ibm-sp")
    assert spec.per_message is not None and spec.interface().padding == round(27.2e-6 * spec.link_bandwidth())
    for pairs, published in TABLE6.items():
        simulated = replay(pairs_trace(spec, pairs), spec, spec.cores_per_node, tmp_path / str(pairs)) / ITERATIONS
        assert simulated == pytest.approx(published, rel=0.03), pairs


@pytest.mark.kernel
@needs_smpi
def test_one_ibm_sp_process_cannot_drive_its_interface_as_table_6_measured(tmp_path: Path):
    """Table 6's bandwidth per processor: one pair's is the description's bandwidth, four pairs' its aggregate
    over four (both taken from the table); 2 and 3 pairs, not used, follow within 20% (the model's 31.7 and 25.1
    per processor against 38.2 and 27.6: the link and the process's time per byte do not overlap within one
    message, so two pairs get less than the table's)."""
    spec = cluster.load("ibm-sp")
    assert spec.aggregate is not None and spec.link_bandwidth() == pytest.approx(121.1e6, rel=0.01)
    for pairs, published in TABLE6_BANDWIDTH.items():
        seconds = replay(pairs_trace(spec, pairs, LARGE), spec, spec.cores_per_node, tmp_path / str(pairs))
        rate = LARGE * ITERATIONS / seconds
        assert rate == pytest.approx(published, rel=0.03 if pairs in (1, 4) else 0.20), pairs


@pytest.mark.kernel
@needs_smpi
def test_without_an_aggregate_one_process_gets_the_whole_link(tmp_path: Path):
    """The same micro-test without the aggregate: one pair and four pairs share the link alike, so four pairs get
    a quarter each and one pair its whole (42.9), the flat node the issue names; the figure makes the difference."""
    spec = cluster.load("ibm-sp")
    flat = cluster.ClusterSpec(**{**spec.__dict__, "aggregate": None})
    one, four = (LARGE * ITERATIONS / replay(pairs_trace(flat, k, LARGE), flat, 4, tmp_path / str(k)) for k in (1, 4))
    assert one == pytest.approx(42.9e6, rel=0.03) and four == pytest.approx(one / 4, rel=0.03)


def test_an_aggregate_is_a_number_between_one_and_the_cores():
    text = (cluster.resources.path("clusters") / "ibm-sp.yaml").read_text()
    for wrong in ("0.5", "4", "1.9MBps"):
        with pytest.raises(cluster.ClusterError, match="network.aggregate"):
            cluster.parse(text.replace("value: 1.939", f"value: {wrong}"), "x")
    spec = cluster.parse(text, "ibm-sp")
    interface = spec.interface()
    # one process alone: its time per byte and the link's make the description's bandwidth
    assert 1 / (interface.seconds_per_byte + 1 / spec.link_bandwidth()) == pytest.approx(42.9e6)
    assert 'bw="121' in cluster.platform_xml(spec)
    lines = traces.ops_trace(1, [Op("isend", "x", 1000, to=5), Op("isend", "x", 1000, to=2)], 4,
                             interface).splitlines()
    assert lines[1:4] == [f"1 sleep {1000 * interface.seconds_per_byte:.9g}", f"1 isend 5 0 {1000 + interface.padding} 6",
                          "1 isend 2 0 1000 6"]  # within the node: neither


@pytest.mark.kernel
@needs_smpi
def test_without_a_time_per_message_pairs_overlap(tmp_path: Path):
    """The same micro-test on a description without per_message: four pairs cost about what one does (the flat
    network the issue names: only the 1-byte messages' bandwidth is shared), so the figure makes the difference."""
    spec = cluster.load("ibm-sp")
    flat = cluster.ClusterSpec(**{**spec.__dict__, "per_message": None})
    one, four = (replay(pairs_trace(flat, k), flat, 4, tmp_path / str(k)) / ITERATIONS for k in (1, 4))
    assert one == pytest.approx(43.5e-6, rel=0.02) and one <= four < 1.05 * one  # Table 6: 125.2 us


def test_per_message_is_part_of_the_latency_and_pads_only_messages_between_nodes():
    text = (cluster.resources.path("clusters") / "ibm-sp.yaml").read_text()
    with pytest.raises(cluster.ClusterError, match="must be below it"):
        cluster.parse(text.replace("value: 27.2us", "value: 50us"), "x")
    with pytest.raises(cluster.ClusterError, match="unknown key 'per_mesage'"):
        cluster.parse(text.replace("per_message:", "per_mesage:"), "x")
    spec = cluster.parse(text, "ibm-sp")
    assert 'lat="8.15e-06s"' in cluster.platform_xml(spec)  # (43.5 - 27.2) / 2 us per link of the two
    interface = replace(spec.interface(), seconds_per_byte=0.0)
    padding = interface.padding
    lines = traces.ops_trace(1, [Op("isend", "x", 10, to=2), Op("isend", "x", 10, to=5),
                                 Op("sendrecv", "x", 7, to=4, source=3, recv_bytes=8)], 4, interface).splitlines()
    assert lines[1:4] == ["1 isend 2 0 10 6", f"1 isend 5 0 {10 + padding} 6", f"1 sendRecv {7 + padding} 4 8 3 6 6"]
