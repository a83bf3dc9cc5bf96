"""The parameter files of the tabulated forms, `data/potentials/*.yaml`: every value with its source, parameters as
data. `parse` checks a file and `gupta` builds the model for chosen elements, both pure; `load` reads the file.

A file names its form, a title and citation, the elements (number, mass, lattice, lattice constant), every pair
of them ("Cu-Au": A, xi, p, q, r0 and a source), and the default tail: `shells`, the fcc neighbour shell of each
pair after which its tail begins (forms.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import yaml

from hybridperf.potentials.forms import Element, Gupta, GuptaPair

DATA = Path(__file__).resolve().parents[3] / "data" / "potentials"
FORMS = {"gupta": "gupta-cleri-rosato-1993.yaml"}  # form -> its parameter file in DATA
PAIR_KEYS = ("A", "xi", "p", "q", "r0")
ELEMENT_KEYS = ("number", "mass", "lattice", "lattice_constant")


class PotentialError(ValueError):
    """A form, element or parameter file that cannot be used; one line that says which."""


@dataclass(frozen=True)
class PairValues:
    values: dict[str, float]  # PAIR_KEYS
    source: str


@dataclass(frozen=True)
class Parameters:
    """One parameter file, checked."""

    form: str
    title: str
    citation: str
    elements: dict[str, Element]
    pairs: dict[frozenset[str], PairValues]
    shells: int
    path: str


def _positive(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise PotentialError(f"{where}: expected a positive number, got {value!r}")
    return float(value)


def _line(value: object, where: str) -> str:
    """Text that goes into the setfl file's comment lines, so one line."""
    if "\n" in str(value):
        raise PotentialError(f"{where}: must be one line")
    return str(value)


def parse(text: str, path: str) -> Parameters:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise PotentialError(f"{path}: not YAML ({str(err).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise PotentialError(f"{path}: expected a mapping of form, title, citation, elements, pairs, shells")
    missing = [k for k in ("form", "title", "citation", "elements", "pairs", "shells") if k not in data]
    if missing:
        raise PotentialError(f"{path}: missing {', '.join(missing)}")
    if not isinstance(data["elements"], dict) or not isinstance(data["pairs"], dict):
        raise PotentialError(f"{path}: elements and pairs must be mappings")
    elements = {}
    for name, entry in data["elements"].items():
        if not isinstance(entry, dict) or set(entry) != set(ELEMENT_KEYS):
            raise PotentialError(f"{path}: elements.{name}: expected exactly {', '.join(ELEMENT_KEYS)}")
        if entry["lattice"] != "fcc":
            raise PotentialError(f"{path}: elements.{name}: lattice {entry['lattice']!r}: only fcc is tabulated")
        elements[name] = Element(name, int(_positive(entry["number"], f"{path}: elements.{name}.number")),
                                 _positive(entry["mass"], f"{path}: elements.{name}.mass"), "fcc",
                                 _positive(entry["lattice_constant"], f"{path}: elements.{name}.lattice_constant"))
    pairs = {}
    for key, entry in data["pairs"].items():
        names = str(key).split("-")
        if len(names) != 2 or not set(names) <= set(elements):
            raise PotentialError(f"{path}: pairs.{key}: expected 'A-B' of two of the elements {', '.join(elements)}")
        if not isinstance(entry, dict) or set(entry) != {*PAIR_KEYS, "source"}:
            raise PotentialError(f"{path}: pairs.{key}: expected exactly {', '.join(PAIR_KEYS)}, source")
        if frozenset(names) in pairs:
            raise PotentialError(f"{path}: pairs.{key}: the pair is given twice")
        values = {k: _positive(entry[k], f"{path}: pairs.{key}.{k}") for k in PAIR_KEYS}
        pairs[frozenset(names)] = PairValues(values, _line(entry["source"], f"{path}: pairs.{key}.source"))
    shells = data["shells"]
    if isinstance(shells, bool) or not isinstance(shells, int) or shells < 1:
        raise PotentialError(f"{path}: shells: expected a positive whole number, got {shells!r}")
    return Parameters(str(data["form"]), _line(data["title"], f"{path}: title"),
                      _line(data["citation"], f"{path}: citation"), elements, pairs, shells, path)


def load(form: str) -> Parameters:
    if form not in FORMS:
        raise PotentialError(f"unknown form '{form}': the forms are {', '.join(FORMS)} (hybridperf potential list)")
    path = DATA / FORMS[form]
    try:
        text = path.read_text()
    except OSError as err:
        raise PotentialError(f"cannot read {path}: {err.strerror}") from None
    return parse(text, f"data/potentials/{path.name}")


def choose(params: Parameters, names: list[str]) -> list[Element]:
    """The elements in the order asked for, each known to the file and named once."""
    if not names:
        raise PotentialError("--elements names no element")
    for name in names:
        if name not in params.elements:
            raise PotentialError(f"{params.form} ({params.citation}) has no parameters for '{name}'; it has "
                                 f"{', '.join(params.elements)}")
        if names.count(name) > 1:
            raise PotentialError(f"--elements names {name} twice")
    return [params.elements[n] for n in names]


def gupta(params: Parameters, names: list[str], shells: int) -> Gupta:
    """The Gupta model over the named elements, each pair's tail from its shell `shells` to `shells + 1`."""
    elements = choose(params, names)
    pairs = {}
    for a in range(len(elements)):
        for b in range(a, len(elements)):
            key = frozenset((names[a], names[b]))
            if key not in params.pairs:
                raise PotentialError(f"{params.path}: no parameters for the pair {names[a]}-{names[b]}")
            v = params.pairs[key].values
            pairs[(a, b)] = GuptaPair(v["A"], v["xi"], v["p"], v["q"], v["r0"], v["r0"] * math.sqrt(shells),
                                      v["r0"] * math.sqrt(shells + 1))
    return Gupta(tuple(elements), pairs)


def comments(params: Parameters, names: list[str], shells: int) -> tuple[str, str, str]:
    """The setfl file's three comment lines: what it is, the sources, the parameters (each a line of its own)."""
    keys = [(names[a], names[b]) for a in range(len(names)) for b in range(a, len(names))]
    sources = "; ".join(f"{a}-{b}: {params.pairs[frozenset((a, b))].source}" for a, b in keys)
    values = "; ".join(f"{a}-{b} " + " ".join(f"{k} {params.pairs[frozenset((a, b))].values[k]!r}" for k in PAIR_KEYS)
                       for a, b in keys)
    return (f"{params.title} {'-'.join(names)} as LAMMPS eam/fs, written by `hybridperf potential write "
            f"{params.form} --elements {','.join(names)} --shells {shells}` from {params.path}",
            f"{params.citation}. Sources: {sources}",
            f"{values} (eV, Angstrom); tail: LAMMPS smatb's quintic from r0 sqrt({shells}) to r0 sqrt({shells + 1})")
