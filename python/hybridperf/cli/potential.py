"""`hybridperf potential ...`: analytic potentials written as LAMMPS eam/fs files, for hybridperf-md and LAMMPS."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from hybridperf.cli.ui import console, fail
from hybridperf.files import write_atomic
from hybridperf.potentials import params, setfl
from hybridperf.report import potential_table
from hybridperf.report.terminal import rich_table

potential_app = typer.Typer(help="Analytic potentials tabulated as LAMMPS eam/fs (setfl) files (docs/potentials.md).",
                            no_args_is_help=True)


@potential_app.command("list")
def list_command() -> None:
    """Every form that can be written: its elements, source and parameter file."""
    found = []
    for form in params.FORMS:
        try:
            p = params.load(form)
        except params.PotentialError as err:
            fail(str(err))
        found.append((form, p.title, list(p.elements), p.citation, p.path))
    console.print(rich_table(*potential_table.table(str(params.DATA), found), left=5))


@potential_app.command("write")
def write_command(
    form: Annotated[str, typer.Argument(help=f"The form: {', '.join(params.FORMS)} (hybridperf potential list).")],
    elements: Annotated[str, typer.Option(help="Comma-separated elements, in the file's order: the order "
                                               "hybridperf-md --elements and LAMMPS pair_coeff name them.")],
    out: Annotated[Path, typer.Option(help="The setfl file to write.")],
    shells: Annotated[Optional[int], typer.Option(min=1, help="gupta: each pair's smooth tail runs from its fcc "
                                                              "neighbour shell SHELLS to SHELLS + 1 (default: the "
                                                              "parameter file's). dai-fs has no tail.")] = None,
) -> None:
    """Tabulate FORM for the elements and write it as a LAMMPS eam/fs file, e.g.
    `hybridperf potential write gupta --elements Cu,Au --out CuAu.eam.fs` or
    `hybridperf potential write dai-fs --elements Cu --out Cu.dai.eam.fs`."""
    try:
        p = params.load(form)
        names = [e.strip() for e in elements.split(",") if e.strip()]
        model, comments = params.build(p, names, shells)
        text = setfl.render(model, comments)
    except params.PotentialError as err:
        fail(str(err))
    try:
        out.parent.mkdir(parents=True, exist_ok=True)  # results/potentials/, as studies/dlpoly-tests.yaml expects
        write_atomic(out, text)
    except OSError as err:
        fail(f"cannot write {out}: {err.strerror}")
    console.print(f"{out}: {p.title}, {', '.join(names)}, cutoff {model.cutoff:.4f} Angstrom; run it with "
                  f"`hybridperf-md --potential eam/fs --potential-file {out} --elements {','.join(names)}` or "
                  f"LAMMPS `pair_style eam/fs` + `pair_coeff * * {out} {' '.join(names)}`", highlight=False)
