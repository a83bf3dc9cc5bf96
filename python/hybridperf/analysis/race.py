"""Racing candidate splits until the answer is known: wins, tie, or (out of budget) undecided.

A race is one question — which candidate is fastest at one scale of one problem — asked of blocks: each
block runs every candidate still in the race once, back to back in a random order, so that a drift of the
machine falls on all of them alike. Candidates are compared within blocks, by the paired log ratio of
their times d = log t_a − log t_b (Kalibera & Jones: the unit of repetition is the process launch, and
the figure is a ratio).

Every pair's ratios get a confidence sequence (analysis.confseq, the rule's `interval`: the Huber betting
sequence by default, the sign sequence on request): an interval valid at every block at once, so the race
may look after each block and stop when it likes without the confidence leaking away. Several candidates
share the confidence by Bonferroni: α is divided among every pair of the race's candidates, so every
decision below holds together with the declared confidence.

After each block (from `min_blocks` on), with τ = log(1 + tie_within):
- a candidate whose interval against any other candidate still racing lies above 0 and not inside ±τ *loses*
  and leaves; a candidate whose run failed leaves too (it cannot win);
- the *leader* is the survivor whose paired ratios against the others are lowest (the sum of their centres);
- the survivors against the leader are then a contest (analysis.contest.decide): all lost — the leader *wins*;
  none open, some inside ±τ — they are *tied*; otherwise the race goes on, until `max_blocks` or the study's
  budget: then it is *undecided*, and says its noise and how many blocks would decide it. Once an interval is
  narrower than τ one of the closing cases must happen, so with enough blocks every race ends.
Pure functions; `tests/test_race.py` races thousands of synthetic candidates to measure the error rates.
"""

from __future__ import annotations

import functools
import itertools
import math
import statistics
from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence

from hybridperf.analysis import confseq
from hybridperf.analysis.contest import Contest, decide, exact, Standing


@dataclass(frozen=True)
class Rule:
    """How a study decides, declared before it runs (the spec's `decide:` block)."""

    confidence: float = 0.90
    tie_within: float = 0.02  # relative difference below which two candidates count as tied
    min_blocks: int = 3
    max_blocks: int = 40
    budget: float | None = 600.0  # seconds of running for the whole study; None: no limit
    interval: str = "both"  # the confidence sequence (analysis.confseq.KINDS)

    def __post_init__(self) -> None:
        if not 0 < self.confidence < 1:
            raise ValueError(f"confidence must lie between 0 and 1, got {self.confidence}")
        if not 0 < self.tie_within < 1:
            raise ValueError(f"tie_within must lie between 0 and 1 (a fraction: 0.02 is 2%), got {self.tie_within}")
        if not 1 <= self.min_blocks <= self.max_blocks:
            raise ValueError(f"need 1 <= min_blocks <= max_blocks, got {self.min_blocks} and {self.max_blocks}")
        if self.budget is not None and self.budget <= 0:
            raise ValueError(f"budget must be a positive number of seconds, got {self.budget}")
        if self.interval not in confseq.KINDS:
            raise ValueError(f"interval must be one of {', '.join(confseq.KINDS)}, got {self.interval!r}")

    @property
    def band(self) -> float:
        """τ: the tie band as a log ratio."""
        return math.log1p(self.tie_within)

    def pair_alpha(self, candidates: int) -> float:
        """The error allowed each pair: 1 − confidence shared among every pair of the race (Bonferroni)."""
        return (1 - self.confidence) / max(1, candidates * (candidates - 1) // 2)

    def sequence(self, candidates: int) -> confseq.Sequence:
        return confseq.sequence(self.interval, self.pair_alpha(candidates), self.band)

    def halfwidth(self, n: int, spread: float, candidates: int) -> float:
        """The half-width a pair's interval is expected to have after n blocks of this spread."""
        return confseq.halfwidth(self.interval, n, spread, self.pair_alpha(candidates), self.band)

    def blocks_for(self, width: float, spread: float, candidates: int, limit: int = 100_000) -> int | None:
        """The fewest blocks after which a pair's interval, at this spread, is expected narrower than ±`width`."""
        if width <= 0:
            return None
        n = 2
        while n <= limit:
            if self.halfwidth(n, spread, candidates) < width:
                return n
            n = n + 1 if n < 64 else int(n * 1.1)
        return None


@functools.lru_cache(maxsize=256)
def fewest_blocks(rule: Rule, candidates: int) -> int:
    """The fewest blocks after which a race of this many candidates can close at all — on noiseless ratios, a
    twofold difference (a win) or none (a tie) — and never before min_blocks: a rule whose max_blocks (or a
    fixed design's repeats) is below it can only end undecided."""
    band, most = rule.band, 1000
    found = []
    for d, closes in ((math.log(2), lambda s: s.low > 0), (0.0, lambda s: -band < s.low and s.high < band)):
        sequence = rule.sequence(candidates)
        for n in range(1, most + 1):
            sequence.add(d)
            if closes(sequence):
                found.append(n)
                break
    return max(rule.min_blocks, min(found, default=most))


def spread(values: Sequence[float]) -> float | None:
    """A robust spread: 1.4826 × the median absolute deviation (the standard deviation, for normal values; one
    slow run in a few leaves it alone)."""
    if len(values) < 2:
        return None
    centre = statistics.median(values)
    return 1.4826 * statistics.median(abs(v - centre) for v in values)


@dataclass(frozen=True)
class Race(Contest):
    """A race's contest, with what the race adds: its blocks, its rule, and its noise."""

    blocks: int = 0
    rule: Rule = field(default_factory=Rule)
    spread: dict[str, float] = field(default_factory=dict)  # per candidate, robust spread of its log times
    pair_spread: float | None = None  # robust spread of the paired log ratios against the leader, pooled
    floor: float | None = None  # smallest relative difference max_blocks can resolve at this spread
    blocks_needed: int | None = None  # undecided/open: blocks that would close it at the spread seen

    def line(self, title: str) -> str:
        """One line: who won or tied, by what, after how many blocks; or why it is not decided."""
        r = self.runner_up
        if self.outcome == "failed":
            return f"{title}: no answer — every candidate's run failed"
        if self.outcome == "wins":
            lead = f" — {r.candidate} {r.lead_text()} slower" if r else ""
            failed = f"; {', '.join(self.failed)} failed" if self.failed else ""
            return f"{title}: {self.leader} wins{lead} ({_blocks(self.blocks)}{failed})"
        if self.outcome == "tie":
            lead = f"; {r.candidate} {r.lead_text()}" if r else ""
            return f"{title}: tie within {self.band_text()} — {', '.join(self.tied)}{lead} ({_blocks(self.blocks)})"
        if self.outcome == "only":
            return f"{title}: {self.leader} only ({self.blocks} runs, the baseline)"
        lead = f"{self.leader} leads, {r.candidate} {r.lead_text()}; " if r else ""
        return f"{title}: {self.outcome} after {_blocks(self.blocks)} — {lead}{self.needs()}"

    def needs(self) -> str:
        """What an undecided race would need: about how many blocks, at the noise seen."""
        if self.blocks_needed:
            return f"about {self.blocks_needed} blocks would decide it"
        if self.pair_spread is None:
            return "too few blocks to tell how many would decide it"
        return "no number of blocks within reach would decide it"


class Racer:
    """A race fed one block at a time (`add`), its state read at any point (`state`)."""

    def __init__(self, candidates: Sequence[str], rule: Rule):
        if not candidates:
            raise ValueError("a race needs at least one candidate")
        self.rule, self.candidates = rule, list(dict.fromkeys(candidates))
        self.pairs = {pair: rule.sequence(len(self.candidates)) for pair in itertools.combinations(self.candidates, 2)}
        self.logs: dict[str, list[float]] = {c: [] for c in self.candidates}
        self.alive, self.failed, self.lost = list(self.candidates), set(), set()
        self.closed: str | None = None
        self.blocks = 0

    def interval(self, a: str, b: str) -> tuple[float, float, float, int]:
        """log t_a − log t_b: its interval, its centre, and the blocks both ran."""
        if (a, b) in self.pairs:
            s = self.pairs[a, b]
            return s.low, s.high, s.centre, len(s.values)
        low, high, centre, n = self.interval(b, a)
        return -high, -low, -centre, n

    def add(self, block: Mapping[str, float | None]) -> None:
        """One block's times (None: that candidate's run failed); ignored once the race has closed."""
        if self.closed:
            return
        self.blocks += 1
        here = {c: t for c, t in block.items() if c in self.alive}
        for c, t in here.items():
            if t is None or not t > 0:
                self.failed.add(c)
            else:
                self.logs[c].append(math.log(t))
        timed = {c: math.log(t) for c, t in here.items() if c not in self.failed}
        for a, b in self.pairs:
            if a in timed and b in timed:
                self.pairs[a, b].add(timed[a] - timed[b])
        self.alive = [c for c in self.alive if c not in self.failed]
        if self.blocks >= self.rule.min_blocks and len(self.candidates) > 1 and self.alive:
            beaten = {a for a in self.alive if any(self._beaten(a, b) for b in self.alive if b != a)}
            if beaten and len(beaten) < len(self.alive):
                self.lost |= beaten
                self.alive = [c for c in self.alive if c not in beaten]
            contest = self._contest(running=True)
            self.closed = contest.outcome if contest.outcome in ("wins", "tie") else None

    def _beaten(self, a: str, b: str) -> bool:
        """Whether a is proven slower than b by more than the band lets pass as a tie."""
        low, high, _, _ = self.interval(a, b)
        return low > 0 and not high < self.rule.band

    def _leader(self) -> str:
        """The candidate whose paired ratios against the others are lowest (summed centres; ties by median time),
        so that every other's ratio against it is what the comparisons say."""
        def total(c: str) -> float:
            return sum(centre for o in self.alive if o != c for _, _, centre, n in [self.interval(c, o)] if n)
        return min(self.alive, key=lambda c: (total(c), _median(self.logs[c])))

    def _contest(self, running: bool) -> Contest:
        leader = self._leader()
        others = []
        for c in self.candidates:
            if c == leader:
                continue
            low, high, centre, n = self.interval(c, leader)
            state = "failed" if c in self.failed else "loses" if c in self.lost else ""
            others.append(Standing(c, state, math.exp(centre) if n else None, _bound(low), _bound(high),
                                   len(self.logs[c])))
        return decide(leader, others, self.rule.tie_within, self.rule.confidence, running, len(self.logs[leader]))

    @property
    def running(self) -> list[str]:
        """The candidates the next block runs; empty once the race has closed or all have failed."""
        if self.closed or not self.alive or self.blocks >= self.rule.max_blocks:
            return []
        if len(self.candidates) == 1 and self.blocks >= self.rule.min_blocks:
            return []
        return list(self.alive)

    def state(self, stopped: bool = False) -> Race:
        """Where the race stands. `stopped`: the study's budget ran out, so an open race ends undecided."""
        rule, done = self.rule, self.blocks
        if not self.alive:
            failed = tuple(Standing(c, "failed", None, None, None, len(self.logs[c])) for c in self.candidates)
            return Race("failed", self.candidates[0], failed, rule.tie_within, rule.confidence, done, rule)
        if len(self.candidates) == 1:
            only = "only" if done >= rule.min_blocks else ("undecided" if stopped else "open")
            c = self.candidates[0]
            return Race(only, c, (Standing(c, "leader", 1.0, 1.0, 1.0, done),), rule.tie_within, rule.confidence,
                        done, rule, self._spreads())
        contest = self._contest(running=True)
        outcome = self.closed or ("undecided" if stopped or done >= rule.max_blocks else "open")
        return self._summary(replace(contest, outcome=outcome))

    def _spreads(self) -> dict[str, float]:
        return {c: sd for c, v in self.logs.items() if (sd := spread(v)) is not None}

    def _summary(self, contest: Contest) -> Race:
        rule, leader = self.rule, contest.leader
        against = [d for c in self.candidates if c != leader for d in self._values(c, leader)]
        pooled = spread(against)
        floor = needed = None
        if pooled is not None:
            floor = math.expm1(rule.halfwidth(rule.max_blocks, pooled, len(self.candidates)))
            if contest.outcome in ("open", "undecided"):
                needed = self._blocks_needed([c for c in self.alive if c != leader], leader, pooled)
                # the normal approximation behind the estimate flatters heavy tails: never fewer than one more block
                needed = None if needed is None else max(needed, self.blocks + 1)
        return Race(contest.outcome, leader, contest.standings, contest.tie_within, contest.confidence, self.blocks,
                    rule, self._spreads(), pooled, floor, needed)

    def _values(self, a: str, b: str) -> list[float]:
        if (a, b) in self.pairs:
            return self.pairs[a, b].values
        return [-v for v in self.pairs[b, a].values]

    def _blocks_needed(self, open_candidates: list[str], leader: str, sd: float) -> int | None:
        """Blocks at which every open pair's interval, at the spread seen, would be narrow enough to close it: to
        exclude 0 it must be narrower than |d|, to sit inside the band narrower than τ − |d|; the easier of the
        two."""
        most = 0
        for c in open_candidates:
            low, high, centre, _ = self.interval(c, leader)
            if low > 0 or -self.rule.band < low and high < self.rule.band:
                continue  # closed already
            need = self.rule.blocks_for(max(abs(centre), self.rule.band - abs(centre)), sd, len(self.candidates))
            if need is None:
                return None
            most = max(most, need)
        return most or None


class ExactRacer:
    """A race of exact figures (replays), fed as a Racer is: its one block decides it (exact_race); a candidate
    whose replay failed leaves it."""

    def __init__(self, candidates: Sequence[str], rule: Rule):
        self.rule, self.candidates = rule, list(dict.fromkeys(candidates))
        self.times: dict[str, float | None] = {}
        self.blocks = 0

    def add(self, block: Mapping[str, float | None]) -> None:
        if not self.blocks:
            self.times, self.blocks = dict(block), 1

    @property
    def running(self) -> list[str]:
        return [] if self.blocks else list(self.candidates)

    def state(self, stopped: bool = False) -> Race:
        timed = {c: t for c, t in self.times.items() if t is not None and t > 0}
        rule = self.rule
        if not timed:
            failed = tuple(Standing(c, "failed", None, None, None) for c in self.candidates)
            return Race("failed" if self.blocks else "undecided" if stopped else "open", self.candidates[0], failed,
                        rule.tie_within, None, self.blocks, rule)
        return exact_race(timed, rule, [c for c in self.candidates if c not in timed])


def _blocks(n: int) -> str:
    return f"{n} block{'s' if n != 1 else ''}"


def race(blocks: Sequence[Mapping[str, float | None]], rule: Rule, stopped: bool = False) -> Race:
    """The state of a race after its blocks (each maps a candidate to its time, None for a failed run), in the
    order run; the first block names every candidate."""
    if not blocks:
        raise ValueError("a race needs at least one block")
    racer = Racer(list(blocks[0]), rule)
    for block in blocks:
        racer.add(block)
    return racer.state(stopped)


def exact_race(times: Mapping[str, float], rule: Rule, failed: Sequence[str] = ()) -> Race:
    """A race of exact figures (simulated replays, one each): the one contest rule on intervals of zero width."""
    c = exact(dict(times), rule.tie_within, failed)
    return Race(c.outcome, c.leader, c.standings, c.tie_within, None, 1, rule)


def _bound(log_ratio: float) -> float | None:
    """An interval's end as a ratio; None while it is unbounded."""
    return math.exp(log_ratio) if math.isfinite(log_ratio) else None


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else math.inf
