"""A study without a file: `hybridperf compare`'s race of a kernel's splits on this node, written as the spec a
user would have written and parsed by the same validation (study.spec), so that it runs, stores, resumes and
reports as every study does (study.run). Pure but for the kernel's option table."""

from __future__ import annotations

from typing import Any

import yaml

from hybridperf.launch import kernels
from hybridperf.study import spec
from hybridperf.study.params import params_of_args


def compare_spec(kernel: str, args: list[str], splits: list[tuple[int, int]], cores: int, rule: dict[str, Any],
                 results: str) -> str:
    """The spec text: every split as RANKSxTHREADS on one node (so that all of them race each other, 1x1 too),
    oversubscribed where a split wants more threads than the node has cores. ValueError for arguments the kernel
    does not take."""
    params = params_of_args(kernel, kernels.options(kernel), args)
    data = {
        "study": f"compare-{kernel}",
        "kernel": kernel,
        "description": f"hybridperf compare {kernel} {' '.join(args)}".strip(),
        "params": params,
        "configurations": [f"{r}x{t}" for r, t in splits],
        "nodes": [1],
        "oversubscribe": any(r * t > cores for r, t in splits),
        "decide": rule,
        "results": results,
    }
    return yaml.safe_dump(data, sort_keys=False)


def compare_study(kernel: str, args: list[str], splits: list[tuple[int, int]], cores: int, rule: dict[str, Any],
                  results: str) -> spec.Study:
    return spec.parse(compare_spec(kernel, args, splits, cores, rule, results), "hybridperf compare", cores)
