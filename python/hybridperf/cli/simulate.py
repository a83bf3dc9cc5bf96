"""`hybridperf simulate SPEC --cluster NAME`, `hybridperf simulate validate` and `hybridperf simulate chain`: a
study on a described cluster through SimGrid, the simulator against the seeds' published outcomes, with
`--sensitivity` over the declared ranges of their assumed inputs (docs/simulation.md), and IMB's Sendrecv
chain at scale (docs/mixbench.md)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Annotated, Optional, TYPE_CHECKING

import typer

from hybridperf import cluster
from hybridperf.cli.simulate_app import replay_app
from hybridperf.cli.study import _report
from hybridperf.study.registry import backend_for, cores_per_node
from hybridperf.cli.ui import console, ConsoleObserver, errors, fail, USER_ERRORS, user_error
from hybridperf.files import strict_json, write_atomic
from hybridperf.predict import contests as moves, outcomes as swept_outcomes
from hybridperf.report import chain_tables, moves_table, seeds_tables
from hybridperf.report.terminal import rich_table
from hybridperf.simulate import app_replay, app_study, chain, rules, study as simulation, validate as validation, validate_spmv
from hybridperf.simulate.outcome import Declared, text as figure_text
from hybridperf.simulate.replay import SimGridMissing, smpirun
from hybridperf.store.db import holds_store, Store
from hybridperf.study import spec
from hybridperf.study.run import run_study

if TYPE_CHECKING:
    from hybridperf.simulate.backend import SimGridBackend

COSTS = ("auto", "measured", "thesis")


def _cores(text: str | None) -> tuple[int, ...] | None:
    if text is None:
        return None
    try:
        values = tuple(int(v) for v in text.split(","))
    except ValueError:
        fail(f"--cores takes core counts separated by commas (64,128,256), got {text!r}")
    if any(v < 1 for v in values):
        fail(f"--cores: core counts are whole numbers from 1, got {text!r}")
    return values


def simulate(
    target: Annotated[str, typer.Argument(metavar="SPEC|validate|chain",
                                          help="A study spec (YAML) to simulate, `validate` to simulate the "
                                               "seeds' experiments and compare with what they published, or "
                                               "`chain` for IMB's Sendrecv chain (mixbench --bench chain) on "
                                               "--cluster.")],
    cluster_name: Annotated[Optional[str], typer.Option("--cluster", help="A cluster description's name or file "
                                                        "(hybridperf cluster list).")] = None,
    cores: Annotated[Optional[str], typer.Option(help="Core counts, multiples of the node size (default: 1, 2, 4 "
                                                      "... nodes up to 64); chain: its rank counts, one rank per "
                                                      "core (default: 8, 16, ... 512).")] = None,
    sizes: Annotated[Optional[str], typer.Option(help="chain: message sizes in bytes, K M G = 2^10 2^20 2^30 "
                                                      "(default: 0, then 1 B to 4M by factors of 4).")] = None,
    steps: Annotated[Optional[int], typer.Option(min=1, help="Simulate this many steps instead of the spec's.")] = None,
    costs: Annotated[str, typer.Option(help="Compute costs: `measured` (this store's 1 rank x 1 thread run of the "
                                            "study, on this node), `thesis` (the thesis's Merlin core, md) or `auto` "
                                            "(measured where the store has such a run, else the thesis's for md).")]
    = "auto",
    results: Annotated[Optional[Path], typer.Option(help="Results directory (default: the spec's `results`).")]
    = None,
    as_json: Annotated[bool, typer.Option("--json", help="validate, chain: print the outcomes as JSON.")] = False,
    window: Annotated[int, typer.Option(min=1, help="validate: steps simulated of the thesis's 500.")] = 20,
    sensitivity: Annotated[bool, typer.Option("--sensitivity", help="Then replay each point's winner and runner-up "
                                                                    "with every assumed figure of the description, "
                                                                    "and the compute costs, halved and doubled: "
                                                                    "which moves change the answer (a table, and "
                                                                    "sensitivity-<cluster>.csv). validate: each "
                                                                    "outcome again across the declared range of "
                                                                    "each assumed input, one at a time: where its "
                                                                    "rule holds (many replays: see --outcome).")]
    = False,
    outcome_names: Annotated[Optional[str], typer.Option("--outcome", metavar="NAME[,NAME]",
                                                         help="validate: only these outcomes (names as --json gives "
                                                              "them).")] = None,
    grid: Annotated[Optional[int], typer.Option(min=1, help="validate --sensitivity: points per side of the nominal "
                                                            "value tried before bisecting a change (default "
                                                            f"{swept_outcomes.GRID}: the range's ends).")] = None,
    speed: Annotated[float, typer.Option(help="An app study's replay: the cluster's core speed over this machine's "
                                              "(its compute bursts take measured / SPEED seconds).")] = 1.0,
    ranks_per_node: Annotated[Optional[int], typer.Option(min=1, help="An app study's replay: ranks per node of the "
                                                                      "cluster (default: as measured, as many as a "
                                                                      "node holds).")] = None,
    noise_seed: Annotated[Optional[int], typer.Option("--noise-seed", help="Replay with the description's OS "
                                                      "noise, each node's speed profile drawn from this seed (a study "
                                                      "<name>-on-<cluster>-noise<seed>; the seed is stored with each "
                                                      "run).")] = None,
    write_report: Annotated[bool, typer.Option("--report/--no-report", help="A study: write its report at the end "
                                                                           "(report-<cluster>.html).")] = True,
) -> None:
    """Simulate a study's points on a described cluster with SimGrid (stored as runs marked simulated, study
    `<name>-on-<cluster>`, and reported), `validate` the simulator against the seeds at their scale, or replay
    IMB's Sendrecv `chain` on a cluster at its rank counts."""
    try:
        if sizes is not None and target != "chain":
            fail("--sizes is the chain's: hybridperf simulate chain --cluster NAME --sizes 0,1K,64K")
        if noise_seed is not None and target in ("chain", "validate"):
            fail(f"--noise-seed replays a study's points with the description's noise; simulate {target} does not "
                 "take it")
        if target == "chain":
            if sensitivity:
                fail("--sensitivity moves a simulated study's inputs; simulate chain replays one pattern")
            if outcome_names is not None or grid is not None:
                fail("--outcome and --grid are for simulate validate")
            if not cluster_name:
                fail("--cluster NAME is needed: one of " + ", ".join(cluster.names()))
            smpirun()  # before any replay: without SimGrid nothing here can run
            _chain(cluster.load(cluster_name), _cores(cores),
                   chain.parse_sizes(sizes) if sizes is not None else chain.DEFAULT_SIZES, as_json)
            return
        if target == "validate":
            if grid is not None and not sensitivity:
                fail("--grid is how finely --sensitivity sweeps: give it with --sensitivity")
            chosen = validation.chosen(tuple(outcome_names.split(",")) if outcome_names else None)
            smpirun()  # before any replay: without SimGrid nothing here can run
            if sensitivity:
                _validate_sensitivity(chosen, as_json, window, grid or swept_outcomes.GRID)
            else:
                _validate(chosen, as_json, window)
            return
        if outcome_names is not None or grid is not None:
            fail("--outcome and --grid are for simulate validate")
        smpirun()
        if not cluster_name:
            fail("--cluster NAME is needed: one of " + ", ".join(cluster.names()))
        if speed <= 0:
            fail(f"--speed is the cluster's core speed over this machine's, above 0; got {speed:g}")
        measured = spec.load(target, cores_per_node=cores_per_node)
        if measured.kernel == "app":
            _app(measured, cluster.load(cluster_name), results, speed, ranks_per_node, write_report,
                 cores=cores, steps=steps, costs=costs, sensitivity=sensitivity, noise_seed=noise_seed is not None)
            return
        if speed != 1.0 or ranks_per_node is not None:
            fail("--speed and --ranks-per-node are for replaying an app study's traces (kernel: app, trace: true)")
        if costs not in COSTS:
            fail(f"--costs is one of {', '.join(COSTS)}, got {costs!r}")
        described = cluster.load(cluster_name)
        study = simulation.on_cluster(spec.load(target, cores_per_node=described.cores_per_node), described,
                                      _cores(cores), steps, cluster_name, costs, noise_seed)
        directory = results or Path(study.results)
        if costs == "measured" and not holds_store(directory):
            fail(f"--costs measured needs a 1 rank x 1 thread run measured here, and {directory} has no results.db: "
                 "run the study first (hybridperf study SPEC)" + (", or use --costs thesis" if study.kernel == "md"
                                                                   else ""))
        # on_cluster's study names the simgrid backend, whose replays --sensitivity moves
        backend = backend_for(study, directory, say=lambda line: errors.print(line, highlight=False))
        with Store(directory) as store:
            outcome = run_study(study, store, backend, ConsoleObserver(console), target)
        if outcome.ended == "interrupted":
            errors.print(f"interrupted: campaign {outcome.campaign}'s {outcome.resumed + len(outcome.stored)} points "
                         f"are stored in {directory}; run the same command to resume")
            raise typer.Exit(130)
        if sensitivity:
            moved = _sensitivity(backend.spec, outcome.stored, backend)  # noise drawn as in the study
    except typer.Exit:
        raise
    except SimGridMissing as err:
        fail(str(err))
    except (cluster.ClusterError, simulation.SimulationError, chain.ChainError, app_study.NothingToReplay,
            app_replay.NotReplayable) as err:
        fail(str(err))
    except USER_ERRORS as err:
        user_error(err)
    console.print(f"{study.name}: {len(outcome.stored)} points simulated on {described.name}"
                  + (f" ({outcome.resumed} before)" if outcome.resumed else "")
                  + f", {len(outcome.failed)} failed; results in {directory / 'results.db'}")
    if sensitivity:
        _show_sensitivity(moved, described, directory / f"sensitivity-{described.key}.csv")
    if write_report:
        _report(directory, study.name, directory / f"report-{described.key}.html")


def _app(study: spec.Study, described: cluster.ClusterSpec, results: Optional[Path], speed: float,
         ranks_per_node: Optional[int], write_report: bool, **planned) -> None:
    """An app study's traced runs replayed on the cluster, shown, stored and reported; the options of planned
    simulation refused."""
    given = [f"--{k.replace('_', '-')}" for k, v in planned.items() if v not in (None, False, "auto")]
    if given:
        fail(f"{', '.join(given)}: an app study is replayed from its traces as it ran (its cores and steps); "
             "--speed and --ranks-per-node say how it runs on the cluster")
    directory = results or Path(study.results)
    name = replay_app(study, described, directory, speed, ranks_per_node)
    if write_report:
        _report(directory, name, directory / f"report-{described.key}.html")


def _sensitivity(described: cluster.ClusterSpec, stored: list, backend: SimGridBackend) -> list[moves.ContestMoves]:
    """The moves of the points this invocation replayed."""
    return moves.points(stored, backend.ran, described, backend.models_on, backend.plan_of,
                        progress=lambda line: errors.print(line, highlight=False))


def _show_sensitivity(found: list[moves.ContestMoves], described: cluster.ClusterSpec, path: Path) -> None:
    inputs = moves.inputs(described)
    contests = [(p.contest.params, p.contest.cores, p.contest.winner.configurations,
                 p.contest.runner_up.configurations, p.margin, [p.moves[k].text() for k in inputs]) for p in found]
    console.print(rich_table(*moves_table.table(described.name, inputs, contests), left=len(inputs) + 5))
    write_atomic(path, moves.csv_text(found, described))
    console.print(f"sensitivity: {path}")


def _chain(described: cluster.ClusterSpec, cores: tuple[int, ...] | None, sizes: tuple[int, ...],
           as_json: bool) -> None:
    counts = chain.rank_counts(described, cores)
    with tempfile.TemporaryDirectory(prefix="hybridperf-chain-") as work:
        points = chain.simulate(described, counts, sizes, Path(work),
                                progress=lambda line: errors.print(line, highlight=False))
    if as_json:
        print(strict_json(chain.as_json(points, described)))
        return
    console.print(rich_table(*chain_tables.overheads(described.name, described.cores_per_node, counts,
                                                     chain.overheads(points)), left=0))
    by = {(q.ranks, q.bytes): q.bandwidth_MBps for q in points if q.loop == "sendrecv"}
    console.print(rich_table(*chain_tables.bandwidth(described.name, described.cores_per_node, counts, sizes, by),
                             left=0))


WIDE_TABLE = 160  # columns from which validate's table gives each claim's source beside it


def _title(window: int) -> str:
    return seeds_tables.title(validation.SIZE, window, validation.STEPS, validate_spmv.WINDOW, validate_spmv.CALLS)


def _validate(chosen: list[Declared], as_json: bool, window: int) -> None:
    found = validation.outcomes(window, progress=lambda line: errors.print(line, highlight=False),
                                names=tuple(d.name for d in chosen))
    if as_json:
        print(strict_json(validation.as_json(found)))
        return
    # a claim's source is a paragraph: beside six columns it wraps to a word a line unless the terminal is wide
    wide = console.width >= WIDE_TABLE
    judged = [(o.claim, o.source, figure_text(o.published), figure_text(o.simulated),
               rules.describe(o.rule, o.tolerance), o.held_out, o.reproduced, o.closed_form) for o in found]
    console.print(rich_table(*seeds_tables.claims(_title(window), judged, wide), left=7))
    reproduced = [o for o in found if o.reproduced]
    console.print(f"{len(reproduced)} of {len(found)} outcomes reproduced, {sum(o.held_out for o in reproduced)} of "
                  f"them held out ({sum(o.held_out for o in found)} of {len(found)} held out); rules and published "
                  "figures in resources/data/validate-outcomes.yaml, docs/simulation.md explains the misses" +
                  ("" if wide else f"; each claim's source: --json, or a terminal {WIDE_TABLE} columns wide"))


def _validate_sensitivity(chosen: list[Declared], as_json: bool, window: int, grid: int) -> None:
    def say(line: str) -> None:
        errors.print(line, highlight=False)

    started = time.monotonic()
    found = swept_outcomes.swept(swept_outcomes.Sweeper.replaying(window, validate_spmv.WINDOW, say), chosen,
                                 grid)
    say(f"swept in {time.monotonic() - started:.0f} s")
    if as_json:
        print(strict_json(swept_outcomes.as_json(found)))
        return
    wide = console.width >= WIDE_TABLE
    outcomes = [(s.outcome.name, s.outcome.reproduced, [(h.input, h.nominal, h.range, h.text()) for h in s.sensitivity])
                for s in found]
    console.print(rich_table(*seeds_tables.swept(_title(window), grid, swept_outcomes.BISECTIONS, outcomes, wide),
                             left=6))
    steady = [s for s in found if s.outcome.reproduced and all(h.holds_everywhere for h in s.sensitivity)]
    console.print(f"{sum(s.outcome.reproduced for s in found)} of {len(found)} outcomes reproduced at the nominal "
                  f"inputs, {len(steady)} of them across every declared range; ranges and their sources in "
                  "clusters/*.yaml and resources/data/validate-outcomes.yaml (docs/simulation.md)" +
                  ("" if wide else f"; each input's whole source: --json, or a terminal {WIDE_TABLE} columns wide"))
