"""A fork up to any turn, written as Zero's `Store.Fork` writes one (issue 20, part 1)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from example_store import copy_example_store

from zero_tui.cli import main
from zero_tui.store import SessionStore, StoreError
from zero_tui.store.fork import fork_session

GO_PARENT = "zero_20260604100000_1780567200000000000_1"  # written by Zero: 24 events


def lines(store: SessionStore, session_id: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in store.events_path(session_id).read_bytes().splitlines()]


def raw_payloads(store: SessionStore, session_id: str) -> list[tuple[str, bytes | None]]:
    return [(e.type, e.payload_raw) for e in store.read_events(session_id)]


def test_a_fork_at_the_last_event_is_what_zero_s_fork_writes(tmp_path: Path) -> None:
    """Zero 0.8.0's own `zero exec --fork` of this parent wrote 18 copies and this marker."""
    store = SessionStore(copy_example_store(tmp_path))
    parent = store.get(GO_PARENT)
    assert parent is not None
    fork = fork_session(store, GO_PARENT, title="fork hello", session_id="myfork1")

    assert fork.session_kind == "fork"
    assert fork.title == "fork hello"
    assert (fork.cwd, fork.model_id, fork.provider) == (
        parent.cwd,
        parent.model_id,
        parent.provider,
    )
    assert fork.parent_session_id == GO_PARENT
    assert fork.root_session_id == GO_PARENT
    assert fork.forked_from_event_id == f"{GO_PARENT}:24"
    assert fork.forked_from_sequence == 24
    assert (fork.event_count, fork.last_event_type) == (19, "session_fork")
    marker = store.events_path("myfork1").read_bytes().splitlines()[-1]
    assert json.loads(marker)["payload"] == {
        "copiedEventCount": 18,
        "forkedFromEventId": f"{GO_PARENT}:24",
        "forkedFromSequence": 24,
        "parentEventCount": 24,
        "parentSessionId": GO_PARENT,
    }
    assert b'"payload":{"copiedEventCount":18,"forkedFromEventId"' in marker  # Go's key order
    # the copies: every event but provider_usage, payload bytes as Zero wrote them
    expected = [(t, raw) for t, raw in raw_payloads(store, GO_PARENT) if t != "provider_usage"]
    assert raw_payloads(store, "myfork1")[:-1] == expected
    assert [line["sequence"] for line in lines(store, "myfork1")] == list(range(1, 20))
    assert all(line["id"] == f"myfork1:{line['sequence']}" for line in lines(store, "myfork1"))
    # the checkpoint blobs, 0600
    source = store.session_dir(GO_PARENT) / "checkpoints" / "blobs"
    copied = store.session_dir("myfork1") / "checkpoints" / "blobs"
    assert sorted(os.listdir(copied)) == sorted(os.listdir(source))
    for name in os.listdir(copied):
        assert (copied / name).read_bytes() == (source / name).read_bytes()
        assert stat.S_IMODE((copied / name).stat().st_mode) == 0o600
    assert stat.S_IMODE((copied.parent).stat().st_mode) == 0o700
    # Zero's reader and resume filter accept it
    assert store.read_rehydrated_events("myfork1")[-1].type == "session_fork"


def test_a_fork_at_an_earlier_turn_is_the_parent_as_it_was_then(tmp_path: Path) -> None:
    store = SessionStore(copy_example_store(tmp_path))
    parent_events = store.read_events(GO_PARENT)
    at = parent_events[9].sequence
    fork = fork_session(store, GO_PARENT, at_sequence=at)
    parent = store.get(GO_PARENT)
    assert parent is not None
    assert fork.title == f"{parent.title} (fork)" if parent.title else fork.title == ""
    kept = [(e.type, e.payload_raw) for e in parent_events[:10] if e.type != "provider_usage"]
    assert raw_payloads(store, fork.session_id)[:-1] == kept
    marker = lines(store, fork.session_id)[-1]["payload"]
    assert marker == {
        "copiedEventCount": len(kept),
        "forkedFromEventId": parent_events[9].id,
        "forkedFromSequence": at,
        "parentEventCount": at,
        "parentSessionId": GO_PARENT,
    }


def test_a_fork_of_a_fork_keeps_the_root(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    store.create("p", title="Plan", cwd="/w")
    store.append_events("p", [("message", {"role": "user", "content": "hi"})])
    first = fork_session(store, "p")
    second = fork_session(store, first.session_id, title="again")
    assert first.title == "Plan (fork)"
    assert (second.parent_session_id, second.root_session_id) == (first.session_id, "p")
    assert second.title == "again"


def test_what_cannot_be_forked(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    store.create("p", cwd="/w")
    store.append_events("p", [("message", {"role": "user", "content": "hi"})])
    with pytest.raises(StoreError, match="zero session not found: nope"):
        fork_session(store, "nope")
    with pytest.raises(StoreError, match="has no event with sequence 7"):
        fork_session(store, "p", at_sequence=7)
    assert [meta.session_id for meta in store.list()] == ["p"]  # nothing half-made


def test_the_fork_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = SessionStore(tmp_path / "sessions")
    store.create("parent-1", title="Plan", cwd="/w")
    store.append_events(
        "parent-1",
        [
            ("message", {"role": "user", "content": "hi"}),
            ("message", {"role": "assistant", "content": "hello"}),
            ("message", {"role": "user", "content": "more"}),
        ],
    )
    base = ["--store", str(store.root), "--cwd", "/w"]
    assert main(["fork", "parent", "--at", "2", "--title", "Branch", "--json", *base]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["title"] == "Branch"
    assert printed["parentSessionId"] == "parent-1"
    assert printed["eventCount"] == 3
    assert main(["fork", "parent-1", *base]) == 0
    out = capsys.readouterr().out
    assert out.startswith("forked parent-1 at #3 into ")
    assert main(["fork", "parent-1", "--at", "9", *base]) == 1
    assert capsys.readouterr().err == (
        "zero-tui: zero session parent-1 has no event with sequence 9\n"
    )
