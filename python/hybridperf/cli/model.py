"""`hybridperf model ...`: the thesis's models on published data and on stored studies, PMNF fits, and
the recommendation of a ranks x threads split."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Annotated, Optional

import numpy as np
import typer
from rich.table import Table

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
) -> None:
    """Evaluate the overall runtime model (eq. 6.10) on the published DL_POLY timings (data/): held out first."""
    points, published = dlpoly.load(), dlpoly.thesis_errors()
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
    """Fit the thesis's models on a stored study (communication models on pure MPI only) and evaluate them."""
    from hybridperf.analysis.sections import analyse
    from hybridperf.report import html as report

    st, runs = _study(results_dir, study_name)
    for section in analyse(st.design, runs):
        for title, headers, rows in report.model_tables(section, st.cores_per_node):
            table = Table(title=f"{section.title()}: {title}")
            for h in headers:
                table.add_column(h)
            for row in rows:
                table.add_row(*row)
            console.print(table if headers else title)


def _study(results_dir: Path, study_name: str | None):
    """The study's spec and its successful runs."""
    from hybridperf.cli.study import stored_study

    st, runs = stored_study(results_dir, study_name)
    return st, [r for r in runs if r["status"] == "ok"]


DEFAULT_SECONDS_PER_UNIT = {"md": 150e-9, "spmv": 40e-9}  # per atom-step / row-call: a 2010s core


@model_app.command("recommend")
def recommend_command(
    cluster: Annotated[str, typer.Option(help="merlin, stella, cseem64t-infinipath, cseem64t-gige, or this "
                                              "(this machine, calibrated with --calibration).")] = "this",
    kernel: Annotated[str, typer.Option(help="md or spmv: the problem's shape.")] = "md",
    size: Annotated[Optional[int], typer.Option(help="md: fcc cells per side (4 s^3 atoms); spmv: n (brick "
                                                     "edge per core). Default: the calibration's serial run's, "
                                                     "else 32 (md) or 40 (spmv).")] = None,
    steps: Annotated[Optional[int], typer.Option(help="md steps or spmv calls. Default: the serial run's, else "
                                                      "100.")] = None,
    work_seconds: Annotated[Optional[float], typer.Option(help="The problem's serial time on one core "
                                                              "(default: scaled from the serial run in "
                                                              "--calibration, else 150 ns per atom-step / 40 ns "
                                                              "per row-call).")] = None,
    nodes: Annotated[str, typer.Option(help="Node counts to consider, comma-separated.")] = "1,2,4,8,16,32,64",
    thread_loss: Annotated[float, typer.Option(help="Multithreading loss per extra thread (e_mt = 1 / (1 + "
                                                    "loss (T - 1))).")] = 0.0,
    calibration: Annotated[Optional[Path], typer.Option(help="A results directory holding mixbench ping-pong, "
                                                            "ompbench PARALLEL_FOR, stream (and serial kernel) "
                                                            "profiles; see docs/models.md.")] = None,
    future: Annotated[bool, typer.Option("--future", help="The thesis's what-if: 16 cores per node, twice the "
                                                         "bandwidth, half the latency, a doubled problem.")] = False,
) -> None:
    """Predict every ranks x threads split per node, name the winner with its margin, and the crossovers."""
    from dataclasses import replace

    from hybridperf.models import calibrate, presets, split

    try:
        counts = sorted({int(v) for v in nodes.split(",") if v.strip()})
    except ValueError:
        fail(f"--nodes must be comma-separated integers, not '{nodes}'")
    if not counts or counts[0] < 1:
        fail("--nodes needs node counts of 1 or more")
    if kernel not in DEFAULT_SECONDS_PER_UNIT:
        fail(f"--kernel must be md or spmv, not '{kernel}'")
    if any(v is not None and v < 1 for v in (size, steps)) or thread_loss < 0 or (work_seconds or 1) <= 0:
        fail("--size and --steps must be 1 or more, --thread-loss 0 or more, --work-seconds above 0")
    cal, serial = _calibration_from(calibration, kernel) if calibration else (None, None)
    if cluster == "this":
        from hybridperf.launch.machine import local_machine

        c = calibrate.this_machine(cal or calibrate.calibration(None, None, []), local_machine().cores,
                                   kernel in calibrate.BANDWIDTH_BOUND)
        counts = [1]
    elif cluster in presets.PRESETS:
        c = presets.PRESETS[cluster]
    else:
        fail(f"unknown cluster '{cluster}': use this or one of {', '.join(presets.PRESETS)}")
    counts = [k for k in counts if k <= c.nodes]
    if not counts:
        fail(f"{c.name} has {c.nodes} nodes: --nodes asks for more")
    problem = _problem(kernel, c.cores_per_node, size, steps, serial)
    problem = replace(problem, thread_efficiency=lambda t: 1 / (1 + thread_loss * (t - 1)))
    if work_seconds is not None:
        problem = replace(problem, work_seconds=work_seconds)
    if future:
        c, problem = c.future(), problem.doubled()
    console.print(f"[bold]{c.name}[/bold]: {c.cores_per_node} cores per node; {c.source}")
    table = Table(title=f"{problem.name}: predicted seconds per split; the winner's margin over the runner-up "
                        f"± its Monte Carlo SD, and how often it wins under the inputs' uncertainty")
    table.add_column("nodes")
    splits = split.splits_of(c, 1)
    for s in splits:
        table.add_column(f"{s.ranks_per_node}r×{s.threads}t", justify="right")
    table.add_column("winner")
    table.add_column("margin", justify="right")
    table.add_column("wins", justify="right")
    for n in counts:
        v = split.recommend(c, problem, n)
        cells = [f"{v.times[s2][0]:.4g}" for s2 in split.splits_of(c, n)]
        table.add_row(str(n), *cells, f"{v.winner.ranks_per_node}r×{v.winner.threads}t",
                      f"{100 * v.margin:.1f}±{100 * v.margin_error:.1f}%", f"{100 * v.confidence:.0f}%")
    console.print(table)
    for n, before, after in split.crossovers(c, problem, counts):
        console.print(f"the winner changes at {n} nodes ({n * c.cores_per_node} cores): "
                      f"{before.ranks_per_node}r×{before.threads}t -> {after.ranks_per_node}r×{after.threads}t")


def _problem(kernel: str, cores_per_node: int, size: int | None, steps: int | None, serial: dict | None):
    """The problem to split: the serial run's, rescaled to size, steps and the node, or a default."""
    from hybridperf.models import calibrate, split

    if serial:
        return calibrate.problem_from(serial, size, steps, cores_per_node)
    if kernel == "md":
        atoms, steps = 4 * (size or 32) ** 3, steps or 100
        return split.md_problem(atoms, steps, DEFAULT_SECONDS_PER_UNIT["md"] * atoms * steps)
    n, calls = size or 40, steps or 100
    return split.spmv_problem(n, cores_per_node, calls, DEFAULT_SECONDS_PER_UNIT["spmv"] * n**3 * cores_per_node * calls)


def _profiles_in(directory: Path) -> list[dict]:
    """The ok profiles a results directory holds (`hybridperf run` writes runs/, studies write profiles/),
    oldest first."""
    profiles = []
    for path in [*directory.glob("runs/*.json"), *directory.glob("profiles/*.json")]:
        try:
            profile = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        if isinstance(profile, dict) and profile.get("status") == "ok" and "run" in profile:
            profiles.append(profile)
    return sorted(profiles, key=lambda p: p["run"].get("start_time", ""))


def _calibration_from(directory: Path, kernel: str):
    """mixbench, ompbench and stream profiles (and a serial run of the kernel) from a results directory;
    the latest of each kind counts."""
    from hybridperf.models import calibrate

    profiles = _profiles_in(directory)
    if not profiles:
        fail(f"{directory} holds no profiles (runs/*.json or profiles/*.json); see docs/models.md for the "
             "calibration runs")

    def latest(name: str, usable=lambda p: True):
        found = [p for p in profiles if p["kernel"] == name and usable(p)]
        return found[-1] if found else None

    pingpong = latest("mixbench", lambda p: "pingpong" in p["mixbench"].get("hockney", {}))
    parallel_for = latest("ompbench", lambda p: any(f["name"] == "overhead.PARALLEL_FOR"
                                                    for f in p["figures_of_merit"]))
    serial = latest(kernel, lambda p: p["run"]["ranks"] == p["run"]["threads_per_rank"] == 1)
    streams = {p["run"]["threads_per_rank"]: p for p in profiles if p["kernel"] == "stream"}
    return calibrate.calibration(pingpong, parallel_for, list(streams.values())), serial
