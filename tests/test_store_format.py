"""store-format.md §15 acceptance cases for the store layer, and the Go-written example store.

Case numbers refer to store-format §15. Cases 12-14 (concurrent appends, cross-process
blocking) live in test_store_concurrency.py; 35/36 are about `zero exec` and do not apply;
fork, rewind, checkpoints and goals (37-49, 54-72, 76-77, 83-87) are not implemented.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import stat
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from example_store import copy_example_store, load_expected

from zero_tui import atomic
from zero_tui.store import Event, Goal, Metadata, SessionStore, StoreError, default_root
from zero_tui.store.events import decode_line
from zero_tui.store.gojson import marshal
from zero_tui.store.resumable import filter_resumable
from zero_tui.store.store import valid_session_id

T0 = datetime(2026, 6, 4, 10, 0, 0, tzinfo=UTC)


class Clock:
    """A store clock: returns `start`, then advances by `step` on every read."""

    def __init__(self, start: datetime = T0, step: timedelta = timedelta(0)) -> None:
        self.current = start
        self.step = step
        self.reads = 0

    def __call__(self) -> datetime:
        value = self.current
        self.current += self.step
        self.reads += 1
        return value


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "sessions"


@pytest.fixture
def store(root: Path) -> SessionStore:
    return SessionStore(root, clock=Clock())


@pytest.fixture
def umask_022() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def metadata_json(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_bytes())
    return data


def log_lines(store: SessionStore, sid: str) -> list[bytes]:
    return store.events_path(sid).read_bytes().splitlines(keepends=True)


def rewrite_event_count(store: SessionStore, sid: str, count: int) -> None:
    meta = store.get(sid)
    assert meta is not None
    store.metadata_path(sid).write_bytes(
        dataclasses.replace(meta, event_count=count).to_json_bytes()
    )


def raw_line(
    sid: str, sequence: int, event_type: str = "message", payload: bytes | None = None
) -> bytes:
    return Event(
        f"{sid}:{sequence}", sid, sequence, event_type, "2026-06-04T10:00:00Z", payload
    ).to_json_line()


def message_line(sid: str, sequence: int, content: str, role: str = "assistant") -> bytes:
    return raw_line(sid, sequence, "message", marshal({"role": role, "content": content}))


def sequences(events: list[Event]) -> list[int]:
    return [event.sequence for event in events]


# --- create / append / read (1-11, 15) ---------------------------------------------------


@pytest.mark.usefixtures("umask_022")
def test_case_01_create_writes_metadata_and_an_empty_log(store: SessionStore) -> None:
    meta = store.create(
        "zero_test_1",
        title="First run",
        cwd="/repo",
        model_id="gpt-4.1",
        provider="openai",
        tag="specialist",
        depth=1,
    )
    assert meta.event_count == 0
    assert meta.created_at == meta.updated_at == "2026-06-04T10:00:00Z"
    assert (meta.tag, meta.depth) == ("specialist", 1)
    assert store.metadata_path("zero_test_1").read_bytes() == (
        b"{\n"
        b'  "sessionId": "zero_test_1",\n'
        b'  "title": "First run",\n'
        b'  "cwd": "/repo",\n'
        b'  "modelId": "gpt-4.1",\n'
        b'  "provider": "openai",\n'
        b'  "tag": "specialist",\n'
        b'  "depth": 1,\n'
        b'  "createdAt": "2026-06-04T10:00:00Z",\n'
        b'  "updatedAt": "2026-06-04T10:00:00Z",\n'
        b'  "eventCount": 0\n'
        b"}\n"
    )
    events = store.events_path("zero_test_1")
    assert events.is_file()
    assert events.read_bytes() == b""
    assert stat.S_IMODE(store.session_dir("zero_test_1").stat().st_mode) == 0o700
    assert stat.S_IMODE(events.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.metadata_path("zero_test_1").stat().st_mode) == 0o600
    assert not store.lock_path("zero_test_1").exists()  # no lock file until a locked write
    assert store.get("zero_test_1") == meta


def test_metadata_with_a_goal_is_indented_like_marshal_indent(root: Path) -> None:
    """§4.2/§4.5: the nested goal object, its key order and omitted zero fields."""
    store = SessionStore(root, clock=Clock(datetime(2026, 6, 13, 10, 0, 8, tzinfo=UTC)))
    goal = Goal(
        objective="Ship the v2 release notes",
        status="paused",
        status_reason="user interrupted",
        token_budget=1000,
        tokens_used=250,
        continuation_limit=20,
        created_at="2026-06-13T10:00:00Z",
        updated_at="2026-06-13T10:00:07Z",
    )
    store.create(
        "goal-paused",
        title="Release notes",
        cwd="/home/dev/app",
        goal=goal,
        spec_status="  APPROVED ",
    )
    data = store.metadata_path("goal-paused").read_bytes()
    assert data == (
        b"{\n"
        b'  "sessionId": "goal-paused",\n'
        b'  "title": "Release notes",\n'
        b'  "cwd": "/home/dev/app",\n'
        b'  "specStatus": "approved",\n'
        b'  "goal": {\n'
        b'    "objective": "Ship the v2 release notes",\n'
        b'    "status": "paused",\n'
        b'    "statusReason": "user interrupted",\n'
        b'    "tokenBudget": 1000,\n'
        b'    "tokensUsed": 250,\n'
        b'    "continuationLimit": 20,\n'
        b'    "createdAt": "2026-06-13T10:00:00Z",\n'
        b'    "updatedAt": "2026-06-13T10:00:07Z"\n'
        b"  },\n"
        b'  "createdAt": "2026-06-13T10:00:08Z",\n'
        b'  "updatedAt": "2026-06-13T10:00:08Z",\n'
        b'  "eventCount": 0\n'
        b"}\n"
    )
    meta = store.get("goal-paused")
    assert meta is not None
    assert meta.goal == goal
    assert meta.to_json_bytes() == data
    store.create("odd-status", spec_status="shipped")
    assert b"specStatus" not in store.metadata_path("odd-status").read_bytes()


def test_case_02_append_message(store: SessionStore) -> None:
    store.create("zero_test_1", title="First run", cwd="/repo")
    [event] = store.append_events(
        "zero_test_1", [("message", {"role": "user", "content": "searchable hello"})]
    )
    assert (event.id, event.sequence) == ("zero_test_1:1", 1)
    meta = store.get("zero_test_1")
    assert meta is not None
    assert (meta.event_count, meta.last_event_type) == (1, "message")
    assert log_lines(store, "zero_test_1") == [
        b'{"id":"zero_test_1:1","sessionId":"zero_test_1","sequence":1,"type":"message",'
        b'"createdAt":"2026-06-04T10:00:00Z",'
        b'"payload":{"content":"searchable hello","role":"user"}}\n'
    ]
    assert [m.session_id for m in store.list()] == ["zero_test_1"]


def test_case_03_negative_depth_is_rejected_before_anything_is_created(
    store: SessionStore, root: Path
) -> None:
    with pytest.raises(StoreError, match="invalid zero session depth"):
        store.create("neg", depth=-1)
    assert not (root / "neg").exists()


def test_case_04_invalid_and_duplicate_ids(store: SessionStore, root: Path) -> None:
    with pytest.raises(StoreError, match=re.escape('invalid zero session id "../escape"')):
        store.create("../escape")
    assert not (root.parent / "escape").exists()
    store.create("twice")
    with pytest.raises(StoreError, match="zero session already exists: twice"):
        store.create("twice")


def test_case_05_generated_ids_differ_under_a_frozen_clock(store: SessionStore) -> None:
    first = store.create().session_id
    second = store.create().session_id
    assert first != second
    nanos = int(T0.timestamp()) * 1_000_000_000
    for generated in (first, second):
        assert re.fullmatch(rf"zero_20260604100000_{nanos}_\d+", generated), generated
        assert store.get(generated) is not None


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"XDG_DATA_HOME": "/tmp/zero-data", "HOME": "/tmp/home"}, "/tmp/zero-data/zero/sessions"),
        ({"HOME": "/h"}, "/h/.local/share/zero/sessions"),
        ({"XDG_DATA_HOME": " /x "}, "/x/zero/sessions"),
        ({"XDG_DATA_HOME": "", "HOME": " /h/./a/../b "}, "/h/b/.local/share/zero/sessions"),
    ],
)
def test_case_06_default_root(env: dict[str, str], expected: str) -> None:
    assert default_root(env) == Path(expected)


def test_case_07_batch_reads_the_clock_per_event_in_one_write(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SessionStore(
        root, clock=Clock(datetime(2026, 6, 4, 15, 0, 0, tzinfo=UTC), timedelta(seconds=1))
    )
    store.create("batch")
    writes: list[bytes] = []
    real_write_all = atomic.write_all

    def recording_write_all(fd: int, data: bytes) -> None:
        writes.append(data)
        real_write_all(fd, data)

    monkeypatch.setattr("zero_tui.store.store.write_all", recording_write_all)
    events = store.append_events(
        "batch",
        [
            ("message", {"role": "user", "content": "x"}),
            ("tool_call", {"id": "c"}),
            ("tool_result", {}),
        ],
    )
    assert sequences(events) == [1, 2, 3]
    assert [e.id for e in events] == ["batch:1", "batch:2", "batch:3"]
    assert [e.created_at for e in events] == [
        "2026-06-04T15:00:01Z",
        "2026-06-04T15:00:02Z",
        "2026-06-04T15:00:03Z",
    ]
    meta = store.get("batch")
    assert meta is not None
    assert (meta.event_count, meta.last_event_type) == (3, "tool_result")
    assert meta.updated_at == "2026-06-04T15:00:03Z"
    assert meta.created_at == "2026-06-04T15:00:00Z"
    log = store.events_path("batch").read_bytes()
    assert log in writes  # the three lines went out in one write
    assert log.count(b"\n") == 3


def test_case_08_empty_batch_touches_nothing(store: SessionStore) -> None:
    store.create("idle")
    before = store.metadata_path("idle").read_bytes()
    inode = store.metadata_path("idle").stat().st_ino
    assert store.append_events("idle", []) == []
    assert store.metadata_path("idle").read_bytes() == before
    assert store.metadata_path("idle").stat().st_ino == inode  # not rewritten
    assert not store.lock_path("idle").exists()  # not even locked


def test_case_09_a_bad_raw_payload_aborts_the_whole_batch(store: SessionStore) -> None:
    store.create("abort")
    with pytest.raises(StoreError, match="invalid raw JSON payload"):
        store.append_events("abort", [("message", {"content": "ok"}), ("message", b'{"broken"')])
    assert store.events_path("abort").read_bytes() == b""
    meta = metadata_json(store.metadata_path("abort"))
    assert meta["eventCount"] == 0
    assert "lastEventType" not in meta


def test_case_10_blank_event_type_is_rejected(store: SessionStore) -> None:
    store.create("typed")
    with pytest.raises(StoreError, match="zero session event type is required"):
        store.append_events("typed", [("  ", {"a": 1})])
    assert store.events_path("typed").read_bytes() == b""


def test_case_11_absent_blank_and_null_payloads(store: SessionStore) -> None:
    store.create("nulls")
    store.append_events("nulls", [("a", None), ("b", b"   "), ("c", b"null"), ("d", b" \n{} ")])
    lines = log_lines(store, "nulls")
    assert b'"payload"' not in lines[0]
    assert lines[0].endswith(b'"createdAt":"2026-06-04T10:00:00Z"}\n')
    assert b'"payload"' not in lines[1]
    assert lines[2].endswith(b',"payload":null}\n')
    assert lines[3].endswith(b',"payload":{}}\n')
    events = store.read_events("nulls")
    assert [e.has_payload for e in events] == [False, False, True, True]
    assert events[2].payload is None


def test_case_15_append_to_a_missing_session_creates_nothing(
    store: SessionStore, root: Path
) -> None:
    store.create("exists")
    with pytest.raises(StoreError, match="open zero session lock"):
        store.append_events("ghost", [("message", {"content": "x"})])
    assert not (root / "ghost").exists()


# --- sequence durability (16-21) -----------------------------------------------------------


def test_case_16_stale_low_metadata_is_repaired_from_the_log(store: SessionStore) -> None:
    store.create("low")
    store.append_events("low", [("message", {"n": i}) for i in range(3)])
    rewrite_event_count(store, "low", 2)
    assert store.next_sequence("low") == 4
    [event] = store.append_events("low", [("message", {"n": 3})])
    assert event.sequence == 4
    assert sequences(store.read_events("low")) == [1, 2, 3, 4]


def test_case_17_stale_high_metadata_leaves_a_gap(store: SessionStore) -> None:
    store.create("high")
    store.append_events("high", [("message", {"n": 1}), ("message", {"n": 2})])
    rewrite_event_count(store, "high", 5)
    assert store.next_sequence("high") == 6
    [event] = store.append_events("high", [("message", {"n": 6})])
    assert (event.sequence, event.id) == (6, "high:6")
    assert sequences(store.read_events("high")) == [1, 2, 6]


def test_case_18_tail_probe(store: SessionStore) -> None:
    store.create("probe")
    assert store.last_complete_sequence("probe") == 0
    store.append_events("probe", [("message", {"n": i}) for i in range(3)])
    assert store.last_complete_sequence("probe") == 3


def test_case_19_probe_ignores_a_torn_partial_line(store: SessionStore) -> None:
    store.create("torn")
    store.append_events("torn", [("message", {"n": i}) for i in range(3)])
    with store.events_path("torn").open("ab") as handle:
        handle.write(b'{"sequence":4,"type":"message","partial')
    assert store.last_complete_sequence("torn") == 3
    assert sequences(store.read_events("torn")) == [1, 2, 3]


def test_case_20_probe_grows_its_window_for_a_long_line(store: SessionStore) -> None:
    store.create("long")
    store.append_events("long", [("message", {"content": "x" * (100 * 1024)})])
    assert len(store.events_path("long").read_bytes()) > 100 * 1024
    assert store.last_complete_sequence("long") == 1
    [event] = store.append_events("long", [("message", {"content": "y"})])
    assert event.sequence == 2


def test_case_21_trailing_blank_line_never_reuses_a_sequence(store: SessionStore) -> None:
    """Deliberate divergence from Zero (store-format §5.3 and §15 case 21).

    Go's tail probe reads only the text between the last two newlines; when the log ends
    with a blank line (`...\\n\\n`) it returns 0, and with metadata `eventCount` 0 Go's next
    append gets sequence 1 again — a duplicate. Our probe skips trailing blank lines, so the
    next append after `...\\n\\n` gets the last logged sequence + 1.
    """
    store.create("blank")
    store.append_events("blank", [("message", {"n": i}) for i in range(3)])
    with store.events_path("blank").open("ab") as handle:
        handle.write(b"\n   \n")
    rewrite_event_count(store, "blank", 0)
    assert store.last_complete_sequence("blank") == 3
    assert store.next_sequence("blank") == 4
    [event] = store.append_events("blank", [("message", {"n": 3})])
    assert event.sequence == 4
    assert sequences(store.read_events("blank")) == [1, 2, 3, 4]


# --- reading and damage (22-30) -------------------------------------------------------------


def write_session(store: SessionStore, sid: str, log: bytes) -> None:
    store.create(sid)
    store.events_path(sid).write_bytes(log)


def test_case_22_torn_final_line_is_dropped(store: SessionStore) -> None:
    log = message_line("s", 1, "a") + message_line("s", 2, "b") + b'{"id":"s:3","seq'
    write_session(store, "s", log)
    assert sequences(store.read_events("s")) == [1, 2]


def test_case_23_corrupt_middle_line_fails_with_its_line_number(store: SessionStore) -> None:
    write_session(store, "s", message_line("s", 1, "a") + b"not json\n" + message_line("s", 2, "b"))
    with pytest.raises(StoreError, match=r"invalid json in zero session s events\.jsonl at line 2"):
        store.read_events("s")


def test_case_24_single_corrupt_line(store: SessionStore) -> None:
    write_session(store, "bad", b"{not-json}\n")
    with pytest.raises(StoreError, match=r"events\.jsonl at line 1"):
        store.read_events("bad")


def test_case_25_corrupt_final_line_with_newline_is_fatal(store: SessionStore) -> None:
    log = message_line("s", 1, "a") + message_line("s", 2, "b") + b'{"id":"s:3","seq\n'
    write_session(store, "s", log)
    with pytest.raises(StoreError, match=r"events\.jsonl at line 3"):
        store.read_events("s")


@pytest.mark.parametrize("sequence", [b'"2"', b"2.0", b"1e2"])
def test_case_26_sequence_must_be_an_integer_literal(store: SessionStore, sequence: bytes) -> None:
    bad = b'{"id":"s:2","sessionId":"s","sequence":' + sequence + b',"type":"message"}\n'
    write_session(store, "s", message_line("s", 1, "a") + bad + message_line("s", 3, "c"))
    with pytest.raises(StoreError, match=r"events\.jsonl at line 2"):
        store.read_events("s")


def test_case_28_missing_log_reads_as_empty(store: SessionStore) -> None:
    store.create("nolog")
    store.events_path("nolog").unlink()
    assert store.read_events("nolog") == []
    assert store.read_rehydrated_events("nolog") == []


def test_case_29_corrupt_or_missing_metadata(store: SessionStore) -> None:
    store.create("good")
    store.create("corrupt")
    store.create("nometa")
    store.metadata_path("corrupt").write_bytes(b'{"sessionId": "corrupt",')
    store.metadata_path("nometa").unlink()
    with pytest.raises(StoreError, match="invalid zero session metadata corrupt: "):
        store.get("corrupt")
    assert store.get("nometa") is None
    assert [m.session_id for m in store.list()] == ["good"]


def test_case_30_torn_log_is_repaired_before_appending(store: SessionStore) -> None:
    partial = b'{"id":"s:3","sessionId":"s","sequence":3,"type":"message","payload":{"torn'
    intact = message_line("s", 1, "a") + message_line("s", 2, "b")
    write_session(store, "s", intact + partial)
    rewrite_event_count(store, "s", 2)
    [event] = store.append_events("s", [("message", {"content": "c"})])
    assert event.sequence == 3
    data = store.events_path("s").read_bytes()
    assert partial not in data
    assert data == intact + event.to_json_line()
    assert sequences(store.read_events("s")) == [1, 2, 3]


def test_case_30_what_go_would_have_written_is_unreadable(store: SessionStore) -> None:
    """Zero appends straight after the partial bytes; that merged line is fatal (§7)."""
    partial = b'{"id":"s:3","sessionId":"s","sequence":3,"type":"mess'
    go_result = message_line("s", 1, "a") + partial + message_line("s", 2, "b")
    write_session(store, "s", go_result)
    with pytest.raises(StoreError, match=r"events\.jsonl at line 2"):
        store.read_events("s")


# --- list / resume (31) -------------------------------------------------------------------


def test_case_31_resumable_kinds_and_latest(root: Path) -> None:
    store = SessionStore(root, clock=Clock(step=timedelta(minutes=1)))
    kinds = ["", "fork", "child", "spec-draft", "spec-impl", "", "child", "side"]
    for index, kind in enumerate(kinds):
        sid = f"k{index}"
        store.create(sid, session_kind=kind)
        store.append_events(sid, [("message", {"role": "assistant", "content": "x"})])
    resumable = store.list_resumable()
    assert [m.session_id for m in resumable] == ["k5", "k1", "k0"]
    assert all(m.session_kind in ("", "fork") for m in resumable)
    latest = store.latest_resumable()
    assert latest is not None
    assert latest.session_id == "k5"
    assert store.list()[0].session_id == "k7"  # the side session is newer


# --- compaction rehydration (50-53) -------------------------------------------------------


def compaction_payload(summary: str, refs: list[int], *, through: int = 0, sid: str = "c") -> bytes:
    payload: dict[str, object] = {"summary": summary}
    if refs:
        payload["compactableEvents"] = [
            {"id": f"{sid}:{n}", "sequence": n, "type": "message"} for n in refs
        ]
    if through:
        payload["compactedThroughSequence"] = through
    return marshal(payload)


def ids(events: list[Event]) -> list[str]:
    return [event.id for event in events]


def test_case_50_rehydration_replaces_compacted_events(store: SessionStore) -> None:
    store.create("c")
    for word in ("alpha", "beta", "gamma", "delta"):
        store.append_events("c", [("message", {"role": "user", "content": word})])
    store.append_events("c", [("session_compaction", compaction_payload("summary", [1, 2]))])
    store.append_events("c", [("message", {"role": "user", "content": "epsilon"})])
    rehydrated = store.read_rehydrated_events("c")
    assert ids(rehydrated) == ["c:5", "c:3", "c:4", "c:6"]
    texts = [e.payload_object().get("content") for e in rehydrated]
    assert texts == [None, "gamma", "delta", "epsilon"]
    assert rehydrated[0].payload_object()["summary"] == "summary"


def test_case_51_broken_latest_compaction_fails_and_falls_back_to_raw(
    store: SessionStore,
) -> None:
    store.create("c")
    store.append_events("c", [("message", {"content": "first"})])
    store.append_events("c", [("session_compaction", b'{"summary":""}')])
    with pytest.raises(StoreError, match="decode compaction payload seq 2: summary is required"):
        store.read_rehydrated_events("c")
    events, reason = store.read_events_for_display("c")
    assert ids(events) == ["c:1", "c:2"]
    assert reason is not None
    assert "summary is required" in reason


def test_case_52_only_the_latest_compaction_is_decoded(store: SessionStore) -> None:
    store.create("c")
    store.append_events(
        "c",
        [
            ("message", {"content": "first"}),
            ("session_compaction", b'{"summary":""}'),
            ("message", {"content": "second"}),
            ("session_compaction", compaction_payload("Latest compacted summary.", [2, 3])),
            ("message", {"content": "tail"}),
        ],
    )
    assert ids(store.read_rehydrated_events("c")) == ["c:1", "c:4", "c:5"]


def test_case_53_legacy_cutoff_by_sequence(store: SessionStore) -> None:
    store.create("c")
    store.append_events("c", [("message", {"content": w}) for w in ("a", "b", "c", "d")])
    store.append_events("c", [("session_compaction", compaction_payload("old", [], through=2))])
    store.append_events("c", [("message", {"content": "e"})])
    assert ids(store.read_rehydrated_events("c")) == ["c:5", "c:3", "c:4", "c:6"]


def log_of(sid: str, count: int, compaction: bytes | None) -> bytes:
    """`count` message events, then a compaction whose payload is `compaction` as written."""
    lines = [
        Event(f"{sid}:{n}", sid, n, "message", "2026-06-04T10:00:00Z", b"{}").to_json_line()
        for n in range(1, count + 1)
    ]
    head = (
        f'{{"id":"{sid}:{count + 1}","sessionId":"{sid}","sequence":{count + 1},'
        f'"type":"session_compaction","createdAt":"2026-06-04T10:00:00Z"'
    ).encode()
    tail = b"}\n" if compaction is None else b',"payload":' + compaction + b"}\n"
    return b"".join(lines) + head + tail


# Each expectation is what Zero 0.8.0's ReadRehydratedEvents gave for the same log (checked
# by hand with its store code): its json.Unmarshal into CompactionPayload, duplicates,
# nulls and type errors included.
@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        # a later null keeps the summary; the cut-off sequence likewise
        (
            b'{"summary":"x","compactableEvents":[{"id":"c:1"}],"summary":null}',
            ["c:4", "c:2", "c:3"],
        ),
        (
            b'{"summary":"x","compactedThroughSequence":2,"compactedThroughSequence":null}',
            ["c:4", "c:3"],
        ),
        # a repeated array decodes into the elements the earlier ones left, even past a
        # shorter one (Go keeps the backing array); an empty array starts afresh
        (
            b'{"summary":"x","compactableEvents":[{"id":"c:1"},{"id":"c:3"}],'
            b'"compactableEvents":[{"sequence":4}],"compactableEvents":[{},{}]}',
            ["c:4", "c:2"],
        ),
        (
            b'{"summary":"x","compactableEvents":[{"id":"c:1"},{"id":"c:3"}],'
            b'"compactableEvents":[],"compactableEvents":[{},{}],"compactedThroughSequence":2}',
            ["c:4", "c:3"],
        ),
        (b'{"SUMMARY":"x","CompactableEvents":[{"ID":"c:2"}]}', ["c:1", "c:4", "c:3"]),
        # every field of the payload is typed, not only the ones rehydration uses
        (
            b'{"summary":"x","preserveLast":"3"}',
            "cannot unmarshal string into Go struct field CompactionPayload.preserveLast of "
            "type int",
        ),
        (
            b'{"summary":"x","truncated":1}',
            "cannot unmarshal number into Go struct field CompactionPayload.truncated of type bool",
        ),
        (
            b'{"summary":"x","compactableEvents":[{"type":5}]}',
            "cannot unmarshal number into Go struct field EventRef.compactableEvents.type of "
            "type sessions.EventType",
        ),
        (
            b'{"summary":"x","compactableEvents":[5]}',
            "cannot unmarshal number into Go struct field CompactionPayload.compactableEvents of "
            "type sessions.EventRef",
        ),
        (
            b'{"summary":"x","compactableEvents":"5"}',
            "cannot unmarshal string into Go struct field CompactionPayload.compactableEvents of "
            "type []sessions.EventRef",
        ),
        (
            b'{"summary":"x","preserveLast":1.5,"promptChars":"x"}',
            "cannot unmarshal number 1.5 into Go struct field CompactionPayload.preserveLast of "
            "type int",
        ),
        (b"[]", "cannot unmarshal array into Go value of type sessions.CompactionPayload"),
        (b"null", "summary is required"),
        (None, "unexpected end of JSON input"),
    ],
)
def test_compaction_payload_is_read_as_zero_reads_it(
    store: SessionStore, payload: bytes | None, expected: list[str] | str
) -> None:
    store.create("c")
    store.events_path("c").write_bytes(log_of("c", 3, payload))
    if isinstance(expected, str):
        with pytest.raises(StoreError) as caught:
            store.read_rehydrated_events("c")
        assert str(caught.value) == f"decode compaction payload seq 4: {expected}"
    else:
        assert ids(store.read_rehydrated_events("c")) == expected


def test_compaction_summary_blankness_uses_go_trim_space(store: SessionStore) -> None:
    store.create("c")
    store.append_events("c", [("message", {"content": "a"}), ("message", {"content": "b"})])
    store.append_events("c", [("session_compaction", compaction_payload("\x1c", [1]))])
    assert ids(store.read_rehydrated_events("c")) == ["c:3", "c:2"]


def test_compaction_summary_of_go_whitespace_is_blank(store: SessionStore) -> None:
    store.create("c")
    store.append_events("c", [("message", {"content": "a"})])
    store.append_events("c", [("session_compaction", compaction_payload(" \u00a0\u3000\n", [1]))])
    with pytest.raises(StoreError, match="summary is required"):
        store.read_rehydrated_events("c")


def test_compaction_that_skips_nothing_goes_first(store: SessionStore) -> None:
    store.create("c")
    store.append_events("c", [("message", {"content": "a"}), ("message", {"content": "b"})])
    store.append_events("c", [("session_compaction", compaction_payload("s", [99]))])
    assert ids(store.read_rehydrated_events("c")) == ["c:3", "c:1", "c:2"]


# --- titles and model (73-75) -------------------------------------------------------------


def test_case_73_update_title(root: Path) -> None:
    store = SessionStore(root, clock=Clock(step=timedelta(seconds=1)))
    store.create("t")
    store.append_events("t", [("message", {"content": "x"})])
    before = store.get("t")
    assert before is not None
    meta = store.update_title("t", "  Clean Generated Title  ")
    assert meta.title == "Clean Generated Title"
    after = store.get("t")
    assert after is not None
    assert after.title == "Clean Generated Title"
    assert (after.updated_at, after.event_count) == (before.updated_at, before.event_count)
    with pytest.raises(StoreError, match="zero session title is required"):
        store.update_title("t", " \t ")
    inode = store.metadata_path("t").stat().st_ino
    assert store.update_title("t", "Clean Generated Title").title == "Clean Generated Title"
    assert store.metadata_path("t").stat().st_ino == inode  # unchanged: not rewritten
    with pytest.raises(StoreError, match="invalid zero session id"):
        store.update_title("../escape", "x")


def test_case_74_update_title_if_current(store: SessionStore) -> None:
    store.create("t", title="Automatic title")
    meta, applied = store.update_title_if_current("t", "Automatic title", "Generated title")
    assert applied
    assert meta.title == "Generated title"
    store.update_title("t", "Manual title")
    meta, applied = store.update_title_if_current("t", "Generated title", "Late generated title")
    assert not applied
    stored = store.get("t")
    assert stored is not None
    assert meta.title == stored.title == "Manual title"


def test_case_75_update_model(root: Path) -> None:
    store = SessionStore(root, clock=Clock(step=timedelta(seconds=1)))
    store.create("m", model_id="model-a")
    store.append_events("m", [("message", {"content": "x"})])
    before = metadata_json(store.metadata_path("m"))
    assert store.update_model("m", "  model-b  ").model_id == "model-b"
    after = metadata_json(store.metadata_path("m"))
    assert after["modelId"] == "model-b"
    assert (after["updatedAt"], after["eventCount"]) == (before["updatedAt"], before["eventCount"])
    store.update_model("m", "")
    assert "modelId" not in metadata_json(store.metadata_path("m"))


# --- byte-level encoding (79-82; 78 is the example store below) ---------------------------


def test_case_79_title_escaping_and_trimming(store: SessionStore) -> None:
    store.create("t", title='  Renamed: <Button> & "quotes" — 完了 🎉  ')
    text = store.metadata_path("t").read_text(encoding="utf-8")
    assert '  "title": "Renamed: \\u003cButton\\u003e \\u0026 \\"quotes\\" — 完了 🎉",\n' in text
    store.update_title("t", "\u00a0\u001f padded\u2028title \u3000")
    text = store.metadata_path("t").read_text(encoding="utf-8")
    assert '  "title": "\\u001f padded\\u2028title",\n' in text


def test_case_80_map_payload_keys_sorted_by_utf8_bytes(store: SessionStore) -> None:
    store.create("k")
    payload = {"zeta": 1, "Zeta": 2, "_x": 3, "é": 4, "<tag>": 5, "a&b": 6, "10": 7, "9": 8, "": 9}
    store.append_events("k", [("message", payload)])
    [line] = log_lines(store, "k")
    expected = (
        '{"":9,"10":7,"9":8,"\\u003ctag\\u003e":5,"Zeta":2,"_x":3,"a\\u0026b":6,"zeta":1,"é":4}'
    )
    assert line.endswith(b',"payload":' + expected.encode() + b"}\n")


def test_case_81_raw_payload_is_compacted_and_html_escaped(store: SessionStore) -> None:
    store.create("r")
    raw = (
        '{ "role" : "assistant",\n  "content" : "<b>caf\\u00e9</b> \u2028 \\/ 1.50",\n'
        '  "n" : [ 1.50 , 1e3 , -0 ] }\n'
    ).encode()
    store.append_events("r", [("message", raw)])
    [line] = log_lines(store, "r")
    expected = (
        b'{"role":"assistant",'
        b'"content":"\\u003cb\\u003ecaf\\u00e9\\u003c/b\\u003e \\u2028 \\/ 1.50",'
        b'"n":[1.50,1e3,-0]}'
    )
    assert line.endswith(b',"payload":' + expected + b"}\n")
    [event] = store.read_events("r")
    assert event.payload_raw == expected


@pytest.mark.parametrize("around", [(b" ", b""), (b"", b" "), (b"\t", b"\r \t")])
def test_whitespace_around_a_payload_is_not_part_of_its_bytes(around: tuple[bytes, bytes]) -> None:
    # Go's RawMessage holds the value's bytes alone, however the line is spelled
    head = b'{"id":"s:1","sessionId":"s","sequence":1,"type":"message","createdAt":"t",'
    for tail in (b"}", b',"x":1}'):
        line = head + b'"payload":' + around[0] + b'{"a": 1}' + around[1] + tail
        event = decode_line(line, "s", 1)
        assert event.payload_raw == b'{"a": 1}'
        assert event.payload == {"a": 1}


def test_case_82_control_characters_and_invalid_utf8(store: SessionStore) -> None:
    store.create("ctl")
    content = "\x07\x08\x0c\x1b\x7f\x00" + b"\xff".decode("utf-8", "surrogateescape")
    store.append_events("ctl", [("message", {"content": content})])
    [line] = log_lines(store, "ctl")
    assert line.endswith(b'"payload":{"content":"\\u0007\\b\\f\\u001b\x7f\\u0000\\ufffd"}}\n')
    [event] = store.read_events("ctl")
    assert event.payload == {"content": "\x07\x08\x0c\x1b\x7f\x00\ufffd"}


# --- the Go-written example store (78 and expected.json) ---------------------------------


@pytest.fixture
def example_root(tmp_path: Path) -> Path:
    return copy_example_store(tmp_path)


@pytest.fixture
def expected() -> dict[str, Any]:
    return load_expected()


def session_dirs(root: Path) -> list[Path]:
    return sorted(path for path in root.iterdir() if path.is_dir())


def test_case_78_every_metadata_file_reencodes_byte_for_byte(example_root: Path) -> None:
    dirs = session_dirs(example_root)
    assert dirs
    for directory in dirs:
        data = (directory / "metadata.json").read_bytes()
        assert Metadata.from_json(data).to_json_bytes() == data, directory.name


def test_case_78_every_event_line_reencodes_byte_for_byte(example_root: Path) -> None:
    count = 0
    for directory in session_dirs(example_root):
        sid = directory.name
        for number, line in enumerate(
            (directory / "events.jsonl").read_bytes().splitlines(True), 1
        ):
            assert line.endswith(b"\n")
            event = decode_line(line.rstrip(b"\n"), sid, number)
            assert event.to_json_line() == line, f"{sid} line {number}"
            count += 1
    assert count > 0


def test_example_map_payloads_remarshal_byte_for_byte(example_root: Path) -> None:
    """Payloads Go built from maps (sorted keys) come out of our marshal identically."""
    map_types = {"message", "tool_call", "tool_result", "provider_usage"}
    store = SessionStore(example_root)
    checked = 0
    for meta in store.list():
        for event in store.read_events(meta.session_id):
            if event.type in map_types and event.payload_raw is not None:
                assert marshal(event.payload) == event.payload_raw, event.id
                checked += 1
    assert checked > 0


def test_example_store_lists_like_zero(example_root: Path, expected: dict[str, Any]) -> None:
    store = SessionStore(example_root)
    assert [m.session_id for m in store.list()] == expected["list"]
    assert [m.session_id for m in store.list_resumable()] == expected["listResumable"]
    listed = store.list()
    assert (listed[0].session_id if listed else None) == expected["latest"]
    latest = store.latest_resumable()
    assert (latest.session_id if latest else None) == expected["latestResumable"]
    for workspace, picker in expected["resumePicker"].items():
        result = filter_resumable(store, workspace)
        assert [m.session_id for m in result.sessions] == picker, workspace


def test_example_store_entries_read_like_zero(example_root: Path, expected: dict[str, Any]) -> None:
    store = SessionStore(example_root)
    entries: dict[str, dict[str, Any]] = expected["entries"]
    assert sorted(entries) == sorted(path.name for path in session_dirs(example_root))
    for sid, entry in entries.items():
        assert (example_root / sid).is_dir() == entry["isDir"]
        assert valid_session_id(sid) == entry["validId"]
        meta = store.get(sid)
        assert meta is not None
        assert meta.to_dict() == entry["get"], sid
        events = store.read_events(sid)
        got = [
            {
                "id": e.id,
                "sessionId": e.session_id,
                "sequence": e.sequence,
                "type": e.type,
                "createdAt": e.created_at,
                "payloadRaw": None if e.payload_raw is None else e.payload_raw.decode("utf-8"),
                "hasPayload": e.has_payload,
            }
            for e in events
        ]
        want = [
            {**event, "payloadRaw": event.get("payloadRaw") if event["hasPayload"] else None}
            for event in entry["readEvents"]
        ]
        assert got == want, sid
        assert ids(store.read_rehydrated_events(sid)) == entry["rehydrated"], sid
        assert store.next_sequence(sid) == entry["nextSequence"], sid
        assert store.last_complete_sequence(sid) == entry["lastCompleteSequence"], sid


def test_example_store_accepts_an_append_at_zeros_next_sequence(
    example_root: Path, expected: dict[str, Any]
) -> None:
    store = SessionStore(example_root, clock=Clock())
    for sid, entry in expected["entries"].items():
        before = store.events_path(sid).read_bytes()
        [event] = store.append_events(sid, [("message", {"role": "user", "content": "more"})])
        assert event.sequence == entry["nextSequence"]
        assert store.events_path(sid).read_bytes() == before + event.to_json_line()


def test_recently_changed_reads_the_newest_metadata_files_first(
    store: SessionStore, root: Path
) -> None:
    """A cold picker's first screen: sessions by their metadata file's time, unreadable and
    vanished ones skipped."""
    for index, name in enumerate(["old", "newest", "middle"]):
        store.create(name, title=name, cwd="/w")
        stamp = 1_700_000_000 + {"old": 0, "middle": 50, "newest": 100}[name] + index
        os.utime(root / name / "metadata.json", (stamp, stamp))
    (root / "broken").mkdir()
    (root / "broken" / "metadata.json").write_bytes(b"{not json")
    (root / "no-metadata").mkdir()
    order = store.recently_changed()
    assert next(order).session_id == "newest"
    os.unlink(root / "old" / "metadata.json")  # gone between the stat and the read
    assert [meta.session_id for meta in order] == ["middle"]
