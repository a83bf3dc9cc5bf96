"""Study specs: a YAML file becomes a validated Study. Every error names the file and line it is about:
`studies/x.yaml:7: ...`.

    study: local-md                  # name, required
    kernel: md                       # required
    params: {size: [20, 32], steps: 100}   # kernel options; a list sweeps (matrix over lists)
    zip: [{size: [16, 24], steps: [400, 100]}]   # lists that vary together (optional)
    configurations: [pure-mpi, hybrid-1, hybrid-2, 4x2]   # or RANKSxTHREADS per node
    placement: [compact, spread]     # optional: each configuration once per policy (launch.placement)
    cores: [1, node]                 # total cores per point; or nodes: [1, 2, 4]
    decide: {confidence: 0.90, tie_within: 2%, min_blocks: 3, max_blocks: 40, budget: 10m, interval: huber}
See docs/study-spec.md for every key. Parsing is pure but for the kernel's option table (asked of the
binary once); expansion into runs is `study.expand`, and the checks that need the kernel's own
decomposition are `study.feasibility`.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import yaml

from hybridperf import cluster, resources
from hybridperf.analysis import confseq
from hybridperf.analysis.race import Rule
from hybridperf.app.spec import AppSpec, parse_app
from hybridperf.launch import kernels
from hybridperf.shapes import ALL, Design, every_split, is_configuration, NAMED_CONFIGURATIONS, PLACEMENTS, split_placement
from hybridperf.study import feasibility, params as options, paths
from hybridperf.study.registry import kind_of, kinds

KEYS = {
    "study", "kernel", "description", "params", "zip", "configurations", "cores", "nodes", "cores_per_node",
    "repeats", "oversubscribe", "timeout", "results", "backend", "slurm", "simgrid", "wait_policy", "app", "decide",
    "placement", "disturbed",
}
DISTURBED = ("keep", "rerun")  # what a study does with a block in which another process took CPU from a run
DECIDE_KEYS = ("confidence", "tie_within", "min_blocks", "max_blocks", "budget", "interval")
APP = "app"  # the kernel of a study of the user's own program (its `app:` block: hybridperf.app.spec)
SLURM_KEYS = {"partition", "account", "time", "exclusive", "mpi", "extra", "topology"}
SIMGRID_KEYS = {"cluster", "costs", "noise_seed"}
SIMGRID_COSTS = ("auto", "measured", "thesis")
PLANNED = ("md", "spmv")  # kernels with a --plan mode, which the simgrid backend replays


class SpecError(ValueError):
    """A spec that cannot run; the message starts with file:line."""


@dataclass(frozen=True)
class Study:
    name: str
    kernel: str
    params: dict[str, list[Any]]  # option -> its alternatives (one for a fixed value)
    zip: tuple[dict[str, list[Any]], ...]
    configurations: tuple[str, ...]
    cores: tuple[int, ...] | None
    nodes: tuple[int, ...] | None
    cores_per_node: int
    repeats: int | None = None  # a fixed design: exactly this many blocks (None: race by `decide`)
    oversubscribe: bool = False
    timeout: float = 3600.0
    results: str = ""
    backend: str = "local"
    slurm: dict[str, Any] = field(default_factory=dict)
    simgrid: dict[str, Any] = field(default_factory=dict)  # backend simgrid: cluster (a description), costs
    description: str = ""
    wait_policy: str | None = None  # OMP_WAIT_POLICY for every run; None: the launcher's default
    configuration_params: dict[str, dict[str, Any]] = field(default_factory=dict)  # per configuration
    app: dict[str, Any] | None = None  # kernel: app, its validated `app:` block as written
    decide: dict[str, Any] | None = None  # the stopping rule's fields (analysis.race.Rule); None: defaults
    placement: tuple[str, ...] = ()  # placement policies: every configuration runs once per policy
    disturbed: str = "keep"  # DISTURBED: a block with a disturbed run is kept as it is, or run again

    @property
    def rule(self) -> Rule:
        """How the study decides: its `decide:` block, a fixed number of blocks (`repeats`), or the defaults; a
        simulated study by one block (a replay is exact: another would give the same times)."""
        if kind_of(self.backend).exact:
            return Rule(min_blocks=1, max_blocks=1, budget=None, **(self.decide or {}))
        if self.decide is not None:
            return Rule(**self.decide)
        if self.repeats is not None:
            return Rule(min_blocks=self.repeats, max_blocks=self.repeats, budget=None)
        return Rule()

    @property
    def app_spec(self) -> AppSpec:
        """The `app:` block of a `kernel: app` study (it was validated when the spec was read)."""
        if self.app is None:
            raise ValueError(f"study {self.name} runs kernel {self.kernel}, not an app")
        return parse_app(self.app, set(self.params) | {k for g in self.zip for k in g}, _invalid_stored_app)

    @property
    def placed_configurations(self) -> tuple[str, ...]:
        """The configurations as they race: each once per placement policy (`pure-mpi@spread`), or as written."""
        if not self.placement:
            return self.configurations
        return tuple(f"{c}@{p}" for c in self.configurations for p in self.placement)

    @property
    def placements(self) -> set[str]:
        """The placement policies its runs use: the axis's, or those its configurations name (pure-mpi@spread)."""
        return {p for p in (split_placement(c)[1] for c in self.placed_configurations) if p}

    @property
    def design(self) -> Design:
        axis = "cores" if self.cores else "nodes"
        params = {c: self.configuration_params[split_placement(c)[0]] for c in self.placed_configurations
                  if split_placement(c)[0] in self.configuration_params}
        return Design(self.placed_configurations, axis, self.cores or self.nodes or (), self.cores_per_node,
                      {**self.configuration_params, **params})

    @property
    def configuration_keys(self) -> set[str]:
        return self.design.configuration_keys

    def as_dict(self) -> dict[str, Any]:
        """The study as stored with each campaign, with the rule it races by written out whole (`rule`), so that a
        campaign is always judged by the rule it declared, whatever the defaults become."""
        fields = {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}
        return {**fields, "rule": dataclasses.asdict(self.rule)}


def _invalid_stored_app(path: tuple, message: str) -> ValueError:
    return ValueError(f"the stored app block is not valid (app.{'.'.join(map(str, path))}): {message}")


# What a campaign stored before its rule was written out whole (no `rule`) raced by: the sign sequence, 30 blocks
LEGACY_RULE = {"interval": "sign", "max_blocks": 30}


def from_dict(d: dict[str, Any]) -> Study:
    """A Study back from Study.as_dict() (as stored with its results); one stored before the rule was written out
    whole gets the rule it ran under (LEGACY_RULE, where its decide block did not say otherwise)."""
    tuples = {"zip", "configurations", "cores", "nodes", "placement"}
    if "rule" not in d and not kind_of(d.get("backend", "local")).exact:
        fixed = d.get("repeats")
        declared = {"min_blocks": fixed, "max_blocks": fixed, "budget": None} if fixed else d.get("decide") or {}
        d = {**d, "decide": {**LEGACY_RULE, **declared}}
    d = {k: v for k, v in d.items() if k in Study.__dataclass_fields__}
    return Study(**{k: (tuple(v) if k in tuples and v is not None else v) for k, v in d.items()})


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


class Context:
    """Where each part of a spec came from, to name its line in an error."""

    def __init__(self, source: str, lines: dict[tuple, int], base: Path | None = None):
        self.source, self.lines, self.base = source, lines, base  # base: the spec's directory, for its paths

    def error(self, path: tuple, message: str) -> SpecError:
        while path and path not in self.lines:
            path = path[:-1]
        return SpecError(f"{self.source}:{self.lines.get(path, 1)}: {message}")


def load(path: str | Path, cores_per_node: Callable[[str], int] | int | None = None,
         backend: str | None = None) -> Study:
    """Reads and validates a spec: a file, or a shipped study by name (`local`: hybridperf.resources). `cores_per_node`
    is used when the spec does not give it: a number, or a function of the backend (the local machine's cores, or
    the Slurm nodes'); `backend` overrides the spec's."""
    path = Path(path)
    if not path.exists() and path.suffix not in (".yaml", ".yml"):
        path = resources.study(str(path)) or path
        if not path.exists():
            raise SpecError(f"{path}: no such study spec, nor a ready-made study of that name "
                            f"({', '.join(resources.studies())})")
    try:
        text = path.read_text()
    except OSError as err:
        raise SpecError(f"{path}: cannot read the study spec: {err.strerror}") from None
    return parse(text, str(path), cores_per_node, backend, path.parent)


def parse(text: str, source: str = "<spec>", cores_per_node: Callable[[str], int] | int | None = None,
          backend: str | None = None, base: Path | None = None) -> Study:
    """A spec from its text; `base`: the directory its relative paths are taken against (study.paths)."""
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
    ctx = Context(source, _lines(node), base)
    study = _validate(data, ctx, cores_per_node)
    feasibility.check(study, ctx.error)
    return study


def _positive_int(ctx: Context, path: tuple, value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ctx.error(path, f"{what} must be a whole number of at least 1, got {value!r}")
    return value


def _validate(data: dict, ctx: Context, cores_per_node: Callable[[str], int] | int | None) -> Study:
    for key in data:
        if key not in KEYS:
            raise ctx.error((key,), f"unknown key '{key}'{options.suggest(str(key), KEYS)}")
    for key in ("study", "kernel", "configurations"):
        if key not in data:
            raise ctx.error((), f"missing required key '{key}'")
    name = data["study"]
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
        raise ctx.error(("study",), "study must be a name of letters, digits, '.', '_' or '-'")
    kernel = data["kernel"]
    if kernel not in (*kernels.KERNELS, APP):
        raise ctx.error(("kernel",), f"unknown kernel '{kernel}': available are {', '.join(kernels.KERNELS)}, or "
                                     f"{APP} for your own program")
    if ("app" in data) != (kernel == APP):
        raise ctx.error(("app",) if "app" in data else ("kernel",), "an app: block goes with kernel: app, and only "
                                                                     "with it")

    backend = data.get("backend", "local")
    if backend not in kinds():
        raise ctx.error(("backend",), f"backend must be one of {', '.join(kinds())}"
                                      f"{options.suggest(str(backend), tuple(kinds()))}")
    slurm = data.get("slurm", {}) or {}
    if not isinstance(slurm, dict):
        raise ctx.error(("slurm",), "slurm must be a mapping (partition, account, time, exclusive, extra)")
    for key in slurm:
        if key not in SLURM_KEYS:
            raise ctx.error(("slurm", key), f"unknown slurm key '{key}'{options.suggest(str(key), SLURM_KEYS)}")

    simgrid = _validate_simgrid(data, ctx, backend, kernel)
    if "cores_per_node" in data:
        cpn = _positive_int(ctx, ("cores_per_node",), data["cores_per_node"], "cores_per_node")
    elif simgrid:  # the cluster the replays run on
        cpn = cluster.load(simgrid["cluster"]).cores_per_node
    elif callable(cores_per_node):
        cpn = cores_per_node(backend)
    elif cores_per_node is not None:
        cpn = cores_per_node
    else:
        raise ctx.error((), "cores_per_node is needed (the machine's core count is not known here)")

    table = {} if kernel == APP else {o["name"]: o for o in kernels.options(kernel)}
    params, zips = _validate_params(data, ctx, kernel, table)
    if kernel == APP:
        def app_error(path: tuple, message: str) -> SpecError:
            return ctx.error(("app", *path), message)

        if ctx.base:
            data["app"] = paths.resolve_app(data["app"], ctx.base, app_error)
        parse_app(data["app"], set(params) | {k for g in zips for k in g}, app_error)
    configurations, configuration_params = _validate_configurations(data, ctx, kernel, table, cpn)
    given = set(params) | {k for group in zips for k in group}
    for option in table.values():
        needed = option["name"]
        if option.get("required") and needed not in given and \
                not all(needed in configuration_params.get(c, {}) for c in configurations):
            raise ctx.error(("params",), f"{kernel} needs '{needed}': set it under params (see hybridperf-{kernel} --help)")
    cores, nodes = _validate_scale(data, ctx, cpn)
    placement = _validate_placement(data, ctx, backend, kernel, configurations)
    if "repeats" in data and "decide" in data:
        raise ctx.error(("repeats",), "give repeats (a fixed number of blocks) or decide (a stopping rule), not both")
    repeats = _positive_int(ctx, ("repeats",), data["repeats"], "repeats") if "repeats" in data else None
    decide = _validate_decide(data, ctx) if "decide" in data else None
    oversubscribe = data.get("oversubscribe", False)
    if not isinstance(oversubscribe, bool):
        raise ctx.error(("oversubscribe",), "oversubscribe must be true or false")
    disturbed = data.get("disturbed", "keep")
    if disturbed not in DISTURBED:
        raise ctx.error(("disturbed",), f"disturbed must be {' or '.join(DISTURBED)}, got {disturbed!r}"
                                        f"{options.suggest(str(disturbed), DISTURBED)}")
    if disturbed == "rerun" and not kind_of(backend).launches:
        raise ctx.error(("disturbed",), "disturbed: rerun needs the machine's own counters: the local backend's "
                                        "runs only")
    wait_policy = data.get("wait_policy")
    if wait_policy not in (None, "active", "passive"):
        raise ctx.error(("wait_policy",), f"wait_policy must be active or passive, got {wait_policy!r}")
    timeout = data.get("timeout", 3600)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise ctx.error(("timeout",), f"timeout must be a number of seconds above 0, got {timeout!r}")
    return Study(
        name=name, kernel=kernel, params=params, zip=zips, configurations=configurations, cores=cores,
        nodes=nodes, cores_per_node=cpn, repeats=repeats, oversubscribe=oversubscribe, timeout=float(timeout),
        results=str(data.get("results", f"results/{name}")), backend=backend, slurm=slurm, simgrid=simgrid,
        description=str(data.get("description", "")), wait_policy=wait_policy,
        configuration_params=configuration_params, app=data.get("app"), decide=decide, placement=placement,
        disturbed=disturbed,
    )


PLACED_ONLY = ("placement binds a kernel's ranks to chosen cores: it runs on the local and slurm backends, for the "
               "kernels (not backend simgrid, not kernel: app)")


def _validate_placement(data: dict, ctx: Context, backend: str, kernel: str,
                        configurations: tuple[str, ...]) -> tuple[str, ...]:
    """`placement:` — policies from launch.placement, each configuration run once per policy. Not for a simulated
    study (the simulator does not model caches), nor an app (its launch takes no binding yet); underpopulate moves
    a point onto twice the nodes, which the local backend (one machine) does not have."""
    named = [c for c in configurations if split_placement(c)[1]]
    if "placement" not in data:
        if named and (kind_of(backend).exact or kernel == APP):
            raise ctx.error(("configurations", configurations.index(named[0])), PLACED_ONLY)
        return ()
    raw = data["placement"]
    raw = [raw] if isinstance(raw, str) else raw
    if not isinstance(raw, list) or not raw:
        raise ctx.error(("placement",), f"placement must be a list of {', '.join(PLACEMENTS)}")
    for i, name in enumerate(raw):
        if name not in PLACEMENTS:
            raise ctx.error(("placement", i), f"unknown placement {name!r}: use {', '.join(PLACEMENTS)}"
                                              f"{options.suggest(str(name), PLACEMENTS)}")
        if raw.index(name) != i:
            raise ctx.error(("placement", i), f"placement {name} is listed twice")
    if kind_of(backend).exact or kernel == APP:
        raise ctx.error(("placement",), PLACED_ONLY)
    if named:
        raise ctx.error(("configurations",), f"{named[0]} names its own placement: give placement: or NAME@POLICY "
                                             "names, not both")
    if kind_of(backend).nodes == 1 and "underpopulate" in raw:
        raise ctx.error(("placement",), f"underpopulate runs each point on twice the nodes, and the {backend} backend "
                                        "has one: use backend: slurm")
    return tuple(raw)


def _validate_simgrid(data: dict, ctx: Context, backend: str, kernel: str) -> dict[str, Any]:
    """backend simgrid's block: the cluster description to replay on (it must load) and where compute costs come
    from; only with that backend, for a kernel with a plan, and without a stopping rule (one replay decides)."""
    block = data.get("simgrid")
    if not kind_of(backend).exact:  # the one backend that replays: SimGrid's
        if block is not None:
            raise ctx.error(("simgrid",), "a simgrid: block goes with backend: simgrid")
        return {}
    if kernel not in PLANNED:
        raise ctx.error(("kernel",), f"backend simgrid replays the plans of {', '.join(PLANNED)}; {kernel} has no "
                                     "--plan mode")
    if not isinstance(block, dict) or "cluster" not in block:
        raise ctx.error(("simgrid",) if block is not None else ("backend",),
                        "backend simgrid needs simgrid: {cluster: NAME} (hybridperf cluster list)")
    for key in block:
        if key not in SIMGRID_KEYS:
            raise ctx.error(("simgrid", key), f"unknown simgrid key '{key}'{options.suggest(str(key), SIMGRID_KEYS)}")
    costs = block.get("costs", "auto")
    if costs not in SIMGRID_COSTS:
        raise ctx.error(("simgrid", "costs"), f"costs must be one of {', '.join(SIMGRID_COSTS)}, got {costs!r}")
    try:
        described = cluster.load(str(block["cluster"]))
    except cluster.ClusterError as err:
        raise ctx.error(("simgrid", "cluster"), str(err)) from None
    seed = block.get("noise_seed")
    try:
        cluster.with_noise(described, seed)
    except cluster.ClusterError as err:
        raise ctx.error(("simgrid", "noise_seed"), str(err)) from None
    if data.get("repeats", 1) != 1:
        raise ctx.error(("repeats",), "a simulated study replays each point once (a replay is exact): no repeats")
    for key in data.get("decide") or {}:
        if key != "tie_within":
            raise ctx.error(("decide", key), "a simulated study replays each point once (a replay is exact): its "
                                             "decide block takes only tie_within")
    return {"cluster": str(block["cluster"]), "costs": costs, **({"noise_seed": seed} if seed is not None else {})}


def _validate_decide(data: dict, ctx: Context) -> dict[str, Any]:
    """The `decide:` block as Rule fields: a fraction for tie_within ('2%' or 0.02), seconds for budget ('10m')."""
    raw = data["decide"] or {}
    if not isinstance(raw, dict):
        raise ctx.error(("decide",), f"decide must be a mapping: {', '.join(DECIDE_KEYS)}")
    out: dict[str, Any] = {}
    for key, value in raw.items():
        where = ("decide", key)
        if key not in DECIDE_KEYS:
            raise ctx.error(where, f"unknown decide key '{key}'{options.suggest(str(key), DECIDE_KEYS)}")
        if key in ("min_blocks", "max_blocks"):
            out[key] = _positive_int(ctx, where, value, key)
            continue
        if key == "interval":
            if value not in confseq.KINDS:
                raise ctx.error(where, f"interval must be one of {', '.join(confseq.KINDS)}, got {value!r}"
                                       f"{options.suggest(str(value), confseq.KINDS)}")
            out[key] = value
            continue
        try:
            out[key] = duration(value) if key == "budget" else fraction(value, key)
        except ValueError as err:
            raise ctx.error(where, str(err)) from None
    try:
        Rule(**out)
    except ValueError as err:
        raise ctx.error(("decide",), str(err)) from None
    return out


def fraction(value: Any, key: str) -> float:
    """'2%', '90%' or a number between 0 and 1, as a fraction."""
    text = str(value).strip()
    try:
        number = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        number = math.nan
    if isinstance(value, bool) or not 0 < number < 1:
        raise ValueError(f"{key} must be a percentage or a fraction between 0 and 1 (e.g. 2% or 0.02), got {value!r}")
    return number


DURATION = re.compile(r"(?:(\d+(?:\.\d+)?)h)?\s*(?:(\d+(?:\.\d+)?)m)?\s*(?:(\d+(?:\.\d+)?)s)?")


def duration(value: Any, key: str = "budget") -> float | None:
    """Seconds from a number, '90s', '10m' or '1h30m'; None for 'none' (no limit)."""
    if value is None or str(value).strip().lower() == "none":
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return float(value)
    match = DURATION.fullmatch(str(value).strip())
    if isinstance(value, str) and match and any(match.groups()):
        seconds = sum(float(g or 0) * unit for g, unit in zip(match.groups(), (3600, 60, 1)))
        if seconds > 0:
            return seconds
    raise ValueError(f"{key} must be a duration such as 90s, 10m or 1h30m (or none), got {value!r}")


def _option(table: dict[str, dict], kernel: str, key: Any, error: Callable[[str], Exception]) -> dict:
    """The kernel option a spec key names; for an app, any name is a parameter (its command's placeholder)."""
    if kernel != APP:
        return options.lookup(table, kernel, key, error)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(key)) or str(key) in {"ranks", "threads", "ranks_per_node",
                                                                              "nodes"}:
        raise error(f"app parameter '{key}' must be a name of letters, digits and '_', and not ranks, threads, "
                    "ranks_per_node or nodes (hybridperf sets those)")
    return {"name": str(key), "type": "value", "min": None}


def _alternatives(ctx: Context, path: tuple, option: dict, value: Any) -> list[Any]:
    items = options.alternatives(option, value)
    if not items:
        raise ctx.error(path, f"{option['name']}: an empty list sweeps nothing")
    swept = len(items) > 1 or items is value
    for i, item in enumerate(items):
        problem = options.check_value(option, item)
        if problem:
            raise ctx.error(path + ((i,) if swept else ()), problem)
    items = [options.normalise(option, item) for item in items]
    return [paths.beside(ctx.base, i) for i in items] if ctx.base and option.get("type") == "path" else items


def _validate_params(data: dict, ctx: Context, kernel: str,
                     table: dict[str, dict]) -> tuple[dict[str, list[Any]], tuple[dict, ...]]:
    raw = data.get("params", {}) or {}
    if not isinstance(raw, dict):
        raise ctx.error(("params",), "params must be a mapping of kernel options to values or lists of values")
    params: dict[str, list[Any]] = {}
    for key, value in raw.items():
        option = _option(table, kernel, key, lambda m, k=key: ctx.error(("params", k), m))
        params[option["name"]] = _alternatives(ctx, ("params", key), option, value)
    zips = []
    raw_zip = data.get("zip", []) or []
    if not isinstance(raw_zip, list):
        raise ctx.error(("zip",), "zip must be a list of groups, each a mapping of options to equal-length lists")
    for g, group in enumerate(raw_zip):
        if not isinstance(group, dict) or not group:
            raise ctx.error(("zip", g), "each zip group is a mapping of options to equal-length lists")
        converted = {}
        for key, value in group.items():
            where = ("zip", g, key)
            option = _option(table, kernel, key, lambda m, w=where: ctx.error(w, m))
            name = option["name"]
            if name in params or any(name in z for z in zips):
                raise ctx.error(where, f"{name} is swept twice (params and zip, or two zip groups)")
            if not isinstance(value, list):
                raise ctx.error(where, f"{name}: zip values must be a list")
            converted[name] = _alternatives(ctx, where, option, value)
        lengths = {len(v) for v in converted.values()}
        if len(lengths) > 1:
            raise ctx.error(("zip", g), f"zip group lists differ in length: {sorted(lengths)}")
        zips.append(converted)
    return params, tuple(zips)


def _validate_configurations(data: dict, ctx: Context, kernel: str, table: dict[str, dict],
                             cores_per_node: int) -> tuple[tuple[str, ...], dict[str, dict]]:
    """Names, each optionally with kernel parameters of its own: `- hybrid-1: {mode: hybrid}`; or `all`, every split
    of the node (shapes.every_split)."""
    raw = data["configurations"]
    if raw == ALL:
        return every_split(cores_per_node), {}
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not raw:
        raise ctx.error(("configurations",), "configurations must be a non-empty list")
    names, per_config = [], {}
    for i, entry in enumerate(raw):
        where = ("configurations", i)
        own = {}
        if isinstance(entry, dict):
            if len(entry) != 1 or not isinstance(next(iter(entry.values())), dict):
                raise ctx.error(where, "a configuration with parameters is `NAME: {option: value}`")
            entry, raw_params = next(iter(entry.items()))
            for key, value in raw_params.items():
                option = _option(table, kernel, key, lambda m, w=where: ctx.error(w, m))
                problem = options.check_value(option, value)
                if problem:
                    raise ctx.error(where, problem)
                own[option["name"]] = options.normalise(option, value)
        name = str(entry)
        if not is_configuration(name):
            raise ctx.error(where, f"unknown configuration '{name}': use {', '.join(NAMED_CONFIGURATIONS)} or "
                                   f"RANKSxTHREADS per node (e.g. 4x2), or configurations: {ALL} for every split"
                                   f"{options.suggest(name, NAMED_CONFIGURATIONS)}")
        if name in names:
            raise ctx.error(where, f"configuration {name} is listed twice")
        names.append(name)
        if own:
            per_config[name] = own
    name_of = str if kernel == APP else options.option_name
    swept = {name_of(k) for k in data.get("params") or {}} | \
        {name_of(k) for g in data.get("zip") or [] if isinstance(g, dict) for k in g}
    for name, own in per_config.items():
        clash = sorted(k for k in own if k in swept)
        if clash:
            raise ctx.error(("configurations", names.index(name)),
                            f"{', '.join(clash)} is set both by configuration {name} and by params")
    return tuple(names), per_config


def _validate_scale(data: dict, ctx: Context, cpn: int) -> tuple[tuple[int, ...] | None, tuple[int, ...] | None]:
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
