"""hybridperf: performance engineering of hybrid MPI+OpenMP programs on multi-core clusters."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("hybridperf")  # pyproject.toml's, as installed
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "unknown"
