"""`hybridperf model recommend`: the ranks x threads split to use, from the closed-form split model (or, with
--simulate, from SimGrid: recommend_simulated), priced on a cluster description or on this machine's
calibration, with the measured runs beside the prediction and what would change the answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from hybridperf.cli.ui import console, errors, fail
from hybridperf.cluster import names as cluster_names

DEFAULT_SECONDS_PER_UNIT = {"md": 150e-9, "spmv": 40e-9}  # per atom-step / row-call: assumed, a 2010s core
CLUSTER_NAMES = cluster_names()



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
    window: Annotated[int, typer.Option(min=1, help="--simulate, --explain: md steps (spmv calls) replayed, scaled "
                                                    "to --steps.")] = 20,
    explain: Annotated[bool, typer.Option("--explain", help="Price every split both ways, the closed form beside "
                                                            "SimGrid's replay, part by part (compute, threading, "
                                                            "point-to-point, collectives), and say where they "
                                                            "disagree beyond their intervals, and in which "
                                                            "parts.")] = False,
) -> None:
    """Predict every ranks x threads split per node, name the winner with its margin and the crossovers, and say
    how far each input would have to move to change the winner."""
    from dataclasses import replace

    from hybridperf.models import calibrate, measured as beside, presets, split

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
    studies, runs = _stored_studies(calibration) if calibration else ([], [])
    if explain:
        given = [name for name, value in (("--simulate", simulate), ("--future", future),
                                          ("--thread-loss", thread_loss), ("--work-seconds", work_seconds),
                                          ("--kernel app", kernel == "app")) if value]
        if given:
            fail(f"{', '.join(given)}: not with --explain, which prices the same question both ways from the same "
                 "inputs (the closed form's overrides have no simulated counterpart)")
    if simulate:
        from hybridperf.cli.recommend_simulated import recommend_simulated

        given = [name for name, value in (("--future", future), ("--thread-loss", thread_loss),
                                          ("--work-seconds", work_seconds)) if value]
        if given:
            fail(f"{', '.join(given)}: closed-form inputs; --simulate takes its costs from --calibration (or, for md, "
                 "the thesis) and its network from the cluster description")

        recommend_simulated(cluster, kernel, size, steps, counts, profiles, window, studies)
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
    if measured:
        problem = replace(problem, thread_efficiency=measured)
    if cluster in presets.PRESETS and (serial or (kernel == "md" and cluster != presets.THESIS_MACHINE)):
        problem = presets.borrowed(problem, "this machine's" if serial else "Merlin's (the thesis's)", c.name)
    if thread_loss is not None:
        problem = replace(problem, thread_efficiency=split.ThreadEfficiency.from_loss(
            thread_loss, threads, f"given: --thread-loss {thread_loss:g}"))
    if work_seconds is not None:
        problem = replace(problem, work_seconds=work_seconds, work_error=split.Problem.work_error,
                          work_source=f"given: --work-seconds {work_seconds:g}")
    refused = beside.refusal(runs, kernel)
    if refused:
        problem = replace(problem, max_threads=refused[0] - 1, refusal=refused[1])
    for warning in (*(cal.warnings if cal and cluster == "this" else ()), *problem.thread_efficiency.warnings):
        errors.print(f"hybridperf: warning: {warning}", highlight=False, markup=False)
    if future:
        c, problem = c.future(), problem.doubled()
    if explain:
        from hybridperf.cli.recommend_simulated import explain as explained, simulation_of

        explained(c, problem, counts, simulation_of(cluster, kernel, size, steps, counts, profiles, window))
        return
    console.print(f"[bold]{c.name}[/bold]: {c.cores_per_node} cores per node; {c.source}")
    # runs measured on this machine answer for this machine's problem as the serial run posed it, not another
    same_question = cluster == "this" and serial is not None and not (size or steps or work_seconds or future)
    _print_recommendation(c, problem, counts, profiles if same_question else [], studies if same_question else [],
                          serial)
    console.print(_sensitivity_table(c, problem, counts))


def _print_recommendation(c, problem, counts: list[int], profiles: list[dict], studies: list,
                          serial: dict | None) -> None:
    """The predictions per split with their spread, the winner, its margin and how often it wins; the splits left
    out and why; where the calibration measured the same splits, their runs beside the predictions and the race's
    verdict, which overrules the prediction when it decided."""
    from hybridperf.models import split

    table = Table(title=f"{problem.name}: predicted seconds per split ± the prediction's SD (the inputs' error bars "
                        "and the spread of the runs they were measured on); the winner's margin over the runner-up "
                        "± its SD, and how often it wins under that uncertainty")
    table.add_column("nodes")
    for sp in split.splits_of(c, 1):
        table.add_column(f"{sp.ranks_per_node}r×{sp.threads}t", justify="right")
    for col in ("winner", "margin", "wins"):
        table.add_column(col, justify="left" if col == "winner" else "right")
    verdicts = {n: split.recommend(c, problem, n) for n in counts}
    for n, v in verdicts.items():
        cells = [f"{v.times[s][0]:.4g}±{100 * v.times[s][1] / v.times[s][0]:.0f}%" if s in v.times else "left out"
                 for s in split.splits_of(c, n)]
        alone = v.runner_up is None  # the others left out: nothing to win against
        margin = "–" if alone else f"{100 * v.margin:.1f}±{100 * v.margin_error:.1f}%"
        table.add_row(str(n), *cells, _name(v.winner), margin, "–" if alone else f"{100 * v.confidence:.0f}%")
    ones = split.splits_of(c, 1)
    row, decided = measured_beside(profiles, studies, serial, ones)
    if row:
        table.add_row("1, measured", *row)
    console.print(table)
    for s in ones:
        if split.refused(problem, s):
            console.print(f"{_name(s)} left out: the program was seen to refuse {s.threads} threads per rank — "
                          f"{problem.refusal}", highlight=False)
    for n, before, after in split.crossovers(c, problem, counts):
        console.print(f"the winner changes at {n} nodes ({n * c.cores_per_node} cores): {_name(before)} -> "
                      f"{_name(after)}")
    print_measured(row is not None, decided, verdicts[1].winner if 1 in verdicts else None)


def measured_beside(profiles: list[dict], studies: list, serial: dict | None, ones: list):
    """Where the calibration measured the splits of one node (`ones`) on the same problem: a table row of their
    runs' median ± spread (runs) per split, then the race's winner, the runner-up's lead and 'race' (None where none
    was measured); and the race (measured.Decision) among them, if one was run."""
    from hybridperf.models import measured as beside

    runs = beside.runs_of(profiles, serial, ones) if serial else {}
    decided = beside.decision(studies, serial, ones) if serial else None
    if not runs:
        return None, decided
    cells = ["–" if s not in runs else f"{runs[s].median:.4g} (1)" if runs[s].runs == 1
             else f"{runs[s].median:.4g}±{100 * runs[s].noise:.0f}% ({runs[s].runs})" for s in ones]
    race = decided.verdict if decided else None
    winner = "–" if race is None else _shape_name(decided.winner) if decided.decided else race.outcome
    lead = race.race.runner_up.lead_text() if race and race.race.runner_up else "–"
    return [*cells, winner, lead, "race" if race else "not raced"], decided


def print_measured(shown: bool, decided, predicted) -> None:
    """What the measured row means, the race's line, and whose answer stands: a decided race's, over the
    prediction (`predicted`, the predicted winner at one node)."""
    if shown:
        console.print("measured: median ± spread (runs) of the calibration's runs of the same problem and split",
                      highlight=False)
    if not decided:
        return
    console.print(decided.line(), highlight=False)
    if not decided.decided:
        console.print("the race did not decide: the prediction is only a prediction, and the measurements do not "
                      "confirm it", highlight=False)
        return
    agrees = predicted is not None and (predicted.ranks_per_node, predicted.threads) == decided.winner[1:]
    console.print(f"the answer at 1 node is the measured one, {_shape_name(decided.winner)}: the race decided"
                  + (" as predicted" if agrees else f", and overrules the prediction ({_name(predicted)})" if predicted
                     else ""),
                  highlight=False)


def _name(s) -> str:
    return f"{s.ranks_per_node}r×{s.threads}t"


def _shape_name(shape: tuple[int, int, int]) -> str:
    return f"{shape[1]}r×{shape[2]}t"


def _stored_studies(directory: Path) -> tuple[list, list[dict]]:
    """The results directory's studies, each as (name, the latest campaign's sections), and every run it stores,
    failed ones included; nothing where it holds no results.db (a directory of `hybridperf run` profiles)."""
    from hybridperf.cli.study import open_store, stored

    if not (directory / "results.db").exists():
        return [], []
    with open_store(directory) as store:
        names, runs = store.studies(), store.runs()
    return [(name, stored(directory, name).sections()) for name in names], runs


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
        return calibrate.problem_from(serial, size, steps, c.cores_per_node, calibrate.serial_work(profiles, serial))
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
    oldest first, each with its file noted (for warnings to name it); a one-line error when it holds none."""
    from hybridperf.models import calibrate

    profiles = []
    for path in [*directory.glob("runs/*.json"), *directory.glob("profiles/*.json")]:
        try:
            profile = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        if isinstance(profile, dict) and profile.get("status") == "ok" and "run" in profile:
            profiles.append({**profile, calibrate.FILE: str(path)})
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
