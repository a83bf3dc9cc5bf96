"""Disturbed runs: found from the machine's own counters (launch.disturbance), never from a run's time; a study that
declares `disturbed: rerun` runs such a block again, keeps every run in the store (the first attempts marked
superseded, counted nowhere), and its report and JSON say how many blocks ran again and why."""

import json

import pytest

from hybridperf.analysis import disturbed
from hybridperf.launch import disturbance
from hybridperf.store.db import RunRecord, Store
from hybridperf.study import spec as specs
from hybridperf.study.run import RERUNS, run_study, Silent


def test_what_others_used_is_the_machines_busy_time_less_the_runs_own(monkeypatch):
    """Over 2 s the CPUs were busy 3.5 s, the run and its launcher used 2.6 s: others used 0.45 of a core."""
    readings = iter([(100.0, 1.0), (103.5, 1.1)])
    own = iter([(10.0, 5), (12.6, 45)])
    clock = iter([50.0, 52.0])
    monkeypatch.setattr(disturbance, "_cpu_seconds", lambda: next(readings))
    monkeypatch.setattr(disturbance, "_own", lambda: next(own))
    monkeypatch.setattr(disturbance.time, "monotonic", lambda: next(clock))
    meter = disturbance.Meter()
    meter.start()
    found = meter.stop()
    assert found.others == pytest.approx(0.45) and found.steal == pytest.approx(0.05) and found.switches == 40
    assert found.disturbed and found.as_dict()["disturbed"] is True
    assert not disturbance.Disturbance(0.2, 0.0, 3).disturbed  # a fifth of a core: below OTHERS


def test_without_the_machines_counters_nothing_is_claimed(monkeypatch):
    monkeypatch.setattr(disturbance, "_cpu_seconds", lambda: (0.0, 0.0))
    meter = disturbance.Meter()
    meter.start()
    assert meter.stop() is None


SPEC = """study: dist
kernel: md
params: {size: 6, steps: 10}
configurations: [pure-mpi, hybrid-1]
cores: [2]
decide: {max_blocks: 4, min_blocks: 4}
disturbed: rerun
results: RESULTS
"""


class Scripted:
    """A backend whose runs take fixed times; the runs of block 2's first attempt were disturbed (others used 0.8
    of a core), so a study that reruns such blocks runs it again."""

    name, exact = "local", False

    def __init__(self):
        self.plans = []

    def launch_line(self, plan):
        return "scripted"

    def run(self, plans, done):
        for plan in plans:
            self.plans.append(plan)
            hit = plan.repeat == 1 and plan.attempt == 0 and not plan.warmup
            done(RunRecord(plan.key, plan.study, plan.kernel, plan.params, plan.configurations, plan.nodes,
                           plan.ranks, plan.ranks_per_node, plan.threads, plan.mode.name, False, plan.repeat, "ok",
                           0, 1.0 + 0.01 * plan.threads, "2026-12-04T00:00:00", 1.0, "local", "scripted", [], None,
                           None, None, plan.campaign, plan.position, plan.warmup,
                           disturbance={"others": 0.8 if hit else 0.01, "steal": 0.0, "switches": 9,
                                        "disturbed": hit}))


@pytest.mark.kernel
@pytest.mark.parametrize("policy", ["rerun", "keep"])
def test_a_disturbed_block_runs_again_and_every_run_is_kept(tmp_path, policy, md_binary):
    study = specs.parse(SPEC.replace("RESULTS", str(tmp_path)).replace("rerun", policy), cores_per_node=2)
    backend = Scripted()
    with Store(tmp_path) as store:
        outcome = run_study(study, store, backend, Silent(), "dist.yaml")
        counted, every = store.runs("dist"), store.runs("dist", warmups=True)
    again = 1 if policy == "rerun" else 0
    assert len(counted) == 8 and len(every) == 1 + 8 + 2 * again  # a warm-up, 4 blocks of 2, the first try of block 2
    assert sum(r["superseded"] for r in every) == 2 * again
    assert {r["repeat"] for r in every if r["superseded"]} == ({1} if again else set())
    assert sum(disturbed.disturbed(r) for r in counted) == (0 if again else 2)
    assert outcome.races and next(iter(outcome.races.values())).blocks == 4
    lines = disturbed.summary(every)
    if again:
        assert lines[0].startswith("1 block(s) ran again because another process took CPU") and "0.80" in lines[0]
    else:
        assert lines == ["2 counted run(s) were disturbed — another process took CPU while they ran — and are "
                         "counted as they are (disturbed: keep, or out of reruns)"]


@pytest.mark.kernel
def test_a_block_runs_again_at_most_reruns_times(tmp_path, md_binary):
    class AlwaysHit(Scripted):
        def run(self, plans, done):
            super().run([p for p in plans], lambda r: done(_hit(r) if r.repeat == 0 and not r.warmup else r))

    def _hit(record):
        record.disturbance = {"others": 0.9, "steal": 0.0, "switches": 1, "disturbed": True}
        return record

    study = specs.parse(SPEC.replace("RESULTS", str(tmp_path)), cores_per_node=2)
    with Store(tmp_path) as store:
        run_study(study, store, AlwaysHit(), Silent(), "dist.yaml")
        every = store.runs("dist", warmups=True)
    block_one = [r for r in every if r["repeat"] == 0 and not r["warmup"]]
    assert len(block_one) == 2 * (RERUNS + 1) and sum(r["superseded"] for r in block_one) == 2 * RERUNS


@pytest.mark.kernel
def test_the_report_json_counts_blocks_run_again(tmp_path, md_binary):
    from hybridperf.report import verdicts_json

    study = specs.parse(SPEC.replace("RESULTS", str(tmp_path)), cores_per_node=2)
    with Store(tmp_path) as store:
        run_study(study, store, Scripted(), Silent(), "dist.yaml")
        every = store.runs("dist", warmups=True)
    doc = verdicts_json.document("dist", {}, [], every)
    assert doc["disturbed"] == {"blocks_run_again": 1, "counted_runs_disturbed": 0}
    json.loads(json.dumps(doc), parse_constant=lambda c: pytest.fail(f"not strict JSON: {c}"))


@pytest.mark.kernel
@pytest.mark.parametrize("extra, message", [
    ("disturbed: often\n", "disturbed must be keep or rerun, got 'often'"),
    ("disturbed: rerun\nbackend: slurm\n", "disturbed: rerun needs the machine's own counters"),
])
def test_a_disturbed_policy_is_checked(tmp_path, extra, message, md_binary):
    text = SPEC.replace("disturbed: rerun\n", "").replace("RESULTS", str(tmp_path)) + extra
    with pytest.raises(specs.SpecError, match=message):
        specs.parse(text, cores_per_node=2)


@pytest.mark.kernel
def test_a_baselines_block_is_not_run_again(tmp_path, md_binary):
    """One candidate (pure MPI and hybrid-1 are one run on one core): no comparison for a disturbance to tilt."""
    study = specs.parse(SPEC.replace("RESULTS", str(tmp_path)).replace("cores: [2]", "cores: [1]"), cores_per_node=2)
    with Store(tmp_path) as store:
        run_study(study, store, Scripted(), Silent(), "dist.yaml")
        every = store.runs("dist", warmups=True)
    assert len(every) == 4 and not any(r["superseded"] for r in every)
    assert disturbed.summary(every)[0].startswith("1 counted run(s) were disturbed")
