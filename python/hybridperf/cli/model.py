"""`hybridperf model ...`: the thesis's models on published data and on stored studies, PMNF fits, and
the recommendation of a ranks x threads split (cli/recommend.py)."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Annotated, Optional

import numpy as np
import typer
from rich.table import Table

from hybridperf.cli.recommend import recommend_command
from hybridperf.cli.ui import console, fail
from hybridperf.models import dlpoly, pmnf

model_app = typer.Typer(help="Performance models: fit, evaluate, predict, recommend.", no_args_is_help=True)


def _fit_table(title: str, fits) -> Table:
    table = Table(title=title)
    for col in ("parameter", "estimate", "± SE", "% error"):
        table.add_column(col, justify="left" if col == "parameter" else "right")
    for f in fits:
        for name, v in f.as_dict().items():
            table.add_row(name, f"{v['estimate']:.5g}", f"{v['error']:.3g}", f"{v['percent']:.1f}%")
    return table


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
        table = Table(title="The thesis's what-if, Merlin test 20 (eq. 6.10 fitted in-sample): predicted seconds, "
                            "and hybrid-1 minus pure MPI")
        for col in ("cores", "pure MPI now", "hybrid-1 now", "gap now", "pure MPI future", "hybrid-1 future",
                    "gap future"):
            table.add_column(col, justify="right")
        for w in dlpoly.future_what_if(points):
            table.add_row(str(w.cores), *(f"{v:.4g}" for v in (w.now["pure-mpi"], w.now["hybrid-1"],
                                                               w.now["hybrid-1"] - w.now["pure-mpi"],
                                                               w.future["pure-mpi"], w.future["hybrid-1"],
                                                               w.future["hybrid-1"] - w.future["pure-mpi"])))
        console.print(table)
        return
    summary = Table(title="DL_POLY Table 1, eq. 6.10: median error of the hybrid (H1, H2) totals")
    for col in ("cluster", "test", "held out", "in-sample", "thesis", "crossover held out",
                "in-sample", "published"):
        summary.add_column(col, justify="left" if col == "cluster" else "right")
    for cluster, test in dlpoly.cases(points):
        held = dlpoly.evaluate(points, cluster, test, held_out=True, relative=not absolute)
        fitted = dlpoly.evaluate(points, cluster, test, held_out=False, relative=not absolute)
        theirs = statistics.median(v for (c, t, conf, _), v in published.items() if (c, t) == (cluster, test)
                                   and conf != "pure-mpi")
        summary.add_row(cluster, str(test), f"{held.median_hybrid_error(True):.1f}%",
                        f"{fitted.median_hybrid_error():.1f}%", f"{theirs:.1f}%", str(held.crossover(True) or "none"),
                        str(fitted.crossover(True) or "none"), str(held.crossover(False) or "none"))
        if verbose:
            for ev in (held, fitted):
                console.print(_fit_table(f"{cluster} test {test}, {ev.kind}: parameters", [ev.stage1, ev.stage2]))
                rows = Table(title=f"{cluster} test {test}, {ev.kind}: predicted vs measured")
                for col in ("configuration", "cores", "measured", "predicted", "band", "% error", "in band", "point"):
                    rows.add_column(col, justify="left" if col == "configuration" else "right")
                for r in ev.rows:
                    rows.add_row(r.point.configuration, str(r.point.cores), f"{r.point.seconds:.4g}",
                                 f"{r.predicted:.4g}", f"{r.low:.4g} – {r.high:.4g}", f"{r.error:.1f}",
                                 "yes" if r.inside else "no", "fitted" if r.trained else "held out")
                console.print(rows)
    console.print(summary)
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
    table = Table(title=f"{st.name}: {metric}(p), p = cores, selected by leave-one-out SMAPE")
    for col in ("parameters", "configuration", "points", "model", "CV SMAPE"):
        table.add_column(col)
    from hybridperf.analysis.sections import analyse

    for section in analyse(st.design, runs):
        for config in st.configurations:
            pts = [p for p in section.points if p.configuration == config and p.runs]
            p_values = [p.cores for p in pts for _ in p.runs]
            y = [r["loop_time"] if metric == "loop_time" else r["profile"]["regions"].get(metric, {}).get("time", {}).get("avg")
                 for p in pts for r in p.runs]
            if any(v is None for v in y):
                fail(f"runs of {st.name} have no region '{metric}'")
            try:
                h = pmnf.select(np.array(p_values), np.array(y))
                table.add_row(section.title(), config, str(len(pts)), h.formula(), f"{h.smape:.2f}%")
            except ValueError as err:
                table.add_row(section.title(), config, str(len(pts)), f"– ({err})", "–")
    console.print(table)


@model_app.command("evaluate")
def evaluate_command(
    results_dir: Annotated[Path, typer.Argument(help="A results directory (holding results.db).")],
    study_name: Annotated[Optional[str], typer.Option("--study", help="Which study (default: the latest).")] = None,
) -> None:
    """Fit the thesis's models on a stored study (communication models on pure MPI only): held out first, in-sample
    beside it, and the outlook."""
    from hybridperf.analysis.sections import analyse
    from hybridperf.report import tables, terminal

    st, runs = _study(results_dir, study_name)
    for section in analyse(st.design, runs):
        for title, headers, rows in tables.model_tables(section, st.cores_per_node):
            console.print(terminal.rich_table(f"{section.title()}: {title}", headers, rows, left=2) if headers
                          else f"{section.title()}: {title}")


def _study(results_dir: Path, study_name: str | None):
    """The study's spec and its successful runs."""
    from hybridperf.cli.study import stored_study

    st, runs = stored_study(results_dir, study_name)
    return st, [r for r in runs if r["status"] == "ok"]


model_app.command("recommend")(recommend_command)
