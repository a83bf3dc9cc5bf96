"""`hybridperf potential list`'s table: the analytic potentials that can be written as LAMMPS eam/fs files. Pure."""

from __future__ import annotations

from hybridperf.report.tables import Table


def table(directory: str, potentials: list[tuple[str, str, list[str], str, str]]) -> Table:
    """Per form (form, title, elements, citation, parameter file): the potential it writes, the elements its
    parameters cover, where they are published and the file that holds them."""
    return (f"Analytic potentials in {directory}", ["form", "potential", "elements", "source", "parameters"],
            [[form, title, ", ".join(elements), citation, path]
             for form, title, elements, citation, path in potentials])
