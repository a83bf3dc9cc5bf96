"""What a valid spec must also satisfy before anything runs: every configuration exists at some scale and
fits its nodes, the backend has the nodes, and the kernel accepts the rank counts for each parameter set.

The kernel's checks are asked of the kernel itself: `--check-args` (its arguments parsed as a run parses them)
for every parameter set, then `--check-decomposition` (for a kernel whose decomposition
depends on the threads too, the `--plan` a run of each point would make), which runs the decomposition a
real run would run — MPI_Dims_create of its own MPI library, the box of the lattice or of the data
file — and answers without computing anything; nothing here re-derives its geometry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from hybridperf.launch import kernels
from hybridperf.shapes import split_placement
from hybridperf.study import params as options
from hybridperf.study.expand import combinations
from hybridperf.study.registry import kind_of

if TYPE_CHECKING:
    from hybridperf.study.spec import SpecError, Study


def check(study: Study, error: Callable[[tuple, str], SpecError]) -> None:
    design = study.design
    where = (design.axis,)
    try:
        points = design.points()
    except ValueError as err:
        raise error(where, str(err)) from None
    for config in study.configurations:
        if not any(_spec_name(study, p.configuration) == config for p in points):
            raise error(("configurations", study.configurations.index(config)),
                        f"{config} exists at none of the {design.axis} counts given")
    for p in points:
        line = ("configurations", study.configurations.index(_spec_name(study, p.configuration)))
        at = f"{p.configuration} at {p.scale} {_unit(design.axis, p.scale)}"
        if p.ranks_per_node * p.threads > study.cores_per_node and not study.oversubscribe and \
                split_placement(p.configuration)[1] != "oversubscribe":
            raise error(line, f"{at} puts {p.ranks_per_node} ranks x {p.threads} threads on "
                              f"{study.cores_per_node}-core nodes; set oversubscribe: true to allow it")
        most = kind_of(study.backend).nodes
        if most is not None and p.nodes > most:
            raise error(where, f"{at} needs {p.nodes} nodes; the {study.backend} backend has "
                               f"{'one' if most == 1 else most} "
                               "(use backend: slurm)")
        if p.nodes > 1 and study.app is not None and study.app.get("launch") == "self":
            raise error(where, f"{at} needs {p.nodes} nodes; a program that starts its own ranks (launch: self) "
                               "runs on one")
    if study.app is not None:
        return  # an app's own decomposition cannot be asked in advance
    _check_args(study, error)
    if study.kernel in kernels.PLACED_PLANS:
        _check_placed(study, points, error)
    if not kernels.checks_decomposition(study.kernel):
        return
    for params in combinations(study):
        for config in study.configurations:
            mine = [p for p in points if _spec_name(study, p.configuration) == config]
            args = options.to_args({**params, **study.configuration_params.get(config, {})})
            try:
                verdicts = kernels.check_decomposition(study.kernel, tuple(args),
                                                       tuple(sorted({p.nodes * p.ranks_per_node for p in mine})))
            except kernels.KernelRefused as err:
                raise error(("params",), f"hybridperf-{study.kernel} refuses {' '.join(args)}: {err}") from None
            for p in mine:
                refusal = verdicts[p.nodes * p.ranks_per_node]
                if refusal:
                    which = ", ".join(f"{k}={v}" for k, v in params.items())
                    at = f"{config} at {p.scale} {_unit(design.axis, p.scale)}"
                    raise error(("params",), f"{at} with {which}: {refusal}")


def _check_args(study: Study, error: Callable[[tuple, str], SpecError]) -> None:
    """Every parameter set with each configuration's own options, parsed by the kernel as a run would parse it
    (`--check-args`: combinations of options its table alone cannot judge), before anything runs."""
    for params in combinations(study):
        for config in study.configurations:
            args = options.to_args({**params, **study.configuration_params.get(config, {})})
            try:
                kernels.check_args(study.kernel, tuple(args))
            except kernels.KernelRefused as err:
                own = study.configuration_params.get(config)  # the configuration's own options, or the params'
                raise error(("configurations", study.configurations.index(config)) if own else ("params",),
                            f"{config}: hybridperf-{study.kernel} refuses {' '.join(args)}: {err}") from None


def _check_placed(study: Study, points: list, error: Callable[[tuple, str], SpecError]) -> None:
    """A kernel whose decomposition depends on ranks per node and threads (spmv's --mode hybrid needs two
    threads or more) is asked, point by point, for the plan a run would make: its refusal is the run's."""
    for params in combinations(study):
        for p in points:
            own = study.configuration_params.get(_spec_name(study, p.configuration), {})
            args = options.to_args({**params, **own})
            try:
                kernels.plan(study.kernel, tuple(args), p.nodes * p.ranks_per_node, p.ranks_per_node, p.threads)
            except kernels.KernelRefused as err:
                which = ", ".join(f"{k}={v}" for k, v in params.items())
                at = f"{p.configuration} at {p.scale} {_unit(study.design.axis, p.scale)}"
                raise error(("configurations", study.configurations.index(_spec_name(study, p.configuration))),
                            f"{at} with {which}: hybridperf-{study.kernel} refuses it: {err}") from None


def _spec_name(study: Study, configuration: str) -> str:
    """The spec's name of a design point's configuration: as written (pure-mpi@spread), or without the placement
    the axis gave it (pure-mpi)."""
    return configuration if configuration in study.configurations else split_placement(configuration)[0]


def _unit(axis: str, scale: int) -> str:
    return axis[:-1] if scale == 1 else axis  # "1 core", "2 cores"
