"""The CLI is thin (issue "a thin CLI"): no module of python/hybridperf/cli/ builds a rich Table itself; every table
is a (title, headers, rows) value made in report/ and drawn by report.terminal.rich_table. Read from the source
with ast, imports and calls inside functions included."""

import ast
from pathlib import Path

import pytest

CLI = Path(__file__).parents[1] / "python" / "hybridperf" / "cli"
MODULES = sorted(CLI.glob("*.py"))


def inline_tables(source: str) -> list[str]:
    """What in a module's source builds a rich Table: each import of rich.table, each call of a name `Table`
    (rich.table.Table, however imported), with its line."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            prefix = f"{node.module}." if isinstance(node, ast.ImportFrom) and node.module else ""
            found += [f"line {node.lineno}: imports {prefix}{a.name}" for a in node.names
                      if f"{prefix}{a.name}".startswith("rich.table")]
        elif isinstance(node, ast.Call):
            called = node.func.id if isinstance(node.func, ast.Name) else \
                node.func.attr if isinstance(node.func, ast.Attribute) else None
            if called == "Table":
                found.append(f"line {node.lineno}: Table(...)")
    return found


def test_every_module_of_the_cli_is_checked():
    assert len(MODULES) > 8 and {"app.py", "simulate.py", "model.py"} <= {p.name for p in MODULES}


@pytest.mark.parametrize("planted, count", [
    ("from rich.table import Table\n\ndef show():\n    t = Table(title='x')\n", 2),
    ("def show():\n    import rich.table\n    return rich.table.Table()\n", 2),
    ("from rich import box, table as t\n\ndef show():\n    return t.Table(box=box.SIMPLE)\n", 2),
    ("from hybridperf.report.terminal import rich_table\n\ndef show():\n    return rich_table('x', ['a'], [])\n", 0),
])
def test_the_check_sees_a_table_built_inline(planted, count):
    assert len(inline_tables(planted)) == count


BACKENDS = ("local", "slurm", "simgrid")


def backend_compares(source: str) -> list[str]:
    """Each comparison of something with a backend's name (`x == "simgrid"`, `x in ("local", ...)`), with its
    line: the registry (study.registry) is where a backend is chosen."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            names = [c.value for c in ast.walk(node) if isinstance(c, ast.Constant) and c.value in BACKENDS]
            if names:
                found.append(f"line {node.lineno}: compares with {', '.join(names)}")
    return found


def backends_made(source: str) -> list[str]:
    """Each call of a class whose name ends in Backend, with its line: the CLI asks the registry
    (registry.backend_for) for the backend a study names."""
    return [f"line {node.lineno}: {node.func.id}(...)" for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.endswith("Backend")]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_cli_module_builds_a_table_or_chooses_a_backend_by_its_name(path):
    source = path.read_text()
    assert inline_tables(source) == [], f"{path.name}: build the table in report/ (rich_table draws it)"
    assert backend_compares(source) == [], f"{path.name}: look the backend up (registry.kind_of)"
    assert backends_made(source) == [], f"{path.name}: get the backend from registry.backend_for"


# launch/ names launchers (openmpi, mpich, slurm: srun), not study backends
PACKAGE_MODULES = sorted(p for p in (Path(__file__).resolve().parents[1] / "python" / "hybridperf").rglob("*.py")
                         if p.name != "registry.py" and p.parent.name != "launch")


def test_no_module_outside_the_registry_chooses_a_backend_by_its_name():
    """Issue 43: the registry (study/registry.py) looks a backend up; elsewhere what a backend is comes from its
    Kind (exact, launches, nodes), and whether a run is a replay from its profile (profile.simulated)."""
    assert PACKAGE_MODULES
    found = {p.name: backend_compares(p.read_text()) for p in PACKAGE_MODULES}
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_the_check_sees_a_backend_chosen_by_name():
    assert len(backend_compares("def f(study):\n    return study.backend == 'simgrid'\n")) == 1
    assert backend_compares("def f(study):\n    return kind_of(study.backend).exact\n") == []
    assert backends_made("def f(study, d):\n    return SimGridBackend(study, d)\n") == ["line 2: SimGridBackend(...)"]
    assert backends_made("def f(study, d):\n    return backend_for(study, d)\n") == []
