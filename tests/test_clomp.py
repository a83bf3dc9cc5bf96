"""hybridperf-clomp: CLOMP 1.2's inputs and conventions, its strict result check (which must fail when a
variant skips work), the reported figures, MPI mode, and the clomp study specs.

Runs are tiny (8 partitions x 1250 zones, timeScale 1: 100 iterations of 10 sweeps per variant) and go
through the project's own launcher; every profile is validated against the schema on loading.
"""

from __future__ import annotations

import itertools
import math
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conftest import CORES, kernel_binary
from hybridperf import profile
from hybridperf.launch import kernels, runner
from hybridperf.launch.lines import Configuration
from hybridperf.study import spec
from hybridperf.study.expand import expand

pytestmark = pytest.mark.kernel

REPO = Path(__file__).resolve().parents[1]
POSITIONAL = ["numThreads", "allocThreads", "numParts", "zonesPerPart", "zoneSize", "flopScale", "timeScale"]
SMALL = [-1, -1, 8, 1250, 32, 1, 1]
VARIANTS = ["serial_ref", "best_case", "for_static", "for_dynamic", "manual"]
CHECKED = ["serial_ref", "for_static", "for_dynamic", "manual"]
_counter = itertools.count()


@dataclass
class ClompRun:
    returncode: int
    stdout: str
    stderr: str
    profile: dict[str, Any] | None

    @property
    def clomp(self) -> dict[str, Any]:
        assert self.profile is not None, self.stderr
        return self.profile["clomp"]

    def failed(self) -> set[str]:
        assert self.profile is not None, self.stderr
        return set(profile.failed_checks(self.profile))


@pytest.fixture(scope="session")
def clomp_binary() -> Path:
    return kernel_binary("clomp")


@pytest.fixture
def run_clomp(tmp_path: Path, clomp_binary: Path):
    """run_clomp(args, ranks=1, threads=2) -> ClompRun, launched like every hybridperf run."""

    def run(args=SMALL, ranks: int = 1, threads: int = 2) -> ClompRun:
        path = tmp_path / f"clomp-{ranks}x{threads}-{next(_counter)}.json"
        config = Configuration(1, ranks, threads, CORES, oversubscribe=True)
        launch = runner.prepare("clomp", config, [str(a) for a in args], path)
        proc = subprocess.run(launch.command, env={**os.environ, **launch.env}, capture_output=True, text=True,
                              timeout=300)
        loaded = profile.load(path) if path.exists() else None
        return ClompRun(proc.returncode, proc.stdout, proc.stderr, loaded)

    return run


def deposit_constants(num_parts: int, zones: int) -> dict[str, float]:
    """One serial sweep with deposit 1/numParts, computed here: CLOMP's residue and error-bound constants."""
    deposit = 1.0 / num_parts
    total, bound, tight = 0.0, deposit, deposit
    for p in range(num_parts):
        ratio = (1.5 * num_parts + p) / (zones * num_parts)
        remaining = deposit
        for _ in range(zones):
            remaining -= remaining * ratio
        total += remaining
        bound = min(bound, remaining * ratio)
        tight = min(tight, remaining * ratio * ratio)
    return {"iteration_residue": total, "max_residue": total / (1 - total), "error_bound": bound,
            "tight_error_bound": tight}


def test_every_variant_passes_with_clomp_figures(run_clomp):
    run = run_clomp()
    assert run.returncode == 0, run.stderr
    prof, c = run.profile, run.clomp
    assert prof["status"] == "ok" and not run.failed()
    # CLOMP's calibration: iterations = ceil(1e6 timeScale / (zones flopScale)).
    assert c["iterations"] == math.ceil(1e6 / (8 * 1250)) == 100 and c["subcycles"] == 1000
    assert c["total_zones"] == 10000 and c["memory_bytes"] == 10000 * 32 + 8 * 64
    for key, value in deposit_constants(8, 1250).items():
        assert c[key] == pytest.approx(value, rel=1e-12), key
    # -1 conventions: numThreads is the OpenMP default (the launcher's 2), allocThreads follows it.
    assert prof["params"]["numThreads"] == -1 and prof["params"]["allocThreads"] == -1
    assert c["numThreads"] == 2 and c["allocThreads"] == 2 and prof["run"]["threads_per_rank"] == 2
    assert c["given"] == dict(zip(POSITIONAL, SMALL))
    # Every sweep deposits 1 in total: values + residues = number of sweeps; all variants bit-identical.
    sums = {v: c["variants"][v]["checksum"] for v in CHECKED}
    for v in CHECKED:
        assert sums[v]["total"] == pytest.approx(1000, abs=1e-5)
        assert sums[v] == sums["serial_ref"]
        assert c["variants"][v]["check_pass"] is True
    assert 0 < sums["serial_ref"]["residue"] <= c["max_residue"] + 1e-6
    # 5 checks for the reference, 7 for each of the other three, 1 (work) for the best case.
    assert len(prof["checks"]) == 5 + 3 * 7 + 1
    assert prof["checks"]["for_static.total"]["expected"] == 1000

    regions, variants = prof["regions"], c["variants"]
    serial, best = variants["serial_ref"]["runtime"], variants["best_case"]["runtime"]
    for v in ["calc_deposit", "omp_barrier", *VARIANTS]:
        seconds = variants[v]["runtime"]
        assert seconds == regions[v]["time"]["max"] and regions[v]["calls"] == 1
        assert variants[v]["us_per_loop"] == pytest.approx(1e6 * seconds / 1000, rel=1e-12)
    for v in VARIANTS:
        assert variants[v]["speedup"] == pytest.approx(serial / variants[v]["runtime"], rel=1e-12)
    for v in VARIANTS[1:]:
        assert variants[v]["efficacy_percent"] == pytest.approx(100 * best / variants[v]["runtime"], rel=1e-12)
        assert variants[v]["overhead_us_per_loop"] == pytest.approx(1e6 * (variants[v]["runtime"] - best) / 1000,
                                                                     rel=1e-9, abs=1e-9)
    assert variants["calc_deposit"]["speedup"] is None and variants["serial_ref"]["efficacy_percent"] is None
    assert variants["for_static"]["label"] == "Static OMP"
    parts = sum(regions[v]["time"]["max"] for v in regions if v != "total")
    assert parts == pytest.approx(regions["total"]["time"]["max"], rel=1e-9)
    assert profile.figure(prof, "loop_time") == regions["total"]["time"]["max"]
    assert profile.figure(prof, "for_static_speedup") == variants["for_static"]["speedup"]
    assert prof["comm"]["barrier"]["calls"] == 7  # one before each of the seven measurements
    assert run.stdout.count("PERF kernel=clomp ") == 1


@pytest.mark.parametrize(
    "variant,expected",
    [
        # The reference itself is short: its total is off, and every variant now differs from it.
        ("serial_ref", {"serial_ref.total", "serial_ref.updates", "for_static.first_values",
                        "for_dynamic.first_values", "manual.first_values"}),
        ("best_case", {"best_case.updates"}),
        ("for_static", {"for_static.first_values", "for_static.total", "for_static.updates"}),
        ("for_dynamic", {"for_dynamic.first_values", "for_dynamic.total", "for_dynamic.updates"}),
        ("manual", {"manual.first_values", "manual.total", "manual.updates"}),
    ],
)
def test_check_fails_when_a_variant_skips_one_partition_once(run_clomp, variant, expected):
    run = run_clomp([*SMALL, "--test-skip-work", variant])
    assert run.returncode == 3, run.stderr
    assert run.profile["status"] == "check-failed"
    assert run.failed() == expected
    # What the last partition (ratio (1.5 x 8 + 7) / (8 x 1250)) keeps of the first deposit, 1/8, is missing.
    if variant != "best_case":
        total = run.profile["checks"][f"{variant}.total"]["value"]
        assert 1000 - total == pytest.approx(0.125 * (1 - (1 - 19 / 10000) ** 1250), rel=1e-6)
    assert run.clomp["variants"][variant]["check_pass"] is False


def test_named_arguments_equal_positional_ones(run_clomp):
    values = [2, 1, 4, 2500, 32, 1, 1]
    positional = run_clomp(values, threads=1)
    # As a study spec passes them (--name value), one in the --name=value form.
    by_name = [f"--numThreads={values[0]}"] + [x for k, v in zip(POSITIONAL[1:], values[1:]) for x in (f"--{k}", v)]
    named = run_clomp(by_name, threads=1)
    assert positional.returncode == 0 and named.returncode == 0, positional.stderr + named.stderr
    params = [{k: run.profile["params"][k] for k in POSITIONAL} for run in (positional, named)]
    assert params[0] == params[1] == dict(zip(POSITIONAL, values))
    # An explicit numThreads overrides the launcher's OMP_NUM_THREADS, as in CLOMP, and the profile says so.
    for run in (positional, named):
        assert run.clomp["numThreads"] == 2 and run.clomp["allocThreads"] == 1
        assert run.profile["run"]["threads_per_rank"] == 2
        assert len(run.profile["run"]["affinity"][0]["threads"]) == 2
    assert positional.clomp["variants"]["manual"]["checksum"] == named.clomp["variants"]["manual"]["checksum"]


def test_results_do_not_depend_on_threads_or_allocation(run_clomp):
    one = run_clomp(threads=1)
    two = run_clomp([-1, 1, 8, 1250, 32, 1, 1], threads=2)
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    assert one.clomp["numThreads"] == 1 and two.clomp["allocThreads"] == 1
    assert one.clomp["variants"]["manual"]["checksum"] == two.clomp["variants"]["manual"]["checksum"]


def test_more_threads_than_partitions_and_small_zones(run_clomp):
    run = run_clomp([-1, -1, 1, 5000, 8, 2, 1], threads=2)
    assert run.returncode == 0, run.stderr
    c = run.clomp
    assert c["zoneSize"] == 32 and c["given"]["zoneSize"] == 8  # raised to the zone's 32 bytes, as CLOMP does
    assert c["iterations"] == 100  # ceil(1e6 / (5000 zones x flopScale 2))
    assert "threads 1 and up have no partition" in run.stdout
    assert c["variants"]["manual"]["checksum"]["total"] == pytest.approx(1000, abs=1e-5)
    assert run_clomp([-1, -1, 2, 5000, 33, 1, 1], threads=1).clomp["zoneSize"] == 40  # 8-byte aligned stride


def test_every_rank_runs_clomp_and_rank0_reports(run_clomp):
    run = run_clomp(ranks=2, threads=1)
    assert run.returncode == 0, run.stderr
    prof, variants, regions = run.profile, run.clomp["variants"], run.profile["regions"]
    assert prof["run"]["ranks"] == 2 and prof["comm"]["barrier"]["calls"] == 14
    # CLOMP's MPI rule: the fastest rank for serial_ref and best_case, the slowest for the others.
    for v in ["serial_ref", "best_case"]:
        assert variants[v]["runtime"] == regions[v]["time"]["min"] and variants[v]["runtime_over_ranks"] == "min"
        assert variants[v]["rank"] == regions[v]["time"]["min_rank"]
    for v in ["for_static", "for_dynamic", "manual"]:
        assert variants[v]["runtime"] == regions[v]["time"]["max"] and variants[v]["runtime_over_ranks"] == "max"
    assert run.stdout.count("PERF kernel=clomp ") == 1 and "ranks=2" in run.stdout


def test_options_help_and_version(clomp_binary):
    options = kernels.options("clomp")
    positional = [o for o in options if o["positional"]]
    assert [o["name"] for o in positional] == POSITIONAL
    assert all(o["required"] and o["default"] is None and o["type"] == "int" for o in positional)
    skip = next(o for o in options if o["name"] == "test-skip-work")
    assert skip["default"] == "none" and not skip["positional"] and "TEST ONLY" in skip["help"]
    help_text = subprocess.run([str(clomp_binary), "--help"], capture_output=True, text=True, check=True).stdout
    assert "numThreads allocThreads numParts zonesPerPart zoneSize flopScale timeScale" in help_text
    assert "arguments (in this order, or each as --NAME VALUE):" in help_text
    version = subprocess.run([str(clomp_binary), "--version"], capture_output=True, text=True, check=True).stdout
    assert version.startswith("hybridperf-clomp ")


@pytest.mark.parametrize("path", sorted((REPO / "studies").glob("clomp-*.yaml")), ids=lambda p: p.name)
def test_study_specs_expand_to_complete_clomp_command_lines(clomp_binary, path):
    study = spec.load(path, cores_per_node=2)
    plans = expand(study)
    assert study.kernel == "clomp" and plans
    for plan in plans:
        args = plan.kernel_args()
        assert all(f"--{name}" in args for name in POSITIONAL), args
        assert plan.threads * plan.ranks_per_node <= 2
