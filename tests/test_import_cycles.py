"""No two zero_tui modules import each other, directly or around a loop.

Imports are read from the source with ast, so an import inside a function (the kind that
hides a cycle from the interpreter until the function runs) counts like a top-level one.
Imports under `if TYPE_CHECKING:` never run and do not count.
"""

from __future__ import annotations

import ast
import pkgutil
from collections.abc import Iterable, Iterator
from pathlib import Path

import zero_tui

PACKAGE_DIR = Path(zero_tui.__file__).parent

# Every module of the package: each one's imports of any zero_tui module are followed.
CHECKED_PREFIXES = ("zero_tui",)


def all_modules() -> dict[str, Path]:
    """Every zero_tui module, named as it is imported, with its source file."""
    modules = {"zero_tui": PACKAGE_DIR / "__init__.py"}
    for info in pkgutil.walk_packages([str(PACKAGE_DIR)], prefix="zero_tui."):
        relative = Path(*info.name.split(".")[1:])
        if info.ispkg:
            modules[info.name] = PACKAGE_DIR / relative / "__init__.py"
        else:
            modules[info.name] = PACKAGE_DIR / relative.with_suffix(".py")
    return modules


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            yield from (inner for child in node.orelse for inner in _import_nodes(child))
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        yield from _import_nodes(node)


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def imported_modules(module: str, source: Path, known: Iterable[str]) -> set[str]:
    """The zero_tui modules that `module` imports anywhere in its source."""
    known_names = set(known)
    tree = ast.parse(source.read_text(encoding="utf-8"), filename=str(source))
    is_package = source.name == "__init__.py"
    found: set[str] = set()
    for node in _import_nodes(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known_names)
            continue
        target = _absolute(module, is_package, node)
        # `from package import submodule` imports the submodule; a name imports the target
        submodules = {f"{target}.{alias.name}" for alias in node.names} & known_names
        found.update(submodules)
        if len(submodules) < len(node.names) and target in known_names:
            found.add(target)
    found.discard(module)
    return found


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import loop in the graph, as the modules around it, or None (depth-first)."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path = [start]
        pending = [iter(sorted(graph[start]))]
        while pending:
            following = next(pending[-1], None)
            if following is None:
                done.add(path.pop())
                pending.pop()
            elif following in path:
                return [*path[path.index(following) :], following]
            elif following in graph and following not in done:
                path.append(following)
                pending.append(iter(sorted(graph[following])))
    return None


def import_graph(prefixes: tuple[str, ...]) -> dict[str, set[str]]:
    modules = all_modules()
    checked = {
        name: path
        for name, path in modules.items()
        if any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)
    }
    return {name: imported_modules(name, path, modules) for name, path in checked.items()}


def test_the_package_has_no_import_cycle() -> None:
    graph = import_graph(CHECKED_PREFIXES)
    assert "zero_tui.store.gojson" in graph  # the walk found the modules at all
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_checker_sees_a_cycle_through_a_lazy_import(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.b import helper\n")
    (package / "b.py").write_text("def helper():\n    from pkg import a\n")
    (package / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n"
    )
    known = ["pkg", "pkg.a", "pkg.b", "pkg.c"]
    graph = {
        name: imported_modules(name, package / f"{name.split('.')[1]}.py", known)
        for name in known[1:]
    }
    assert graph == {"pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}, "pkg.c": set()}
    assert find_cycle(graph) == ["pkg.a", "pkg.b", "pkg.a"]
    assert find_cycle({"pkg.a": {"pkg.b"}, "pkg.b": set()}) is None
