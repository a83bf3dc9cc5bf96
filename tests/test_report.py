"""The report tells one story and only what the data can carry (read from the HTML, terminal and --json of a
committed study, and from the model tables of sections built here)."""

import json
import os
import shutil
import re
import subprocess
import sys
from html.parser import HTMLParser

import pytest

from hybridperf.analysis.race import Rule
from hybridperf.analysis.scaling import scaling
from hybridperf.analysis.sections import comm_seconds, Point, Section, speedups, verdicts_of
from hybridperf.analysis.stats import summarize
from hybridperf.models import thesis
from hybridperf.report.tables import model_tables
from hybridperf.store.db import Store

HYBRIDPERF = [sys.executable, "-m", "hybridperf"]


class Tables(HTMLParser):
    """Every table of a page as (title, header cells, rows of cells)."""

    def __init__(self):
        super().__init__()
        self.tables, self.title, self._cell, self._row, self._in = [], "", None, None, None

    def handle_starttag(self, tag, attrs):
        if tag == "h3":
            self._in, self.title = "h3", ""
        elif tag == "table":
            self.tables.append((self.title, [], []))
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = ""

    def handle_endtag(self, tag):
        if tag == "h3":
            self._in = None
        elif tag in ("td", "th") and self._row is not None:
            self._row.append(self._cell)
            self._cell = None
        elif tag == "tr" and self._row is not None:
            title, headers, rows = self.tables[-1]
            (rows if headers else headers).extend([self._row] if headers else self._row)
            self._row = None

    def handle_data(self, data):
        if self._in == "h3":
            self.title += data
        elif self._cell is not None:
            self._cell += data


def report(results):
    out = subprocess.run([*HYBRIDPERF, "report", str(results)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return (results / "report.html").read_text(), out.stdout


@pytest.mark.kernel
def test_the_page_opens_with_the_headline_and_one_winner_rule(tiny_study):
    html, terminal = report(tiny_study)
    assert html.index("id='headline'") < html.index("<h2>size=8")
    # the terminal says what an undecided race would need, as the page does (3 blocks: too few to tell, or about N)
    assert "2 cores: undecided: " in terminal and ("would decide it" in terminal or "too few blocks" in terminal)
    sentences = re.findall(r"<li>(At \d+ cores?: .*?)</li>", html)
    assert len(sentences) == 4  # two sizes, two core counts
    for s in sentences[0::2]:  # at 1 core the one 1 x 1 run is the baseline
        assert "pure-mpi = hybrid-1 is the only shape here (the baseline; 3 runs)" in s
    for s in sentences[1::2]:  # at 2 cores two shapes race: the outcome in its own word, with its blocks
        assert re.search(r": (\S+ wins — |tie — |undecided after 3 blocks — )", s), s
    # the verdict table and the outlook name the same winner at each measured scale
    parsed = Tables()
    parsed.feed(html)
    verdicts = [t for t in parsed.tables if t[0].startswith("Verdict")]
    outlooks = [t for t in parsed.tables if t[0].startswith("Outlook")]
    assert len(verdicts) == len(outlooks) == 2
    for (_, vh, vrows), (_, oh, orows) in zip(verdicts, outlooks):
        winner = {r[0]: r[2] for r in vrows}
        measured = {r[0]: r[-1].split(" (")[0] for r in orows if r[-1] != "–"}
        assert measured == {k: v for k, v in winner.items() if k in measured} and measured
    assert "verdict (90% confidence, ties within ±2%)" in terminal


@pytest.mark.kernel
def test_no_zero_width_band_and_no_extrapolation_from_an_exact_fit(tiny_study):
    html, _ = report(tiny_study)
    parsed = Tables()
    parsed.feed(html)
    bands = [cell for _, headers, rows in parsed.tables if "band (±SE)" in headers
             for row in rows for cell in [row[headers.index("band (±SE)")]]]
    assert bands, "the model tables have a band column"
    for cell in bands:
        if cell != "–":
            low, high = (float(x) for x in cell.split(" – "))
            assert high > low, cell
    assert "exact: as many points as parameters" in html and "(extrapolated)" not in html
    assert "± 2.3e-19" not in html and "(0%)" not in html


@pytest.mark.kernel
def test_overheads_are_a_share_of_the_pure_mpi_region(tiny_study):
    html, _ = report(tiny_study)
    parsed = Tables()
    parsed.feed(html)
    [overheads, *_] = [t for t in parsed.tables if t[0].startswith("Threading overhead")]
    _, headers, rows = overheads
    assert rows
    with Store(tiny_study) as store:
        runs = [r for r in store.runs() if r["status"] == "ok"]

    def least(ranks: int, threads: int, region: str) -> float:
        return min(r["profile"]["regions"][region]["time"]["avg"] for r in runs
                   if (r["ranks"], r["threads"]) == (ranks, threads))

    for configuration, cores, region, _, share in rows:  # hybrid's least time over pure MPI's, at equal cores
        hybrid, pure = least(1, int(cores), region), least(int(cores), 1, region)
        assert configuration == "hybrid-1" and float(share.rstrip("%")) == pytest.approx(
            100 * (hybrid - pure) / pure, abs=0.051)  # the table rounds to 0.1%


def made_weak(results):
    """The committed study as if it were weak scaling: each profile states a problem in proportion to its cores."""
    for path in (results / "profiles").glob("*.json"):
        profile = json.loads(path.read_text())
        profile["md"]["atoms"] *= profile["run"]["ranks"] * profile["run"]["threads_per_rank"]
        path.write_text(json.dumps(profile))
    return results


def points_of(html):
    parsed = Tables()
    parsed.feed(html)
    return [t for t in parsed.tables if t[0].startswith("Total time")]


@pytest.mark.kernel
def test_weak_scaling_has_efficiency_t1_over_tn_and_no_speedup(tiny_study):
    """A study whose problem grows with the cores is judged by T(1)/T(p), ideal 1: a speedup would divide a small
    problem's time by a large one's. The page, the terminal and --json say the same."""
    html, terminal = report(made_weak(tiny_study))
    tables = points_of(html)
    assert len(tables) == 2
    for _, headers, rows in tables:
        assert "speedup" not in headers and "weak-scaling efficiency" in headers
        [one_core] = [float(r[headers.index("mean")]) for r in rows if r[1] == "1"]
        for r in rows:
            efficiency = float(r[headers.index("weak-scaling efficiency")].split(" ± ")[0])
            assert efficiency == pytest.approx(one_core / float(r[headers.index("mean")]), rel=6e-3)  # 3 and 4 digits
    assert "Weak scaling: the problem grows with the cores (2,048 atoms per core)" in html
    assert "weak eff." in terminal and not re.search(r"┃\s*speedup\s*┃", terminal)
    out = subprocess.run([*HYBRIDPERF, "report", str(tiny_study), "--json"], capture_output=True, text=True)
    sections = json.loads(out.stdout)["sections"]
    assert [s["scaling"]["kind"] for s in sections] == ["weak", "weak"]
    for s, (_, headers, rows) in zip(sections, tables):
        assert all("speedup" not in p for p in s["scaling"]["points"])
        shown = [float(r[headers.index("weak-scaling efficiency")].split(" ± ")[0]) for r in rows]
        assert [p["efficiency"] for p in s["scaling"]["points"]] == pytest.approx(shown, rel=6e-3)


@pytest.mark.kernel
def test_strong_scaling_keeps_speedup_and_efficiency(tiny_study):
    html, terminal = report(tiny_study)
    for _, headers, rows in points_of(html):
        assert headers[headers.index("speedup"):headers.index("speedup") + 2] == ["speedup", "efficiency"]
    assert re.search(r"┃\s*speedup\s*┃", terminal) and "weak eff." not in terminal
    out = subprocess.run([*HYBRIDPERF, "report", str(tiny_study), "--json"], capture_output=True, text=True)
    for s in json.loads(out.stdout)["sections"]:
        assert s["scaling"]["kind"] == "strong"
        for p in s["scaling"]["points"]:
            assert p["efficiency"] == pytest.approx(p["speedup"] / p["cores"])


def test_without_a_one_core_run_the_speedups_say_what_they_are_relative_to():
    """BT-MZ on 16 cores only: the fastest split is the base, taken as perfect, and the sentence says so."""
    points = [Point(name, 16, 16, 1, 16 // t, t, "", summarize([time, time]), 0)
              for name, t, time in (("pure-mpi", 1, 1.0), ("4x4", 4, 0.5))]
    kind = speedups(points, scaling("app", [("pure-mpi", 16, None), ("4x4", 16, None)], "cores"))
    assert [(p.speedup, p.efficiency) for p in points] == [(8.0, 0.5), (16.0, 1.0)]
    assert kind.why.endswith("no 1-core run, so speedups are relative to 4x4 at 16 cores, taken as perfect (16, "
                             "efficiency 1)")
    one = [Point("pure-mpi", 1, 1, 1, 1, 1, "", summarize([2.0, 2.0]), 0), *points]
    assert "no 1-core run" not in speedups(one, scaling("app", [("pure-mpi", 1, None)], "cores")).why


def test_a_program_without_communication_regions_has_its_mpi_time_as_communication():
    """An app whose output names no communication regions (NAS BT-MZ): the counting library's MPI time by class,
    not 0; a kernel's named regions as before."""
    comm = {cls: {"time": {"avg": t}} for cls, t in (("p2p", 0.75), ("collective", 0.125), ("barrier", 0.0625))}
    app = {"region_groups": {"computation": [], "communication": []}, "regions": {"total": {}}, "comm": comm}
    assert comm_seconds(app) == 0.9375
    kernel = {"region_groups": {"communication": ["halo"]}, "regions": {"halo": {"time": {"avg": 0.5}}},
              "comm": comm}
    assert comm_seconds(kernel) == 0.5
    assert comm_seconds({"region_groups": {}, "regions": {}}) == 0  # no counts either


def test_the_scaling_kind_comes_from_the_stated_problem_size():
    assert scaling("spmv", [("pure-mpi", 1, 512.0), ("pure-mpi", 4, 2048.0), ("1x1", 2, 2048.0),
                            ("1x1", 4, 4096.0)], "cores").weak  # each configuration grows with the cores
    assert scaling("spmv", [("pure-mpi", 1, 512.0), ("pure-mpi", 4, 2048.0)], "nodes").why.startswith(
        "weak scaling: the problem grows with the nodes (512 rows per node)")
    assert not scaling("md", [("pure-mpi", 1, 2048.0), ("pure-mpi", 2, 2048.0)], "cores").weak
    for kernel, points in (("md", [("pure-mpi", 1, 2048.0), ("pure-mpi", 2, 3000.0)]),  # grows, not in proportion
                           ("app", [("pure-mpi", 1, None), ("pure-mpi", 2, None)])):  # no size stated
        kind = scaling(kernel, points, "cores")
        assert not kind.weak and kind.why.startswith("strong scaling assumed")


NODE = 4


def modelled(configurations, mu):
    """Runs that follow the thesis's overall model exactly, with threading overhead `mu` (negative: the hybrid is
    faster than any overhead >= 0 allows, so the fit holds mu at its bound)."""
    points, runs = [], []
    for configuration in configurations:
        for cores in (4, 8, 16):
            lay = thesis.layout(configuration, cores, NODE)
            t = float(thesis.overall(1e-6, mu if lay.n_omp > 1 else 0.0, 1e-6, 100_000, lay.n_mpi, lay.n_omp,
                                     lay.n_ppn))
            run = {"loop_time": t, "status": "ok", "repeat": 0, "configurations": [configuration],
                   "nodes": cores // NODE, "ranks_per_node": lay.n_ppn, "threads": lay.n_omp, "backend": "local",
                   "profile": {"kernel": "md", "md": {"atoms": 100_000}, "regions": {},
                               "figures_of_merit": [{"name": "loop_time", "value": t}]}}
            points.append(Point(configuration, cores, cores, cores // NODE, lay.n_ppn, lay.n_omp, "",
                                summarize([t]), 0, [run]))
            runs.append(run)
    return Section({}, "cores", points, verdicts_of(points, runs, Rule(), stopped=True), [])


def overall_titles(section):
    return [title for title, _, _ in model_tables(section, NODE) if title.startswith("overall (6.10)")]


def test_a_parameter_held_at_its_bound_is_shown_as_such():
    titles = overall_titles(modelled(("pure-mpi", "hybrid-1"), mu=-3e-6))
    assert titles and all("mu = 0, at its bound (the best fit would make it negative" in t for t in titles)
    assert not any(re.search(r"mu = \d\.\d+e-\d\d", t) for t in titles), titles


def test_a_parameter_with_nothing_to_fit_on_is_not_shown_as_a_value():
    titles = overall_titles(modelled(("pure-mpi",), mu=0.0))  # no hybrid point: nothing to fit mu on
    assert titles and all("mu not fitted (no point to fit it on)" in t for t in titles)
    assert not any("mu = 0" in t for t in titles)
    fitted = overall_titles(modelled(("pure-mpi", "hybrid-1"), mu=1e-6))[1]  # in-sample: all three determined
    values = dict(re.findall(r"(\w+) = ([\d.e+-]+) ±", fitted))
    assert {k: float(v) for k, v in values.items()} == pytest.approx({"phi": 1e-6, "alpha": 1e-6, "mu": 1e-6},
                                                                     rel=1e-3)


@pytest.mark.kernel
@pytest.mark.skipif(shutil.which("smpirun") is None, reason="SimGrid's smpirun is not installed")
def test_a_measured_study_stays_the_default_of_its_folder_and_a_simulated_one_is_named(tiny_study, md_binary):
    """After a simulated study (NAME-on-CLUSTER) is stored beside it, `report DIR` still reads the measured study;
    the simulated one is read when named, said to be simulated, and its page written beside the measured one's."""
    from hybridperf.simulate.backend import SimGridBackend
    from hybridperf.store.db import Store
    from hybridperf.study import spec as specs
    from hybridperf.study.run import run_study, Silent

    text = ("study: tiny-md-on-merlin\nkernel: md\nparams: {size: 8, steps: 2}\nconfigurations: [pure-mpi, hybrid-1]\n"
            f"nodes: [1]\nbackend: simgrid\nsimgrid: {{cluster: merlin, costs: thesis}}\nresults: {tiny_study}\n")
    study = specs.parse(text, cores_per_node=2)
    with Store(tiny_study) as store:
        run_study(study, store, SimGridBackend(study, tiny_study), Silent(), "sim.yaml")
    measured = json.loads(subprocess.run([*HYBRIDPERF, "report", str(tiny_study), "--json"], capture_output=True,
                                         text=True).stdout)
    assert measured["study"] == "tiny-md"
    named = subprocess.run([*HYBRIDPERF, "report", str(tiny_study), "--study", "tiny-md-on-merlin"],
                           capture_output=True, text=True)
    assert named.returncode == 0, named.stderr
    assert named.stdout.startswith("study tiny-md-on-merlin: simulated on merlin with SimGrid")
    assert (tiny_study / "report-merlin.html").exists() and not (tiny_study / "report.html").exists()


@pytest.mark.kernel
def test_without_a_one_core_run_the_terminal_says_the_speedups_are_relative(tmp_path, md_binary):
    spec = tmp_path / "s.yaml"
    spec.write_text(f"study: s\nkernel: md\nparams: {{size: 6, steps: 5}}\nconfigurations: [pure-mpi]\ncores: [2]\n"
                    f"repeats: 1\nresults: {tmp_path / 'r'}\n")
    done = subprocess.run([*HYBRIDPERF, "study", str(spec), "--no-report"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    html, terminal = report(tmp_path / "r")
    assert "no 1-core run, so speedups are relative to pure-mpi at 2 cores, taken as perfect" in \
        " ".join(terminal.split())
    loop_table = terminal.split("verdict")[0]
    assert "mean" in loop_table and "median" not in loop_table  # the column the speedup is made of


@pytest.mark.kernel
def test_at_80_columns_nothing_is_cut_and_no_table_is_wider(tiny_study):
    """The terminal answer and `cluster list` at COLUMNS=80, as piped output is: no cell cut with '…', no table
    line wider than 80, every cluster name whole (it is what --cluster takes)."""
    from hybridperf import cluster

    env = {**os.environ, "COLUMNS": "80"}
    for args in (["report", str(tiny_study)], ["report", str(tiny_study), "--section", "per-call"],
                 ["cluster", "list"]):
        out = subprocess.run([*HYBRIDPERF, *args], capture_output=True, text=True, env=env)
        assert out.returncode == 0, out.stderr
        assert "…" not in out.stdout, args
        tables = [line for line in out.stdout.splitlines() if set(line) & set("│┃─━┏┗")]
        assert all(len(line) <= 80 for line in tables), args
        assert tables or args[-1] == "per-call", args  # the fixture's runs have no per-call times
        if args[0] == "cluster":
            assert all(name in out.stdout for name in cluster.found())
