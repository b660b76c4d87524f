"""Transcript rows (tui-behaviour §6, cases 38-54), display collapse, incremental building,
the resume card, the sanitiser and the plain-text rendering."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from zero_tui.store import Event, Goal, Metadata
from zero_tui.store.events import rehydrate
from zero_tui.store.gojson import marshal
from zero_tui.text.sanitize import sanitize_text
from zero_tui.transcript.render_text import render_transcript_text
from zero_tui.transcript.rows import (
    Row,
    RowBuilder,
    RowKind,
    collapse_for_display,
    resume_card,
    rows_from_events,
    turn_start_indices,
    visible_row_indices,
)


def make_events(*specs: tuple[str, Any]) -> list[Event]:
    """Events `s:1`, `s:2`, … of session `s` from (type, payload) pairs (None: no payload)."""
    return [
        Event(
            id=f"s:{sequence}",
            session_id="s",
            sequence=sequence,
            type=event_type,
            created_at="2026-07-04T12:00:00Z",
            payload_raw=None if payload is None else marshal(payload),
        )
        for sequence, (event_type, payload) in enumerate(specs, start=1)
    ]


def user(text: str) -> tuple[str, Any]:
    return ("message", {"role": "user", "content": text})


def assistant(text: str) -> tuple[str, Any]:
    return ("message", {"role": "assistant", "content": text})


def call(call_id: str, name: str, arguments: str = "{}") -> tuple[str, Any]:
    return ("tool_call", {"id": call_id, "name": name, "arguments": arguments})


def result(call_id: str, name: str, output: str, status: str = "ok") -> tuple[str, Any]:
    return (
        "tool_result",
        {"toolCallId": call_id, "name": name, "status": status, "output": output},
    )


def summary(rows: list[Row]) -> list[tuple[str, str, str]]:
    return [(row.kind.value, row.text, row.id) for row in rows]


def snapshot(rows: list[Row]) -> list[dict[str, Any]]:
    return [dataclasses.asdict(row) for row in rows]


# --- case 38: hydration of a mixed session -------------------------------------------------

HYDRATE_EVENTS = make_events(
    user("previous request"),
    call("call_1", "grep", '{"pattern":"Zero"}'),
    (
        "permission_decision",
        {
            "toolCallId": "call_1",
            "name": "grep",
            "action": "allow",
            "decisionAction": "allow",
            "permission": "allow",
            "permissionMode": "ask",
            "sideEffect": "read",
            "scope": "src",
            "risk": {"level": "low"},
        },
    ),
    result("call_1", "grep", "matches", status="error"),
    assistant("previous answer"),
    ("error", {"message": "old error"}),
)


def test_hydration_rows_in_order() -> None:
    rows = rows_from_events(HYDRATE_EVENTS)
    assert summary(rows) == [
        ("user", "previous request", ""),
        ("tool_call", "tool call: grep", "call_1"),
        ("permission", "permission: grep allow", "call_1"),
        ("tool_result", "tool result: grep error matches", "call_1"),
        ("assistant", "previous answer", ""),
        ("error", "old error", ""),
    ]
    tool_call, permission, tool_result, answer = rows[1], rows[2], rows[3], rows[4]
    assert (tool_call.tool, tool_call.detail) == ("grep", "Zero")
    assert permission.permission is not None
    assert (permission.permission.scope, permission.permission.risk.level) == ("src", "low")
    assert (tool_result.status, tool_result.detail) == ("error", "matches")
    assert answer.final
    assert [row.sequences for row in rows] == [(1,), (2,), (3,), (4,), (5,), (6,)]


def test_result_card_carries_its_call() -> None:
    rows = rows_from_events(HYDRATE_EVENTS)
    info = rows[3].tool_info
    assert info is not None
    assert info.arguments == '{"pattern":"Zero"}'
    assert (info.target, info.call_sequence, info.result_sequence) == ("Zero", 2, 4)
    assert (info.output, info.status) == ("matches", "error")


# --- cases 38-40: the resume summary card --------------------------------------------------

HYDRATE_META = Metadata(session_id="h1", title="Hydrate me", model_id="gpt-4.1", provider="openai")


def test_resume_card_same_model() -> None:
    assert resume_card(HYDRATE_META, 6, model="gpt-4.1", provider="openai") == [
        "Resumed Zero session",
        "status: ok",
        "Session",
        "  id: h1",
        "  title: Hydrate me",
        "  model: gpt-4.1",
        "  provider: openai",
        "  events: 6",
    ]


def test_resume_card_other_model_notes_recorded_values() -> None:
    lines = resume_card(HYDRATE_META, 6, model="claude-x", provider="anthropic")
    assert "  model: claude-x (recorded: gpt-4.1)" in lines
    assert "  provider: anthropic (recorded: openai)" in lines


def test_resume_card_without_model_shows_none_or_session_values() -> None:
    untitled = Metadata(session_id="x1")
    assert resume_card(untitled, 0)[3:] == [
        "  id: x1",
        "  title: untitled",
        "  model: none",
        "  provider: none",
        "  events: 0",
    ]
    adopted = resume_card(HYDRATE_META, 6, model="GPT-4.1", provider="openai")
    assert not any("(recorded:" in line for line in adopted)


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ("active", "  goal: active — Ship it (run /goal resume to continue)"),
        ("paused", "  goal: paused — Ship it"),
    ],
)
def test_resume_card_goal_line(status: str, expected: str) -> None:
    meta = dataclasses.replace(HYDRATE_META, goal=Goal(objective="Ship it", status=status))
    assert resume_card(meta, 6, model="gpt-4.1", provider="openai")[-1] == expected


# --- cases 41-44: compaction ---------------------------------------------------------------

COMPACTION = {
    "summary": "early summary",
    "preserveLast": 2,
    "compactableCount": 2,
    "preservedCount": 2,
    "compactedThroughEventId": "s:2",
    "compactedThroughSequence": 2,
    "compactableEvents": [
        {"id": "s:1", "sequence": 1, "type": "message"},
        {"id": "s:2", "sequence": 2, "type": "message"},
    ],
}


@pytest.mark.parametrize(
    "payload",
    [COMPACTION, {k: v for k, v in COMPACTION.items() if k != "compactableEvents"}],
    ids=["refs", "sequence-cutoff"],
)
def test_compaction_summary_row_replaces_compacted_messages(payload: dict[str, Any]) -> None:
    events = make_events(
        user("alpha"),
        assistant("beta"),
        user("gamma"),
        assistant("delta"),
        ("session_compaction", payload),
        user("epsilon"),
    )
    rows = rows_from_events(rehydrate(events))
    assert summary(rows) == [
        ("summary", "early summary", ""),
        ("user", "gamma", ""),
        ("assistant", "delta", ""),
        ("user", "epsilon", ""),
    ]
    assert rows[0].kind is RowKind.SUMMARY
    assert rows[0].sequences == (5,)
    assert not any(row.kind is RowKind.SUMMARY for row in rows[1:])


def test_broken_compaction_on_raw_events_has_no_summary_row() -> None:
    events = make_events(user("alpha"), ("session_compaction", {"summary": ""}), user("beta"))
    rows = rows_from_events(events)
    assert summary(rows) == [("user", "alpha", ""), ("user", "beta", "")]


# --- case 45: specialists ------------------------------------------------------------------

TASK_CALL = ("tool_call", {"name": "Task", "id": "call_ok", "arguments": "{}"})
SPECIALIST_START = (
    "specialist_start",
    {
        "childSessionId": "child-1",
        "toolCallId": "call_ok",
        "specialist": "explorer",
        "status": "running",
    },
)
TASK_RESULT = (
    "tool_result",
    {"name": "Task", "toolCallId": "call_ok", "status": "ok", "output": "done"},
)
SPECIALIST_STOP = ("specialist_stop", {"childSessionId": "child-1", "status": "success"})


def test_specialist_card_replaces_task_rows() -> None:
    rows = rows_from_events(make_events(TASK_CALL, SPECIALIST_START, TASK_RESULT))
    assert [row.kind for row in rows] == [RowKind.SPECIALIST]
    assert rows[0].specialist is not None
    assert rows[0].specialist.status == "running"
    assert rows[0].specialist.name == "explorer"


def test_specialist_stop_updates_the_card() -> None:
    rows = rows_from_events(make_events(TASK_CALL, SPECIALIST_START, TASK_RESULT, SPECIALIST_STOP))
    assert len(rows) == 1
    assert rows[0].specialist is not None
    assert rows[0].specialist.status == "completed"
    assert rows[0].sequences == (2, 4)


def test_specialist_stop_without_start_appends_a_card() -> None:
    rows = rows_from_events(make_events(SPECIALIST_STOP))
    assert [(row.kind, row.status) for row in rows] == [(RowKind.SPECIALIST, "completed")]


def test_failed_task_without_specialist_keeps_both_rows() -> None:
    rows = rows_from_events(
        make_events(
            ("tool_call", {"name": "Task", "id": "t1", "arguments": "{}"}),
            result("t1", "Task", "spawn failed", status="error"),
        )
    )
    assert [row.text for row in rows] == ["tool call: Task", "tool result: Task error spawn failed"]
    # Display: the failed result stays; the Task call card is hidden.
    assert [row.text for row in collapse_for_display(rows)] == [
        "tool result: Task error spawn failed"
    ]


# --- cases 46-47: occurrence ids and de-dup -------------------------------------------------


def test_repeated_call_ids_get_occurrence_suffixes() -> None:
    rows = rows_from_events(
        make_events(
            call("g0", "grep"),
            result("g0", "grep", "a"),
            call("g0", "grep"),
            result("g0", "grep", "b"),
        )
    )
    assert [row.id for row in rows] == ["g0", "g0", "g0#2", "g0#2"]
    assert [row.tool_info.occurrence for row in rows if row.tool_info] == [1, 1, 2, 2]


def test_second_result_without_call_is_a_duplicate() -> None:
    rows = rows_from_events(
        make_events(call("g0", "grep"), result("g0", "grep", "a"), result("g0", "grep", "b"))
    )
    assert [row.text for row in rows] == ["tool call: grep", "tool result: grep ok a"]


def test_call_with_only_tool_call_id_pairs_with_its_result() -> None:
    rows = rows_from_events(
        make_events(
            ("tool_call", {"toolCallId": "t9", "name": "bash", "arguments": '{"command":"ls"}'}),
            result("t9", "bash", "file.txt"),
        )
    )
    assert [row.id for row in rows] == ["t9", "t9"]
    shown = collapse_for_display(rows)
    assert [row.kind for row in shown] == [RowKind.TOOL_RESULT]
    assert shown[0].tool_info is not None
    assert shown[0].tool_info.target == "ls"


# --- case 48: result text ------------------------------------------------------------------


def test_long_output_is_cut_at_240_bytes() -> None:
    rows = rows_from_events(make_events(result("c", "bash", "x" * 300)))
    assert rows[0].text == "tool result: bash ok " + "x" * 240 + " [truncated]"
    assert rows[0].tool_info is not None
    assert rows[0].tool_info.output == "x" * 300


def test_crlf_output_is_flattened_and_missing_status_is_ok() -> None:
    events = make_events(
        ("tool_result", {"toolCallId": "c", "name": "bash", "output": "line1\r\nline2"})
    )
    rows = rows_from_events(events)
    assert rows[0].text == "tool result: bash ok line1 line2"
    assert rows[0].status == "ok"


def test_multibyte_character_straddling_the_limit_is_dropped() -> None:
    output = "x" * 239 + "é" + "tail"
    rows = rows_from_events(make_events(result("c", "bash", output)))
    assert rows[0].text == "tool result: bash ok " + "x" * 239 + " [truncated]"


# --- case 49: display preview and changes --------------------------------------------------


def test_display_preview_changed_files_and_summaries() -> None:
    preview = (
        "--- a/calculator.go\n+++ b/calculator.go\n@@ -4,1 +4,1 @@\n-oldValue := 1\n+newValue := 2"
    )
    payload = {
        "toolCallId": "edit-1",
        "name": "edit_file",
        "status": "ok",
        "output": "Successfully edited calculator.go (replaced 1 occurrence).",
        "displayPreview": preview,
        "changedFiles": ["pkg/a.go", "", "pkg/b.go"],
        "changeSummaries": [{"path": "node_modules/", "kind": "created", "aggregated": True}],
        "meta": {"exit_code": "0", "ignored": 3},
    }
    row = rows_from_events(make_events(("tool_result", payload)))[0]
    assert row.detail == preview
    assert row.tool_info is not None
    assert row.tool_info.display_preview == preview
    assert row.tool_info.changed_files == ["pkg/a.go", "pkg/b.go"]
    summary_entry = row.tool_info.change_summaries[0]
    assert (summary_entry.path, summary_entry.kind, summary_entry.aggregated) == (
        "node_modules/",
        "created",
        True,
    )
    assert row.tool_info.meta == {"exit_code": "0"}


# --- case 50: permissions ------------------------------------------------------------------

SILENT_ALLOW = {
    "toolCallId": "c1",
    "name": "read_file",
    "action": "allow",
    "permission": "allow",
    "permissionMode": "auto",
    "sideEffect": "read",
    "grantMatched": True,
    "risk": {"level": "low"},
}


def test_silent_auto_approval_has_no_row() -> None:
    assert rows_from_events(make_events(("permission_decision", SILENT_ALLOW))) == []


def test_blocked_allow_has_a_row() -> None:
    block = {"code": "network", "action": "network", "reason": "x", "recoverable": True}
    payload = dict(SILENT_ALLOW, block=dict(block, risk={"level": "high"}))
    rows = rows_from_events(make_events(("permission_decision", payload)))
    assert len(rows) == 1
    assert rows[0].permission is not None
    assert rows[0].permission.block is not None
    assert rows[0].permission.block.risk.level == "high"


def test_prompt_then_deny_gives_two_rows_and_the_prompt_is_hidden() -> None:
    base = {
        "toolCallId": "c2",
        "name": "write_file",
        "permission": "prompt",
        "permissionMode": "ask",
        "sideEffect": "write",
        "risk": {"level": "medium"},
    }
    rows = rows_from_events(
        make_events(
            ("permission_request", dict(base, action="prompt")),
            ("permission_decision", dict(base, action="deny", decisionReason="denied in TUI")),
        )
    )
    assert [row.text for row in rows] == [
        "permission: write_file prompt",
        "permission: write_file deny",
    ]
    assert [row.text for row in collapse_for_display(rows)] == ["permission: write_file deny"]


# --- case 51: attachments ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("attachments", "label"),
    [
        ({"images": 1, "documents": 2}, "[Image #1] [Document #1] [Document #2]"),
        (
            {"images": 1000000000, "documents": 1000000000},
            "[Image #1] [Image #2] [Image #3] [Image #4] [Document #1] [Document #2] "
            "[Document #3] [Document #4] [+120 attachments]",
        ),
        ({"images": 1.5}, ""),
        ({"images": "2"}, ""),
        ({"images": True}, ""),
    ],
)
def test_user_attachment_summary(attachments: dict[str, Any], label: str) -> None:
    payload = {"role": "user", "content": "describe this", "attachments": attachments}
    row = rows_from_events(make_events(("message", payload)))[0]
    assert row.kind is RowKind.USER
    assert row.attachments.label() == label
    assert row.attachments.empty == (label == "")


# --- cases 52-54: peers, ask_user, other roles and silent types -----------------------------


def test_peer_message_is_a_peer_row() -> None:
    """Zero's system row with tool `peer`: here a kind of its own."""
    payload = {
        "role": "user",
        "origin": "cross_session",
        "from": " Builder [abcd1234] ",
        "content": "<cross-session-message>hidden envelope</cross-session-message>",
        "displayContent": "Visible peer body",
    }
    rows = rows_from_events(make_events(("message", payload)))
    assert summary(rows) == [("peer", "Message from Builder [abcd1234]\nVisible peer body", "")]
    assert rows[0].tool == "peer"
    assert turn_start_indices(rows) == []


def test_ask_user_rows_and_answers() -> None:
    question = {"question": "Which DB?", "options": ["pg", "sqlite"]}
    rows = rows_from_events(
        make_events(
            (
                "message",
                {
                    "role": "ask_user",
                    "toolCallId": "q1",
                    "header": "Database",
                    "questions": [question],
                },
            ),
            ("message", {"role": "ask_user", "toolCallId": "q2", "questions": [question]}),
            ("message", {"role": "ask_user_answers", "toolCallId": "q1", "answers": ["pg", ""]}),
            ("message", {"role": "ask_user_answers", "toolCallId": "q2", "answers": []}),
        )
    )
    assert summary(rows) == [
        ("ask_user", "ask_user: Database", "q1"),
        ("ask_user", "ask_user: 1 question(s)", "q2"),
        ("system", "Answers\n1. pg\n2. (skipped)", ""),
    ]
    assert rows[0].detail == "1. Which DB?  (pg, sqlite)"


def test_goal_fork_and_silent_event_types() -> None:
    rows = rows_from_events(
        make_events(
            ("message", {"role": "goal", "content": "Continue the goal"}),
            ("session_fork", {"parentSessionId": "p1"}),
            ("provider_usage", {"totalTokens": 3}),
            ("session_checkpoint", {"tool": "edit_file", "files": []}),
            ("session_rewind", {"targetSequence": 1}),
            ("session_child", {"childSessionId": "c"}),
            ("goal_created", {"objective": "x", "status": "active"}),
            ("spec_draft", {"specId": "s"}),
            ("mystery", None),
            ("message", {"role": "assistant", "content": ""}),
        )
    )
    assert summary(rows) == [
        ("system", "Continue the goal", ""),
        ("fork", "forked from session: p1", ""),
    ]
    assert rows[1].kind is RowKind.FORK
    assert rows[0].kind is RowKind.SYSTEM


def test_undecodable_and_non_object_payloads_are_empty() -> None:
    events = [
        Event(id="s:1", session_id="s", sequence=1, type="message", payload_raw=b"{broken"),
        Event(id="s:2", session_id="s", sequence=2, type="error", payload_raw=b"[1,2]"),
        Event(id="s:3", session_id="s", sequence=3, type="error", payload_raw=b'{"message":3}'),
    ]
    assert summary(rows_from_events(events)) == [("error", "3", "")]


# --- display collapse ----------------------------------------------------------------------


def test_collapse_hides_plumbing_and_folds_calls() -> None:
    rows = rows_from_events(
        make_events(
            call("a", "read_file", '{"path":"x.go"}'),
            result("a", "read_file", "package x"),
            call("b", "bash", '{"command":"sleep 100"}'),
            call("p", "update_plan"),
            result("p", "update_plan", "plan updated"),
            call("t", "TaskOutput"),
            result("t", "TaskOutput", "output"),
            call("s", "tool_search"),
            result("s", "tool_search", "boom", status="error"),
        )
    )
    shown = [(row.kind.value, row.id) for row in collapse_for_display(rows)]
    assert shown == [
        ("tool_result", "a"),
        ("tool_call", "b"),  # no result yet: the call card stays
        ("tool_result", "p"),  # update_plan results stay (a checklist)
        ("tool_result", "s"),  # failed plumbing results stay
    ]


def test_collapse_permission_rules() -> None:
    def permission(call_id: str, action: str, decision: str = "") -> tuple[str, Any]:
        payload = {"toolCallId": call_id, "name": "bash", "action": action}
        if decision:
            payload["decisionAction"] = decision
        kind = "permission_request" if action == "prompt" else "permission_decision"
        return (kind, payload)

    rows = rows_from_events(
        make_events(
            permission("p1", "prompt"),
            permission("p1", "allow", "allow"),
            permission("p2", "allow", "allow_for_session"),
            permission("p3", "prompt"),
            permission("p4", "cancel"),
        )
    )
    assert len(rows) == 5
    shown = [
        (row.id, row.permission.action) for row in collapse_for_display(rows) if row.permission
    ]
    assert shown == [("p1", "allow"), ("p3", "prompt"), ("p4", "cancel")]
    assert visible_row_indices(rows) == [1, 3, 4]


# --- turns and incremental building --------------------------------------------------------


def test_turns_start_at_user_rows() -> None:
    rows = rows_from_events(
        make_events(
            ("session_fork", {"parentSessionId": "p"}),
            user("one"),
            assistant("a"),
            user("two"),
            call("c", "bash"),
            assistant("b"),
        )
    )
    assert [row.turn for row in rows] == [0, 1, 1, 2, 2, 2]
    assert turn_start_indices(rows) == [1, 3]


INCREMENTAL_CASES = {
    "mixed": HYDRATE_EVENTS,
    "specialist-after-task": make_events(
        user("go"),
        TASK_CALL,
        TASK_RESULT,
        assistant("between"),
        SPECIALIST_START,
        SPECIALIST_STOP,
        assistant("done"),
    ),
    "specialist-renumbers-same-id": make_events(
        TASK_CALL,
        ("tool_call", {"name": "bash", "id": "call_ok", "arguments": '{"command":"ls"}'}),
        result("call_ok", "bash", "listing"),
        result("call_ok", "bash", "again"),
        SPECIALIST_START,
        call("call_ok", "grep"),
        result("call_ok", "grep", "found"),
    ),
    "repeats-and-permissions": make_events(
        user("x"),
        call("g0", "grep"),
        result("g0", "grep", "a"),
        call("g0", "grep"),
        result("g0", "grep", "b"),
        result("g0", "grep", "c"),
        ("permission_request", {"toolCallId": "g0", "name": "grep", "action": "prompt"}),
        ("permission_decision", {"toolCallId": "g0", "name": "grep", "action": "deny"}),
        ("permission_decision", {"toolCallId": "g0", "name": "grep", "action": "deny"}),
        SPECIALIST_STOP,
        SPECIALIST_START,
        SPECIALIST_STOP,
    ),
}


@pytest.mark.parametrize("name", sorted(INCREMENTAL_CASES))
@pytest.mark.parametrize("chunk", [1, 2, 3])
def test_incremental_building_equals_batch(name: str, chunk: int) -> None:
    events = INCREMENTAL_CASES[name]
    expected = snapshot(rows_from_events(events))
    builder = RowBuilder()
    for start in range(0, len(events), chunk):
        before = snapshot(builder.rows)
        changed = builder.add_events(events[start : start + chunk])
        after = snapshot(builder.rows)
        if changed is None:
            assert after == before
        else:
            # Rows before the reported index are untouched.
            assert after[:changed] == before[:changed]
            assert after[changed:] != before[changed:]
    assert snapshot(builder.rows) == expected


def test_late_specialist_start_removes_task_rows() -> None:
    builder = RowBuilder()
    builder.add_events(make_events(user("go"), TASK_CALL, TASK_RESULT))
    assert [row.kind for row in builder.rows] == [
        RowKind.USER,
        RowKind.TOOL_CALL,
        RowKind.TOOL_RESULT,
    ]
    changed = builder.add_events(make_events(SPECIALIST_START)[:1])
    assert changed == 1
    assert [row.kind for row in builder.rows] == [RowKind.USER, RowKind.SPECIALIST]


def test_renumbering_matches_batch_ids() -> None:
    rows = rows_from_events(INCREMENTAL_CASES["specialist-renumbers-same-id"])
    assert [(row.kind.value, row.id) for row in rows] == [
        ("tool_call", "call_ok"),
        ("tool_result", "call_ok"),
        ("specialist", ""),
        ("tool_call", "call_ok#2"),
        ("tool_result", "call_ok#2"),
    ]


# --- sanitiser (case 63 plus C1) and the text rendering ------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("line one\n\tindented\nline three", "line one\n\tindented\nline three"),
        ("a\x07b\x1bc", "abc"),
        ("\x00command-card\x00Profile", "command-cardProfile"),
        ("a.go\x00b.go", "a.gob.go"),
        ("x\r\ny", "x\ny"),
        ("\x7f", ""),
        ("c1\x9b31mred\x85", "c131mred"),
        ("ümlaut 完了 🎉", "ümlaut 完了 🎉"),
    ],
)
def test_sanitize_text(text: str, expected: str) -> None:
    assert sanitize_text(text) == expected


def test_render_text_prefixes_and_header() -> None:
    meta = Metadata(
        session_id="h1",
        title="Hydrate me",
        cwd="/w",
        model_id="gpt-4.1",
        provider="openai",
        event_count=6,
        updated_at="2026-07-04T12:00:00Z",
    )
    events = make_events(
        user("previous request"),
        call("c1", "bash", '{"command":"go test ./..."}'),
        result("c1", "bash", "\n".join(f"line {n}" for n in range(1, 21))),
        assistant("previous answer"),
        ("error", {"message": "old error"}),
        ("session_compaction", {"summary": "what happened before"}),
    )
    text = render_transcript_text(meta, collapse_for_display(rows_from_events(events)))
    assert text.startswith("session h1\n  title: Hydrate me\n  cwd: /w\n")
    assert "  events: 6\n" in text
    assert "\n\nyou: previous request\n\n" in text
    assert "tool bash [ok] go test ./...\n    line 1\n" in text
    assert "    … (14 more lines)" in text
    assert "line 20" not in text
    assert "\n\nzero: previous answer\n\n" in text
    assert "\n\nerror: old error\n\n" in text
    assert "· summary of earlier conversation:\n    what happened before\n" in text


def test_render_text_neutralises_hostile_text() -> None:
    meta = Metadata(session_id="evil", title="[bold]not markup[/bold]\x1b[2J")
    events = make_events(
        user("[red]x[/red]\x1b]0;title\x07"),
        assistant("\x1b[31mred\x1b[0m <script>alert(1)</script>\r\x9b2J"),
        result("c", "bash", "\x1b[1mbold\x1b[0m"),
    )
    text = render_transcript_text(meta, collapse_for_display(rows_from_events(events)))
    assert "\x1b" not in text
    assert "\x07" not in text
    assert "\r" not in text
    assert "\x9b" not in text
    assert "title: [bold]not markup[/bold][2J" in text
    assert "zero: [31mred[0m <script>alert(1)</script>2J" in text
    assert "you: [red]x[/red]]0;title" in text
