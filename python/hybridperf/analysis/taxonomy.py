"""MPC's taxonomy of hybrid modes (Carribault et al., seed-spec §G.1), applied to a run's shape.

Per node: P cores, N MPI tasks, T threads per task, tasks spawning their threads on C_i = T cores.
- pure MPI: no OpenMP parallelism (T = 1 here; MPC writes T_i = 0 for "no threads");
- pure OpenMP: a single task on a single node with threads (no MPI parallelism at all);
- fully hybrid: N = 1 task per node with threads, MPI across nodes;
- simple mixed: N > 1 tasks with threads and sum C_i = N T <= P (one flow per core);
- oversubscribed mixed: N > 1 tasks with threads and N T > P; its sub-mode fully mixed is one task
  per core each using the whole node (N = P, T = P).
MPC's fifth mode, alternating, describes how a program uses its tasks and threads over time, not a
shape, so it is never assigned from a configuration. Oversubscription is reported separately for
every class (a pure-MPI run with more ranks than cores is still pure MPI).
"""

from __future__ import annotations

from dataclasses import dataclass

CLASSES = ("pure-mpi", "pure-openmp", "fully-hybrid", "simple-mixed", "oversubscribed-mixed", "fully-mixed")


@dataclass(frozen=True)
class Mode:
    name: str
    oversubscribed: bool


def classify(cores_per_node: int, ranks_per_node: int, threads: int, nodes: int = 1) -> Mode:
    if min(cores_per_node, ranks_per_node, threads, nodes) < 1:
        raise ValueError("cores, ranks, threads and nodes must all be at least 1")
    over = ranks_per_node * threads > cores_per_node
    if threads == 1:
        return Mode("pure-mpi", over)
    if ranks_per_node == 1:
        return Mode("pure-openmp" if nodes == 1 else "fully-hybrid", over)
    if not over:
        return Mode("simple-mixed", False)
    if ranks_per_node == cores_per_node and threads == cores_per_node:
        return Mode("fully-mixed", True)
    return Mode("oversubscribed-mixed", True)
