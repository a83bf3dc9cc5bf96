"""Cluster presets of the split model, built from the cluster descriptions (hybridperf.cluster: the shipped ones —
the thesis's machines and Chow & Hysom's IBM SP — and the user's), each figure with its source or marked assumed.
`PRESETS` is read on first use, not at import: importing the models reads no file.

A figure a description marks assumed is marked so in the Cluster too (`Cluster.assumed`), and
`hybridperf recommend` prints how far every input would have to move to change the answer. For the MD
problem the thesis also publishes what a Merlin core computes per atom-step (Table 4.8) and how much its
force loop loses to threads (Tables 4.6/4.7): `md_problem_on` uses both. On any other cluster those are
borrowed from another machine, as are a calibration's own runs on any preset: `borrowed` marks them assumed."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Any

from hybridperf import cluster
from hybridperf.models import published
from hybridperf.models.split import Cluster, log2_scaled, md_problem, Problem, ThreadEfficiency


def from_description(spec: cluster.ClusterSpec) -> Cluster:
    """The split model's view of a description: latency and time per byte between and within nodes, and the
    fork/join cost scaled from the thread count it was measured at with log2 T (a tree barrier)."""
    fields = {"alpha_inter": spec.latency, "beta_inter": spec.bandwidth, "alpha_intra": spec.intra_latency,
              "beta_intra": spec.intra_bandwidth, "par_overhead": spec.fork_join}
    assumed = frozenset(name for name, f in fields.items() if f.assumed)
    named = ", ".join(f"{n} {f.text}" for n, f in spec.figures().items() if f.assumed)
    source = f"clusters/{spec.key}.yaml: {spec.description}" + (f"; assumed: {named}" if named else "")
    return Cluster(spec.name, spec.nodes, spec.cores_per_node, spec.sockets, alpha_inter=spec.latency.value,
                   beta_inter=1 / spec.bandwidth.value, alpha_intra=spec.intra_latency.value,
                   beta_intra=1 / spec.intra_bandwidth.value, par_overhead=log2_scaled(spec.fork_join.value, spec.fork_join_threads), source=source, assumed=assumed)


@cache
def _presets() -> dict[str, Cluster]:
    return {name: from_description(cluster.load(name)) for name in cluster.names()}


def __getattr__(name: str) -> Any:
    """PRESETS (name -> Cluster, every description found), made when first asked for."""
    if name == "PRESETS":
        return _presets()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


THESIS_SMALL_SIZE, THESIS_STEPS = 160, 500  # 4 x 160^3 = 16,384,000 atoms, the thesis's small simulation


def md_problem_on(size: int = THESIS_SMALL_SIZE, steps: int = THESIS_STEPS) -> Problem:
    """The thesis's MD code on a Merlin core: its published computation per atom-step as the work, and its
    published threading losses in force as e_mt; our kernel's halo geometry (density, cut-off)."""
    atoms = 4 * size**3
    rate = published.merlin_md_seconds_per_atom_step()
    points, source = published.merlin_thread_efficiency()
    problem = md_problem(atoms, steps, rate * atoms * steps)
    return replace(problem, thread_efficiency=ThreadEfficiency(points, source),
                   work_source=f"thesis Table 4.8: {rate * 1e9:.0f} ns per atom-step on a Merlin core (pure MPI, "
                               "128 cores: force, movea, moveb, hloop)")


THESIS_MACHINE = "merlin"  # the cluster md_problem_on's work rate and threading losses were measured on


def borrowed(problem: Problem, whose: str, on: str) -> Problem:
    """The problem with the figures it took from another machine marked assumed: its work and its measured or
    published threading losses are `whose` (Merlin's, this machine's), not those of the cluster it is priced on
    (`on`), whose processor may be faster or slower and lose more or less to threads. Figures already assumed or
    given stay as they are."""
    note = f"assumed: {whose}, another machine than {on}; "
    eff = problem.thread_efficiency
    if eff.points and not eff.assumed:
        problem = replace(problem, thread_efficiency=replace(eff, source=note + eff.source))
    if problem.work_source.startswith(("assumed", "given")):
        return problem
    return replace(problem, work_source=note + problem.work_source)
