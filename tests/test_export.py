"""Transcript exports (design §3.6, tui-behaviour §5) and `zero-tui export`.

Golden files live in tests/golden/; after an intended change to a format, regenerate them
with `ZERO_TUI_UPDATE_GOLDEN=1 pytest tests/test_export.py` and review the diff.
"""

from __future__ import annotations

import io
import json
import os
import re
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from zero_tui.atomic import AtomicWriteError, DestinationExists, write_atomic
from zero_tui.cli import main
from zero_tui.store import Event, SessionStore, StoreError
from zero_tui.text.sanitize import sanitize_line, sanitize_text
from zero_tui.transcript.export import (
    default_export_name,
    export_session,
    export_to_stream,
    json_event,
    load_export_events,
    md_code_span,
    md_fence,
    md_inline,
    md_markdown,
    render_export,
    resolve_export_path,
)
from zero_tui.transcript.export_formats import ExportFormat, ExportFormatError, format_for_path

GOLDEN = Path(__file__).parent / "golden"
UPDATE_GOLDEN = os.environ.get("ZERO_TUI_UPDATE_GOLDEN") == "1"
NOW = datetime(2026, 7, 4, 12, 0, 0, tzinfo=UTC)
SID = "hostile"
FORMATS = [fmt.value for fmt in ExportFormat]
ESC_TITLE = "Fix <b>parser</b> [bold]now[/bold] \x1b[31mred"
HOSTILE = "[bold]markup[/bold] \x1b[31mred\x1b[0m <script>alert(1)</script> </details>"

Spec = tuple[str, object]


def user(text: str) -> Spec:
    return ("message", {"role": "user", "content": text})


def assistant(text: str) -> Spec:
    return ("message", {"role": "assistant", "content": text})


def hostile_events(sid: str = SID) -> list[Spec]:
    """Every row kind Zero's transcript has, with hostile text in every free-text field."""
    return [
        user("an early question, compacted away"),
        assistant("an early answer, compacted away"),
        (
            "session_compaction",
            {
                "summary": "The user asked about **parsing** dates.\n\n"
                "<script>alert('summary')</script>",
                "preserveLast": 0,
                "compactableCount": 2,
                "preservedCount": 0,
                "compactedThroughEventId": f"{sid}:2",
                "compactedThroughSequence": 2,
                "compactableEvents": [
                    {"id": f"{sid}:1", "sequence": 1, "type": "message"},
                    {"id": f"{sid}:2", "sequence": 2, "type": "message"},
                ],
            },
        ),
        ("session_fork", {"parentSessionId": "parent-1"}),
        (
            "message",
            {
                "role": "user",
                "content": f"Fix the parser {HOSTILE}\nsecond line\r\n",
                "attachments": {"images": 1, "documents": 2},
            },
        ),
        (
            "tool_call",
            {"id": "call_1", "name": "grep", "arguments": '{"path":"src","pattern":"</details>"}'},
        ),
        (
            "permission_request",
            {
                "toolCallId": "call_1",
                "name": "grep",
                "action": "prompt",
                "permission": "prompt",
                "permissionMode": "ask",
                "sideEffect": "read",
                "reason": "reads <src>",
                "risk": {"level": "low"},
            },
        ),
        (
            "permission_decision",
            {
                "toolCallId": "call_1",
                "name": "grep",
                "action": "deny",
                "decisionAction": "deny",
                "permission": "prompt",
                "permissionMode": "ask",
                "sideEffect": "read",
                "risk": {"level": "low"},
            },
        ),
        (
            "tool_result",
            {
                "toolCallId": "call_1",
                "name": "grep",
                "status": "ok",
                "output": "src/a.go:1: </details>\n```\n<script>x</script>\n"
                "\x1b]52;c;AAAA\x07 [bold]done[/bold]",
            },
        ),
        (
            "tool_call",
            {
                "id": "call_2",
                "name": "edit_file",
                "arguments": json.dumps(
                    {"path": "p.go", "old": "oldValue := 1", "new": "newValue := 2 // </details>"}
                ),
            },
        ),
        (
            "tool_result",
            {
                "toolCallId": "call_2",
                "name": "edit_file",
                "status": "ok",
                "output": "Successfully edited p.go (replaced 1 occurrence).",
                "displayPreview": "--- a/p.go\n+++ b/p.go\n@@ -1,1 +1,1 @@\n-oldValue := 1\n"
                "+newValue := 2 // </details>",
                "changedFiles": ["p.go"],
                "meta": {"exitCode": "0"},
            },
        ),
        (
            "tool_call",
            {
                "id": "call_5",
                "name": "write_file",
                "arguments": json.dumps(
                    {
                        "path": "notes.md",
                        "content": "# Notes\n```\n</details>\n<script>x</script>\n",
                        "overwrite": True,
                    }
                ),
            },
        ),
        ("tool_result", {"toolCallId": "call_5", "name": "write_file", "status": "ok"}),
        ("tool_call", {"id": "call_3", "name": "bash", "arguments": '{"command":"go test ./..."}'}),
        (
            "tool_result",
            {"toolCallId": "call_3", "name": "bash", "status": "error", "output": "FAIL\tparser"},
        ),
        ("provider_usage", {"promptTokens": 10, "completionTokens": 5, "totalTokens": 15}),
        assistant(
            'Done \u2014 here is the fix:\n\n```go\nfunc Parse() string { return "<b>" }\n```\n\n'
            f"{HOSTILE} and `<b>in code</b>` \x9b31m\x7f\n\n"
            "![logo](https://example.com/x.png) [click](javascript:alert(3)) "
            "<https://example.com/docs>\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
        ),
        ("error", {"message": "provider error: \x1b[2Jboom\x9b31m"}),
        user("Ask me something"),
        (
            "message",
            {
                "role": "ask_user",
                "toolCallId": "q1",
                "header": "Database <b>",
                "questions": [{"question": "Which DB?", "options": ["pg", "sqlite"]}],
            },
        ),
        ("message", {"role": "ask_user_answers", "toolCallId": "q1", "answers": ["pg", ""]}),
        (
            "message",
            {
                "role": "user",
                "origin": "cross_session",
                "from": "Builder [abcd1234]",
                "content": "<cross-session-message>hidden envelope</cross-session-message>",
                "displayContent": "Visible peer body",
            },
        ),
        ("tool_call", {"id": "call_t", "name": "Task", "arguments": '{"task":"map"}'}),
        (
            "specialist_start",
            {
                "childSessionId": "child-1",
                "toolCallId": "call_t",
                "specialist": "explorer",
                "description": "map the repo",
                "status": "running",
            },
        ),
        ("specialist_stop", {"childSessionId": "child-1", "status": "success"}),
        ("tool_call", {"id": "call_4", "name": "read_file", "arguments": '{"path":"README.md"}'}),
        ("message", {"role": "goal", "content": "Continue the goal"}),
        ("message", {"role": "system", "content": "  \n"}),
        ("message", {"role": "system", "content": "note\n\n"}),
        assistant("An unclosed fence:\n\n```sh\necho '<script>'\n"),
        ("error", {"message": "after the unclosed fence </details>"}),
    ]


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("ZERO_TUI_CACHE_DIR", str(cache))
    return cache


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "sessions", clock=lambda: NOW)


@pytest.fixture
def workspace(tmp_path: Path) -> str:
    path = tmp_path / "proj"
    path.mkdir()
    return str(path)


def make_session(store: SessionStore, session_id: str, events: list[Spec], **fields: Any) -> None:
    store.create(session_id, **fields)
    store.append_events(session_id, events)


@pytest.fixture
def hostile(store: SessionStore) -> str:
    make_session(
        store,
        SID,
        hostile_events(),
        title=ESC_TITLE,
        cwd="/home/u/proj",
        model_id="gpt-4.1",
        provider="openai",
    )
    return SID


def export_bytes(store: SessionStore, session_id: str, fmt: str, workspace: str) -> bytes:
    result = export_session(
        store, session_id, fmt=fmt, path=f"out.{fmt}", workspace=workspace, now=NOW
    )
    return Path(result.path).read_bytes()


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# --- golden files ------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_golden_export_is_deterministic_and_matches(
    store: SessionStore, hostile: str, workspace: str, fmt: str
) -> None:
    written = export_bytes(store, hostile, fmt, workspace)
    meta, events, notice = load_export_events(store, hostile)
    assert notice is None
    assert render_export(meta, events, fmt) == written  # same bytes, rendered again
    golden = GOLDEN / f"export-hostile.{fmt}"
    if UPDATE_GOLDEN:
        golden.write_bytes(written)
    assert written == golden.read_bytes()


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_control_character_reaches_an_export(
    store: SessionStore, hostile: str, workspace: str, fmt: str
) -> None:
    text = export_bytes(store, hostile, fmt, workspace).decode("utf-8")
    assert re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", text) is None
    assert "[bold]markup[/bold]" in text  # markup is kept as text, never interpreted


def test_txt_is_zeros_format_without_tool_rows(
    store: SessionStore, hostile: str, workspace: str
) -> None:
    text = export_bytes(store, hostile, "txt", workspace).decode("utf-8")
    blocks = text.split("\n\n")
    assert text.startswith(
        "· Resumed Zero session\nstatus: ok\nSession\n  id: hostile\n"
        "  title: Fix <b>parser</b> [bold]now[/bold] [31mred\n"
        "  model: gpt-4.1\n  provider: openai\n  events: 29\n\n"
    )
    assert "· The user asked about **parsing** dates." in blocks
    assert "you: Fix the parser [bold]markup[/bold] [31mred[0m" in text
    assert "error: provider error: [2Jboom31m" in blocks
    assert "· Answers\n1. pg\n2. (skipped)" in blocks
    assert "· Message from Builder [abcd1234]\nVisible peer body" in blocks
    assert "· note" in blocks
    assert "· forked from session: parent-1" in blocks
    for absent in ("compacted away", "tool call", "grep", "ask_user", "specialist", "\x00"):
        assert absent not in text
    assert text.endswith("error: after the unclosed fence </details>\n\n")


@pytest.mark.parametrize(
    "bad_line",
    [
        b'{"id":"c:3","sessionId":"c","sequence":3,"type":"tool_result","createdAt":"t",'
        b'"payload":{"output":"x",}}',
        b'{"id":"c:3","sessionId":"c","sequence":9999999999999999999,"type":"tool_call",'
        b'"createdAt":"t"}',
        b'{"id":"c:3","sessionId":"c","sequence":3,"type":"provider_usage","createdAt":"t",'
        b'"payload":[NaN]}',
        b'{"id":"c:3","sessionId":"c","sequence":3,"type":"tool_call","createdAt":"t",'
        b'"payload":{},"payload":}',
    ],
)
def test_txt_reads_the_lines_it_does_not_show_with_gos_rules(
    store: SessionStore, workspace: str, bad_line: bytes
) -> None:
    # txt shows messages only, and builds no event for the other lines; a corrupt one must
    # still fail the export as it fails every reader
    make_session(store, "c", [user("question"), assistant("answer")])
    log = store.events_path("c")
    log.write_bytes(log.read_bytes() + bad_line + b"\n" + log.read_bytes().splitlines()[1] + b"\n")
    with pytest.raises(StoreError) as read_error:
        store.read_events("c")
    assert "at line 3" in str(read_error.value)
    for fmt in FORMATS:
        with pytest.raises(StoreError) as export_error:
            export_bytes(store, "c", fmt, workspace)
        assert str(export_error.value) == str(read_error.value)


def test_txt_shows_what_a_line_of_any_spelling_says(store: SessionStore, workspace: str) -> None:
    # lines not written as Zero writes them go through the general decoder, type and all
    make_session(store, "s", [user("question")])
    log = store.events_path("s")
    log.write_bytes(
        log.read_bytes()
        + b'{"ID":"s:2","Type":"message","sequence":2,'
        + b'"payload":{"role":"assistant","content":"folded keys"}}\n'
        + b'{"id":"s:3","type":"tool_call","sequence":3,"type":"message",'
        + b'"payload":{"role":"assistant","content":"the last type wins"}}\n'
        + b'{"id":"s:4","sessionId":"s","sequence":4,"type":"tool_call","createdAt":"t",'
        + b'"payload":{"x":1},"type":"message","payload":{"role":"assistant","content":"late"}}\n'
    )
    text = export_bytes(store, "s", "txt", workspace).decode()
    assert "zero: folded keys" in text
    assert "zero: the last type wins" in text
    assert "zero: late" in text


def test_txt_matches_zeros_export_example(store: SessionStore, workspace: str) -> None:
    # tui-behaviour §10 test 65, plus the resume card the app's transcript starts with
    make_session(
        store,
        "s65",
        [
            user("add a flag"),
            ("tool_call", {"id": "c1", "name": "bash", "arguments": '{"command":"go build"}'}),
            ("tool_result", {"toolCallId": "c1", "name": "bash", "status": "ok", "output": "ok"}),
            assistant("Done — added --version."),
            ("error", {"message": "provider error: boom"}),
        ],
        title="Flags",
        model_id="m1",
    )
    assert (
        export_bytes(store, "s65", "txt", workspace)
        == (
            "· Resumed Zero session\nstatus: ok\nSession\n  id: s65\n  title: Flags\n"
            "  model: m1\n  provider: none\n  events: 5\n\n"
            "you: add a flag\n\nzero: Done — added --version.\n\nerror: provider error: boom\n\n"
        ).encode()
    )


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_a_results_internal_meta_is_left_out_and_a_cut_output_says_so(
    store: SessionStore, fmt: str
) -> None:
    # Zero's own meta keys (internal/tools): Zero's card shows only the budget tag.
    bookkeeping = {
        "emitted_bytes": "5120",
        "output_budget_spill_created": "true",
        "output_budget_category": "logs",
        "exit_code": "0",
        "sandbox_wrapped": "true",
    }
    cut = {
        **bookkeeping,
        "truncated": "true",
        "output_budget_estimated_original_tokens": "12345",
        "output_budget_estimated_retained_tokens": "1200",
        "spill_path": "/home/u/.zero/spill/1.txt",
    }
    events: list[Spec] = [user("run it")]
    for number, result_meta in enumerate((bookkeeping, cut)):
        events.append(("tool_call", {"id": f"c{number}", "name": "bash", "arguments": "{}"}))
        events.append(
            (
                "tool_result",
                {"toolCallId": f"c{number}", "name": "bash", "status": "ok", "output": "ok",
                 "meta": result_meta},
            )
        )  # fmt: skip
    make_session(store, "m", events)
    text = render_export(*load_export_events(store, "m")[:2], fmt).decode()
    for key in bookkeeping:
        assert key not in text
    assert "Meta" not in text
    assert "spill" not in text
    assert text.count("compact 12.3k→1.2k tok · raw saved") == 1


def test_txt_resume_card_shows_the_apps_model(store: SessionStore) -> None:
    make_session(store, "s1", [user("hi")], model_id="gpt-4.1", provider="openai")
    meta, events, _ = load_export_events(store, "s1")
    text = render_export(meta, events, "txt", model="claude-x", provider="anthropic").decode()
    assert "  model: claude-x (recorded: gpt-4.1)\n" in text
    assert "  provider: anthropic (recorded: openai)\n" in text


def test_json_is_what_show_json_prints(
    store: SessionStore, workspace: str, capsys: pytest.CaptureFixture[str]
) -> None:
    events = [e for e in hostile_events("plain") if "\x9b" not in json.dumps(e, ensure_ascii=False)]
    make_session(store, "plain", events, title="t")
    code, shown, _ = run_cli(["show", "plain", "--json", "--store", str(store.root)], capsys)
    assert code == 0
    exported = export_bytes(store, "plain", "json", workspace).decode()
    assert exported == shown
    assert [event["sequence"] for event in json.loads(exported)][:2] == [3, 4]  # rehydrated


def test_json_escapes_c1_and_keeps_the_text(
    store: SessionStore, hostile: str, workspace: str
) -> None:
    raw = export_bytes(store, hostile, "json", workspace).decode()
    assert "\\u009b31m\\u007f" in raw
    assert "\\u001b[31m" in raw
    decoded = json.loads(raw)
    _, events, _ = load_export_events(store, hostile)
    assert decoded == [event.to_dict() for event in events]


def test_json_of_an_empty_session(store: SessionStore, workspace: str) -> None:
    store.create("empty")
    assert export_bytes(store, "empty", "json", workspace) == b"[]\n"


@pytest.mark.parametrize(
    "payload",
    [
        b'{"content":"a\\u003cb \\u0026 c \\u00e9\\u2028","role":"user"}',
        b'{"n":1,"f":1.5,"big":1e+21,"tiny":1e-07,"neg":-0.0,"t":true,"f2":false,"z":null}',
        b'{"nested":{"a":[1,{"b":"c"}],"e":{}},"list":[],"s":"x"}',
        b'{"a":"x","later":{"deep":[1,2]}}',
        b'{"bad":"\\ud800 lone","ctl":"\\u001b[31m \\u007f \\u009b"}',
        b"{}",
        b"[1,2]",
        b'"just a string"',
        b"42",
        b"null",
    ],
)
def test_json_event_is_json_dumps_byte_for_byte(payload: bytes) -> None:
    event = Event("s:1", "s", 1, "message", "2026-07-04T12:00:00Z", payload)
    expected = json.dumps(event.to_dict(), ensure_ascii=False, indent=2).replace("\n", "\n  ")
    expected = re.sub("[\x7f-\x9f\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", expected)
    assert json_event(event) == expected
    assert json.loads(json_event(event)) == event.to_dict()


def test_json_event_without_payload() -> None:
    event = Event("s:2", "s", 2, "provider_usage", "2026-07-04T12:00:00Z", None)
    assert json.loads(json_event(event))["payload"] is None


@pytest.mark.parametrize(
    "text",
    [
        "plain ascii\twith tab\nand newline",
        "esc \x1b[31m bell \x07 nul \x00 cr \r del \x7f",
        "latin £ · é and C1 \x85 \x9b31m",
        "emoji 🙂 and no controls",
        "\ud800 lone surrogate \x1b",
        "",
    ],
)
def test_sanitize_fast_path_agrees_with_the_plain_rule(text: str) -> None:
    expected = re.sub("[\x00-\x08\x0b-\x1f\x7f-\x9f]", "", text)
    assert sanitize_text(text) == expected
    assert sanitize_line(text) == expected.replace("\n", " ").replace("\t", " ")


class _CollectorWatch(io.BytesIO):
    """A binary stream that notes whether the collector was on at each write."""

    def __init__(self) -> None:
        super().__init__()
        self.collector_on: list[bool] = []

    def write(self, data: bytes) -> int:  # type: ignore[override]
        import gc

        self.collector_on.append(gc.isenabled())
        return super().write(data)


def test_an_export_leaves_the_collector_on_in_the_app_and_the_cli(
    store: SessionStore, hostile: str, workspace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the app's worker path: the UI thread keeps its collector
    stream = _CollectorWatch()
    export_to_stream(store, hostile, stream, fmt="md")
    assert stream.collector_on
    assert all(stream.collector_on)
    # `zero-tui export ID -o -`: the same
    stdout = _CollectorWatch()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(stdout, encoding="utf-8"))
    args = ["export", hostile, "-o", "-", "--format", "md", "--store", str(store.root)]
    assert main([*args, "--cwd", workspace]) == 0
    assert stdout.collector_on
    assert all(stdout.collector_on)


def md_viewer_html(markdown: str) -> str:
    """The md export as a Markdown viewer that lets raw HTML through would show it."""
    html: str = MarkdownIt("commonmark", {"html": True}).render(markdown)
    return html


def test_md_structure_survives_hostile_text(
    store: SessionStore, hostile: str, workspace: str
) -> None:
    text = export_bytes(store, hostile, "md", workspace).decode()
    assert text.startswith("# Fix \\<b\\>parser\\</b\\> \\[bold\\]now\\[/bold\\] \\[31mred\n\n")
    assert "- **Session:** `hostile`\n" in text
    assert "- **Workspace:** `/home/u/proj`\n" in text
    assert "## Turn 1: Fix the parser" in text
    assert "## Turn 2: Ask me something" in text
    assert "> **Summary of the earlier conversation** (compaction summary)" in text
    assert '```go\nfunc Parse() string { return "<b>" }\n```' in text  # code kept verbatim
    viewed = md_viewer_html(text)
    assert "<script>" not in viewed
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in viewed
    assert viewed.count("<details>") == viewed.count("</details>") == 5
    assert viewed.count("<summary>") == 5
    # the error after the unclosed fence is a paragraph again, not code
    assert "<p><strong>Error:</strong> after the unclosed fence &lt;/details&gt;</p>" in viewed


def test_md_helpers_escape_what_they_must() -> None:
    assert md_inline("a*b_c [x](y) <i> | & ` \\") == "a\\*b\\_c \\[x\\](y) \\<i\\> \\| \\& \\` \\\\"
    assert md_code_span("a `b` c") == "``a `b` c``"
    assert md_code_span("`x") == "`` `x ``"
    assert md_fence("x\n````\ny", "text") == "`````text\nx\n````\ny\n`````\n"
    assert md_markdown("a < b and <b>x</b> `<i>` <https://e.com>") == (
        "a < b and &lt;b>x&lt;/b> `<i>` <https://e.com>"
    )
    assert md_markdown("~~~\n<b>\n~~~\n<b>") == "~~~\n<b>\n~~~\n&lt;b>"
    assert md_markdown("```\nopen") == "```\nopen\n```"


@pytest.mark.parametrize("fmt", FORMATS)
def test_deeply_nested_arguments_do_not_break_an_export(
    store: SessionStore, workspace: str, fmt: str
) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    make_session(
        store,
        "deep",
        [
            ("tool_call", {"id": "c1", "name": "bash", "arguments": deep}),
            ("tool_result", {"toolCallId": "c1", "name": "bash", "status": "ok", "output": "x"}),
            assistant("still here"),
        ],
    )
    text = export_bytes(store, "deep", fmt, workspace).decode()
    assert "still here" in text
    if fmt in ("md", "html"):
        assert deep in text  # shown as recorded


def test_html_is_self_contained_and_escaped(
    store: SessionStore, hostile: str, workspace: str
) -> None:
    page = export_bytes(store, hostile, "html", workspace).decode()
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert re.search(r"<(img|link|iframe|object|embed)\b", page) is None
    assert re.search(r"\b(src|srcset)=", page) is None
    assert "javascript:" not in page.replace("[click](javascript:alert(3))", "")
    assert 'href="https://example.com/x.png">[image: logo]</a>' in page
    assert page.count("<details") == page.count("</details>") == 5
    assert "@media print" in page
    assert "break-inside: avoid" in page
    print_css = page[page.index("@media print") :]
    # tool cards print expanded: a closed <details> shows its content on paper
    assert "details.tool::details-content { content-visibility: visible; display: block; }" in (
        print_css
    )
    assert "Summary of the earlier conversation" in page
    assert "&lt;/details&gt;" in page


# --- fallback on a broken compaction -------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_broken_latest_compaction_falls_back_to_raw_events(
    store: SessionStore, workspace: str, fmt: str
) -> None:
    make_session(
        store,
        "broken",
        [user("alpha"), assistant("beta"), ("session_compaction", {"summary": ""}), user("gamma")],
    )
    result = export_session(store, "broken", fmt=fmt, path=None, workspace=workspace, now=NOW)
    assert result.notice is not None
    assert "raw log" in result.notice
    assert "summary is required" in result.notice
    assert result.event_count == 4
    text = Path(result.path).read_text()
    for word in ("alpha", "beta", "gamma"):
        assert word in text
    if fmt == "txt":
        assert "  events: 4\n" in text
    if fmt in ("md", "html"):
        assert "summary is required" in text  # the document says so too
    if fmt == "json":
        assert [event["sequence"] for event in json.loads(text)] == [1, 2, 3, 4]


def test_cli_reports_the_fallback_on_stderr(
    store: SessionStore, workspace: str, capsys: pytest.CaptureFixture[str]
) -> None:
    make_session(store, "broken", [user("alpha"), ("session_compaction", {"summary": " "})])
    args = ["export", "broken", "-o", "b.txt", "--store", str(store.root), "--cwd", workspace]
    code, out, err = run_cli(args, capsys)
    assert code == 0
    assert out == f"wrote transcript to {workspace}/b.txt\n"
    assert err.startswith("zero-tui: exported the raw log")
    assert len(err.splitlines()) == 1


# --- writing: mode, atomicity, symlinks, errors --------------------------------------------------


def test_new_file_has_mode_0600(store: SessionStore, hostile: str, workspace: str) -> None:
    old_umask = os.umask(0o022)  # a permissive umask must not widen the mode
    try:
        result = export_session(store, hostile, path="out.txt", workspace=workspace, now=NOW)
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(os.stat(result.path).st_mode) == 0o600


def test_existing_file_is_replaced_and_made_private(tmp_path: Path) -> None:
    # Zero would keep an existing file's bits; design §3.6 says 0600: transcripts hold secrets
    target = tmp_path / "out.txt"
    target.write_text("old content that is longer than the new one")
    target.chmod(0o644)
    old_umask = os.umask(0o000)  # a permissive umask must not widen it either
    try:
        write_atomic(str(target), b"new")
    finally:
        os.umask(old_umask)
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def leftovers(directory: Path, keep: set[str]) -> set[str]:
    return {path.name for path in directory.iterdir()} - keep


def test_a_failure_mid_write_leaves_the_old_file_and_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_bytes(b"old")

    def chunks() -> Iterator[bytes]:
        yield b"first part "
        raise RuntimeError("renderer broke")

    with pytest.raises(RuntimeError, match="renderer broke"):
        write_atomic(str(target), chunks())
    assert target.read_bytes() == b"old"
    assert leftovers(tmp_path, {"out.txt"}) == set()


def test_an_os_error_mid_write_is_reported_like_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out.txt"
    target.write_bytes(b"old")

    def no_space(fd: int) -> None:
        raise OSError(28, os.strerror(28))

    monkeypatch.setattr(os, "fsync", no_space)
    with pytest.raises(AtomicWriteError) as caught:
        write_atomic(str(target), [b"new ", b"content"])
    assert str(caught.value) == f"failed to write {target}: sync {target}: no space left on device"
    assert target.read_bytes() == b"old"
    assert leftovers(tmp_path, {"out.txt"}) == set()


def test_symlink_at_destination_is_replaced_not_followed(
    store: SessionStore, hostile: str, tmp_path: Path, workspace: str
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("do not touch")
    secret.chmod(0o644)
    link = Path(workspace) / "out.txt"
    link.symlink_to(secret)
    dangling = Path(workspace) / "dangling.md"
    dangling.symlink_to(tmp_path / "nowhere.md")

    for name in ("out.txt", "dangling.md"):  # a name taken, even by a link: asked first
        with pytest.raises(DestinationExists):
            export_session(store, hostile, path=name, workspace=workspace, now=NOW)
    assert link.is_symlink()
    assert dangling.is_symlink()

    export_session(store, hostile, path="out.txt", workspace=workspace, now=NOW, force=True)
    export_session(store, hostile, path="dangling.md", workspace=workspace, now=NOW, force=True)

    assert not link.is_symlink()
    assert link.read_text().startswith("· Resumed Zero session")
    assert stat.S_IMODE(link.stat().st_mode) == 0o600
    assert secret.read_text() == "do not touch"
    assert not dangling.is_symlink()
    assert not (tmp_path / "nowhere.md").exists()


def test_missing_parent_directory(store: SessionStore, hostile: str, workspace: str) -> None:
    target = f"{workspace}/missing-dir/out.txt"
    with pytest.raises(AtomicWriteError) as caught:
        export_session(store, hostile, path="missing-dir/out.txt", workspace=workspace, now=NOW)
    assert str(caught.value) == (
        f"failed to write {target}: the folder {workspace}/missing-dir does not exist"
    )
    assert not Path(workspace, "missing-dir").exists()


def test_unwritable_places(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(AtomicWriteError, match=r": open .*/a-file/out\.txt: not a directory$"):
        write_atomic(str(blocker / "out.txt"), b"data")
    directory = tmp_path / "a-dir"
    directory.mkdir()
    with pytest.raises(AtomicWriteError, match=r": open .*/a-dir: is a directory$"):
        write_atomic(str(directory), b"data")
    assert leftovers(tmp_path, {"a-file", "a-dir"}) == set()
    assert list(directory.iterdir()) == []


# --- paths and formats ------------------------------------------------------------------------


def test_default_name_uses_local_time() -> None:
    assert default_export_name("txt", datetime(2026, 7, 4, 9, 30, 0)) == (
        "zero-transcript-20260704-093000.txt"
    )
    saved = os.environ.get("TZ")
    os.environ["TZ"] = "Asia/Kolkata"
    time.tzset()
    try:
        name = default_export_name("html", datetime(2026, 7, 4, 9, 30, 0, tzinfo=UTC))
    finally:
        if saved is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = saved
        time.tzset()
    assert name == "zero-transcript-20260704-150000.html"


def test_resolve_export_path(workspace: str) -> None:
    now = datetime(2026, 7, 4, 9, 30, 0)
    ws = workspace
    assert resolve_export_path(None, None, ws, now) == (
        f"{ws}/zero-transcript-20260704-093000.txt",
        ExportFormat.TXT,
    )
    assert resolve_export_path("  ", "md", ws, now) == (
        f"{ws}/zero-transcript-20260704-093000.md",
        ExportFormat.MD,
    )
    assert resolve_export_path("out.txt", None, ws, now) == (f"{ws}/out.txt", ExportFormat.TXT)
    assert resolve_export_path(" sub/../my notes.md ", None, ws, now) == (
        f"{ws}/my notes.md",
        ExportFormat.MD,
    )
    assert resolve_export_path("/abs/x.json", None, ws, now) == ("/abs/x.json", ExportFormat.JSON)
    assert resolve_export_path("~/x.txt", None, ws, now)[0] == os.path.expanduser("~/x.txt")
    assert resolve_export_path("~/x.md", "txt", ws, now)[0] == os.path.expanduser("~/x.md")
    assert resolve_export_path("notes", None, ws, now) == (f"{ws}/notes", ExportFormat.TXT)
    assert resolve_export_path("report.txt", "html", ws, now) == (
        f"{ws}/report.txt",
        ExportFormat.HTML,
    )


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("a.txt", "txt"),
        ("a.md", "md"),
        ("a.markdown", "md"),
        ("a.JSON", "json"),
        ("a.html", "html"),
        ("a.htm", "html"),
        ("noext", "txt"),
        ("dir.md/file", "txt"),
    ],
)
def test_extension_picks_the_format(name: str, fmt: str) -> None:
    assert format_for_path(name) == ExportFormat(fmt)


def test_unknown_format_is_refused(workspace: str) -> None:
    with pytest.raises(ExportFormatError, match="unknown export format 'pdf'"):
        resolve_export_path("x", "pdf", workspace, NOW)


@pytest.mark.parametrize("name", ["x.pdf", "a.log", "report.TXT.bak"])
def test_an_unknown_extension_without_a_format_is_refused(workspace: str, name: str) -> None:
    with pytest.raises(ExportFormatError, match="cannot tell the export format"):
        resolve_export_path(name, None, workspace, NOW)
    assert resolve_export_path(name, "md", workspace, NOW)[1] is ExportFormat.MD


# --- the CLI ------------------------------------------------------------------------------------


def test_cli_export_writes_and_says_where(
    store: SessionStore, hostile: str, workspace: str, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--store", str(store.root), "--cwd", workspace]
    code, out, err = run_cli(["export", hostile, "-o", "t.md", *base], capsys)
    assert (code, err) == (0, "")
    assert out == f"wrote transcript to {workspace}/t.md\n"
    assert Path(workspace, "t.md").read_bytes() == (GOLDEN / "export-hostile.md").read_bytes()

    code, out, _ = run_cli([*base, "export", hostile, "--format", "json", "-o", "t.out"], capsys)
    assert code == 0
    assert json.loads(Path(workspace, "t.out").read_text())[0]["type"] == "session_compaction"

    code, out, _ = run_cli(["export", hostile, "--format", "html", *base], capsys)
    assert code == 0
    match = re.fullmatch(
        rf"wrote transcript to ({re.escape(workspace)}/zero-transcript-\d{{8}}-\d{{6}}\.html)\n",
        out,
    )
    assert match is not None
    assert Path(match.group(1)).read_text().startswith("<!DOCTYPE html>")


def test_cli_export_errors(
    store: SessionStore, hostile: str, workspace: str, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--store", str(store.root), "--cwd", workspace]
    code, out, err = run_cli(["export", "nope", *base], capsys)
    assert (code, out, err) == (1, "", "zero-tui: zero session not found: nope\n")

    code, out, err = run_cli(["export", "a:b", *base], capsys)
    assert (code, out) == (1, "")
    assert err == 'zero-tui: invalid zero session id "a:b"\n'

    code, out, err = run_cli(["export", hostile, "-o", "missing/x.txt", *base], capsys)
    target = f"{workspace}/missing/x.txt"
    assert (code, out) == (1, "")
    assert err == (
        f"zero-tui: failed to write {target}: the folder {workspace}/missing does not exist\n"
    )

    code, out, err = run_cli(["export", hostile, "--format", "pdf", *base], capsys)
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1

    code, out, err = run_cli(["export", hostile, "-o", "x.pdf", *base], capsys)
    assert (code, out) == (2, "")
    assert "cannot tell the export format from the extension '.pdf'" in err
    assert len(err.splitlines()) == 1
    assert not Path(workspace, "x.pdf").exists()

    code, _, err = run_cli(["export", *base], capsys)
    assert code == 2
    assert len(err.splitlines()) == 1


def test_export_modules_import_without_textual_or_rich() -> None:
    code = (
        "import sys\n"
        "import zero_tui.transcript.export, zero_tui.transcript.export_html\n"
        "import zero_tui.atomic\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print(bad)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "[]"


# --- issue 9, fault 4: special destinations are streams, never replaced ----------------------


def _special_store(tmp_path: Path) -> SessionStore:
    store = SessionStore(tmp_path / "special-store")
    store.create("s1", title="Special")
    store.append_events("s1", [("message", {"role": "assistant", "content": "to a stream"})])
    return store


def _null_device(path: Path) -> None:
    try:
        os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 3))  # Linux's /dev/null
    except (OSError, AttributeError) as error:
        pytest.skip(f"cannot make a character device here: {error}")


def test_export_to_a_character_device_writes_through_it(tmp_path: Path) -> None:
    store = _special_store(tmp_path)
    device = tmp_path / "null"
    _null_device(device)
    link = tmp_path / "fd-link"  # like /proc/self/fd/1: a symlink to a device
    link.symlink_to(device)
    for target in (device, link):
        result = export_session(store, "s1", path=str(target), workspace="", now=NOW)
        assert result.size > 0
    assert stat.S_ISCHR(os.lstat(device).st_mode)
    assert link.is_symlink()
    assert os.readlink(link) == str(device)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fd-link", "null", "special-store"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_export_to_a_fifo_streams_into_it(tmp_path: Path) -> None:
    store = _special_store(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    result = export_session(store, "s1", path=str(fifo), workspace="", now=NOW)
    reader.join(60)
    assert not reader.is_alive()
    assert b"zero: to a stream" in received[0]
    assert result.size == len(received[0])
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_export_refuses_a_socket(tmp_path: Path) -> None:
    store = _special_store(tmp_path)
    path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        with pytest.raises(AtomicWriteError, match="is a socket; refusing to replace it"):
            export_session(store, "s1", path=str(path), workspace="", now=NOW)
        assert stat.S_ISSOCK(os.lstat(path).st_mode)
    finally:
        server.close()


def test_cli_export_dash_writes_to_stdout(tmp_path: Path) -> None:
    store = _special_store(tmp_path)
    env = {**os.environ, "ZERO_TUI_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "zero_tui",
            "export",
            "s1",
            "-o",
            "-",
            "--format",
            "md",
            "--store",
            str(store.root),
        ],
        capture_output=True,
        env=env,
        cwd=tmp_path,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"# Special\n")
    assert b"wrote transcript" not in done.stdout + done.stderr
    assert not (tmp_path / "-").exists()


# --- issue 9, fault 11: plain answers skip the Markdown parser, with the same HTML -------------


_PLAIN_ALPHABET = list("abcXYZ019 \n.,;:'\"?()/%$@^{}é✓\u00a0\u2028\u3000")


@given(
    st.text(st.sampled_from(_PLAIN_ALPHABET), max_size=80)
    # no lone surrogate: session text never holds one (a `\ud800` escape decodes to U+FFFD,
    # as in Go), and markdown-it.rs cannot take one
    | st.text(
        st.sampled_from(_PLAIN_ALPHABET) | st.characters(exclude_categories=["Cs"]),
        max_size=80,
    )
)
def test_plain_paragraphs_render_as_markdown_it_does(text: str) -> None:
    from zero_tui.transcript.export_html import markdown_renderer, plain_paragraphs

    clean = sanitize_text(text)
    plain = plain_paragraphs(clean)
    if plain is not None:
        assert plain == markdown_renderer().render(clean)


def test_plain_paragraphs_take_plain_text_only() -> None:
    from zero_tui.transcript.export_html import plain_paragraphs

    assert plain_paragraphs("Done.\n\nAll tests pass (42 of 42).") == (
        "<p>Done.</p>\n<p>All tests pass (42 of 42).</p>\n"
    )
    for markdown in ("**bold**", "1. item", "a  \nb", "    code", "x & y", "# title", "<b>"):
        assert plain_paragraphs(markdown) is None


def test_the_fast_markdown_renderer_matches_markdown_it_py_on_real_answers(
    tmp_path: Path,
) -> None:
    """markdown-it.rs renders what markdown-it-py (the CommonMark preset, raw HTML off,
    tables and strikethrough on, images as links) renders, on every demo answer."""
    from zero_tui.demo import build_demo_store
    from zero_tui.transcript.export_html import markdown_html
    from zero_tui.transcript.markdown_parser import markdown_parser

    reference = markdown_parser()
    demo = build_demo_store(tmp_path / "zero" / "sessions")
    store = SessionStore(demo.root)
    texts = [
        event.payload["content"]
        for session_id in demo.session_ids
        for event in store.read_events(session_id)
        if event.type == "message"
        and isinstance(event.payload, dict)
        and isinstance(event.payload.get("content"), str)
    ]
    texts += ["![chart *1*](https://example.com/c.png) and [x](javascript:alert(1))"]
    assert len(texts) > 50
    for text in texts:
        expected = reference.render(text).replace("<img src=", "<IMG src=")
        got = markdown_html(text)
        if "<IMG" not in expected:
            assert got == expected, text
        else:
            assert (
                '<a class="image-link" href="https://example.com/c.png">[image: chart 1]</a>' in got
            )


def test_the_cli_never_replaces_a_file_unless_forced(
    store: SessionStore, hostile: str, workspace: str, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--store", str(store.root), "--cwd", workspace]
    notes = Path(workspace, "notes.md")
    notes.write_text("mine")
    code, out, err = run_cli(["export", hostile, "-o", "notes.md", *base], capsys)
    assert (code, out) == (1, "")
    assert err == f"zero-tui: {notes} already exists; --force replaces it\n"
    assert notes.read_text() == "mine"
    code, out, _ = run_cli(["export", hostile, "-o", "notes.md", "--force", *base], capsys)
    assert (code, out) == (0, f"wrote transcript to {notes}\n")
    assert notes.read_text() != "mine"


def test_default_names_in_the_same_second_and_a_folder_as_the_target(
    store: SessionStore, hostile: str, workspace: str, tmp_path: Path
) -> None:
    first = export_session(store, hostile, workspace=workspace, now=NOW)
    second = export_session(store, hostile, workspace=workspace, now=NOW)
    third = export_session(store, hostile, workspace=workspace, now=NOW, fmt="md")
    name = default_export_name("txt", NOW)
    assert first.path == f"{workspace}/{name}"
    assert second.path == f"{workspace}/{name[: -len('.txt')]}-2.txt"
    assert third.path == f"{workspace}/{default_export_name('md', NOW)}"
    folder = tmp_path / "exports"
    folder.mkdir()
    inside = export_session(store, hostile, path=str(folder), workspace=workspace, now=NOW)
    assert inside.path == str(folder / name)
    with pytest.raises(AtomicWriteError, match=r"the folder .*/sub does not exist$"):
        export_session(store, hostile, path="sub/", workspace=workspace, now=NOW, fmt="json")


@pytest.mark.parametrize(
    ("meta", "tag"),
    [
        ({}, ""),
        ({"emitted_bytes": "10", "truncated": "false"}, ""),
        ({"truncated": "true"}, "compact output"),
        ({"command_output_reduced": "true", "spill_path": " "}, "compact output"),
        (
            {
                "command_output_reduced": "true",
                "output_budget_estimated_original_tokens": "900",
                "output_budget_estimated_retained_tokens": "800",
                "command_output_original_tokens": "4000",  # the command's own count wins
                "command_output_retained_tokens": "999",
            },
            "compact 4.0k→999 tok",
        ),
        (
            {
                "truncated": "true",
                "output_budget_estimated_original_tokens": "100",
                "output_budget_estimated_retained_tokens": "100",
            },
            "compact output",
        ),
        (
            {
                "truncated": "true",
                "output_budget_estimated_original_tokens": "1_000",  # not Go's Atoi
                "output_budget_estimated_retained_tokens": "10",
                "spill_path": "/s",
            },
            "compact output · raw saved",
        ),
    ],
)
def test_the_output_budget_tag_is_zeros(meta: dict[str, str], tag: str) -> None:
    from zero_tui.transcript.export_parts import output_budget_tag

    assert output_budget_tag(meta) == tag
