"""The racing rule's error rates, measured on seeded synthetic races: how often candidates of known true times end
each way (a win of which, a tie, undecided) and after how many blocks, under noise of a known kind. What
tests/test_race.py asserts and docs/study-spec.md states (bench/figures_race.py) are both this. Pure."""

from __future__ import annotations

import math

import numpy as np

from hybridperf.analysis.race import Racer, Rule

SLOW = 1.3  # how much slower a run another job's burst hits is
DEFAULT = Rule(budget=None)  # every spec's rule unless it says otherwise, without a budget (synthetic runs take none)


def races(true: list[float], noise: float, rule: Rule = DEFAULT, n: int = 2000, seed: int = 1, heavy: bool = False,
          drift: float = 0.0, slow: float = 0.0) -> tuple[dict[str, float], float]:
    """Share of races ending each way ('wins c0', 'tie', 'undecided', ...) and the mean blocks used. Each run's
    time is true × exp(noise ε) (ε Gaussian, or Student t with 3 degrees of freedom scaled to the same sd), times
    a factor shared by the block (drift), and SLOW times slower with probability `slow` (another job's burst)."""
    rng = np.random.default_rng(seed)
    names = [f"c{i}" for i in range(len(true))]
    logs = dict(zip(names, np.log(true)))
    ends: dict[str, int] = {}
    blocks = 0
    for _ in range(n):
        racer = Racer(names, rule)
        while alive := racer.running:
            shared = rng.normal(0, drift)
            eps = rng.standard_t(3, len(alive)) / math.sqrt(3) if heavy else rng.normal(0, 1, len(alive))
            bursts = np.log(SLOW) * (rng.random(len(alive)) < slow)
            racer.add({c: math.exp(logs[c] + shared + noise * e + b) for c, e, b in zip(alive, eps, bursts)})
        state = racer.state()
        key = f"wins {state.leader}" if state.outcome == "wins" else state.outcome
        ends[key] = ends.get(key, 0) + 1
        blocks += state.blocks
    return {k: v / n for k, v in ends.items()}, blocks / n
