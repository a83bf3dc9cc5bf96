"""Cluster descriptions: `NAME.yaml` — nodes, sockets and cores, the network between nodes and the MPI
transport within one, the fork/join cost of OpenMP — each figure with where it comes from, or marked assumed.

One description serves two users: the split model's presets (models.presets) and SimGrid, for which
`platform_xml` writes a platform (one <cluster>: each node a host with its cores, a private link per node of
the network's latency and bandwidth, the loopback link for ranks on one node, and the topology). Figures use
SimGrid's units ("1.8us", "20Gbps", "4GBps"), so a description reads as the platform will. Pure functions but
`found`, `names` and `load`, which look in the folders of `directories()` and read the file.

A name is looked up in each folder of $HYBRIDPERF_CLUSTERS (separated by ':'), then in the user's own folder
(`user_dir()`: $XDG_DATA_HOME/hybridperf/clusters, where `hybridperf cluster measure` writes this machine's), then
in the package's presets (hybridperf.resources: the seeds' machines); the first found wins, so a user's file of
a preset's name replaces the preset.

    name: Merlin
    nodes: 256
    sockets: 2
    cores_per_socket: 4
    network:
      latency: {value: 1.8us, source: "thesis §3.1"}
      bandwidth: {value: 20Gbps, source: "thesis §3.1: 20 Gb/s Infiniband"}
      topology: {kind: star, assumed: true}          # star | fat-tree (levels, down, up, parallel) | torus (dims)
      per_message: {value: 27.2us, source: "..."}    # optional: the node's interface's time per message
      aggregate: {value: 1.94, source: "..."}        # optional: the interface's bandwidth, all processes at once
    intra_node:
      latency: {value: 0.5us, assumed: true, range: [0.5, 4], range_source: "shared memory: 0.25 to 2 us"}
      bandwidth: {value: 4GBps, assumed: true}
    fork_join: {value: 1.92us, threads: 8, source: "thesis Table 3.1"}
    noise: {interval: 1ms, slowdowns: [0, 0, 0, 0.1], assumed: true, source: "..."}  # optional: OS noise

`per_message` (optional) is what a node's network interface spends on each message it sends or receives, one
message after another whichever of the node's ranks it serves: the part of `latency` that does not overlap when
several ranks of a node talk at once (Chow & Hysom's Table 6: one off-node pair 43.5 us, four pairs 125.2 us). It
is part of `latency`, the end-to-end figure of one message alone, so it must be below it.

`aggregate` (optional, a plain number) is the node's interface's bandwidth when every core's process sends at
once, in multiples of `bandwidth` (one process alone): below cores_per_node, one process cannot drive the
interface alone (Chow & Hysom's Table 6: one pair 42.9 per process, four pairs 83.2 in all, so 1.94). The
replay gives the node's link the bandwidth and each sending process the time per byte that make both figures
hold for the micro-test that measured them (`Interface`). Without it, one process alone gets the whole link.

An assumed figure may declare `range`: the factors of its value it plausibly lies between (low <= 1 <= high),
with `range_source`, one line on where the range comes from; `simulate validate --sensitivity` sweeps it. A
figure with a source is not swept, so it takes no range.

`extends: NAME` (optional) makes a description another's with some top-level keys replaced: it has NAME's
keys but those it gives itself (clusters/ibm-sp-switch.yaml is ibm-sp.yaml with another `intra_node`).

`noise` (optional) is OS noise as each node's speed over time: per `interval` a node runs at 1/(1+x) of its speed,
x drawn from `slowdowns` (each entry equally likely: a measured sample, or an assumed one), with its `source` or
`assumed: true` (then it may declare a `range` of factors of its slowdowns, which `--sensitivity` sweeps). A
replay draws each node's profile from it only when given a seed (`with_noise`: `hybridperf simulate --noise-seed`,
and `simulate validate`'s own), so a description with noise replays as one without until then.
"""

from __future__ import annotations

import html
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from hybridperf import resources

TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
RATE_UNITS = {"Bps": 1.0, "kBps": 1e3, "MBps": 1e6, "GBps": 1e9, "TBps": 1e12,
              "bps": 1 / 8, "kbps": 1e3 / 8, "Mbps": 1e6 / 8, "Gbps": 1e9 / 8, "Tbps": 1e12 / 8}
TOPOLOGIES = ("star", "fat-tree", "torus")
KEYS = {"name", "description", "nodes", "sockets", "cores_per_socket", "network", "intra_node", "fork_join", "noise"}
NOISE_KEYS = ("interval", "slowdowns", "source", "assumed", "range", "range_source")


class ClusterError(ValueError):
    """A description that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class Figure:
    """One number of a description, in SI units (seconds, bytes per second), with its provenance."""

    text: str  # as written: "1.8us"
    value: float
    source: str  # where it comes from; for an assumed figure, why it is what it is
    assumed: bool
    range: tuple[float, float] | None = None  # an assumed figure's plausible factors of its value: (low, high)
    range_source: str = ""  # where that range comes from


@dataclass(frozen=True)
class Topology:
    kind: str  # star | fat-tree | torus
    parameters: tuple[int, ...]  # fat-tree: levels, then down, up, parallel per level; torus: dims
    source: str
    assumed: bool


@dataclass(frozen=True)
class Noise:
    """OS noise: per interval a node runs at 1/(1+x) of its speed, x drawn from the slowdowns (simulate.noise draws
    each node's profile). Off until a seed is given; `scale` multiplies every slowdown (the noise's size swept)."""

    interval_text: str  # as written: "1ms"
    interval: float  # seconds
    slowdowns: tuple[float, ...]  # each equally likely
    source: str
    assumed: bool
    seed: int | None = None  # None: declared, not drawn (constant speed, as without noise)
    scale: float = 1.0
    range: tuple[float, float] | None = None  # assumed noise: the plausible factors of its slowdowns (low, high)
    range_source: str = ""

    @property
    def mean(self) -> float:
        """A node's mean slowdown, at its scale."""
        return self.scale * sum(self.slowdowns) / len(self.slowdowns)

    def describe(self) -> dict[str, Any]:
        """What a simulated run stores of the noise it was replayed with."""
        return {"interval": self.interval_text, "slowdowns": list(self.slowdowns), "scale": self.scale,
                "seed": self.seed, "source": self.source, "assumed": self.assumed}


@dataclass(frozen=True)
class ClusterSpec:
    key: str  # the file's stem: "merlin"
    name: str
    description: str
    nodes: int
    sockets: int
    cores_per_socket: int
    latency: Figure
    bandwidth: Figure
    topology: Topology
    intra_latency: Figure
    intra_bandwidth: Figure
    fork_join: Figure
    fork_join_threads: int
    per_message: Figure | None = None  # the node's network interface's time per message (part of latency)
    aggregate: Figure | None = None  # the interface's bandwidth, all the node's processes at once / one process's
    noise: Noise | None = None  # OS noise, declared; drawn only when its seed is set (with_noise)

    @property
    def noisy(self) -> bool:
        """Whether a replay draws each node's speed profile from the noise."""
        return self.noise is not None and self.noise.seed is not None

    @property
    def cores_per_node(self) -> int:
        return self.sockets * self.cores_per_socket

    def figures(self) -> dict[str, Figure]:
        return {"network latency": self.latency, "network bandwidth": self.bandwidth,
                **({"network time per message": self.per_message} if self.per_message else {}),
                **({"network bandwidth, all processes (x one's)": self.aggregate} if self.aggregate else {}),
                "latency within a node": self.intra_latency, "bandwidth within a node": self.intra_bandwidth,
                f"fork/join at {self.fork_join_threads} threads": self.fork_join}

    def link_bandwidth(self) -> float:
        """The node's link in the platform (bytes/s). With an aggregate k at n cores, one process's message costs
        its bytes at the process's time per byte p and then at the link's L, and n processes' messages share L:
        1/bandwidth = p + 1/L and n/(k bandwidth) = p + n/L, so L = bandwidth k (n - 1) / (n - k)."""
        if self.aggregate is None:
            return self.bandwidth.value
        k, n = self.aggregate.value, self.cores_per_node
        return self.bandwidth.value * k * (n - 1) / (n - k)

    def interface(self) -> Interface:
        """What the node's network interface adds to each message between nodes of a replay."""
        padding = round(self.per_message.value * self.link_bandwidth()) if self.per_message else 0
        return Interface(padding, 1 / self.bandwidth.value - 1 / self.link_bandwidth())


@dataclass(frozen=True)
class Interface:
    """What a node's network interface adds to a message between nodes: `padding` bytes, which take its time per
    message at the link's bandwidth and so make the messages of a node's ranks queue at its one link; and
    `seconds_per_byte` the sending process spends pushing each byte of its own (SMPI's smpi/os per byte, as a
    sleep before the send: a process alone cannot drive the link; ClusterSpec.link_bandwidth)."""

    padding: int = 0
    seconds_per_byte: float = 0.0


def quantity(text: Any, units: dict[str, float], what: str) -> float:
    """'1.8us' -> 1.8e-6 (units: TIME_UNITS or RATE_UNITS); ValueError naming what is wrong."""
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z]+)\s*", str(text))
    if not match or match[2] not in units:
        raise ValueError(f"{what} must be a number with a unit of {', '.join(units)}, got {text!r}")
    value = float(match[1]) * units[match[2]]
    if value <= 0:
        raise ValueError(f"{what} must be above zero, got {text!r}")
    return value


def _figure(entry: Any, units: dict[str, float] | None, where: str) -> Figure:
    if not isinstance(entry, dict) or "value" not in entry:
        raise ValueError(f"{where} must be a mapping with a value and a source (or assumed: true)")
    unknown = set(entry) - {"value", "source", "assumed", "threads", "range", "range_source"}
    if unknown:
        raise ValueError(f"{where}: unknown key {sorted(unknown)[0]!r} (value, source, assumed, range, range_source)")
    assumed = entry.get("assumed", False)
    if not isinstance(assumed, bool) or (not assumed and not entry.get("source")):
        raise ValueError(f"{where}: say where the figure comes from (source: ...) or mark it assumed: true")
    value = quantity(entry["value"], units, where) if units else _number(entry["value"], where)
    return Figure(str(entry["value"]), value, str(entry.get("source", "")), assumed, *_range(entry, assumed, where))


def _number(value: Any, where: str) -> float:
    """A figure without a unit (a multiple of another figure)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ValueError(f"{where} must be a number above zero, got {value!r}")
    return float(value)


def _range(entry: dict, assumed: bool, where: str) -> tuple[tuple[float, float] | None, str]:
    """An assumed figure's declared range of factors and where it comes from; (None, "") where none is declared."""
    if "range" not in entry and "range_source" not in entry:
        return None, ""
    if not assumed:
        raise ValueError(f"{where}: only an assumed figure has a range (one with a source is not swept)")
    bounds = entry.get("range")
    if (not isinstance(bounds, list) or len(bounds) != 2
            or not all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in bounds)
            or not 0 < bounds[0] <= 1 <= bounds[1]):
        raise ValueError(f"{where}.range must be two factors of the value, [low, high] with 0 < low <= 1 <= high, "
                         f"got {bounds!r}")
    if not entry.get("range_source"):
        raise ValueError(f"{where}: say where the range comes from (range_source: ...)")
    return (float(bounds[0]), float(bounds[1])), str(entry["range_source"])


def _noise(entry: Any) -> Noise:
    if not isinstance(entry, dict):
        raise ValueError("noise must be a mapping: interval, slowdowns and a source (or assumed: true)")
    unknown = set(entry) - set(NOISE_KEYS)
    if unknown:
        raise ValueError(f"noise: unknown key {sorted(unknown)[0]!r} ({', '.join(NOISE_KEYS)})")
    interval = quantity(entry.get("interval"), TIME_UNITS, "noise.interval")
    slowdowns = entry.get("slowdowns")
    if (not isinstance(slowdowns, list) or not slowdowns
            or not all(isinstance(x, (int, float)) and not isinstance(x, bool) and x >= 0 for x in slowdowns)):
        raise ValueError("noise.slowdowns must be a list of numbers of at least 0 (a node runs at 1/(1+x) of its "
                         f"speed), got {slowdowns!r}")
    assumed = entry.get("assumed", False)
    if not isinstance(assumed, bool) or (not assumed and not entry.get("source")):
        raise ValueError("noise: say where the slowdowns come from (source: ...) or mark them assumed: true")
    return Noise(str(entry["interval"]), interval, tuple(float(x) for x in slowdowns), str(entry.get("source", "")),
                 assumed, None, 1.0, *_range(entry, assumed, "noise"))


def with_noise(spec: ClusterSpec, seed: int | None, scale: float = 1.0) -> ClusterSpec:
    """The description with its noise drawn from `seed` (None: as it is, at constant speed); ClusterError where it
    declares no noise."""
    if seed is None:
        return spec
    if spec.noise is None:
        raise ClusterError(f"{spec.name} declares no noise: add noise: {{interval, slowdowns, source}} to its "
                           "description (docs/clusters.md) to replay with noise")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0 or scale < 0:
        raise ClusterError(f"a noise seed is a whole number from 0 and its scale at least 0, got {seed!r}, {scale!r}")
    return replace(spec, noise=replace(spec.noise, seed=seed, scale=scale))


def _topology(entry: Any, nodes: int, where: str) -> Topology:
    if not isinstance(entry, dict) or entry.get("kind") not in TOPOLOGIES:
        raise ValueError(f"{where}.kind must be one of {', '.join(TOPOLOGIES)}")
    parameters = tuple(entry.get("parameters", ()))
    if not all(isinstance(p, int) and not isinstance(p, bool) and p >= 1 for p in parameters):
        raise ValueError(f"{where}.parameters must be whole numbers of at least 1")
    kind = entry["kind"]
    if kind == "torus" and (not parameters or _product(parameters) != nodes):
        raise ValueError(f"{where}: a torus's dimensions must multiply to the {nodes} nodes")
    if kind == "fat-tree" and (len(parameters) < 4 or len(parameters) != 1 + 3 * parameters[0]):
        raise ValueError(f"{where}: a fat tree's parameters are levels, then down, up and parallel links per level")
    if kind == "fat-tree" and _product(parameters[1:1 + parameters[0]]) != nodes:
        raise ValueError(f"{where}: a fat tree's down-links per level must multiply to the {nodes} nodes")
    assumed = entry.get("assumed", False)
    if not assumed and not entry.get("source"):
        raise ValueError(f"{where}: say where the topology comes from (source: ...) or mark it assumed: true")
    return Topology(kind, parameters, str(entry.get("source", "")), bool(assumed))


def _product(values: tuple[int, ...]) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def parse(text: str, key: str, source: str = "<cluster>") -> ClusterSpec:
    """A validated description; ClusterError names the file and the key that is wrong."""
    try:
        data = yaml.safe_load(text)
        if not isinstance(data, dict):
            raise ValueError("a cluster description is a mapping (name, nodes, sockets, cores_per_socket, ...)")
        unknown = set(data) - KEYS
        if unknown:
            raise ValueError(f"unknown key {sorted(unknown)[0]!r} (known: {', '.join(sorted(KEYS))})")
        counts = {}
        for name in ("nodes", "sockets", "cores_per_socket"):
            value = data.get(name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a whole number of at least 1, got {value!r}")
            counts[name] = value
        network, intra = data.get("network") or {}, data.get("intra_node") or {}
        fork_join = data.get("fork_join") or {}
        threads = fork_join.get("threads")
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 2:
            raise ValueError("fork_join.threads must be the thread count it was measured at (2 or more)")
        latency = _figure(network.get("latency"), TIME_UNITS, "network.latency")
        per_message = None
        if "per_message" in network:
            per_message = _figure(network["per_message"], TIME_UNITS, "network.per_message")
            if per_message.value >= latency.value:
                raise ValueError(f"network.per_message ({per_message.text}) is part of network.latency "
                                 f"({latency.text}): it must be below it")
        aggregate = None
        if "aggregate" in network:
            aggregate = _figure(network["aggregate"], None, "network.aggregate")
            cores = counts["sockets"] * counts["cores_per_socket"]
            if not 1 <= aggregate.value < cores:
                raise ValueError(f"network.aggregate ({aggregate.text}) is the node's interface's bandwidth in "
                                 f"multiples of one process's: at least 1 and below the node's {cores} cores")
        known = ("latency", "bandwidth", "topology", "per_message", "aggregate")
        unknown = set(network) - set(known)
        if unknown:
            raise ValueError(f"network: unknown key {sorted(unknown)[0]!r} ({', '.join(known)})")
        return ClusterSpec(
            key, str(data.get("name", key)), str(data.get("description", "")), **counts,
            latency=latency,
            bandwidth=_figure(network.get("bandwidth"), RATE_UNITS, "network.bandwidth"),
            topology=_topology(network.get("topology"), counts["nodes"], "network.topology"),
            intra_latency=_figure(intra.get("latency"), TIME_UNITS, "intra_node.latency"),
            intra_bandwidth=_figure(intra.get("bandwidth"), RATE_UNITS, "intra_node.bandwidth"),
            fork_join=_figure(fork_join, TIME_UNITS, "fork_join"), fork_join_threads=threads, per_message=per_message,
            aggregate=aggregate,
            noise=_noise(data["noise"]) if "noise" in data else None)
    except (ValueError, yaml.YAMLError) as err:
        raise ClusterError(f"{source}: {err}") from None


THIS_MACHINE = "this-machine"  # written by `hybridperf cluster measure` into user_dir(), not shipped
ENV = "HYBRIDPERF_CLUSTERS"


def user_dir() -> Path:
    """The user's own descriptions: $XDG_DATA_HOME/hybridperf/clusters (~/.local/share/hybridperf/clusters)."""
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "hybridperf" / "clusters"


def directories() -> list[tuple[Path, str]]:
    """Where descriptions are looked for, in order, each with what it is: $HYBRIDPERF_CLUSTERS's folders, the
    user's folder, the shipped presets."""
    listed = [Path(d) for d in os.environ.get(ENV, "").split(os.pathsep) if d]
    return [*((d, ENV) for d in listed), (user_dir(), "yours"), (resources.path("clusters"), "shipped")]


def found(directory: Path | None = None) -> dict[str, tuple[Path, str]]:
    """name -> (its file, where it was found), the first of each name on the search path (or in `directory` only)."""
    out: dict[str, tuple[Path, str]] = {}
    for folder, origin in [(directory, str(directory))] if directory else directories():
        for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else ():
            out.setdefault(path.stem, (path, origin))
    return dict(sorted(out.items()))


def names(directory: Path | None = None) -> list[str]:
    return list(found(directory))


def load(name: str, directory: Path | None = None) -> ClusterSpec:
    """A description by name (the first NAME.yaml on the search path, or in `directory` only) or by the path of a
    YAML file."""
    path = _path(name, directory)
    return parse(_text(path, directory), path.stem, str(path))


def _path(name: str, directory: Path | None) -> Path:
    """The file of a description's name or path; ClusterError naming the known ones where there is none."""
    if name.endswith((".yaml", ".yml")):
        path = Path(name)
    else:
        path = found(directory).get(name, (None, ""))[0]
    if path is None or not path.is_file():
        where = str(directory) if directory else ", ".join(str(d) for d, _ in directories())
        if name == THIS_MACHINE:
            raise ClusterError(f"{THIS_MACHINE} is not described yet (looked in {where}): measure this machine with "
                               "`hybridperf cluster measure`")
        if path is not None:
            raise ClusterError(f"{path} does not exist")
        raise ClusterError(f"unknown cluster '{name}': the descriptions in {where} are "
                           f"{', '.join(names(directory))} (or give a description file's path)")
    return path


def _text(path: Path, directory: Path | None, seen: tuple[str, ...] = ()) -> str:
    """A description's text; one that `extends: NAME` is NAME's with its own top-level keys in their place."""
    text = path.read_text()
    data = yaml.safe_load(text)
    if not (isinstance(data, dict) and "extends" in data):
        return text
    base = str(data.pop("extends"))
    if base in seen or base == path.stem:
        raise ClusterError(f"{path}: extends {base}, which extends it again")
    merged = yaml.safe_load(_text(_path(base, directory), directory, (*seen, path.stem)))
    return yaml.safe_dump({**merged, **data}, sort_keys=False, allow_unicode=True)


def _figure_of(profile: dict[str, Any], name: str) -> float | None:
    return next((f["value"] for f in profile["figures_of_merit"] if f["name"] == name), None)


def describe_node(host: str, cores: int, sockets: int, pingpong: dict[str, Any], ompbench: dict[str, Any],
                  when: str) -> str:
    """The description (YAML) of one node measured with hybridperf-mixbench's ping-pong between two of its ranks
    and hybridperf-ompbench's PARALLEL_FOR overhead (PARALLEL where a profile has no PARALLEL_FOR), with its OS
    noise where the ompbench run measured it (--noise-quanta). A node has no network: its intra-node figures stand
    in for one, marked so."""
    latency, bandwidth = _figure_of(pingpong, "pingpong_latency"), _figure_of(pingpong, "pingpong_bandwidth")
    construct = "PARALLEL_FOR" if _figure_of(ompbench, "overhead.PARALLEL_FOR") is not None else "PARALLEL"
    fork_join = _figure_of(ompbench, f"overhead.{construct}")
    if latency is None or bandwidth is None or fork_join is None:
        raise ClusterError("the profiles need hybridperf-mixbench -b pingpong's latency and bandwidth and "
                           "hybridperf-ompbench's PARALLEL_FOR (or PARALLEL) overhead")
    if cores % sockets:
        raise ClusterError(f"{cores} cores do not divide into {sockets} sockets")
    ping = f"measured: hybridperf-mixbench pingpong, 2 ranks on {host}, {when}"
    data = {
        "name": f"this machine ({host})",
        "description": f"one node of {cores} cores, measured by hybridperf cluster measure on {when}",
        "nodes": 1, "sockets": sockets, "cores_per_socket": cores // sockets,
        "network": {"latency": {"value": f"{latency:.4g}us", "assumed": True,
                                "source": "one node has no network: the intra-node figure stands in"},
                    "bandwidth": {"value": f"{bandwidth:.5g}MBps", "assumed": True,
                                  "source": "one node has no network: the intra-node figure stands in"},
                    "topology": {"kind": "star", "assumed": True}},
        "intra_node": {"latency": {"value": f"{latency:.4g}us", "source": f"{ping}: 1-byte latency"},
                       "bandwidth": {"value": f"{bandwidth:.5g}MBps", "source": f"{ping}: largest message"}},
        "fork_join": {"value": f"{fork_join:.4g}us", "threads": int(ompbench["run"]["threads_per_rank"]),
                      "source": f"measured: hybridperf-ompbench {construct} overhead on {host}, {when}"},
    }
    noise = ompbench.get("ompbench", {}).get("noise")
    if noise:
        data["noise"] = {
            "interval": f"{noise['quantum_us']:.4g}us",
            "slowdowns": [float(f"{x:.3g}") for x in noise["slowdowns"]],
            "source": f"measured: hybridperf-ompbench --noise-quanta {noise['quanta_per_thread']} on {host}, {when} "
                      f"({noise['samples']} quanta of its {ompbench['run']['threads_per_rank']} threads, each "
                      "quantum's time over its thread's fastest, less 1; the percentiles at 0.5%, 1.5% ... 99.5%)"}
    return yaml.safe_dump(data, sort_keys=False, width=120, default_flow_style=None)


def host_names(spec: ClusterSpec) -> list[str]:
    """The platform's hosts, one per node, as SMPI hostfiles name them."""
    return [f"{spec.key}-{k}" for k in range(spec.nodes)]


def platform_xml(spec: ClusterSpec, profiles: str = "") -> str:
    """A SimGrid platform (version 4.1) for the description. Host speed is 1 Gflop/s so that the compute model's
    seconds replay as gigaflops (simulate.traces). A message between nodes crosses two private links (the
    sender's and the receiver's), so each gets half the described latency: the description's figure is what a
    message costs end to end, as a ping-pong measures it. Where the description gives a time per message, the
    links' latency is the rest: the replay's padding of each message between nodes (ClusterSpec.interface) supplies
    it. The links' bandwidth is the node's (link_bandwidth: the description's, but for an aggregate).
    `profiles`: SimGrid <trace> and <trace_connect> elements (simulate.noise), after the zone."""
    wire = spec.latency.value - (spec.per_message.value if spec.per_message else 0.0)
    attributes = {
        "id": spec.key, "prefix": f"{spec.key}-", "suffix": "", "radical": f"0-{spec.nodes - 1}", "speed": "1Gf",
        "core": str(spec.cores_per_node), "lat": f"{wire / 2:.9g}s",
        "bw": spec.bandwidth.text if spec.aggregate is None else f"{spec.link_bandwidth():.9g}Bps",
        "loopback_bw": spec.intra_bandwidth.text, "loopback_lat": spec.intra_latency.text,
    }
    if spec.topology.kind == "fat-tree":
        p = spec.topology.parameters
        levels = p[0]
        groups = [",".join(map(str, p[1 + k * levels:1 + (k + 1) * levels])) for k in range(3)]
        attributes |= {"topology": "FAT_TREE", "topo_parameters": f"{levels};{';'.join(groups)}"}
    elif spec.topology.kind == "torus":
        attributes |= {"topology": "TORUS", "topo_parameters": ",".join(map(str, spec.topology.parameters))}
    cluster = " ".join(f'{k}="{html.escape(v)}"' for k, v in attributes.items())  # xml.sax: 30 ms to import
    return ("<?xml version='1.0'?>\n"
            "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
            f"<!-- {spec.name}: written by hybridperf from the description {spec.key}.yaml -->\n"
            "<platform version=\"4.1\">\n"
            "  <zone id=\"world\" routing=\"Full\">\n"
            f"    <cluster {cluster}/>\n"
            "  </zone>\n"
            f"{profiles}"
            "</platform>\n")
