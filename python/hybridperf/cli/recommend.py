"""`hybridperf recommend`: which ranks x threads split to use, answered by one of three predictors (predict/) —
`--by model` (the closed-form split model), `--by simulation` (SimGrid's replay), `--by measured` (a stored
study's race) — with one table of predictions, one of what would change the answer, and one JSON shape for all
three. `hybridperf model recommend [--simulate]` is the old spelling: it still works and says so. This module
reads the results directory and prints; the answering is predict's."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional, TYPE_CHECKING

import typer

from hybridperf.cli.ui import console, errors, fail
from hybridperf.files import strict_json, write_atomic
from hybridperf.predict.answer import METHODS, Unanswerable
from hybridperf.report.terminal import rich_table

if TYPE_CHECKING:
    from hybridperf.predict.question import Question


def progress(line: str) -> None:
    errors.print(line, highlight=False, markup=False)


def recommend_command(
    ctx: typer.Context,
    by: Annotated[str, typer.Option(help="How to answer: model (the closed-form split model), simulation "
                                         "(SimGrid's replay of the kernel's plan) or measured (a stored study's "
                                         "race; --results names its results directory).")] = "model",
    cluster: Annotated[str, typer.Option(help="A cluster description's name or file (hybridperf cluster list), or "
                                              "this (this machine, calibrated with --calibration).")] = "this",
    kernel: Annotated[str, typer.Option(help="md or spmv: the problem's shape; app: your own program, from its "
                                             "study's runs in --calibration (docs/apps.md).")] = "md",
    size: Annotated[Optional[int], typer.Option(help="md: fcc cells per side (4 s^3 atoms); spmv: n (brick "
                                                     "edge per core). Default: the calibration's serial run's; "
                                                     "on a preset md the thesis's small simulation (160); else "
                                                     "32 (md) or 40 (spmv). --by measured: which of the study's "
                                                     "problems.")] = None,
    steps: Annotated[Optional[int], typer.Option(help="md steps or spmv calls. Default: the serial run's; the "
                                                      "thesis's 500 on a preset md; else 100.")] = None,
    work_seconds: Annotated[Optional[float], typer.Option(help="model: the problem's serial time on one core "
                                                              "(default: scaled from the serial run in "
                                                              "--calibration; on a preset md from the thesis's "
                                                              "Table 4.8; else 150 ns per atom-step / 40 ns per "
                                                              "row-call, assumed).")] = None,
    nodes: Annotated[str, typer.Option(help="Node counts to consider, comma-separated.")] = "1,2,4,8,16,32,64",
    thread_loss: Annotated[Optional[float], typer.Option(help="model: override the measured multithreading loss: "
                                                              "e_mt(T) = 1 / (1 + loss (T - 1)). Default: measured "
                                                              "(the calibration's 1xT and Tx1 runs; on a preset md "
                                                              "the thesis's Tables 4.6/4.7), else none "
                                                              "(assumed).")] = None,
    calibration: Annotated[Optional[Path], typer.Option("--calibration", "--results",
                                                        help="A results directory: mixbench ping-pong, ompbench "
                                                             "PARALLEL_FOR, stream and serial kernel profiles for "
                                                             "model and simulation (docs/models.md); its studies "
                                                             "for measured.")] = None,
    study: Annotated[Optional[str], typer.Option(help="--by measured, or --kernel app: which stored study "
                                                      "(default: the latest measured one).")] = None,
    future: Annotated[bool, typer.Option("--future", help="model: the thesis's what-if: 16 cores per node, an "
                                                         "interconnect of twice the bandwidth and half the latency, "
                                                         "a doubled problem.")] = False,
    window: Annotated[int, typer.Option(min=1, help="simulation, --explain: md steps (spmv calls) replayed, scaled "
                                                    "to --steps.")] = 20,
    explain: Annotated[bool, typer.Option("--explain", help="Price every split both ways, the closed form beside "
                                                            "SimGrid's replay, part by part (compute, threading, "
                                                            "point-to-point, collectives), and say where they "
                                                            "disagree beyond their intervals, and in which "
                                                            "parts.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the recommendation as JSON (one shape for every "
                                                         "--by).")] = False,
    html: Annotated[Optional[Path], typer.Option(help="Also write the recommendation as an HTML page here.")] = None,
    simulate: Annotated[bool, typer.Option("--simulate", hidden=True, help="The old spelling of --by "
                                                                           "simulation.")] = False,
) -> None:
    """Predict every ranks x threads split per node, name the winner with its lead and verdict and the crossovers,
    and say how far each input would have to move to change the winner."""
    # predict/ and the simulator behind it, imported when asked: every other command starts without them
    from hybridperf.predict import render
    from hybridperf.predict.holdings import calibration_of, replayed_app, study_sections
    from hybridperf.predict.question import measured_study, modelled, NONE, recommendation, simulated

    if "model" in ctx.command_path.split():
        progress("hybridperf: note: `hybridperf model recommend` is now `hybridperf recommend`"
                 + (" --by simulation" if simulate else ""))
    by = "simulation" if simulate else by
    if html and not html.parent.is_dir():  # before any replay is spent on an answer that cannot be written
        fail(f"--html {html}: no folder {html.parent}")
    q = _question(by, cluster, kernel, size, steps, work_seconds, nodes, thread_loss, future, window, explain,
                  calibration)
    try:
        cal = calibration_of(calibration) if calibration else NONE
        if explain:
            from hybridperf.cli.explain import explain as explained

            explained(modelled(q, cal), simulated(q, cal, progress))
            return
        if by == "simulation" and kernel == "app":
            posed = replayed_app(calibration, study, cluster, progress)
        else:
            posed = (modelled(q, cal) if by == "model" else simulated(q, cal, progress) if by == "simulation"
                     else measured_study(*study_sections(calibration, study), size, cluster))
        for warning in posed.warnings:
            progress(f"hybridperf: warning: {warning}")
        rec = recommendation(q, posed, cal, progress)
    except Unanswerable as err:
        fail(str(err))
    except _replay_failures() as err:
        fail(str(err))
    if html:
        try:
            write_atomic(html, render.html_page(rec))
        except OSError as err:
            fail(f"--html {html}: {err.strerror}")
    if as_json:
        print(strict_json(render.as_json(rec)))
        return
    if rec.disagreement:  # first: the prediction below is contradicted by this machine's own race
        console.print(f"[bold yellow]{rec.disagreement}[/bold yellow]", highlight=False)
    console.print(f"[bold]{rec.about}[/bold]", highlight=False)
    console.print(rich_table(*render.verdicts_table(rec), left=3, compact=True, whole=3))  # names one types
    console.print(rich_table(*render.predictions_table(rec), compact=True))
    console.print(rich_table(*render.sensitivity_table(rec), left=3, compact=True))  # input, value, source: words
    for line in render.lines(rec):
        console.print(line, highlight=False)


def _replay_failures() -> tuple[type[Exception], ...]:
    from hybridperf.predict.simulated import FAILURES

    return FAILURES


def _question(by: str, cluster: str, kernel: str, size: int | None, steps: int | None, work_seconds: float | None,
              nodes: str, thread_loss: float | None, future: bool, window: int, explain: bool,
              calibration: Path | None) -> Question:
    """The options as a question, or a one-line error naming the option at fault."""
    from hybridperf.predict.question import KERNELS, Question

    if by not in METHODS:
        fail(f"--by must be one of {', '.join(METHODS)}, not '{by}'")
    try:
        counts = tuple(sorted({int(v) for v in nodes.split(",") if v.strip()}))
    except ValueError:
        fail(f"--nodes must be comma-separated integers, not '{nodes}'")
    if not counts or counts[0] < 1:
        fail("--nodes needs node counts of 1 or more")
    if kernel not in KERNELS:
        fail(f"--kernel must be md, spmv or app, not '{kernel}'")
    if any(v is not None and v < 1 for v in (size, steps)) or (thread_loss or 0) < 0 or (work_seconds or 1) <= 0:
        fail("--size and --steps must be 1 or more, --thread-loss 0 or more, --work-seconds above 0")
    closed_form = [name for name, value in (("--future", future), ("--thread-loss", thread_loss),
                                            ("--work-seconds", work_seconds)) if value]
    if kernel == "app":
        if calibration is None:
            fail("--kernel app needs --calibration: the results directory of the program's study (its own runs, "
                 "and mixbench, ompbench and stream profiles if you have them)")
        given = [name for name, value in (("--size", size), ("--steps", steps)) if value]
        if given:
            fail(f"{', '.join(given)}: not for --kernel app (its problem is the one its runs solved)")
    if explain and (closed_form or kernel == "app" or by != "model"):
        given = closed_form + ["--kernel app"] * (kernel == "app") + [f"--by {by}"] * (by != "model")
        fail(f"{', '.join(given)}: not with --explain, which prices the same question both ways from the same "
             "inputs (the closed form's overrides have no simulated counterpart)")
    if by == "simulation" and closed_form:
        fail(f"{', '.join(closed_form)}: closed-form inputs; --by simulation takes its costs from --calibration (or, "
             "for md, the thesis) and its network from the cluster description")
    if by == "measured":
        if calibration is None:
            fail("--by measured needs --calibration (or --results): the results directory of a study")
        given = closed_form + ["--steps"] * bool(steps)
        if given:
            fail(f"{', '.join(given)}: not for --by measured, which answers for the machine and problem its study "
                 "ran")
    return Question(cluster, kernel, size, steps, counts, work_seconds, thread_loss, future, window)
