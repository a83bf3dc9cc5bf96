"""bench/replay_races.py: every stored campaign's blocks raced again through any rule. Its answers by a campaign's
own declared rule are the campaign's own (the report's), and where two rules both decide they name the same winner."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

import replay_races  # noqa: E402

from hybridperf.analysis.race import Rule  # noqa: E402


def test_every_archived_store_is_replayed_and_no_two_rules_name_different_winners():
    archives = replay_races.archives()
    assert len(archives) >= 10  # the demo's, NPB-MZ's, the 16-core machine's, compare's
    found = replay_races.every()
    assert {r.where.split(":")[0] for r in found} == {str(a.relative_to(replay_races.common.RUNS)) for a in archives
                                                      if any(r.where.startswith(str(a.relative_to(
                                                          replay_races.common.RUNS))) for r in found)}
    assert len(found) >= 60
    assert replay_races.summary(list(found))["contradictions"] == 0


def test_a_campaign_replayed_by_its_own_rule_says_what_it_said():
    """The 16-core machine's main job (2026-11-26): pure MPI won both scales in 7 blocks by the sign sequence, the
    rule it ran by (its spec predates the rule being stored: Study.from_dict gives it back, with the 40 blocks its
    decide block declared)."""
    device = [r for r in replay_races.every() if r.where.startswith("device/local-16core-results.tgz")]
    assert len(device) == 2
    for r in device:
        assert r.declared.race.rule.interval == "sign" and r.declared.race.rule.max_blocks == 40
        assert (r.declared.outcome, r.declared.winner, r.declared.race.blocks) == ("wins", "pure-mpi", 7)
        assert r.other.race.rule == Rule(**{**r.declared.race.rule.__dict__, "interval": "both"})


def test_a_rule_that_needs_more_blocks_than_were_stored_ends_out_of_blocks(tmp_path):
    wide = [r for r in replay_races.every() if r.declared.outcome == "tie" and r.other.outcome == "undecided"]
    assert wide, "a campaign the sign sequence tied in fewer blocks than both needs"
    r = wide[0]
    assert r.other.race.blocks == r.stored and "out of blocks" in replay_races.table([r], "both")
