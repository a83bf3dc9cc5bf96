"""Writes the counting library's wrappers, C and Fortran, from routines.py (CMake runs it at build time).

    python3 wrappers.py C_FILE [FORTRAN_FILE]

The C file has MPI_<Name> for every routine; the Fortran one, Open MPI's mpi_<name>_ and its other names
(fortran.h), each calling Open MPI's Fortran PMPI routine with its arguments untouched. Both wrap the call in
the macro of its form (pmpi.h: HP_TRACED, HP_STARTED_TRACED, HP_PERSISTENT_TRACED, or their untraced forms).
An expression that names a parameter the Fortran binding cannot read stops the build, naming the routine.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from routines import ROUTINES, Routine

HEADER = ("/* Written by kernels/pmpi/wrappers.py from kernels/pmpi/routines.py when the library is built: edit "
          "those. */\n")

# How a C parameter's value is read in the Fortran binding, where every argument is a pointer
FORTRAN_VALUE = {"int": "*{}", "MPI_Datatype": "hp_f_type({})", "MPI_Comm": "hp_f_comm({})", "const int []": "{}"}
FORTRAN_FUNCTIONS = {"hp_in_place": "hp_f_in_place"}
TOKEN = re.compile(r'"[^"]*"|[A-Za-z_]\w*')


def parameters(routine: Routine) -> list[tuple[str, str]]:
    """(C type, name) of each parameter; an array's type ends in "[]": "const int []"."""
    found = []
    for declaration in routine.params.split(","):
        match = re.fullmatch(r"\s*(.*?[\s*])(\w+)(\[\])?\s*", declaration)
        if not match:
            raise ValueError(f"MPI_{routine.name}: cannot read the parameter {declaration!r}")
        kind, name, array = match.groups()
        found.append((kind.strip() + (" []" if array else ""), name))
    return found


def fortran_expression(routine: Routine, text: str) -> str:
    """A C expression of the routine's parameters, as the Fortran binding reads them."""
    kinds = dict((name, kind) for kind, name in parameters(routine))
    if routine.reads_status:
        kinds["status"] = "status"

    def word(match: re.Match[str]) -> str:
        token = match.group(0)
        if token in FORTRAN_FUNCTIONS:
            return FORTRAN_FUNCTIONS[token]
        if token not in kinds or token.startswith('"'):
            return token
        if kinds[token] == "status":
            return "hp_f_status(st, &c_status)"
        if kinds[token] in ("void *", "const void *"):
            return token  # a buffer's address, as given
        if kinds[token] not in FORTRAN_VALUE:
            raise ValueError(f"MPI_{routine.name}: the Fortran binding cannot read {token} ({kinds[token]}) in "
                             f"{text!r}: give the routine a fortran_ expression")
        return FORTRAN_VALUE[kinds[token]].format(token)

    return TOKEN.sub(word, text)


def body(routine: Routine, call: str, handle: str, count: str, trace: str | None) -> str:
    """The macro of the routine's form, over its call, as one expression."""
    if routine.form == "persistent":
        assert routine.cls == "HP_P2P", routine.name
        what = [str(routine.messages), count, handle, call]
        macro = "HP_PERSISTENT"
    else:
        what = [routine.cls, str(routine.messages), count] + ([handle] if routine.form == "started" else []) + [call]
        macro = {"blocking": "HP_COUNTED", "started": "HP_STARTED"}[routine.form]
    if trace is not None:
        macro = "HP_TRACED" if macro == "HP_COUNTED" else macro + "_TRACED"
        what.append(trace)
    return f"{macro}({', '.join(what)})"


def arguments(routine: Routine) -> str:
    names = [name for _, name in parameters(routine)]
    return ", ".join("st" if routine.reads_status and name == "status" else name for name in names)


def c_wrapper(routine: Routine) -> str:
    trace = routine.trace
    if trace and routine.reads_status:  # the status the wrapper supplies when the program ignores it
        trace = re.sub(r"\bstatus\b", "st", trace)
    prelude = "    MPI_Status own, *st = hp_trace_status(status, &own);\n" if routine.reads_status else ""
    call = f"PMPI_{routine.name}({arguments(routine)})"
    return (f"int MPI_{routine.name}({routine.params})\n{{\n{prelude}"
            f"    return {body(routine, call, '*req', routine.bytes, trace)};\n}}\n")


def fortran_parameters(routine: Routine) -> str:
    def one(kind: str, name: str) -> str:
        if kind.endswith("void *"):
            return f"void *{name}"
        return f"MPI_Aint *{name}" if kind == "MPI_Aint" else f"F *{name}"
    return ", ".join([one(kind, name) for kind, name in parameters(routine)] + ["F *ierr"])


def fortran_wrapper(routine: Routine) -> str:
    lower = routine.name.lower()
    prelude = ("    F own[HP_F_STATUS], *st = hp_f_status_for(status, own);\n    MPI_Status c_status;\n"
               if routine.reads_status else "")
    call = f"(pmpi_{lower}_({arguments(routine)}, ierr), hp_f_rc(ierr))"
    count = routine.fortran_bytes or fortran_expression(routine, routine.bytes)
    trace = routine.fortran_trace or (routine.trace and fortran_expression(routine, routine.trace))
    return (f"void pmpi_{lower}_({fortran_parameters(routine)});\n"
            f"void mpi_{lower}_({fortran_parameters(routine)})\n{{\n{prelude}"
            f"    {body(routine, call, 'hp_f_request(req)', count, trace)};\n}}\n"
            f"HP_FORTRAN_NAMES(mpi_{lower}, MPI_{routine.name.upper()})\n")


def main(c_file: str, fortran_file: str | None = None) -> None:
    Path(c_file).write_text(HEADER + '#include "pmpi.h"\n\n' + "\n".join(map(c_wrapper, ROUTINES)))
    if fortran_file:
        Path(fortran_file).write_text(HEADER + '#include "fortran.h"\n\n' + "\n".join(map(fortran_wrapper, ROUTINES)))


if __name__ == "__main__":
    main(*sys.argv[1:])
