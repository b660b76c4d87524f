"""The non-UI layers import without Textual or Rich (design §1).

Every module of `zero_tui` is found on disk (nothing to list by hand: a new module is
checked the day it is added) and is either UI — a module of the `zero_tui.ui` package — or
must import without Textual or Rich. One fresh interpreter imports them all with Textual
and Rich blocked: a non-UI module that as much as tries to import either is reported, and
so is a UI module that needs neither (it belongs in a lower layer). The order between the
layers is import-linter's contract in pyproject.toml (`test_layers.py` runs it).
"""

from __future__ import annotations

import ast
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path
from typing import TypedDict

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE_DIR = REPO / "zero_tui"

UI_PACKAGE = "zero_tui.ui"
"""Every module under this package is UI (its `__init__`s are not: they stay checked)."""

NOT_IMPORTED = {"zero_tui.__main__": "importing it runs the command line"}
"""Modules the probe cannot import; `test_main_only_imports_checked_modules` covers them."""

PROBE = """
import importlib, json, sys, traceback

BLOCKED = {"textual", "rich"}
attempts = []


class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            attempts.append(name)
            raise ModuleNotFoundError(f"blocked by the hygiene probe: {name}", name=name)
        return None


sys.meta_path.insert(0, Blocker())
for module in sys.argv[1:]:
    attempts.clear()
    error = None
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as failure:
        if failure.name is None or failure.name.partition(".")[0] not in BLOCKED:
            error = traceback.format_exc()
    except BaseException:
        error = traceback.format_exc()
    print(json.dumps({"module": module, "ui": sorted(set(attempts)), "error": error}))
"""


class ProbeReport(TypedDict):
    module: str
    ui: list[str]  # the Textual or Rich modules its import tried to load
    error: str | None  # a failure other than the blocked import


def walk_modules(directory: Path, package: str) -> list[str]:
    """`package` and every module and package under it, from the files in `directory`."""
    names = [package]
    for info in pkgutil.iter_modules([str(directory)]):
        name = f"{package}.{info.name}"
        if info.ispkg:
            names += walk_modules(directory / info.name, name)
        else:
            names.append(name)
    return sorted(names)


def is_package(module: str) -> bool:
    return (REPO / module.replace(".", "/") / "__init__.py").is_file()


def is_ui(module: str) -> bool:
    return module.startswith(f"{UI_PACKAGE}.") and not is_package(module)


def probe(modules: list[str], path: Path = REPO) -> dict[str, ProbeReport]:
    """Import `modules` one after the other in one fresh interpreter, Textual and Rich
    blocked; what each import tried to load. Nothing is ever loaded from the blocked
    packages, so an earlier import cannot hide a later one's."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(path), env.get("PYTHONPATH", "")]))
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *modules],
        cwd=path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, f"the probe failed:\n{result.stderr}"
    reports: list[ProbeReport] = [json.loads(line) for line in result.stdout.splitlines()]
    assert [report["module"] for report in reports] == modules, result.stdout
    return {report["module"]: report for report in reports}


ALL_MODULES = walk_modules(PACKAGE_DIR, "zero_tui")
CHECKED = [name for name in ALL_MODULES if not is_ui(name) and name not in NOT_IMPORTED]
UI = [name for name in ALL_MODULES if is_ui(name)]


@pytest.fixture(scope="module")
def reports() -> dict[str, ProbeReport]:
    return probe([*CHECKED, *UI])


@pytest.mark.parametrize("module", CHECKED)
def test_layer_module_imports_without_ui(module: str, reports: dict[str, ProbeReport]) -> None:
    report = reports[module]
    assert report["error"] is None, f"importing {module} failed:\n{report['error']}"
    assert report["ui"] == [], f"{module} imports {report['ui']}: the layers never import the UI"


@pytest.mark.parametrize("module", UI)
def test_ui_module_really_needs_the_ui(module: str, reports: dict[str, ProbeReport]) -> None:
    report = reports[module]
    assert report["error"] is None, f"importing {module} failed:\n{report['error']}"
    assert report["ui"], (
        f"{module} imports neither Textual nor Rich: move it out of {UI_PACKAGE} to the "
        "layer it belongs to, so that this test keeps it that way"
    )


def test_the_module_lists_are_exact() -> None:
    """The lists name modules that exist, and the walk finds the layers and the UI."""
    assert UI_PACKAGE in ALL_MODULES
    assert set(NOT_IMPORTED) <= set(ALL_MODULES)
    for layer in ("store", "text", "transcript", "search", "picker", "agent", "demo"):
        assert any(name.startswith(f"zero_tui.{layer}.") for name in CHECKED), layer
    for module in ("zero_tui.clipboard", "zero_tui.atomic", "zero_tui.commands", "zero_tui.cli"):
        assert module in CHECKED
    assert "zero_tui.ui.screens.picker" in UI
    assert "zero_tui.ui.widgets.session_list" in UI


def test_main_only_imports_checked_modules() -> None:
    source = (PACKAGE_DIR / "__main__.py").read_text(encoding="utf-8")
    imports = [line for line in source.splitlines() if line.startswith(("import ", "from "))]
    assert imports == ["from zero_tui.cli import run"]
    assert "zero_tui.cli" in CHECKED


def test_the_walk_and_the_probe_would_see_a_ui_import(tmp_path: Path) -> None:
    """The check itself works, on a made-up package: a module added to it is found, and
    every way of reaching Textual or Rich is reported."""
    package = tmp_path / "fakepkg"
    (package / "inner").mkdir(parents=True)
    sources = {
        "__init__.py": "",
        "clean.py": "import json\n",
        "uses_rich.py": "from rich.text import Text\n",
        "guarded.py": "try:\n    import textual\nexcept ImportError:\n    textual = None\n",
        "through_another.py": "from fakepkg import uses_rich\n",
        "inner/__init__.py": "",
        "inner/late.py": "def later() -> None:\n    import textual\n",
        "broken.py": "raise RuntimeError('a bug, not a UI import')\n",
    }
    for name, text in sources.items():
        (package / name).write_text(text, encoding="utf-8")
    modules = walk_modules(package, "fakepkg")
    assert modules == [
        "fakepkg",
        "fakepkg.broken",
        "fakepkg.clean",
        "fakepkg.guarded",
        "fakepkg.inner",
        "fakepkg.inner.late",
        "fakepkg.through_another",
        "fakepkg.uses_rich",
    ]
    found = probe(modules, tmp_path)
    assert {name: report["ui"] for name, report in found.items()} == {
        "fakepkg": [],
        "fakepkg.broken": [],
        "fakepkg.clean": [],
        "fakepkg.guarded": ["textual"],
        "fakepkg.inner": [],
        "fakepkg.inner.late": [],  # a lazy import inside a function is not an import-time one
        "fakepkg.through_another": ["rich"],
        "fakepkg.uses_rich": ["rich"],
    }
    assert [name for name, report in found.items() if report["error"]] == ["fakepkg.broken"]
    assert "a bug, not a UI import" in (found["fakepkg.broken"]["error"] or "")


DEFERRED = (
    "textual",
    "rich",
    "zero_tui.ui",
    "zero_tui.search",
    "zero_tui.picker.session_usage",  # the catalog's tokens
    "zero_tui.agent.engine",
    "zero_tui.agent.zero_commands",  # Zero's own commands, run through the engine
    "zero_tui.preferences",  # config.toml, checked against the registry: for the app alone
)
"""What a module may import inside a function: Textual (and the UI on it), the catalog (with
the search modules on it) and the agent engine, whose deferral is measured (docs/benchmarks:
a `zero-tui sessions --json` starts without them); everything else at the top."""

SUBCOMMAND_MODULES = ("cli.py", "cli_transcript.py", "cli_maintenance.py", "cli_keys.py")
"""The command line: `cli.py` and the modules it imports by name for the command it runs."""

NOT_AT_START = (
    "zero_tui.cli_keys",
    "zero_tui.preferences",
    "zero_tui.cli_transcript",
    "zero_tui.cli_maintenance",
    "zero_tui.commands",
    "zero_tui.demo",
    "zero_tui.picker.ranking",
    "zero_tui.store.check",
    "zero_tui.store.fork",
    "zero_tui.store.trash",
    "zero_tui.transcript.export",
    "zero_tui.transcript.render_text",
    "zero_tui.transcript.usage_report",
)
"""What `sessions` and `search`, run many times a day, do without (issue 27's 1.5x rule)."""


@pytest.mark.parametrize("file_name", SUBCOMMAND_MODULES)
def test_the_command_line_imports_at_the_top_but_for_what_is_deferred(file_name: str) -> None:
    tree = ast.parse((PACKAGE_DIR / file_name).read_text())
    inside: list[str] = []
    for function in ast.walk(tree):
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            for node in ast.walk(function):
                if isinstance(node, ast.ImportFrom) and node.module:
                    inside.append(node.module)
                elif isinstance(node, ast.Import):
                    inside += [alias.name for alias in node.names]
    assert [name for name in inside if not name.startswith(DEFERRED)] == []


def modules_at_start() -> list[str]:
    """Every module `import zero_tui.cli` loads, in a fresh interpreter."""
    probe = "import sys, zero_tui.cli\nprint('\\n'.join(sys.modules))"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
    )
    return result.stdout.split()


def test_the_command_line_starts_without_what_is_deferred() -> None:
    assert [name for name in modules_at_start() if name.startswith(DEFERRED)] == []


def test_the_command_line_starts_without_what_only_some_commands_use() -> None:
    assert [name for name in modules_at_start() if name in NOT_AT_START] == []


CATALOG = "the catalog (sqlite3, hashlib, the search modules): 19 ms of every command"
DIALOGS = "the dialogs: 37 ms of the picker's start, loaded when one is first shown"
KEPT_INSIDE_FUNCTIONS: dict[tuple[str, str], str] = {
    ("cli.py", "zero_tui.search.catalog"): CATALOG,
    ("cli.py", "zero_tui.search.query"): CATALOG,
    ("cli.py", "zero_tui.search.scoped"): CATALOG,
    ("cli.py", "zero_tui.picker.session_usage"): CATALOG,
    ("cli.py", "zero_tui.ui.app"): "Textual and the app: 315 ms a subcommand never waits for",
    ("cli.py", "zero_tui.preferences"): "the app's keys and theme (tomllib, the ranking)",
    ("cli_maintenance.py", "zero_tui.search.catalog"): CATALOG,
    ("cli_transcript.py", "zero_tui.search.catalog"): CATALOG,
    ("cli_transcript.py", "zero_tui.picker.session_usage"): CATALOG,
    ("cli_transcript.py", "zero_tui.agent.zero_commands"): "the agent engine, for `usage` alone",
    ("clipboard.py", "pyperclip"): "optional, and it probes the platform as it is imported",
    ("commands.py", "zero_tui.transcript.export"): "the exporters: 13 ms of the app's start",
    ("host_commands.py", "zero_tui.hosts.mirror"): "ssh and rsync: 14 ms of every command",
    ("host_commands.py", "zero_tui.hosts.ssh_link"): "ssh and rsync: 14 ms of every command",
    ("host_commands.py", "zero_tui.search.database"): CATALOG,
    ("paths.py", "platformdirs"): "not on Linux",
    ("picker/preview_data.py", "zero_tui.transcript.markdown_text"): "markdown-it: 23 ms",
    ("picker/watch_child.py", "watchfiles._rust_notify"): "the watcher's own process, optional",
    ("picker/watch_child.py", "ctypes"): "Linux's inotify, only when a watch fails",
    ("store/root.py", "pwd"): "POSIX only",
    ("store/session_flags.py", "filelock"): "15 ms of every start; only a change needs it",
    ("store/store.py", "filelock"): "Windows only (POSIX locks with fcntl)",
    ("ui/app.py", "zero_tui.agent.engine"): "the agent engine: 11 ms of the picker's start",
    ("ui/app.py", "zero_tui.search.catalog"): CATALOG,
    ("ui/app.py", "zero_tui.ui.screens.dialogs"): DIALOGS,
    ("ui/app.py", "zero_tui.ui.screens.transcript"): "99 ms of the picker's start",
    ("ui/hangup.py", "textual.drivers.linux_driver"): "POSIX only",
    ("ui/screens/command_screen.py", "zero_tui.agent.engine"): "the agent engine",
    ("ui/screens/command_screen.py", "zero_tui.agent.zero_commands"): "the agent engine",
    ("ui/screens/command_screen.py", "zero_tui.ui.screens.dialogs"): DIALOGS,
    ("ui/screens/command_screen.py", "zero_tui.ui.screens.usage_screen"): "21 ms of the start",
    ("ui/screens/command_screen.py", "zero_tui.ui.screens.zero_dialogs"): "17 ms of the start",
    ("ui/screens/picker.py", "zero_tui.remote.host_sessions"): "the remote runs and the agent "
    "engine: 30 ms of the picker's start, for a host's row only",
    ("ui/screens/picker.py", "zero_tui.ui.screens.dialogs"): DIALOGS,
    ("ui/widgets/answer_copy.py", "zero_tui.ui.screens.dialogs"): DIALOGS,
    ("ui/widgets/session_keeper.py", "zero_tui.ui.screens.dialogs"): DIALOGS,
    ("ui/widgets/session_trash.py", "zero_tui.ui.screens.dialogs"): DIALOGS,
    ("ui/widgets/turn_actions.py", "zero_tui.ui.screens.dialogs"): DIALOGS,
}
"""Every import inside a function in zero_tui, and why it is not at the top: a platform's, an
optional library's, or what a start does without, with the CPU it costs that start (issue 27;
each site says the figure too). Anything else is imported at the top of its module."""


def imports_inside_functions(directory: Path) -> set[tuple[str, str]]:
    """(file, module) for every import inside a function of the .py files under `directory`."""
    found: set[tuple[str, str]] = set()
    for path in sorted(directory.rglob("*.py")):
        name = path.relative_to(directory).as_posix()
        for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.ImportFrom):
                    found.add((name, "." * node.level + (node.module or "")))
                elif isinstance(node, ast.Import):
                    found.update((name, alias.name) for alias in node.names)
    return found


def test_imports_inside_functions_are_only_the_ones_kept_on_purpose() -> None:
    found = imports_inside_functions(PACKAGE_DIR)
    assert sorted(found - set(KEPT_INSIDE_FUNCTIONS)) == [], "import these at the top"
    assert sorted(set(KEPT_INSIDE_FUNCTIONS) - found) == [], "no longer inside a function"


def test_the_scan_finds_an_import_in_any_function(tmp_path: Path) -> None:
    (tmp_path / "inner").mkdir()
    (tmp_path / "top.py").write_text("import json\n\n\ndef f() -> None:\n    import csv\n")
    (tmp_path / "inner" / "deep.py").write_text(
        "class C:\n    async def m(self) -> None:\n        def g() -> None:\n"
        "            from . import sibling\n        from os import path\n"
    )
    assert imports_inside_functions(tmp_path) == {
        ("top.py", "csv"),
        ("inner/deep.py", "."),
        ("inner/deep.py", "os"),
    }
