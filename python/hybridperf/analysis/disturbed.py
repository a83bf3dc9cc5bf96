"""What other processes took from a study's runs (launch.disturbance measured it, run by run), in words: per run, and
for a campaign, how many blocks were run again for it (`disturbed: rerun`) and how many counted runs were disturbed
(kept). Never a run dropped for being slow: only the machine's own counters mark a run. Pure."""

from __future__ import annotations

from typing import Any


def disturbance_text(d: dict[str, Any]) -> str:
    """'other processes used 0.73 of a core on average while it ran (412 involuntary context switches)'."""
    steal = f", {d['steal']:.2f} of it stolen by the hypervisor" if d.get("steal", 0) >= 0.01 else ""
    return (f"other processes used {d['others']:.2f} of a core on average while it ran{steal} "
            f"({d['switches']} involuntary context switches)")


def disturbed(run: dict[str, Any]) -> bool:
    return bool(run.get("disturbance") and run["disturbance"].get("disturbed"))


def summary(runs: list[dict[str, Any]]) -> list[str]:
    """Lines for a campaign's runs (superseded ones included): the blocks run again and why, the disturbed runs
    counted; nothing where no run was disturbed."""
    again = [r for r in runs if r.get("superseded") and r.get("position") == 0]  # one per attempt run again
    kept = [r for r in runs if disturbed(r) and not r.get("superseded") and not r.get("warmup")]
    lines = []
    if again:
        worst = max((r for r in runs if r.get("superseded") and disturbed(r)),
                    key=lambda r: r["disturbance"]["others"])
        lines.append(f"{len(again)} block(s) ran again because another process took CPU from a run in them (the "
                     f"study declares disturbed: rerun; the first attempts are kept in the store, counted nowhere); "
                     f"the worst: {' = '.join(worst['configurations'])} at {worst['cores']} "
                     f"core{'s' if worst['cores'] != 1 else ''}, "
                     f"{disturbance_text(worst['disturbance'])}")
    if kept:
        lines.append(f"{len(kept)} counted run(s) were disturbed — another process took CPU while they ran — and "
                     "are counted as they are (disturbed: keep, or out of reruns)")
    return lines
