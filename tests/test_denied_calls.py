"""Denied tool calls: what a stored (or streamed) call asked for, on its card, and the ways
forward Zero would honour (issue 20, part 5)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import EventSpec, assistant, user

from zero_tui.agent.live_approval import live_approval
from zero_tui.agent.stream import PermissionEvent, ToolCall, ToolResult
from zero_tui.agent.turn import ToolBlock
from zero_tui.store import Event, SessionStore, StoreError, gojson
from zero_tui.transcript.denied_calls import (
    NO_DENIED_CALL,
    approval_hint,
    denied_calls,
    read_denied,
    why_no_grant,
)
from zero_tui.transcript.log_index import CHUNK_EVENTS, LogIndex, chunk_rows, index_facts
from zero_tui.transcript.rows import RowKind, rows_from_events

PLAIN_REASON = "Shell commands can read, write, or execute programs."
SHELL_RISK = {"level": "high", "categories": ["shell"], "reason": "high risk: shell"}


def denied(call_id: str, command: str, *, reason: str = "", risk: object = None) -> list[EventSpec]:
    """A call Zero's sandbox stopped, as Zero 0.8.0 stores it (zero-notes E): the call, the
    permission event written once the tool returned, then the result."""
    request: dict[str, object] = {
        "toolCallId": call_id,
        "name": "exec_command",
        "action": "prompt",
        "permission": "prompt",
        "permissionMode": "auto",
        "autonomy": "low",
        "sideEffect": "shell",
        "risk": risk if risk is not None else SHELL_RISK,
        "commandPrefix": command.split(),
    }
    if reason:
        request["reason"] = reason
    output = f"Error: Sandbox approval required for exec_command: {reason or PLAIN_REASON}"
    return [
        (
            "tool_call",
            {"id": call_id, "name": "exec_command", "arguments": f'{{"cmd":"{command}"}}'},
        ),
        ("permission_request", request),
        (
            "tool_result",
            {"toolCallId": call_id, "name": "exec_command", "output": output, "status": "error"},
        ),
    ]


def session(tmp_path: Path, events: list[EventSpec]) -> SessionStore:
    store = SessionStore(tmp_path / "sessions")
    store.create("s", cwd=str(tmp_path))
    store.append_events("s", events)
    return store


def test_a_denied_call_is_what_was_asked_and_its_turn(tmp_path: Path) -> None:
    store = session(
        tmp_path,
        [
            user("list the files"),
            *denied("call_1", "ls -la"),
            assistant("I need your approval."),
            user("clean up"),
            *denied(
                "call_2",
                "rm -rf build",
                reason="destructive shell command requires approval",
                risk={"level": "critical", "categories": ["destructive", "shell"]},
            ),
        ],
    )
    first, second = denied_calls(store.read_events("s"))
    assert first.ask.describe() == (f"exec_command: ls -la — high risk (shell): {PLAIN_REASON}")
    assert (first.ask.retry_helps, first.ask.grant_helps) == (True, True)
    assert first.sequences == (2, 3, 4)
    assert first.turn is not None
    assert first.turn.prompt == "list the files"
    assert second.ask.describe() == (
        "exec_command: rm -rf build — critical risk (destructive, shell): destructive shell "
        "command requires approval"
    )
    assert (second.ask.retry_helps, second.ask.grant_helps) == (True, False)
    assert second.turn is not None
    assert second.turn.number == 2
    # which one /approve takes: the highlighted one's (any of its events), else the last
    assert read_denied(store, "s", 3) == first
    assert read_denied(store, "s", 4) == first
    assert read_denied(store, "s", None) == second
    with pytest.raises(StoreError, match="not a tool call waiting for an approval"):
        read_denied(store, "s", 1)


def test_a_session_without_a_denied_call_says_so(tmp_path: Path) -> None:
    blocked = "Sandbox block [network] for exec_command: network access requires approval"
    store = session(
        tmp_path,
        [
            user("fetch it"),
            ("tool_call", {"id": "c", "name": "exec_command", "arguments": "{}"}),
            ("tool_result", {"toolCallId": "c", "name": "exec_command", "output": blocked}),
        ],
    )
    with pytest.raises(StoreError, match=f"^{NO_DENIED_CALL}$"):
        read_denied(store, "s", None)


def test_the_denied_card_carries_the_ask_with_zero_s_risk(tmp_path: Path) -> None:
    store = session(tmp_path, [user("list"), *denied("call_1", "ls -la")])
    rows = rows_from_events(store.read_events("s"))
    (card,) = [row for row in rows if row.kind is RowKind.TOOL_RESULT]
    assert card.approval is not None
    assert (card.approval.risk_level, card.approval.categories) == ("high", ("shell",))
    assert card.approval.subject == "ls -la"
    ok = [row for row in rows if row.kind is RowKind.TOOL_CALL]
    assert all(row.approval is None for row in ok)


def test_a_permission_event_after_the_result_still_reaches_the_card(tmp_path: Path) -> None:
    call, request, result = denied("call_1", "ls -la")
    store = session(tmp_path, [user("list"), call, result, request])
    rows = rows_from_events(store.read_events("s"))
    (card,) = [row for row in rows if row.kind is RowKind.TOOL_RESULT]
    assert card.approval is not None
    assert card.approval.risk_level == "high"


def test_a_card_in_the_next_chunk_gets_the_risk_from_the_previous_one(tmp_path: Path) -> None:
    filler = [user("go"), *[assistant(f"step {n}") for n in range(CHUNK_EVENTS - 3)]]
    call, request, result = denied("call_1", "ls -la")
    store = session(tmp_path, [*filler, call, request, result, assistant("done")])
    with LogIndex.open(store.events_path("s"), "s") as index:
        order = range(len(index))
        assert index.decode(CHUNK_EVENTS - 1).type == "permission_request"  # ends chunk 0
        assert index.decode(CHUNK_EVENTS).type == "tool_result"  # starts chunk 1
        facts = index_facts(index, order)
        rows = chunk_rows(index, order, CHUNK_EVENTS, 2 * CHUNK_EVENTS, facts)
    card = next(row for _position, row in rows if row.kind is RowKind.TOOL_RESULT)
    assert card.approval is not None
    assert card.approval.categories == ("shell",)


def test_the_ways_forward_in_words() -> None:
    ask_for = {
        "plain": denied("c", "ls")[2],
        "network": denied(
            "c",
            "curl https://example.com",
            reason="network access requires approval",
            risk={"level": "critical", "categories": ["network", "shell"]},
        )[2],
    }
    rows = {name: rows_from_events(_events(spec)) for name, spec in ask_for.items()}
    plain = next(row.approval for row in rows["plain"] if row.approval)
    network = next(row.approval for row in rows["network"] if row.approval)
    assert approval_hint(plain, "alt+a") == "alt+a: allow and retry · always allow exec_command"
    assert approval_hint(network, "alt+a") == (
        "Zero blocks network access for shell commands even at --auto high: a retry would be "
        "denied again."
    )
    assert "network access before it looks at any grant" in why_no_grant(network)


def _events(result: EventSpec) -> list[Event]:
    kind, payload = result
    return [Event("s:1", "s", 1, kind, "", gojson.marshal(payload))]


def test_the_live_card_reads_the_same_ask_from_the_stream() -> None:
    block = ToolBlock(ToolCall("call_1", "exec_command", {"cmd": "ls"}, "shell"))
    assert live_approval(block) is None  # no result yet
    block.permission = PermissionEvent(
        "request", "call_1", "exec_command", "prompt", "", False, "", "high", ("shell",)
    )
    block.result = ToolResult(
        "call_1",
        "exec_command",
        "error",
        f"Error: Sandbox approval required for exec_command: {PLAIN_REASON}",
        False,
        "",
    )
    ask = live_approval(block)
    assert ask is not None
    assert ask.describe() == f"exec_command: ls — high risk (shell): {PLAIN_REASON}"
    block.result = ToolResult("call_1", "exec_command", "ok", "total 0", False, "")
    assert live_approval(block) is None


def test_the_live_card_says_what_was_asked_and_the_key_for_after_the_run() -> None:
    from rich.console import Console
    from rich.style import Style

    from zero_tui.transcript.rows import streamed_tool_row
    from zero_tui.ui.widgets.tool_card import tool_card

    block = ToolBlock(ToolCall("call_1", "exec_command", {"cmd": "ls"}, "shell"))
    block.permission = PermissionEvent(
        "request", "call_1", "exec_command", "prompt", "", False, "", "high", ("shell",)
    )
    output = f"Error: Sandbox approval required for exec_command: {PLAIN_REASON}"
    block.result = ToolResult("call_1", "exec_command", "error", output, False, "")
    row = streamed_tool_row(
        "exec_command", "call_1", {"cmd": "ls"}, result_status="error", output=output
    )
    row.approval = live_approval(block)
    card = tool_card(row, style=lambda _part: Style(), approval_note=" (once the run ends)")
    console = Console(width=200, record=True, color_system=None)
    console.print(card)
    lines = [line.rstrip() for line in console.export_text().splitlines()]
    assert lines[1:] == [
        f"  ⚑ approval required: exec_command: ls — high risk (shell): {PLAIN_REASON}",
        "    alt+a: allow and retry · always allow exec_command (once the run ends)",
    ]
