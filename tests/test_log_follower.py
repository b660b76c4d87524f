"""The transcript's log follower, without an app: opening a log, looking at its end, and
what the view must do with what a look found (zero_tui/transcript/follower.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from conftest import EventSpec, StoreBuilder, assistant, user

from zero_tui.store import SessionStore
from zero_tui.transcript import log_index
from zero_tui.transcript.follower import (
    CARD_LINE_LIMIT,
    Grown,
    LogEnd,
    LogFollower,
    OpenedLog,
    Replaced,
    UnreadableLog,
    open_log,
)


def turns(count: int) -> list[EventSpec]:
    events: list[EventSpec] = []
    for number in range(count):
        events += [user(f"question {number}"), assistant(f"answer {number}")]
    return events


def opened(store: SessionStore, session_id: str = "s1", *, latest_first: bool = False) -> OpenedLog:
    log = open_log(store, session_id, latest_first=latest_first, cancelled=lambda: False)
    assert isinstance(log, OpenedLog)
    return log


def following(store: SessionStore, session_id: str = "s1") -> LogFollower:
    """A follower holding the whole log, as after a first read."""
    follower = LogFollower(session_id)
    follower.take(opened(store, session_id))
    return follower


@pytest.fixture
def store(make_store: Callable[..., StoreBuilder]) -> SessionStore:
    builder = make_store()
    builder.add("s1", events=turns(3), title="Three turns")
    return builder.store


def test_a_log_opens_whole_with_its_facts(store: SessionStore) -> None:
    log = opened(store)
    assert not log.partial
    assert list(log.order) == list(range(6))
    assert log.facts is not None
    assert log.meta is not None
    assert log.meta.title == "Three turns"
    assert log.note is None
    log.index.close()


def test_a_huge_log_gives_its_latest_events_first(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.append_events("s1", turns(100))
    monkeypatch.setattr(log_index, "TAIL_BYTES", 2000)
    latest = opened(store, latest_first=True)
    assert latest.partial
    assert latest.facts is None
    assert 0 < len(latest.order) < 206
    latest.index.close()
    whole = opened(store, latest_first=False)
    assert not whole.partial
    assert len(whole.order) == 206
    whole.index.close()


def test_a_compaction_among_the_latest_events_opens_the_whole_log(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.append_events("s1", [*turns(100), ("session_compaction", {"summary": "so far"})])
    monkeypatch.setattr(log_index, "TAIL_BYTES", 2000)
    log = opened(store, latest_first=True)
    assert not log.partial
    assert log.facts is not None
    log.index.close()


def test_unreadable_metadata_is_one_line_and_no_log(store: SessionStore) -> None:
    (store.root / "s1" / "metadata.json").write_text("{not json")
    log = open_log(store, "s1", latest_first=True, cancelled=lambda: False)
    assert isinstance(log, UnreadableLog)
    assert log.error
    assert "\n" not in log.error


def test_a_cancelled_open_returns_nothing(store: SessionStore) -> None:
    assert open_log(store, "s1", latest_first=False, cancelled=lambda: True) is None


def test_a_broken_compaction_shows_the_raw_log_with_a_note(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = make_store()
    builder.add("s1", events=[user("a"), ("session_compaction", {"summary": ""}), user("b")])
    log = opened(builder.store)
    assert list(log.order) == [0, 1, 2]
    assert log.note is not None
    assert "showing the raw log" in log.note
    log.index.close()


def test_reads_are_told_apart_by_their_id(store: SessionStore) -> None:
    follower = LogFollower("s1")
    first = follower.load_id
    assert follower.is_current(first)
    second = follower.restart()
    assert not follower.is_current(first)
    assert follower.is_current(second)
    assert not follower.loaded
    assert not follower.shown


def test_the_whole_log_replacing_its_latest_events_says_how_many_rows_came_above(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.append_events("s1", turns(100))
    monkeypatch.setattr(log_index, "TAIL_BYTES", 2000)
    follower = LogFollower("s1")
    latest = opened(store, latest_first=True)
    swap = follower.take(latest)
    assert (swap.stale_index, swap.shift) == (None, None)
    assert follower.shown
    assert not follower.loaded
    assert follower.event_count is None
    whole = opened(store)
    swap = follower.take(whole)
    assert swap.stale_index is latest.index
    assert swap.shift == 206 - len(latest.order)
    assert follower.loaded
    assert follower.event_count == 206
    swap.stale_index.close()
    follower.close()


def test_a_look_at_an_unchanged_log_finds_nothing(store: SessionStore) -> None:
    follower = following(store)
    look = follower.next_look()
    assert look is not None
    end = look.run(store)
    assert end == LogEnd(follower.load_id)
    assert follower.take_end(end) is None
    follower.close()


def test_one_look_at_a_time(store: SessionStore) -> None:
    follower = following(store)
    look = follower.next_look()
    assert look is not None
    assert follower.next_look() is None
    follower.take_end(look.run(store))
    assert follower.next_look() is not None
    follower.close()


def test_no_look_before_the_whole_log_is_in_nor_without_a_session(store: SessionStore) -> None:
    assert LogFollower("s1").next_look() is None
    new_conversation = following(store)
    new_conversation.session_id = None
    assert new_conversation.next_look() is None
    new_conversation.close()


def test_appended_events_extend_the_order_and_the_facts(store: SessionStore) -> None:
    follower = following(store)
    store.append_events("s1", [user("live question"), assistant("live answer")])
    look = follower.next_look()
    assert look is not None
    end = look.run(store)
    assert end.first_changed == 6
    assert not end.replaced
    assert end.meta is not None
    change = follower.take_end(end)
    assert change == Grown(6, set())
    assert list(follower.order) == list(range(8))
    assert follower.facts is not None
    assert follower.facts.length == 8
    assert follower.meta is not None
    assert follower.meta.event_count == 8
    follower.close()


def test_a_result_appended_later_marks_its_earlier_call_stale(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = make_store()
    call = ("tool_call", {"id": "c1", "name": "grep", "arguments": "{}"})
    builder.add("s1", events=[user("go"), call])
    follower = following(builder.store)
    result = ("tool_result", {"toolCallId": "c1", "name": "grep", "status": "ok", "output": "x"})
    builder.store.append_events("s1", [result])
    look = follower.next_look()
    assert look is not None
    change = follower.take_end(look.run(builder.store))
    assert isinstance(change, Grown)
    assert change.first_position == 2
    assert change.stale == {1}
    follower.close()


def test_a_compaction_appended_means_reading_again(store: SessionStore) -> None:
    follower = following(store)
    store.append_events("s1", [("session_compaction", {"summary": "so far"})])
    look = follower.next_look()
    assert look is not None
    end = look.run(store)
    assert end.replaced
    assert follower.take_end(end) == Replaced()
    follower.close()


def test_a_rewritten_log_means_reading_again(store: SessionStore) -> None:
    follower = following(store)
    log = store.events_path("s1")
    kept = log.read_bytes().splitlines(keepends=True)[0]
    replacement = log.with_name("events.jsonl.tmp-test")
    replacement.write_bytes(kept)
    replacement.replace(log)
    look = follower.next_look()
    assert look is not None
    assert follower.take_end(look.run(store)) == Replaced()
    follower.close()


def test_an_older_reads_look_is_dropped(store: SessionStore) -> None:
    follower = following(store)
    look = follower.next_look()
    assert look is not None
    store.append_events("s1", [user("more")])
    end = look.run(store)
    follower.restart()
    assert follower.take_end(end) is None
    assert follower.next_look() is None  # the look is back, but the new read is not in
    follower.close()


def test_the_resume_card_cuts_long_lines(make_store: Callable[..., StoreBuilder]) -> None:
    builder = make_store()
    builder.add("s1", events=turns(1), title="t" * 20_000)
    follower = following(builder.store)
    (card,) = follower.prelude()
    lines = card.text.split("\n")
    assert max(len(line) for line in lines) == CARD_LINE_LIMIT + 1
    assert any(line.endswith("…") for line in lines)
    follower.close()


def test_what_keeps_a_prompt_from_continuing_the_session(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = make_store()
    builder.add("s1", events=turns(1))
    builder.add("child", events=turns(1), session_kind="child")
    loading = LogFollower("s1")
    assert loading.why_not_continuable() == (
        "the transcript is still loading: try again in a moment"
    )
    assert LogFollower(None).why_not_continuable() is None  # a new conversation
    assert following(builder.store).why_not_continuable() is None
    child = following(builder.store, "child")
    refusal = child.why_not_continuable()
    assert refusal is not None
    assert refusal.startswith("Zero session is not resumable: child")
    child.close()


def test_a_failed_read_leaves_a_note(store: SessionStore) -> None:
    follower = LogFollower("s1")
    follower.unreadable("permission denied")
    assert follower.note == "This session cannot be read: permission denied"
