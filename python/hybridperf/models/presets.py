"""Cluster presets: the thesis's machines (seed-spec §A.11, §C) and this one.

What the seeds state is used as stated (cores per node, sockets, Merlin's 1.8 us Infiniband latency);
the rest are typical figures for that hardware generation, marked as assumptions in `source` —
better numbers come from this machine's microbenchmarks (`hybridperf model recommend --calibration DIR`,
docs/models.md)."""

from __future__ import annotations

from hybridperf.models.split import Cluster

SHARED_MEMORY = dict(alpha_intra=0.5e-6, beta_intra=1 / 4e9)  # assumption: MPI within a 2008-era node

PRESETS = {
    "merlin": Cluster("Merlin", 256, 8, 2, alpha_inter=1.8e-6, beta_inter=1 / 1.5e9, **SHARED_MEMORY,
                      source="thesis §3.1: 256 nodes, 2 x quad-core Xeon E5472, Infiniband with 1.8 us latency; "
                             "bandwidth 1.5 GB/s assumed (DDR Infiniband)"),
    "stella": Cluster("Stella", 16, 8, 2, alpha_inter=12e-6, beta_inter=1 / 1.1e9, **SHARED_MEMORY,
                      source="thesis Table 3.4: 8-core nodes (2 x quad-core), 10 Gigabit Ethernet; latency 12 us and "
                             "1.1 GB/s assumed"),
    "cseem64t-infinipath": Cluster("CSEEM64T (Infinipath)", 32, 4, 2, alpha_inter=1.3e-6, beta_inter=1 / 0.9e9,
                                   **SHARED_MEMORY,
                                   source="thesis §3.1: 32 nodes, 2 x dual-core Xeon 5160, Infinipath; 1.3 us and "
                                          "0.9 GB/s assumed"),
    "cseem64t-gige": Cluster("CSEEM64T (GigE)", 32, 4, 2, alpha_inter=50e-6, beta_inter=1 / 110e6, **SHARED_MEMORY,
                             source="thesis §3.1: the same nodes over Gigabit Ethernet; 50 us and 110 MB/s assumed"),
}
