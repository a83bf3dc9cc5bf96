"""What every command shares: the consoles, the --debug switch, and the one-line error exit."""

from __future__ import annotations

import typer
from rich.console import Console

from hybridperf.launch import kernels
from hybridperf.launch.lines import LaunchError
from hybridperf.profile import ProfileError

console = Console(soft_wrap=True)
errors = Console(stderr=True, soft_wrap=True)
USER_ERRORS = (LaunchError, ProfileError, kernels.KernelNotFound, ValueError, OSError, RuntimeError)
state = {"debug": False}


def fail(message: str, code: int = 2) -> None:
    errors.print(f"hybridperf: error: {message}", highlight=False, markup=False)
    raise typer.Exit(code)


def user_error(err: Exception) -> None:
    """Re-raises with --debug (traceback), else exits with the one-line message. An exit already decided (click's
    Exit is a RuntimeError, so `except USER_ERRORS` catches it) goes on as it is."""
    if state["debug"] or isinstance(err, typer.Exit):
        raise err
    fail(str(err))
