"""A session whose log is missing or holds unreadable lines says so (not 'empty', not 'ok')."""

from __future__ import annotations

from pathlib import Path

from zero_tui.picker.preview_data import build_preview
from zero_tui.store import SessionStore
from zero_tui.transcript.log_index import LogIndex, index_facts, log_problems
from zero_tui.transcript.rows import resume_card
from zero_tui.ui.widgets.preview import preview_content


def session(root: Path) -> SessionStore:
    store = SessionStore(root)
    store.create("s1", title="Gone", cwd="/w")
    store.append_events("s1", [("message", {"role": "user", "content": "hi"})])
    return store


def test_a_missing_log_is_not_an_empty_run(tmp_path: Path) -> None:
    store = session(tmp_path)
    store.events_path("s1").unlink()
    meta = store.get("s1")
    assert meta is not None
    events, notice = store.read_events_for_display("s1")
    assert events == []
    assert notice == "the log of this session (s1/events.jsonl) is missing: no event can be shown"

    text = str(preview_content(build_preview(meta, events, error=notice)))
    assert notice in text
    assert "no messages yet" not in text

    with LogIndex.open(store.events_path("s1"), "s1") as index:
        problems = log_problems(index, index_facts(index, range(len(index))))
    assert problems == [notice]
    card = resume_card(meta, 0, problems=problems)
    assert card[:2] == ["Resumed Zero session", "status: error"]
    assert card[-2:] == ["Problems", "  " + notice]


def test_an_empty_log_is_fine(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    meta = store.create("s1", title="New", cwd="/w")
    assert store.read_events_for_display("s1") == ([], None)
    with LogIndex.open(store.events_path("s1"), "s1") as index:
        assert log_problems(index, index_facts(index, range(len(index)))) == []
    assert resume_card(meta, 0)[1] == "status: ok"


def test_unreadable_lines_make_the_card_say_error(tmp_path: Path) -> None:
    store = session(tmp_path)
    with store.events_path("s1").open("ab") as log:
        log.write(b"not json\n")
    store.append_events("s1", [("message", {"role": "assistant", "content": "still here"})])
    meta = store.get("s1")
    assert meta is not None
    with LogIndex.open(store.events_path("s1"), "s1") as index:
        facts = index_facts(index, range(len(index)))
        problems = log_problems(index, facts)
    assert facts is not None
    assert facts.unreadable == 1
    assert len(problems) == 1
    assert problems[0].startswith("1 unreadable line, shown as errors; the first: ")
    assert "line 2" in problems[0]
    card = resume_card(meta, 3, problems=problems)
    assert "status: ok" not in card
    assert "status: error" in card
