"""Physics checked against numbers computed independently of the kernel."""

import itertools
import math

import pytest

from conftest import cpu_has_avx512, relative

BASIS = [(0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5)]


def lattice_sums(density: float, rc: float, potential: str) -> tuple[float, float]:
    """Per-atom potential energy and virial sum_j r.F(r) / 2 of a perfect fcc lattice, by direct summation."""
    a = math.cbrt(4.0 / density)
    reach = int(math.ceil(rc / a)) + 1
    v_rc = 4 * (rc**-12 - rc**-6)
    f_rc = 48 * rc**-13 - 24 * rc**-7  # -dV/dr at rc
    pe = virial = 0.0
    for i, j, k in itertools.product(range(-reach, reach + 1), repeat=3):
        for b in BASIS:
            r = a * math.dist((i + b[0], j + b[1], k + b[2]), (0, 0, 0))
            if r == 0 or r >= rc:
                continue
            v, rf = 4 * (r**-12 - r**-6), 48 * r**-12 - 24 * r**-6
            if potential == "lj/sf":
                v, rf = v - v_rc + (r - rc) * f_rc, rf - r * f_rc
            pe += 0.5 * v
            virial += 0.5 * rf
    return pe, virial


@pytest.mark.kernel
@pytest.mark.parametrize("potential", ["lj/cut", "lj/sf"])
@pytest.mark.parametrize("density,cutoff", [(0.8442, 2.5), (1.0, 2.2)])
def test_step0_energy_and_pressure_equal_lattice_sums(run_md, potential, density, cutoff):
    size, temp = 6, 1.44
    run = run_md(1, 1, ["-s", size, "--steps", 0, "--potential", potential, "--density", density,
                        "--cutoff", cutoff, "--temp", temp])
    assert run.returncode == 0, run.stderr
    pe, virial = lattice_sums(density, cutoff, potential)
    n = 4 * size**3
    volume = n / density
    pressure = ((3 * n - 3) * temp + n * virial) / (3 * volume)
    row = run.thermo(0)
    assert relative(row["pe"], pe) < 1e-12
    assert relative(row["press"], pressure) < 1e-12
    assert row["temp"] == pytest.approx(temp, rel=1e-14)


@pytest.mark.kernel
def test_standard_benchmark_step0_matches_lammps_published_values(run_md):
    """LAMMPS bench/in.lj (32,000 atoms) prints E_pair -6.7733681 and Press -5.0197073 at step 0."""
    row = run_md(1, 1, ["--steps", 0]).thermo(0)
    assert row["pe"] == pytest.approx(-6.7733681, abs=1e-7)
    assert row["press"] == pytest.approx(-5.0197073, abs=1e-7)


@pytest.mark.kernel
def test_shifted_force_conserves_energy(run_md):
    run = run_md(1, 1, ["-s", 6, "--potential", "lj/sf", "--dt", 0.002, "--steps", 500])
    assert run.returncode == 0, run.stderr
    assert run.profile["checks"]["energy_drift"]["value"] < 2e-5
    assert run.profile["checks"]["net_momentum"]["value"] < 1e-12


@pytest.mark.kernel
def test_drift_check_fails_a_broken_integration(run_md):
    """A time step far too large must fail the run's checks (exit 3), with the profile saying so."""
    run = run_md(1, 1, ["-s", 6, "--dt", 0.05, "--steps", 100, "--thermo", 10])
    assert run.returncode == 3
    assert run.profile["status"] == "check-failed"
    assert not run.profile["checks"]["energy_drift"]["pass"]
    assert not run.profile["checks"]["lost_atoms"]["pass"]


def test_pair_kernels_agree(run_md):
    """The AVX-512 and plain C force loops compute the same trajectory (to rounding). Skipped only on a CPU without
    AVX-512: on one that has it, a build without the kernel (HYBRIDPERF_NATIVE=OFF) fails here."""
    if not cpu_has_avx512():
        pytest.skip("this CPU has no AVX-512")
    probe = run_md(1, 1, ["-s", 6, "--steps", 0, "--pair-kernel", "avx512"])
    assert probe.returncode == 0, f"this CPU has AVX-512 but the build has no AVX-512 kernel: {probe.stderr}"
    for potential in ("lj/cut", "lj/sf"):
        args = ["-s", 7, "--steps", 200, "--potential", potential]
        plain = run_md(1, 1, args + ["--pair-kernel", "plain"])
        simd = run_md(1, 1, args + ["--pair-kernel", "avx512"])
        for key in ("pe", "etotal", "press"):
            assert relative(simd.thermo()[key], plain.thermo()[key]) < 1e-9, (potential, key)
