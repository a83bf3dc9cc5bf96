"""Chow & Hysom's parameters: the formulas reproduce the paper's own tables from its published times,
and the pairing of stored runs finds the right runs or says which are missing."""

import pytest

from hybridperf.analysis.efficiency import e_cache, e_mt, e_ni, efficiency_rows, reading
from hybridperf.analysis.stats import summarize

one = lambda t: summarize([t])  # a published value: one measurement

# Table 2 (4 threads) and Table 3 (2 threads): (hybrid, serial, e_mt) computation times, 100 calls
TABLE2 = [(0.015, 0.035, 0.58), (0.216, 0.779, 0.90), (0.825, 2.754, 0.83), (1.997, 6.764, 0.85),
          (3.877, 13.250, 0.85), (6.888, 23.500, 0.85), (10.795, 37.017, 0.86), (16.228, 55.988, 0.86)]
TABLE3 = [(0.010, 0.016, 0.80), (0.179, 0.371, 1.04), (0.700, 1.329, 0.95), (1.749, 3.330, 0.95),
          (3.434, 6.574, 0.96), (5.992, 11.492, 0.96), (9.580, 18.408, 0.96), (14.628, 28.103, 0.96)]
TABLE5 = [(0.008, 0.015, 0.53), (0.200, 0.216, 0.93), (0.781, 0.825, 0.95), (1.889, 1.997, 0.95),
          (3.781, 3.877, 0.98), (6.632, 6.888, 0.96), (10.627, 10.795, 0.98), (16.079, 16.228, 0.99)]
TABLE8 = [(0.041, 0.010, 4.10), (0.075, 0.038, 1.97), (0.081, 0.067, 1.21), (0.140, 0.086, 1.63),
          (0.202, 0.125, 1.62), (0.210, 0.150, 1.40), (0.315, 0.195, 1.62), (0.406, 0.213, 1.91)]
# Table 9 (size 500, 32000, 256000): nodes -> (Tot MPI, Tot Hyb, Comm MPI, Comm Hyb), and the derived e_mp
TABLE9 = {
    500: {8: (0.071, 0.042, 0.063, 0.027, 0.43), 27: (0.119, 0.101, 0.111, 0.086, 0.77),
          64: (0.141, 0.126, 0.133, 0.111, 0.83), 125: (0.297, 0.148, 0.289, 0.133, 0.46),
          216: (0.416, 0.182, 0.408, 0.167, 0.41)},
    32000: {8: (2.217, 2.305, 0.328, 0.308, 0.94), 27: (2.375, 2.737, 0.486, 0.740, 1.52),
            64: (2.708, 3.299, 0.819, 1.302, 1.59), 125: (3.374, 3.686, 1.485, 1.689, 1.14),
            216: (4.253, 5.286, 2.364, 3.289, 1.39)},
    256000: {8: (17.614, 17.399, 1.535, 1.171, 0.76), 27: (19.103, 19.912, 3.024, 3.684, 1.22),
             64: (19.472, 21.960, 3.393, 5.732, 1.69), 125: (20.331, 22.859, 4.252, 6.631, 1.56),
             216: (21.178, 24.057, 5.099, 7.829, 1.54)},
}


@pytest.mark.parametrize("hyb,ser,published", TABLE2)
def test_e_mt_table2(hyb, ser, published):
    assert round(e_mt(one(ser), one(hyb), 4).value, 2) == published


@pytest.mark.parametrize("hyb,ser,published", TABLE3)
def test_e_mt_table3(hyb, ser, published):
    assert round(e_mt(one(ser), one(hyb), 2).value, 2) == published


@pytest.mark.parametrize("mpi,hyb,published", TABLE5)
def test_e_cache_table5(mpi, hyb, published):
    assert round(e_cache(one(mpi), one(hyb)).value, 2) == published


@pytest.mark.parametrize("mpi,hyb,published", TABLE8)
def test_e_ni_table8(mpi, hyb, published):
    assert round(e_ni(one(mpi), one(hyb)).value, 2) == published


def test_error_propagates_in_quadrature():
    a, b = summarize([1.0, 1.2, 1.1]), summarize([2.0, 2.2, 2.1])
    v = e_mt(a, b, 2)
    assert v.value == pytest.approx(1.1 / 4.2)
    assert v.error == pytest.approx(v.value * ((a.sem / a.mean) ** 2 + (b.sem / b.mean) ** 2) ** 0.5)


def fake_run(size, nodes, rpn, threads, comp, comm, mode):
    profile = {"kernel": "spmv", "region_groups": {"computation": ["local_product"], "communication": ["exchange"]},
               "regions": {"local_product": {"time": {"avg": comp}}, "exchange": {"time": {"avg": comm}}},
               "comm": {"p2p": {"bytes": 1000, "messages": 10}}}
    return {"params": {"n": size, "mode": mode}, "nodes": nodes, "ranks_per_node": rpn, "threads": threads,
            "status": "ok", "profile": profile}


def test_e_mp_from_table9_runs_pairs_mpi_and_hybrid_by_node_count():
    runs = []
    for size, by_nodes in TABLE9.items():
        for nodes, (tot_mpi, tot_hyb, comm_mpi, comm_hyb, _) in by_nodes.items():
            runs.append(fake_run(size, nodes, 4, 1, tot_mpi - comm_mpi, comm_mpi, "mpi"))
            runs.append(fake_run(size, nodes, 1, 4, tot_hyb - comm_hyb, comm_hyb, "hybrid"))
    rows = efficiency_rows(runs, cores_per_node=4)
    assert len(rows) == 15
    for row in rows:
        published = TABLE9[row.problem["n"]][row.nodes][4]
        assert round(row.e_mp.value, 2) == published, (row.problem, row.nodes)
        assert "hyb run (%d node(s)" % row.nodes in row.paired["e_mp"]
        assert row.e_mt is None and "needs a ser run" in row.missing["e_mt"]
    # e_ni only on the smallest node count of each problem (the paper measures it on few nodes)
    assert {r.nodes for r in rows if r.e_ni} == {8}
    assert "e_mp averages" in reading(rows)


def test_missing_roles_are_named():
    rows = efficiency_rows([fake_run(20, 1, 1, 2, 1.0, 0.0, "hybrid")], cores_per_node=2)
    [row] = rows
    assert row.e_mt is None and row.e_cache is None
    assert "needs a ser run (1 node(s), 1 rank x 1 thread per node)" in row.missing["e_mt"]
    assert "needs an mpi run (1 node(s), 2 ranks x 1 thread per node)" in row.missing["e_cache"]


def test_efficiency_command_on_a_stored_study(tmp_path, md_binary):
    import subprocess
    import sys

    spec = tmp_path / "s.yaml"
    spec.write_text(f"study: e\nkernel: md\nparams: {{size: 8, steps: 20}}\nconfigurations: [pure-mpi, hybrid-1]\n"
                    f"cores: [1, 2]\nrepeats: 2\nresults: {tmp_path / 'r'}\n")
    cli = [sys.executable, "-m", "hybridperf"]
    assert subprocess.run([*cli, "study", str(spec)], capture_output=True).returncode == 0
    out = subprocess.run([*cli, "efficiency", str(tmp_path / "r")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "e_mt" in out.stdout and "Multithreading efficiency averages" in out.stdout
    html = (tmp_path / "r" / "report.html").read_text()
    assert "Efficiency parameters" in html and "a ser run (1 node(s), 1 rank x 1 thread per node): 1n x 1r x 1t (n=2)" in html

    only_mpi = tmp_path / "m.yaml"
    only_mpi.write_text(spec.read_text().replace("[pure-mpi, hybrid-1]", "[pure-mpi]").replace("study: e", "study: m")
                        .replace("cores: [1, 2]", "cores: [2]").replace(str(tmp_path / "r"), str(tmp_path / "m")))
    assert subprocess.run([*cli, "study", str(only_mpi), "--no-report"], capture_output=True).returncode == 0
    refused = subprocess.run([*cli, "efficiency", str(tmp_path / "m")], capture_output=True, text=True)
    assert refused.returncode == 2
    assert "no efficiency parameter can be computed" in refused.stderr and "needs a ser run" in refused.stderr
