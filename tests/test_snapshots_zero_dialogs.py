"""SVG snapshots of issue 20's dialogs and cards at 80x24 and 200x60: a rewind's plan, a
denied tool call's ways forward (and its card in the transcript), Zero's grants, and a
fork's header."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from conftest import StoreBuilder, assistant, no_cursor_blink, user, wait_until
from test_denied_calls import denied
from test_transcript_screen import TranscriptApp, build, opened
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Static

from zero_tui.agent.zero_commands import FileChange, Grant, RewindPlan
from zero_tui.store.approvals import approval_ask
from zero_tui.transcript.denied_calls import DeniedCall
from zero_tui.transcript.turns import TurnSpan
from zero_tui.ui.screens.dialogs import ExportDialog
from zero_tui.ui.screens.zero_dialogs import ApprovalDialog, PermissionsDialog, RewindDialog

SnapCompare = Callable[..., bool]
SIZES = [(80, 24), (200, 60)]
W = "/home/u/proj"
CHAT = [user("plan the parser"), assistant("the plan is ready")]
TURN = TurnSpan(2, "write the tests for the date parser, leap years too", 5, 12, False)
PLAN = RewindPlan(
    "s1",
    12,
    12,
    9,
    {"message": 3, "tool_call": 2, "tool_result": 2, "session_checkpoint": 2},
    (
        FileChange("utils/date.go", "restore"),
        FileChange("utils/date_test.go", "delete"),
        FileChange("assets/logo.png", "skipped"),
    ),
)


def denied_call(command: str, output_reason: str, level: str, *categories: str) -> DeniedCall:
    ask = approval_ask(
        "exec_command",
        {"cmd": command},
        f"Error: Sandbox approval required for exec_command: {output_reason}",
        risk_level=level,
        categories=categories,
    )
    assert ask is not None
    return DeniedCall(ask, "call_1", (6, 7, 8), TURN)


PLAIN = denied_call(
    "ls -la", "Shell commands can read, write, or execute programs.", "high", "shell"
)
NETWORK = denied_call(
    "curl https://example.com", "network access requires approval", "critical", "network", "shell"
)
GRANTS = [
    Grant("exec_command", "", "allow", "2026-07-04T11:58:00Z"),
    Grant("write_file", "/home/u/proj/notes.md", "allow", "2026-07-03T09:00:00Z"),
]


def over_a_transcript(
    make_store: Callable[..., StoreBuilder], dialog: Callable[[], Screen[Any]]
) -> tuple[TranscriptApp, Callable[[Pilot[Any]], Any]]:
    builder = build(make_store, CHAT, cwd=W)

    async def shown(pilot: Pilot[Any]) -> None:
        await opened(pilot)
        await no_cursor_blink(pilot)
        screen = dialog()
        pilot.app.push_screen(screen)
        await wait_until(pilot, lambda: pilot.app.screen is screen)
        await pilot.pause()

    return TranscriptApp(builder.store, "s1"), shown


@pytest.mark.parametrize("size", SIZES)
def test_rewind_dialog(
    snap_compare: SnapCompare, make_store: Callable[..., StoreBuilder], size: tuple[int, int]
) -> None:
    app, shown = over_a_transcript(make_store, lambda: RewindDialog("Parser work", PLAN, TURN, W))
    assert snap_compare(app, terminal_size=size, run_before=shown)


@pytest.mark.parametrize("size", SIZES)
def test_approval_dialog(
    snap_compare: SnapCompare, make_store: Callable[..., StoreBuilder], size: tuple[int, int]
) -> None:
    app, shown = over_a_transcript(make_store, lambda: ApprovalDialog(PLAIN, None))
    assert snap_compare(app, terminal_size=size, run_before=shown)


@pytest.mark.parametrize("size", SIZES)
def test_approval_dialog_for_network_access(
    snap_compare: SnapCompare, make_store: Callable[..., StoreBuilder], size: tuple[int, int]
) -> None:
    app, shown = over_a_transcript(make_store, lambda: ApprovalDialog(NETWORK, "medium"))
    assert snap_compare(app, terminal_size=size, run_before=shown)


@pytest.mark.parametrize("size", SIZES)
def test_permissions_dialog(
    snap_compare: SnapCompare, make_store: Callable[..., StoreBuilder], size: tuple[int, int]
) -> None:
    app, shown = over_a_transcript(make_store, lambda: PermissionsDialog(GRANTS))
    assert snap_compare(app, terminal_size=size, run_before=shown)


@pytest.mark.parametrize("size", SIZES)
def test_export_dialog_says_what_each_format_holds(
    snap_compare: SnapCompare, make_store: Callable[..., StoreBuilder], size: tuple[int, int]
) -> None:
    app, shown = over_a_transcript(
        make_store,
        lambda: ExportDialog("Export “Parser work”", "zero-transcript-20260704-120000.txt"),
    )

    async def shown_still(pilot: Pilot[Any]) -> None:
        await shown(pilot)
        await no_cursor_blink(pilot)  # the dialog's own path field

    assert snap_compare(app, terminal_size=size, run_before=shown_still)


@pytest.mark.parametrize("size", SIZES)
def test_denied_tool_card_and_a_fork_header(
    snap_compare: SnapCompare, make_store: Callable[..., StoreBuilder], size: tuple[int, int]
) -> None:
    """A fork (its header names the parent and the turn) whose last turn was denied a
    shell command: the card says what was asked and the key to the ways forward."""
    builder = make_store("fork-data/zero/sessions")  # a store Zero can continue
    builder.add("parent-1", title="Parser work", cwd=W, events=CHAT)
    builder.add(
        "s1",
        title="Parser work (fork)",
        cwd=W,
        model_id="gpt-5",
        provider="openai",
        session_kind="fork",
        parent_session_id="parent-1",
        root_session_id="parent-1",
        forked_from_event_id="parent-1:2",
        forked_from_sequence=2,
        events=[
            *CHAT,
            ("session_fork", {"parentSessionId": "parent-1", "forkedFromSequence": 2}),
            user("list the files"),
            *denied("call_1", "ls -la"),
            assistant("I need your approval to run `ls -la`."),
        ],
    )

    async def shown(pilot: Pilot[Any]) -> None:
        screen = await opened(pilot)
        lineage = screen.query_one("#transcript-lineage", Static)
        await wait_until(pilot, lambda: lineage.display)
        await no_cursor_blink(pilot)

    app = TranscriptApp(builder.store, "s1")
    assert snap_compare(app, terminal_size=size, run_before=shown)
