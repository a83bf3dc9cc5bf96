"""Runs a study as races: each scale of each parameter set races its candidate splits in blocks until the
answer is known (analysis.race), the blocks of the open races taken in turn, every run stored as it ends.

A block runs each candidate still in its race once, in an order drawn from the campaign's seed (stored with
every run as its position), back to back. Before the first block of a race of two or more candidates one
warm-up run — the block's first candidate — is made and stored but not counted, so that a cold machine does
not tilt the first comparison. A simulated study (backend simgrid) replays each candidate once, without warm-up:
a replay is exact, and its one block decides (analysis.race.ExactRacer). The study's `decide` rule says when a
race closes (wins, tie) and how much running it may spend (`budget`: the runs' own seconds, launch to exit; then the open
races end undecided).

Every invocation of `hybridperf study` is a campaign: a new one each time, so nothing is overwritten,
except that an interrupted campaign of the same spec resumes — its stored blocks are fed back into the
races and racing goes on where it stopped. Ctrl-C stops the current run's processes and stores nothing of
it. A failed run (non-zero exit, failed correctness check, timeout) is stored with its status and the end
of its stderr; its candidate leaves the race (it cannot win) and the study goes on.

The scheduler prints nothing: it reports what happens to an `Observer` it is given (the CLI's draws a progress
bar; `Silent` says nothing).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from hybridperf.analysis.race import ExactRacer, Race, Racer
from hybridperf.analysis.disturbed import disturbance_text
from hybridperf.analysis.sections import blocks_of, candidate_name, counted_time
from hybridperf.store.db import RunRecord, Store
from hybridperf.study.campaign import lifecycle, Running
from hybridperf.study.expand import RaceDef, races, RunPlan
from hybridperf.study.spec import Study


NOISY = 0.10  # a paired spread above this is worth a warning, as pyperf warns above 10% of the mean
RERUNS = 2  # the most times one block runs again for disturbed runs (`disturbed: rerun`); then it is kept


class Backend(Protocol):
    name: str
    exact: bool  # its runs are replays, exact under their inputs (study.registry)

    def launch_line(self, plan: RunPlan) -> str: ...

    def run(self, plans: list[RunPlan], done: Callable[[RunRecord], None]) -> None: ...


class Observer(Protocol):
    """What the scheduler reports as a campaign goes, in the order it happens: `started`, `racing`, then `block`,
    `line`, `warning`, `failed` and `advance` as the races run, `finished` (also when interrupted), then the
    campaign's closing `warning`s and `budget_spent`. Texts are plain: an observer styles them, never parses them."""

    def started(self, text: str) -> None:
        """The campaign's first line: a resumed campaign's runs already stored, or a new one's races and rule."""
        ...

    def racing(self, title: str, total: int, decided: int) -> None:
        """The races begin: `total` of them under `title` (the study), `decided` of them already (resumed)."""
        ...

    def block(self, description: str) -> None:
        """A block starts: which race, which block ("<race>: block N"), run again or not."""
        ...

    def advance(self) -> None:
        """One more race is decided."""
        ...

    def line(self, text: str) -> None:
        """A line to show as it is: a decided race's result, a block that runs again and why."""
        ...

    def warning(self, text: str) -> None:
        """Something worth a warning: a run's own (its shape first), a race whose runs were noisy."""
        ...

    def failed(self, status: str, what: str, reason: str, launch: str) -> None:
        """A run failed: its status (failed, check-failed, timeout), which run, why (with where its output is kept), and
        its launch line."""
        ...

    def finished(self) -> None:
        """The races end: decided, out of budget or interrupted."""
        ...

    def budget_spent(self, seconds: float, undecided: int) -> None:
        """The budget ran out after `seconds` of runs, with `undecided` races still open."""
        ...


class Silent:
    """An observer that says nothing: for callers that want only the outcome."""

    def started(self, text: str) -> None:
        pass

    def racing(self, title: str, total: int, decided: int) -> None:
        pass

    def block(self, description: str) -> None:
        pass

    def advance(self) -> None:
        pass

    def line(self, text: str) -> None:
        pass

    def warning(self, text: str) -> None:
        pass

    def failed(self, status: str, what: str, reason: str, launch: str) -> None:
        pass

    def finished(self) -> None:
        pass

    def budget_spent(self, seconds: float, undecided: int) -> None:
        pass


@dataclass
class StudyOutcome:
    campaign: int
    resumed: int  # runs already stored when it started (a resumed campaign)
    stored: list[RunRecord] = field(default_factory=list)
    races: dict[str, Race] = field(default_factory=dict)  # by race title
    ended: str = "decided"  # decided | budget | interrupted

    @property
    def failed(self) -> list[RunRecord]:
        return [r for r in self.stored if r.status != "ok"]


def _belongs(race: RaceDef, run: dict) -> bool:
    shape = (run["nodes"], run["ranks_per_node"], run["threads"])
    return any(c.params == run["params"] and (c.nodes, c.ranks_per_node, c.threads) == shape for c in race.candidates)


def _order(seed: int, race_index: int, block: int, candidates: list[str], attempt: int = 0) -> list[str]:
    """A block's order, drawn from the campaign's seed: the same block is drawn the same way on resuming (and
    drawn anew when it runs again)."""
    order = list(candidates)
    random.Random(f"{seed}:{race_index}:{block}" + (f":{attempt}" if attempt else "")).shuffle(order)
    return order


def run_study(study: Study, store: Store, backend: Backend, observer: Observer, source: str,
              machine: dict[str, Any] | None = None) -> StudyOutcome:
    outcome = StudyOutcome(0, 0)
    try:
        with lifecycle(store, study.name, study.kernel, study.as_dict(), source, machine or {}) as running:
            outcome.campaign, outcome.resumed = running.campaign.number, len(running.stored)
            _race(study, store, backend, observer, running, outcome)
        outcome.ended = running.ended
    except KeyboardInterrupt:  # the campaign ended interrupted: the same command resumes it
        outcome.ended = "interrupted"
    return outcome


def _race(study: Study, store: Store, backend: Backend, observer: Observer, running: Running,
          outcome: StudyOutcome) -> None:
    """The races of one campaign, run block by block until each is decided or the budget is spent (`running.ended`
    says which), into `outcome`; Ctrl-C goes through to the campaign."""
    campaign, stored = running.campaign, running.stored
    rule, defs = study.rule, races(study)
    exact = backend.exact  # replays: one block decides, and nothing warms up
    racers = {d.key: (ExactRacer if exact else Racer)([c.candidate for c in d.candidates], rule) for d in defs}
    warmed = set()
    for d in defs:
        mine = [r for r in stored if _belongs(d, r)]
        if any(r["warmup"] for r in mine):
            warmed.add(d.key)
        for block in blocks_of(mine):
            racers[d.key].add(block)
    spent = sum(r["elapsed"] for r in stored)
    if stored:
        observer.started(f"resuming {study.name} campaign {campaign.number}: {len(stored)} runs already stored")
    else:
        observer.started(f"{study.name}: campaign {campaign.number}; {len(defs)} race(s), {rule_text(study)}"
                         + _earlier(store, study.name, campaign.number))

    stopped = False
    observer.racing(study.name, len(defs), sum(not r.running for r in racers.values()))
    try:
        while not stopped and any(racers[d.key].running for d in defs):
            for index, d in enumerate(defs):
                racer = racers[d.key]
                if not racer.running:
                    continue
                if rule.budget is not None and spent >= rule.budget:
                    stopped = True
                    break
                attempt = 0
                while True:  # a block, and again while a run of it is disturbed and the study reruns such
                    order = _order(campaign.seed, index, racer.blocks, racer.running, attempt)
                    plans = d.block(racer.blocks, order, campaign.number, attempt)
                    if d.key not in warmed and len(d.candidates) > 1 and not exact:  # one: nothing to tilt
                        plans.insert(0, d.warmup(order[0], campaign.number))
                        warmed.add(d.key)
                    again = f" (again: {attempt} disturbed before)" if attempt else ""
                    observer.block(f"{d.title()}: block {racer.blocks + 1}{again}")
                    counted: list[RunRecord] = []

                    def done(record: RunRecord) -> None:
                        nonlocal spent
                        store.add_run(record)
                        outcome.stored.append(record)
                        spent += record.elapsed
                        _say_problems(observer, record)
                        if not record.warmup:
                            counted.append(record)

                    backend.run(plans, done)
                    disturbed = [r for r in counted if r.disturbance and r.disturbance.get("disturbed")]
                    if not (study.disturbed == "rerun" and disturbed and attempt < RERUNS and
                            len(d.candidates) > 1 and (rule.budget is None or spent < rule.budget)):
                        break
                    store.supersede([r.run_key for r in counted])
                    observer.line(f"{d.title()}: block {racer.blocks + 1} runs again — "
                                  f"{candidate_name(disturbed[0].configurations)}: "
                                  f"{disturbance_text(disturbed[0].disturbance)}")
                    attempt += 1
                racer.add({candidate_name(r.configurations): counted_time(r.status, r.loop_time)
                           for r in counted})
                if not racer.running:
                    observer.line(racer.state().line(d.title()))
                    observer.advance()
    finally:
        observer.finished()
    running.ended = "budget" if stopped else "decided"
    outcome.races = {d.title(): racers[d.key].state(stopped) for d in defs}
    for title, state in outcome.races.items():
        if state.pair_spread is not None and state.pair_spread > NOISY:
            observer.warning(f"{title}: runs of one split differ by ±{100 * state.pair_spread:.0f}% "
                             "(pyperf warns above 10%): the machine is noisy, and the race needed more blocks for it")
    if stopped:
        observer.budget_spent(spent, sum(r.outcome == "undecided" for r in outcome.races.values()))


def _earlier(store: Store, name: str, number: int) -> str:
    """What became of the campaigns before a new one: kept, and why the last one was not resumed."""
    if number == 1:
        return ""
    last = store.campaign(name, number - 1)
    why = (f"; campaign {last.number} was interrupted under another spec, so it is not resumed"
           if last.ended in (None, "interrupted") else "")
    kept = "campaign 1 is kept" if number == 2 else f"campaigns 1–{number - 1} are kept"
    return f" ({kept}: report --campaign N{why})"


def rule_text(study: Study) -> str:
    r = study.rule
    budget = "no time limit" if r.budget is None else f"budget {r.budget:g} s of runs"
    if r.min_blocks == r.max_blocks:
        return f"{r.max_blocks} block(s) each, verdicts at {100 * r.confidence:g}% confidence" + \
            ("" if r.budget is None else f", {budget}")
    return (f"racing to {100 * r.confidence:g}% confidence, ties within ±{100 * r.tie_within:g}%, "
            f"{r.min_blocks}–{r.max_blocks} blocks, {budget}")


def _say_problems(observer: Observer, record: RunRecord) -> None:
    shape = f"{record.study} {candidate_name(record.configurations)} ({record.nodes}n{record.ranks_per_node}r{record.threads}t)"
    for w in record.warnings:
        observer.warning(f"{shape}: {w}")
    if record.status != "ok":
        kept = f"\n  output: {record.output}" if record.output else ""
        observer.failed(record.status, shape, (record.reason or "") + kept, record.launch)
