"""The package's layers import one way (docs/architecture.md): pure analysis and models never reach for a
launcher, a backend, the store or the CLI, and nothing below the CLI imports it. Read from the source with
ast, imports inside functions included, so a shortcut taken anywhere fails here."""

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).parents[1]
PACKAGE = REPO / "python" / "hybridperf"

# layer -> the layers it may import (itself always)
ALLOWED = {
    "resources": set(),
    "shapes": set(),
    "profile": set(),
    "cluster": {"resources"},
    "files": set(),
    "potentials": {"resources"},
    "analysis": {"shapes", "profile"},
    "models": {"analysis", "shapes", "profile", "cluster", "resources"},
    "report": {"analysis", "models", "shapes", "profile", "files"},
    "store": {"shapes", "profile", "files"},
    "launch": {"shapes", "profile", "files"},  # runner marks each copy's profile (run --copies), written whole
    "app": {"launch", "shapes", "profile"},
    "study": {"app", "launch", "store", "analysis", "shapes", "profile", "files", "resources", "cluster"},
    # simulate writes the potential tables its seeds' workloads need (validate_dlpoly's Gupta Cu-Au)
    "simulate": {"study", "launch", "store", "analysis", "models", "shapes", "profile", "cluster", "files",
                 "potentials"},
    "predict": {"simulate", "study", "store", "launch", "analysis", "models", "report", "shapes", "profile", "cluster"},
    "cli": {"predict", "simulate", "study", "app", "launch", "store", "analysis", "models", "report", "shapes", "profile",
            "cluster", "files", "potentials", "resources"},
}


def layer_of(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return parts[0]


def imported_layers(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module + "." + a.name for a in node.names] if node.module == "hybridperf" else [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "hybridperf" and len(parts) > 1 and parts[1] != "__version__":
                found.add(parts[1])
    return found


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.name not in ("__main__.py",) and p.parent != PACKAGE
                 or p.stem in ALLOWED)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_run_one_way(path):
    layer = layer_of(path)
    assert layer in ALLOWED, f"{path}: a module outside the known layers; add its layer to docs/architecture.md"
    wrong = imported_layers(path) - ALLOWED[layer] - {layer}
    assert not wrong, f"{path.relative_to(PACKAGE)} ({layer}) imports {', '.join(sorted(wrong))}"


def test_the_check_sees_a_wrong_import(tmp_path):
    planted = tmp_path / "x.py"
    planted.write_text("def f():\n    from hybridperf.store.db import Store\n")
    assert imported_layers(planted) == {"store"}


def test_every_module_of_the_package_is_checked():
    """The parametrised check above runs once per module found; an empty list would pass unseen."""
    assert len(MODULES) > 80 and {layer_of(p) for p in MODULES} == set(ALLOWED)


def test_the_architecture_page_shows_every_layer_with_its_imports_and_every_kernel_folder():
    """docs/architecture.md's table of layers says what this file allows, layer by layer; its kernels' table names
    every folder of kernels/."""
    page = (REPO / "docs" / "architecture.md").read_text()
    rows = {m[1]: m[2] for m in re.finditer(r"^\| `([a-z_]+)(?:\.py|/)` \|.*\| ([^|]+) \|$", page, re.MULTILINE)}
    documented = {layer: set(ALLOWED) - {layer} if imports.strip() == "everything" else
                  set(re.findall(r"`(\w+)`", imports)) for layer, imports in rows.items() if layer in ALLOWED}
    assert documented == ALLOWED
    folders = sorted(p.name for p in (REPO / "kernels").iterdir() if p.is_dir())
    assert len(folders) >= 8 and [f for f in folders if f"| `{f}/` |" not in page] == []


def imported_modules(path: Path) -> set[str]:
    """The package's modules a module imports (anywhere in it but under `if TYPE_CHECKING`), as dotted names below
    hybridperf: `from a import b` counts as a.b where a/b.py exists, else as a."""
    found = set()
    tree = ast.parse(path.read_text())
    typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If)
                   and ast.unparse(block.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
                   for n in ast.walk(block)}  # for annotations only: no order of loading
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("hybridperf"):
            for a in node.names:
                name = f"{node.module}.{a.name}"
                found.add(name if (PACKAGE.parent / (name.replace(".", "/") + ".py")).exists() else node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("hybridperf.")}
    return {n for n in found if n != "hybridperf"}


def dotted(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each cycle found by a depth-first walk, as the modules on it."""
    found, state = [], {}

    def walk(node: str, stack: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                found.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                walk(nxt, stack + [nxt])
        state[node] = "done"

    for start in sorted(graph):
        if start not in state:
            walk(start, [start])
    return found


def test_no_module_imports_itself_around_a_cycle_inside_a_layer():
    """Within a layer, modules import one another one way too (a cycle is an order nobody can read in)."""
    graph = {dotted(p): imported_modules(p) for p in MODULES}
    layer = lambda name: name.split(".")[1]  # noqa: E731
    inside = {m: {n for n in deps if n in graph and n != m and layer(n) == layer(m)} for m, deps in graph.items()}
    assert sum(map(len, inside.values())) > 50  # the walk sees the edges
    assert cycles(inside) == []


def test_the_cycle_check_sees_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]


def test_every_class_name_is_unique_across_the_package():
    """Two classes of one name (four `Point`s once) make every import a question of which one."""
    where: dict[str, list[str]] = {}
    for path in MODULES:
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef):
                where.setdefault(node.name, []).append(str(path.relative_to(PACKAGE)))
    assert len(where) > 100
    assert {name: paths for name, paths in where.items() if len(paths) > 1} == {}


BENCH = sorted((REPO / "bench").glob("*.py"))


def test_bench_imports_the_installed_package_never_a_path_of_its_own():
    """bench/ runs under the project's venv, where the package is installed: no sys.path.insert; and it reaches the
    CLI only as a user does, by a command (cli.app, which typer's runner runs in-process), never for a helper."""
    assert len(BENCH) > 20
    assert [p.name for p in BENCH if "sys.path.insert" in p.read_text()] == []
    reaching = {p.name: sorted(n for n in imported_modules(p) if n.startswith("hybridperf.cli")
                               and n != "hybridperf.cli.app") for p in BENCH}
    assert {name: mods for name, mods in reaching.items() if mods} == {}


def imported_packages(path: Path) -> set[str]:
    """The top-level packages a module imports, anywhere in it (`from rich.markup import escape`: rich)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
    return found


def test_the_study_layer_prints_nothing_of_its_own():
    """study/ reports a campaign's progress to the observer it is given (study.run's Observer): the console, rich,
    is the CLI's alone."""
    modules = sorted((PACKAGE / "study").rglob("*.py"))
    assert len(modules) > 10
    assert [str(p.relative_to(PACKAGE)) for p in modules if "rich" in imported_packages(p)] == []


def test_the_rich_check_sees_rich_imported_inside_a_function(tmp_path):
    planted = tmp_path / "x.py"
    planted.write_text("def f():\n    from rich.progress import Progress\n    import rich.console\n")
    assert imported_packages(planted) == {"rich"}
