"""Cluster presets: the thesis's machines (seed-spec §A.11, §C) with what the seeds publish about them.

Used as published: cores and sockets per node, node counts, Merlin's 1.8 us Infiniband latency, and EPCC's
PARALLEL FOR overhead measured on Merlin (Table 3.1), scaled with log2 of the thread count (the other
presets' nodes are of the same Xeon generation). Everything else is a typical figure of that hardware
generation and is marked assumed (`Cluster.assumed`); `hybridperf model recommend` prints, for every input,
how far it would have to move to change the answer. For the MD problem the thesis also publishes what a
Merlin core computes per atom-step (Table 4.8) and how much its force loop loses to threads (Tables
4.6/4.7): `md_problem_on` uses both."""

from __future__ import annotations

from dataclasses import replace

from hybridperf.models import published
from hybridperf.models.split import Cluster, Problem, ThreadEfficiency, md_problem

SHARED_MEMORY = dict(alpha_intra=0.5e-6, beta_intra=1 / 4e9)  # assumption: MPI within a 2008-era node
ASSUMED_ON_NODE = frozenset({"alpha_intra", "beta_intra"})
FORK_JOIN = dict(par_overhead=published.merlin_fork_join)

PRESETS = {
    "merlin": Cluster("Merlin", 256, 8, 2, alpha_inter=1.8e-6, beta_inter=1 / 1.5e9, **SHARED_MEMORY, **FORK_JOIN,
                      source="thesis §3.1: 256 nodes, 2 x quad-core Xeon E5472, Infiniband with 1.8 us latency; "
                             "bandwidth 1.5 GB/s assumed (DDR Infiniband); fork/join from Table 3.1",
                      assumed=ASSUMED_ON_NODE | {"beta_inter"}),
    "stella": Cluster("Stella", 16, 8, 2, alpha_inter=12e-6, beta_inter=1 / 1.1e9, **SHARED_MEMORY, **FORK_JOIN,
                      source="thesis Table 3.4: 8-core nodes (2 x quad-core), 10 Gigabit Ethernet; latency 12 us and "
                             "1.1 GB/s assumed; fork/join from Merlin's Table 3.1",
                      assumed=ASSUMED_ON_NODE | {"alpha_inter", "beta_inter"}),
    "cseem64t-infinipath": Cluster("CSEEM64T (Infinipath)", 32, 4, 2, alpha_inter=1.3e-6, beta_inter=1 / 0.9e9,
                                   **SHARED_MEMORY, **FORK_JOIN,
                                   source="thesis §3.1: 32 nodes, 2 x dual-core Xeon 5160, Infinipath; 1.3 us and "
                                          "0.9 GB/s assumed; fork/join from Merlin's Table 3.1",
                                   assumed=ASSUMED_ON_NODE | {"alpha_inter", "beta_inter"}),
    "cseem64t-gige": Cluster("CSEEM64T (GigE)", 32, 4, 2, alpha_inter=50e-6, beta_inter=1 / 110e6, **SHARED_MEMORY,
                             **FORK_JOIN,
                             source="thesis §3.1: the same nodes over Gigabit Ethernet; 50 us and 110 MB/s assumed; "
                                    "fork/join from Merlin's Table 3.1",
                             assumed=ASSUMED_ON_NODE | {"alpha_inter", "beta_inter"}),
}
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
