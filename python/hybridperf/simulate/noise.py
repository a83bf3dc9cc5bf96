"""OS noise as SimGrid host speed profiles: each node of a replay gets its own profile, drawn from the description's
noise (cluster.Noise) with its seed, and SimGrid runs the node's computations at the profile's speed.

Why per node and in SimGrid: a host's speed profile is SimGrid's own mechanism for a machine that is not always
all yours, so a rank that waits for a slowed peer at a message or a global sum waits in the replay as it would in
the run. A host is a node here, so a node's ranks (or its rank's threads) are slowed together: node-wide
interruptions (a daemon, an interrupt storm), not one core's. Per interval of the noise's length a node runs at
1/(1 + scale x) of its speed, x drawn from the slowdowns with random.Random seeded by the seed and the node's
index, so the same seed draws the same profiles. A profile is INTERVALS intervals long and repeats (SimGrid's
periodicity); runs of equal speed are one event. Pure."""

from __future__ import annotations

import random

from hybridperf import cluster

INTERVALS = 1024  # a profile's length before it repeats, in intervals


def profile(noise: cluster.Noise, node: int) -> list[tuple[float, float]]:
    """(start in seconds, speed as a fraction of the node's) of each run of equal speed in the node's profile."""
    draw = random.Random(f"{noise.seed}/{node}")
    events: list[tuple[float, float]] = []
    for k in range(INTERVALS):
        speed = 1.0 / (1.0 + noise.scale * draw.choice(noise.slowdowns))
        if not events or events[-1][1] != speed:
            events.append((k * noise.interval, speed))
    return events


def elements(spec: cluster.ClusterSpec, nodes: int) -> str:
    """The platform's <trace> and <trace_connect> elements giving the first `nodes` hosts their profiles; "" where
    the description's noise is not drawn (no noise, or no seed)."""
    if not spec.noisy or spec.noise is None:
        return ""
    period = f"{INTERVALS * spec.noise.interval:.9g}"
    out = []
    for node, host in enumerate(cluster.host_names(spec)[:nodes]):
        events = "".join(f"{start:.9g} {speed:.12g}\n" for start, speed in profile(spec.noise, node))
        out.append(f"  <trace id=\"noise-{node}\" periodicity=\"{period}\">\n{events}  </trace>\n"
                   f"  <trace_connect kind=\"SPEED\" trace=\"noise-{node}\" element=\"{host}\"/>\n")
    return "".join(out)
