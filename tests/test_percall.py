"""Per-call time distributions (kernels/common/hp_calltimes.h, analysis.percall, report.percall_table): the
histograms count every call exactly, percentiles lie within their stated bin bounds, the heavy-tail flag follows its
declared rule, profiles written before the histograms still load, and the report shows and flags them."""

import json
import math
import random
import subprocess
import sys

import pytest

from conftest import run_kernel_in
from hybridperf import profile
from hybridperf.analysis import percall
from hybridperf.analysis.percall import Bounded

HYBRIDPERF = [sys.executable, "-m", "hybridperf"]
EDGES = [1e-7 * 10 ** (k / 4) for k in range(37)]  # the kernels' bin edges (hp_calltimes.c), to within rounding


def per_call(durations):
    """A profile's per_call member for these call times, binned as the kernels bin them."""
    counts = {}
    for d in durations:
        k = sum(d >= e for e in EDGES)
        counts[k] = counts.get(k, 0) + 1
    bins = [{"min_seconds": 0.0 if k == 0 else EDGES[k - 1], "max_seconds": EDGES[k] if k < len(EDGES) else None,
             "count": n} for k, n in sorted(counts.items())]
    return {"count": len(durations), "sum": sum(durations), "min": min(durations), "max": max(durations),
            "bins": bins}


def calls(durations):
    return percall.of({"per_call": per_call(durations)})


SPIKY = [2e-6] * 90 + [5e-3] * 10  # Chow & Hysom's shape: most calls fast, a few two thousand times slower


def test_percentiles_are_their_bins_narrowed_by_the_extremes():
    t = calls(SPIKY)
    assert percall.percentile(t, 0.5) == Bounded(2e-6, EDGES[6])  # [1.78, 3.16) µs, from the fastest call up
    assert percall.percentile(t, 0.9) == Bounded(2e-6, EDGES[6])  # the 90th call is still a fast one
    assert percall.percentile(t, 0.99) == Bounded(EDGES[18], 5e-3)  # [3.16, 5.62) ms, up to the slowest call
    assert percall.percentile(t, 0.91) == Bounded(EDGES[18], 5e-3)  # the 91st is the first slow one
    tail = percall.tail("exchange", t)
    assert tail.ratio.low == pytest.approx(EDGES[18] / EDGES[6]) == pytest.approx(1000)
    assert tail.ratio.high == pytest.approx(5e-3 / 2e-6)
    assert tail.heavy is True


@pytest.mark.parametrize("seed", range(5))
def test_the_nearest_rank_percentile_lies_within_its_bounds(seed):
    rng = random.Random(seed)
    durations = [math.exp(rng.uniform(math.log(1e-7), math.log(1.0))) for _ in range(rng.randint(1, 400))]
    t, ordered = calls(durations), sorted(durations)
    for q in (0.01, 0.25, 0.5, 0.9, 0.99, 1.0):
        b, exact = percall.percentile(t, q), ordered[max(1, math.ceil(q * len(ordered))) - 1]
        assert b.low <= exact <= b.high
        assert b.high / b.low <= 10 ** 0.25 * (1 + 1e-12)  # never wider than one bin
    assert percall.sorted_calls(t)[-1].high == max(durations)  # Fig. 3's last point is the slowest call


def test_the_heavy_tail_rule():
    assert percall.tail("x", calls(SPIKY[1:])).heavy is None  # 99 calls: p99 would be the slowest call
    narrow = calls([2e-6] * 95 + [1.5e-5] * 5)  # p99 within a decade of p50 (7.5 x): not heavy
    assert percall.tail("x", narrow).heavy is False
    # Just over a decade apart, but the bins cannot prove the ratio is above 10: not flagged.
    near = percall.tail("x", calls([2e-6] * 95 + [2.5e-5] * 5))
    assert near.ratio.low < percall.HEAVY_TAIL < near.ratio.high and near.heavy is False
    # p50 in the bin below 1 µs, p99 in the one from 10 µs: a decade exactly at the bounds, which is not above it.
    decade = percall.tail("x", calls([0.9e-6] * 98 + [1.2e-5] * 2))
    assert decade.ratio.low == pytest.approx(10) and decade.heavy is False


def test_runs_merge_bin_by_bin():
    merged = percall.merge([calls(SPIKY), calls([2e-6] * 10 + [200.0])])
    assert merged.count == 111 and merged.fastest == 2e-6 and merged.slowest == 200.0
    assert {(b.low, b.count) for b in merged.bins} == {(EDGES[5], 100), (EDGES[18], 10), (EDGES[36], 1)}
    assert merged.bins[-1].high == math.inf  # the last bin, 100 s and over, is open (null in the profile)


@pytest.mark.kernel
def test_a_profile_from_before_the_histograms_loads_and_has_none(tiny_study):
    """The committed tiny-md profiles predate per_call: they validate, and nothing is made up for them."""
    paths = sorted((tiny_study / "profiles").glob("*.json"))
    assert paths
    for path in paths:
        p = profile.load(path)
        assert "per_call" not in p["comm"]["p2p"] and percall.subjects(p) == {}
    assert percall.tails([profile.load(p) for p in paths]) == []
    out = subprocess.run([*HYBRIDPERF, "report", str(tiny_study), "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert all(s["per_call"]["points"] == [] for s in json.loads(out.stdout)["sections"])
    assert "id='per-call'" not in subprocess.run([*HYBRIDPERF, "report", str(tiny_study)], capture_output=True,
                                                 text=True).stdout + (tiny_study / "report.html").read_text()


@pytest.mark.kernel
def test_the_report_shows_sorted_calls_and_flags_heavy_tails_by_configuration(tiny_study):
    """Pure MPI's halo exchange given Chow & Hysom's spikes, the hybrid's a narrow spread: the page draws both,
    and the terminal, the page and --json flag pure MPI alone."""
    for path in (tiny_study / "profiles").glob("*.json"):
        p = json.loads(path.read_text())
        pure = p["run"]["ranks"] == 2
        p["regions"]["halo_exchange"]["per_call"] = per_call(SPIKY if pure else [2e-6] * 100)
        path.write_text(json.dumps(p))
    summary = subprocess.run([*HYBRIDPERF, "report", str(tiny_study)], capture_output=True, text=True)
    assert summary.returncode == 0, summary.stderr  # the answer says where the table is, and how many tails
    assert "heavy tail:" not in summary.stdout and "per-call times (1 heavy tail(s) flagged): hybridperf report" in \
        summary.stdout and "--section per-call" in summary.stdout
    out = subprocess.run([*HYBRIDPERF, "report", str(tiny_study), "--section", "per-call"], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    heavy = [line for line in out.stdout.splitlines() if line.startswith("heavy tail:")]
    assert len(heavy) == 2 and all(line.startswith("heavy tail: pure-mpi at 2 cores: halo_exchange") for line in heavy)
    page = (tiny_study / "report.html").read_text()
    assert "id='per-call'" in page and page.count("a heavy tail (above 10×)") == 2
    sections = json.loads(subprocess.run([*HYBRIDPERF, "report", str(tiny_study), "--json"], capture_output=True,
                                         text=True).stdout)["sections"]
    for s in sections:
        flags = {(p["configuration"], p["cores"]): p["timed"][0]["heavy_tail"] for p in s["per_call"]["points"]}
        assert flags == {("pure-mpi = hybrid-1", 1): False, ("pure-mpi", 2): True, ("hybrid-1", 2): False}
        pure = next(p for p in s["per_call"]["points"] if p["configuration"] == "pure-mpi")["timed"][0]
        assert pure["calls"] == 3 * 100 and pure["p99"] == {"low": pytest.approx(EDGES[18]), "high": 5e-3}
        assert len(pure["sorted"]) == 100 and pure["sorted"][-1]["high"] == 5e-3


@pytest.mark.kernel
def test_every_call_is_in_the_kernels_histograms(tmp_path):
    """spmv on 2 ranks: per call of the product, each rank posts one Isend, one Irecv and one Waitall and times one
    exchange; the histograms hold exactly those calls, from every rank, and add up to the class's time."""
    n_calls, ranks = 7, 2
    run = run_kernel_in(tmp_path, "spmv", ranks, 1, ["-n", 4, "--calls", n_calls, "--mode", "mpi"])
    assert run.returncode == 0, run.stderr
    p2p = run.profile["comm"]["p2p"]
    assert p2p["calls"] == p2p["per_call"]["count"] == ranks * n_calls * 3
    assert sum(b["count"] for b in p2p["per_call"]["bins"]) == p2p["per_call"]["count"]
    assert p2p["per_call"]["sum"] == pytest.approx(ranks * p2p["time"]["avg"], rel=1e-9)
    assert p2p["per_call"]["min"] <= p2p["per_call"]["max"] <= ranks * p2p["time"]["max"]
    assert run.profile["regions"]["exchange"]["per_call"]["count"] == ranks * n_calls
    assert "per_call" not in run.profile["comm"]["barrier"]  # no call, no histogram
    assert "per_call" not in run.profile["regions"]["total"]  # set once from the loop's clock, not timed per call
    for b in p2p["per_call"]["bins"]:
        assert any(b["min_seconds"] == pytest.approx(e, rel=1e-15) for e in [0.0, *EDGES])
