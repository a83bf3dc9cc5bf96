"""Chow & Hysom's parameters: e_mt and e_cache transcribe the paper's formulas (its Tables 2, 3, 5 from its
published times: the thread count and the direction of each ratio), e_ni and e_mp come out of stored runs
with known injected times exactly, from the right runs, regions and node counts, and the pairing says which
runs are missing."""

import pytest

from hybridperf.analysis.efficiency import e_cache, e_mt, efficiency_rows, reading
from hybridperf.analysis.stats import summarize

one = lambda t: summarize([t])  # a published value: one measurement

# Table 2 (4 threads) and Table 3 (2 threads): (hybrid, serial, e_mt) computation times, 100 calls
TABLE2 = [(0.015, 0.035, 0.58), (0.216, 0.779, 0.90), (0.825, 2.754, 0.83), (1.997, 6.764, 0.85),
          (3.877, 13.250, 0.85), (6.888, 23.500, 0.85), (10.795, 37.017, 0.86), (16.228, 55.988, 0.86)]
TABLE3 = [(0.010, 0.016, 0.80), (0.179, 0.371, 1.04), (0.700, 1.329, 0.95), (1.749, 3.330, 0.95),
          (3.434, 6.574, 0.96), (5.992, 11.492, 0.96), (9.580, 18.408, 0.96), (14.628, 28.103, 0.96)]
TABLE5 = [(0.008, 0.015, 0.53), (0.200, 0.216, 0.93), (0.781, 0.825, 0.95), (1.889, 1.997, 0.95),
          (3.781, 3.877, 0.98), (6.632, 6.888, 0.96), (10.627, 10.795, 0.98), (16.079, 16.228, 0.99)]
@pytest.mark.parametrize("hyb,ser,published", TABLE2)
def test_e_mt_table2(hyb, ser, published):
    assert round(e_mt(one(ser), one(hyb), 4).value, 2) == published


@pytest.mark.parametrize("hyb,ser,published", TABLE3)
def test_e_mt_table3(hyb, ser, published):
    assert round(e_mt(one(ser), one(hyb), 2).value, 2) == published


@pytest.mark.parametrize("mpi,hyb,published", TABLE5)
def test_e_cache_table5(mpi, hyb, published):
    assert round(e_cache(one(mpi), one(hyb)).value, 2) == published


def test_error_propagates_in_quadrature():
    a, b = summarize([1.0, 1.2, 1.1]), summarize([2.0, 2.2, 2.1])
    v = e_mt(a, b, 2)
    assert v.value == pytest.approx(1.1 / 4.2)
    assert v.error == pytest.approx(v.value * ((a.sem / a.mean) ** 2 + (b.sem / b.mean) ** 2) ** 0.5)


def fake_run(size, nodes, rpn, threads, comp, comm, mode, messages=10):
    """A stored run whose profile has the given computation and communication times (and a decoy region of
    neither group, which no parameter may read)."""
    profile = {"kernel": "spmv", "region_groups": {"computation": ["local_product"], "communication": ["exchange"]},
               "regions": {"local_product": {"time": {"avg": comp}}, "exchange": {"time": {"avg": comm}},
                           "total": {"time": {"avg": 1e6}}},
               "comm": {"p2p": {"bytes": 1000 * messages, "messages": messages}}}
    return {"params": {"n": size, "mode": mode}, "nodes": nodes, "ranks_per_node": rpn, "threads": threads,
            "status": "ok", "profile": profile}


# injected communication times (three repeats) per node count: mpi (4 ranks x 1 thread per node), hyb (1 x 4)
MPI_COMM = {2: [0.30, 0.34, 0.32], 4: [0.50, 0.55, 0.60]}
HYB_COMM = {2: [0.10, 0.12, 0.11], 4: [0.40, 0.44, 0.42]}


def injected_runs():
    runs = [fake_run(20, n, 4, 1, 1.0, t, "mpi") for n, times in MPI_COMM.items() for t in times]
    runs += [fake_run(20, n, 1, 4, 2.0, t, "hybrid") for n, times in HYB_COMM.items() for t in times]
    runs.append(fake_run(40, 2, 4, 1, 1.0, 99.0, "mpi"))  # another problem: never paired with n = 20
    return runs


def test_e_ni_and_e_mp_from_injected_communication_times():
    """e_ni = t_comm(mpi) / t_comm(hyb) on the smallest node count only; e_mp = t_comm(hyb) / t_comm(mpi) at every
    node count; means over the repeats, errors from their SEMs in quadrature."""
    rows = {(r.problem["n"], r.nodes): r for r in efficiency_rows(injected_runs(), cores_per_node=4)}
    for nodes in (2, 4):
        mpi, hyb = summarize(MPI_COMM[nodes]), summarize(HYB_COMM[nodes])
        relative = ((mpi.sem / mpi.mean) ** 2 + (hyb.sem / hyb.mean) ** 2) ** 0.5
        row = rows[(20, nodes)]
        assert row.e_mp.value == pytest.approx(hyb.mean / mpi.mean, rel=1e-12)
        assert row.e_mp.error == pytest.approx(row.e_mp.value * relative, rel=1e-12)
        if nodes == 2:
            assert row.e_ni.value == pytest.approx(mpi.mean / hyb.mean, rel=1e-12)
            assert row.e_ni.error == pytest.approx(row.e_ni.value * relative, rel=1e-12)
        else:
            assert row.e_ni is None  # the paper measures e_ni on few nodes; e_mp carries the scaling
        assert row.e_cache.value == pytest.approx(1.0 / 2.0)  # computation: 1.0 s mpi, 2.0 s hyb
    assert rows[(40, 2)].e_ni is None and "needs a hyb run" in rows[(40, 2)].missing["e_ni"]
    assert "e_mp averages" in reading(list(rows.values()))


def test_a_hybrid_run_that_sends_nothing_gives_no_e_ni():
    """A hybrid run that sends no message has only timer noise for communication: the paper leaves the ratio out."""
    runs = [fake_run(20, 2, 4, 1, 1.0, 0.3, "mpi"), fake_run(20, 2, 1, 4, 2.0, 1e-6, "hybrid", messages=0)]
    [row] = efficiency_rows(runs, cores_per_node=4)
    assert row.e_ni is None and "sends no messages" in row.missing["e_ni"]


def test_e_ni_and_e_mp_only_across_nodes():
    """On one node a lone hybrid rank may still send (md's periodic halo goes to itself): e_ni and e_mp would time
    memory copies, not the network. Neither is computed, the reason is given once, and the reading averages none."""
    runs = [fake_run(20, 1, 4, 1, 1.0, 0.3, "mpi"), fake_run(20, 1, 1, 4, 2.0, 0.2, "hybrid", messages=6)]
    [row] = efficiency_rows(runs, cores_per_node=4)
    assert row.e_ni is None and row.e_mp is None and row.e_cache is not None
    assert row.missing["e_ni"] == row.missing["e_mp"] == \
        "e_ni and e_mp need runs on two or more nodes; this study ran on one node"
    text = reading([row])
    assert "NI efficiency" not in text and "e_mp averages" not in text
    assert text.endswith("e_ni and e_mp need runs on two or more nodes; this study ran on one.")
    # with a second node count, e_ni moves to the smallest one of two or more nodes
    runs += [fake_run(20, 2, 4, 1, 1.0, 0.3, "mpi"), fake_run(20, 2, 1, 4, 2.0, 0.2, "hybrid", messages=6)]
    one, two = efficiency_rows(runs, cores_per_node=4)
    assert one.e_ni is None and "these runs are on one node" in one.missing["e_ni"]
    assert two.e_ni.value == pytest.approx(1.5) and two.e_mp.value == pytest.approx(0.2 / 0.3)


def test_runs_of_different_stated_sizes_are_not_paired():
    """A weak-scaling kernel's 1-core run (spmv: n^3 rows) solves less than a node's hybrid run with the same
    parameters (nt n^3 rows): it is no `ser` run for e_mt. The size the profile states keeps them apart."""
    def sized(run, rows):
        run["profile"]["spmv"] = {"rows": rows}
        return run

    runs = [sized(fake_run(20, 1, 1, 1, 1.0, 0.0, "mpi"), 8000),
            sized(fake_run(20, 1, 1, 2, 0.6, 0.0, "hybrid"), 16000)]
    rows = efficiency_rows(runs, cores_per_node=2)
    assert [r.size for r in rows] == [8000, 16000] and all(r.e_mt is None for r in rows)
    runs.append(sized(fake_run(20, 1, 1, 1, 1.0, 0.0, "serial"), 16000))  # SPMV-Serial: the node's brick on one thread
    [_, paired] = efficiency_rows(runs, cores_per_node=2)
    assert paired.e_mt.value == pytest.approx(1.0 / (2 * 0.6))


def test_missing_roles_are_named():
    rows = efficiency_rows([fake_run(20, 1, 1, 2, 1.0, 0.0, "hybrid")], cores_per_node=2)
    [row] = rows
    assert row.e_mt is None and row.e_cache is None
    assert "needs a ser run (1 node(s), 1 rank x 1 thread per node)" in row.missing["e_mt"]
    assert "needs an mpi run (1 node(s), 2 ranks x 1 thread per node)" in row.missing["e_cache"]


@pytest.mark.kernel
def test_efficiency_command_on_a_stored_study(tiny_study):
    """On the committed study (pure MPI and hybrid-1 on 1 and 2 cores): e_mt and e_cache from the runs it pairs;
    on a study with pure MPI alone, a refusal that names the runs it lacks."""
    import subprocess
    import sys

    from hybridperf.store.db import Store

    cli = [sys.executable, "-m", "hybridperf"]
    out = subprocess.run([*cli, "efficiency", str(tiny_study)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "e_mt" in out.stdout and "Multithreading efficiency averages" in out.stdout
    assert subprocess.run([*cli, "report", str(tiny_study)], capture_output=True).returncode == 0
    html = (tiny_study / "report.html").read_text()
    assert "Efficiency parameters" in html and "a ser run (1 node(s), 1 rank x 1 thread per node): 1n x 1r x 1t (n=3)" in html
    # the study ran on one node: no e_ni or e_mp, and a line that says why, in the terminal and the report alike
    why = "e_ni and e_mp need runs on two or more nodes; this study ran on one"
    assert why in out.stdout and why in html
    assert "NI efficiency averages" not in out.stdout + html and "e_mp averages" not in out.stdout + html

    with Store(tiny_study) as store:  # the same study without its hybrid runs
        store.db.execute("DELETE FROM runs WHERE threads > 1")
        store.db.commit()
    refused = subprocess.run([*cli, "efficiency", str(tiny_study)], capture_output=True, text=True)
    assert refused.returncode == 2
    assert "no efficiency parameter can be computed" in refused.stderr and "needs a hyb run" in refused.stderr
