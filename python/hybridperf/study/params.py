"""Kernel options in a study spec: each value checked against the option table the kernel itself describes
(`hybridperf-KERNEL --options`), and turned back into command-line arguments.

A spec value is a sweep when it is a list of alternatives. Options whose single value is itself a list
(`grid: [2, 1, 1]`, an int3; `sizes: [8, 1M]`, a list) are swept by a list of such lists. Inside a
Study every option therefore holds a list of alternatives, one of them for a fixed value, so that
expansion never has to guess whether a list is one value or several.
"""

from __future__ import annotations

import difflib
from typing import Any, Callable

RESERVED = {"profile", "write-data", "dump-forces", "options", "help", "version", "build-info", "check-decomposition",
            "check-args"}
LIST_VALUED = {"int3", "list"}  # option types whose one value is a list


def suggest(word: str, choices) -> str:
    close = difflib.get_close_matches(word, sorted(choices), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def option_name(key: Any) -> str:
    """A spec key as the kernel's option name: `neigh_every` and `neigh-every` are the same option."""
    return str(key).replace("_", "-")


def check_value(option: dict[str, Any], value: Any) -> str | None:
    """Why `value` is not a valid value of the option, or None."""
    kind, name = option["type"], option["name"]
    if kind == "flag":
        ok = isinstance(value, bool)
    elif kind == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif kind == "real":
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif kind == "int3":
        ok = isinstance(value, list) and len(value) == 3 and all(isinstance(v, int) and not isinstance(v, bool)
                                                                  for v in value)
    elif kind == "value":  # an app's parameter: any one scalar
        ok = isinstance(value, (str, int, float, bool)) and value != ""
    elif kind == "list":
        ok = (isinstance(value, list) and value and all(isinstance(v, (str, int)) and str(v) != "" for v in value)) \
            or (isinstance(value, str) and value != "")
    else:
        ok = isinstance(value, str) and value != ""
    if not ok:
        return f"{name} takes a value of type {kind}, got {value!r}"
    if kind == "choice" and value not in option["choices"].split("|"):
        return f"{name} must be one of {option['choices']}, got {value!r}"
    if option["min"] is not None and kind in ("int", "real", "int3"):
        for v in value if kind == "int3" else [value]:
            if v < option["min"] or (option["min_exclusive"] and v == option["min"]):
                sign = ">" if option["min_exclusive"] else ">="
                return f"{name} must be {sign} {option['min']:g}, got {v}"
    return None


def alternatives(option: dict[str, Any], value: Any) -> list[Any]:
    """The values a spec entry stands for: several for a sweep, one otherwise."""
    if not isinstance(value, list):
        return [value]
    if option["type"] in LIST_VALUED and not any(isinstance(v, list) for v in value):
        return [value]  # one list-valued value, e.g. grid: [2, 1, 1]
    return value


def normalise(option: dict[str, Any], value: Any) -> Any:
    """A checked value as a run stores it: a list option as its command-line text ("8,1M"), so that the only
    lists left in a run's parameters are int3 triples."""
    if option["type"] == "list" and isinstance(value, list):
        return ",".join(map(str, value))
    return value


def lookup(table: dict[str, dict[str, Any]], kernel: str, key: Any, error: Callable[[str], Exception]) -> dict:
    """The option a spec key names, or the error to raise."""
    name = option_name(key)
    if name in RESERVED:
        raise error(f"{name} is set by hybridperf itself and cannot be a study parameter")
    if name not in table:
        raise error(f"{kernel} has no option '{key}'{suggest(name, table)} (see hybridperf-{kernel} --help)")
    return table[name]


def to_args(params: dict[str, Any]) -> list[str]:
    """One run's parameters as the kernel's command-line arguments."""
    args: list[str] = []
    for name, value in params.items():
        if value is True:
            args.append(f"--{name}")
        elif value is False or value is None:
            continue
        elif isinstance(value, tuple | list):  # an int3
            args += [f"--{name}", *map(str, value)]
        else:
            args += [f"--{name}", str(value)]
    return args


def params_of_args(kernel: str, table: tuple[dict[str, Any], ...], args: list[str]) -> dict[str, Any]:
    """A kernel's command-line arguments (`-s 20 --steps 50`, `--grid 2 1 1`, `--flag`, `--name=value`, positional
    values) as the parameters of a study: names as the option table gives them, values of its types. ValueError,
    in one line, for what the table does not know."""
    by_name = {o["name"]: o for o in table}
    by_short = {o["short"]: o for o in table if o.get("short")}
    positional = [o for o in table if o["positional"]]
    out: dict[str, Any] = {}
    rest = list(args)
    while rest:
        token = rest.pop(0)
        if token.startswith("--") or (token.startswith("-") and len(token) > 1 and not _number(token)):
            key, eq, inline = token.lstrip("-").partition("=")
            option = by_name.get(key) if token.startswith("--") else by_short.get(key)
            if option is None:
                names = [*by_name, *by_short]
                raise ValueError(f"{kernel} has no option '{token}'{suggest(key, names)} (see hybridperf-{kernel} "
                                 "--help)")
            if option["name"] in RESERVED:
                raise ValueError(f"{option['name']} is set by hybridperf itself")
            if option["type"] == "flag":
                out[option["name"]] = True
                continue
            count = 3 if option["type"] == "int3" else 1
            values = [inline] if eq else [rest.pop(0) for _ in range(min(count, len(rest)))]
            if len(values) < count:
                raise ValueError(f"--{option['name']} needs {count} value{'s' if count > 1 else ''}")
            out[option["name"]] = _typed(option, values)
        else:
            taken = sum(o["name"] in out for o in positional)
            if taken >= len(positional):
                raise ValueError(f"{kernel} takes {len(positional)} positional values, got another: '{token}'")
            out[positional[taken]["name"]] = _typed(positional[taken], [token])
    return out


def _number(token: str) -> bool:
    try:
        float(token)
        return True
    except ValueError:
        return False


def _typed(option: dict[str, Any], values: list[str]) -> Any:
    """Command-line text as the option's type (int, real, int3; text otherwise), or ValueError."""
    kind = option["type"]
    try:
        if kind == "int":
            return int(values[0])
        if kind == "real":
            return float(values[0])
        if kind == "int3":
            return [int(v) for v in values]
    except ValueError:
        raise ValueError(f"--{option['name']} takes a value of type {kind}, got {' '.join(values)!r}") from None
    return values[0]
