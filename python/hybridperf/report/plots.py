"""The report's figures (matplotlib, no display needed): each function takes an analysed Section and
returns PNG bytes, or None when it has nothing to show (the report leaves it out). Every mean carries its
error bar, 1 SEM (5% for single runs, the thesis's convention), propagated through ratios; crosses mark the
minimum of the repeats, which the thesis's overall-timing plots use."""

from __future__ import annotations

import io
import math
from typing import Callable

from hybridperf.analysis import percall
from hybridperf.analysis.percall import Tail
from hybridperf.analysis.sections import (class_seconds, comm_seconds, per_step, Point, region_seconds, Section,
                                          threading_overheads)

MARKERS = ("o", "s", "^", "D", "v", "P")


def _pyplot():
    """matplotlib's pyplot (no display: Agg), imported at the first figure rather than with the module: it was two
    fifths of every command's start-up, and most commands draw nothing."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _subplots(*args, **kw):
    return _pyplot().subplots(*args, **kw)


def _legend(ax, **kw) -> None:
    if ax.get_legend_handles_labels()[0]:
        ax.legend(**kw)


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=110)
    _pyplot().close(fig)
    return buf.getvalue()


def _curves(section: Section) -> dict[str, list[Point]]:
    curves: dict[str, list[Point]] = {}
    for p in section.points:
        if p.runs:
            curves.setdefault(p.configuration, []).append(p)
    return curves


def _plot_metric(ax, section: Section, extract: Callable[[Point], tuple[float, float] | None], ylabel: str,
                 log: bool = False) -> None:
    for i, (config, pts) in enumerate(_curves(section).items()):
        values = [(p.scale, extract(p)) for p in pts]
        values = [(x, v) for x, v in values if v is not None]
        if not values:
            continue
        xs, ys, errs = zip(*[(x, v[0], v[1]) for x, v in values])
        ax.errorbar(xs, ys, yerr=errs, marker=MARKERS[i % len(MARKERS)], capsize=3, label=config)
    scales = sorted({p.scale for p in section.points})
    if scales and scales[-1] >= 4 * scales[0]:
        ax.set_xscale("log", base=2)
    ax.set_xticks(scales, [str(x) for x in scales])
    ax.set_xlabel(section.axis)
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
    ax.grid(alpha=0.3)
    _legend(ax, fontsize=8)


def total_time(section: Section) -> bytes:
    fig, ax = _subplots(figsize=(6, 4))
    _plot_metric(ax, section, lambda p: (p.time.mean, p.time.error) if p.time else None, "loop time [s]")
    for i, (config, pts) in enumerate(_curves(section).items()):
        ax.scatter([p.scale for p in pts if p.time], [p.time.min for p in pts if p.time], marker="x", color="k",
                   zorder=3, label="minimum" if i == 0 else None)
    _legend(ax, fontsize=8)
    ax.set_title("Total time: mean ± 1 SEM, minimum ×")
    return _png(fig)


def speedup(section: Section) -> bytes:
    """Speedup and efficiency (strong scaling), or the weak-scaling efficiency alone: a weak-scaling speedup
    would compare problems of different sizes."""
    def efficiency(p: Point) -> tuple[float, float] | None:
        return (p.efficiency, p.efficiency_error or 0.0) if p.efficiency else None

    if section.scaling.weak:
        fig, ax = _subplots(figsize=(6, 3.6))
        _plot_metric(ax, section, efficiency, "weak-scaling efficiency T(1)/T(p)")
        ax.axhline(1.0, linestyle=":", color="grey", label="ideal")
        ax.set_title("Weak-scaling efficiency ± 1 SEM")
        return _png(fig)
    fig, (left, right) = _subplots(1, 2, figsize=(9, 3.6))
    _plot_metric(left, section, lambda p: (p.speedup, p.speedup_error or 0.0) if p.speedup else None, "speedup")
    scales = sorted({p.cores for p in section.points})
    left.plot(scales, scales, ":", color="grey", label="ideal")
    _plot_metric(right, section, efficiency, "parallel efficiency")
    left.set_title("Speedup ± 1 SEM")
    right.set_title("Parallel efficiency ± 1 SEM")
    return _png(fig)


def communication(section: Section) -> bytes:
    fig, (left, right) = _subplots(1, 2, figsize=(9, 3.6))

    def seconds(p: Point):
        s = p.summary_of(comm_seconds)
        return (s.mean, s.error) if s else None

    def share(p: Point):
        s = p.summary_of(comm_seconds)
        if not s or not p.time or not s.mean:
            return None
        value = 100 * s.mean / p.time.mean
        return value, value * math.hypot(s.error / s.mean, p.time.error / p.time.mean)

    _plot_metric(left, section, seconds, "communication [s]")
    _plot_metric(right, section, share, "communication [% of total]")
    left.set_title("Communication time ± 1 SEM")
    right.set_title("Communication share ± 1 SEM")
    return _png(fig)


def comm_classes(section: Section) -> bytes | None:
    """One panel per class of communication that took any time (a kernel with no barrier gets no barrier panel)."""
    def extract(p: Point, cls: str):
        s = p.summary_of(class_seconds(cls))
        return (s.mean, s.error) if s else None

    present = [cls for cls in ("p2p", "collective", "barrier")
               if any((v := extract(p, cls)) and v[0] > 0 for p in section.points if p.runs)]
    if not present:
        return None
    fig, axes = _subplots(1, len(present), figsize=(4 * len(present), 3.4), squeeze=False)
    for ax, cls in zip(axes[0], present):
        _plot_metric(ax, section, lambda p, cls=cls: extract(p, cls), f"{cls} [s]")
        ax.set_title(f"{cls} time (rank average) ± 1 SEM")
    return _png(fig)


def bytes_per_step(section: Section) -> bytes:
    fig, (left, right) = _subplots(1, 2, figsize=(9, 3.6))
    per_rank, total = per_step(("p2p", "bytes_per_rank", "avg")), per_step(("p2p", "bytes"))
    _plot_metric(left, section, lambda p: (p.mean_of(per_rank), 0.0) if p.runs else None, "bytes per process per step")
    _plot_metric(right, section, lambda p: (p.mean_of(total), 0.0) if p.runs else None, "bytes per step, all processes")
    left.set_title("Point-to-point data per process")
    right.set_title("Point-to-point data in total")
    return _png(fig)


def regions(section: Section) -> bytes:
    names = [r for r in section.regions if r != "total"]
    bars = [p for p in section.points if p.runs]
    fig, ax = _subplots(figsize=(max(6, 0.7 * len(bars) + 2), 4))
    bottom = [0.0] * len(bars)
    labels = [f"{p.configuration}\n{p.scale}" for p in bars]
    for name in names:
        heights = [p.summary_of(region_seconds(name)).min if p.summary_of(region_seconds(name)) else 0.0 for p in bars]
        ax.bar(labels, heights, bottom=bottom, label=name)
        bottom = [b + h for b, h in zip(bottom, heights)]
    ax.set_ylabel("seconds (minimum of repeats, rank average)")
    ax.set_title("Time per region")
    _legend(ax, fontsize=7, ncol=2)
    ax.tick_params(axis="x", labelsize=7)
    return _png(fig)


def overheads(section: Section) -> bytes | None:
    """Horizontal bars, one per (configuration, scale, region), labelled in a readable size."""
    rows = threading_overheads(section)
    if not rows:
        return None
    fig, ax = _subplots(figsize=(8, 0.32 * len(rows) + 1.2))
    labels = [f"{o.configuration} at {o.scale}: {o.region}" for o in rows]
    positions = range(len(rows))
    ax.barh(positions, [o.seconds for o in rows], xerr=[o.error for o in rows], capsize=3,
            color=["tab:red" if o.seconds > 0 else "tab:green" for o in rows])
    ax.set_yticks(list(positions), labels, fontsize=9)
    ax.invert_yaxis()
    ax.axvline(0, color="k", linewidth=0.8)
    ax.set_xlabel("hybrid − pure MPI [s] (minimum times; red: hybrid slower)")
    ax.set_title("Threading overhead per region ± error")
    ax.grid(axis="x", alpha=0.3)
    return _png(fig)


def imbalance(section: Section) -> bytes | None:
    """Per region, the mean cross-rank imbalance of each point with more than one rank, ± 1 SEM."""
    names = [r for r in section.regions if r not in ("total", "other")]
    bars = [p for p in section.points if p.runs and p.nodes * p.ranks_per_node > 1]
    if not bars or not names:
        return None
    fig, ax = _subplots(figsize=(max(6, 0.9 * len(names) + 2), 3.6))
    width = 0.8 / len(bars)
    for i, p in enumerate(bars):
        stats = [p.summary_of(lambda prof, n=n: prof["regions"][n]["imbalance"] if n in prof["regions"] else None)
                 for n in names]
        ax.bar([k + i * width for k in range(len(names))], [100 * s.mean if s else 0.0 for s in stats], width,
               yerr=[100 * s.error if s else 0.0 for s in stats], capsize=2, label=f"{p.configuration} {p.scale}")
    ax.set_xticks([k + 0.4 - width / 2 for k in range(len(names))], names, fontsize=7, rotation=30)
    ax.set_ylabel("max/avg − 1 [%]")
    ax.set_title("Cross-rank imbalance per region ± 1 SEM")
    _legend(ax, fontsize=6, ncol=2)
    return _png(fig)


def efficiency(rows) -> bytes:
    """The four parameters against problem (x) with one line per node count; 1 marks parity."""
    fig, axes = _subplots(1, 4, figsize=(13, 3.4))
    problems = list(dict.fromkeys(", ".join(f"{k}={v}" for k, v in r.problem.items() if k != "mode") for r in rows))
    for ax, name in zip(axes, ("e_mt", "e_cache", "e_ni", "e_mp")):
        for i, nodes in enumerate(sorted({r.nodes for r in rows})):
            mine = [r for r in rows if r.nodes == nodes and getattr(r, name)]
            xs = [problems.index(", ".join(f"{k}={v}" for k, v in r.problem.items() if k != "mode")) for r in mine]
            ax.errorbar(xs, [getattr(r, name).value for r in mine], yerr=[getattr(r, name).error for r in mine],
                        marker=MARKERS[i % len(MARKERS)], capsize=3, label=f"{nodes} node(s)")
        ax.axhline(1.0, color="grey", linestyle=":")
        ax.set_xticks(range(len(problems)), problems, fontsize=6, rotation=30)
        ax.set_title(name + (" (< 1 favours hybrid)" if name == "e_mp" else ""))
        ax.grid(alpha=0.3)
        _legend(ax, fontsize=7)
    return _png(fig)


def sorted_calls(curves: list[tuple[str, Tail]]) -> bytes | None:
    """Chow & Hysom's Fig. 3 from the per-call histograms: per configuration, 100 calls evenly spaced through its
    sorted calls, each drawn as the band its bin allows (log time); None when no run kept per-call times."""
    if not curves:
        return None
    fig, ax = _subplots(figsize=(6, 4))
    for i, (label, t) in enumerate(curves):
        calls = percall.sorted_calls(t.calls)
        xs = range(1, len(calls) + 1)
        line = ax.plot(xs, [math.sqrt(b.low * b.high) for b in calls], drawstyle="steps-mid",
                       marker=MARKERS[i % len(MARKERS)], markevery=10, markersize=4, label=f"{label}: {t.subject}")
        ax.fill_between(xs, [b.low for b in calls], [b.high for b in calls], step="mid", alpha=0.2,
                        color=line[0].get_color())
    ax.set_yscale("log")
    ax.set_xlabel("call, sorted (percent of the calls)")
    ax.set_ylabel("time per call [s]")
    ax.set_title("Sorted per-call times (bands: each call's bin)")
    ax.grid(alpha=0.3)
    _legend(ax, fontsize=7)
    return _png(fig)
