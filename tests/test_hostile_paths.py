"""Paths are data too (issue 18, item 11): an escape sequence in `--cwd` or `--store` never
reaches the terminal from any command."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import wait_until

from zero_tui.cli import main
from zero_tui.store import SessionStore

HOSTILE = "w\x1b]0;PWNED\x07\x1b[2Jx\x9b31m"


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    root = tmp_path / f"zero{HOSTILE}" / "zero" / "sessions"
    store = SessionStore(root)
    store.create("s1", cwd=f"/tmp/{HOSTILE}", title=f"title {HOSTILE}")
    store.append_events(
        "s1",
        [
            ("message", {"role": "user", "content": "hello"}),
            ("message", {"role": "assistant", "content": "world"}),
        ],
    )
    return store


COMMANDS = [
    ["sessions"],
    ["sessions", "--all"],
    ["sessions", "--json", "--all"],
    ["search", "hello"],
    ["search", "hello", "--all"],
    ["show", "s1"],
    ["check"],
    ["check", "nope"],
    ["export", "s1", "-o", "-"],
    ["export", "s1", "-o", f"missing{HOSTILE}/x.txt"],
    ["usage"],
    ["usage", "--all"],
    ["fork", "nope"],
    ["trash"],
    ["restore", f"x{HOSTILE}"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c)[:30])
def test_no_escape_sequence_reaches_the_terminal(
    store: SessionStore, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    main([*command, "--store", str(store.root), "--cwd", f"/tmp/{HOSTILE}"])
    captured = capsys.readouterr()
    for text in (captured.out, captured.err):
        assert "\x1b" not in text
        assert "\x07" not in text
        assert "\x9b" not in text


def test_a_missing_store_named_with_escapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sessions", "--store", str(tmp_path / HOSTILE)]) == 1
    err = capsys.readouterr().err
    assert "\x1b" not in err
    assert err.startswith("zero-tui: no session store at ")


async def test_the_picker_shows_hostile_paths_as_text(tmp_path: Path) -> None:
    """The title, the empty state, the status line and a notification, with a workspace
    and a store whose names hold escape sequences: not one control character is drawn."""
    from textual.widgets import Static

    from zero_tui.ui.app import ZeroApp

    root = tmp_path / f"store{HOSTILE}"
    root.mkdir()
    app = ZeroApp(SessionStore(root), cwd=f"/tmp/{HOSTILE}", resume=f"nope{HOSTILE}")
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await wait_until(
            pilot, lambda: "0 sessions" in str(app.screen.query_one("#status", Static).visual)
        )
        shown = [str(widget.visual) for widget in app.screen.query(Static)]
        shown += [str(toast.render()) for toast in app.screen.query("Toast")]
        assert any("w]0;PWNED" in text for text in shown)  # the workspace, made visible
        assert any("0 sessions · store" in text for text in shown)
        for text in shown:
            assert "\x1b" not in text
            assert "\x07" not in text
            assert "\x9b" not in text
