"""The study commands: `study` (run a spec), `report` (analyse a results directory), `results export`."""

from __future__ import annotations

from dataclasses import asdict, replace
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from hybridperf.analysis import disturbed, efficiency as eff
from hybridperf.app.launch import command_of
from hybridperf.files import strict_json
from hybridperf.cli.ui import console, ConsoleObserver, errors, fail, user_error, USER_ERRORS
from hybridperf.launch import quiet
from hybridperf.report import html as reporting, terminal, verdicts_json
from hybridperf.store import export as exports, thicket as thickets
from hybridperf.store.db import Store, StoreError
from hybridperf.study import spec
from hybridperf.study.backends import placement_notes
from hybridperf.study.registry import backend_for, cores_per_node, kind_of
from hybridperf.study.expand import expand, races, RunPlan, undecidable
from hybridperf.study.run import rule_text, run_study
from hybridperf.study.stored import open_store as open_results, simulated_on, Stored, stored as stored_campaign

results_app = typer.Typer(help="The results store: export it for other tools.", no_args_is_help=True)


def with_budget(study: spec.Study, budget: str) -> spec.Study:
    """The study with its rule's budget replaced (its confidence, band and blocks kept)."""
    return replace(study, decide={**asdict(study.rule), "budget": spec.duration(budget, "--budget")})


def study(
    spec_file: Annotated[Path, typer.Argument(help="The study spec (YAML), or a ready-made one's name (local, "
                                                   "thesis-md, ...: studies/ in a checkout).")],
    results: Annotated[Optional[Path], typer.Option(help="Results directory (default: the spec's `results`).")] = None,
    backend: Annotated[Optional[str], typer.Option(help="local, slurm or simgrid (default: the spec's `backend`; "
                                                        "simgrid needs the spec's simgrid: {cluster: NAME}).")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print each race's candidates with their launch lines "
                                                            "(slurm: write the batch scripts) and run nothing.")] = False,
    write_report: Annotated[bool, typer.Option("--report/--no-report", help="Write the report at the end.")] = True,
    budget: Annotated[Optional[str], typer.Option(help="Seconds of runs the study may spend (30s, 5m, 1h, none), in "
                                                       "place of its decide: budget; the races still open then end "
                                                       "undecided.")] = None,
) -> None:
    """Run a study: race the splits at each scale in blocks until each is decided (wins or tie) or the budget is
    spent; every run stored as it ends, in a new campaign each time (an interrupted one resumes)."""
    try:
        st = spec.load(spec_file, cores_per_node=cores_per_node, backend=backend)
        if budget is not None:
            st = with_budget(st, budget)
        directory = results or Path(st.results)
        runner = backend_for(st, directory, say=lambda line: errors.print(line, highlight=False))
        if st.app is not None:  # each program the runs start (BT-MZ's: one per rank count) and its counting
            for plan in one_per_program(st, expand(st)):  # library exist, before anything runs
                runner.launch(plan)
        for note in placement_notes(st, getattr(runner, "node", None)):
            errors.print(f"note: {note}", highlight=False)
        for line in undecidable(st):
            errors.print(f"[yellow]warning:[/yellow] {escape(line)}", highlight=False)
        if dry_run:
            found = races(st)
            for race in found:
                print(f"# {race.title()}")
                for plan in race.candidates:
                    print(runner.launch_line(plan))
            console.print(f"{len(found)} race(s); {rule_text(st)}; nothing was run", style="dim")
            return
        check = quiet.check() if kind_of(st.backend).launches else {}
        for warning in check.get("warnings", []):
            errors.print(f"[yellow]warning:[/yellow] {warning}", highlight=False)
        with Store(directory) as store:
            outcome = run_study(st, store, runner, ConsoleObserver(console), str(spec_file), check)
    except USER_ERRORS as err:
        user_error(err)
    if outcome.ended == "interrupted":
        errors.print(f"interrupted: campaign {outcome.campaign}'s {outcome.resumed + len(outcome.stored)} runs are "
                     f"stored in {directory}; run the same command to resume")
        raise typer.Exit(130)
    warmups = sum(r.warmup for r in outcome.stored)
    console.print(f"{st.name}: campaign {outcome.campaign}, {len(outcome.stored)} runs done now"
                  + (f" ({warmups} of them warm-ups, counted nowhere)" if warmups else "")
                  + (f", {outcome.resumed} before" if outcome.resumed else "")
                  + f"; {_failed_text(outcome.failed)}; results in {directory / 'results.db'}")
    if outcome.failed:
        console.print("once what failed is fixed, run the same command again: a new campaign runs every point "
                      "(this one is kept)", style="dim")
    if write_report:
        _report(directory, st.name)


def _failed_text(failed: list) -> str:
    """'2 failed', counted as the report counts them: a failed warm-up apart."""
    warmups = sum(r.warmup for r in failed)
    return f"{len(failed) - warmups} failed" + (f" (and {warmups} warm-up(s), counted nowhere)" if warmups else "")


def one_per_program(st: spec.Study, plans: list[RunPlan]) -> list[RunPlan]:
    """The first run of each program an app study starts; AppError where the environment lacks what its command
    needs ($HYBRIDPERF_NPB_MZ)."""
    first: dict[str, RunPlan] = {}
    for plan in plans:
        first.setdefault(command_of(st.app_spec, plan, plan.params)[0], plan)
    return list(first.values())


def stored(directory: Path, name: str | None, campaign: int | None = None) -> Stored:
    """A stored study's campaign — the latest study and campaign unless named — or a one-line error."""
    try:
        return stored_campaign(directory, name, campaign)
    except StoreError as err:
        fail(str(err))


def stored_study(directory: Path, name: str | None) -> tuple[spec.Study, list[dict]]:
    """A stored study's spec and the runs of its latest campaign, or a one-line error."""
    found = stored(directory, name)
    return found.study, found.runs


def open_store(directory: Path) -> Store:
    """The store of an existing results directory, or a one-line error."""
    try:
        return open_results(directory)
    except StoreError as err:
        fail(str(err))


def _report(directory: Path, name: str | None, out: Path | None = None, campaign: int | None = None,
            as_json: bool = False, section: str = "summary") -> Path | None:
    found = stored(directory, name, campaign)
    sections = found.sections()
    if as_json:
        c = found.campaign
        about = {"number": c.number, "started": c.started, "finished": c.finished, "ended": c.ended,
                 "machine": c.machine}
        print(strict_json(verdicts_json.document(found.study.name, about, sections, found.every)))
        return None
    on = simulated_on(found)
    simulated = on is not None
    if kind_of(found.study.backend).exact:  # said first, so that no one reads a replay for a measurement
        console.print(f"study {found.study.name}: simulated on {found.study.simgrid.get('cluster')} with SimGrid "
                      "(exact replays under the cluster description's figures)", highlight=False)
    elif simulated:
        console.print(f"study {found.study.name}: its runs' traces replayed on {on} with SimGrid (each run's "
                      "measured compute kept)", highlight=False)
    terminal.print_study(console, sections, found.runs, section, f"hybridperf report {directory}")
    notes = disturbed.summary(found.every)
    for line in notes:
        console.print(f"[yellow]disturbed:[/yellow] {escape(line)}", highlight=False)
    # a simulated study's page beside the measured one's, not over it
    out = out or directory / ("report.html" if not simulated else f"report-{on}.html")
    reporting.write_html(out, reporting.render_html(found.study.name, found.study.as_dict(), sections, found.runs,
                                                    found.describe(), found.campaign.machine, notes))
    console.print(f"report: {out}")
    return out


def report(
    results_dir: Annotated[Path, typer.Argument(help="A results directory (holding results.db).")],
    study_name: Annotated[Optional[str], typer.Option("--study", help="Which study (default: the latest).")] = None,
    campaign: Annotated[Optional[int], typer.Option(help="Which campaign of the study (default: the latest).")] = None,
    out: Annotated[Optional[Path], typer.Option(help="HTML file to write (default: RESULTS_DIR/report.html).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print each scale's verdict as JSON (outcome, winner or "
                                                         "tied set, lead and interval, blocks, noise) and write "
                                                         "nothing.")] = False,
    section: Annotated[str, typer.Option(help="What the terminal shows: summary (the answer, in 80 columns), "
                                              "per-call (the per-call times) or full (both).")] = "summary",
) -> None:
    """Analyse a stored study: the answer in the terminal, everything in a self-contained HTML report."""
    if section not in terminal.SECTIONS:
        fail(f"--section must be one of {', '.join(terminal.SECTIONS)}, got {section!r}")
    try:
        _report(results_dir, study_name, out, campaign, as_json, section)
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
