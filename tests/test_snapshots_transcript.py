"""SVG snapshots of the transcript screen (fixed clock and size, no blinking cursor)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import pytest
from conftest import StoreBuilder, assistant, no_cursor_blink, user, wait_until
from test_transcript_screen import EVERY_KIND, TranscriptApp, build, opened, tool_call, tool_result
from textual.pilot import Pilot

from zero_tui.ui.widgets.transcript_view import TranscriptView

SnapCompare = Callable[..., bool]
SIZE = (100, 58)


async def ready(pilot: Pilot[Any]) -> None:
    await opened(pilot)
    await no_cursor_blink(pilot)
    await every_row_drawn(pilot)


async def every_row_drawn(pilot: Pilot[Any]) -> None:
    """Draw every row, so that the scrollbar's thumb is exact. The view counts a row it has
    not drawn by an estimate, and which rows it drew on the way (at the header's first
    height, at the log's first look) depends on timing: the thumb would too."""
    view = pilot.app.screen.query_one(TranscriptView)
    chunks = view._chunks
    for index in range(len(chunks.geometry.chunks)):
        chunk, _ = chunks.materialize(index)
        chunks.render_rows(chunk, 0, sys.maxsize)
    view._layout()
    await pilot.pause()


def test_every_row_kind(snap_compare: SnapCompare, make_store: Callable[..., StoreBuilder]) -> None:
    builder = build(make_store, EVERY_KIND, cwd="/home/u/proj")

    async def at_top(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await pilot.press("ctrl+home")

    app = TranscriptApp(builder.store, "s1")
    assert snap_compare(app, terminal_size=SIZE, run_before=at_top)


def test_expanded_tool_card(
    snap_compare: SnapCompare, make_store: Callable[..., StoreBuilder]
) -> None:
    diff = "--- a/calc.go\n+++ b/calc.go\n@@ -4,1 +4,1 @@\n-oldValue := 1\n+newValue := 2"
    events = [
        user("Rename the value in calc.go"),
        tool_call("e1", "edit_file", '{"path":"calc.go"}'),
        (
            "tool_result",
            {
                "toolCallId": "e1",
                "name": "edit_file",
                "status": "ok",
                "output": "Edited calc.go",
                "displayPreview": diff,
                "changedFiles": ["calc.go"],
            },
        ),
        tool_call("b1", "bash", '{"command":"go test ./..."}'),
        tool_result("b1", "bash", "FAIL calc_test.go:12", status="error"),
        assistant("Renamed; one test still fails."),
    ]
    builder = build(make_store, events, cwd="/home/u/proj")

    async def expand(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await pilot.press("tab", "up", "up", "enter")

    app = TranscriptApp(builder.store, "s1")
    assert snap_compare(app, terminal_size=(100, 30), run_before=expand)


def test_find_bar_with_a_match(
    snap_compare: SnapCompare, make_store: Callable[..., StoreBuilder]
) -> None:
    events = []
    for turn in range(12):
        events += [user(f"question {turn}"), assistant(f"answer {turn} about the parser")]
    builder = build(make_store, events, cwd="/home/u/proj")

    async def find(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await pilot.press("ctrl+f", *"question 3", "enter")
        screen = pilot.app.screen
        await wait_until(
            pilot,
            lambda: screen.view.cursor == 6,  # type: ignore[attr-defined]
            "the find reached question 3",
        )
        await no_cursor_blink(pilot)

    app = TranscriptApp(builder.store, "s1")
    assert snap_compare(app, terminal_size=(100, 30), run_before=find)


def test_broken_compaction_note(
    snap_compare: SnapCompare, make_store: Callable[..., StoreBuilder]
) -> None:
    events = [
        user("alpha"),
        assistant("beta"),
        ("session_compaction", {"summary": ""}),
        user("gamma"),
    ]
    builder = build(make_store, events, cwd="/home/u/proj")
    app = TranscriptApp(builder.store, "s1")
    assert snap_compare(app, terminal_size=(100, 24), run_before=ready)


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
def test_transcript_sizes(
    snap_compare: SnapCompare, make_store: Callable[..., StoreBuilder], size: tuple[int, int]
) -> None:
    title = "Make the retry loop back off exponentially with jitter " * 8  # one line, cut
    builder = build(make_store, EVERY_KIND, cwd="/home/u/proj", title=title)
    app = TranscriptApp(builder.store, "s1")
    assert snap_compare(app, terminal_size=size, run_before=ready)
