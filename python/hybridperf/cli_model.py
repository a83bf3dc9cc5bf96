"""`hybridperf model ...`: the thesis's models on published data and on stored studies, PMNF fits, and
the recommendation of a ranks x threads split."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Annotated, Optional

import numpy as np
import typer
from rich.table import Table

from hybridperf import spec
from hybridperf.models import dlpoly, pmnf
from hybridperf.store import Store
from hybridperf.ui import console, fail

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
    held_out: Annotated[bool, typer.Option("--held-out/--thesis", help="Fit on all but the two largest core counts "
                                                                      "and predict those (default: fit on all, as "
                                                                      "the thesis did).")] = False,
    absolute: Annotated[bool, typer.Option("--absolute", help="Absolute residuals (FindFit's) instead of "
                                                              "relative.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Every point's prediction.")] = False,
) -> None:
    """Evaluate the overall runtime model (eq. 6.10) on the published DL_POLY timings (data/)."""
    points, published = dlpoly.load(), dlpoly.thesis_errors()
    summary = Table(title=f"DL_POLY Table 1, eq. 6.10 fitted {'on all but the two largest core counts' if held_out else 'as the thesis did'}")
    for col in ("cluster", "test", "median hybrid error", "thesis's median", "crossover predicted", "published",
                "steps apart"):
        summary.add_column(col, justify="left" if col == "cluster" else "right")
    for cluster, test in dlpoly.cases(points):
        ev = dlpoly.evaluate(points, cluster, test, held_out, relative=not absolute)
        theirs = statistics.median(v for (c, t, conf, _), v in published.items() if (c, t) == (cluster, test)
                                   and conf != "pure-mpi")
        predicted, actual = ev.crossover(True), ev.crossover(False)
        apart = dlpoly.steps_apart(predicted, actual)
        summary.add_row(cluster, str(test), f"{ev.median_hybrid_error(held_out):.1f}%", f"{theirs:.1f}%",
                        str(predicted or "none"), str(actual or "none"), "–" if apart is None else str(apart))
        if verbose:
            console.print(_fit_table(f"{cluster} test {test}: parameters", [ev.stage1, ev.stage2]))
            rows = Table(title=f"{cluster} test {test}: predicted vs measured")
            for col in ("configuration", "cores", "measured", "predicted", "band", "% error", "in band", "fitted on"):
                rows.add_column(col, justify="left" if col == "configuration" else "right")
            for r in ev.rows:
                rows.add_row(r.point.configuration, str(r.point.cores), f"{r.point.seconds:.4g}", f"{r.predicted:.4g}",
                             f"{r.low:.4g} – {r.high:.4g}", f"{r.error:.1f}", "yes" if r.inside else "no",
                             "yes" if r.trained else "held out")
            console.print(rows)
    console.print(summary)
    console.print("Median error: over the hybrid (H1, H2) points" + (" held out." if held_out else "."))


@model_app.command("pmnf")
def pmnf_command(
    results_dir: Annotated[Path, typer.Argument(help="A results directory (holding results.db).")],
    metric: Annotated[str, typer.Option(help="loop_time, or a region name (e.g. force).")] = "loop_time",
    study_name: Annotated[Optional[str], typer.Option("--study", help="Which study (default: the latest).")] = None,
) -> None:
    """Fit an Extra-P-style model time(cores) per configuration and parameter set, negative exponents allowed."""
    if not (results_dir / "results.db").exists():
        fail(f"{results_dir} has no results.db (run `hybridperf study SPEC` first)")
    with Store(results_dir) as store:
        names = store.studies()
        name = study_name or (names[-1] if names else None)
        if name not in names:
            fail(f"{results_dir} has no study to model")
        st = spec.from_dict(store.study_spec(name))
        runs = [r for r in store.runs(name) if r["status"] == "ok"]
    table = Table(title=f"{name}: {metric}(p), p = cores, selected by leave-one-out SMAPE")
    for col in ("parameters", "configuration", "points", "model", "CV SMAPE"):
        table.add_column(col)
    from hybridperf.analysis import analyse

    for section in analyse(st, runs):
        for config in st.configurations:
            pts = [p for p in section.points if p.configuration == config and p.runs]
            p_values = [p.cores for p in pts for _ in p.runs]
            y = [r["loop_time"] if metric == "loop_time" else r["profile"]["regions"].get(metric, {}).get("time", {}).get("avg")
                 for p in pts for r in p.runs]
            if any(v is None for v in y):
                fail(f"runs of {name} have no region '{metric}'")
            try:
                h = pmnf.select(np.array(p_values), np.array(y))
                table.add_row(section.title(), config, str(len(pts)), h.formula(), f"{h.smape:.2f}%")
            except ValueError as err:
                table.add_row(section.title(), config, str(len(pts)), f"– ({err})", "–")
    console.print(table)
