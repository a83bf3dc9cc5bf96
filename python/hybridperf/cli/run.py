"""`hybridperf info`, `run` and `compare`: this machine, one run of a kernel, and its splits raced here."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from hybridperf.analysis import affinity, compare, failure
from hybridperf.analysis.race import Rule
from hybridperf.analysis.scaling import problem_size
from hybridperf.files import strict_json
from hybridperf.cli.ui import console, ConsoleObserver, errors, fail, user_error, USER_ERRORS
from hybridperf import shapes
from hybridperf.launch import kernels, machine, quiet
from hybridperf.launch.lines import Configuration, FLAVORS, LaunchError
from hybridperf.launch.runner import (default_profile_path, execute, execute_copies, prepare, prepare_copies,
                                      RunOutcome)
from hybridperf.profile import figure
from hybridperf.report import machine_table, terminal as summary
from hybridperf.shapes import ALL
from hybridperf.store.db import Store
from hybridperf.study import adhoc
from hybridperf.study.expand import undecidable
from hybridperf.study.registry import backend_for
from hybridperf.study.run import run_study
from hybridperf.study.spec import duration, fraction

commands = typer.Typer()  # the root (cli/app.py) takes these by name


@commands.command()
def info(as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False) -> None:
    """This machine (hwloc), the MPI libraries and launchers, the OpenMP runtime, and the kernels found."""
    m = machine.local_machine()
    found = {}
    for k in kernels.KERNELS:
        try:
            path = kernels.kernel_path(k)
            found[k] = {"path": str(path), **kernels.build_info(path)}
        except kernels.KernelNotFound as err:
            found[k] = {"error": str(err)}
    data = {
        "machine": {**m.__dict__, "caches": [c.__dict__ for c in m.caches], "sites": [s.__dict__ for s in m.sites]},
        "launchers": {f: kernels.launcher_version(f) for f in FLAVORS},
        "kernels": found,
    }
    if as_json:
        print(strict_json(data, indent=2))
        return
    shown = {**data["machine"], "cores_per_package": m.cores_per_package, "threads_per_core": m.threads_per_core}
    console.print(summary.rich_table(*machine_table.table(shown, data["launchers"], found), left=2))


@commands.command(
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    epilog="Options not listed here go to the kernel (see hybridperf-KERNEL --help), e.g. "
    "`hybridperf run md --ranks 2 --threads 1 -s 30 --steps 200`.",
)
def run(
    ctx: typer.Context,
    kernel: Annotated[str, typer.Argument(help=f"Kernel to run: {', '.join(kernels.KERNELS)}.")],
    ranks: Annotated[int, typer.Option(help="MPI ranks in total.")] = 1,
    threads: Annotated[int, typer.Option(help="OpenMP threads per rank.")] = 1,
    nodes: Annotated[int, typer.Option(help="Nodes; ranks are spread evenly over them.")] = 1,
    launcher: Annotated[
        Optional[str], typer.Option(help="openmpi, mpich or slurm (default: the kernel's own MPI library).")
    ] = None,
    hostfile: Annotated[Optional[str], typer.Option(help="Hostfile for several nodes outside Slurm.")] = None,
    results: Annotated[Path, typer.Option(help="Directory that keeps the profile.")] = Path("results"),
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the command and environment; run nothing.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show the kernel's own output as it runs.")] = False,
    copies: Annotated[int, typer.Option(
        help="Run this many copies of the 1 rank x 1 thread run at once, each bound to its own core, and keep each "
             "profile: the node's speed with every core busy, which the calibrated model reads (docs/models.md).")] = 1,
) -> None:
    """Run one kernel with RANKS x THREADS, show its summary and keep its profile."""
    try:
        if nodes < 1 or ranks < 1 or ranks % nodes:
            raise LaunchError(f"--ranks {ranks} must be a positive multiple of --nodes {nodes}")
        if launcher is not None and launcher not in FLAVORS:
            raise LaunchError(f"--launcher must be one of {', '.join(FLAVORS)}, got '{launcher}'")
        node = machine.local_machine()
        config = Configuration(nodes, ranks // nodes, threads, node.cores, oversubscribe=True)
        path = default_profile_path(results, kernel, config)
        kernel_args = list(ctx.args)
        if "--profile" in kernel_args:
            if copies > 1:
                raise LaunchError("--copies writes one profile per copy into --results: leave out --profile")
            path = Path(kernel_args[kernel_args.index("--profile") + 1])
        if copies > 1:
            if (nodes, ranks, threads) != (1, 1, 1):
                raise LaunchError("--copies runs copies of the 1 rank x 1 thread run: leave out --ranks, --threads "
                                  "and --nodes")
            launches = prepare_copies(kernel, node, copies, kernel_args, path, flavor=launcher)  # type: ignore[arg-type]
            launch = launches[0][0]
        else:
            launch = prepare(kernel, config, kernel_args, path, flavor=launcher, hostfile=hostfile)  # type: ignore[arg-type]
    except USER_ERRORS as err:
        user_error(err)
    if copies > 1 and not dry_run:
        _run_copies(kernel, launches)
        return
    for w in launch.warnings:
        errors.print(f"[yellow]warning:[/yellow] {w}")
    if dry_run:
        try:  # the kernel checks its arguments as the real run would, so no line is printed that it would refuse
            kernels.check_args(kernel, tuple(kernel_args))
            if kernels.checks_decomposition(kernel):
                refusal = kernels.check_decomposition(kernel, tuple(kernel_args), (ranks,))[ranks]
                if refusal:
                    raise kernels.KernelRefused(refusal)
        except kernels.KernelRefused as err:
            fail(f"hybridperf-{kernel} would refuse this run: {err}")
        print("\n".join(line.shell() for line, _ in launches) if copies > 1 else launch.shell())
        return
    if verbose:
        console.print(launch.shell(), markup=False, highlight=False)
        outcome = execute(launch, path, echo=True)
    else:
        with console.status(f"running {kernel}: {ranks} rank(s) x {threads} thread(s)"):
            outcome = execute(launch, path)
    if outcome.profile is None:
        _failed(outcome, "the run")
    warnings = affinity.placement_warnings(outcome.profile["run"], node.cores)
    summary.show(outcome.profile, console, warnings)
    console.print(f"profile: {outcome.profile_path}")
    if outcome.returncode:
        raise typer.Exit(outcome.returncode)


def _run_copies(kernel: str, launches: list) -> None:
    """The copies at once; each one's loop time, and where its profile is kept."""
    with console.status(f"running {kernel}: {len(launches)} copies of 1 rank x 1 thread at once"):
        outcomes = execute_copies(launches)
    for k, outcome in enumerate(outcomes):
        if outcome.profile is None:
            _failed(outcome, f"copy {k}")
        console.print(f"copy {k}: loop {figure(outcome.profile, 'loop_time'):.4g} s, profile: {outcome.profile_path}")


def _failed(outcome: RunOutcome, what: str) -> None:
    """Why a run wrote no profile, then exit."""
    errors.print(failure.reason(outcome.stderr) or "(its error output was only the launcher's boilerplate)",
                 markup=False, highlight=False)
    fail(f"{what} failed (exit status {outcome.returncode}) and wrote no profile", outcome.returncode or 1)


@commands.command(
    name="compare",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    epilog="Options not listed here go to the kernel, e.g. `hybridperf compare md -s 24 --steps 200`.",
)
def compare_splits(
    ctx: typer.Context,
    kernel: Annotated[str, typer.Argument(help=f"Kernel to run: {', '.join(kernels.KERNELS)}.")],
    splits: Annotated[
        Optional[str],
        typer.Option(
            "--splits", help="Comma-separated RANKSxTHREADS, or all: every split of this node (default: 1x1, pure "
                             "MPI, hybrid 1 and 2 ranks/node)."
        ),
    ] = None,
    results: Annotated[Optional[Path], typer.Option(help="The study's results directory (default: "
                                                         "results/compare-KERNEL).")] = None,
    confidence: Annotated[str, typer.Option(help="Confidence of the verdict, over every look and pair.")] = "90%",
    tie_within: Annotated[str, typer.Option(help="Differences below this are a tie (e.g. 2% or 0.02).")] =
        f"{100 * Rule().tie_within:g}%",
    max_blocks: Annotated[int, typer.Option(help="Most blocks (each runs every split still racing once).")] =
        Rule().max_blocks,
    budget: Annotated[str, typer.Option(help="Most running time, e.g. 90s, 5m, or none.")] = "3m",
    interval: Annotated[str, typer.Option(help="The confidence sequence: huber or sign "
                                               "(docs/study-spec.md).")] = Rule().interval,
) -> None:
    """Race a kernel's ranks x threads splits on this node, in blocks of random order, until one wins or they
    tie: a study without a file (the study's rule: docs/study-spec.md), stored and reported as every study is,
    and its splits compared side by side."""
    try:
        cores = machine.local_machine().cores
        if splits == ALL:
            chosen = [compare.RanksThreads(r, t) for r, t in shapes.splits(cores)]
        else:
            chosen = [compare.parse_split(s) for s in splits.split(",")] if splits else compare.default_splits(cores)
        chosen = list(dict.fromkeys(chosen))
        if max_blocks < 1:
            raise ValueError(f"--max-blocks must be at least 1, got {max_blocks}")
        rule = {"confidence": fraction(confidence, "--confidence"), "tie_within": fraction(tie_within, "--tie-within"),
                "min_blocks": min(3, max_blocks), "max_blocks": max_blocks, "budget": duration(budget, "--budget"),
                "interval": interval}
        Rule(**rule)
        directory = results or Path("results") / f"compare-{kernel}"
        st = adhoc.compare_study(kernel, list(ctx.args), [(s.ranks, s.threads) for s in chosen], cores, rule,
                                 str(directory))
        for line in undecidable(st):
            errors.print(f"[yellow]warning:[/yellow] {line}", highlight=False)
        with Store(directory) as store:
            outcome = run_study(st, store, backend_for(st, directory), ConsoleObserver(console), "hybridperf compare",
                                quiet.check())
            runs = store.runs(st.name, outcome.campaign)
    except USER_ERRORS as err:
        user_error(err)
    if outcome.ended == "interrupted":
        errors.print(f"interrupted: the runs so far are stored in {directory}; run the same command to resume")
        raise typer.Exit(130)
    medians = [(s, p) for s in chosen if (p := _median_run(runs, s)) is not None]
    if not medians:
        fail("every run failed; nothing to compare", 1)
    for title, race in outcome.races.items():
        console.print(summary.comparison_table(compare.comparison_rows(medians), kernel, race))
        sizes = {str(s): problem_size(p) for s, p in medians}
        if len(set(sizes.values())) > 1:
            console.print(f"[yellow]warning:[/yellow] the splits solved problems of different sizes "
                          f"({', '.join(f'{s}: {n:,.0f}' for s, n in sizes.items() if n)}), so their times, speedups "
                          "and verdict do not compare one problem (spmv's --n is a brick per rank or node: "
                          "docs/spmv.md)", highlight=False)
        console.print(race.line(f"{kernel} {' '.join(ctx.args)}".strip()), markup=False)
    console.print(f"runs stored in {directory} (hybridperf report {directory})")


def _median_run(runs: list[dict], split: compare.RanksThreads) -> dict | None:
    """The profile of the split's run whose loop time is the median of its ok runs (the lower of the middle two)."""
    ok = [r["profile"] for r in runs if r["status"] == "ok" and r["profile"]
          and (r["ranks_per_node"], r["threads"]) == (split.ranks, split.threads)]
    ordered = sorted(ok, key=lambda p: figure(p, "loop_time"))
    return ordered[(len(ordered) - 1) // 2] if ordered else None
