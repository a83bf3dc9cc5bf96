"""What the package ships besides its code, found with importlib.resources wherever it is installed:
`clusters/` (the seeds' machines, hybridperf.cluster), `data/` (published tables with their sources, and
`data/potentials/`), `studies/` (ready-made study specs, with the inputs they name in `studies/inputs/`).

A checkout has `clusters`, `data` and `studies` at its top as links to these folders, so that the paths the docs
show (`hybridperf study studies/local.yaml`) work there; an installed package is reached only through this module.
Nothing here reads a file: callers get paths, and read them when they are asked to.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def path(*parts: str) -> Path:
    """A shipped folder or file, e.g. path("clusters"). A Path rather than a Traversable: pip unpacks the package
    as files, and these paths are shown to users and handed to other programs."""
    return Path(str(files(__name__).joinpath(*parts)))


def study(name: str) -> Path | None:
    """The shipped study spec of that name (`local` is studies/local.yaml), or None."""
    found = path("studies", f"{name}.yaml")
    return found if "/" not in name and found.is_file() else None


def studies() -> list[str]:
    """The names of the shipped study specs."""
    return sorted(p.stem for p in path("studies").glob("*.yaml"))
