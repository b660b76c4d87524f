"""SVG snapshots of the composer's completion list, the picker's command mode and /help."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conftest import StoreBuilder, assistant, fixed_clock, no_cursor_blink, settle, user, wait_until
from test_transcript_screen import TranscriptApp, build, opened
from textual.pilot import Pilot

from zero_tui.ui.app import make_app
from zero_tui.ui.screens.dialogs import HelpScreen

SnapCompare = Callable[..., bool]
W = "/home/u/proj"


async def settled(pilot: Pilot[Any]) -> None:
    await settle(pilot)
    await no_cursor_blink(pilot)


def test_slash_completion_in_a_transcript(
    snap_compare: SnapCompare, make_store: Callable[..., StoreBuilder]
) -> None:
    builder = build(make_store, [user("fix the parser"), assistant("Fixed.")], cwd=W)

    async def slash(pilot: Pilot[Any]) -> None:
        await opened(pilot)
        await no_cursor_blink(pilot)
        await pilot.press("slash", "e")

    app = TranscriptApp(builder.store, "s1")
    assert snap_compare(app, terminal_size=(100, 30), run_before=slash)


def test_picker_command_mode(
    snap_compare: SnapCompare, make_store: Callable[..., StoreBuilder]
) -> None:
    builder = make_store()
    builder.add("s1", title="Fix the parser", cwd=W, updated_at="2026-07-04T11:00:00Z")
    builder.add("s2", title="Write the docs", cwd=W, updated_at="2026-07-04T10:00:00Z")

    async def slash(pilot: Pilot[Any]) -> None:
        await settled(pilot)
        await pilot.press("slash")
        await pilot.pause()

    app = make_app(builder.store, cwd=W, clock=fixed_clock())
    assert snap_compare(app, terminal_size=(110, 24), run_before=slash)


def test_help_screen(snap_compare: SnapCompare, make_store: Callable[..., StoreBuilder]) -> None:
    builder = build(make_store, [user("hi"), assistant("hello")], cwd=W)

    async def helped(pilot: Pilot[Any]) -> None:
        await opened(pilot)
        await pilot.press(*"/help", "enter")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), "/help")
        await pilot.pause()

    app = TranscriptApp(builder.store, "s1")
    assert snap_compare(app, terminal_size=(110, 40), run_before=helped)
