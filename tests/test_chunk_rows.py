"""Rows built a chunk at a time (what the transcript shows) equal the rows of the whole log
(what `show` and the exports print), given the log's whole-log facts."""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zero_tui.store import SessionStore
from zero_tui.transcript.log_index import (
    CHUNK_EVENTS,
    LogIndex,
    chunk_rows,
    index_facts,
    matching_positions,
    next_match,
)
from zero_tui.transcript.rows import Row, rows_from_events, visible_row_indices

EventSpec = tuple[str, object]

CALL_IDS = ["c1", "c2", "c1#2", "c2#2#3", ""]
TOOLS = ["grep", "bash", "Task", "update_plan", "TaskOutput"]
CHILDREN = ["kid1", "kid2", ""]


def _tool_call(call_id: str, name: str, key: str) -> EventSpec:
    return ("tool_call", {key: call_id, "name": name, "arguments": '{"path":"a.py"}'})


def _tool_result(call_id: str, name: str, status: str) -> EventSpec:
    return ("tool_result", {"toolCallId": call_id, "name": name, "status": status, "output": "o"})


def _permission(call_id: str, action: str, decision: str) -> EventSpec:
    payload: dict[str, Any] = {"toolCallId": call_id, "name": "bash", "action": action}
    if decision:
        payload["decisionAction"] = decision
    return ("permission_decision" if decision else "permission_request", payload)


def _specialist(kind: str, child: str, call_id: str, status: str) -> EventSpec:
    payload = {"childSessionId": child, "toolCallId": call_id, "specialist": "explorer"}
    return (f"specialist_{kind}", {**payload, "status": status})


def _message(role: str, content: str, origin: str) -> EventSpec:
    payload: dict[str, Any] = {"role": role, "content": content}
    if origin:
        payload["origin"] = origin
    if role == "ask_user":
        payload = {"role": role, "toolCallId": content, "header": "Pick"}
    return ("message", payload)


call_ids = st.sampled_from(CALL_IDS)
EVENTS = st.one_of(
    st.builds(_tool_call, call_ids, st.sampled_from(TOOLS), st.sampled_from(["id", "toolCallId"])),
    st.builds(_tool_result, call_ids, st.sampled_from(TOOLS), st.sampled_from(["ok", "error"])),
    st.builds(
        _permission,
        call_ids,
        st.sampled_from(["prompt", "allow", "deny", "cancel"]),
        st.sampled_from(["", "allow", "deny"]),
    ),
    st.builds(
        _specialist,
        st.sampled_from(["start", "stop"]),
        st.sampled_from(CHILDREN),
        call_ids,
        st.sampled_from(["running", "success", "failed"]),
    ),
    st.builds(
        _message,
        st.sampled_from(["user", "assistant", "ask_user", "goal"]),
        st.sampled_from(["c1", "c2", "", "text"]),
        st.sampled_from(["", "", "cross_session"]),
    ),
    st.just(("error", {"message": "boom"})),
    st.just(("provider_usage", {"totalTokens": 3})),
)


def row_fields(row: Row) -> tuple[object, ...]:
    return tuple(getattr(row, field.name) for field in dataclasses.fields(row))


def batch_rows(store: SessionStore, session_id: str) -> list[tuple[object, ...]]:
    rows = rows_from_events(store.read_events(session_id))
    return [row_fields(rows[index]) for index in visible_row_indices(rows)]


def chunked_rows(
    index: LogIndex, order: Sequence[int], chunk: int, *, with_facts: bool = True
) -> list[tuple[object, ...]]:
    facts = index_facts(index, order) if with_facts else None
    shown: list[tuple[object, ...]] = []
    for start in range(0, len(order), chunk):
        for position, row in chunk_rows(index, order, start, start + chunk, facts):
            assert position == row.order or not with_facts
            shown.append(row_fields(row))
    return shown


def write_session(root: Path, events: Sequence[EventSpec]) -> SessionStore:
    store = SessionStore(root)
    store.create("s", title="t")
    if events:
        store.append_events("s", list(events))
    return store


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(events=st.lists(EVENTS, max_size=60), chunk=st.integers(min_value=1, max_value=9))
def test_chunked_rows_equal_the_rows_of_the_whole_log(events: list[EventSpec], chunk: int) -> None:
    with tempfile.TemporaryDirectory() as directory:
        store = write_session(Path(directory), events)
        with LogIndex.open(store.events_path("s"), "s") as index:
            order = range(len(index))
            assert chunked_rows(index, order, chunk) == batch_rows(store, "s")


def test_a_call_and_its_result_far_apart_show_one_card(tmp_path: Path) -> None:
    filler: list[EventSpec] = [
        ("message", {"role": "assistant", "content": f"a{n}"}) for n in range(150)
    ]
    events = [
        _tool_call("far", "grep", "id"),
        *filler,
        _tool_result("far", "grep", "ok"),
        *filler,
        _tool_result("far", "grep", "ok"),  # replayed: a duplicate key, dropped
    ]
    store = write_session(tmp_path, events)
    with LogIndex.open(store.events_path("s"), "s") as index:
        order = range(len(index))
        shown = chunked_rows(index, order, CHUNK_EVENTS)
        assert shown == batch_rows(store, "s")
        kinds = [fields[0].value for fields in shown if fields[0].value.startswith("tool")]  # type: ignore[attr-defined]
        assert kinds == ["tool_result"]  # no stray call card, no second result
        # without the facts, the chunks disagree with the log: the reason for them
        assert chunked_rows(index, order, CHUNK_EVENTS, with_facts=False) != shown
        facts = index_facts(index, order)
        # the result card only (the call folded into it, the replay dropped)
        assert matching_positions(index, order, "grep", facts=facts) == [151]


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    events=st.lists(EVENTS, min_size=1, max_size=40),
    compacted=st.integers(min_value=0, max_value=40),
    at=st.integers(min_value=0, max_value=40),
    chunk=st.integers(min_value=1, max_value=9),
)
def test_chunked_rows_equal_the_rows_of_a_compacted_log(
    events: list[EventSpec], compacted: int, at: int, chunk: int
) -> None:
    compaction: EventSpec = (
        "session_compaction",
        {"summary": "earlier work", "compactedThroughSequence": compacted},
    )
    at = min(at, len(events))
    with tempfile.TemporaryDirectory() as directory:
        store = write_session(Path(directory), [*events[:at], compaction, *events[at:]])
        rows = rows_from_events(store.read_rehydrated_events("s"))
        expected = [row_fields(rows[index]) for index in visible_row_indices(rows)]
        with LogIndex.open(store.events_path("s"), "s") as index:
            assert chunked_rows(index, index.rehydrated_order(), chunk) == expected


def test_next_match_counts_and_wraps() -> None:
    matches = [3, 10, 40]
    first = next_match(matches, -1)
    assert first is not None
    assert (first.position, first.number, first.total, first.wrapped) == (3, 1, 3, False)
    third = next_match(matches, 10)
    assert third is not None
    assert (third.position, third.number, third.wrapped) == (40, 3, False)
    around = next_match(matches, 40)
    assert around is not None
    assert (around.position, around.number, around.wrapped) == (3, 1, True)
    back = next_match(matches, 3, backwards=True)
    assert back is not None
    assert (back.position, back.number, back.wrapped) == (40, 3, True)
    assert next_match([], 0) is None
