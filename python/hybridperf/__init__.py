"""hybridperf: performance engineering of hybrid MPI+OpenMP programs on multi-core clusters."""

__version__ = "0.1.0"
