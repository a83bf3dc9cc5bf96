"""Racing candidate splits until the answer is known: wins, tie, or (out of budget) undecided.

A race is one question — which candidate is fastest at one scale of one problem — asked of blocks: each
block runs every candidate still in the race once, back to back in a random order, so that a drift of the
machine falls on all of them alike. Candidates are compared within blocks, by the paired log ratio of
their times d = log t_a − log t_b (Kalibera & Jones: the unit of repetition is the process launch, and
the figure is a ratio).

Every pair's median log ratio gets a *confidence sequence*: an interval valid at every block at once, so
the race may look after each block and stop when it likes without the confidence leaking away. It is the
sign (quantile) confidence sequence (Robbins 1970; Howard & Ramdas 2022, "Sequential estimation of
quantiles"): whatever the distribution of d, the indicators d_i < median are fair coin flips, and the
mixture over their bias p ~ Beta(1, 1) of the likelihood ratio against p = 1/2,
M_n(k) = 2^n / ((n + 1) C(n, k)) after k of n values fell below a candidate median, is a nonnegative
martingale; Ville's inequality bounds the chance it ever crosses 1/α. The values with M_n < 1/α form an
interval between two order statistics of d. It is exact for any continuous distribution — no Gaussian
assumption — and an outlier (a run slowed by another job) moves it by one rank, not by its size: on the
shared 2-core machines this is built on, one run in six or so is 10–50% slow, which widens a
mean-based interval several-fold. Each interval is the running intersection of the sequence so far (still
valid, and decisions never flip back). Several candidates share the confidence by Bonferroni: α is
divided among every pair of the race's candidates, so every decision below holds together with the
declared confidence.

After each block (from `min_blocks` on), with τ = log(1 + tie_within):
- a candidate whose interval against any other candidate still racing lies above 0 *loses* and leaves;
  a candidate whose run failed leaves too (it cannot win);
- the *leader* is the survivor whose paired ratios against the others are lowest (the sum of their medians);
- one survivor left: it *wins* (its lead over the runner-up, with the interval, may lie inside ±τ: the
  lead is then real but below what the study declared to matter);
- every other survivor's interval against the leader inside (−τ, τ): the survivors are *tied*;
- otherwise the race goes on, until `max_blocks` or the study's budget: then it is *undecided*, and says
  its noise and how many blocks would decide it. Once an interval is narrower than τ one of the two
  closing cases must happen, so with enough blocks every race ends.
Pure functions; `tests/test_race.py` races thousands of synthetic candidates to measure the error rates.
"""

from __future__ import annotations

import functools
import itertools
import math
import statistics
from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence

@dataclass(frozen=True)
class Rule:
    """How a study decides, declared before it runs (the spec's `decide:` block)."""

    confidence: float = 0.90
    tie_within: float = 0.02  # relative difference below which two candidates count as tied
    min_blocks: int = 3
    max_blocks: int = 30
    budget: float | None = 600.0  # seconds of running for the whole study; None: no limit

    def __post_init__(self) -> None:
        if not 0 < self.confidence < 1:
            raise ValueError(f"confidence must lie between 0 and 1, got {self.confidence}")
        if not 0 < self.tie_within < 1:
            raise ValueError(f"tie_within must lie between 0 and 1 (a fraction: 0.02 is 2%), got {self.tie_within}")
        if not 1 <= self.min_blocks <= self.max_blocks:
            raise ValueError(f"need 1 <= min_blocks <= max_blocks, got {self.min_blocks} and {self.max_blocks}")
        if self.budget is not None and self.budget <= 0:
            raise ValueError(f"budget must be a positive number of seconds, got {self.budget}")

    @property
    def band(self) -> float:
        """τ: the tie band as a log ratio."""
        return math.log1p(self.tie_within)

    def pair_alpha(self, candidates: int) -> float:
        """The error allowed each pair: 1 − confidence shared among every pair of the race (Bonferroni)."""
        return (1 - self.confidence) / max(1, candidates * (candidates - 1) // 2)


@functools.lru_cache(maxsize=4096)
def ranks(n: int, alpha: float) -> tuple[int, int]:
    """The confidence sequence for the median after n values is [x_(lo), x_(hi)], 1-based order statistics with
    x_(0) = −∞ and x_(n+1) = +∞: a candidate median m below which k values lie is kept while
    M_n(k) = 2^n / ((n + 1) C(n, k)) < 1/α; k runs over a range [j, J], and m with k(m) = j lies in
    (x_(j), x_(j+1)]."""
    limit = math.log(1 / alpha)
    kept = [k for k in range(n + 1)
            if n * math.log(2) - math.log(n + 1) - (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1))
            < limit]
    return kept[0], kept[-1] + 1


def interval(values: Sequence[float], alpha: float) -> tuple[float, float]:
    """The sign confidence sequence's interval for the median of these values (infinite ends while too few)."""
    lo, hi = ranks(len(values), alpha)
    ordered = sorted(values)
    return (-math.inf if lo == 0 else ordered[lo - 1]), (math.inf if hi > len(values) else ordered[hi - 1])


def expected_halfwidth(n: int, spread: float, alpha: float) -> float:
    """The half-width the interval has after n values drawn from a normal distribution of this spread: its ends are
    order statistics, expected near the normal quantiles of their ranks."""
    lo, hi = ranks(n, alpha)
    if lo == 0 or hi > n:
        return math.inf
    z = statistics.NormalDist()
    return spread * (z.inv_cdf(hi / (n + 1)) - z.inv_cdf(lo / (n + 1))) / 2


def blocks_for(width: float, spread: float, alpha: float, limit: int = 100_000) -> int | None:
    """The fewest blocks after which the interval, at this spread, is expected narrower than ±`width`."""
    if width <= 0:
        return None
    n = 2
    while n <= limit:
        if expected_halfwidth(n, spread, alpha) < width:
            return n
        n = n + 1 if n < 64 else int(n * 1.1)
    return None


@dataclass
class _Pair:
    """The paired log ratios d = log t_a − log t_b of the blocks both ran, and the intersected interval."""

    values: list[float] = field(default_factory=list)
    low: float = -math.inf
    high: float = math.inf

    def add(self, d: float, alpha: float) -> None:
        self.values.append(d)
        low, high = interval(self.values, alpha)
        self.low, self.high = max(self.low, low), min(self.high, high)

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def median(self) -> float:
        return statistics.median(self.values) if self.values else math.nan


def spread(values: Sequence[float]) -> float | None:
    """A robust spread: 1.4826 × the median absolute deviation (the standard deviation, for normal values; one
    slow run in a few leaves it alone)."""
    if len(values) < 2:
        return None
    centre = statistics.median(values)
    return 1.4826 * statistics.median(abs(v - centre) for v in values)


@dataclass(frozen=True)
class Standing:
    """One candidate against the leader when the race stopped: its time over the leader's (the median of the
    paired ratios) and that ratio's interval."""

    candidate: str
    state: str  # leader | loses | tied | open | failed
    ratio: float | None
    low: float | None
    high: float | None
    blocks: int  # blocks it ran in

    def lead_text(self) -> str:
        """'+3.1% [+0.4%, +5.9%]': how much longer than the leader it takes."""
        if self.ratio is None:
            return "–"
        if self.low == self.high == self.ratio:  # an exact race's (replays): no interval to give
            return f"{100 * (self.ratio - 1):+.1f}% (exact)"
        bounds = "(unbounded)" if self.low is None or self.high is None \
            else f"[{100 * (self.low - 1):+.1f}%, {100 * (self.high - 1):+.1f}%]"
        return f"{100 * (self.ratio - 1):+.1f}% {bounds}"


@dataclass(frozen=True)
class Race:
    outcome: str  # wins | tie | undecided | open | only | failed (every candidate's runs failed)
    leader: str
    standings: tuple[Standing, ...]  # leader first, then by ratio
    blocks: int
    rule: Rule
    spread: dict[str, float] = field(default_factory=dict)  # per candidate, robust spread of its log times
    pair_spread: float | None = None  # robust spread of the paired log ratios against the leader, pooled
    floor: float | None = None  # smallest relative difference max_blocks can resolve at this spread
    blocks_needed: int | None = None  # undecided/open: blocks that would close it at the spread seen

    @property
    def tied(self) -> tuple[str, ...]:
        return tuple(s.candidate for s in self.standings if s.state in ("leader", "tied"))

    @property
    def runner_up(self) -> Standing | None:
        """The closest candidate to the leader that still stands against it: of a win, the best loser; of a race
        not decided, the closest candidate still open, since one that has lost is not what keeps it open (a lost
        candidate closer than the open ones would show a lead whose interval excludes 1 on a race undecided)."""
        rest = [s for s in self.standings if s.state not in ("leader", "failed") and s.ratio is not None]
        standing = [s for s in rest if s.state in ("open", "tied")] or rest
        return min(standing, key=lambda s: s.ratio) if standing else None

    @property
    def failed(self) -> tuple[str, ...]:
        """The candidates that left the race because a run of theirs failed."""
        return tuple(s.candidate for s in self.standings if s.state == "failed")

    @property
    def below_band(self) -> bool:
        """A win whose whole lead interval lies inside the tie band: real, but below what was declared to matter."""
        r = self.runner_up
        return self.outcome == "wins" and r is not None and r.high is not None and math.log(r.high) < self.rule.band

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
            band = f"±{100 * self.rule.tie_within:g}%"
            return f"{title}: tie within {band} — {', '.join(self.tied)} ({_blocks(self.blocks)})"
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
        self.alpha = rule.pair_alpha(len(self.candidates))
        self.pairs = {(a, b): _Pair() for a, b in itertools.permutations(self.candidates, 2)}
        self.logs: dict[str, list[float]] = {c: [] for c in self.candidates}
        self.alive, self.failed, self.lost = list(self.candidates), set(), set()
        self.closed: str | None = None
        self.blocks = 0

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
        for a, b in itertools.permutations(timed, 2):
            self.pairs[a, b].add(timed[a] - timed[b], self.alpha)
        self.alive = [c for c in self.alive if c not in self.failed]
        if self.blocks >= self.rule.min_blocks and len(self.candidates) > 1 and self.alive:
            beaten = {a for a in self.alive if any(self.pairs[a, b].low > 0 for b in self.alive if b != a)}
            if beaten and len(beaten) < len(self.alive):
                self.lost |= beaten
                self.alive = [c for c in self.alive if c not in beaten]
            self.closed = self._closing()  # the last one left, the others failed, wins without running on alone

    def _leader(self) -> str:
        """The candidate whose paired ratios against the others are lowest (summed medians; ties by median time),
        so that every other's median ratio against it is what the comparisons say."""
        return min(self.alive, key=lambda c: (sum(self.pairs[c, o].median for o in self.alive
                                                  if o != c and self.pairs[c, o].n), _median(self.logs[c])))

    def _closing(self) -> str | None:
        if len(self.alive) == 1:
            return "wins"
        leader, band = self._leader(), self.rule.band
        if all(-band < self.pairs[c, leader].low and self.pairs[c, leader].high < band
               for c in self.alive if c != leader):
            return "tie"
        return None

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
            return self._summary("failed", self.candidates[0])
        if len(self.candidates) == 1:
            outcome = "only" if done >= rule.min_blocks else ("undecided" if stopped else "open")
        elif self.closed:
            outcome = self.closed
        elif done >= rule.min_blocks and len(self.alive) == 1:
            outcome = "wins"
        else:
            outcome = "undecided" if stopped or done >= rule.max_blocks else "open"
        return self._summary(outcome, self._leader())

    def _summary(self, outcome: str, leader: str) -> Race:
        rule, pairs = self.rule, self.pairs
        standings = [Standing(leader, "leader", 1.0, 1.0, 1.0, len(self.logs[leader]))]
        for c in self.candidates:
            if c == leader:
                continue
            p = pairs[c, leader]
            state = ("failed" if c in self.failed else "loses" if c in self.lost else
                     "tied" if outcome == "tie" else "loses" if outcome == "wins" else "open")
            standings.append(Standing(c, state, math.exp(p.median) if p.n else None, _bound(p.low), _bound(p.high),
                                      len(self.logs[c])))
        standings[1:] = sorted(standings[1:], key=lambda s: (s.state == "failed", s.ratio or math.inf))
        runs = {c: sd for c, v in self.logs.items() if (sd := spread(v)) is not None}
        against = [d for c in self.candidates if c != leader for d in pairs[c, leader].values]
        pooled = spread(against)
        floor = needed = None
        if pooled is not None:
            floor = math.expm1(expected_halfwidth(rule.max_blocks, pooled, self.alpha))
            if outcome in ("open", "undecided"):
                needed = _blocks_needed([pairs[c, leader] for c in self.alive if c != leader], pooled, rule,
                                        self.alpha)
                # the normal quantiles behind the estimate flatter heavy tails: never fewer than one more block
                needed = None if needed is None else max(needed, self.blocks + 1)
        return Race(outcome, leader, tuple(standings), self.blocks, rule, runs, pooled, floor, needed)


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
        failed = tuple(Standing(c, "failed", None, None, None, 1) for c in self.candidates if c not in timed)
        if not timed:
            return Race("failed" if self.blocks else "undecided" if stopped else "open", self.candidates[0], failed,
                        self.blocks, self.rule)
        exact = exact_race(timed, self.rule)
        return replace(exact, standings=exact.standings + failed)


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


def _bound(log_ratio: float) -> float | None:
    """An interval's end as a ratio; None while it is unbounded."""
    return math.exp(log_ratio) if math.isfinite(log_ratio) else None


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else math.inf


def _blocks_needed(open_pairs: list[_Pair], sd: float, rule: Rule, alpha: float) -> int | None:
    """Blocks at which every open pair's interval, at the spread seen, would be narrow enough to close it: to
    exclude 0 it must be narrower than |d|, to sit inside the band narrower than τ − |d|; the easier of the two."""
    most = 0
    for p in open_pairs:
        need = blocks_for(max(abs(p.median), rule.band - abs(p.median)), sd, alpha)
        if need is None:
            return None
        most = max(most, need)
    return most or None


def exact_race(times: Mapping[str, float], rule: Rule) -> Race:
    """A race of exact figures (simulated replays, one each): those within the tie band of the fastest tie with it,
    the others lose; with none tied, the fastest wins by its exact lead."""
    leader = min(times, key=times.__getitem__)
    rest = sorted((c for c in times if c != leader), key=times.__getitem__)
    tied = {c for c in rest if math.log(times[c] / times[leader]) < rule.band}
    outcome = "only" if not rest else "tie" if tied else "wins"
    standings = [Standing(leader, "leader", 1.0, 1.0, 1.0, 1)]
    for c in rest:
        ratio = times[c] / times[leader]
        standings.append(Standing(c, "tied" if c in tied else "loses", ratio, ratio, ratio, 1))
    return Race(outcome, leader, tuple(standings), 1, rule)
