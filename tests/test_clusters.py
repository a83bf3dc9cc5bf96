"""Cluster descriptions (the shipped presets in hybridperf/resources/clusters, and the user's): every figure sourced or
marked assumed, found on one search path, one source for the split model's presets, and SimGrid platforms that SMPI
itself runs with the latency and bandwidth described."""

import os
import shutil
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET

import pytest

from hybridperf import cluster, resources
from hybridperf.models.presets import PRESETS
from hybridperf.simulate import noise

HYBRIDPERF = [sys.executable, "-m", "hybridperf"]
SMPI = shutil.which("smpicc") and shutil.which("smpirun")

TWO_NODES = textwrap.dedent("""\
    name: Two nodes
    nodes: 2
    sockets: 1
    cores_per_socket: 2
    network:
      latency: {value: LATENCY, source: test}
      bandwidth: {value: 1GBps, source: test}
      topology: {kind: star, source: test}
    intra_node:
      latency: {value: 0.5us, source: test}
      bandwidth: {value: 4GBps, source: test}
    fork_join: {value: 1us, threads: 2, source: test}
    """)


def test_every_shipped_description_is_valid_and_sourced():
    shipped = resources.path("clusters")
    assert {"merlin", "stella", "cseem64t-infinipath", "cseem64t-gige", "ibm-sp"} <= set(cluster.names(shipped))
    for name in cluster.names(shipped):
        spec = cluster.load(name, shipped)
        for figure in spec.figures().values():
            assert figure.assumed or figure.source, (name, figure)


def described(latency: str) -> cluster.ClusterSpec:
    """The two nodes with this network latency's mapping."""
    return cluster.parse(TWO_NODES.replace("{value: LATENCY, source: test}", latency), "two")


def test_an_assumed_figure_carries_its_range_and_where_it_comes_from():
    spec = described('{value: 50us, assumed: true, range: [0.5, 2], range_source: "GigE of the time"}')
    assert spec.latency.range == (0.5, 2.0) and spec.latency.range_source == "GigE of the time"
    assert described("{value: 50us, assumed: true}").latency.range is None


@pytest.mark.parametrize("latency, message", [
    ('{value: 50us, source: "a paper", range: [0.5, 2], range_source: "x"}', "only an assumed figure has a range"),
    ("{value: 50us, assumed: true, range: [0.5, 2]}", "say where the range comes from"),
    ('{value: 50us, assumed: true, range: [1.5, 2], range_source: "x"}', "0 < low <= 1 <= high"),
    ('{value: 50us, assumed: true, range: [0, 2], range_source: "x"}', "0 < low <= 1 <= high"),
    ('{value: 50us, assumed: true, range: 2, range_source: "x"}', "two factors of the value"),
])
def test_a_range_that_cannot_be_swept_is_refused(latency, message):
    with pytest.raises(cluster.ClusterError, match=message):
        described(latency)


def test_every_assumed_figure_of_the_seeds_machines_declares_its_range():
    """What is assumed is swept: no shipped figure marked assumed goes without a range and its source."""
    shipped = resources.path("clusters")
    assert len(cluster.names(shipped)) >= 5
    for name in cluster.names(shipped):
        assert cluster.load(name, shipped).figures()
        for label, figure in cluster.load(name, shipped).figures().items():
            assert (figure.range is not None) is figure.assumed, (name, label)
            assert bool(figure.range_source) is figure.assumed, (name, label)


@pytest.mark.kernel
def test_a_users_descriptions_come_first_and_say_where_they_are_from(tmp_path, monkeypatch):
    """$HYBRIDPERF_CLUSTERS's folders, then the user's folder, then the shipped presets: the first of a name wins."""
    mine, theirs = tmp_path / "mine", tmp_path / "xdg" / "hybridperf" / "clusters"
    mine.mkdir()
    theirs.mkdir(parents=True)
    (mine / "merlin.yaml").write_text(TWO_NODES.replace("LATENCY", "2us"))  # replaces the preset
    (theirs / "lab.yaml").write_text(TWO_NODES.replace("LATENCY", "3us"))
    (theirs / "stella.yaml").write_text(TWO_NODES.replace("LATENCY", "4us"))
    monkeypatch.setenv("HYBRIDPERF_CLUSTERS", f"{tmp_path / 'absent'}{os.pathsep}{mine}")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert cluster.user_dir() == theirs
    assert [d for d, _ in cluster.directories()] == [tmp_path / "absent", mine, theirs, resources.path("clusters")]
    origins = {name: origin for name, (_, origin) in cluster.found().items()}
    assert origins == {"merlin": "HYBRIDPERF_CLUSTERS", "lab": "yours", "stella": "yours", "ibm-sp": "shipped",
                       "ibm-sp-switch": "shipped", "cseem64t-gige": "shipped", "cseem64t-infinipath": "shipped"}
    assert cluster.load("merlin").latency.value == pytest.approx(2e-6) and cluster.load("lab").nodes == 2
    assert cluster.load("ibm-sp").name == "IBM SP (4-way)"
    listed = subprocess.run([*HYBRIDPERF, "cluster", "list"], capture_output=True, text=True,
                            env={**os.environ, "COLUMNS": "250"})
    rows = {line.split()[0]: line.split()[-1] for line in listed.stdout.splitlines() if line.split()}
    assert {k: rows.get(k) for k in origins} == origins and f"{theirs} (yours)" in listed.stdout


def test_an_unknown_name_says_where_it_was_looked_for(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    with pytest.raises(cluster.ClusterError, match=f"unknown cluster 'nosuch': the descriptions in "
                                                   f"{tmp_path}/hybridperf/clusters, .*resources/clusters are cseem"):
        cluster.load("nosuch")
    with pytest.raises(cluster.ClusterError, match="this-machine is not described yet .* `hybridperf cluster measure`"):
        cluster.load(cluster.THIS_MACHINE)


def test_merlin_is_as_the_thesis_describes_it():
    merlin = cluster.load("merlin")
    assert (merlin.nodes, merlin.cores_per_node) == (256, 8)
    assert merlin.latency.value == pytest.approx(1.8e-6) and not merlin.latency.assumed
    assert merlin.bandwidth.value == pytest.approx(20e9 / 8) and not merlin.bandwidth.assumed
    assert merlin.intra_latency.assumed and merlin.intra_bandwidth.assumed


def test_the_presets_are_the_descriptions():
    for name, preset in PRESETS.items():
        spec = cluster.load(name)
        assert (preset.nodes, preset.cores_per_node) == (spec.nodes, spec.cores_per_node)
        assert preset.alpha_inter == spec.latency.value and preset.beta_inter == pytest.approx(1 / spec.bandwidth.value)
        assert preset.par_overhead(spec.fork_join_threads) == pytest.approx(spec.fork_join.value)
        assert ("beta_inter" in preset.assumed) == spec.bandwidth.assumed


@pytest.mark.parametrize("text,unit,value", [("1.8us", cluster.TIME_UNITS, 1.8e-6), ("20Gbps", cluster.RATE_UNITS, 2.5e9),
                                             ("4GBps", cluster.RATE_UNITS, 4e9), ("42.9MBps", cluster.RATE_UNITS, 4.29e7)])
def test_units_are_simgrids(text, unit, value):
    assert cluster.quantity(text, unit, "x") == pytest.approx(value)


@pytest.mark.parametrize("change,message", [
    (("LATENCY", "fast"), "network.latency must be a number with a unit"),
    (("{value: LATENCY, source: test}", "{value: 2us}"), "network.latency: say where the figure comes from"),
    (("nodes: 2", "nodes: 0"), "nodes must be a whole number of at least 1"),
    (("kind: star", "kind: ring"), "network.topology.kind must be one of star, fat-tree, torus"),
    (("kind: star", "kind: torus, parameters: [3]"), "a torus's dimensions must multiply to the 2 nodes"),
    (("name: Two nodes", "name: x\nspeed: 3"), "unknown key 'speed'"),
])
def test_bad_descriptions_name_what_is_wrong(change, message):
    with pytest.raises(cluster.ClusterError, match=message):
        cluster.parse(TWO_NODES.replace(*change).replace("LATENCY", "2us"), "two", "two.yaml")


def test_platform_xml_has_the_described_cluster():
    merlin = cluster.load("merlin")
    root = ET.fromstring(cluster.platform_xml(merlin).split("\n", 2)[2])
    node = root.find("zone/cluster")
    assert node.get("radical") == "0-255" and node.get("core") == "8"
    assert (node.get("bw"), node.get("loopback_lat")) == ("20Gbps", "0.5us")
    assert node.get("lat") == "9e-07s"  # half the described 1.8 us on each of the two links a message crosses
    fat = cluster.parse(TWO_NODES.replace("LATENCY", "2us").replace("kind: star", "kind: fat-tree, parameters: [1, 2, 1, 1]"),
                        "fat")
    assert 'topology="FAT_TREE" topo_parameters="1;2;1;1"' in cluster.platform_xml(fat)


@pytest.mark.kernel
def test_cli_lists_shows_and_writes_platforms(tmp_path):
    assert "merlin" in subprocess.run([*HYBRIDPERF, "cluster", "list"], capture_output=True, text=True).stdout
    shown = subprocess.run([*HYBRIDPERF, "cluster", "show", "stella"], capture_output=True, text=True)
    assert shown.returncode == 0 and "assumed" in shown.stdout and "Arista" in shown.stdout.replace("\n", " ")
    assert "plausible ×0.5–×2" in shown.stdout.replace("\n", " ")  # Stella's latency, assumed, with its range
    out = tmp_path / "m.xml"
    made = subprocess.run([*HYBRIDPERF, "cluster", "platform", "merlin", "--out", out], capture_output=True, text=True)
    assert made.returncode == 0 and out.read_text() == cluster.platform_xml(cluster.load("merlin"))
    bad = subprocess.run([*HYBRIDPERF, "cluster", "show", "nosuch"], capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown cluster 'nosuch'" in bad.stderr


PINGPONG = r"""
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n = atoi(argv[1]);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *buf = calloc(n, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (rank == 0) {
        MPI_Send(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("%.12e\n", (MPI_Wtime() - t0) / 2);
    } else {
        MPI_Recv(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
"""
# SMPI's calibrated piecewise factors off, so that the platform's own figures are what a message costs
EXACT = ["--cfg=smpi/bw-factor:0:1", "--cfg=smpi/lat-factor:0:1", "--cfg=network/crosstraffic:0"]


@pytest.mark.kernel
@pytest.mark.skipif(not SMPI, reason="SimGrid's smpicc/smpirun missing: apt-get install libsimgrid-dev")
def test_smpi_runs_on_the_platform_with_the_described_network(tmp_path):
    """A ping-pong under SMPI on generated platforms: a megabyte costs its bytes over the described bandwidth
    between nodes (and over the loopback's within one), and what a one-byte message costs grows linearly with the
    described latency (each doubling of the latency adds twice what the previous one added)."""
    source, exe = tmp_path / "pp.c", tmp_path / "pp"
    source.write_text(PINGPONG)
    subprocess.run(["smpicc", "-O2", str(source), "-o", str(exe)], check=True, capture_output=True)

    def one_way(latency: str, size: int, same_node: bool) -> float:
        spec = cluster.parse(TWO_NODES.replace("LATENCY", latency), "two")
        platform, hosts = tmp_path / f"p{latency}.xml", tmp_path / "hosts"
        platform.write_text(cluster.platform_xml(spec))
        names = cluster.host_names(spec)
        hosts.write_text(f"{names[0]}\n{names[0] if same_node else names[1]}\n")
        out = subprocess.run(["smpirun", "-np", "2", "-platform", str(platform), "-hostfile", str(hosts), *EXACT,
                              str(exe), str(size)], capture_output=True, text=True, cwd=tmp_path)
        assert out.returncode == 0, out.stderr[-2000:]
        return float(out.stdout.split()[-1])

    # SimGrid keeps simulated time to about a nanosecond per event (its precision/timing), so a few of them add up
    # to several nanoseconds: 10 ns is a hundred times finer than anything the assertions tell apart
    clock = 1e-8
    assert one_way("2us", 10**6, False) - one_way("2us", 1, False) == pytest.approx(10**6 / 1e9, abs=clock)
    assert one_way("2us", 10**6, True) - one_way("2us", 1, True) == pytest.approx(10**6 / 4e9, abs=clock)
    t2, t4, t8 = (one_way(latency, 1, False) for latency in ("2us", "4us", "8us"))
    assert t8 - t4 == pytest.approx(2 * (t4 - t2), abs=clock)


def test_a_measured_nodes_noise_is_its_ompbench_runs_quanta():
    """describe_node with an ompbench profile that measured noise (--noise-quanta): the description's noise is the
    measured percentiles at the quantum's interval, sourced, and a replay can draw it; without one, no noise."""
    pingpong = {"figures_of_merit": [{"name": "pingpong_latency", "value": 0.4},
                                     {"name": "pingpong_bandwidth", "value": 9000.0}]}
    slowdowns = [0.0] * 90 + [0.01 * k for k in range(1, 11)]
    omp = {"figures_of_merit": [{"name": "overhead.PARALLEL_FOR", "value": 1.5}], "run": {"threads_per_rank": 2},
           "ompbench": {"noise": {"quantum_us": 998.7, "quanta_per_thread": 2000, "samples": 4000,
                                  "slowdowns": slowdowns}}}
    spec = cluster.parse(cluster.describe_node("vm", 2, 1, pingpong, omp, "2026-11-26"), "this-machine")
    assert spec.noise is not None and spec.noise.slowdowns == tuple(slowdowns)
    assert spec.noise.interval == pytest.approx(998.7e-6) and not spec.noise.assumed
    assert spec.noise.source.startswith("measured: hybridperf-ompbench --noise-quanta 2000 on vm")
    assert "noise-0" in noise.elements(cluster.with_noise(spec, 1), 1)
    del omp["ompbench"]
    assert cluster.parse(cluster.describe_node("vm", 2, 1, pingpong, omp, "2026-11-26"), "x").noise is None


def test_an_assumed_noise_declares_the_range_its_scale_is_swept_over():
    spec = cluster.load("merlin")
    assert spec.noise.assumed and spec.noise.range == (0.0625, 16.0) and spec.noise.range_source
    text = (cluster.resources.path("clusters") / "merlin.yaml").read_text()
    with pytest.raises(cluster.ClusterError, match="noise.range must be two factors"):
        cluster.parse(text.replace("range: [0.0625, 16]", "range: [2, 16]"), "x")
    with pytest.raises(cluster.ClusterError, match="noise: unknown key 'range_sourc'"):
        cluster.parse(text.replace("range_source: \"a node losing", "range_sourc: \"a node losing"), "x")
    with pytest.raises(cluster.ClusterError, match="noise: only an assumed figure has a range"):
        cluster.parse(text.replace("assumed: true,\n        source", "source"), "x")


def test_a_description_that_extends_another_has_its_keys_but_those_it_gives(tmp_path):
    """ibm-sp-switch is ibm-sp with another transport within a node; a user's may extend a shipped one by name, and
    a loop of extensions is one line naming the file."""
    switch, sp = cluster.load("ibm-sp-switch"), cluster.load("ibm-sp")
    assert switch.intra_latency.value == pytest.approx(76.1e-6) and sp.intra_latency.value == pytest.approx(28.2e-6)
    assert (switch.latency, switch.per_message, switch.aggregate, switch.nodes) == \
        (sp.latency, sp.per_message, sp.aggregate, sp.nodes)
    (tmp_path / "slow.yaml").write_text("extends: merlin\nname: slow Merlin\nnodes: 4\n")
    slow = cluster.load(str(tmp_path / "slow.yaml"))
    assert (slow.name, slow.nodes, slow.latency) == ("slow Merlin", 4, cluster.load("merlin").latency)
    (tmp_path / "a.yaml").write_text("extends: b\n")
    (tmp_path / "b.yaml").write_text("extends: a\n")
    with pytest.raises(cluster.ClusterError, match="extends a, which extends it again"):
        cluster.load("a", tmp_path)
