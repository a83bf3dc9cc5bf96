"""The one place that says which candidate wins: every question "which split is fastest" — a study's race
(sampled, or an exact replay), `compare`, `recommend --by measured | model | simulation`, a sensitivity sweep —
ends in a `Contest` made by `decide`, and nothing else turns a margin into a word.

A contest has candidates, each with its time over the leader's (the ratio) and that ratio's interval; an exact
figure (a replay, a closed form under its inputs) is an interval of zero width. With τ the declared tie band
(`tie_within`, on the log scale), each candidate other than the leader stands:
- *tied* when its whole interval lies inside (−τ, τ): by the user's own declaration the difference does not
  matter, even where it is known to be real;
- *loses* when its whole interval lies above 0 (and not inside the band): it is slower;
- *open* otherwise.
The outcome: *wins* when every other candidate loses (or failed); *tie* when none is open and some are tied (the
leader and those form the tied set); otherwise *undecided* — or *open*, while a race may still run blocks.
A race may also have taken candidates out before (`lost`: proven slower than another candidate that has since
left the lead) or have none to compare (*only*: a baseline; *failed*: every candidate's run failed).
Pure."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Mapping, Sequence

OUTCOMES = ("wins", "tie", "undecided", "open", "only", "failed", "not raced")


@dataclass(frozen=True)
class Standing:
    """One candidate against the leader: its time over the leader's and that ratio's interval (None: unbounded)."""

    candidate: str
    state: str  # leader | loses | tied | open | failed
    ratio: float | None
    low: float | None
    high: float | None
    runs: int = 1  # runs (blocks) it is measured by; 1 for an exact figure

    @property
    def exact(self) -> bool:
        return self.ratio is not None and self.low == self.high == self.ratio

    def lead_text(self) -> str:
        """'+3.1% [+0.4%, +5.9%]': how much longer than the leader it takes; '+3.1% (exact)' for an exact figure."""
        if self.ratio is None:
            return "–"
        if self.exact:
            return f"{100 * (self.ratio - 1):+.1f}% (exact)"
        bounds = "(unbounded)" if self.low is None or self.high is None \
            else f"[{100 * (self.low - 1):+.1f}%, {100 * (self.high - 1):+.1f}%]"
        return f"{100 * (self.ratio - 1):+.1f}% {bounds}"


def standing_of(low: float | None, high: float | None, tie_within: float) -> str:
    """tied | loses | open: where a ratio interval against the leader stands (None ends: unbounded)."""
    band = math.log1p(tie_within)
    if low is not None and high is not None and -band < math.log(low) and math.log(high) < band:
        return "tied"
    return "loses" if low is not None and low > 1 else "open"


@dataclass(frozen=True)
class Contest:
    outcome: str  # OUTCOMES
    leader: str
    standings: tuple[Standing, ...]  # the leader first, then by ratio (failed last)
    tie_within: float
    confidence: float | None = None  # of the intervals; None when every figure is exact

    @property
    def tied(self) -> tuple[str, ...]:
        return tuple(s.candidate for s in self.standings if s.state in ("leader", "tied"))

    @property
    def failed(self) -> tuple[str, ...]:
        """The candidates that left because a run of theirs failed."""
        return tuple(s.candidate for s in self.standings if s.state == "failed")

    @property
    def runner_up(self) -> Standing | None:
        """The closest candidate that still stands against the leader: of a win, the best loser; otherwise the
        closest candidate tied or open, since one that has lost is not what keeps the contest open (a lost
        candidate closer than the open ones would show a lead whose interval excludes 1 on an undecided one)."""
        rest = [s for s in self.standings if s.state not in ("leader", "failed") and s.ratio is not None]
        standing = [s for s in rest if s.state in ("open", "tied")] or rest
        return min(standing, key=lambda s: s.ratio) if standing else None

    @property
    def exact(self) -> bool:
        return all(s.exact for s in self.standings if s.state != "failed")

    def band_text(self) -> str:
        return f"±{100 * self.tie_within:g}%"


def decide(leader: str, others: Sequence[Standing], tie_within: float, confidence: float | None = None,
           running: bool = False, leader_runs: int = 1) -> Contest:
    """The contest's outcome from each other candidate's interval against the leader. A standing already marked
    `loses` or `failed` (taken out before) keeps its state; every other is judged here. `running`: the race may
    still run blocks, so a contest not yet decided is *open*, not *undecided*."""
    judged = [s if s.state in ("loses", "failed") else
              Standing(s.candidate, standing_of(s.low, s.high, tie_within), s.ratio, s.low, s.high, s.runs)
              for s in others]
    states = {s.state for s in judged}
    if not judged:
        outcome = "only"
    elif "open" in states:
        outcome = "open" if running else "undecided"
    elif "tied" in states:
        outcome = "tie"
    else:
        outcome = "wins"  # every other lost, or failed: the leader stands alone
    first = [s for s in judged if s.state != "failed"]
    ordered = sorted(first, key=lambda s: s.ratio if s.ratio is not None else math.inf) + \
        [s for s in judged if s.state == "failed"]
    return Contest(outcome, leader, (Standing(leader, "leader", 1.0, 1.0, 1.0, leader_runs), *ordered), tie_within,
                   confidence)


def exact(times: dict[str, float], tie_within: float, failed: Sequence[str] = ()) -> Contest:
    """A contest of exact figures (replays, a model under its inputs): the fastest leads; each other candidate's
    interval is its exact ratio."""
    leader = min(times, key=times.__getitem__)
    others = [Standing(c, "", t / times[leader], t / times[leader], t / times[leader]) for c, t in times.items()
              if c != leader]
    others += [Standing(c, "failed", None, None, None) for c in failed]
    return decide(leader, others, tie_within)


def preferred(contest: Contest, ranks: Mapping[str, int]) -> str:
    """The candidate to use: the winner (or the leader, undecided); of a tie, the tied candidate with the fewest
    ranks — less memory for halos, fewer messages — and the leader among those with as few."""
    if contest.outcome != "tie":
        return contest.leader
    fewest = min(ranks[c] for c in contest.tied)
    return next(c for c in contest.tied if ranks[c] == fewest)


def renamed(contest: Contest, names: Mapping[str, str]) -> Contest:
    """The same contest with its candidates renamed (a race's configurations as the splits they are)."""
    return Contest(contest.outcome, names[contest.leader],
                   tuple(replace(s, candidate=names[s.candidate]) for s in contest.standings), contest.tie_within,
                   contest.confidence)


def unraced(order: Sequence[str], times: Mapping[str, float], tie_within: float) -> Contest:
    """Runs that no race compared: their times side by side, and no outcome."""
    leader = order[0]
    return Contest("not raced", leader, tuple(Standing(c, "leader" if c == leader else "open", times[c] / times[leader],
                                                       None, None) for c in order), tie_within)
