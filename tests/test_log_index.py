"""The line index of events.jsonl: offsets, torn tail, live growth, rehydration by offsets."""

from __future__ import annotations

import json
import mmap
import os
import re
from array import array
from collections.abc import Iterator
from pathlib import Path

import pytest

from zero_tui.store import Event, SessionStore, StoreError
from zero_tui.store.events import iter_pieces, parse_log, rehydrate
from zero_tui.transcript import log_index
from zero_tui.transcript.log_index import LogChange, LogIndex

SID = "s"


def line(sequence: int, event_type: str, payload: object = None, *, sid: str = SID) -> bytes:
    raw = None if payload is None else json.dumps(payload, separators=(",", ":")).encode()
    event = Event(f"{sid}:{sequence}", sid, sequence, event_type, "2026-06-04T10:00:00Z", raw)
    return event.to_json_line()


def message(sequence: int, role: str, content: str) -> bytes:
    return line(sequence, "message", {"content": content, "role": role})


def compaction(sequence: int, summary: str, ids: list[int], *, through: int = 0) -> bytes:
    payload: dict[str, object] = {"summary": summary, "preserveLast": 2}
    if ids:
        payload["compactableEvents"] = [
            {"id": f"{SID}:{i}", "sequence": i, "type": "message"} for i in ids
        ]
    if through:
        payload["compactedThroughSequence"] = through
    return line(sequence, "session_compaction", payload)


def write_log(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "events.jsonl"
    path.write_bytes(data)
    return path


def decoded(index: LogIndex) -> list[Event]:
    return [index.decode(i) for i in range(len(index))]


def test_offsets_match_the_store_reader(tmp_path: Path) -> None:
    data = message(1, "user", "hi") + b"\n  \n" + message(2, "assistant", "hello\nworld")
    data += b"   " + message(3, "user", "indented")
    path = write_log(tmp_path, data)
    with LogIndex.open(path, SID) as index:
        assert len(index) == 3
        assert [index.line_number(i) for i in range(3)] == [1, 4, 5]
        assert decoded(index) == parse_log(data, SID)
        assert index.line_bytes(2).startswith(b'{"id":"s:3"')


def test_offsets_match_the_store_reader_across_windows_of_long_and_short_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # long lines are found by `find`, a window of short ones sends the next to `finditer`
    scans: list[str] = []
    find_offsets, newline = log_index._newline_offsets, log_index._NEWLINE

    def counting_find(data: mmap.mmap, start: int, end: int) -> array[int]:
        scans.append("find")
        return find_offsets(data, start, end)

    class CountingNewline:
        def finditer(self, data: mmap.mmap, start: int, end: int) -> Iterator[re.Match[bytes]]:
            scans.append("finditer")
            return newline.finditer(data, start, end)

    monkeypatch.setattr(log_index, "_SCAN_WINDOW", 512)
    monkeypatch.setattr(log_index, "_newline_offsets", counting_find)
    monkeypatch.setattr(log_index, "_NEWLINE", CountingNewline())
    long_text = "a long answer " * 60
    data = message(1, "user", long_text) + message(2, "assistant", long_text)
    data += b"null\n\n  \n" * 200 + message(3, "user", long_text) + b"\n" + message(4, "x", "")
    path = write_log(tmp_path, data)
    with LogIndex.open(path, SID) as index:
        assert decoded(index) == parse_log(data, SID)
        pieces = list(iter_pieces(data))
        assert [index.line_number(i) for i in range(len(index))] == [p.number for p in pieces]
        assert [index.line_bytes(i) for i in range(len(index))] == [p.content for p in pieces]
    assert {"find", "finditer"} <= set(scans)


def test_missing_log_is_empty(tmp_path: Path) -> None:
    with LogIndex.open(tmp_path / "events.jsonl", SID) as index:
        assert len(index) == 0
        assert list(index.rehydrated_order()) == []


def test_torn_tail_is_dropped_and_a_complete_unterminated_line_is_kept(tmp_path: Path) -> None:
    torn = message(1, "user", "a") + message(2, "assistant", "b") + b'{"sequence":3,"type":"mes'
    with LogIndex.open(write_log(tmp_path, torn), SID) as index:
        assert [event.sequence for event in decoded(index)] == [1, 2]
        assert not index.has_provisional_tail
    complete = message(1, "user", "a") + message(2, "assistant", "b").rstrip(b"\n")
    with LogIndex.open(write_log(tmp_path, complete), SID) as index:
        assert [event.sequence for event in decoded(index)] == [1, 2]
        assert index.has_provisional_tail


def test_corrupt_terminated_line_before_trailing_spaces_counts_as_torn(tmp_path: Path) -> None:
    data = message(1, "user", "a") + b'{"id":"s:2","seq\n   '
    with LogIndex.open(write_log(tmp_path, data), SID) as index:
        assert decoded(index) == parse_log(data, SID)
        assert len(index) == 1


def test_corrupt_line_in_the_middle_is_an_error_naming_the_line(tmp_path: Path) -> None:
    data = message(1, "user", "a") + b"not json\n" + message(3, "user", "c")
    with LogIndex.open(write_log(tmp_path, data), SID) as index:
        assert len(index) == 3
        with pytest.raises(StoreError, match=r"events\.jsonl at line 2"):
            index.decode(1)
        assert index.decode(2).sequence == 3


def test_growth_is_indexed_incrementally(tmp_path: Path) -> None:
    path = write_log(tmp_path, message(1, "user", "a"))
    with LogIndex.open(path, SID) as index:
        assert index.check() is LogChange.UNCHANGED
        with path.open("ab") as log:
            log.write(message(2, "assistant", "b") + b'{"id":"s:3","sequ')
        refresh = index.refresh()
        assert refresh.change is LogChange.GROWN
        assert refresh.first_changed == 1
        assert [event.sequence for event in decoded(index)] == [1, 2]
        with path.open("ab") as log:
            log.write(b'ence":3,"type":"error","createdAt":"x","payload":{"message":"m"}}\n')
        refresh = index.refresh()
        assert (refresh.change, refresh.first_changed) == (LogChange.GROWN, 2)
        assert index.decode(2).payload == {"message": "m"}
        assert index.refresh().change is LogChange.UNCHANGED


def test_a_provisional_last_line_is_replaced_when_the_log_grows(tmp_path: Path) -> None:
    path = write_log(tmp_path, message(1, "user", "a") + message(2, "user", "b").rstrip(b"\n"))
    with LogIndex.open(path, SID) as index:
        assert len(index) == 2
        with path.open("ab") as log:
            log.write(b"\n" + message(3, "assistant", "c"))
        refresh = index.refresh()
        assert refresh.first_changed == 1
        assert [event.sequence for event in decoded(index)] == [1, 2, 3]
        assert not index.has_provisional_tail


def test_shrink_and_replacement_are_detected(tmp_path: Path) -> None:
    path = write_log(tmp_path, message(1, "user", "a") + message(2, "user", "b"))
    with LogIndex.open(path, SID) as index:
        path.write_bytes(message(1, "user", "a"))  # same inode, smaller
        assert index.check() is LogChange.REPLACED
    with LogIndex.open(path, SID) as index:
        replacement = tmp_path / "events.jsonl.tmp-1"
        replacement.write_bytes(message(1, "user", "a") + message(2, "user", "rewound!"))
        os.replace(replacement, path)  # a rewind: new inode, even a larger file
        assert index.refresh().change is LogChange.REPLACED
    with LogIndex.open(path, SID) as index:
        path.unlink()
        assert index.check() is LogChange.REPLACED


REHYDRATION_LOGS = {
    "no compaction": [message(1, "user", "a"), message(2, "assistant", "b")],
    "listed ids": [
        message(1, "user", "alpha"),
        message(2, "assistant", "beta"),
        message(3, "user", "gamma"),
        message(4, "assistant", "delta"),
        compaction(5, "early summary", [1, 2]),
        message(6, "user", "epsilon"),
    ],
    "sequence cutoff": [
        message(1, "user", "alpha"),
        message(2, "assistant", "beta"),
        message(3, "user", "gamma"),
        compaction(4, "legacy", [], through=2),
        message(5, "user", "delta"),
    ],
    "latest wins over a broken earlier one": [
        message(1, "user", "a"),
        line(2, "session_compaction", {"summary": ""}),
        message(3, "user", "b"),
        line(
            4,
            "session_compaction",
            {
                "summary": "newer",
                "compactableEvents": [{"id": "s:2", "sequence": 2}, {"id": "s:3", "sequence": 3}],
            },
        ),
        message(5, "user", "c"),
    ],
    "nothing matches (fork)": [
        message(1, "user", "a"),
        line(
            2,
            "session_compaction",
            {
                "summary": "parent's",
                "compactableEvents": [{"id": "parent:1", "sequence": 1}],
            },
        ),
        message(3, "user", "b"),
    ],
    "needle inside a payload after the compaction": [
        message(1, "user", "a"),
        compaction(2, "sum", [1]),
        message(3, "user", 'say "session_compaction" please'),
        line(4, "tool_result", {"output": '"session_compaction"', "name": "grep"}),
    ],
    "compaction id reused after a rewind": [
        message(1, "user", "a"),
        compaction(2, "sum", [1]),
        message(2, "user", "same id as the compaction"),
        message(3, "user", "c"),
    ],
}


@pytest.mark.parametrize("name", list(REHYDRATION_LOGS))
def test_rehydrated_order_equals_the_store(tmp_path: Path, name: str) -> None:
    data = b"".join(REHYDRATION_LOGS[name])
    with LogIndex.open(write_log(tmp_path, data), SID) as index:
        order = index.rehydrated_order()
        assert [index.decode(i) for i in order] == rehydrate(parse_log(data, SID))


def test_rehydrated_order_equals_read_rehydrated_events_of_a_store(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "store")
    meta = store.create("big", title="t")
    events = [
        ("message", {"role": "user" if i % 2 else "assistant", "content": f"m{i}"})
        for i in range(1, 41)
    ]
    store.append_events(meta.session_id, events)
    refs = [{"id": f"big:{i}", "sequence": i, "type": "message"} for i in range(1, 31)]
    store.append_events(
        meta.session_id,
        [
            ("session_compaction", {"summary": "thirty", "compactableEvents": refs}),
            ("message", {"role": "user", "content": "after"}),
        ],
    )
    with LogIndex.open(store.events_path("big"), "big") as index:
        order = index.rehydrated_order()
        assert [index.decode(i) for i in order] == store.read_rehydrated_events("big")
        assert index.decode(order[0]).type == "session_compaction"


def test_broken_latest_compaction_raises(tmp_path: Path) -> None:
    data = message(1, "user", "a") + line(2, "session_compaction", {"summary": "  "})
    with (
        LogIndex.open(write_log(tmp_path, data), SID) as index,
        pytest.raises(StoreError, match="summary is required"),
    ):
        index.rehydrated_order()


def test_escaped_header_strings_are_decoded(tmp_path: Path) -> None:
    odd = (
        b'{"id":"s:\\u0031","sessionId":"s","sequence":1,"type":"message",'
        b'"createdAt":"x","payload":{"role":"user","content":"a"}}\n'
        b'{ "sequence": 2, "id": "s:2", "type": "message", "payload": {"role":"user"} }\n'
    )
    data = odd + compaction(3, "sum", [1])
    with LogIndex.open(write_log(tmp_path, data), SID) as index:
        assert [index.decode(i) for i in index.rehydrated_order()] == rehydrate(
            parse_log(data, SID)
        )


def test_open_tail_indexes_only_the_latest_lines(tmp_path: Path) -> None:
    data = b"".join(message(n, "user", f"message {n:03d}") for n in range(1, 201))
    path = write_log(tmp_path, data)
    with LogIndex.open(path, SID) as whole, LogIndex.open_tail(path, SID, 1000) as tail:
        assert tail.is_partial
        assert not whole.is_partial
        assert 0 < len(tail) < len(whole)
        assert len(tail) * len(message(1, "user", "message 001")) <= 1000
        latest = [whole.decode(i) for i in range(len(whole) - len(tail), len(whole))]
        assert [tail.decode(i) for i in range(len(tail))] == latest
    with LogIndex.open_tail(path, SID, len(data) + 1) as everything:
        assert not everything.is_partial
        assert len(everything) == 200


def test_open_tail_finds_a_compaction_only_among_its_lines(tmp_path: Path) -> None:
    head = message(1, "user", "a") + compaction(2, "sum", [1])
    latest = b"".join(message(n, "user", "x" * 50) for n in range(3, 40))
    path = write_log(tmp_path, head + latest)
    with LogIndex.open_tail(path, SID, len(latest)) as tail:
        assert tail.is_partial
        assert tail.find_last_compaction() is None
    with LogIndex.open(path, SID) as whole:
        assert whole.find_last_compaction() == 1


def test_has_compaction_from_tells_a_compaction_from_its_name_in_text(tmp_path: Path) -> None:
    mention = line(2, "message", {"role": "assistant", "content": "b", "session_compaction": 1})
    path = write_log(tmp_path, message(1, "user", "a") + mention)
    with LogIndex.open(path, SID) as index:
        assert b'"session_compaction"' in index.line_bytes(1)
        assert not index.has_compaction_from(0)
        with path.open("ab") as log:
            log.write(message(3, "user", "b") + compaction(4, "sum", [1]))
        first_changed = index.refresh().first_changed
        assert first_changed == 2
        assert index.has_compaction_from(first_changed)
        assert index.has_compaction_from(3)
        assert not index.has_compaction_from(4)  # past the last line
        assert index.has_compaction_from(-5)  # a negative start reads from line 0


def test_position_of_a_sequence_in_the_raw_and_the_rehydrated_order(tmp_path: Path) -> None:
    data = (
        message(1, "user", "a")
        + b"\n"
        + message(2, "assistant", "b")
        + message(3, "user", "c")
        + compaction(4, "summary", [1, 2])
        + message(5, "assistant", "d")
    )
    with LogIndex.open(write_log(tmp_path, data), SID) as index:
        assert index.position_of_sequence(range(len(index)), 3) == 2
        order = index.rehydrated_order()
        assert [index.decode(line).sequence for line in order] == [4, 3, 5]
        assert index.position_of_sequence(order, 5) == 2
        assert index.position_of_sequence(order, 4) == 0
        assert index.position_of_sequence(order, 1) is None  # compacted away
        assert index.position_of_sequence(order, 99) is None
