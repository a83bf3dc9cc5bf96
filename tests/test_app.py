"""Studies of the user's own program (kernel: app): the app: block, LAMMPS's output read, every run stored with
its figures and its own timing table, the report written, and bad input as one clear line or a failed run."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import runs
from test_pmpi import compile_program, LIBOMP
from hybridperf.analysis import pop
from hybridperf.app.parsers import lammps_regions
from hybridperf.study import spec

HYBRIDPERF = [sys.executable, "-m", "hybridperf"]
REPO = Path(__file__).resolve().parents[1]
INPUT = REPO / "studies" / "inputs" / "lj-melt.lmp"
needs_lammps = pytest.mark.skipif(shutil.which("lmp") is None, reason="LAMMPS (lmp) not installed: apt-get install "
                                                                      "lammps")


def app_spec(results: Path, app: str, params: str = "cells: 1\n  steps: 40", cores: str = "[1, 2]") -> str:
    return (f"study: lj\nkernel: app\napp:\n{app}\nparams:\n  {params}\nconfigurations: [pure-mpi]\n"
            f"cores: {cores}\nrepeats: 1\nresults: {results}\n")


LAMMPS = f"""  command: [lmp, -in, {INPUT}, -var, cells, "{{cells}}", -var, steps, "{{steps}}", -log, none]
  parser: lammps
  profile_mpi: false"""


def study(path: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([*HYBRIDPERF, "study", str(path), *extra], capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("app, message", [
    ("  command: lmp -in in.lj", "command is the program and its arguments as a YAML list"),
    ("  command: [lmp, '{size}']\n  parser: lammps", "placeholder {size} is neither"),
    ("  command: [lmp]\n  parser: lammps\n  colour: red", "unknown app key 'colour'"),
    ("  command: [lmp]\n  parser: lamps", "unknown parser 'lamps': ready-made are lammps, gromacs, npb-mz (did you "
                                          "mean 'lammps'?)"),
    ("  command: [lmp, '{cels}']\n  parser: lammps", "nor a study parameter (did you mean {cells}?)"),
    ("  command: [lmp]\n  figures:\n    t: {regex: 'took (\\d+)'}", "needs a named group (?P<value>"),
    ("  command: [lmp]\n  figures:\n    t: {regex: 'took ('}", "not a valid regular expression"),
    ("  command: [lmp]\n  launch: slurm\n  parser: lammps", "launch must be mpi or self"),
    ("  command: [lmp]\n  launch: self\n  parser: lammps\n  profile_mpi: true", "profile_mpi needs launch: mpi"),
    ("  command: [lmp]", "no figures"),
    ("  command: [lmp]\n  parser: lammps\n  env: [LD_LIBRARY_PATH]", "env is a mapping of variable names"),
    ("  command: [lmp]\n  parser: lammps\n  env:\n    LIB: '{prefix}/lib'", "placeholder {prefix} is neither"),
    ("  command: [lmp]\n  launch: self\n  parser: lammps\n  launcher: mpiexec", "with launch: mpi only"),
    ("  command: [lmp]\n  parser: lammps\n  regions:\n    force: 'force (\\S+)'", "(?P<value>...) or (?P<avg>...)"),
    ("  command: [lmp]\n  parser: lammps\n  regions:\n    halo: {regex: 'h (?P<value>\\S+)', communication: 1}",
     "communication must be true or false"),
    ("  command: [lmp]\n  parser: lammps\n  regions:\n    total: 'all (?P<value>\\S+)'", "is hybridperf's own"),
    ("  command: [lmp]\n  parser: lammps\n  figures:\n    wall: 'wall (?P<value>\\S+)'\n  loop_time: wall",
     "a figure is named loop_time, so it is the run's time"),
    ("  command: [lmp]\n  parser: lammps\n  env:\n    LIB: '/opt/{lib'", "bad placeholder"),
    ("  command: [lmp]\n  parser: lammps\n  trace: 1", "trace must be true or false"),
    ("  command: [lmp]\n  launch: self\n  parser: lammps\n  trace: true", "trace: true needs launch: mpi"),
    ("  command: [lmp]\n  parser: lammps\n  profile_mpi: false\n  trace: true", "trace: true needs profile_mpi: true"),
    ("  command: [lmp]\n  parser: lammps\n  openmp_runtime: libgomp", "openmp_runtime must be libomp"),
    ("  command: [lmp]\n  launch: self\n  parser: lammps\n  openmp_runtime: libomp",
     "openmp_runtime needs profile_mpi: true"),
])
def test_bad_app_blocks_name_their_line(tmp_path, app, message):
    with pytest.raises(spec.SpecError) as err:
        spec.parse(app_spec(tmp_path, app, params="cells: 1"), "s.yaml", cores_per_node=2)
    assert message in str(err.value) and str(err.value).startswith("s.yaml:")


def test_lammps_timing_table_becomes_regions():
    text = """Loop time of 0.49 on 2 procs for 100 steps with 32000 atoms

MPI task timing breakdown:
Section |  min time  |  avg time  |  max time  |%varavg| %total
---------------------------------------------------------------
Pair    | 0.3685     | 0.3779     | 0.3873     |   1.5 | 77.01
Comm    | 0.011485   | 0.021257   | 0.031029   |   6.7 |  4.33
Other   |            | 0.001083   |            |       |  0.22

Nlocal:        16000.0 ave       16001 max       15999 min
"""
    regions = lammps_regions(text)
    assert list(regions) == ["pair", "comm", "other"]
    assert regions["comm"]["time"]["min"] == 0.011485 and regions["comm"]["time"]["max"] == 0.031029
    assert regions["comm"]["imbalance"] == pytest.approx(0.031029 / 0.021257 - 1)
    assert regions["other"]["time"]["avg"] == regions["other"]["time"]["max"] == 0.001083


@pytest.mark.external
@needs_lammps
def test_lammps_study_stores_every_run_with_its_figures_and_regions(tmp_path):
    results = tmp_path / "res"
    path = tmp_path / "lj.yaml"
    path.write_text(app_spec(results, LAMMPS))
    out = study(path)
    assert out.returncode == 0, out.stderr
    stored = runs(results)
    assert [(r["ranks"], r["status"]) for r in stored] == [(1, "ok"), (2, "ok")]
    for r in stored:
        profile = json.loads((results / r["profile_path"]).read_text())
        output = (results / "outputs" / f"{r['run_key']}.out").read_text()
        assert f"Loop time of {r['loop_time']:g} on {r['ranks']} procs for 40 steps with 32000 atoms" in output
        assert {"pair", "neigh", "comm", "modify", "other", "total"} <= set(profile["regions"])
        assert profile["region_groups"]["communication"] == ["comm"]
        assert profile["run"]["ranks"] == r["ranks"] and profile["checks"]["output_check"]["pass"]
        assert "comm" not in profile  # profile_mpi: false: no MPI counts, and none invented
    assert (results / "report.html").exists()


@pytest.mark.kernel
@needs_lammps
def test_a_figure_that_never_matches_is_a_failed_run_naming_it(tmp_path):
    results = tmp_path / "res"
    path = tmp_path / "lj.yaml"
    path.write_text(app_spec(results, LAMMPS + "\n  figures:\n    energy: {regex: 'Energy is (?P<value>\\S+)'}",
                             cores="[1]"))
    out = study(path, "--no-report")
    assert out.returncode == 0, out.stderr
    (run,) = runs(results)
    assert run["status"] == "failed"
    assert "figure energy not found in" in run["stderr"] and f"{run['run_key']}.out" in run["stderr"]
    assert not Path(results / "profiles" / f"{run['run_key']}.json").exists()


@pytest.mark.kernel
@needs_lammps
def test_a_crashing_program_is_a_failed_run_with_its_reason(tmp_path):
    results = tmp_path / "res"
    path = tmp_path / "lj.yaml"
    path.write_text(app_spec(results, LAMMPS.replace(str(INPUT), str(tmp_path / "missing.lmp")), cores="[2]"))
    out = study(path, "--no-report")
    assert out.returncode == 0, out.stderr
    (run,) = runs(results)
    assert run["status"] == "failed" and run["exit_code"] != 0


@pytest.mark.kernel
def test_a_missing_launcher_is_one_line_and_a_self_launched_program_stays_on_one_node(tmp_path):
    path = tmp_path / "x.yaml"
    path.write_text(app_spec(tmp_path / "res", "  command: [sh, -c, 'echo took 1 s']\n  launcher: /no/mpiexec\n"
                                               "  profile_mpi: false\n  figures:\n    t: 'took (?P<value>\\S+) s'",
                             params="size: 1", cores="[2]"))
    out = study(path, "--no-report")
    assert out.returncode == 2 and out.stderr == "hybridperf: error: launcher not found: /no/mpiexec\n"
    assert not (tmp_path / "res").exists()
    text = app_spec(tmp_path, "  command: [sh]\n  launch: self\n  figures:\n    t: 'took (?P<value>\\S+) s'",
                    params="size: 1", cores="[4]") + "backend: slurm\n"
    with pytest.raises(spec.SpecError, match="needs 2 nodes; a program that starts its own ranks"):
        spec.parse(text, "s.yaml", cores_per_node=2)


@pytest.mark.kernel
def test_one_rank_crashing_is_a_failed_run_with_its_exit_status(tmp_path):
    """Rank 1 of 2 exits with status 3 while rank 0 prints a good result: the run is failed, not ok."""
    results = tmp_path / "res"
    path = tmp_path / "crash.yaml"
    script = 'r=${{OMPI_COMM_WORLD_RANK:-$PMI_RANK}}; [ "$r" = 1 ] && exit 3; echo took 0.5 s'
    path.write_text(app_spec(results, f"  command: [sh, -c, '{script}']\n  launch: mpi\n  profile_mpi: false\n"
                                      "  figures:\n    loop_time: {regex: 'took (?P<value>\\S+) s', unit: s}",
                             params="size: 1", cores="[2]"))
    out = study(path, "--no-report")
    assert out.returncode == 0, out.stderr
    (run,) = runs(results)
    assert run["status"] == "failed" and run["exit_code"] != 0 and run["loop_time"] is None


@pytest.mark.kernel
@pytest.mark.parametrize("program, message", [("no-such-program-x", "program not found: no-such-program-x"),
                                              ("{tmp}/notes.txt", "program is not an executable file: {tmp}/notes.txt")])
def test_a_program_that_cannot_run_is_one_line_and_exit_2(tmp_path, program, message):
    (tmp_path / "notes.txt").write_text("not a program\n")
    (tmp_path / "notes.txt").chmod(0o644)
    program, message = program.format(tmp=tmp_path), message.format(tmp=tmp_path)
    path = tmp_path / "x.yaml"
    path.write_text(app_spec(tmp_path / "res", f"  command: [{program}, '{{cells}}']\n  parser: lammps\n"
                                               "  profile_mpi: false", params="cells: 1"))
    out = study(path, "--no-report")
    assert out.returncode == 2
    assert out.stderr.startswith(f"hybridperf: error: {message}") and out.stderr.count("\n") == 1
    assert not (tmp_path / "res").exists()  # nothing written


@pytest.mark.external
@needs_lammps
def test_lammps_mpi_is_counted_by_class_and_exports_like_a_kernels(tmp_path):
    """profile_mpi (the default for launch: mpi): libhybridperf-mpi.so counts LAMMPS's MPI by class; the runs
    export to CSV with the same comm.<class>.<field> columns as kernel runs."""
    results, _, profile = counted_lammps_run(tmp_path, "  launch: mpi")
    p2p = profile["comm"]["p2p"]
    assert p2p["messages"] > 0 and p2p["bytes"] > 0 and profile["comm"]["collective"]["calls"] > 0
    assert profile["app"]["counting"] == "init-to-finalize"
    elapsed, mpi = profile["rank_times"]["elapsed"], profile["rank_times"]["mpi"]  # POP's inputs, per rank
    assert len(elapsed) == len(mpi) == 2 and all(0 < m < e for m, e in zip(mpi, elapsed))
    factors = pop.of_profile(profile).values
    assert all(0 < factors[name] <= 1 for name in pop.MPI_FACTORS)
    csv = tmp_path / "runs.csv"
    exported = subprocess.run([*HYBRIDPERF, "results", "export", str(results), "--csv", str(csv)],
                              capture_output=True, text=True)
    assert exported.returncode == 0, exported.stderr
    header = csv.read_text().splitlines()[0].split(",")
    assert {"comm.p2p.messages", "comm.p2p.bytes", "comm.collective.calls"} <= set(header)


@pytest.mark.external
@needs_lammps
def test_a_traced_lammps_run_writes_its_traces_in_its_directory(tmp_path):
    """trace: true: each run's traces go to runs/<run key>/trace/ beside the profiles -- a whole SimGrid trace per
    rank and one Perfetto file -- and its profile's trace names that folder relative to the results directory; the
    traces hold the messages the library counted, and `hybridperf simulate` replays the study from them."""
    results, run, profile = counted_lammps_run(tmp_path, "  trace: true")
    summary = profile["trace"]
    assert summary["dir"] == f"runs/{run['run_key']}/trace" and summary["truncated"] is False
    folder = results / summary["dir"]
    assert sorted(p.name for p in folder.iterdir()) == ["rank-0.txt", "rank-1.txt", "summary.json", "trace.json"]
    texts = [(folder / f"rank-{r}.txt").read_text() for r in range(2)]
    lines = [[line.split()[1:] for line in text.splitlines()] for text in texts]
    assert all(t[0] == ["init"] and t[-1] == ["finalize"] for t in lines)
    sent = sum(1 for t in lines for w in t if w[0] in ("send", "isend", "sendRecv"))
    assert sent == profile["comm"]["p2p"]["messages"] - summary["untraced"]["proc_null"]
    json.loads((folder / "trace.json").read_text())
    if shutil.which("smpirun"):  # what `hybridperf simulate` of the study reads (simulate/app_replay)
        out = subprocess.run([*HYBRIDPERF, "simulate", str(tmp_path / "lj.yaml"), "--cluster", "merlin"],
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        assert "lj-on-merlin: 1 runs replayed, 0 not" in out.stdout


def counted_lammps_run(tmp_path: Path, line: str) -> tuple[Path, dict, dict]:
    """A study of one LAMMPS run at 2 ranks with the counting library, `line` added to its app: block: the results
    directory, the run's stored row and its profile."""
    counting_library_for_lmp()
    results = tmp_path / "res"
    path = tmp_path / "lj.yaml"
    path.write_text(app_spec(results, LAMMPS.replace("  profile_mpi: false", line), cores="[2]"))
    out = study(path, "--no-report")
    assert out.returncode == 0, out.stderr
    (run,) = runs(results)
    assert run["status"] == "ok", run["stderr"]
    return results, run, json.loads((results / run["profile_path"]).read_text())


def counting_library_for_lmp() -> None:
    from hybridperf.launch import pmpi

    if pmpi.library_for(Path(shutil.which("lmp"))).path is None:
        pytest.skip("libhybridperf-mpi.so for LAMMPS's MPI is not built")


@pytest.mark.external
@needs_lammps
def test_a_program_that_ignores_the_thread_count_is_a_failed_run_saying_so(tmp_path):
    """Debian's lmp has no OPENMP package: asked for 2 threads per rank it runs one. The counting library's
    read-back at MPI_Finalize (threads that did work) tells, and the run is stored as failed with that reason."""
    counting_library_for_lmp()
    results = tmp_path / "res"
    path = tmp_path / "lj.yaml"
    path.write_text(app_spec(results, LAMMPS.replace("  profile_mpi: false", "  launch: mpi"),
                             params="cells: 1\n  steps: 300", cores="[2]").replace("[pure-mpi]", "[hybrid-1]"))
    out = study(path, "--no-report")
    assert out.returncode == 0, out.stderr
    (run,) = runs(results)
    assert (run["threads"], run["status"]) == (2, "failed")
    assert "the program ignored the thread count: asked for 2 threads per rank" in run["stderr"]


@pytest.mark.kernel
@pytest.mark.skipif(LIBOMP is None, reason="LLVM's libomp is not installed (apt-get install libomp5)")
def test_a_gcc_program_run_on_llvms_libomp_gets_its_openmp_regions_timed(tmp_path):
    """openmp_runtime: libomp: tests/pmpi/regions.c built with GCC (libgomp, no OMPT) runs, 1 rank x 2 threads, on
    LLVM's libomp preloaded, whose OMPT lets the MPI library time its parallel regions: region A (the work) 3
    times, region B (the team's size) once, each with 2 threads; left to libgomp, none is timed."""
    cc = "mpicc.openmpi"
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed")
    binary = compile_program(tmp_path / "regions", cc, "regions.c", "-fopenmp")
    figures = "  figures:\n    loop_time: {regex: 'threads (?P<value>\\d+)'}"
    profiles = {}
    for runtime in ("", "\n  openmp_runtime: libomp"):
        results = tmp_path / f"res{len(profiles)}"
        path = tmp_path / "regions.yaml"
        path.write_text(app_spec(results, f"  command: [{binary}, '{{rounds}}']\n{figures}{runtime}", params="rounds: 3",
                                 cores="[2]").replace("[pure-mpi]", "[hybrid-1]"))
        out = study(path, "--no-report")
        assert out.returncode == 0, out.stderr
        (run,) = runs(results)
        assert (run["status"], run["loop_time"]) == ("ok", 2), run["stderr"]  # the team had its 2 threads
        profiles[runtime] = json.loads((results / run["profile_path"]).read_text())
    plain, llvm = profiles.values()
    assert plain["app"]["openmp_tool"] == "unavailable" and plain["build"]["openmp_runtime"] == "libgomp"
    assert llvm["app"]["openmp_tool"] == "ompt"
    assert llvm["build"]["openmp_runtime"] == "libomp (preloaded over libgomp)"
    regions = sorted((r for name, r in llvm["regions"].items() if name.startswith("omp_")), key=lambda r: -r["calls"])
    assert [(r["calls"], r["threads"]) for r in regions] == [(3, 2), (1, 2)]


def pypi_lammps() -> Path:
    """PyPI's LAMMPS (it has the OPENMP package; scripts/bootstrap.sh --test installs it in .venv-lammps): its
    executable, which needs the wheel's MPICH on LD_LIBRARY_PATH."""
    found = sorted(REPO.glob(".venv-lammps/lib/python3*/site-packages/lammps/lmp"))
    if not found:
        pytest.skip("PyPI's lammps[mpi] is not in .venv-lammps: scripts/bootstrap.sh --test installs it")
    return found[0]


@pytest.mark.external
def test_lammps_with_openmp_threads_is_counted_and_its_threads_seen(tmp_path):
    """A LAMMPS that has OPENMP (PyPI's, linked with the wheel's MPICH), hybrid: its -sf omp -pk omp {threads}
    swept, its MPI counted by the MPICH build of the counting library, launched by the launcher the spec names,
    and the read-back seeing as many busy threads per rank as were asked for."""
    from hybridperf.launch import pmpi

    lmp, venv = pypi_lammps(), REPO / ".venv-lammps"
    if not pmpi.library_path("mpich", pmpi.default_lib_dir()).is_file():
        pytest.skip("libhybridperf-mpi.so for MPICH is not built (install libmpich-dev and rebuild)")
    results = tmp_path / "res"
    path = tmp_path / "omp.yaml"
    app = (f"  command: [{lmp}, -sf, omp, -pk, omp, '{{threads}}', -in, {INPUT}, -var, cells, '{{cells}}', -var, "
           f"steps, '{{steps}}', -log, none]\n  parser: lammps\n  env:\n    LD_LIBRARY_PATH: {venv / 'lib'}\n"
           f"  launcher: {venv / 'bin' / 'mpiexec'}")
    path.write_text(app_spec(results, app, params="cells: 1\n  steps: 150", cores="[2]")
                    .replace("[pure-mpi]", "[pure-mpi, hybrid-1]"))
    out = study(path)
    assert out.returncode == 0, out.stderr
    stored = {(r["ranks"], r["threads"]): r for r in runs(results)}
    assert set(stored) == {(2, 1), (1, 2)} and all(r["status"] == "ok" for r in stored.values()), \
        [r["stderr"] for r in stored.values()]
    for (ranks, threads), r in stored.items():
        profile = json.loads((results / r["profile_path"]).read_text())
        output = (results / "outputs" / f"{r['run_key']}.out").read_text()
        assert f"{ranks} MPI tasks x {threads} OpenMP threads" in output
        assert profile["build"]["mpi_library"].startswith("MPICH")
        assert profile["app"]["threads"] == {"busy": {"min": threads, "max": threads},
                                             "cpus_allowed": {"min": threads, "max": threads}}
        assert profile["comm"]["collective"]["calls"] > 0 and "pair" in profile["regions"]
        assert (profile["comm"]["p2p"]["messages"] > 0) == (ranks > 1)
        assert f"{venv / 'bin' / 'mpiexec'} " in r["launch"]
    assert (results / "report.html").exists()


@pytest.mark.kernel
def test_a_self_launched_program_runs_alone_on_its_cores_with_omp_set(tmp_path):
    """launch: self (a program that starts its own ranks or threads): run alone under taskset on the run's cores,
    OMP_NUM_THREADS set; its own figure read; no MPI counts, and none invented."""
    results = tmp_path / "res"
    path = tmp_path / "self.yaml"
    script = "echo threads=$OMP_NUM_THREADS cpus=$(nproc) size={size}; echo took 0.25 s"
    path.write_text(app_spec(results, f"  command: [sh, -c, '{script}']\n  launch: self\n  figures:\n"
                                      "    loop_time: {regex: 'took (?P<value>\\S+) s', unit: s}",
                             params="size: [3]", cores="[1, 2]").replace("[pure-mpi]", "[hybrid-1]"))
    out = study(path, "--no-report")
    assert out.returncode == 0, out.stderr
    stored = runs(results)
    assert [(r["threads"], r["status"], r["loop_time"]) for r in sorted(stored, key=lambda r: r["threads"])] == \
        [(1, "ok", 0.25), (2, "ok", 0.25)]
    for r in stored:
        output = (results / "outputs" / f"{r['run_key']}.out").read_text()
        assert f"threads={r['threads']} cpus={r['threads']} size=3" in output
        assert "comm" not in json.loads((results / r["profile_path"]).read_text())


@pytest.mark.kernel
def test_a_programs_own_timing_lines_become_regions_by_the_specs_rules(tmp_path):
    """regions: for a program without a ready-made parser: min/avg/max over ranks or one value, calls, a scale, the
    communication ones grouped as such; a region the output does not show fails the run, naming it."""
    results = tmp_path / "res"
    path = tmp_path / "own.yaml"
    script = "echo force 1.5 2.0 2.5 in 40 calls; echo halo took 300 ms; echo took 3.0 s"
    app = (f"  command: [sh, -c, '{script}']\n  launch: self\n  figures:\n"
           "    loop_time: {regex: 'took (?P<value>\\S+) s', unit: s}\n  regions:\n"
           "    force: 'force (?P<min>\\S+) (?P<avg>\\S+) (?P<max>\\S+) in (?P<calls>\\d+) calls'\n"
           "    halo: {regex: 'halo took (?P<value>\\S+) ms', scale: 0.001, communication: true}")
    path.write_text(app_spec(results, app, params="size: 1", cores="[1]"))
    assert study(path, "--no-report").returncode == 0
    (run,) = runs(results)
    profile = json.loads((results / run["profile_path"]).read_text())
    force, halo = profile["regions"]["force"], profile["regions"]["halo"]
    assert (force["calls"], force["time"]["min"], force["time"]["avg"], force["time"]["max"]) == (40, 1.5, 2.0, 2.5)
    assert force["imbalance"] == pytest.approx(0.25) and halo["time"]["avg"] == pytest.approx(0.3)
    assert profile["region_groups"] == {"computation": ["force"], "communication": ["halo"]}

    garbled = tmp_path / "garbled.yaml"
    garbled.write_text(app_spec(tmp_path / "res3", app.replace("echo force 1.5", "echo force 1.5s"), params="size: 1",
                                cores="[1]"))
    assert study(garbled, "--no-report").returncode == 0  # the run fails, the study goes on
    (run,) = runs(tmp_path / "res3")
    assert run["status"] == "failed" and "force: its pattern matched" in run["stderr"] and "is not a number" in \
        run["stderr"]

    missing = tmp_path / "missing.yaml"
    missing.write_text(app_spec(tmp_path / "res2", app.replace("'halo took (", "'halo needed ("), params="size: 1",
                                cores="[1]"))
    assert study(missing, "--no-report").returncode == 0
    (run,) = runs(tmp_path / "res2")
    assert run["status"] == "failed" and "region halo not found in" in run["stderr"]


@pytest.mark.kernel
def test_pmnf_recovers_the_law_of_an_apps_times(tmp_path):
    """model pmnf on an app study's runs at three core counts: a program whose time is 0.1 + 2/p gets that model
    back (a self-launched awk, so that 4 cores can be declared on this 2-core machine without MPI refusing it)."""
    results = tmp_path / "res"
    path = tmp_path / "law.yaml"
    path.write_text(app_spec(results, "  command: [awk, 'BEGIN {{ print \"took\", 2 / {threads} + 0.1, \"s\" }}']\n"
                                      "  launch: self\n  figures:\n"
                                      "    loop_time: {regex: 'took (?P<value>\\S+) s', unit: s}",
                             params="size: 1", cores="[1, 2, 4]").replace("[pure-mpi]", "[hybrid-1]")
                    + "cores_per_node: 4\n")
    assert study(path, "--no-report").returncode == 0
    assert sorted(r["loop_time"] for r in runs(results)) == [0.6, 1.1, 2.1]
    fitted = subprocess.run([*HYBRIDPERF, "model", "pmnf", str(results)], capture_output=True, text=True,
                            env={**os.environ, "COLUMNS": "200"})
    assert fitted.returncode == 0 and "0.1 + 2 * p^(-1)" in fitted.stdout, fitted.stdout + fitted.stderr


@pytest.mark.kernel
def test_a_self_launched_program_is_watched_for_the_threads_it_was_given(tmp_path):
    """launch: self has no counting library in the program, so its busy threads are read from /proc while it runs,
    every process of its session together: one busy loop asked for 2 threads is a failed run saying so; two loops
    (two processes, as a program starting its own ranks would) are 2 busy threads and an ok run."""
    loop = "awk \"BEGIN {{ for (i = 0; i < 1.2e8; i++) s += i; print \\\"took 1 s\\\" }}\""
    for name, script in (("one", loop), ("two", f"{loop} & {loop}; wait")):
        results = tmp_path / name
        path = tmp_path / f"{name}.yaml"
        path.write_text(app_spec(results, f"  command: [sh, -c, '{script}']\n  launch: self\n  figures:\n"
                                          "    loop_time: {regex: 'took (?P<value>\\S+) s', unit: s}",
                                 params="size: 1", cores="[2]").replace("[pure-mpi]", "[hybrid-1]"))
        assert study(path, "--no-report").returncode == 0
    (one,) = runs(tmp_path / "one")
    assert one["status"] == "failed" and "the program ignored the thread count: asked for 2" in one["stderr"]
    assert "from /proc while it ran" in one["stderr"]
    (two,) = runs(tmp_path / "two")
    assert two["status"] == "ok", two["stderr"]
    assert json.loads((tmp_path / "two" / two["profile_path"]).read_text())["app"]["threads"] == {"busy_in_all": 2}


@pytest.mark.kernel
def test_thicket_loads_a_studys_export_as_one_ensemble(tmp_path):
    """`results export --thicket DIR`: one file per run, which Thicket (llnl-thicket) loads as one ensemble, the
    run's configuration as its metadata and the regions and MPI classes as the tree."""
    thicket = pytest.importorskip("thicket")
    results = tmp_path / "res"
    path = tmp_path / "self.yaml"
    path.write_text(app_spec(results, "  command: [sh, -c, 'echo took 0.{size} s']\n  launch: self\n  figures:\n"
                                      "    loop_time: {regex: 'took (?P<value>\\S+) s', unit: s}",
                             params="size: [25, 5]", cores="[1]"))
    assert study(path, "--no-report").returncode == 0
    out = subprocess.run([*HYBRIDPERF, "results", "export", str(results), "--thicket", str(tmp_path / "tk")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    files = sorted(str(p) for p in (tmp_path / "tk").glob("*.json"))
    ensemble = thicket.Thicket.from_caliper(files, disable_tqdm=True)
    meta = ensemble.metadata.sort_values("param.size")
    assert list(meta["param.size"]) == [5, 25] and list(meta["loop_time"]) == [0.5, 0.25]
    loop = ensemble.dataframe[ensemble.dataframe["name"] == "loop"]
    assert sorted(loop["time"]) == [0.25, 0.5]


@pytest.mark.external
@pytest.mark.skipif(shutil.which("gmx") is None, reason="GROMACS (gmx) not installed: apt-get install gromacs")
def test_gromacs_thread_mpi_study_reads_ns_per_day_and_its_cycle_accounting(tmp_path):
    """Real GROMACS (thread-MPI, launch: self): ns/day and the wall time from its summary, its log's cycle and time
    accounting table as regions, communication rows as communication once there are two ranks."""
    results = tmp_path / "res"
    text = (REPO / "studies" / "gromacs-water.yaml").read_text()
    text = text.replace("results: results/gromacs-water", f"results: {results}").replace("repeats: 3", "repeats: 1")
    text = text.replace("steps: 500", "steps: 100").replace("cores: [1, node]", "cores: [1, 2]")
    text = text.replace("inputs/spce", f"{REPO}/studies/inputs/spce").replace("/tmp/gromacs-water", str(tmp_path / "w"))
    text = text.replace("-g, gromacs-water.log", f"-g, {tmp_path / 'md.log'}").replace("[gromacs-water.log]",
                                                                                      f"[{tmp_path / 'md.log'}]")
    path = tmp_path / "gmx.yaml"
    path.write_text(text)
    out = study(path, "--no-report")
    assert out.returncode == 0, out.stderr
    stored = {(r["ranks"], r["threads"]): r for r in runs(results)}
    assert set(stored) == {(1, 1), (2, 1), (1, 2)} and all(r["status"] == "ok" for r in stored.values())
    for (ranks, _), r in stored.items():
        profile = json.loads((results / r["profile_path"]).read_text())
        figures = {f["name"]: f["value"] for f in profile["figures_of_merit"]}
        assert figures["ns_per_day"] > 0 and figures["loop_time"] == r["loop_time"] > 0
        assert {"force", "pme_mesh", "neighbor_search"} <= set(profile["regions"])
        assert ("comm_coord" in profile["region_groups"]["communication"]) == (ranks > 1)
    assert not (tmp_path / "md.log").exists()  # moved into the kept output


@pytest.mark.external
@needs_lammps
def test_the_models_and_exports_take_an_app_study_as_a_kernels(tmp_path):
    """Downstream of the store nothing knows an app from a kernel: model evaluate and pmnf read its runs, Extra-P's
    export carries its regions and MPI classes, and recommend prices every split from the program's own runs (its
    serial time, and what its processes send as the counting library measured it)."""
    counting_library_for_lmp()
    results = tmp_path / "res"
    path = tmp_path / "lj.yaml"
    path.write_text(app_spec(results, LAMMPS.replace("  profile_mpi: false", "  launch: mpi")))
    assert study(path, "--no-report").returncode == 0
    assert [r["status"] for r in runs(results)] == ["ok", "ok"]

    def model(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*HYBRIDPERF, "model", *args], capture_output=True, text=True, timeout=300,
                              env={**os.environ, "COLUMNS": "400"})  # no table cell wrapped

    evaluated = model("evaluate", str(results))
    assert evaluated.returncode == 0 and "overall (6.10), in-sample" in evaluated.stdout, evaluated.stderr
    fitted = model("pmnf", str(results))
    assert fitted.returncode == 0 and "pure-mpi" in fitted.stdout and "needs measurements at 3" in fitted.stdout
    extrap = tmp_path / "x.jsonl"
    subprocess.run([*HYBRIDPERF, "results", "export", str(results), "--extrap", str(extrap)], check=True,
                   capture_output=True)
    lines = [json.loads(line) for line in extrap.read_text().splitlines()]
    assert {"<root>->pair", "<root>->MPI/p2p"} <= {m["callpath"] for m in lines}
    assert any(m["callpath"] == "<root>->MPI/p2p" and m["metric"] == "bytes" and m["value"] > 0 for m in lines)

    def recommend(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*HYBRIDPERF, "recommend", *args], capture_output=True, text=True, timeout=300)

    recommended = recommend("--kernel", "app", "--calibration", str(results), "--json")
    assert recommended.returncode == 0, recommended.stderr
    given = {i["name"]: i for i in json.loads(recommended.stdout)["inputs"]}
    serial = next(r for r in runs(results) if r["ranks"] == 1)
    assert given["work (serial seconds)"]["value"] == f"{serial['loop_time']:.4g} s"
    assert given["work (serial seconds)"]["source"].startswith("measured: the serial run's loop time")
    assert "measured by libhybridperf-mpi.so at 2 ranks; bytes n^-0.67 assumed" in \
        given["point-to-point sent per process"]["source"]
    for args, message in [((), "--kernel app needs --calibration"),
                          (("--calibration", str(results), "--size", "4"), "--size: not for --kernel app")]:
        refused = recommend("--kernel", "app", *args)
        assert refused.returncode == 2 and message in refused.stderr and refused.stderr.count("\n") == 1
