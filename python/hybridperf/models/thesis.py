"""The thesis's performance models (Chorley, ch. 2.4 and ch. 6; seed-spec §D), exactly as written.

Symbols: P particles (or any measure of the problem), N_mpi MPI processes in total, N_ppn processes per
node, N_omp threads per process, alpha a per-message (or per-process) overhead, beta a time per unit of
data, gamma a time per byte of computation, K the share of point-to-point traffic that leaves the node
(1 for hybrid with one process per node, 5/6 with two, 1/2 for pure MPI), eta the point-to-point share of
communication, phi the time per unit of work in a threaded loop, mu the OpenMP overhead factor, rho the
time per unit of unthreaded work. `log` is the natural logarithm (the thesis fitted with Mathematica,
whose Log is natural).

The rule for N_mpi = 1 (which the thesis needed but did not write down): a single process sends no
messages, so every communication model is 0 there. The P / log N_mpi terms of eqs. 6.3, 6.4 and 6.6
would otherwise divide by log 1 = 0; the thesis's tables show the same treatment (Table 6.8 reports a
100% error for H1 on one node, i.e. a prediction of 0).
All functions accept numpy arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hybridperf.shapes import shape

K_THESIS = {"hybrid-1": 1.0, "hybrid-2": 5.0 / 6.0, "pure-mpi": 0.5}


# ---------------------------------------------------------------- ch. 2.4: background models
def hockney(alpha, beta, m):
    """(2.1) time of one point-to-point message of m bytes."""
    return alpha + m * beta


def computation(gamma, m):
    """(2.2) time to compute with m bytes."""
    return gamma * m


def bcast_linear(alpha, beta, m, p):
    """(2.3)"""
    return (p - 1) * (alpha + m * beta)


def bcast_binomial(alpha, beta, m, p):
    """(2.4) (printed "t_beast" in the thesis)"""
    return np.log(p) * (alpha + m * beta)


def allreduce(alpha, beta, gamma, m, p):
    """(2.5) small-message allreduce as reduce + broadcast."""
    return 2 * np.log(p) * (2 * alpha + 2 * m * beta + gamma * m)


def barrier_linear(alpha, p):
    """(2.6)"""
    return (p - 1) * alpha


def barrier_binomial(alpha, p):
    """(2.7)"""
    return np.log(p) * alpha


# ---------------------------------------------------------------- ch. 6
def halo_cells(sd_w, sd_h, sd_d, h_d):
    """(6.1) p_total: the six halo messages of Table 6.1 for a subdomain sd_w x sd_h x sd_d and halo depth
    h_d, in cells: 2 (sd_h sd_d) h_d + 2 (sd_w sd_h + 2 h_d sd_h) h_d + 2 (sd_w + 2 h_d)(sd_d + 2 h_d) h_d."""
    up = sd_h * sd_d * h_d
    left = (sd_w * sd_h + 2 * h_d * sd_h) * h_d
    north = (sd_w + 2 * h_d) * (sd_d + 2 * h_d) * h_d
    return 2 * (up + left + north)


def _communicating(n_mpi):
    n = np.asarray(n_mpi, dtype=float)
    return n > 1, np.where(n > 1, np.log(np.maximum(n, 2.0)), 1.0)


def p2p_simple(alpha, beta, data):
    """(6.2)"""
    return alpha + data * beta


def p2p(alpha, beta, P, K, n_mpi, n_ppn):
    """(6.3) alpha cbrt(N_mpi) + (P / log N_mpi) K beta N_ppn; 0 when N_mpi = 1."""
    talking, log_n = _communicating(n_mpi)
    return np.where(talking, alpha * np.cbrt(n_mpi) + (P / log_n) * K * beta * n_ppn, 0.0)


def collective(alpha, beta, data, n_mpi, n_ppn):
    """(6.4) (data / log N_mpi) beta + alpha N_ppn^2 log N_mpi; 0 when N_mpi = 1."""
    talking, log_n = _communicating(n_mpi)
    return np.where(talking, (data / log_n) * beta + alpha * n_ppn**2 * log_n, 0.0)


def total_comm_sum(t_p2p, t_coll):
    """(6.5)"""
    return t_p2p + t_coll


def total_comm(alpha, beta, P, K, n_mpi, n_ppn):
    """(6.6) ((P / log N_mpi) K) beta + alpha N_ppn^2 log N_mpi; 0 when N_mpi = 1."""
    talking, log_n = _communicating(n_mpi)
    return np.where(talking, (P / log_n) * K * beta + alpha * n_ppn**2 * log_n, 0.0)


def total_comm_weighted(eta, t_p2p, t_coll):
    """(6.7) eta t_p2p + (1 - eta) t_coll."""
    return eta * t_p2p + (1 - eta) * t_coll


def work_loop(phi, mu, work, n_mpi, n_omp):
    """(6.8) (work / (N_mpi N_omp)) phi + mu N_omp work_omp, with work_omp = work / (N_mpi N_omp)."""
    work_omp = work / (n_mpi * n_omp)
    return work_omp * phi + mu * n_omp * work_omp


def indirect(rho, work, n_mpi):
    """(6.9)"""
    return (work / n_mpi) * rho


def overall(phi, mu, alpha, work, n_mpi, n_omp, n_ppn):
    """(6.10) work_omp phi + mu N_omp work_omp + alpha N_ppn^2 N_mpi (N_mpi, not log N_mpi, as printed)."""
    return work_loop(phi, mu, work, n_mpi, n_omp) + alpha * n_ppn**2 * n_mpi


# ---------------------------------------------------------------- layouts
@dataclass(frozen=True)
class Layout:
    """A configuration at a core count: the thesis's N_mpi, N_ppn, N_omp (§C.1-C.2) and K."""

    configuration: str
    cores: int
    n_mpi: int
    n_ppn: int
    n_omp: int
    K: float


def k_share(n_ppn: int, cores_per_node: int) -> float:
    """K: 1 (one process per node), 5/6 (two), 1/2 (a process per core), the thesis's three values; for
    other process counts per node — not in the thesis — interpolated linearly in log2 N_ppn between
    5/6 at 2 and 1/2 at a full node."""
    if n_ppn <= 1:
        return 1.0
    if n_ppn == 2:
        return 5.0 / 6.0
    if n_ppn >= cores_per_node:
        return 0.5
    span = np.log2(cores_per_node) - 1.0
    return float(5.0 / 6.0 + (0.5 - 5.0 / 6.0) * (np.log2(n_ppn) - 1.0) / span)


def layout(configuration: str, cores: int, cores_per_node: int) -> Layout:
    """pure-mpi, hybrid-1, hybrid-2 or RxT (ranks x threads per node) at a core count, shaped as everywhere
    else in hybridperf (`shapes.shape`); raises shapes.NotApplicable where the configuration does not exist."""
    nodes, ppn, omp = shape(configuration, cores_per_node, cores=cores)
    return Layout(configuration, cores, nodes * ppn, ppn, omp, k_share(ppn, cores_per_node))
