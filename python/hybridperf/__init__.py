"""hybridperf: performance engineering of hybrid MPI+OpenMP programs on multi-core clusters."""


def __getattr__(name: str) -> str:
    """`hybridperf.__version__`, pyproject.toml's as installed, read when asked: every command starts faster for not
    reading the package metadata it does not print."""
    if name != "__version__":
        raise AttributeError(f"module 'hybridperf' has no attribute '{name}'")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hybridperf")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"
