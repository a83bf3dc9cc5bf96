"""Shared helpers: run hybridperf-md through the project's own launcher and load its profile.

Every profile a test produces is loaded with hybridperf.profile.load, which validates it against
the shipped JSON Schema, so every kernel output in the suite is schema-checked.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

from hybridperf import profile
from hybridperf.launch import kernels, runner
from hybridperf.launch.lines import Configuration
from hybridperf.launch.machine import local_machine

CORES = local_machine().cores
_counter = itertools.count()
# When a rank exits with an error, Open MPI's mpirun gives the others a grace period (SIGTERM, then SIGKILL a
# second later) before it returns: 2.3 s for every refused run. The tests of refusals need no grace period.
os.environ.setdefault("OMPI_MCA_odls_base_sigkill_timeout", "0")
# The two test workers' mpiruns race to create Open MPI's one session directory under /tmp (/tmp/ompi.HOST.UID: a CI
# run failed in orte_init, "mkdir ... File exists"); each worker process gets its own. The workers inherit the
# controller's environment, so a folder made here says whose it is: a worker makes another (a user's stays).
_OWNER = "HYBRIDPERF_TEST_OMPI_TMPDIR_OWNER"
if "OMPI_MCA_orte_tmpdir_base" not in os.environ or os.environ.get(_OWNER, str(os.getpid())) != str(os.getpid()):
    os.environ["OMPI_MCA_orte_tmpdir_base"] = tempfile.mkdtemp(prefix="hybridperf-ompi-")
    os.environ[_OWNER] = str(os.getpid())
    atexit.register(shutil.rmtree, os.environ["OMPI_MCA_orte_tmpdir_base"], ignore_errors=True)


@dataclass
class KernelRun:
    returncode: int
    stdout: str
    stderr: str
    profile: dict[str, Any] | None
    profile_path: Path

    def thermo(self, step: int = -1) -> dict[str, float]:
        assert self.profile is not None, self.stderr
        return self.profile["md"]["thermo"][step]


def run_kernel_in(tmp_path: Path, kernel: str, ranks: int = 1, threads: int = 1,
                  args: tuple[str, ...] | list[str] = (), wait_policy: str | None = None) -> KernelRun:
    """Runs a kernel through the project's own launch line; the profile (if any) is schema-checked."""
    path = tmp_path / f"{kernel}-{ranks}x{threads}-{next(_counter)}.json"
    config = Configuration(1, ranks, threads, CORES, oversubscribe=True, wait_policy=wait_policy)
    launch = runner.prepare(kernel, config, [str(a) for a in args], path)
    proc = subprocess.run(
        launch.command, env={**os.environ, **launch.env}, capture_output=True, text=True, timeout=600
    )
    loaded = profile.load(path) if path.exists() else None
    return KernelRun(proc.returncode, proc.stdout, proc.stderr, loaded, path)


def run_md_in(tmp_path: Path, ranks: int = 1, threads: int = 1, args: tuple[str, ...] | list[str] = ()) -> KernelRun:
    return run_kernel_in(tmp_path, "md", ranks, threads, args)


def kernel_binary(kernel: str) -> Path:
    """The built kernel; the test fails, saying how to build it, when there is none."""
    try:
        return kernels.kernel_path(kernel)
    except kernels.KernelNotFound as err:
        pytest.fail(f"{err} (run `make test`, which builds it)")


@pytest.fixture(scope="session")
def md_binary() -> Path:
    return kernel_binary("md")


@pytest.fixture
def run_md(tmp_path: Path, md_binary: Path) -> Callable[..., KernelRun]:
    """run_md(ranks, threads, args) -> KernelRun, with the profile validated against the schema."""
    return lambda ranks=1, threads=1, args=(): run_md_in(tmp_path, ranks, threads, args)


def lammps_run(lmp: str, setup: str, steps: int, workdir: Path, name: str) -> str:
    """LAMMPS's output for `setup` (everything up to the run) followed by the thermo lines the golden files'
    `thermo` reads (every quantity at full precision, per atom) and `run steps`."""
    script = workdir / f"in.{name}"
    script.write_text(setup + f"""thermo_style custom step temp pe ke etotal press
thermo_modify norm yes format float %.16g
run {steps}
""")
    return subprocess.run([lmp, "-in", str(script), "-log", "none"], capture_output=True, text=True, cwd=workdir,
                          check=True).stdout


def cpu_has_avx512() -> bool:
    try:
        return "avx512f" in Path("/proc/cpuinfo").read_text().split()
    except OSError:
        return False


def relative(a: float, b: float) -> float:
    return abs(a - b) / abs(b)


FIXTURES = Path(__file__).parent / "fixtures"


def runs(results: Path) -> list[dict]:
    """A study's counted runs (its warm-ups left out) as stored rows, by ranks, then threads."""
    db = sqlite3.connect(results / "results.db")
    db.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in db.execute("SELECT * FROM runs WHERE warmup = 0 ORDER BY ranks, threads")]
    finally:
        db.close()


def stored_fixture(name: str, results: Path) -> Path:
    """A results directory holding the committed study `tests/fixtures/NAME/` (made by make_fixtures.py), built
    through the store's own API: analysis, model and report tests read a real study without running one."""
    from hybridperf.store.db import RunRecord, Store

    source = FIXTURES / name
    data = json.loads((source / "study.json").read_text())
    shutil.copytree(source / "profiles", results / "profiles")
    spec = {**data["spec"], "results": str(results)}
    with Store(results) as store:
        store.save_study(spec["name"], spec["kernel"], spec, f"tests/fixtures/{name}", "2026-11-23T00:00:00")
        store.start_campaign(spec["name"], spec, 0, {}, "2026-11-23T00:00:00")
        store.end_campaign(spec["name"], 1, "decided", "2026-11-23T00:01:00")
        for run in data["runs"]:
            path = results / run["profile_path"] if run["profile_path"] else None
            fields = {k: v for k, v in run.items() if k != "profile_path"}
            fields["configurations"] = tuple(fields["configurations"])
            store.add_run(RunRecord(**fields, profile=json.loads(path.read_text()) if path else None,
                                    profile_path=path))
    return results


@pytest.fixture
def tiny_study(tmp_path: Path) -> Path:
    """A results directory with the committed tiny-md study (md, 2,048 and 6,912 atoms, 1 and 2 cores, 3 repeats)."""
    return stored_fixture("tiny-md", tmp_path / "tiny-md")


# ---------------------------------------------------------------- the tiers (pyproject.toml's markers)
TIERS = ("unit", "kernel", "external")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test of no tier is a unit test; an external one is never also a kernel one in a tier's count."""
    for item in items:
        marked = [t for t in TIERS if item.get_closest_marker(t)]
        if not marked:
            item.add_marker(pytest.mark.unit)
        elif len(marked) > 1:
            raise pytest.UsageError(f"{item.nodeid}: marked {' and '.join(marked)}; a test has one tier")


class StartedAProcess(AssertionError):
    """A unit test started a process: it belongs to the kernel tier (our binaries, our commands) or the external
    one (another project's program)."""


def _refusing(item: pytest.Item) -> Callable[..., None]:
    def refuse(self, args, *rest, **kwargs):
        raise StartedAProcess(f"{item.nodeid} is a unit test and started {args!r}: mark it @pytest.mark.kernel (or "
                              "external: LAMMPS, GROMACS, Slurm, NPB, Extra-P)")
    return refuse


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    """The unit tier's promise, kept: any process a unit test starts — in its fixtures too, a module's made for it
    included (subprocess, and so mpirun, smpirun, a kernel or `python -m hybridperf`) — fails it, naming the tier
    it belongs to. What a kernel test asked a binary before (kernels' caches) must not hide that this one asks."""
    with _no_process_if_unit(item):
        if item.get_closest_marker("unit"):
            for cached in (kernels.options, kernels.build_info, kernels.launcher_for, kernels.check_decomposition):
                cached.cache_clear()
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):
    with _no_process_if_unit(item):
        yield


@contextlib.contextmanager
def _no_process_if_unit(item: pytest.Item):
    if item.get_closest_marker("unit") is None:
        yield
        return
    original = subprocess.Popen.__init__
    subprocess.Popen.__init__ = _refusing(item)
    try:
        yield
    finally:
        subprocess.Popen.__init__ = original
