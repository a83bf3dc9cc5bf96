"""Strong or weak scaling: whether a study's problem stays the same as its scale grows, or grows with it.

The kind decides the analysis. Strong scaling (the same problem on more cores) is judged by speedup T(1)/T(p)
and efficiency S/p. Weak scaling (the problem grows with the cores: spmv's `--n` is a brick per core) is judged
by efficiency T(1)/T(p) alone, ideal 1: a speedup would divide the time of a small problem by that of a large
one, and S/p would then fall as 1/p even where the code scales perfectly.

The kind is read from what was measured, not declared: a kernel states the global size of the problem it
solved in its profile (md: `atoms`, spmv: `rows`). A section is weak scaling when every configuration's size
grows in proportion to the scale (cores or nodes, the study's axis), and strong scaling otherwise; a kernel
that states no size (an app) is taken as strong scaling, and the reason says so. Pure functions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

STATED_SIZE = {"md": "atoms", "spmv": "rows"}  # the global size each kernel writes in its profile's own member


@dataclass(frozen=True)
class Scaling:
    kind: str  # "strong" or "weak"
    why: str  # one sentence for the report: what was seen, and so which figures follow
    assumed_base: bool = False  # no 1-core run: the speedups rest on the fewest cores' taken as perfect

    @property
    def weak(self) -> bool:
        return self.kind == "weak"


ASSUMED_STRONG = Scaling("strong", "strong scaling assumed (the kernel states no problem size in its profile): "
                                   "speedup T(1)/T(p) and efficiency S/p")


def problem_size(profile: dict[str, Any]) -> float | None:
    """The global problem size a profile states (md's atoms, spmv's rows), or None where its kernel states none."""
    kernel = profile.get("kernel", "")
    value = profile.get(kernel, {}).get(STATED_SIZE[kernel]) if kernel in STATED_SIZE else None
    return float(value) if value else None


def scaling(kernel: str, points: Sequence[tuple[str, int, float | None]], axis: str) -> Scaling:
    """The kind of a section of `kernel` runs from its measured points, each (configuration, scale, stated size)."""
    if kernel not in STATED_SIZE or any(size is None for _, _, size in points):
        return ASSUMED_STRONG
    sizes: dict[str, dict[int, float]] = {}
    for configuration, scale, size in points:
        sizes.setdefault(configuration, {})[scale] = size
    spans = [s for s in sizes.values() if len(s) > 1]  # a configuration at one scale says nothing about growth
    unit, what = axis[:-1], STATED_SIZE[kernel]
    if spans and all(_proportional(s) for s in spans):
        scale, size = next(iter(spans[0].items()))
        return Scaling("weak", f"weak scaling: the problem grows with the {axis} ({size / scale:,.6g} {what} per "
                               f"{unit}), so efficiency is T(1)/T(p), ideal 1, and there is no speedup")
    if all(len(set(s.values())) == 1 for s in sizes.values()):
        return Scaling("strong", f"strong scaling: the same problem at every {unit} count: speedup T(1)/T(p) and "
                                 "efficiency S/p")
    return Scaling("strong", f"strong scaling assumed: the {what} change with the {axis}, but not in proportion to "
                             "them: speedup T(1)/T(p) and efficiency S/p")


def _proportional(sizes: dict[int, float]) -> bool:
    """Whether size / scale is the same at every scale (and so the size is not)."""
    per_unit = [size / scale for scale, size in sizes.items()]
    return all(math.isclose(p, per_unit[0], rel_tol=1e-9) for p in per_unit)
