"""The benchmarks' bookkeeping (bench/common.py, bench/tables.py) on synthetic run files: declared repeats and
series, pooling only what was declared together, verdicts from the files alone, and the generated blocks of
the docs. No timing is judged here: the samples are made up, and the verdicts follow from them."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parents[1]
sys.path.insert(0, str(REPO / "bench"))

import common  # noqa: E402
import tables  # noqa: E402


def write_run(directory: Path, started: str, ours: list[float], peer: list[float], series=None, size=None) -> None:
    """A mixbench_vs_pingpong run file with the given one-way times at 8 B (1 MiB alike)."""
    document = {
        "format": common.FORMAT, "bench": "mixbench_vs_pingpong",
        "declared": {"repeats": len(ours), "series": series, "series_size": size, "arguments": [], "seed": 1},
        "started": started, "finished": started, "machine": {"before": {}, "after": {}}, "order": [], "notes": [],
        "samples": {"ours": [{"8": t, "1048576": 1e-4} for t in ours],
                    "plain": [{"8": t, "1048576": 1e-4} for t in peer]},
    }
    (directory / f"mixbench_vs_pingpong-{started.replace(':', '')}.json").write_text(json.dumps(document))


@pytest.fixture
def runs_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(common, "RUNS", tmp_path)
    monkeypatch.setattr(common, "load_runs", lambda bench, directory=tmp_path: _load(bench, directory))
    return tmp_path


_load = common.load_runs


def latency_words(sets):
    return [s.rows[0].judgement.word for s in sets]


def test_each_run_is_judged_alone_unless_declared_as_a_series(runs_dir):
    same = [1.0e-6, 1.01e-6, 0.99e-6, 1.0e-6, 1.02e-6]
    write_run(runs_dir, "2026-01-01T00:00:00", same, same)                               # within
    write_run(runs_dir, "2026-01-02T00:00:00", [2e-6] * 3 + [2.1e-6] * 2, same)          # differs: twice as slow
    write_run(runs_dir, "2026-01-03T00:00:00", [1.1e-6, 0.7e-6], [1.0e-6, 1.3e-6])       # too few to bound
    sets = tables.judge("mixbench_vs_pingpong")
    assert latency_words(sets) == ["within", "differs", "undecided"]
    assert [len(s.runs) for s in sets] == [1, 1, 1]


def test_a_declared_series_is_pooled_only_when_complete(runs_dir):
    noisy = [1.5e-6, 0.6e-6, 1.4e-6]
    write_run(runs_dir, "2026-02-01T00:00:00", noisy, [1.0e-6, 1.1e-6, 0.9e-6], "s", 2)
    alone = tables.judge("mixbench_vs_pingpong")
    assert len(alone) == 1 and "1 of 2 runs present, judged alone" in alone[0].label
    write_run(runs_dir, "2026-02-02T00:00:00", noisy, [1.0e-6, 1.1e-6, 0.9e-6], "s", 2)
    [both] = tables.judge("mixbench_vs_pingpong")
    assert len(both.runs) == 2 and both.label.startswith("series s (2 runs")


def test_generated_blocks_are_rewritten_from_the_run_files(runs_dir, tmp_path):
    same = [1.0e-6, 1.01e-6, 0.99e-6, 1.0e-6, 1.02e-6]
    write_run(runs_dir, "2026-03-01T00:00:00", same, same)
    doc = tmp_path / "doc.md"
    doc.write_text("before\n<!-- generated: mixbench_vs_pingpong -->\ntyped by hand\n<!-- end generated -->\nafter\n")
    tables.rewrite(doc, {"mixbench_vs_pingpong": tables.markdown("mixbench_vs_pingpong")})
    text = doc.read_text()
    assert "typed by hand" not in text and text.startswith("before\n") and text.endswith("after\n")
    assert "| latency 8 B (one way) |" in text and "**within**" in text and "2 of 2 within" in text


def test_references_declare_every_bench_and_systems_may_override(tmp_path):
    for bench in tables.BENCHES:
        entry = common.references(bench)
        assert entry["repeats"] >= 1 and entry["figures"]
    custom = tmp_path / "refs.yaml"
    custom.write_text("confidence: 0.9\nsystems:\n  'Quiet Xeon*':\n    md_vs_lammps:\n      repeats: 15\n"
                      "      figures: {instrumentation: [null, 1.01]}\n  '*':\n    md_vs_lammps:\n      repeats: 5\n"
                      "      figures: {instrumentation: [null, 1.02]}\n")
    assert common.references("md_vs_lammps", custom, ("Quiet Xeon 9000", "node1"))["repeats"] == 15
    assert common.references("md_vs_lammps", custom, ("AMD EPYC", "vm"))["figures"]["instrumentation"].high == 1.02


@pytest.mark.kernel
@pytest.mark.parametrize("script,variable,peer", [("clomp_vs_clomp12.py", "CLOMP_REF", "CLOMP 1.2"),
                                                  ("mixbench_chain_vs_imb.py", "HYBRIDPERF_IMB", "IMB-MPI1")])
def test_a_bench_without_its_peer_skips_with_a_message(script, variable, peer):
    out = subprocess.run([sys.executable, str(REPO / "bench" / script), "--repeats", "1"],
                         env={"PATH": "/usr/bin:/bin", variable: ""}, capture_output=True, text=True)
    assert out.returncode == 0 and f"{peer} ({variable}) not available: skipped" in out.stdout


@pytest.mark.kernel
def test_arraybench_says_which_epcc_programs_are_missing(tmp_path):
    """EPCC compiles one arraybench per array size: absent variable, or a folder without the sizes asked for, is a
    skip that names what to build; a size EPCC does not build is a usage error."""
    script = [sys.executable, str(REPO / "bench" / "arraybench_vs_epcc.py"), "--repeats", "1"]
    out = subprocess.run(script, env={"PATH": "/usr/bin:/bin", "EPCC_BENCH_DIR": ""}, capture_output=True, text=True)
    assert out.returncode == 0 and "EPCC v4 (EPCC_BENCH_DIR) not available: skipped" in out.stdout
    assert "arraybench_1, arraybench_3, arraybench_9," in out.stdout and "arraybench_59049." in out.stdout
    (tmp_path / "arraybench_27").write_text("")
    out = subprocess.run([*script, "--sizes", "27,729"], env={"PATH": "/usr/bin:/bin", "EPCC_BENCH_DIR": str(tmp_path)},
                         capture_output=True, text=True)
    assert out.returncode == 0 and f"EPCC_BENCH_DIR={tmp_path} has no arraybench_729: skipped" in out.stdout
    out = subprocess.run([*script, "--sizes", "27,28"], capture_output=True, text=True)
    assert out.returncode == 2 and "--sizes: 28 is not one of EPCC's sizes 1, 3, 9," in out.stderr


def test_epcc_overhead_lines_name_the_construct_and_size_as_ours():
    import ompbench_vs_epcc
    text = ("COPYIN 729 overhead     = 1.857 microseconds +/- 0.2\n"
            "COPYIN 729 median_ovrhd = 1.8 microseconds \nPARALLEL overhead = 0.61 microseconds +/- 0.05\n")
    assert ompbench_vs_epcc.overheads(text) == {"COPYIN_729": 1.857, "PARALLEL": 0.61}


@pytest.mark.kernel
def test_series_options_go_together():
    out = subprocess.run([sys.executable, str(REPO / "bench" / "clomp_vs_clomp12.py"), "--series", "x"],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "--series NAME and --series-size K" in out.stderr


def test_tables_state_n_and_what_would_decide_an_undecided_figure(runs_dir):
    same = [1.0e-6, 1.01e-6, 0.99e-6, 1.0e-6, 1.02e-6, 1.0e-6, 1.0e-6]
    noisy = [1.0e-6, 1.3e-6, 0.8e-6, 1.2e-6, 0.75e-6, 1.05e-6, 1.1e-6]  # 7 rounds of each
    write_run(runs_dir, "2026-04-01T00:00:00", noisy, same)
    [judged] = tables.judge("mixbench_vs_pingpong")
    latency, bandwidth = (r.judgement for r in judged.rows[:2])
    assert (latency.word, latency.n, latency.noise_text(), latency.runs_to_decide()) == ("undecided", 7, "±19%", 27)
    text = tables.table(judged)
    assert "| figure | ours | reference | n | ratio [90% interval] | target | verdict |" in text
    assert "| 7 | 1.05 [0.808, 1.2] | 0.85–1.15 | **undecided** (±19% at n=7; ~27 rounds would decide) |" in text
    assert bandwidth.word == "within" and "| 7 | 1 [1, 1] | 0.85–1.15 | **within** |" in text
    assert "| osu_latency" not in text  # no peer run: no information row
    line = tables.summary_line("mixbench_vs_pingpong")
    assert line.endswith(": 1 of 2 within, 1 undecided, 0 differ — latency 8 B (one way) 1.05 [0.808, 1.2] undecided "
                         "(target 0.85–1.15) (±19% at n=7; ~27 rounds would decide).")


def test_an_unbounded_or_exact_figure_says_so():
    from hybridperf.analysis.verdicts import Band, judge_interval, judge_ratio, judge_value
    assert tables.undecided_note(judge_ratio([1.0], [2.0], Band(0.85, 1.15))) == "interval unbounded at n=1"
    on_edge = judge_interval(1.15, 1.1, 1.2, Band(0.85, 1.15), n=9)
    assert tables.verdict_cell(on_edge) == ("**undecided** (±4.3% at n=9; the estimate sits on the band's edge: "
                                            "no number of rounds within reach would decide)")
    assert tables.undecided_note(judge_value(688.0, Band(high=1024))) == ""
    assert tables.samples(judge_value(688.0, Band(high=1024))) == "exact"
    assert tables.samples(judge_interval(1.0, 0.9, 1.1, Band(), n=3)) == "3"
