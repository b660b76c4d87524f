"""Turns of a log, a fork through the end of one, and where a fork came from (issue 20,
parts 1 and 2: what /fork and /rewind act on)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import assistant, user
from example_store import copy_example_store

from zero_tui.store import SessionStore, StoreError
from zero_tui.store.fork import fork_session
from zero_tui.transcript.turns import (
    TurnSpan,
    fork_turn,
    parent_link,
    read_turn,
    turn_of,
    turns_of,
)

GO_PARENT = "zero_20260604100000_1780567200000000000_1"  # written by Zero: 2 turns, 24 events


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(copy_example_store(tmp_path))


def test_a_turn_is_its_prompt_and_everything_up_to_the_next(store: SessionStore) -> None:
    events = store.read_events(GO_PARENT)
    first, second = turns_of(events)
    assert (first.number, first.first_sequence, first.last_sequence) == (1, 1, 16)
    assert first.prompt.startswith("The date parser test")
    assert not first.is_last
    assert (second.number, second.first_sequence, second.last_sequence) == (2, 17, 24)
    assert second.is_last
    # every event of a turn names it: a tool result, a usage event, the answer
    assert turn_of(events, 10) == first
    assert turn_of(events, 16) == first
    assert turn_of(events, 17) == second
    assert turn_of(events, 99) is None


def test_events_before_the_first_prompt_belong_to_no_turn(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    store.create("s", cwd=str(tmp_path))
    store.append_events(
        "s",
        [
            ("message", {"role": "system", "content": "be brief"}),
            ("message", {"role": "user", "content": ""}),  # no row: not a prompt
            user("hi"),
            assistant("hello"),
        ],
    )
    events = store.read_events("s")
    assert turn_of(events, 1) is None
    assert turn_of(events, 2) is None
    assert turn_of(events, 4) == TurnSpan(1, "hi", 3, 4, is_last=True)
    with pytest.raises(StoreError, match="comes before the first prompt"):
        read_turn(store, "s", 1)
    with pytest.raises(StoreError, match="event #9 is no longer in the log of s"):
        read_turn(store, "s", 9)


def test_a_turn_label_is_one_short_line() -> None:
    turn = TurnSpan(3, "fix the\nparser   and then write every test that it needs", 1, 2, True)
    assert turn.label() == "turn 3 “fix the parser and then write every test…”"


def test_a_fork_of_a_turn_holds_it_and_everything_before(store: SessionStore) -> None:
    forked = fork_turn(store, GO_PARENT, 10)  # a tool result of the first turn
    fork = forked.fork
    assert forked.turn is not None
    assert forked.turn.number == 1
    assert (fork.session_kind, fork.parent_session_id) == ("fork", GO_PARENT)
    assert fork.title == "Fix date parser layout (fork)"
    assert (fork.forked_from_sequence, fork.forked_from_event_id) == (16, f"{GO_PARENT}:16")
    # what fork_session writes for the turn's last event, byte for byte
    expected = fork_session(store, GO_PARENT, at_sequence=16, session_id="reference")
    assert expected.event_count == fork.event_count
    ours = [(e.type, e.payload_raw) for e in store.read_events(fork.session_id)]
    reference = [(e.type, e.payload_raw) for e in store.read_events("reference")]
    assert ours == reference
    types = [event_type for event_type, _ in ours]
    assert types[-1] == "session_fork"
    assert "provider_usage" not in types
    assert types.count("message") == 2  # the first prompt and its answer, not the second turn


def test_a_fork_with_no_turn_highlighted_is_the_whole_session(store: SessionStore) -> None:
    forked = fork_turn(store, GO_PARENT, None, title="all of it")
    assert forked.turn is not None
    assert forked.turn.number == 2
    assert forked.fork.title == "all of it"
    assert forked.fork.forked_from_sequence == 24
    marker = json.loads(store.events_path(forked.fork.session_id).read_bytes().splitlines()[-1])
    assert marker["payload"]["parentEventCount"] == 24


def test_a_fork_names_its_parent_and_turn(store: SessionStore) -> None:
    fork = fork_turn(store, GO_PARENT, 20).fork
    link = parent_link(store, fork)
    assert link is not None
    assert link.describe() == (
        f"forked from “Fix date parser layout” ({GO_PARENT}) at turn 2 "
        "“Thanks! Also add a test for a leap-year…” (event #24)"
    )
    parent = store.get(GO_PARENT)
    assert parent is not None
    assert parent_link(store, parent) is None


def test_a_fork_whose_parent_is_gone_says_so(store: SessionStore) -> None:
    fork = fork_turn(store, GO_PARENT, 3).fork
    for path in store.session_dir(GO_PARENT).rglob("*"):
        if path.is_file():
            path.unlink()
    for path in sorted(store.session_dir(GO_PARENT).rglob("*"), reverse=True):
        path.rmdir()
    store.session_dir(GO_PARENT).rmdir()
    link = parent_link(store, fork)
    assert link is not None
    assert link.missing
    assert link.describe() == f"forked from {GO_PARENT} (no longer in the store)"
