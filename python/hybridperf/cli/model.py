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
from hybridperf.cluster import names as cluster_names
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


DEFAULT_SECONDS_PER_UNIT = {"md": 150e-9, "spmv": 40e-9}  # per atom-step / row-call: assumed, a 2010s core
CLUSTER_NAMES = cluster_names()


@model_app.command("recommend")
def recommend_command(
    cluster: Annotated[str, typer.Option(help=f"A description of clusters/ ({', '.join(CLUSTER_NAMES)}), or this "
                                              "(this machine, calibrated with --calibration).")] = "this",
    kernel: Annotated[str, typer.Option(help="md or spmv: the problem's shape; app: your own program, from its "
                                             "study's runs in --calibration (docs/apps.md).")] = "md",
    size: Annotated[Optional[int], typer.Option(help="md: fcc cells per side (4 s^3 atoms); spmv: n (brick "
                                                     "edge per core). Default: the calibration's serial run's; "
                                                     "on a preset md the thesis's small simulation (160); else "
                                                     "32 (md) or 40 (spmv).")] = None,
    steps: Annotated[Optional[int], typer.Option(help="md steps or spmv calls. Default: the serial run's; the "
                                                      "thesis's 500 on a preset md; else 100.")] = None,
    work_seconds: Annotated[Optional[float], typer.Option(help="The problem's serial time on one core "
                                                              "(default: scaled from the serial run in "
                                                              "--calibration; on a preset md from the thesis's "
                                                              "Table 4.8; else 150 ns per atom-step / 40 ns per "
                                                              "row-call, assumed).")] = None,
    nodes: Annotated[str, typer.Option(help="Node counts to consider, comma-separated.")] = "1,2,4,8,16,32,64",
    thread_loss: Annotated[Optional[float], typer.Option(help="Override the measured multithreading loss: e_mt(T) "
                                                              "= 1 / (1 + loss (T - 1)). Default: measured (the "
                                                              "calibration's 1xT and Tx1 runs; on a preset md the "
                                                              "thesis's Tables 4.6/4.7), else none (assumed).")] = None,
    calibration: Annotated[Optional[Path], typer.Option(help="A results directory holding mixbench ping-pong, "
                                                            "ompbench PARALLEL_FOR, stream (and serial kernel) "
                                                            "profiles; see docs/models.md.")] = None,
    future: Annotated[bool, typer.Option("--future", help="The thesis's what-if: 16 cores per node, an interconnect "
                                                         "of twice the bandwidth and half the latency, a doubled "
                                                         "problem.")] = False,
    simulate: Annotated[bool, typer.Option("--simulate", help="Answer from SimGrid (hybridperf simulate's replay of "
                                                              "the kernel's plan) instead of the closed form; "
                                                              "--cluster names a description of clusters/.")] = False,
    window: Annotated[int, typer.Option(min=1, help="--simulate: md steps (spmv calls) replayed, scaled to "
                                                    "--steps.")] = 20,
) -> None:
    """Predict every ranks x threads split per node, name the winner with its margin and the crossovers, and say
    how far each input would have to move to change the winner."""
    from dataclasses import replace

    from hybridperf.models import calibrate, presets, split

    try:
        counts = sorted({int(v) for v in nodes.split(",") if v.strip()})
    except ValueError:
        fail(f"--nodes must be comma-separated integers, not '{nodes}'")
    if not counts or counts[0] < 1:
        fail("--nodes needs node counts of 1 or more")
    if kernel not in (*DEFAULT_SECONDS_PER_UNIT, "app"):
        fail(f"--kernel must be md, spmv or app, not '{kernel}'")
    if kernel == "app":
        if calibration is None:
            fail("--kernel app needs --calibration: the results directory of the program's study (its own runs, "
                 "and mixbench, ompbench and stream profiles if you have them)")
        given = [name for name, value in (("--size", size), ("--steps", steps), ("--simulate", simulate)) if value]
        if given:
            fail(f"{', '.join(given)}: not for --kernel app (its problem is the one its runs solved)")
    if any(v is not None and v < 1 for v in (size, steps)) or (thread_loss or 0) < 0 or (work_seconds or 1) <= 0:
        fail("--size and --steps must be 1 or more, --thread-loss 0 or more, --work-seconds above 0")
    profiles = _profiles_of(calibration) if calibration else []
    if simulate:
        from hybridperf.cli.recommend_simulated import recommend_simulated

        given = [name for name, value in (("--future", future), ("--thread-loss", thread_loss),
                                          ("--work-seconds", work_seconds)) if value]
        if given:
            fail(f"{', '.join(given)}: closed-form inputs; --simulate takes its costs from --calibration (or, for md, "
                 "the thesis) and its network from the cluster description")

        recommend_simulated(cluster, kernel, size, steps, counts, profiles, window)
        return
    cal, serial = _calibration_from(profiles, kernel) if calibration else (None, None)
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
    problem = _problem(kernel, c, size, steps, serial, cluster in presets.PRESETS, profiles)
    threads = [sp.threads for sp in split.splits_of(c, 1)]
    measured = calibrate.thread_efficiency(profiles, kernel, serial) if profiles else None
    if thread_loss is not None:
        problem = replace(problem, thread_efficiency=split.ThreadEfficiency.from_loss(
            thread_loss, threads, f"given: --thread-loss {thread_loss:g}"))
    elif measured:
        problem = replace(problem, thread_efficiency=measured)
    if work_seconds is not None:
        problem = replace(problem, work_seconds=work_seconds, work_source=f"given: --work-seconds {work_seconds:g}")
    if future:
        c, problem = c.future(), problem.doubled()
    console.print(f"[bold]{c.name}[/bold]: {c.cores_per_node} cores per node; {c.source}")
    table = Table(title=f"{problem.name}: predicted seconds per split; the winner's margin over the runner-up "
                        f"± its Monte Carlo SD, and how often it wins under the inputs' uncertainty")
    table.add_column("nodes")
    for sp in split.splits_of(c, 1):
        table.add_column(f"{sp.ranks_per_node}r×{sp.threads}t", justify="right")
    for col in ("winner", "margin", "wins"):
        table.add_column(col, justify="left" if col == "winner" else "right")
    for n in counts:
        v = split.recommend(c, problem, n)
        cells = [f"{v.times[s2][0]:.4g}" for s2 in split.splits_of(c, n)]
        table.add_row(str(n), *cells, f"{v.winner.ranks_per_node}r×{v.winner.threads}t",
                      f"{100 * v.margin:.1f}±{100 * v.margin_error:.1f}%", f"{100 * v.confidence:.0f}%")
    console.print(table)
    for n, before, after in split.crossovers(c, problem, counts):
        console.print(f"the winner changes at {n} nodes ({n * c.cores_per_node} cores): "
                      f"{before.ranks_per_node}r×{before.threads}t -> {after.ranks_per_node}r×{after.threads}t")
    console.print(_sensitivity_table(c, problem, counts))


def _sensitivity_table(c, problem, counts: list[int]) -> Table:
    """Per input, its value and where it comes from, and per node count the factor that would change the winner."""
    from hybridperf.models import split

    table = Table(title="What would change the answer: the factor each input would have to be multiplied by (×) or "
                        f"divided by (÷) for another split to win; – none within ×{split.MOVES:g}")
    for col in ("input", "value; source", *(f"{n} node{'s' if n > 1 else ''}" for n in counts)):
        table.add_column(col, justify="left" if col in ("input", "value; source") else "right")
    verdicts = {n: split.sensitivity(c, problem, n) for n in counts}
    for name in verdicts[counts[0]]:
        cells = []
        for n in counts:
            move = verdicts[n][name]
            moves = [f"×{move.up:.3g}" if move.up else "", f"÷{1 / move.down:.3g}" if move.down else "",
                     f"loss ≥ {100 * move.loss:.2g}%/thread" if move.loss else ""]
            cells.append(" ".join(m for m in moves if m) or "–")
        table.add_row(name, verdicts[counts[0]][name].value, *cells)
    return table


def _problem(kernel: str, c, size: int | None, steps: int | None, serial: dict | None, preset: bool,
             profiles: list[dict]):
    """The problem to split: the serial run's, rescaled to size, steps and the node (an app's: from its own runs);
    on a preset cluster the thesis's MD code as published; else a default with an assumed work rate."""
    from dataclasses import replace

    from hybridperf.models import calibrate, presets, split

    if kernel == "app":
        if serial is None:
            fail("the calibration holds no run of the program at 1 rank x 1 thread: its serial work is not known")
        try:
            return calibrate.app_problem(profiles, serial)
        except ValueError as err:
            fail(str(err))
    if serial:
        return calibrate.problem_from(serial, size, steps, c.cores_per_node)
    if kernel == "md" and preset:
        return presets.md_problem_on(size or presets.THESIS_SMALL_SIZE, steps or presets.THESIS_STEPS)
    rate = DEFAULT_SECONDS_PER_UNIT[kernel]
    if kernel == "md":
        atoms, steps = 4 * (size or 32) ** 3, steps or 100
        problem = split.md_problem(atoms, steps, rate * atoms * steps)
    else:
        n, calls = size or 40, steps or 100
        problem = split.spmv_problem(n, c.cores_per_node, calls, rate * n**3 * c.cores_per_node * calls)
    unit = "atom-step" if kernel == "md" else "row-call"
    return replace(problem, work_source=f"assumed: {rate * 1e9:.0f} ns per {unit}")


def _profiles_of(directory: Path) -> list[dict]:
    """The ok profiles a results directory holds (`hybridperf run` writes runs/, studies write profiles/),
    oldest first; a one-line error when it holds none."""
    profiles = []
    for path in [*directory.glob("runs/*.json"), *directory.glob("profiles/*.json")]:
        try:
            profile = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        if isinstance(profile, dict) and profile.get("status") == "ok" and "run" in profile:
            profiles.append(profile)
    if not profiles:
        fail(f"{directory} holds no profiles (runs/*.json or profiles/*.json); see docs/models.md for the "
             "calibration runs")
    return sorted(profiles, key=lambda p: p["run"].get("start_time", ""))


def _calibration_from(profiles: list[dict], kernel: str):
    """mixbench, ompbench and stream profiles (and a serial run of the kernel); the latest of each kind counts."""
    from hybridperf.models import calibrate

    def latest(name: str, usable=lambda p: True):
        found = [p for p in profiles if p["kernel"] == name and usable(p)]
        return found[-1] if found else None

    pingpong = latest("mixbench", lambda p: "pingpong" in p["mixbench"].get("hockney", {}))
    parallel_for = latest("ompbench", lambda p: any(f["name"] == "overhead.PARALLEL_FOR"
                                                    for f in p["figures_of_merit"]))
    serial = latest(kernel, lambda p: p["run"]["ranks"] == p["run"]["threads_per_rank"] == 1)
    streams = {p["run"]["threads_per_rank"]: p for p in profiles if p["kernel"] == "stream"}
    return calibrate.calibration(pingpong, parallel_for, list(streams.values())), serial
