"""The study commands: `study` (run a spec), `report` (analyse a results directory), `results export`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from hybridperf.analysis import efficiency as eff, sections as analysis
from hybridperf.cli.ui import console, errors, fail, user_error, USER_ERRORS
from hybridperf.launch import machine
from hybridperf.report import html as reporting, terminal
from hybridperf.store import export as exports, thicket as thickets
from hybridperf.store.db import Store, StoreError
from hybridperf.study import spec
from hybridperf.study.backends.local import LocalBackend
from hybridperf.study.expand import expand
from hybridperf.study.run import run_study

results_app = typer.Typer(help="The results store: export it for other tools.", no_args_is_help=True)


def _node_cores(backend: str) -> int:
    """Cores per node when a spec does not say: Slurm's nodes, or this machine."""
    if backend == "slurm":
        from hybridperf.study.backends.slurm import node_cores

        return node_cores()
    return machine.local_machine().cores


def _backend(study: spec.Study, results: Path):
    if study.backend == "slurm":
        from hybridperf.study.backends.slurm import SlurmBackend

        return SlurmBackend(study, results)
    return LocalBackend(study, results)


def study(
    spec_file: Annotated[Path, typer.Argument(help="The study spec (YAML); ready-made ones are in studies/.")],
    results: Annotated[Optional[Path], typer.Option(help="Results directory (default: the spec's `results`).")] = None,
    backend: Annotated[Optional[str], typer.Option(help="local or slurm (default: the spec's `backend`).")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print every launch line (slurm: write the batch "
                                                            "scripts) and run nothing.")] = False,
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="Run again the runs stored as failed or "
                                                                      "timed out.")] = False,
    write_report: Annotated[bool, typer.Option("--report/--no-report", help="Write the report at the end.")] = True,
) -> None:
    """Run a study: every configuration x parameter set x repeat, stored as it finishes; resumable."""
    try:
        st = spec.load(spec_file, cores_per_node=_node_cores, backend=backend)
        directory = results or Path(st.results)
        runner = _backend(st, directory)
        if st.app is not None:
            runner.launch(expand(st)[0])  # the program and the counting library exist, before anything runs
        if dry_run:
            plans = expand(st)
            for plan in plans:
                print(runner.launch_line(plan))
            console.print(f"{len(plans)} runs; nothing was run", style="dim")
            return
        with Store(directory) as store:
            outcome = run_study(st, store, runner, console, str(spec_file), retry_failed)
    except USER_ERRORS as err:
        user_error(err)
    done = len(outcome.stored) + outcome.skipped
    if outcome.interrupted:
        errors.print(f"interrupted: {done} of {outcome.total} runs stored in {directory}; run the same command to "
                     "resume")
        raise typer.Exit(130)
    failed = len(outcome.failed)
    console.print(f"{st.name}: {len(outcome.stored)} runs done now, {outcome.skipped} before; {failed} failed; "
                  f"results in {directory / 'results.db'}")
    if write_report:
        _report(directory, st.name)


def stored_study(directory: Path, name: str | None) -> tuple[spec.Study, list[dict]]:
    """A stored study's spec and runs — the latest study unless one is named — or a one-line error."""
    with open_store(directory) as store:
        names = store.studies()
        if not names:
            fail(f"{directory} holds no study (run `hybridperf study SPEC` first)")
        name = name or names[-1]
        if name not in names:
            fail(f"{directory} has no study '{name}' (it has: {', '.join(names)})")
        try:
            return spec.from_dict(store.study_spec(name)), store.runs(name)
        except StoreError as err:
            fail(str(err))


def open_store(directory: Path) -> Store:
    """The store of an existing results directory, or a one-line error."""
    if not (directory / "results.db").exists():
        fail(f"{directory} has no results.db (run `hybridperf study SPEC` first)")
    try:
        return Store(directory)
    except StoreError as err:
        fail(str(err))


def _report(directory: Path, name: str | None, out: Path | None = None) -> Path:
    st, runs = stored_study(directory, name)
    sections = analysis.analyse(st.design, runs)
    terminal.print_study(console, sections, runs)
    out = out or directory / "report.html"
    reporting.write_html(out, reporting.render_html(st.name, st.as_dict(), sections, runs))
    console.print(f"report: {out}")
    return out


def report(
    results_dir: Annotated[Path, typer.Argument(help="A results directory (holding results.db).")],
    study_name: Annotated[Optional[str], typer.Option("--study", help="Which study (default: the latest).")] = None,
    out: Annotated[Optional[Path], typer.Option(help="HTML file to write (default: RESULTS_DIR/report.html).")] = None,
) -> None:
    """Analyse a stored study: key tables in the terminal, everything in a self-contained HTML report."""
    try:
        _report(results_dir, study_name, out)
    except USER_ERRORS as err:
        user_error(err)


@results_app.command("export")
def export(
    results_dir: Annotated[Path, typer.Argument(help="A results directory (holding results.db).")],
    csv: Annotated[Optional[Path], typer.Option("--csv", help="CSV file: one row per run, flat columns.")] = None,
    extrap: Annotated[Optional[Path], typer.Option("--extrap", help="Extra-P JSON-Lines file: one measurement "
                                                                    "per line, parameters ranks, threads and "
                                                                    "the numeric kernel parameters.")] = None,
    thicket: Annotated[Optional[Path], typer.Option("--thicket", help="Directory: one Caliper json-split file "
                                                                      "per run, which Thicket loads as one "
                                                                      "ensemble (Thicket.from_caliper).")] = None,
    study_name: Annotated[Optional[str], typer.Option("--study", help="Only this study.")] = None,
) -> None:
    """Export the stored runs: a flat CSV table, Extra-P's JSON-Lines input, and/or a Thicket ensemble."""
    if csv is None and extrap is None and thicket is None:
        fail("say what to write: --csv FILE, --extrap FILE and/or --thicket DIR")
    with open_store(results_dir) as store:
        try:
            runs = store.runs(study_name)
        except StoreError as err:
            fail(str(err))
    if csv:
        console.print(f"{exports.write_csv(runs, csv)} runs written to {csv}")
    if extrap:
        console.print(f"{exports.write_extrap(runs, extrap)} measurements written to {extrap}")
    if thicket:
        console.print(f"{thickets.write(runs, thicket)} runs written to {thicket}/ (Thicket.from_caliper)")


def efficiency(
    results_dir: Annotated[Path, typer.Argument(help="A results directory (holding results.db).")],
    study_name: Annotated[Optional[str], typer.Option("--study", help="Which study (default: the latest).")] = None,
) -> None:
    """Chow & Hysom's e_mt, e_cache, e_ni and e_mp from stored mpi / hybrid / serial runs."""
    st, runs = stored_study(results_dir, study_name)
    try:
        rows = eff.efficiency_rows(runs, st.cores_per_node, st.configuration_keys)
    except eff.MissingRuns as err:
        fail(str(err))
    if not any(r.e_mt or r.e_cache or r.e_ni or r.e_mp for r in rows):
        reasons = sorted({why for r in rows for why in r.missing.values()}) or ["no successful runs"]
        fail(f"{st.name}: no efficiency parameter can be computed: {'; '.join(reasons)} (a study needs pure-mpi, "
             "hybrid-1 and 1-core runs of the same problem, e.g. configurations [pure-mpi, hybrid-1], cores [1, node])")
    console.print(terminal.efficiency_rich(rows))
    reasons: dict[str, list[str]] = {}
    for r in rows:
        for parameter, why in r.missing.items():
            reasons.setdefault(why, []).append(parameter)
    for why, parameters in reasons.items():
        console.print(f"[yellow]{', '.join(dict.fromkeys(parameters))}[/yellow] not computed "
                      f"({len(parameters)} value(s)): {why}")
    console.print(eff.reading(rows))
