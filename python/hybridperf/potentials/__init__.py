"""Analytic many-body potentials (Gupta / Cleri-Rosato; Dai et al.'s extended Finnis-Sinclair) tabulated as LAMMPS
eam/fs (setfl) files, so that hybridperf-md and LAMMPS run the very same file (docs/potentials.md).

`forms` holds the analytic functions, `params` the parameter files (data/potentials/), `sums` direct lattice sums
and `setfl` the file's text: all pure but `params.load`. Writing the file is the CLI's (hybridperf potential).
"""
