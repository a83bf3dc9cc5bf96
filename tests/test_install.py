"""`pip install` of the wheel (not editable) gives a hybridperf that works from any directory (issue 25): its cluster
presets, data and studies are package data, read from the installed package, and the kernels are found on PATH.

The wheel is built from a copy of the sources (setuptools would write its build/ into the kernels' build folder)
without build isolation, so no network is needed, and installed into a fresh venv. The fresh venv borrows the
test venv's dependencies through a .pth file naming its site-packages: a folder a .pth adds is not itself scanned
for .pth files, so the test venv's editable hybridperf is not picked up — the test asserts it is the installed copy
that runs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
RESOURCES = REPO / "python" / "hybridperf" / "resources"
PRESETS = ("cseem64t-gige", "cseem64t-infinipath", "ibm-sp", "merlin", "stella")


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path, dict[str, str]]:
    """(the fresh venv, the wheel, the environment of a user who installed it and put the kernels on PATH)."""
    tmp = tmp_path_factory.mktemp("install")
    source = tmp / "src"
    shutil.copytree(REPO / "python", source / "python",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    built = subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "--wheel-dir", str(tmp / "wheels"),
                            str(source)], capture_output=True, text=True, cwd=tmp)
    assert built.returncode == 0, f"no wheel (the test extra's setuptools>=77?): {built.stderr[-2000:]}"
    wheel = next((tmp / "wheels").glob("hybridperf-*.whl"))
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "test-venv-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([*pip, "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)], check=True,
                   capture_output=True, cwd=tmp)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HYBRIDPERF_", "PYTHON", "VIRTUAL_ENV"))}
    env |= {"PATH": f"{venv / 'bin'}:{REPO / 'build' / 'bin'}:{os.environ['PATH']}", "XDG_DATA_HOME": str(tmp / "xdg"),
            "COLUMNS": "250", "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    (tmp / "elsewhere").mkdir()
    return venv, wheel, env


def run(installed, *command: str) -> subprocess.CompletedProcess:
    """A command run as the user would, in a directory of theirs (neither the checkout nor the sources)."""
    venv, _, env = installed
    done = subprocess.run(list(command), capture_output=True, text=True, env=env, cwd=venv.parent / "elsewhere",
                          timeout=120)
    assert done.returncode == 0, f"{' '.join(command)}: {done.stderr[-2000:]}"
    return done


@pytest.mark.xdist_group("test_install.installed")  # installed is made once, on one worker
@pytest.mark.kernel
def test_the_wheel_holds_every_shipped_file(installed):
    shipped = {p.relative_to(RESOURCES.parents[1]).as_posix() for p in RESOURCES.rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    assert {"hybridperf/resources/clusters/merlin.yaml", "hybridperf/resources/data/dlpoly-table1.csv",
            "hybridperf/resources/data/potentials/dai-fs-2006.yaml", "hybridperf/resources/studies/local.yaml",
            "hybridperf/resources/studies/inputs/spce-water.tpr"} <= shipped
    with zipfile.ZipFile(installed[1]) as wheel:
        assert shipped - set(wheel.namelist()) == set()


@pytest.mark.xdist_group("test_install.installed")  # installed is made once, on one worker
@pytest.mark.kernel
def test_the_installed_copy_runs_and_reads_nothing_from_the_source_tree(installed):
    venv = installed[0]
    where = run(installed, str(venv / "bin" / "python"), "-c",
                "import hybridperf, hybridperf.resources as r\nfrom hybridperf.launch import kernels\n"
                "print(hybridperf.__file__); print(r.path('clusters')); print(kernels.checkout_build())").stdout.split()
    assert all(Path(p).is_relative_to(venv) for p in where[:2]) and where[2] == "None", where
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert run(installed, "hybridperf", "--version").stdout.strip() == f"hybridperf {version}"


@pytest.mark.xdist_group("test_install.installed")  # installed is made once, on one worker
@pytest.mark.kernel
def test_cluster_list_shows_the_installed_presets(installed):
    venv = installed[0]
    out = run(installed, "hybridperf", "cluster", "list").stdout
    shipped = next(w.strip("(;").rstrip(")") for w in out.split() if w.endswith("/hybridperf/resources/clusters"))
    assert Path(shipped).is_relative_to(venv)
    rows = {line.split()[0]: line.split()[-1] for line in out.splitlines() if line.split()}
    assert {name: rows.get(name) for name in PRESETS} == {name: "shipped" for name in PRESETS}


@pytest.mark.xdist_group("test_install.installed")  # installed is made once, on one worker
@pytest.mark.kernel
@pytest.mark.skipif(not shutil.which("smpirun"), reason="SimGrid's smpirun missing (apt-get install simgrid): "
                                                        "the simulated study cannot run")
def test_a_simulated_study_runs_from_another_directory(installed):
    out = run(installed, "hybridperf", "simulate", "local", "--cluster", "stella", "--cores", "8", "--steps", "2")
    assert "local-md-on-stella: 4 points simulated on Stella, 0 failed" in out.stdout
    assert (installed[0].parent / "elsewhere" / "results" / "local-md" / "results.db").is_file()


def test_kernels_are_found_by_variable_then_path_then_the_checkout(tmp_path, monkeypatch):
    """$HYBRIDPERF_BIN_DIR, then PATH, then the checkout's build/bin (development only); absent, one line says what
    to do."""
    from hybridperf.launch import kernels, pmpi

    env_dir, path_dir = tmp_path / "env", tmp_path / "path"
    for folder in (env_dir, path_dir):
        folder.mkdir()
        (folder / "hybridperf-md").write_text("#!/bin/sh\n")
        (folder / "hybridperf-md").chmod(0o755)
    assert kernels.checkout_build() == REPO / "build"
    monkeypatch.setenv("PATH", str(path_dir))
    monkeypatch.setenv("HYBRIDPERF_BIN_DIR", str(env_dir))
    assert kernels.kernel_path("md") == env_dir / "hybridperf-md" and pmpi.default_lib_dir() == tmp_path / "lib"
    monkeypatch.delenv("HYBRIDPERF_BIN_DIR")
    assert kernels.kernel_path("md") == path_dir / "hybridperf-md" and kernels.bin_dir() == path_dir
    assert kernels.kernel_path("spmv") == REPO / "build" / "bin" / "hybridperf-spmv"  # not on PATH: the checkout's
    monkeypatch.setattr(kernels, "checkout_build", lambda: None)
    with pytest.raises(kernels.KernelNotFound, match="^hybridperf-spmv not found on PATH: build the kernels .*"
                                                     "HYBRIDPERF_BIN_DIR$"):
        kernels.kernel_path("spmv")
