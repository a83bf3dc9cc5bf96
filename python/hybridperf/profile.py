"""The one loader of kernel profiles: reads a profile JSON and validates it against the shipped schema.

The profile is the only contract between the C kernels and the Python front end (see
docs/profile-schema.md); nothing in hybridperf parses a kernel's text output.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any


SCHEMA_ID = "hybridperf.profile/1"
FILE = "_file"  # where the reader of a results directory notes a profile's file, for warnings to name the run


class ProfileError(ValueError):
    """A file that is not a valid hybridperf profile; the message says where it is wrong."""


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    text = resources.files("hybridperf").joinpath("schemas/profile-1.schema.json").read_text()
    return json.loads(text)


def validate(profile: dict[str, Any]) -> None:
    import jsonschema  # 50 ms at import: only for the commands that validate a profile

    try:
        jsonschema.validate(profile, schema())
    except jsonschema.ValidationError as err:
        where = "/".join(str(p) for p in err.absolute_path) or "(top level)"
        raise ProfileError(f"profile does not match {SCHEMA_ID} at {where}: {err.message}") from None


def load(path: str | Path) -> dict[str, Any]:
    try:
        profile = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise ProfileError(f"no profile at {path}") from None
    except json.JSONDecodeError as err:
        raise ProfileError(f"{path} is not JSON: {err}") from None
    validate(profile)
    return profile


def simulated(profile: dict[str, Any] | None) -> str | None:
    """What a run's profile says it replayed with SimGrid: "plan" (a kernel's plan, exact under its inputs: one
    block decides), "trace" (a measured run's own traces: one replay per measured run, raced as they ran), or None
    (measured). The one test of a run; a campaign's is study.stored.simulated_campaign."""
    if not profile or "simulated" not in profile:
        return None
    return "trace" if "replay_of" in profile["simulated"] else "plan"


def figure(profile: dict[str, Any], name: str) -> float | None:
    """The value of a figure of merit by name, or None."""
    for f in profile.get("figures_of_merit", []):
        if f["name"] == name:
            return f["value"]
    return None


def imbalance(maximum: float, average: float) -> float:
    """A region's or class's imbalance as the schema defines it: max / avg - 1 (0 when avg is 0)."""
    return maximum / average - 1.0 if average > 0 else 0.0


def failed_checks(profile: dict[str, Any]) -> list[str]:
    return [name for name, c in profile.get("checks", {}).items() if not c["pass"]]
