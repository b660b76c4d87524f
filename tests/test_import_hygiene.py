"""The non-UI layers import without Textual or Rich (design §1).

Each module is imported in a fresh interpreter, so nothing the test process has already
imported can hide a stray `import textual`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# Modules that exist now and must stay free of UI imports.
REQUIRED_MODULES = [
    "zero_tui.store",
    "zero_tui.store.errors",
    "zero_tui.store.events",
    "zero_tui.store.gojson",
    "zero_tui.store.gotext",
    "zero_tui.store.models",
    "zero_tui.store.resumable",
    "zero_tui.store.store",
    "zero_tui.store.workspace",
]

# Modules other engineers are writing; checked as soon as they exist.
OPTIONAL_MODULES = [
    "zero_tui.transcript",
    "zero_tui.atomic",
    "zero_tui.transcript.export",
    "zero_tui.transcript.export_html",
    "zero_tui.transcript.log_index",
    "zero_tui.transcript.render_text",
    "zero_tui.transcript.rows",
    "zero_tui.transcript.sanitize",
    "zero_tui.search",
    "zero_tui.search.catalog",
    "zero_tui.search.ranking",
    "zero_tui.search.rows",
    "zero_tui.cli",
    "zero_tui.clipboard",  # design §1: no Textual import either
    "zero_tui.commands",  # the command registry and the slash parser
    "zero_tui.transcript.answers",
    "zero_tui.agent",
]

UI_PACKAGES = ("textual", "rich")

PROBE = """
import importlib, json, sys
importlib.import_module(sys.argv[1])
loaded = sorted(
    name for name in sys.modules
    if name.split(".")[0] in {"textual", "rich"}
)
print(json.dumps(loaded))
"""


def imported_ui_modules(module: str) -> list[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
    result = subprocess.run(
        [sys.executable, "-c", PROBE, module],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, f"importing {module} failed:\n{result.stderr}"
    lines = result.stdout.strip().splitlines()
    assert lines, f"no output from the probe for {module}"
    loaded: list[str] = json.loads(lines[-1])
    return loaded


def module_exists(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


@pytest.mark.parametrize("module", REQUIRED_MODULES)
def test_store_imports_without_ui(module: str) -> None:
    assert imported_ui_modules(module) == []


@pytest.mark.parametrize("module", OPTIONAL_MODULES)
def test_other_layers_import_without_ui(module: str) -> None:
    if not module_exists(module):
        pytest.skip(f"{module} does not exist yet")
    assert imported_ui_modules(module) == []


def test_the_probe_would_see_a_ui_import() -> None:
    """The check itself works: importing Textual's app module is reported."""
    if not module_exists("textual"):
        pytest.skip("textual is not installed")
    loaded = imported_ui_modules("textual.app")
    assert "textual" in loaded
    assert any(name.split(".")[0] in UI_PACKAGES for name in loaded)
