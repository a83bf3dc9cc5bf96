"""`hybridperf model ...`: the thesis's models on published data and on stored studies, PMNF fits, and
the recommendation of a ranks x threads split (cli/recommend.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from hybridperf.cli.recommend import recommend_command
from hybridperf.cli.ui import console, fail
from hybridperf.models import dlpoly
from hybridperf.report import dlpoly_tables, pmnf_table
from hybridperf.report.terminal import rich_table

model_app = typer.Typer(help="Performance models: fit, evaluate, predict, recommend.", no_args_is_help=True)


@model_app.command("dlpoly")
def dlpoly_command(
    absolute: Annotated[bool, typer.Option("--absolute", help="Absolute residuals (FindFit's) instead of "
                                                              "relative.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Every point's prediction, held out and "
                                                                 "in-sample.")] = False,
    future: Annotated[bool, typer.Option("--future", help="The thesis's what-if (§6.6) on Merlin test 20: 16 cores "
                                                         "per node, alpha halved, phi and mu unchanged, the problem "
                                                         "doubled.")] = False,
) -> None:
    """Evaluate the overall runtime model (eq. 6.10) on the published DL_POLY timings (data/): held out first."""
    points, published = dlpoly.load(), dlpoly.thesis_errors()
    if future:
        console.print(rich_table(*dlpoly_tables.what_if(dlpoly.future_what_if(points)), left=0))
        return
    cases = []
    for cluster, test in dlpoly.cases(points):
        held, fitted = (dlpoly.evaluate(points, cluster, test, held_out=h, relative=not absolute)
                        for h in (True, False))
        cases.append((held, fitted))
        if verbose:
            for ev in (held, fitted):
                console.print(rich_table(*dlpoly_tables.parameters(ev)))
                console.print(rich_table(*dlpoly_tables.predictions(ev)))
    console.print(rich_table(*dlpoly_tables.summary(cases, published)))
    console.print("Held out: phi and alpha fitted on pure MPI and mu on the hybrids at all but the two largest core "
                  "counts, the errors those of the two largest (predicted, not fitted). In-sample: fitted on every "
                  "point and evaluated on the same points, as the thesis did (its own errors, the column thesis, are Tables 6.13-6.14) — a description "
                  "of the data, not a prediction. Crossover: the smallest core count from which the better hybrid "
                  "is faster than pure MPI.")


@model_app.command("pmnf")
def pmnf_command(
    results_dir: Annotated[Path, typer.Argument(help="A results directory (holding results.db).")],
    metric: Annotated[str, typer.Option(help="loop_time, or a region name (e.g. force).")] = "loop_time",
    study_name: Annotated[Optional[str], typer.Option("--study", help="Which study (default: the latest).")] = None,
) -> None:
    """Fit an Extra-P-style model time(cores) per configuration and parameter set, negative exponents allowed."""
    st, runs = _study(results_dir, study_name)
    from hybridperf.analysis.sections import analyse

    sections = analyse(st.design, runs)
    if any(pmnf_table.seconds(r, metric) is None for section in sections for p in section.points for r in p.runs):
        fail(f"runs of {st.name} have no region '{metric}'")
    console.print(rich_table(*pmnf_table.table(st.name, metric, sections, st.configurations), left=5))


@model_app.command("evaluate")
def evaluate_command(
    results_dir: Annotated[Path, typer.Argument(help="A results directory (holding results.db).")],
    study_name: Annotated[Optional[str], typer.Option("--study", help="Which study (default: the latest).")] = None,
) -> None:
    """Fit the thesis's models on a stored study (communication models on pure MPI only): held out first, in-sample
    beside it, and the outlook."""
    from hybridperf.analysis.sections import analyse
    from hybridperf.report import tables

    st, runs = _study(results_dir, study_name)
    for section in analyse(st.design, runs):
        for title, headers, rows in tables.model_tables(section, st.cores_per_node):
            console.print(rich_table(f"{section.title()}: {title}", headers, rows, left=2) if headers
                          else f"{section.title()}: {title}")


def _study(results_dir: Path, study_name: str | None):
    """The study's spec and its successful runs."""
    from hybridperf.cli.study import stored_study

    st, runs = stored_study(results_dir, study_name)
    return st, [r for r in runs if r["status"] == "ok"]


model_app.command("recommend")(recommend_command)
