"""What every command shares: the consoles, the --debug switch, the one-line error exit, and a study's progress
on the console (`ConsoleObserver`, the observer study.run reports to)."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

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


class ConsoleObserver:
    """study.run's observer on a console: the races decided as a progress bar, under it what the scheduler says."""

    def __init__(self, console: Console):
        self.console = console
        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("races decided"), TimeElapsedColumn(), console=console, transient=False)
        self.task: TaskID  # the races', from `racing` on

    def started(self, text: str) -> None:
        self.console.print(text, markup=False)

    def racing(self, title: str, total: int, decided: int) -> None:
        self.task = self.bar.add_task(title, total=total, completed=decided)
        self.bar.start()

    def block(self, description: str) -> None:
        self.bar.update(self.task, description=description)

    def advance(self) -> None:
        self.bar.advance(self.task)

    def line(self, text: str) -> None:
        self.console.print(text, highlight=False, markup=False)

    def warning(self, text: str) -> None:
        self.console.print(f"[yellow]warning:[/yellow] {escape(text)}", highlight=False)

    def failed(self, status: str, what: str, reason: str, launch: str) -> None:
        self.console.print(f"[red]{escape(status)}[/red] {escape(what)}: {escape(reason)}\n"
                           f"  [dim]launch: {escape(launch)}[/dim]", highlight=False)

    def finished(self) -> None:
        self.bar.stop()

    def budget_spent(self, seconds: float, undecided: int) -> None:
        self.console.print(f"[yellow]budget spent[/yellow] ({seconds:.0f} s of runs): {undecided} race(s) undecided")
