"""`hybridperf cluster ...`: the cluster descriptions (yours, then the shipped presets) and the SimGrid platforms
made from them."""

from __future__ import annotations

import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Optional

import typer

from hybridperf import cluster, profile
from hybridperf.analysis import failure
from hybridperf.cli.ui import console, errors, fail
from hybridperf.files import write_atomic
from hybridperf.launch import quiet, runner
from hybridperf.launch.lines import Configuration
from hybridperf.launch.machine import local_machine
from hybridperf.report import cluster_table
from hybridperf.report.terminal import rich_table

cluster_app = typer.Typer(help="Cluster descriptions (yours, then the shipped presets) and their SimGrid platforms.",
                          no_args_is_help=True)


def _load(name: str) -> cluster.ClusterSpec:
    try:
        return cluster.load(name)
    except cluster.ClusterError as err:
        fail(str(err))


@cluster_app.command("list")
def list_command() -> None:
    """Every description: nodes, cores, network, how many of its figures are assumed, and where it comes from
    ($HYBRIDPERF_CLUSTERS's folders, then yours, then the shipped presets; the first of a name wins)."""
    console.print("Cluster descriptions, looked for in: " + "; ".join(f"{d} ({origin})"
                                                                      for d, origin in cluster.directories()),
                  highlight=False, soft_wrap=True)
    rows = []
    for name, (_, origin) in cluster.found().items():
        spec = _load(name)
        assumed = [n for n, f in spec.figures().items() if f.assumed]
        rows.append([name, spec.name, f"{spec.nodes} × {spec.cores_per_node}",
                     f"{spec.latency.text}, {spec.bandwidth.text}, {spec.topology.kind}", str(len(assumed)), origin])
    # the name is what one types (--cluster NAME): never cut nor folded
    console.print(rich_table("", ["name", "cluster", "nodes × cores", "network", "assumed", "from"], rows, left=6,
                             compact=True, whole=1))


@cluster_app.command("show")
def show_command(name: Annotated[str, typer.Argument(help="A description's name (hybridperf cluster list).")]) -> None:
    """One description, every figure with its source or marked assumed (with its plausible range, where declared)."""
    spec = _load(name)
    console.print(f"[bold]{spec.name}[/bold] ({name}): {spec.description}. Modelled as {spec.nodes} nodes of "
                  f"{spec.sockets} x {spec.cores_per_socket} cores.")
    console.print(rich_table(*cluster_table.table({label: asdict(f) for label, f in spec.figures().items()},
                                                  asdict(spec.topology), asdict(spec.noise) if spec.noise else None),
                             left=3))


@cluster_app.command("platform")
def platform_command(
    name: Annotated[str, typer.Argument(help="A description's name (hybridperf cluster list).")],
    out: Annotated[Optional[Path], typer.Option(help="Write the platform here (default: print it).")] = None,
) -> None:
    """The SimGrid platform (XML, version 4.1) of a description, for smpirun -platform."""
    text = cluster.platform_xml(_load(name))
    if out is None:
        print(text, end="")
        return
    try:
        write_atomic(out, text)
    except OSError as err:
        fail(f"cannot write {out}: {err.strerror}")
    console.print(f"platform: {out} ({len(cluster.host_names(_load(name)))} hosts)")


def _measure(kernel: str, ranks: int, threads: int, cores: int, args: list[str], work: Path) -> dict:
    """One run of a micro-benchmark here; its profile."""
    path = work / f"{kernel}.json"
    launch = runner.prepare(kernel, Configuration(1, ranks, threads, cores), args, path)
    console.print(f"measuring: {launch.shell()}", highlight=False)
    outcome = runner.execute(launch, path, timeout=300)
    if outcome.profile is None:
        fail(f"{kernel} failed ({outcome.returncode}): {failure.reason(outcome.stderr) or 'it said nothing'}")
    return outcome.profile


@cluster_app.command("measure")
def measure_command(
    out: Annotated[Optional[Path], typer.Option(help="Write the description here (default: this-machine.yaml in "
                                                     "your folder of descriptions, hybridperf cluster list).")] = None,
    pingpong: Annotated[Optional[Path], typer.Option(help="Use this hybridperf-mixbench -b pingpong profile "
                                                          "instead of measuring.")] = None,
    ompbench: Annotated[Optional[Path], typer.Option(help="Use this hybridperf-ompbench profile (PARALLEL_FOR or "
                                                          "PARALLEL) instead of measuring.")] = None,
    cores: Annotated[Optional[int], typer.Option(min=2, help="Cores of the node (default: this machine's, "
                                                             "from hwloc).")] = None,
    sockets: Annotated[Optional[int], typer.Option(min=1, help="Sockets of the node (default: this machine's, "
                                                               "from hwloc).")] = None,
    host: Annotated[Optional[str], typer.Option(help="The node's name (default: this machine's).")] = None,
    noise_quanta: Annotated[int, typer.Option(min=0, help="Fixed work quanta of 1 ms each thread times for the "
                                                          "OS noise (0: no noise measured).")] = 2000,
) -> None:
    """Describe this machine as a one-node cluster (`--cluster this-machine`): the MPI latency and bandwidth
    between two of its ranks, OpenMP's fork/join at all its cores and the OS noise its cores meet (a fixed work
    quantum timed over and over), measured here in a few seconds."""
    out = out or cluster.user_dir() / f"{cluster.THIS_MACHINE}.yaml"
    node = local_machine()
    cores = cores or node.cores
    if cores < 2:
        fail("a one-core machine has no intra-node messages to measure; describe it by hand (docs/clusters.md)")
    busy = quiet.check().get("warnings", []) if not (pingpong and ompbench) else []
    for warning in busy:  # what another process takes is measured as this machine's noise and latency
        errors.print(f"[yellow]warning:[/yellow] {warning} (the OS noise and latencies measured now include it)",
                     highlight=False)
    try:
        with tempfile.TemporaryDirectory(prefix="hybridperf-measure-") as work:
            ping = profile.load(pingpong) if pingpong else _measure(
                "mixbench", 2, 1, cores, ["-b", "pingpong", "--max-size", "4194304", "-n", "2000"], Path(work))
            omp = profile.load(ompbench) if ompbench else _measure(
                "ompbench", 1, cores, cores, ["-c", "PARALLEL_FOR", "--noise-quanta", str(noise_quanta)], Path(work))
        text = cluster.describe_node(host or node.hostname, cores, sockets or min(node.packages, cores), ping, omp,
                                     time.strftime("%Y-%m-%d"))
        spec = cluster.parse(text, out.stem, str(out))  # a measurement that makes no description is refused here
        out.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(out, text)
    except cluster.ClusterError as err:
        fail(str(err))
    except (OSError, ValueError) as err:
        fail(f"cannot describe this machine: {err}")
    console.print(f"{out}: {spec.name}, {spec.cores_per_node} cores, intra-node {spec.intra_latency.text} and "
                  f"{spec.intra_bandwidth.text}, fork/join {spec.fork_join.text} at {spec.fork_join_threads} threads"
                  + (f", OS noise {spec.noise.mean:.3g} mean slowdown per {spec.noise.interval_text}"
                     if spec.noise else ""))
