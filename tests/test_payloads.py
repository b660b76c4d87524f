"""Typed payloads (`store.payloads`, `store.payload_decoder`): every event type Zero writes,
unknown types kept, and Go's rules for repeated keys, null and wrong types — as a map where
Zero's TUI reads one, into a struct where Zero unmarshals one. The struct cases were checked
against Go 1.26's encoding/json."""

from __future__ import annotations

from typing import Any

import pytest

from zero_tui.store import Event, Goal, StoreError
from zero_tui.store.events import compaction_plan, rehydrate
from zero_tui.store.gojson import marshal
from zero_tui.store.payload_decoder import KNOWN_TYPES, decode_payload
from zero_tui.store.payloads import (
    AskUserQuestion,
    ChangeSummary,
    CheckpointFile,
    CheckpointPayload,
    ChildPayload,
    CompactionPayload,
    ErrorPayload,
    EventRef,
    ForkPayload,
    GoalPayload,
    MessageKind,
    MessagePayload,
    PermissionBlock,
    PermissionPayload,
    PermissionRisk,
    RestoreReport,
    RewindPayload,
    SpecialistStartPayload,
    SpecialistStopPayload,
    SpecPayload,
    ToolCallPayload,
    ToolResultPayload,
    UnknownPayload,
    UsagePayload,
)
from zero_tui.transcript.rows import rows_from_events


def event(event_type: str, payload: bytes | dict[str, Any] | None, sequence: int = 1) -> Event:
    raw = marshal(payload) if isinstance(payload, dict) else payload
    return Event(
        id=f"s:{sequence}", session_id="s", sequence=sequence, type=event_type, payload_raw=raw
    )


def decoded(event_type: str, payload: bytes | dict[str, Any] | None) -> Any:
    return decode_payload(event(event_type, payload))


# --- every type of store-format §11 -------------------------------------------------------


def test_every_type_zero_writes_has_a_payload_class() -> None:
    written = {
        "message",
        "tool_call",
        "tool_result",
        "permission_request",
        "permission_decision",
        "permission",
        "provider_usage",
        "error",
        "session_checkpoint",
        "session_rewind",
        "session_compaction",
        "session_fork",
        "session_child",
        "specialist_start",
        "specialist_stop",
        "spec_draft",
        "spec_approved",
        "spec_rejected",
        "goal_created",
        "goal_updated",
        "goal_cleared",
    }
    assert written == KNOWN_TYPES


def test_plain_message() -> None:
    message = decoded("message", {"role": "assistant", "content": "hi"})
    assert message == MessagePayload(role="assistant", content="hi")
    assert message.kind is MessageKind.ASSISTANT
    assert dict(message.raw) == {"role": "assistant", "content": "hi"}


def test_user_message_with_attachments_and_unknown_keys() -> None:
    message = decoded(
        "message",
        {
            "role": "user",
            "content": "look",
            "attachments": {"images": 2, "documents": 1000},
            "futureKey": [1, 2],
        },
    )
    assert (message.kind, message.images, message.documents) == (MessageKind.USER, 2, 64)
    assert message.raw["futureKey"] == [1, 2]  # kept as it is


@pytest.mark.parametrize(
    ("count", "expected"), [(3, 3), (3.0, 3), (1.5, 0), (-2, 0), ("2", 0), (True, 0), (None, 0)]
)
def test_attachment_counts_are_whole_positive_numbers(count: object, expected: int) -> None:
    message = decoded("message", {"role": "user", "content": "x", "attachments": {"images": count}})
    assert message.images == expected


def test_peer_message() -> None:
    message = decoded(
        "message",
        {
            "role": "User",
            "origin": "cross_session",
            "from": "Builder",
            "content": "<envelope>",
            "displayContent": "body",
        },
    )
    assert message.kind is MessageKind.PEER
    assert (message.sender, message.display_content) == ("Builder", "body")


def test_ask_user_and_answers() -> None:
    ask = decoded(
        "message",
        {
            "role": "ask_user",
            "toolCallId": "q1",
            "header": "DB",
            "questions": [
                {"question": "Which?", "options": ["pg", 5, "sqlite"], "multiSelect": "TRUE "},
                "not a question",
            ],
        },
    )
    assert ask.kind is MessageKind.ASK_USER
    assert (ask.tool_call_id, ask.header) == ("q1", "DB")
    assert ask.questions == (AskUserQuestion("Which?", ("pg", "sqlite"), multi_select=True),)
    answers = decoded("message", {"role": "ask_user_answers", "answers": ["pg", 7, None, ""]})
    assert answers.kind is MessageKind.ASK_USER_ANSWERS
    assert answers.answers == ("pg", "", "", "")


@pytest.mark.parametrize(
    ("role", "kind"),
    [
        ("user", MessageKind.USER),
        ("USER", MessageKind.USER),
        ("assistant", MessageKind.ASSISTANT),
        ("goal", MessageKind.OTHER),
        ("", MessageKind.OTHER),
        ("Ask_User", MessageKind.ASK_USER),
    ],
)
def test_message_kind_follows_the_role(role: str, kind: MessageKind) -> None:
    assert decoded("message", {"role": role, "content": "x"}).kind is kind


def test_tool_call() -> None:
    payload = {"id": "c1", "toolCallId": "  t9 ", "name": "grep", "arguments": "{}"}
    call = decoded("tool_call", payload)
    assert call == ToolCallPayload(call_id="t9", name="grep", arguments="{}")
    assert decoded("tool_call", {"id": " c1", "toolCallId": "  "}).call_id == "c1"


def test_tool_result() -> None:
    result = decoded(
        "tool_result",
        {
            "toolCallId": "c1",
            "name": "edit",
            "status": "error",
            "output": "out",
            "displayPreview": "diff",
            "meta": {"exit": "1", "n": 2},
            "changedFiles": ["a.go", "", 3, "b.go"],
            "changeSummaries": [{"path": "x/", "kind": "created", "aggregated": True, "count": 2}],
            "truncated": True,
            "redacted": "true",
        },
    )
    assert result == ToolResultPayload(
        call_id="c1",
        name="edit",
        status="error",
        output="out",
        display_preview="diff",
        meta={"exit": "1"},
        changed_files=("a.go", "b.go"),
        change_summaries=(ChangeSummary("x/", "created", aggregated=True, count=2),),
        truncated=True,
        redacted=True,
    )


def test_permission_with_a_block_takes_the_permission_risk_unless_it_has_one() -> None:
    payload = {
        "id": "c2",
        "toolName": "write_file",
        "action": "deny",
        "decisionAction": "deny",
        "grantMatched": True,
        "risk": {"level": "medium", "reason": "writes"},
        "block": {"code": "network", "path": "/x", "recoverable": True},
    }
    permission = decoded("permission_decision", payload)
    assert isinstance(permission, PermissionPayload)
    assert (permission.tool_call_id, permission.tool_name) == ("c2", "write_file")
    assert permission.risk == PermissionRisk("medium", "writes")
    assert permission.block == PermissionBlock(
        code="network", path="/x", recoverable=True, risk=PermissionRisk("medium", "writes")
    )
    payload["block"] = {"code": "network", "risk": {"level": "high"}}
    blocked = decoded("permission", payload)
    assert blocked.block is not None
    assert blocked.block.risk == PermissionRisk("high", "")
    assert decoded("permission_request", {"action": "prompt"}).block is None


def test_usage_is_unmarshalled_as_the_usage_report_does() -> None:
    usage = decoded(
        "provider_usage",
        {"promptTokens": 10, "completionTokens": 5, "totalTokens": 15, "model": "m", "x": 1},
    )
    assert usage == UsagePayload(prompt_tokens=10, completion_tokens=5, total_tokens=15, model="m")
    assert usage.raw["x"] == 1
    assert decoded("provider_usage", None) == UsagePayload()  # the report skips no payload


def test_error_fork_child_and_spec() -> None:
    assert decoded("error", {"message": "boom"}) == ErrorPayload(message="boom")
    fork = decoded(
        "session_fork",
        {
            "copiedEventCount": 1,
            "forkedFromEventId": "p:2",
            "forkedFromSequence": 2,
            "parentEventCount": 2.0,
            "parentSessionId": "p",
        },
    )
    assert fork == ForkPayload(
        parent_session_id="p",
        forked_from_event_id="p:2",
        forked_from_sequence=2,
        copied_event_count=1,
        parent_event_count=2,
    )
    child = decoded("session_child", {"childSessionId": "c", "depth": 1, "agentName": "review"})
    assert child == ChildPayload(child_session_id="c", depth=1, agent_name="review")
    payload = {"specId": "s1", "specStatus": "rejected", "specUserComment": ""}
    spec = decoded("spec_rejected", payload)
    assert spec == SpecPayload(spec_id="s1", spec_status="rejected")


def test_specialist_start_and_stop_are_told_apart() -> None:
    payload = {"childSessionId": "c1", "toolCallId": "t1", "specialist": "explorer"}
    start = decoded("specialist_start", payload)
    stop = decoded("specialist_stop", {**payload, "status": "success", "exitCode": 0})
    assert isinstance(start, SpecialistStartPayload)
    assert isinstance(stop, SpecialistStopPayload)
    assert (stop.child_session_id, stop.specialist, stop.status) == ("c1", "explorer", "success")


def test_checkpoint_rewind_and_goal_are_unmarshalled_into_their_structs() -> None:
    checkpoint = decoded(
        "session_checkpoint",
        {"tool": "write_file", "files": [{"path": "a.txt", "blob": "ab", "bytes": 2, "mode": 420}]},
    )
    assert checkpoint == CheckpointPayload(
        tool="write_file", files=(CheckpointFile("a.txt", "ab", bytes=2, mode=420),)
    )
    report = {"targetSequence": 3, "filesRestored": 1, "skipped": ["x"]}
    rewind = decoded("session_rewind", {"targetSequence": 3, "report": report})
    assert rewind == RewindPayload(
        target_sequence=3, report=RestoreReport(3, files_restored=1, skipped=("x",))
    )
    goal = decoded("goal_created", {"objective": "Ship", "status": "active", "tokenBudget": 100})
    assert goal == GoalPayload(goal=Goal(objective="Ship", status="active", token_budget=100))


def test_compaction_holds_the_record_and_what_the_transcript_shows() -> None:
    compaction = decoded(
        "session_compaction",
        {
            "summary": "sum",
            "preserveLast": 2,
            "compactableCount": 2,
            "preservedCount": 1,
            "compactedThroughEventId": "s:2",
            "compactedThroughSequence": 2,
            "compactableEvents": [{"id": "s:1", "sequence": 1, "type": "message"}, {"id": ""}],
            "promptChars": 10,
            "truncated": True,
        },
    )
    assert isinstance(compaction, CompactionPayload)
    assert (compaction.summary, compaction.text, compaction.error) == ("sum", "sum", "")
    assert compaction.compactable_events[0] == EventRef("s:1", 1, "message")
    assert compaction.compacted_ids == frozenset({"s:1"})
    assert compaction.preserve_last == 2
    assert (compaction.prompt_chars, compaction.truncated) == (10, True)


# --- unknown types --------------------------------------------------------------------------


def test_an_unknown_type_keeps_its_type_and_bytes() -> None:
    raw = b'{"b":1,  "a":[true]}'
    unknown = decoded("mystery", raw)
    assert unknown == UnknownPayload("mystery", raw)
    assert unknown.value() == {"b": 1, "a": [True]}
    assert decoded("", None) == UnknownPayload("", None)
    assert rows_from_events([event("mystery", raw)]) == []


# --- Go's map rules (what the TUI reads) -----------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (3, "3"),
        (1.5, "1.5"),
        (1e6, "1e+06"),
        (True, "true"),
        (None, ""),
        ({"b": 1, "a": "<"}, '{"a":"\\u003c","b":1}'),
        ([1, "x"], '[1,"x"]'),
    ],
)
def test_a_map_field_of_another_type_is_written_out(value: object, text: str) -> None:
    assert decoded("message", {"role": "user", "content": value}).content == text


def test_a_map_field_takes_the_last_of_repeated_keys_null_included() -> None:
    assert decoded("error", b'{"message":"a","message":"b"}').message == "b"
    assert decoded("error", b'{"message":"a","message":null}').message == ""


def test_a_map_field_matches_its_key_exactly() -> None:
    assert decoded("error", b'{"Message":"a"}').message == ""


@pytest.mark.parametrize("raw", [None, b"null", b"[1,2]", b'"text"', b"  {}  "])
def test_a_payload_that_is_no_object_reads_as_an_empty_map(raw: bytes | None) -> None:
    assert decoded("tool_result", raw) == ToolResultPayload()
    assert decoded("message", raw).raw == {}


# --- Go's struct rules (what rehydration, rewinds and usage read) ----------------------------


def compaction(raw: bytes | None) -> CompactionPayload:
    payload = decoded("session_compaction", raw)
    assert isinstance(payload, CompactionPayload)
    return payload


def test_a_null_leaves_a_struct_field_as_it_was() -> None:
    payload = compaction(b'{"summary":"a","summary":null}')
    assert (payload.summary, payload.error) == ("a", "")
    assert payload.text == ""  # the transcript's map took the null


def test_struct_keys_match_case_insensitively_in_order() -> None:
    assert compaction(b'{"Summary":"x"}').summary == "x"
    assert compaction(b'{"summary":"x","SUMMARY":"y","summary":"z"}').summary == "z"
    assert compaction(b'{"sUmMaRy":"x","summary":"y"}').summary == "y"


def test_a_wrong_type_keeps_the_field_reports_the_first_error_and_goes_on() -> None:
    payload = compaction(b'{"preserveLast":1.5,"truncated":"yes","summary":"s"}')
    assert (payload.preserve_last, payload.truncated, payload.summary) == (0, False, "s")
    assert payload.error == (
        "cannot unmarshal number 1.5 into Go struct field CompactionPayload.preserveLast "
        "of type int"
    )


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        (
            b'{"preserveLast":"2"}',
            "cannot unmarshal string into Go struct field CompactionPayload.preserveLast "
            "of type int",
        ),
        (
            b'{"preserveLast":99999999999999999999}',
            "cannot unmarshal number 99999999999999999999 into Go struct field "
            "CompactionPayload.preserveLast of type int",
        ),
        (
            b'{"compactableEvents":[{"id":"x","sequence":"2"}]}',
            "cannot unmarshal string into Go struct field EventRef.compactableEvents.sequence "
            "of type int",
        ),
        (
            b'{"compactableEvents":[5]}',
            "cannot unmarshal number into Go struct field CompactionPayload.compactableEvents "
            "of type sessions.EventRef",
        ),
        (
            b'{"compactableEvents":{"id":"x"}}',
            "cannot unmarshal object into Go struct field CompactionPayload.compactableEvents "
            "of type []sessions.EventRef",
        ),
        (b'"x"', "cannot unmarshal string into Go value of type sessions.CompactionPayload"),
        (None, "unexpected end of JSON input"),
    ],
)
def test_struct_errors_read_as_go_writes_them(raw: bytes | None, error: str) -> None:
    assert decoded("session_compaction", raw).error == error


@pytest.mark.parametrize(
    ("event_type", "raw", "error"),
    [
        (
            "session_compaction",
            b'{"compactableEvents":[{"id":"x","type":5}]}',
            "cannot unmarshal number into Go struct field EventRef.compactableEvents.type "
            "of type sessions.EventType",
        ),
        (
            "goal_updated",
            b'{"objective":"o","status":5}',
            "cannot unmarshal number into Go struct field Goal.status of type sessions.GoalStatus",
        ),
        (
            "session_checkpoint",
            b'{"files":[{"path":"a","mode":1e2}]}',
            "cannot unmarshal number 1e2 into Go struct field CheckpointFile.files.mode "
            "of type uint32",
        ),
    ],
)
def test_struct_errors_name_zeros_own_types_and_the_number_as_written(
    event_type: str, raw: bytes, error: str
) -> None:
    assert decoded(event_type, raw).error == error


def test_null_payload_is_a_zero_struct_without_error() -> None:
    assert compaction(b"null") == CompactionPayload()


def test_a_slice_is_emptied_by_null_and_a_repeated_one_reuses_its_elements() -> None:
    emptied = compaction(b'{"compactableEvents":[{"id":"x"}],"compactableEvents":null}')
    assert emptied.compactable_events == ()
    merged = compaction(
        b'{"compactableEvents":[{"id":"x","sequence":1}],"compactableEvents":[{"sequence":2}]}'
    )
    assert merged.compactable_events == (EventRef("x", 2),)


def test_a_repeated_slice_decodes_into_the_elements_a_shorter_one_left_behind() -> None:
    # Go keeps the slice's backing array: the third array's second element is the "b" the
    # first array left there, past the second array's length of one
    payload = compaction(
        b'{"compactableEvents":[{"id":"a"},{"id":"b"}],"compactableEvents":[{"sequence":1}],'
        b'"compactableEvents":[{},{}]}'
    )
    assert payload.compactable_events == (EventRef("a", 1), EventRef("b"))


def test_unsigned_fields_reject_negative_and_too_large_numbers() -> None:
    for mode in (b"-1", b"4294967296"):
        checkpoint = decoded("session_checkpoint", b'{"files":[{"path":"a","mode":' + mode + b"}]}")
        assert checkpoint.files == (CheckpointFile("a"),)
        assert checkpoint.error == (
            f"cannot unmarshal number {mode.decode()} into Go struct field "
            "CheckpointFile.files.mode of type uint32"
        )


def test_change_summaries_go_through_go_marshal_and_unmarshal() -> None:
    # Zero writes the map value back to JSON (numbers through a float64, keys sorted) and
    # unmarshals that into []execution.Change; any error empties the list.
    whole = decoded(
        "tool_result",
        b'{"changeSummaries":[{"path":"a","count":2.0},null,{"PATH":"b","path":"c"}]}',
    )
    assert whole.change_summaries == (
        ChangeSummary("a", count=2),
        ChangeSummary(),
        ChangeSummary("c"),
    )
    for count in (b"2.5", b"1e20", b'"2"'):
        raw = b'{"changeSummaries":[{"path":"a","count":' + count + b"}]}"
        assert decoded("tool_result", raw).change_summaries == ()


def test_change_summaries_with_a_whole_float_count_reach_the_row() -> None:
    raw = b'{"toolCallId":"c","name":"edit","changeSummaries":[{"path":"a/","count":3.0}]}'
    rows = rows_from_events([event("tool_result", raw)])
    assert rows[0].tool_info is not None
    assert rows[0].tool_info.change_summaries == [ChangeSummary("a/", count=3)]


# --- rehydration reads the whole struct -------------------------------------------------------


def compaction_log(raw: bytes | None) -> list[Event]:
    return [
        event("message", {"role": "user", "content": "a"}, 1),
        event("message", {"role": "assistant", "content": "b"}, 2),
        event("session_compaction", raw, 3),
    ]


def test_rehydration_fails_on_any_field_of_the_wrong_type() -> None:
    raw = b'{"summary":"s","compactableEvents":[{"id":"s:1","type":5}]}'
    with pytest.raises(
        StoreError, match=r"EventRef\.compactableEvents\.type of type sessions\.EventType"
    ):
        rehydrate(compaction_log(raw))
    with pytest.raises(StoreError, match=r"CompactionPayload\.preserveLast of type int"):
        rehydrate(compaction_log(b'{"summary":"s","preserveLast":"2"}'))


def test_rehydration_keeps_a_summary_a_later_null_repeats() -> None:
    raw = b'{"summary":"s","summary":null,"compactableEvents":[{"id":"s:1"}]}'
    assert [e.id for e in rehydrate(compaction_log(raw))] == ["s:3", "s:2"]


def test_a_compaction_plan_is_made_from_a_compaction_only() -> None:
    with pytest.raises(TypeError, match="not a session_compaction event: 'message'"):
        compaction_plan(event("message", {"role": "user", "content": "a"}))


def test_rehydration_of_a_compaction_without_payload_says_what_go_says() -> None:
    with pytest.raises(StoreError, match="seq 3: unexpected end of JSON input"):
        rehydrate(compaction_log(None))
    with pytest.raises(StoreError, match="seq 3: summary is required"):
        rehydrate(compaction_log(b"null"))


# --- decoded once ----------------------------------------------------------------------------


def test_the_payload_is_decoded_once_and_again_when_the_bytes_change() -> None:
    first = event("error", {"message": "a"})
    payload = decode_payload(first)
    assert decode_payload(first) is payload
    first.payload_raw = marshal({"message": "b"})
    first._payload_decoded = False
    assert decode_payload(first) == ErrorPayload(message="b")
    first.type = "mystery"
    assert isinstance(decode_payload(first), UnknownPayload)
