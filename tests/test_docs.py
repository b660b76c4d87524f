"""The README and docs/ stay true to the code: every key, command and subcommand is
documented where a person looks for it, every link lands, and the README's picture is the
picker as a snapshot test draws it today."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from zero_tui.cli import build_parser
from zero_tui.commands import REGISTRY, Context
from zero_tui.text.labels import key_name
from zero_tui.ui.app import ZeroApp

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PICTURE = DOCS / "picker.svg"
PICTURE_SNAPSHOT = (
    ROOT / "tests" / "__snapshots__" / "test_snapshots_picker" / "test_snapshot_picker.svg"
)
ARROWS = {"alt+up": "alt+↑", "alt+down": "alt+↓", "up": "↑", "down": "↓"}


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def section(text: str, heading: str) -> str:
    """The text under `## heading`, up to the next heading of that level."""
    after = text.split(f"\n## {heading}\n", 1)[1]
    return after.split("\n## ", 1)[0]


def table_rows(text: str) -> list[list[str]]:
    """The cells of a Markdown table's body rows (header and rule left out)."""
    rows = [line for line in text.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in re.split(r"(?<!\\)\|", row)[1:-1]] for row in rows[2:]]


def spelled(key: str) -> str:
    return ARROWS.get(key, key_name(key))


def key_tokens(cell: str) -> set[str]:
    return {token.strip("(),") for token in cell.split()}


def prose_paragraphs(markdown: str) -> list[str]:
    """Paragraphs a person reads, a list's items each one: no code, tables, headings or
    pictures."""
    without_code = re.sub(r"```.*?```", "", markdown, flags=re.DOTALL)
    blocks = [block.strip() for block in re.split(r"\n\s*\n|\n(?=- )", without_code)]
    return [block for block in blocks if block and not block.startswith(("#", "|", "!["))]


def heading_anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lowercased, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    headings = re.findall(r"^#+ (.+)$", read(path), flags=re.MULTILINE)
    return {heading_anchor(heading) for heading in headings}


@pytest.mark.parametrize("context", list(Context))
def test_the_user_guide_has_every_key_of_the_registry(context: Context) -> None:
    keys = table_rows(section(read(DOCS / "user-guide.md"), "Keys"))
    documented = {
        token
        for where, key, _ in keys
        if where.startswith(context.value)
        for token in key_tokens(key)
    }
    registry_keys = {key.key for _, key in REGISTRY.action_keys(context)}
    registry_keys |= {key.key for _, key in REGISTRY.keys(context)}
    missing = sorted(key for key in registry_keys if spelled(key) not in documented)
    assert not missing, f"keys of the {context} missing from docs/user-guide.md: {missing}"


def test_the_user_guide_has_the_apps_own_keys() -> None:
    keys = table_rows(section(read(DOCS / "user-guide.md"), "Keys"))
    everywhere = {
        token for where, key, _ in keys if where == "everywhere" for token in key_tokens(key)
    }
    assert {key_name(ZeroApp.COMMAND_PALETTE_BINDING), "ctrl+q"} <= everywhere


def test_the_user_guide_has_every_command() -> None:
    commands = table_rows(section(read(DOCS / "user-guide.md"), "Commands"))
    documented = " ".join(cell for cell, _ in commands)
    missing = [command.name for command in REGISTRY if f"/{command.name}" not in documented]
    assert not missing, f"commands missing from docs/user-guide.md: {missing}"


def test_the_cli_reference_has_every_subcommand_and_option() -> None:
    reference = read(DOCS / "cli.md")
    parser = build_parser()
    subparsers = next(
        action for action in parser._actions if isinstance(action, argparse._SubParsersAction)
    )
    missing = [
        f"zero-tui {option}"
        for action in parser._actions
        for option in action.option_strings
        if option.startswith("--") and option != "--help" and option not in reference
    ]
    for name, subparser in subparsers.choices.items():
        if f"\n## {name}" not in reference and not re.search(rf"\n## .*\b{name}\b", reference):
            missing.append(f"a section for {name}")
        for action in subparser._actions:
            for option in action.option_strings:
                if option.startswith("--") and option != "--help" and option not in reference:
                    missing.append(f"{name} {option}")
    assert not missing, f"docs/cli.md lacks: {missing}"


@pytest.mark.parametrize("path", markdown_files(), ids=lambda path: path.name)
def test_every_link_between_the_docs_lands(path: Path) -> None:
    text = read(path)
    broken: list[str] = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+://", target):
            continue
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        lands = linked.exists() and (not anchor or anchor in anchors(linked))
        if not lands:
            broken.append(target)
    assert not broken, f"links in {path.name} that land nowhere: {broken}"


def test_the_readme_is_short_with_short_paragraphs() -> None:
    readme = read(ROOT / "README.md")
    paragraphs = prose_paragraphs(readme)
    words = sum(len(paragraph.split()) for paragraph in paragraphs)
    assert len(readme.splitlines()) <= 150
    assert words / len(paragraphs) <= 22, "the README's paragraphs grew: move detail to docs/"


def test_the_readme_picture_is_the_picker_snapshot() -> None:
    assert "](docs/picker.svg)" in read(ROOT / "README.md")
    assert PICTURE.read_bytes() == PICTURE_SNAPSHOT.read_bytes(), (
        f"the picker snapshot changed: copy {PICTURE_SNAPSHOT.relative_to(ROOT)} "
        f"to {PICTURE.relative_to(ROOT)}"
    )
