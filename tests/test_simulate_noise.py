"""OS noise as SimGrid host speed profiles (issue 26 item 4): what a description's `noise` makes a replay do, against
closed forms, and that a description without it (or with it, undrawn) replays exactly as before."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from hybridperf import cluster
from hybridperf.simulate import noise
from hybridperf.simulate.replay import replay
from hybridperf.store.db import Store
from hybridperf.study import spec as specs
from test_simulate import HYBRIDPERF, SIMULATED, SPEC
from test_simulate_network import needs_smpi

STELLA = cluster.found()["stella"][0].read_text()  # a description without noise


def described(noise_yaml: str) -> cluster.ClusterSpec:
    return cluster.parse(STELLA + noise_yaml, "stella")


HALF_SECONDS = described("noise: {interval: 0.5s, slowdowns: [0, 1], assumed: true}\n")


def burst_and_barrier(ranks: int, flops: float = 1e9) -> list[str]:
    """Each rank computes `flops` (a second at the platform's 1 Gflop/s), then all meet at a barrier."""
    return [f"{r} init\n{r} compute {flops:g}\n{r} barrier\n{r} finalize\n" for r in range(ranks)]


def finish(events: list[tuple[float, float]], work: float, period: float) -> float:
    """When a host following the profile (repeating every `period`) has done `work` seconds of full-speed compute."""
    done, t = 0.0, 0.0
    while True:
        k = max(i for i, (start, _) in enumerate(events) if start <= t % period)
        end = events[k + 1][0] if k + 1 < len(events) else period
        speed, length = events[k][1], end - t % period
        if done + speed * length >= work:
            return t + (work - done) / speed
        done, t = done + speed * length, t + length


def test_a_seed_draws_each_nodes_profile_the_same_every_time_and_another_seed_others():
    spec = cluster.with_noise(HALF_SECONDS, seed=3)
    assert noise.profile(spec.noise, 0) == noise.profile(spec.noise, 0)
    assert noise.elements(spec, 4) == noise.elements(cluster.with_noise(HALF_SECONDS, seed=3), 4)
    assert noise.profile(spec.noise, 0) != noise.profile(spec.noise, 1)
    assert noise.elements(spec, 4) != noise.elements(cluster.with_noise(HALF_SECONDS, seed=4), 4)
    # speeds are 1/(1+x) of the slowdowns only, runs of equal speed merged, starting at 0
    events = noise.profile(spec.noise, 0)
    assert events[0][0] == 0 and {s for _, s in events} == {1.0, 0.5}
    assert all(a[1] != b[1] for a, b in zip(events, events[1:]))
    assert noise.elements(spec, 4).count("<trace_connect kind=\"SPEED\"") == 4
    assert f"periodicity=\"{noise.INTERVALS * 0.5:g}\"" in noise.elements(spec, 1)


def test_without_a_seed_the_platform_is_the_one_without_noise():
    plain = cluster.load("stella")
    assert HALF_SECONDS.noise is not None and not HALF_SECONDS.noisy
    assert cluster.platform_xml(HALF_SECONDS) == cluster.platform_xml(plain)
    assert noise.elements(HALF_SECONDS, 4) == "" and noise.elements(plain, 4) == ""
    assert cluster.with_noise(plain, None) is plain


def seed_where(first: list[float], second: list[float]) -> int:
    """The first seed whose node 0 starts with the speeds `first` and node 1 with `second` (interval by interval)."""
    for seed in range(1000):
        spec = cluster.with_noise(HALF_SECONDS, seed)
        speeds = [[s for s, _ in zip(_per_interval(spec, node), want)] for node, want in ((0, first), (1, second))]
        if speeds == [first, second]:
            return seed
    raise AssertionError("no such seed below 1000")


def _per_interval(spec: cluster.ClusterSpec, node: int) -> list[float]:
    events, out = noise.profile(spec.noise, node), []
    for k in range(noise.INTERVALS):
        out.append(next(s for start, s in reversed(events) if start <= k * spec.noise.interval))
    return out


@pytest.mark.kernel
@needs_smpi
def test_one_node_halved_for_half_a_second_makes_the_barrier_wait_a_quarter_second(tmp_path: Path):
    """Two ranks on two nodes, a 1 s burst each, a barrier: node 0 at full speed for its first two intervals, node 1
    at half speed for its first 0.5 s and then full: node 1 finishes 1 Gflop at 0.5 + 0.75 = 1.25 s, and the
    replay ends a barrier later (what the barrier adds to the replay without noise: 1 s of compute, then it)."""
    barrier = replay(burst_and_barrier(2), HALF_SECONDS, 1, tmp_path / "undrawn") - 1.0
    assert 0 < barrier < 1e-4
    spec = cluster.with_noise(HALF_SECONDS, seed_where([1.0, 1.0], [0.5, 1.0]))
    assert replay(burst_and_barrier(2), spec, 1, tmp_path / "noisy") == pytest.approx(1.25 + barrier, abs=1e-5)


@pytest.mark.kernel
@needs_smpi
def test_the_replay_waits_for_the_slowest_nodes_profile_at_every_seed(tmp_path: Path):
    """Four nodes, a 3 s burst each: the replay ends a barrier after the slowest node's profile has done 3 s of
    work (the barrier as the replay without noise prices it)."""
    barrier = {per_node: replay(burst_and_barrier(4, 3e9), HALF_SECONDS, per_node, tmp_path / f"plain{per_node}") - 3.0
               for per_node in (1, 2)}
    for seed in (0, 1, 2):
        spec = cluster.with_noise(HALF_SECONDS, seed)
        expected = max(finish(noise.profile(spec.noise, n), 3.0, noise.INTERVALS * 0.5) for n in range(4))
        assert expected > 3.0
        assert replay(burst_and_barrier(4, 3e9), spec, 1, tmp_path / str(seed)) == \
            pytest.approx(expected + barrier[1], abs=1e-5)  # SimGrid prints 6 digits
    # ranks of one node share its profile: two ranks per node on two nodes wait for the same two profiles
    spec = cluster.with_noise(HALF_SECONDS, 0)
    expected = max(finish(noise.profile(spec.noise, n), 3.0, noise.INTERVALS * 0.5) for n in range(2))
    assert replay(burst_and_barrier(4, 3e9), spec, 2, tmp_path / "shared") == \
        pytest.approx(expected + barrier[2], abs=1e-5)  # SimGrid prints 6 digits


@pytest.mark.kernel
@needs_smpi
def test_scale_zero_replays_exactly_as_without_noise(tmp_path: Path):
    """Every slowdown times 0: each profile is the node's full speed, and the replay's time is the plain one."""
    plain = replay(burst_and_barrier(4), cluster.load("stella"), 2, tmp_path / "plain")
    flat = replay(burst_and_barrier(4), cluster.with_noise(HALF_SECONDS, 5, scale=0.0), 2, tmp_path / "flat")
    assert flat == plain and 1.0 < plain < 1.0001


@pytest.mark.parametrize("entry, says", [
    ("noise: 3\n", "noise must be a mapping"),
    ("noise: {slowdowns: [0], assumed: true}\n", "noise.interval must be a number with a unit"),
    ("noise: {interval: 1ms, slowdowns: [], assumed: true}\n", "noise.slowdowns must be a list"),
    ("noise: {interval: 1ms, slowdowns: [0, -0.1], assumed: true}\n", "noise.slowdowns must be a list"),
    ("noise: {interval: 1ms, slowdowns: [true], assumed: true}\n", "noise.slowdowns must be a list"),
    ("noise: {interval: 0s, slowdowns: [0], assumed: true}\n", "noise.interval must be above zero"),
    ("noise: {interval: 1ms, slowdowns: [0]}\n", "noise: say where the slowdowns come from"),
    ("noise: {interval: 1ms, slowdowns: [0], assumed: true, seed: 1}\n", "noise: unknown key 'seed'"),
])
def test_bad_noise_is_refused_in_one_line_naming_the_key(entry: str, says: str):
    with pytest.raises(cluster.ClusterError) as err:
        described(entry)
    assert says in str(err.value) and "\n" not in str(err.value)


def test_a_seed_needs_declared_noise_and_is_a_whole_number():
    with pytest.raises(cluster.ClusterError, match="Stella declares no noise"):
        cluster.with_noise(cluster.load("stella"), 1)
    for seed, scale in ((-1, 1.0), (True, 1.0), (1, -0.5)):
        with pytest.raises(cluster.ClusterError, match="a noise seed is a whole number"):
            cluster.with_noise(HALF_SECONDS, seed, scale)


def _simulate(spec: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([*HYBRIDPERF, "simulate", str(spec), "--no-report", "--cores", "8,16", "--costs", "thesis",
                           *extra], capture_output=True, text=True)


def _times(results: Path, study: str) -> dict[tuple, tuple[float, dict]]:
    with Store(results) as store:
        return {(r["nodes"], r["ranks_per_node"]): (r["profile"]["figures_of_merit"][0]["value"],
                                                    r["profile"]["simulated"]) for r in store.runs(study)}


@pytest.mark.kernel
@needs_smpi
def test_simulate_with_a_noise_seed_stores_a_study_of_its_own_with_the_seed(tmp_path: Path):
    """A description whose nodes always run at half speed (slowdowns [1]): each point is slower than without noise
    but less than twice (its messages are not slowed), stored under <study>-on-<cluster>-noise<seed> with the noise
    it was drawn from (that a seed draws the same profiles again is tested above, on the profiles)."""
    described = tmp_path / "halved.yaml"
    described.write_text(STELLA + "noise: {interval: 1ms, slowdowns: [1], assumed: true}\n")
    spec = tmp_path / "tiny.yaml"
    spec.write_text(SPEC.replace("RESULTS", str(tmp_path / "r")))
    for extra in ((), ("--noise-seed", "3")):
        out = _simulate(spec, "--cluster", str(described), *extra)
        assert out.returncode == 0, out.stderr
    plain, noisy = _times(tmp_path / "r", "tiny-md-on-halved"), _times(tmp_path / "r", "tiny-md-on-halved-noise3")
    assert set(plain) == set(noisy) == {(1, 8), (1, 1), (2, 8), (2, 1)}
    for point, (seconds, simulated) in noisy.items():
        assert plain[point][0] < seconds <= 2 * plain[point][0]
        assert simulated["noise"] == {"interval": "1ms", "slowdowns": [1.0], "scale": 1.0, "seed": 3, "source": "",
                                      "assumed": True}
        assert "noise" not in plain[point][1]


@pytest.mark.kernel
def test_a_noise_seed_without_declared_noise_is_refused_in_one_line_and_writes_nothing(tmp_path: Path):
    spec = tmp_path / "tiny.yaml"
    spec.write_text(SPEC.replace("RESULTS", str(tmp_path / "none")))
    for extra, says in ((("--cluster", "stella", "--noise-seed", "1"), "Stella declares no noise"),
                        (("--cluster", "merlin", "--noise-seed", "-1"), "a noise seed is a whole number from 0")):
        out = _simulate(spec, *extra)
        assert out.returncode == 2 and says in out.stderr, out.stderr
        assert len(out.stderr.strip().splitlines()) == 1
    out = subprocess.run([*HYBRIDPERF, "simulate", "validate", "--noise-seed", "1"], capture_output=True, text=True)
    assert out.returncode == 2 and "simulate validate does not take it" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "none").exists()


@pytest.mark.kernel
def test_a_simulated_spec_takes_a_noise_seed_only_for_a_description_with_noise(tmp_path: Path):
    def parsed(name: str, seed: str) -> specs.Study:
        text = SIMULATED.replace("simgrid: {cluster: merlin, costs: thesis}",
                                 f"simgrid: {{cluster: {name}, costs: thesis, noise_seed: {seed}}}")
        text = text.replace("RESULTS", str(tmp_path))
        return specs.parse(text, cores_per_node=2)

    assert parsed("merlin", "7").simgrid == {"cluster": "merlin", "costs": "thesis", "noise_seed": 7}
    for name, seed, says in (("stella", "7", "Stella declares no noise"), ("merlin", "-1", "a noise seed is a whole"),
                             ("merlin", "'7'", "a noise seed is a whole")):
        with pytest.raises(specs.SpecError, match=says):
            parsed(name, seed)


@pytest.mark.kernel
def test_merlins_noise_is_declared_assumed_and_shown():
    """Merlin's shipped noise: 1 ms intervals, one in ten 10% slow (a mean slowdown of 1%), assumed, undrawn."""
    merlin = cluster.load("merlin")
    assert merlin.noise is not None and not merlin.noisy and merlin.noise.assumed
    assert merlin.noise.interval == pytest.approx(1e-3) and sorted(merlin.noise.slowdowns) == [0.0] * 9 + [0.1]
    out = subprocess.run([*HYBRIDPERF, "cluster", "show", "merlin"], capture_output=True, text=True,
                         env={**os.environ, "COLUMNS": "300"})
    assert out.returncode == 0 and "noise (with --noise-seed)" in out.stdout and "every 1ms" in out.stdout
