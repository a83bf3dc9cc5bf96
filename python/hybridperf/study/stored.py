"""A study as its results directory keeps it: one campaign's spec, counted runs and end (`Stored`), which study a
folder stands for when none is named (its latest measured one), and whether a campaign is a simulation's. I/O:
reads the store; errors are StoreError, one line that says what to do."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hybridperf.analysis import sections as analysis
from hybridperf.store.db import Campaign, holds_store, Store, StoreError
from hybridperf.study import spec
from hybridperf.study.registry import kind_of

REPLAYED_ON = "replayed_on"  # an app's replayed campaign's machine: the cluster's key, in place of a machine's facts


@dataclass
class Stored:
    """One campaign of a stored study: the spec it ran, its counted runs, how it ended."""

    study: spec.Study
    runs: list[dict]
    campaign: Campaign
    every: list[dict] = field(default_factory=list)  # warm-ups and runs of blocks run again too

    def sections(self) -> list[analysis.Section]:
        return analysis.analyse(self.study.design, self.runs, self.study.rule,
                                stopped=self.campaign.ended in ("decided", "budget"))

    def describe(self) -> str:
        c = self.campaign
        ended = {"decided": "ended decided", "budget": "ended when its budget was spent",
                 "interrupted": "interrupted"}.get(c.ended or "", "still running")
        return f"campaign {c.number} (started {c.started}, {ended}); "


def open_store(directory: Path) -> Store:
    """The store of an existing results directory."""
    if not holds_store(directory):
        raise StoreError(f"{directory} has no results.db (run `hybridperf study SPEC` first)")
    return Store(directory)


def stored(directory: Path, name: str | None, campaign: int | None = None) -> Stored:
    """A stored study's campaign: the latest study and campaign unless named."""
    with open_store(directory) as store:
        names = store.studies()
        if not names:
            raise StoreError(f"{directory} holds no study (run `hybridperf study SPEC` first)")
        name = name or default_study(store, names)
        if name not in names:
            raise StoreError(f"{directory} has no study '{name}' (it has: {', '.join(names)})")
        chosen = store.campaign(name, campaign)
        return Stored(spec.from_dict(chosen.spec), store.runs(name, chosen.number), chosen,
                      store.runs(name, chosen.number, warmups=True))


def default_study(store: Store, names: list[str]) -> str:
    """The study a results directory stands for: its latest measured one. A simulated study stored beside it
    (`hybridperf simulate SPEC`, study NAME-on-CLUSTER) is read only when named (--study), unless it is all there
    is."""
    measured = [n for n in names if not simulated_campaign(store.campaign(n))]
    return (measured or names)[-1]


def simulated_campaign(campaign: Campaign) -> bool:
    """Whether a stored campaign is SimGrid's: planned replays (backend simgrid) or an app's traces replayed on a
    cluster (simulate.app_study, which notes the cluster in its machine)."""
    return kind_of(spec.from_dict(campaign.spec).backend).exact or REPLAYED_ON in campaign.machine


def simulated_on(found: Stored) -> str | None:
    """The cluster a simulated campaign ran on (its key); None for a measured one."""
    if not simulated_campaign(found.campaign):
        return None
    return found.campaign.machine.get(REPLAYED_ON) or found.study.simgrid.get("cluster")
