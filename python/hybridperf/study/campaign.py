"""A campaign's one lifecycle, for a study's races and an app study's replays alike: saved with its study, started
(or, for a study, the interrupted campaign of the same spec resumed), and ended as its body says — decided or
budget — or interrupted by Ctrl-C, which leaves it to be resumed."""

from __future__ import annotations

import random
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator

from hybridperf.store.db import Campaign, Store, timestamp


@dataclass
class Running:
    campaign: Campaign
    stored: list[dict] = field(default_factory=list)  # the runs a resumed campaign already holds
    ended: str = "decided"  # what the body says it came to: decided or budget; interrupted when Ctrl-C stopped it


@contextmanager
def lifecycle(store: Store, study: str, kernel: str, spec: dict[str, Any], source: str, machine: dict[str, Any],
              resume: bool = True) -> Iterator[Running]:
    """The study saved, its campaign started or resumed, and ended when the body ends: as the body says, or
    interrupted by Ctrl-C (which goes on up); anything else raises with the campaign left as it was."""
    store.save_study(study, kernel, spec, source, timestamp())
    found = store.campaigns(study)
    if resume and found and found[-1].ended in (None, "interrupted") and found[-1].spec == spec:
        running = Running(found[-1], store.runs(study, found[-1].number, warmups=True))
    else:
        running = Running(store.start_campaign(study, spec, random.SystemRandom().randrange(1 << 31), machine,
                                               timestamp()))
    try:
        yield running
    except KeyboardInterrupt:
        running.ended = "interrupted"
        store.end_campaign(study, running.campaign.number, "interrupted", None)
        raise
    else:
        store.end_campaign(study, running.campaign.number, running.ended, timestamp())
