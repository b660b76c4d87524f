"""The layers of design §1, as import-linter's contracts in pyproject.toml state them.

`lint-imports` runs in `.ci/run` too; here it runs with the suite, so that a change that
breaks a layer fails where its author looks first.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
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
