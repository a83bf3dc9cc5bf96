"""The `hybridperf` command line: thin typer commands over the other layers (the only layer that imports all)."""

from hybridperf.cli.app import main

__all__ = ["main"]
