"""The parameter files of the tabulated forms, the shipped `data/potentials/*.yaml` (hybridperf.resources): every
value with its source, parameters as data. `parse` checks a file and `build` makes the model and the setfl comment
lines for chosen elements, both pure; `load` reads the file.

A file names its form, a title and citation, and the elements (number, mass, lattice, lattice constant: the setfl
file's element lines); then the form's own values. Gupta's: every pair of the elements ("Cu-Au": A, xi, p, q, r0
and a source) and the default tail, `shells`, the fcc neighbour shell of each pair after which its tail begins
(forms.py). Dai et al.'s extended Finnis-Sinclair (dai-fs): each element's `parameters` (A, d, c, c0..c4, B and a
source); no tail, the form ends smoothly by itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import yaml

from hybridperf import resources
from hybridperf.potentials.forms import DaiFS, Element, FinnisSinclair, Gupta, GuptaPair

DATA = resources.path("data", "potentials")
FORMS = {"gupta": "gupta-cleri-rosato-1993.yaml", "dai-fs": "dai-fs-2006.yaml"}  # form -> its parameter file in DATA
SECTIONS = {"gupta": ("pairs", "shells"), "dai-fs": ("parameters",)}  # what each form's file has beyond the common
LATTICES = {"gupta": ("fcc",), "dai-fs": ("fcc", "bcc")}  # gupta's tail sits on fcc neighbour shells
PAIR_KEYS = ("A", "xi", "p", "q", "r0")
DAI_KEYS = ("A", "d", "c", "c0", "c1", "c2", "c3", "c4", "B")  # GPUMD's order (potentials/eam/Cu_Dai_2006.txt)
DAI_POSITIVE = ("A", "d", "c")
ELEMENT_KEYS = ("number", "mass", "lattice", "lattice_constant")


class PotentialError(ValueError):
    """A form, element or parameter file that cannot be used; one line that says which."""


@dataclass(frozen=True)
class Values:
    """One set of a form's parameters, with its source: a pair's (gupta) or an element's (dai-fs)."""

    values: dict[str, float]  # PAIR_KEYS or DAI_KEYS
    source: str


@dataclass(frozen=True)
class Parameters:
    """One parameter file, checked."""

    form: str
    title: str
    citation: str
    elements: dict[str, Element]
    pairs: dict[frozenset[str], Values]  # gupta: every pair of elements; empty for dai-fs
    per_element: dict[str, Values]  # dai-fs: every element's; empty for gupta
    shells: int | None  # gupta's default tail; None for dai-fs, which has none
    path: str


def _positive(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise PotentialError(f"{where}: expected a positive number, got {value!r}")
    return float(value)


def _number(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise PotentialError(f"{where}: expected a number, got {value!r}")
    return float(value)


def _line(value: object, where: str) -> str:
    """Text that goes into the setfl file's comment lines, so one line."""
    if "\n" in str(value):
        raise PotentialError(f"{where}: must be one line")
    return str(value)


def _elements(data: dict, form: str, path: str) -> dict[str, Element]:
    if not isinstance(data["elements"], dict):
        raise PotentialError(f"{path}: elements must be a mapping")
    elements = {}
    for name, entry in data["elements"].items():
        if not isinstance(entry, dict) or set(entry) != set(ELEMENT_KEYS):
            raise PotentialError(f"{path}: elements.{name}: expected exactly {', '.join(ELEMENT_KEYS)}")
        if entry["lattice"] not in LATTICES[form]:
            raise PotentialError(f"{path}: elements.{name}: lattice {entry['lattice']!r}: only "
                                 f"{' or '.join(LATTICES[form])} is tabulated for {form}")
        elements[name] = Element(name, int(_positive(entry["number"], f"{path}: elements.{name}.number")),
                                 _positive(entry["mass"], f"{path}: elements.{name}.mass"), entry["lattice"],
                                 _positive(entry["lattice_constant"], f"{path}: elements.{name}.lattice_constant"))
    return elements


def _pairs(data: dict, elements: dict[str, Element], path: str) -> dict[frozenset[str], Values]:
    if not isinstance(data["pairs"], dict):
        raise PotentialError(f"{path}: pairs must be a mapping")
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
        pairs[frozenset(names)] = Values(values, _line(entry["source"], f"{path}: pairs.{key}.source"))
    return pairs


def _per_element(data: dict, elements: dict[str, Element], path: str) -> dict[str, Values]:
    if not isinstance(data["parameters"], dict) or set(data["parameters"]) != set(elements):
        raise PotentialError(f"{path}: parameters: expected a mapping with an entry for each of the elements "
                             f"{', '.join(elements)} and no other")
    per_element = {}
    for name, entry in data["parameters"].items():
        if not isinstance(entry, dict) or set(entry) != {*DAI_KEYS, "source"}:
            raise PotentialError(f"{path}: parameters.{name}: expected exactly {', '.join(DAI_KEYS)}, source")
        values = {k: (_positive if k in DAI_POSITIVE else _number)(entry[k], f"{path}: parameters.{name}.{k}")
                  for k in DAI_KEYS}
        per_element[name] = Values(values, _line(entry["source"], f"{path}: parameters.{name}.source"))
    return per_element


def parse(text: str, path: str) -> Parameters:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise PotentialError(f"{path}: not YAML ({str(err).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise PotentialError(f"{path}: expected a mapping of form, title, citation, elements and the form's values")
    missing = [k for k in ("form", "title", "citation", "elements") if k not in data]
    if missing:
        raise PotentialError(f"{path}: missing {', '.join(missing)}")
    form = data["form"]
    if form not in FORMS:
        raise PotentialError(f"{path}: form: expected one of {', '.join(FORMS)}, got {form!r}")
    missing = [k for k in SECTIONS[form] if k not in data]
    if missing:
        raise PotentialError(f"{path}: missing {', '.join(missing)} (a {form} file has {', '.join(SECTIONS[form])})")
    elements = _elements(data, form, path)
    pairs, per_element, shells = {}, {}, None
    if form == "gupta":
        pairs = _pairs(data, elements, path)
        shells = data["shells"]
        if isinstance(shells, bool) or not isinstance(shells, int) or shells < 1:
            raise PotentialError(f"{path}: shells: expected a positive whole number, got {shells!r}")
    else:
        per_element = _per_element(data, elements, path)
    return Parameters(form, _line(data["title"], f"{path}: title"), _line(data["citation"], f"{path}: citation"),
                      elements, pairs, per_element, shells, path)


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
                                 f"{', '.join(params.elements)} (a new element's values go in {params.path}, "
                                 f"docs/potentials.md)")
        if names.count(name) > 1:
            raise PotentialError(f"--elements names {name} twice")
    return [params.elements[n] for n in names]


def build(params: Parameters, names: list[str], shells: int | None) -> tuple[FinnisSinclair, tuple[str, str, str]]:
    """The model of the file's form over the named elements and the setfl file's comment lines; `shells` moves
    gupta's tail (None: the file's default) and is refused for a form without one."""
    if params.form == "gupta":
        tail = shells or params.shells
        assert tail is not None  # parse requires a gupta file's shells
        return gupta(params, names, tail), comments(params, names, tail)
    if shells is not None:
        raise PotentialError(f"--shells places gupta's tail; {params.form} has none (its functions reach zero "
                             f"smoothly at their own cutoffs): leave --shells out")
    return dai_fs(params, names), dai_fs_comments(params, names)


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


def dai_fs(params: Parameters, names: list[str]) -> DaiFS:
    """Dai et al.'s form for one element: no cross terms are implemented, so one element a file."""
    if len(names) > 1:
        raise PotentialError(f"{params.form} is written for one element at a time (no cross terms are implemented): "
                             f"--elements names {','.join(names)}; give one of {', '.join(params.elements)}")
    (element,) = choose(params, names)
    return DaiFS(element, **params.per_element[element.name].values)


def dai_fs_comments(params: Parameters, names: list[str]) -> tuple[str, str, str]:
    """The setfl file's three comment lines for dai-fs: what it is, the source, the parameters."""
    (name,) = names
    own = params.per_element[name]
    return (f"{params.title} {name} as LAMMPS eam/fs, written by `hybridperf potential write {params.form} "
            f"--elements {name}` from {params.path}",
            f"{params.citation}. Source: {name}: {own.source}",
            f"{name} " + " ".join(f"{k} {own.values[k]!r}" for k in DAI_KEYS) + " (eV, Angstrom); no tail: V and phi "
            "reach zero with zero slope at c and d")
