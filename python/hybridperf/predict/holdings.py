"""What a results directory holds for a question, read: its calibration (profiles, studies, runs), a stored
study's sections, and an app study's traced runs replayed on a cluster (stored beside it). The I/O edge of
predict: every failure is Unanswerable, one line."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from hybridperf import cluster as clusters
from hybridperf.analysis.sections import Section
from hybridperf.predict.answer import Unanswerable
from hybridperf.predict.question import Calibration, measured_study, Posed
from hybridperf.simulate import app_replay, app_study
from hybridperf.simulate.replay import SimGridMissing
from hybridperf.store.db import holds_store, StoreError
from hybridperf.store.profiles import counted, ok_profiles
from hybridperf.study.stored import open_store, stored, Stored


def calibration_of(directory: Path) -> Calibration:
    """What a results directory holds for a question: its counted ok profiles of measured runs (warm-ups', re-run
    blocks' and simulations' left out: a replay at 8 cores made here does not make this an 8-core machine), its
    studies' latest campaigns and every run it stores; Unanswerable where it holds no profile."""
    profiles, copies = ok_profiles(directory)
    profiles = [p for p in profiles if "simulated" not in p]
    if not profiles:
        raise Unanswerable(f"{directory} holds no profiles (runs/*.json or profiles/*.json); see docs/models.md for "
                           "the calibration runs")
    if not holds_store(directory):
        return Calibration(profiles, [], [], copies)
    try:
        with open_store(directory) as store:
            names, runs = store.studies(), store.runs()
            profiles = counted(profiles, store, directory)
        return Calibration(profiles, [(name, stored(directory, name).sections()) for name in names], runs, copies)
    except StoreError as err:
        raise Unanswerable(str(err)) from None


def _stored(directory: Path, name: str | None) -> Stored:
    try:
        return stored(directory, name)
    except StoreError as err:
        raise Unanswerable(str(err)) from None


def study_sections(directory: Path, name: str | None) -> tuple[str, list[Section]]:
    """A stored study's name and the sections of its latest campaign (the folder's default study unless named)."""
    found = _stored(directory, name)
    return found.study.name, found.sections()


def replayed_app(directory: Path, name: str | None, cluster_name: str, progress: Callable[[str], None]) -> Posed:
    """An app study's traced runs replayed on the cluster — stored beside it as `<study>-on-<cluster>`, as
    `hybridperf simulate SPEC --cluster` stores them — and raced as they ran (the replays run here: I/O)."""
    found = _stored(directory, name)
    if found.study.kernel != "app":
        raise Unanswerable(f"study {found.study.name} runs {found.study.kernel}, not your program: --kernel app "
                           "replays an app study's traces (docs/apps.md)")
    try:
        described = clusters.load(clusters.THIS_MACHINE if cluster_name == "this" else cluster_name)
        done = app_study.replay_study(found.study, directory, described, 1.0, None, progress)
    except (SimGridMissing, clusters.ClusterError, app_study.NothingToReplay, app_replay.NotReplayable) as err:
        raise Unanswerable(str(err)) from None
    for line in done.skipped:
        progress(f"hybridperf: not replayed: {line}")
    return measured_study(*study_sections(directory, done.study), None, replayed_on=described.name)
