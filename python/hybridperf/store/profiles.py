"""The profiles a results directory holds — `hybridperf run` writes runs/*.json, studies write profiles/*.json —
as the readers of a calibration take them: the successful ones, oldest first, each with its file noted (for a
warning to name the run), the runs made as copies at once apart, and a study's runs that count nowhere left out.
I/O: reads the folder and its store."""

from __future__ import annotations

import json
from pathlib import Path

from hybridperf.profile import FILE
from hybridperf.store.db import Store


def ok_profiles(directory: Path) -> tuple[list[dict], list[dict]]:
    """(profiles, copies): the folder's successful profiles, oldest first, and apart those made as copies at once
    (`hybridperf run --copies`, which price the node's efficiency only); unreadable files are skipped."""
    profiles = []
    for path in [*directory.glob("runs/*.json"), *directory.glob("profiles/*.json")]:
        try:
            profile = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        if isinstance(profile, dict) and profile.get("status") == "ok" and "run" in profile:
            profiles.append({**profile, FILE: str(path)})
    profiles.sort(key=lambda p: p["run"].get("start_time", ""))
    return [p for p in profiles if "copy" not in p["run"]], [p for p in profiles if "copy" in p["run"]]


def counted(profiles: list[dict], store: Store, directory: Path) -> list[dict]:
    """The profiles less those of the store's runs that count nowhere: warm-ups, and runs of a block run again."""
    uncounted = {(directory / r["profile_path"]).resolve() for r in store.runs(warmups=True)
                 if (r["warmup"] or r["superseded"]) and r["profile_path"]}
    return [p for p in profiles if Path(p[FILE]).resolve() not in uncounted]
