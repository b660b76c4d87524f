"""Your own keys (config.toml's `[keys]`), as a user meets them: the footer, /help and
`zero-tui keys` say them, and they run what they were moved from (Pilot)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import StoreBuilder, assistant, fixed_clock, user, wait_until
from textual.command import CommandList
from textual.pilot import Pilot
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from zero_tui.cli import main
from zero_tui.preferences import Preferences, load_preferences
from zero_tui.ui.app import ZeroApp, make_app
from zero_tui.ui.screens.dialogs import ExportDialog, HelpScreen
from zero_tui.ui.screens.picker import PickerScreen
from zero_tui.ui.screens.transcript import TranscriptScreen
from zero_tui.ui.widgets.find_bar import FindBar

SIZE = (120, 40)
W = "/home/u/proj"
CONFIG = """\
# my keys
[keys]
export = "f9"          # picker and transcript
search_mode = "F6"     # the picker's title/content switch
find = "ctrl+b"        # the transcript's find
"""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "zero-tui-config" / "config.toml"  # conftest's ZERO_TUI_CONFIG_DIR
    path.parent.mkdir(parents=True)
    path.write_text(CONFIG)
    return path


def app_with(make_store: Callable[..., StoreBuilder], preferences: Preferences) -> ZeroApp:
    builder = make_store()
    builder.add("s1", title="Fix parser", cwd=W, events=[user("why?"), assistant("because")])
    return make_app(builder.store, cwd=W, clock=fixed_clock(), preferences=preferences)


def footer(pilot: Pilot[Any]) -> dict[str, str]:
    """The footer's keys shown: description -> the key it shows."""
    keys = pilot.app.screen.query(FooterKey)
    return {str(key.description): key.key_display for key in keys if key.display}


def key_lines(page: str, key: str) -> list[str]:
    """The lines of /help's key list that start with `key`."""
    return [line for line in page.splitlines() if line.strip().startswith(key + " ")]


def palette_text(pilot: Pilot[Any]) -> str:
    return " ".join(
        str(option.prompt)
        for found in pilot.app.screen.query(CommandList)
        for option in found.options
    )


async def help_page(pilot: Pilot[Any]) -> str:
    screen = pilot.app.screen
    assert isinstance(screen, PickerScreen | TranscriptScreen)
    await screen.run_text("/help")
    await wait_until(
        pilot,
        lambda: (
            isinstance(pilot.app.screen, HelpScreen) and bool(pilot.app.screen.query("#help-text"))
        ),
    )
    text = str(pilot.app.screen.query_one("#help-text", Static).visual)
    await pilot.press("escape")
    return text


async def test_three_rebound_commands_show_and_run_with_the_users_keys(
    make_store: Callable[..., StoreBuilder], config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    preferences = load_preferences()
    assert preferences.problems == ()
    assert dict(preferences.keymap) == {"export": "f9", "search_mode": "f6", "find": "ctrl+b"}
    app = app_with(make_store, preferences)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await wait_until(pilot, lambda: "Export" in footer(pilot))
        shown = footer(pilot)
        assert shown["Export"] == "f9"
        assert shown["Search content"] == "f6"
        page = await help_page(pilot)
        assert "  F9 " in page
        assert not key_lines(page, "ctrl+s")
        assert not key_lines(page, "ctrl+t")
        assert "F6" in page

        await pilot.press("f1", *"search")  # the palette's help names the user's key
        await wait_until(pilot, lambda: "f6: search what was said" in palette_text(pilot))
        assert "ctrl+t" not in palette_text(pilot)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("ctrl+t")  # the old key does nothing now
        await pilot.pause()
        assert not app.screen.state.content_mode  # type: ignore[attr-defined]
        await pilot.press("f6")
        await wait_until(pilot, lambda: app.screen.state.content_mode)  # type: ignore[attr-defined]
        await wait_until(pilot, lambda: "Search titles" in footer(pilot))
        await pilot.press("f6")
        await wait_until(pilot, lambda: not app.screen.state.content_mode)  # type: ignore[attr-defined]

        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not isinstance(app.screen, ExportDialog)
        await pilot.press("f9")
        await wait_until(pilot, lambda: isinstance(app.screen, ExportDialog))
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))

        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TranscriptScreen))
        await wait_until(pilot, lambda: "Find" in footer(pilot))
        assert footer(pilot)["Find"] == "^b"
        page = await help_page(pilot)
        assert "ctrl+b" in page
        assert not key_lines(page, "ctrl+f")
        await pilot.press("ctrl+b")
        await wait_until(pilot, lambda: app.screen.query_one(FindBar).is_open)

    assert main(["keys"]) == 0
    listed = capsys.readouterr().out
    assert "export            f9 *" in listed
    assert "search_mode       f6 *            picker" in listed
    assert "find              ctrl+b *        transcript" in listed
    assert main(["keys", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    rebound = {(row["id"], row["where"]): row["keys"] for row in rows if row["rebound"]}
    assert rebound == {
        ("export", "picker"): ["f9"],
        ("export", "transcript"): ["f9"],
        ("search_mode", "picker"): ["f6"],
        ("find", "transcript"): ["ctrl+b"],
    }


@pytest.fixture
def bad_config(config: Path) -> Path:
    config.write_text('theme = "nrod"\n[keys]\nexprot = "f9"\nfind = "ctrl+t"\nfork = "f7"\n')
    return config


async def test_bad_entries_are_said_once_and_the_app_starts(
    make_store: Callable[..., StoreBuilder], bad_config: Path
) -> None:
    app = app_with(make_store, load_preferences())
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await wait_until(pilot, lambda: any(n.title == "config.toml" for n in app._notifications))
        notes = [note for note in app._notifications if note.title == "config.toml"]
        assert len(notes) == 1
        lines = notes[0].message.splitlines()
        assert len(lines) == 2
        assert "keys.exprot: no such binding id (did you mean export" in lines[0]
        assert "theme 'nrod' is not one of Textual's themes (close: nord" in lines[1]
        assert app.theme == "textual-dark"
        assert app.user_keymap == {"find": "ctrl+t", "fork": "f7"}


async def test_the_lines_that_name_a_key_name_the_users_key(
    make_store: Callable[..., StoreBuilder],
) -> None:
    """The picker's status line and query placeholder, and the transcript editor's hint,
    name a moved key where it was moved (a line that names the default key would send the
    user to a key that does nothing now)."""
    keymap = {"scope": "f5", "empty": "ctrl+o", "search_mode": "f6", "focus": "ctrl+l"}
    builder = make_store()
    builder.add("s1", title="Fix parser", cwd=W, events=[user("why?"), assistant("because")])
    builder.add("s2", title="Elsewhere", cwd="/srv/other", updated_at="2026-07-04T09:00:00Z")
    builder.add("s3", cwd=W, events=[user("hello?")], updated_at="2026-07-04T08:00:00Z")
    app = make_app(builder.store, cwd=W, clock=fixed_clock(), preferences=Preferences(keymap))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "in other workspaces" in picker_status(pilot))
        line = picker_status(pilot)
        assert "1 in other workspaces (F5: all)" in line
        assert "1 empty run (ctrl+o: show)" in line
        assert "Tab" not in line
        assert "ctrl+e" not in line
        screen = app.screen
        assert isinstance(screen, PickerScreen)
        assert screen.composer.placeholder == (
            "type to filter titles… · F6: what was said · / for commands"
        )
        await pilot.press("f5", "ctrl+o")
        await wait_until(pilot, lambda: "(ctrl+o: hide)" in picker_status(pilot))
        assert "all workspaces (F5: this workspace)" in picker_status(pilot)
        await pilot.press("f6")
        await wait_until(pilot, lambda: screen.composer.placeholder.endswith("F6: titles"))
        await pilot.press("f6")
        await wait_until(pilot, lambda: "F6: what was said" in screen.composer.placeholder)
        await wait_until(pilot, lambda: bool(screen.session_list.visible_rows()))
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TranscriptScreen))
        transcript = app.screen
        assert isinstance(transcript, TranscriptScreen)
        assert str(transcript.composer.placeholder).endswith("· ctrl+l: rows")


def picker_status(pilot: Pilot[Any]) -> str:
    return str(pilot.app.screen.query_one("#status", Static).visual)
