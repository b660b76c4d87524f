"""The layers of design §1, as import-linter's contracts in pyproject.toml state them.

`lint-imports` runs in `.ci/run` too; here it runs with the suite, so that a change that
breaks a layer fails where its author looks first.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def lint_imports() -> str:
    found = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip("import-linter is not installed (it is in the test extras)")
    return found


def test_every_import_linter_contract_is_kept() -> None:
    result = subprocess.run(
        [lint_imports(), "--no-cache"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_the_layers_contract_would_catch_an_import_running_back_up(tmp_path: Path) -> None:
    """The contract is live: a copy of the package with one store module importing the
    picker breaks it."""
    copy = tmp_path / "repo"
    shutil.copytree(
        REPO / "zero_tui", copy / "zero_tui", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(REPO / "pyproject.toml", copy / "pyproject.toml")
    (copy / "zero_tui" / "store" / "upward.py").write_text("from zero_tui.picker import ranking\n")
    result = subprocess.run(
        [lint_imports(), "--no-cache"],
        cwd=copy,
        env={"PYTHONPATH": str(copy), "PATH": ""},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "zero_tui.store.upward -> zero_tui.picker.ranking" in result.stdout


def test_every_module_of_the_package_is_in_a_layer() -> None:
    """A module the layers contract does not name is checked by no layer: a new top-level
    module or package gets its place in pyproject.toml."""
    contracts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
    layers = next(c for c in contracts["contracts"] if c["type"] == "layers")["layers"]
    named = {name.strip() for layer in layers for name in re.split(r"[|:]", layer)}
    package = REPO / "zero_tui"
    modules = {
        f"zero_tui.{path.stem}"
        for path in package.iterdir()
        if (path.suffix == ".py" and path.stem not in ("__init__", "__main__"))
        or (path.is_dir() and (path / "__init__.py").exists())
    }
    assert sorted(modules - named) == []
