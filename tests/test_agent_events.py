"""stream-json lines -> typed events (zero-exec.md §2), from §2.5's exact example lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from zero_tui.agent.stream import (
    UNREADABLE_TEXT_LIMIT,
    AgentError,
    AgentWarning,
    CheckpointSaved,
    FinalAnswer,
    PermissionEvent,
    ReasoningDelta,
    RunEnd,
    RunStart,
    TextDelta,
    ToolCall,
    ToolResult,
    Unreadable,
    Usage,
    parse_line,
)

GOLDEN = Path(__file__).resolve().parent / "golden"
SPEC = Path(__file__).resolve().parents[1].parent / "shared" / "spec" / "zero-exec.md"
RID = "run_20260604120500_0b7e22"
SID = "zero_20260604113000_1780572600000000000_10"
P = f'"runId":"{RID}","schemaVersion":2'


def example(name: str) -> list[bytes]:
    """The lines of zero-exec.md §2.5's example `name` (A to D), kept verbatim in golden/."""
    return (GOLDEN / f"stream-json-{name}.jsonl").read_bytes().splitlines(keepends=True)


def parse(text: str) -> object:
    return parse_line(text.encode("utf-8") + b"\n")


def test_the_golden_lines_are_the_specs_verbatim() -> None:
    if not SPEC.is_file():
        pytest.skip("the shared reference folder (../shared) is not available")
    spec_lines = set(SPEC.read_bytes().splitlines())
    for name in "abcd":
        for line in example(name):
            assert line.rstrip(b"\n") in spec_lines


def test_example_a_plain_answer() -> None:
    rid = "run_20260604120000_3f9a1c"
    assert [parse_line(line) for line in example("a")] == [
        RunStart(rid, SID, "/home/dev/webapp", "openai", "gpt-5", "gpt-5"),
        TextDelta("Tiny web app & "),
        TextDelta("date parser; go test."),
        Usage(2480, 9, 2489),
        FinalAnswer("Tiny web app & date parser; go test."),
        RunEnd("success", 0),
    ]


def test_example_b_one_tool_call() -> None:
    assert [parse_line(line) for line in example("b")] == [
        RunStart(RID, SID, "/home/dev/webapp", "openai", "gpt-5", "gpt-5"),
        TextDelta("Writing the summary file."),
        Usage(2510, 41, 2551),
        ToolCall(
            "call_7", "write_file", {"content": "A tiny web app.\n", "path": "SUMMARY.md"}, "write"
        ),
        CheckpointSaved(10, "write_file", ("SUMMARY.md",)),
        PermissionEvent(
            "decision",
            "call_7",
            "write_file",
            "allow",
            "workspace write is allowed",
            False,
            risk_level="medium",
            risk_categories=("write",),
        ),
        ToolResult(
            "call_7",
            "write_file",
            "ok",
            "Created SUMMARY.md (1 lines).",
            False,
            "Created SUMMARY.md (1 lines).",
            display_kind="file",
            changed_files=("SUMMARY.md",),
        ),
        TextDelta("Done: SUMMARY.md created."),
        Usage(2600, 8, 2608),
        FinalAnswer("Done: SUMMARY.md created."),
        RunEnd("success", 0),
    ]


def test_examples_c_and_d_errors() -> None:
    assert [parse_line(line) for line in example("c")] == [
        RunStart("run_20260604121000_c41d09", SID, "/home/dev/webapp", "openai", "gpt-5", "gpt-5"),
        AgentError("provider_error", "openai: 429 Too Many Requests: rate limit reached"),
        RunEnd("error", 3),
    ]
    assert [parse_line(line) for line in example("d")] == [
        AgentError("usage_error", "Zero session not found: zero_missing"),
        RunEnd("error", 2),
    ]


def test_cancelled_run_end() -> None:
    error = (
        '{"code":"interrupted","message":"run cancelled by signal","recoverable":false,'
        f'{P},"type":"error"}}'
    )
    assert parse(error) == AgentError("interrupted", "run cancelled by signal")
    assert parse(f'{{"exitCode":130,{P},"status":"interrupted","type":"run_end"}}') == RunEnd(
        "interrupted", 130
    )


def test_reasoning_warning_request_and_empty_final() -> None:
    assert parse(f'{{"delta":"Thinking. ",{P},"type":"reasoning"}}') == ReasoningDelta("Thinking. ")
    warning = (
        '{"message":"Unsafe permissions are active for this run because --auto high was passed.",'
        f'{P},"type":"warning"}}'
    )
    assert parse(warning) == AgentWarning(
        "Unsafe permissions are active for this run because --auto high was passed."
    )
    request = (
        '{"action":"prompt","id":"call_2","name":"bash","permission":"prompt",'
        f'"permissionGranted":false,{P},"reason":"needs approval","type":"permission_request"}}'
    )
    assert parse(request) == PermissionEvent(
        "request", "call_2", "bash", "prompt", "needs approval", False
    )
    assert parse(f'{{{P},"type":"final"}}') == FinalAnswer("")


def test_tool_call_with_raw_string_args_and_no_args() -> None:
    raw = (
        f'{{"args":"not json {{","id":"c1","name":"bash",{P},'
        '"sideEffect":"shell","type":"tool_call"}'
    )
    assert parse(raw) == ToolCall("c1", "bash", "not json {", "shell")
    bare = f'{{"id":"c2","name":"list",{P},"sideEffect":"read","type":"tool_call"}}'
    assert parse(bare) == ToolCall("c2", "list", None, "read")


@pytest.mark.parametrize(
    "line",
    [
        "",
        "   ",
        f'{{{P},"type":"restore","checkpoint":{{"filesRestored":1}}}}',
        f'{{{P},"type":"something_new","x":1}}',
    ],
)
def test_blank_lines_and_unknown_types_give_none(line: str) -> None:
    assert parse(line) is None


def test_unknown_keys_are_ignored() -> None:
    line = f'{{"delta":"x","future":{{"a":[1,2]}},{P},"type":"text"}}'
    assert parse(line) == TextDelta("x")


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("this is not json", "not JSON"),
        ('{"delta":"x",', "not JSON"),
        ("[1,2,3]", "not a JSON object"),
        ('"a string"', "not a JSON object"),
        (f'{{"delta":"old","runId":"{RID}","schemaVersion":1,"type":"text"}}', "schemaVersion 1"),
        ('{"delta":"x","type":"text"}', "schemaVersion missing"),
        ('{"schemaVersion":"2","type":"text"}', 'schemaVersion "2"'),
        ('{"schemaVersion":true,"type":"text"}', "schemaVersion true"),
        ('{"schemaVersion":2}', "no event type"),
        ('{"schemaVersion":2,"type":7}', "no event type"),
        ('{"schemaVersion":NaN,"type":"text"}', "not JSON"),
    ],
)
def test_unreadable_lines(line: str, reason: str) -> None:
    event = parse(line)
    assert isinstance(event, Unreadable)
    assert event.reason.startswith(reason)
    assert event.text == line


def test_unreadable_text_is_cut_and_invalid_utf8_replaced() -> None:
    event = parse_line(b"\xff\xfe garbage " + b"y" * 10_000)
    assert isinstance(event, Unreadable)
    assert len(event.text) == UNREADABLE_TEXT_LIMIT
    assert event.text.startswith("\ufffd\ufffd garbage yyy")
    assert event.text.endswith("…")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (f'{{"delta":5,{P},"type":"text"}}', TextDelta("")),
        (f'{{"delta":null,{P},"type":"reasoning"}}', ReasoningDelta("")),
        (
            f'{{"completionTokens":"2","promptTokens":1.5,{P},"totalTokens":3,"type":"usage"}}',
            Usage(0, 0, 3),
        ),
        (f'{{"exitCode":"0",{P},"status":0,"type":"run_end"}}', RunEnd("", None)),
        (f'{{"exitCode":2.0,{P},"status":"error","type":"run_end"}}', RunEnd("error", 2)),
        (
            f'{{"checkpoint":[1],{P},"type":"checkpoint"}}',
            CheckpointSaved(0, "", ()),
        ),
        (
            f'{{"checkpoint":{{"files":["a",3,null],"sequence":"9"}},{P},"type":"checkpoint"}}',
            CheckpointSaved(0, "", ("a",)),
        ),
        (
            f'{{"display":"x","id":7,"output":["no"],{P},"truncated":"yes","type":"tool_result"}}',
            ToolResult("", "", "", "", False, ""),
        ),
        (
            f'{{"permissionGranted":1,"risk":"high",{P},"type":"permission"}}',
            PermissionEvent("other", "", "", "", "", False),
        ),
        (f'{{"text":{{"a":1}},{P},"type":"final"}}', FinalAnswer("")),
        (f'{{"code":1,"message":[],{P},"type":"error"}}', AgentError("", "")),
    ],
)
def test_wrong_typed_fields_read_as_absent(line: str, expected: object) -> None:
    assert parse(line) == expected


def test_a_five_megabyte_line_parses() -> None:
    text = "0123456789abcdef" * (5 * 1024 * 1024 // 16)
    line = f'{{"delta":"{text}",{P},"type":"text"}}'.encode()
    assert parse_line(line) == TextDelta(text)
