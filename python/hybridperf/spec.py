"""Study specs: a YAML file becomes a validated Study, and a Study expands into the exact list of runs.

Everything here is pure except `load` (reads the file) and the kernel's option table (asked of the
binary once). Every error names the file and line it is about: `studies/x.yaml:7: ...`.

    study: local-md                  # name, required
    kernel: md                       # required
    params: {size: [20, 32], steps: 100}   # kernel options; a list sweeps (matrix over lists)
    zip: [{size: [16, 24], steps: [400, 100]}]   # lists that vary together (optional)
    configurations: [pure-mpi, hybrid-1, hybrid-2, 4x2]   # or RANKSxTHREADS per node
    cores: [1, node]                 # total cores per point; or nodes: [1, 2, 4]
    repeats: 3
See docs/study-spec.md for every key.
"""

from __future__ import annotations

import difflib
import hashlib
import itertools
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import yaml

from hybridperf import kernels
from hybridperf.launch import Placement
from hybridperf.taxonomy import Mode, classify

KEYS = {
    "study", "kernel", "description", "params", "zip", "configurations", "cores", "nodes", "cores_per_node",
    "repeats", "oversubscribe", "timeout", "results", "backend", "slurm", "wait_policy",
}
SLURM_KEYS = {"partition", "account", "time", "exclusive", "mpi", "extra"}
NAMED_CONFIGURATIONS = ("pure-mpi", "hybrid-1", "hybrid-2")
RESERVED_PARAMS = {"profile", "write-data", "options", "help", "version", "build-info"}
BACKENDS = ("local", "slurm")


class SpecError(ValueError):
    """A spec that cannot run; the message starts with file:line."""


class NotApplicable(ValueError):
    """A named configuration that does not exist at a scale (hybrid-2 on one core): the point is skipped."""


@dataclass(frozen=True)
class Study:
    name: str
    kernel: str
    params: dict[str, Any]
    zip: tuple[dict[str, list[Any]], ...]
    configurations: tuple[str, ...]
    cores: tuple[int, ...] | None
    nodes: tuple[int, ...] | None
    cores_per_node: int
    repeats: int = 3
    oversubscribe: bool = False
    timeout: float = 3600.0
    results: str = ""
    backend: str = "local"
    slurm: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    wait_policy: str | None = None  # OMP_WAIT_POLICY for every run; None: the launcher's default
    configuration_params: dict[str, dict[str, Any]] = field(default_factory=dict)  # per configuration

    @property
    def configuration_keys(self) -> set[str]:
        """Parameters set per configuration: they say how a problem is run, not which problem it is."""
        return {k for params in self.configuration_params.values() for k in params}

    def as_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class RunPlan(Placement):
    study: str
    kernel: str
    params: dict[str, Any]
    configurations: tuple[str, ...]  # every spec configuration that has this shape
    nodes: int
    ranks_per_node: int
    threads: int
    mode: Mode
    repeat: int

    @property
    def key(self) -> str:
        """Stable identity of the run, used to resume: same study, parameters, shape and repeat."""
        ident = [self.study, self.kernel, self.params, self.nodes, self.ranks_per_node, self.threads, self.repeat]
        return hashlib.sha1(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]

    def kernel_args(self) -> list[str]:
        return params_to_args(self.params)

    def label(self) -> str:
        swept = " ".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.nodes}n x {self.ranks_per_node}r x {self.threads}t {swept} #{self.repeat}"


def params_to_args(params: dict[str, Any]) -> list[str]:
    args: list[str] = []
    for name, value in params.items():
        if value is True:
            args.append(f"--{name}")
        elif value is False or value is None:
            continue
        elif isinstance(value, (list, tuple)):
            args += [f"--{name}", *map(str, value)]
        else:
            args += [f"--{name}", str(value)]
    return args


# ---------------------------------------------------------------- loading with line numbers


def _lines(node: yaml.Node, path: tuple = (), out: dict | None = None) -> dict[tuple, int]:
    """Line (1-based) of every key and list item, by path."""
    out = {} if out is None else out
    out[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            _lines(value, path + (key.value,), out)
            out[path + (key.value,)] = key.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _lines(item, path + (i,), out)
    return out


class _Context:
    def __init__(self, source: str, lines: dict[tuple, int]):
        self.source, self.lines = source, lines

    def error(self, path: tuple, message: str) -> SpecError:
        while path and path not in self.lines:
            path = path[:-1]
        return SpecError(f"{self.source}:{self.lines.get(path, 1)}: {message}")


def load(path: str | Path, cores_per_node: Callable[[str], int] | int | None = None,
         backend: str | None = None) -> Study:
    """Reads and validates a spec. `cores_per_node` is used when the spec does not give it: a number,
    or a function of the backend (the local machine's cores, or the Slurm nodes'); `backend`
    overrides the spec's."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as err:
        raise SpecError(f"{path}: cannot read the study spec: {err.strerror}") from None
    return parse(text, str(path), cores_per_node, backend)


def parse(text: str, source: str = "<spec>", cores_per_node: Callable[[str], int] | int | None = None,
          backend: str | None = None) -> Study:
    try:
        node = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 1 if mark else 1
        raise SpecError(f"{source}:{line}: not valid YAML: {getattr(err, 'problem', err)}") from None
    if not isinstance(data, dict):
        raise SpecError(f"{source}:1: a study spec is a mapping of keys (study, kernel, configurations, ...)")
    if backend is not None:
        data["backend"] = backend
    return _validate(data, _Context(source, _lines(node)), cores_per_node)


def from_dict(d: dict[str, Any]) -> Study:
    """A Study back from Study.as_dict() (as stored with its results)."""
    tuples = {"zip", "configurations", "cores", "nodes"}
    d = {k: v for k, v in d.items() if k in Study.__dataclass_fields__}
    return Study(**{k: (tuple(v) if k in tuples and v is not None else v) for k, v in d.items()})


def _suggest(word: str, choices) -> str:
    close = difflib.get_close_matches(word, sorted(choices), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _positive_int(ctx: _Context, path: tuple, value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ctx.error(path, f"{what} must be a whole number of at least 1, got {value!r}")
    return value


def _validate(data: dict, ctx: _Context, cores_per_node: Callable[[str], int] | int | None) -> Study:
    for key in data:
        if key not in KEYS:
            raise ctx.error((key,), f"unknown key '{key}'{_suggest(str(key), KEYS)}")
    for key in ("study", "kernel", "configurations"):
        if key not in data:
            raise ctx.error((), f"missing required key '{key}'")
    name = data["study"]
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
        raise ctx.error(("study",), "study must be a name of letters, digits, '.', '_' or '-'")
    kernel = data["kernel"]
    if kernel not in kernels.KERNELS:
        raise ctx.error(("kernel",), f"unknown kernel '{kernel}': available are {', '.join(kernels.KERNELS)}")

    backend = data.get("backend", "local")
    if backend not in BACKENDS:
        raise ctx.error(("backend",), f"backend must be one of {', '.join(BACKENDS)}{_suggest(str(backend), BACKENDS)}")
    slurm = data.get("slurm", {}) or {}
    if not isinstance(slurm, dict):
        raise ctx.error(("slurm",), "slurm must be a mapping (partition, account, time, exclusive, extra)")
    for key in slurm:
        if key not in SLURM_KEYS:
            raise ctx.error(("slurm", key), f"unknown slurm key '{key}'{_suggest(str(key), SLURM_KEYS)}")

    if "cores_per_node" in data:
        cpn = _positive_int(ctx, ("cores_per_node",), data["cores_per_node"], "cores_per_node")
    elif callable(cores_per_node):
        cpn = cores_per_node(backend)
    elif cores_per_node is not None:
        cpn = cores_per_node
    else:
        raise ctx.error((), "cores_per_node is needed (the machine's core count is not known here)")

    params, zips = _validate_params(data, ctx, kernel)
    configurations, configuration_params = _validate_configurations(data, ctx, kernel)
    required = [o["name"] for o in kernels.options(kernel) if o.get("required")]
    given = set(params) | {k for group in zips for k in group}
    for name in required:
        if name not in given and not all(name in configuration_params.get(c, {}) for c in configurations):
            raise ctx.error(("params",), f"{kernel} needs '{name}': set it under params (see hybridperf-{kernel} --help)")
    cores, nodes = _validate_scale(data, ctx, cpn)
    repeats = _positive_int(ctx, ("repeats",), data.get("repeats", 3), "repeats")
    oversubscribe = data.get("oversubscribe", False)
    if not isinstance(oversubscribe, bool):
        raise ctx.error(("oversubscribe",), "oversubscribe must be true or false")
    wait_policy = data.get("wait_policy")
    if wait_policy not in (None, "active", "passive"):
        raise ctx.error(("wait_policy",), f"wait_policy must be active or passive, got {wait_policy!r}")
    timeout = data.get("timeout", 3600)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise ctx.error(("timeout",), f"timeout must be a number of seconds above 0, got {timeout!r}")
    study = Study(
        name=name, kernel=kernel, params=params, zip=zips, configurations=configurations, cores=cores,
        nodes=nodes, cores_per_node=cpn, repeats=repeats, oversubscribe=oversubscribe, timeout=float(timeout),
        results=str(data.get("results", f"results/{name}")), backend=backend, slurm=slurm,
        description=str(data.get("description", "")), wait_policy=wait_policy,
        configuration_params=configuration_params,
    )
    _check_runs(study, ctx)
    return study


def _check_value(ctx: _Context, path: tuple, option: dict[str, Any], value: Any) -> None:
    kind, name = option["type"], option["name"]
    if kind == "flag":
        ok = isinstance(value, bool)
    elif kind == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif kind == "real":
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif kind == "int3":
        ok = isinstance(value, list) and len(value) == 3 and all(isinstance(v, int) for v in value)
    else:
        ok = isinstance(value, str) and value != ""
    if not ok:
        raise ctx.error(path, f"{name} takes a value of type {kind}, got {value!r}")
    if kind == "choice" and value not in option["choices"].split("|"):
        raise ctx.error(path, f"{name} must be one of {option['choices']}, got {value!r}")
    if option["min"] is not None and kind in ("int", "real", "int3"):
        for v in value if kind == "int3" else [value]:
            if v < option["min"] or (option["min_exclusive"] and v == option["min"]):
                sign = ">" if option["min_exclusive"] else ">="
                raise ctx.error(path, f"{name} must be {sign} {option['min']:g}, got {v}")


def _validate_params(data: dict, ctx: _Context, kernel: str) -> tuple[dict[str, Any], tuple[dict, ...]]:
    table = {o["name"]: o for o in kernels.options(kernel)}

    def option(path: tuple, key: Any) -> tuple[str, dict]:
        name = str(key).replace("_", "-")
        if name in RESERVED_PARAMS:
            raise ctx.error(path, f"{name} is set by hybridperf itself and cannot be a study parameter")
        if name not in table:
            raise ctx.error(path, f"{kernel} has no option '{key}'{_suggest(name, table)} (see hybridperf-{kernel} --help)")
        return name, table[name]

    def values(path: tuple, opt: dict, value: Any) -> list[Any]:
        sweep = isinstance(value, list) and not (opt["type"] == "int3" and value and not isinstance(value[0], list))
        items = value if sweep else [value]
        if not items:
            raise ctx.error(path, f"{opt['name']}: an empty list sweeps nothing")
        for i, item in enumerate(items):
            _check_value(ctx, path + ((i,) if sweep else ()), opt, item)
        return items

    params: dict[str, Any] = {}
    raw = data.get("params", {}) or {}
    if not isinstance(raw, dict):
        raise ctx.error(("params",), "params must be a mapping of kernel options to values or lists of values")
    for key, value in raw.items():
        name, opt = option(("params", key), key)
        items = values(("params", key), opt, value)
        params[name] = items if len(items) > 1 or isinstance(value, list) and opt["type"] != "int3" else items[0]
    zips = []
    raw_zip = data.get("zip", []) or []
    if not isinstance(raw_zip, list):
        raise ctx.error(("zip",), "zip must be a list of groups, each a mapping of options to equal-length lists")
    for g, group in enumerate(raw_zip):
        if not isinstance(group, dict) or not group:
            raise ctx.error(("zip", g), "each zip group is a mapping of options to equal-length lists")
        lengths = set()
        converted = {}
        for key, value in group.items():
            name, opt = option(("zip", g, key), key)
            if name in params or any(name in z for z in zips):
                raise ctx.error(("zip", g, key), f"{name} is swept twice (params and zip, or two zip groups)")
            if not isinstance(value, list):
                raise ctx.error(("zip", g, key), f"{name}: zip values must be a list")
            converted[name] = values(("zip", g, key), opt, value)
            lengths.add(len(value))
        if len(lengths) > 1:
            raise ctx.error(("zip", g), f"zip group lists differ in length: {sorted(lengths)}")
        zips.append(converted)
    return params, tuple(zips)


def _validate_configurations(data: dict, ctx: _Context, kernel: str) -> tuple[tuple[str, ...], dict[str, dict]]:
    """Names, each optionally with kernel parameters of its own: `- hybrid-1: {mode: hybrid}`."""
    raw = data["configurations"]
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not raw:
        raise ctx.error(("configurations",), "configurations must be a non-empty list")
    names, per_config = [], {}
    table = {o["name"]: o for o in kernels.options(kernel)}
    for i, entry in enumerate(raw):
        params = {}
        if isinstance(entry, dict):
            if len(entry) != 1 or not isinstance(next(iter(entry.values())), dict):
                raise ctx.error(("configurations", i), "a configuration with parameters is `NAME: {option: value}`")
            entry, raw_params = next(iter(entry.items()))
            for key, value in raw_params.items():
                name = str(key).replace("_", "-")
                if name in RESERVED_PARAMS or name not in table:
                    raise ctx.error(("configurations", i), f"{kernel} has no settable option '{key}'"
                                                           f"{_suggest(name, table)}")
                _check_value(ctx, ("configurations", i), table[name], value)
                params[name] = value
        name = str(entry)
        if name not in NAMED_CONFIGURATIONS and not re.fullmatch(r"[1-9]\d*x[1-9]\d*", name):
            raise ctx.error(
                ("configurations", i),
                f"unknown configuration '{name}': use {', '.join(NAMED_CONFIGURATIONS)} or RANKSxTHREADS per node "
                f"(e.g. 4x2){_suggest(name, NAMED_CONFIGURATIONS)}",
            )
        if name in names:
            raise ctx.error(("configurations", i), f"configuration {name} is listed twice")
        names.append(name)
        if params:
            per_config[name] = params
    swept = set(data.get("params") or {}) | {k for g in data.get("zip") or [] if isinstance(g, dict) for k in g}
    for name, params in per_config.items():
        clash = {k for k in params if k in swept or k.replace("-", "_") in swept}
        if clash:
            raise ctx.error(("configurations", names.index(name)),
                            f"{', '.join(sorted(clash))} is set both by configuration {name} and by params")
    return tuple(names), per_config


def _validate_scale(data: dict, ctx: _Context, cpn: int) -> tuple[tuple[int, ...] | None, tuple[int, ...] | None]:
    if ("cores" in data) == ("nodes" in data):
        raise ctx.error((), "give exactly one of 'cores' (total core counts) or 'nodes' (node counts)")
    key = "cores" if "cores" in data else "nodes"
    raw = data[key]
    if raw == "powers-of-two" and key == "cores":
        counts = [2**k for k in range(int(math.log2(cpn)) + 1)]
        return tuple(dict.fromkeys(counts + [cpn])), None
    if not isinstance(raw, list) or not raw:
        raise ctx.error((key,), f"{key} must be a list (or, for cores, 'powers-of-two')")
    counts = []
    for i, value in enumerate(raw):
        if key == "cores" and value == "node":
            value = cpn
        counts.append(_positive_int(ctx, (key, i), value, f"each entry of {key}"))
    return (tuple(dict.fromkeys(counts)), None) if key == "cores" else (None, tuple(dict.fromkeys(counts)))


# ---------------------------------------------------------------- shapes and expansion


def shape(configuration: str, cpn: int, cores: int | None = None, nodes: int | None = None) -> tuple[int, int, int]:
    """(nodes, ranks per node, threads) of a configuration at a total core count or a node count."""
    explicit = re.fullmatch(r"(\d+)x(\d+)", configuration)
    if nodes is not None:
        width = cpn
    elif cores >= cpn:
        if cores % cpn:
            raise ValueError(f"{cores} cores is not a whole number of {cpn}-core nodes")
        nodes, width = cores // cpn, cpn
    else:
        nodes, width = 1, cores
    if explicit:
        rpn, threads = int(explicit[1]), int(explicit[2])
        if cores is not None and cores % (rpn * threads):
            raise ValueError(f"{cores} cores cannot be split into {configuration} per node")
        if cores is not None:
            nodes = max(1, cores // (rpn * threads))
        return nodes, rpn, threads
    if configuration == "pure-mpi":
        return nodes, width, 1
    if configuration == "hybrid-1":
        return nodes, 1, width
    if width < 2 or width % 2:
        raise NotApplicable(f"hybrid-2 needs an even number of cores per node, got {width}")
    return nodes, 2, width // 2


def _param_combinations(study: Study) -> list[dict[str, Any]]:
    swept = [(k, v) for k, v in study.params.items() if isinstance(v, list)]
    fixed = {k: v for k, v in study.params.items() if not isinstance(v, list)}
    axes: list[list[dict[str, Any]]] = [[{k: v} for v in values] for k, values in swept]
    for group in study.zip:
        n = len(next(iter(group.values())))
        axes.append([{k: values[i] for k, values in group.items()} for i in range(n)])
    combos = []
    for choice in itertools.product(*axes):
        combo = dict(fixed)
        for part in choice:
            combo.update(part)
        combos.append(combo)
    return combos


def points(study: Study) -> list[tuple[str, int, int, int, int]]:
    """(configuration, scale value, nodes, ranks per node, threads) for every configuration and scale."""
    out = []
    for scale in study.cores or study.nodes or ():
        for config in study.configurations:
            try:
                if study.cores:
                    n, r, t = shape(config, study.cores_per_node, cores=scale)
                else:
                    n, r, t = shape(config, study.cores_per_node, nodes=scale)
            except NotApplicable:
                continue
            out.append((config, scale, n, r, t))
    return out


def expand(study: Study) -> list[RunPlan]:
    """Every run, repeats outermost so that repeats of one point are spread over the study's duration;
    two configurations with the same shape (1 core is both pure MPI and hybrid) share one run."""
    plans: dict[str, RunPlan] = {}
    for repeat in range(study.repeats):
        for params in _param_combinations(study):
            for config, _, n, r, t in points(study):
                mode = classify(study.cores_per_node, r, t, n)
                run_params = {**params, **study.configuration_params.get(config, {})}
                plan = RunPlan(study.name, study.kernel, run_params, (config,), n, r, t, mode, repeat)
                if plan.key in plans:
                    old = plans[plan.key]
                    plan = RunPlan(**{**old.__dict__, "configurations": old.configurations + (config,)})
                plans[plan.key] = plan
    return list(plans.values())


# ---------------------------------------------------------------- what the runs need


def _balanced_dims(n: int) -> list[int]:
    """The most cubic 3-D factorisation of n, as MPI_Dims_create chooses it."""
    best = None
    for a in range(1, n + 1):
        if n % a:
            continue
        for b in range(1, n // a + 1):
            if (n // a) % b:
                continue
            dims = sorted([a, b, n // a // b], reverse=True)
            if best is None or dims[0] - dims[2] < best[0] - best[2]:
                best = dims
    return best or [n, 1, 1]


def _md_refusal(params: dict[str, Any], ranks: int, defaults: dict[str, Any]) -> str | None:
    """Why hybridperf-md would refuse this many ranks for these parameters (bricks thinner than the
    cutoff + skin), or None. Only for lattice runs: a data file's box is not known here."""
    p = {**defaults, **params}
    if p.get("read-data"):
        return None
    grid = p["grid"] if any(p["grid"]) else _balanced_dims(ranks)
    if any(p["grid"]) and math.prod(g for g in grid if g) != ranks and all(grid):
        return f"--grid {' '.join(map(str, grid))} needs {math.prod(grid)} ranks, not {ranks}"
    box = p["size"] * (4.0 / p["density"]) ** (1 / 3)
    width = box / max(g or 1 for g in grid)
    if width < p["cutoff"] + p["skin"]:
        return (f"size {p['size']} on {ranks} ranks gives {width:.3g}-wide subdomains, thinner than cutoff + skin "
                f"= {p['cutoff'] + p['skin']:.3g}")
    return None


def _check_runs(study: Study, ctx: _Context) -> None:
    try:
        pts = points(study)
    except ValueError as err:
        raise ctx.error(("cores" if study.cores else "nodes",), str(err)) from None
    where = ("cores" if study.cores else "nodes",)
    for config in study.configurations:
        if not any(p[0] == config for p in pts):
            raise ctx.error(("configurations", study.configurations.index(config)),
                            f"{config} exists at none of the {where[0]} counts given")
    for config, scale, n, r, t in pts:
        line = ("configurations", study.configurations.index(config))
        if r * t > study.cores_per_node and not study.oversubscribe:
            raise ctx.error(line, f"{config} at {scale} {where[0]} puts {r} ranks x {t} threads on "
                                  f"{study.cores_per_node}-core nodes; set oversubscribe: true to allow it")
        if study.backend == "local" and n > 1:
            raise ctx.error(where, f"{config} at {scale} {where[0]} needs {n} nodes; the local backend has one "
                                   f"(use backend: slurm)")
    if study.kernel == "md":
        defaults = {o["name"]: o["default"] for o in kernels.options("md")}
        for params in _param_combinations(study):
            for config, scale, n, r, t in pts:
                reason = _md_refusal({**params, **study.configuration_params.get(config, {})}, n * r, defaults)
                if reason:
                    raise ctx.error(("params",), f"{config} at {scale} {where[0]}: {reason}")
