"""One published outcome of a seed beside its simulated counterpart (`hybridperf simulate validate`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Outcome:
    claim: str
    source: str
    rule: str  # how `reproduced` is decided from the simulated values
    published: str
    simulated: str
    reproduced: bool
    closed_form: str = ""  # the split model's answer on the same points, where it gives one
