"""Relative paths in a spec name files beside the spec (docs/study-spec.md#paths).

A spec copied with its inputs (`inputs/lj-melt.lmp` next to it) works from any directory, and one that
names a file under the directory it is run from (the repository's `results/potentials/…`) keeps working:
a relative path is taken beside the spec when a file of that name is there, and as given otherwise. It is
rewritten relative to the current directory, where the runs start, so launch lines stay short. A path
whose folder exists in neither place cannot be read or written by any run, so it is refused before
anything runs rather than failing every run alike.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable


def beside(base: Path, value: str) -> str:
    """`value` resolved against the spec's directory when a file of that name is there, else as given."""
    if not _relative_path(value):
        return value
    there = base / value
    return os.path.relpath(there) if there.is_file() else value


def nowhere(base: Path, value: str) -> bool:
    """A relative path with a folder in it whose folder is neither beside the spec nor here."""
    if not _relative_path(value) or "/" not in value:
        return False
    folder = os.path.dirname(value)
    return not (base / folder).is_dir() and not Path(folder).is_dir()


def resolve_app(app: Any, base: Path, error: Callable[[tuple, str], Exception]) -> Any:
    """The app block with its command's and launcher's relative paths resolved (other blocks as given)."""
    if not isinstance(app, dict) or not isinstance(app.get("command"), list):
        return app  # the app's own validation says what is wrong with it
    command = []
    for i, word in enumerate(app["command"]):
        word = beside(base, word) if isinstance(word, str) else word
        if isinstance(word, str) and nowhere(base, word):
            places = ("here (the spec's directory)" if base.resolve() == Path.cwd().resolve() else
                      f"beside the spec ({base}) or under the current directory")
            raise error(("command", i), f"'{word}': there is no folder '{os.path.dirname(word)}' {places}; give a "
                                        "path that exists")
        command.append(word)
    launcher = app.get("launcher")
    return {**app, "command": command, **({"launcher": beside(base, launcher)} if isinstance(launcher, str) else {})}


def _relative_path(value: str) -> bool:
    """A word that could be a relative file name: not an option, an absolute path, a folder from the environment
    ($NAME/...) or a placeholder."""
    return bool(value) and not value.startswith(("-", "/", "~", "$")) and "{" not in value
