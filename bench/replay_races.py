#!/usr/bin/env python3
"""Every stored campaign raced again through any rule: each study store archived under bench/runs/ (the main job's
repeated runs, the NPB-MZ stores, the 16-core machine's), every campaign of it, every race of each campaign (a
parameter set at a scale with two or more candidates), its stored blocks fed in the order they ran to the rule the
campaign declared and to the same rule with another confidence sequence. Per race: the blocks each needed and the
answer each gave; and every race whose two answers name different winners where both decided.

A campaign's blocks end where the rule it ran by stopped it, so a rule that needs more blocks than were stored
ends undecided there ("out of blocks"): the replay can show a rule decides sooner, never that it decides later.
Simulated campaigns (exact replays, one block) are left out: no interval decides them.

    python bench/replay_races.py                  # the declared rule against the same rule with both
    python bench/replay_races.py --interval sign --tie-within 3%   # any rule against the declared one
"""

from __future__ import annotations

import argparse
import atexit
import shutil
import tarfile
import tempfile
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import common
from hybridperf.analysis.race import Rule
from hybridperf.analysis.sections import analyse, Verdict
from hybridperf.store.db import Store
from hybridperf.study import spec


@dataclass(frozen=True)
class Replayed:
    where: str  # archive: results folder, study, campaign
    race: str  # parameters at a scale
    stored: int  # blocks the campaign stored
    declared: Verdict  # by the rule the campaign declared
    other: Verdict  # by the other rule

    @property
    def contradiction(self) -> bool:
        """Both decided, and they name different winners (the preferred of a tie counts as its winner)."""
        decided = ("wins", "tie")
        return self.declared.outcome in decided and self.other.outcome in decided and \
            self.declared.winner != self.other.winner


@cache
def unpacked(archive: Path) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="hybridperf-replay-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    with tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")
    return folder


def archives(root: Path = common.RUNS) -> list[Path]:
    return sorted(p for p in root.rglob("*.tgz") if _has_store(p))


def _has_store(archive: Path) -> bool:
    with tarfile.open(archive) as tar:
        return any(name.endswith("results.db") for name in tar.getnames())


def replayed(archive: Path, other: dict, root: Path = common.RUNS) -> list[Replayed]:
    """Every race of every campaign stored in the archive, by its declared rule and by that rule changed by
    `other` (Rule fields)."""
    out = []
    folder = unpacked(archive)
    for db in sorted(folder.rglob("results.db")):
        with Store(db.parent) as store:
            for name in store.studies():
                for campaign in store.campaigns(name):
                    study = spec.from_dict(campaign.spec)
                    if study.backend == "simgrid":
                        continue
                    runs = store.runs(name, campaign.number)
                    rule = study.rule
                    changed = replace(rule, **other)
                    where = f"{archive.relative_to(root)}: {db.parent.relative_to(folder)}, {name} {campaign.number}"
                    for before, after in zip(analyse(study.design, runs, rule, stopped=True),
                                             analyse(study.design, runs, changed, stopped=True)):
                        for v, w in zip(before.verdicts, after.verdicts):
                            if len(v.race.standings) > 1:
                                out.append(Replayed(where, f"{before.title()} at {v.scale} {before.axis}",
                                                    _stored(v), v, w))
    return out


def _stored(v: Verdict) -> int:
    """The blocks the campaign stored for the race: its candidates' most runs."""
    return max(s.runs for s in v.race.standings)


def _answer(v: Verdict, stored: int) -> str:
    if v.outcome == "wins":
        return f"{v.winner} wins ({v.race.blocks})"
    if v.outcome == "tie":
        return f"tie ({v.race.blocks})"
    return f"{v.outcome} ({'out of blocks' if v.race.blocks >= stored else v.race.blocks})"


def table(found: list[Replayed], other_name: str) -> str:
    lines = [f"| campaign | race | blocks stored | declared rule: answer (blocks) | {other_name}: answer (blocks) |",
             "|---|---|---|---|---|"]
    lines += [f"| {r.where} | {r.race} | {r.stored} | {_answer(r.declared, r.stored)} | {_answer(r.other, r.stored)}"
              f"{' **(another winner)**' if r.contradiction else ''} |" for r in found]
    return "\n".join(lines) + "\n"


def summary(found: list[Replayed]) -> dict[str, int]:
    decided = ("wins", "tie")
    both = [r for r in found if r.declared.outcome in decided and r.other.outcome in decided]
    return {"races": len(found), "declared_decided": sum(r.declared.outcome in decided for r in found),
            "other_decided": sum(r.other.outcome in decided for r in found),
            "declared_blocks": sum(r.declared.race.blocks for r in both),
            "other_blocks": sum(r.other.race.blocks for r in both), "both_decided": len(both),
            "contradictions": sum(r.contradiction for r in found)}


BOTH = {"interval": "both"}


@cache
def every(root: Path = common.RUNS) -> tuple[Replayed, ...]:
    """Every stored race, by its declared rule and by the same rule with the default sequence (both)."""
    return tuple(r for archive in archives(root) for r in replayed(archive, BOTH, root))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--interval", default="both", help="the other rule's confidence sequence (both, huber, sign)")
    parser.add_argument("--tie-within", help="the other rule's band (e.g. 3%%); default: each campaign's own")
    parser.add_argument("--confidence", help="the other rule's confidence; default: each campaign's own")
    args = parser.parse_args()
    other = {"interval": args.interval}
    if args.tie_within:
        other["tie_within"] = spec.fraction(args.tie_within, "--tie-within")
    if args.confidence:
        other["confidence"] = spec.fraction(args.confidence, "--confidence")
    Rule(**other)  # refuse a rule that cannot decide before anything is read
    found = [r for archive in archives() for r in replayed(archive, other)]
    print(table(found, ", ".join(f"{k} {v}" for k, v in other.items())))
    print(summary(found))


if __name__ == "__main__":
    main()
