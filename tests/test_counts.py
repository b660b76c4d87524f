"""A session's size is worded one way everywhere: picker preview, transcript header, exports."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from zero_tui.picker.preview_data import build_preview
from zero_tui.store import SessionStore
from zero_tui.store.token_counts import Tokens, session_tokens
from zero_tui.text.labels import counted, event_count_label
from zero_tui.transcript.export import load_export_events, render_export
from zero_tui.transcript.header import header_facts, token_facts
from zero_tui.ui.widgets.preview import preview_content

NOW = datetime(2026, 7, 4, 12, 0, 0, tzinfo=UTC)


def test_the_label() -> None:
    assert event_count_label(24, 24) == "24 events"
    assert event_count_label(1, 1) == "1 event"
    assert event_count_label(14, 24) == "14 shown · 24 in the log"
    assert event_count_label(None, 24) == "24 in the log"
    assert event_count_label(1400, 24000) == "1,400 shown · 24,000 in the log"


def test_one_of_a_thing_is_singular() -> None:
    """Issue 25, item 21: `1 more line`, `1 session`, never `1 sessions`."""
    assert counted(1, "session") == "1 session"
    assert counted(0, "session") == "0 sessions"
    assert counted(1200, "more line") == "1,200 more lines"
    assert counted(2, "entry", "entries") == "2 entries"
    assert counted(1, "entry", "entries") == "1 entry"


def compacted_session(root: Path) -> SessionStore:
    store = SessionStore(root)
    store.create("s1", title="Compacted", model_id="gpt-4.1", provider="openai", cwd="/w")
    early = [("message", {"role": "user", "content": f"q{n}"}) for n in range(10)]
    store.append_events("s1", early)
    summary = {"summary": "earlier work", "compactedThroughSequence": 10}
    late = [("message", {"role": "assistant", "content": f"a{n}"}) for n in range(3)]
    store.append_events("s1", [("session_compaction", summary), *late])
    return store


def test_preview_header_and_exports_agree(tmp_path: Path) -> None:
    store = compacted_session(tmp_path)
    meta = store.get("s1")
    assert meta is not None
    events, notice = store.read_events_for_display("s1")
    assert notice is None
    wording = "4 shown · 14 in the log"

    preview = build_preview(meta, events)
    assert f"events     {wording}" in str(preview_content(preview))
    assert wording in header_facts("s1", meta, len(events), NOW)
    export_meta, export_events, _ = load_export_events(store, "s1")
    for fmt in ("md", "html"):
        page = render_export(export_meta, export_events, fmt).decode()
        assert wording in page


def test_header_facts(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    store.create("s1", title="t", model_id="m\x1b[31m", cwd="/w")
    store.append_events("s1", [("message", {"role": "user", "content": "hi"})])
    meta = store.get("s1")
    assert meta is not None
    facts = header_facts("s1", meta, 1, NOW)
    assert facts.startswith("s1  ·  m[31m  ·  1 event  ·  /w  ·  updated ")
    assert "loading earlier events…" in header_facts("s1", meta, None, NOW)
    assert header_facts("s1", None, None, NOW) == "s1"


def test_header_facts_with_the_session_s_tokens(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    store.create("s1", title="t", model_id="gpt-5", cwd="/w")
    usage = {"promptTokens": 20560, "completionTokens": 507, "totalTokens": 21067}
    store.append_events(
        "s1",
        [
            ("message", {"role": "user", "content": "hi"}),
            ("provider_usage", {**usage, "cachedInputTokens": 18560}),
            ("provider_usage", {"promptTokens": 440, "completionTokens": 3, "totalTokens": 443}),
        ],
    )
    meta = store.get("s1")
    assert meta is not None
    tokens = session_tokens(store, "s1")
    facts = header_facts("s1", meta, 3, NOW, tokens=tokens)
    assert "  ·  3 events  ·  tokens 21k in (19k cached) · 510 out  ·  /w  ·  " in facts
    assert token_facts(Tokens(1, 4300, 160, 4460)) == "tokens 4.3k in · 160 out"
    # not read yet, or a session with no usage event: no tokens fact
    assert "tokens" not in header_facts("s1", meta, 1, NOW)
    assert "tokens" not in header_facts("s1", meta, 1, NOW, tokens=Tokens())


def test_a_narrow_header_cuts_the_model_before_the_events_and_tokens(tmp_path: Path) -> None:
    """Issue 25, item 21: at 80 columns the events and tokens stay; the model goes first."""
    store = SessionStore(tmp_path)
    sid = "zero_20260807123045_1754569845123456789_1"
    store.create(sid, title="t", model_id="qwen3-coder-480b", provider="openai-compatible")
    usage = {"promptTokens": 20560, "completionTokens": 507, "totalTokens": 21067}
    store.append_events(
        sid, [("message", {"role": "user", "content": "hi"}), ("provider_usage", usage)]
    )
    meta = store.get(sid)
    assert meta is not None
    tokens = session_tokens(store, sid)
    facts = header_facts(sid, meta, 2, NOW, tokens=tokens, width=80)
    kept = facts[:79]  # the line's last cell is its ellipsis
    assert kept.endswith("  ·  2 events  ·  tokens 21k in · 507 out")
    assert kept.startswith("zero_2026")
    assert "openai-compatible" not in facts
    roomy = header_facts(sid, meta, 2, NOW, tokens=tokens, width=110)
    assert "  ·  qwen3-coder-480b · op…  ·  2 events  ·  tokens" in roomy[:109]
    wide = header_facts(sid, meta, 2, NOW, tokens=tokens, width=200)
    assert "qwen3-coder-480b · openai-compatible" in wide
