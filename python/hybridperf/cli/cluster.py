"""`hybridperf cluster ...`: the cluster descriptions in clusters/ and the SimGrid platforms made from them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from hybridperf import cluster
from hybridperf.cli.ui import console, fail
from hybridperf.files import write_atomic

cluster_app = typer.Typer(help="Cluster descriptions (clusters/*.yaml) and their SimGrid platforms.",
                          no_args_is_help=True)


def _load(name: str) -> cluster.ClusterSpec:
    try:
        return cluster.load(name)
    except cluster.ClusterError as err:
        fail(str(err))


@cluster_app.command("list")
def list_command() -> None:
    """Every description: nodes, cores, network, and how many of its figures are assumed."""
    table = Table(title=f"Cluster descriptions in {cluster.CLUSTERS}")
    for col in ("name", "cluster", "nodes", "cores/node", "network", "assumed figures"):
        table.add_column(col, justify="right" if col in ("nodes", "cores/node") else "left")
    for name in cluster.names():
        spec = _load(name)
        assumed = [n for n, f in spec.figures().items() if f.assumed]
        table.add_row(name, spec.name, str(spec.nodes), str(spec.cores_per_node),
                      f"{spec.latency.text}, {spec.bandwidth.text}, {spec.topology.kind}", str(len(assumed)))
    console.print(table)


@cluster_app.command("show")
def show_command(name: Annotated[str, typer.Argument(help="A description's name (hybridperf cluster list).")]) -> None:
    """One description, every figure with its source or marked assumed."""
    spec = _load(name)
    console.print(f"[bold]{spec.name}[/bold] ({name}): {spec.description}. Modelled as {spec.nodes} nodes of "
                  f"{spec.sockets} x {spec.cores_per_socket} cores.")
    table = Table()
    for col in ("figure", "value", "source"):
        table.add_column(col)
    for label, figure in spec.figures().items():
        table.add_row(label, figure.text, "[yellow]assumed[/yellow]" + (f": {figure.source}" if figure.source else "")
                      if figure.assumed else figure.source)
    topology = spec.topology
    table.add_row("topology", " ".join([topology.kind, *map(str, topology.parameters)]),
                  "[yellow]assumed[/yellow]" if topology.assumed else topology.source)
    console.print(table)


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
