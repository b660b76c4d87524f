"""One event, one reading: the transcript, the picker's preview, the content index and the
resume filter all read a payload through `decode_payload`, so they see the same fields,
read as Zero's TUI reads them (a number where text belongs is written out)."""

from __future__ import annotations

from zero_tui.picker.preview_data import preview_exchanges
from zero_tui.search.content import line_text
from zero_tui.store import Event
from zero_tui.store.events import decode_line
from zero_tui.store.resumable import event_shows_progress
from zero_tui.transcript.rows import RowKind, rows_from_events


def line(event_type: str, payload: bytes) -> bytes:
    head = b'{"id":"s:1","sessionId":"s","sequence":1,"type":"' + event_type.encode()
    return head + b'","createdAt":"2026-07-04T12:00:00Z","payload":' + payload + b"}"


def event(raw_line: bytes) -> Event:
    return decode_line(raw_line, "s", 1)


def test_a_numeric_answer_reads_the_same_everywhere() -> None:
    raw = line("message", b'{"role":"assistant","content":42}')
    rows = rows_from_events([event(raw)])
    assert [(row.kind, row.text) for row in rows] == [(RowKind.ASSISTANT, "42")]
    assert [(e.role, e.text) for e in preview_exchanges([event(raw)])] == [("assistant", "42")]
    indexed = line_text(raw)
    assert indexed is not None
    assert (indexed.role, indexed.text) == ("assistant", "42")
    assert event_shows_progress(event(raw))


def test_a_display_content_shows_in_preview_and_index_as_in_the_transcript() -> None:
    raw = line(
        "message",
        b'{"content":"<envelope>","displayContent":"Visible body","from":"Builder",'
        b'"origin":"cross_session","role":"user"}',
    )
    rows = rows_from_events([event(raw)])
    assert rows[0].text == "Message from Builder\nVisible body"
    assert [e.text for e in preview_exchanges([event(raw)])] == ["Visible body"]
    indexed = line_text(raw)
    assert indexed is not None
    assert indexed.text == "<envelope>\nVisible body"
    assert not event_shows_progress(event(raw))  # a user message: no progress


def test_a_tool_call_without_a_name_in_the_transcript_and_the_preview() -> None:
    raw = line("tool_call", b'{"arguments":"{}","id":"c1","name":""}')
    assert rows_from_events([event(raw)])[0].text == "tool call: unknown"
    assert [e.text for e in preview_exchanges([event(raw)])] == ["tool call: ?"]


def test_a_line_zero_rejects_is_not_indexed() -> None:
    # Go's reader rejects a non-string id; Python's json would have indexed the line
    raw = b'{"id":5,"sessionId":"s","sequence":1,"type":"error","payload":{"message":"boom"}}'
    assert line_text(raw) is None
    assert line_text(raw.replace(b'"id":5', b'"id":"s:1"')) is not None
