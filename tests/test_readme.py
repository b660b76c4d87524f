"""The README's quick start is the contract with a new user: keep it true."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def quick_start_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert block is not None, "the quick start has a sh code block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_quick_start_is_exactly_two_commands() -> None:
    commands = quick_start_commands()
    assert len(commands) == 2
    assert "zero-tui" in commands[0]
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    ci_script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    test_command = quick_start_commands()[1]
    assert test_command in ci_script.splitlines()
