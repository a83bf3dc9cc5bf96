"""The `hybridperf` command line: thin wrappers that parse options, call the pure core, and print.

Errors a user can fix are one line on stderr and exit status 2 (tracebacks only with --debug);
a kernel's own exit status is passed through.

Each command lives in its own module, imported only when it runs: `hybridperf report` loads what a report needs,
not the simulator (a command started in 0.5 s when every module was loaded; most of it was other commands').
The root's --help, and an unknown command, load them all.
"""

from __future__ import annotations

import importlib
import sys
from typing import Annotated, Iterable

import typer

import hybridperf
from hybridperf.cli.ui import console, errors, state

# Each command's module, and the attribute there that is the command: a function, a typer group of subcommands, or
# `commands`, a typer holding it. In the order --help lists them.
MODULES: dict[str, dict[str, str]] = {
    "hybridperf.cli.run": {"info": "commands", "run": "commands", "compare": "commands"},
    "hybridperf.cli.study": {"study": "study", "report": "report", "efficiency": "efficiency", "results": "results_app"},
    "hybridperf.cli.model": {"model": "model_app"},
    "hybridperf.cli.cluster": {"cluster": "cluster_app"},
    "hybridperf.cli.potential": {"potential": "potential_app"},
    "hybridperf.cli.simulate": {"simulate": "simulate"},
    "hybridperf.cli.recommend": {"recommend": "recommend_command"},
}
COMMANDS = {name: (module, attribute) for module, named in MODULES.items() for name, attribute in named.items()}
GROUPS = {"results", "model", "cluster", "potential"}  # commands with subcommands of their own
ROOT_OPTIONS = {"--debug", "--version", "--help"}


def _version(value: bool) -> None:
    if value:
        console.print(f"hybridperf {hybridperf.__version__}")
        raise typer.Exit()


def main_options(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks for errors.")] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    state["debug"] = debug


def root(names: Iterable[str]) -> typer.Typer:
    """The command line with these commands, in the table's order."""
    app = typer.Typer(
        add_completion=False,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        help="Performance engineering of hybrid MPI+OpenMP programs: which ranks x threads split wins, and why.",
    )
    app.callback()(main_options)
    wanted = set(names)
    for name, (module, attribute) in COMMANDS.items():
        if name not in wanted:
            continue
        found = getattr(importlib.import_module(module), attribute)
        if name in GROUPS:
            app.add_typer(found, name=name)
        elif isinstance(found, typer.Typer):
            app.registered_commands += [c for c in found.registered_commands
                                        if (c.name or c.callback.__name__) == name]
        else:
            app.command(name=name)(found)
    return app


def _named(argv: list[str]) -> list[str]:
    """The command that argv runs, alone; none for --version; every command where it names none (the root's help)
    or an unknown one (click's error suggests the nearest)."""
    leading = 0
    while leading < len(argv) and argv[leading] in ROOT_OPTIONS:
        leading += 1
    if leading < len(argv):
        return [argv[leading]] if argv[leading] in COMMANDS else list(COMMANDS)
    return [] if "--version" in argv and "--help" not in argv else list(COMMANDS)


def __getattr__(name: str) -> typer.Typer:
    """`from hybridperf.cli.app import app`: the whole command line (typer's test runner invokes it in-process)."""
    if name == "app":
        return root(COMMANDS)
    raise AttributeError(name)


def main() -> None:
    try:
        root(_named(sys.argv[1:]))()
    except KeyboardInterrupt:
        errors.print("hybridperf: interrupted")
        sys.exit(130)
