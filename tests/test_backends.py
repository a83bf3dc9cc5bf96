"""Backends are plugins (study.registry): each named in the package's entry points, declaring what it is;
a study's backend is looked up by name, and an unknown one is one line naming those there are."""

import pytest

from hybridperf.study.registry import kind_of, kinds


def test_the_three_backends_are_registered_and_say_what_they_are():
    found = kinds()
    assert set(found) >= {"local", "slurm", "simgrid"}
    assert [name for name, kind in sorted(found.items()) if kind.exact] == ["simgrid"]  # replays decide in a block
    assert [name for name, kind in sorted(found.items()) if kind.launches] == ["local"]  # a quiet machine matters
    assert all(kind.node for kind in found.values())


def test_an_unknown_backend_is_one_line_naming_the_known_ones():
    with pytest.raises(ValueError, match="unknown backend 'pbs': one of local, simgrid, slurm"):
        kind_of("pbs")
