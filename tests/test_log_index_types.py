"""A log read for some types only (txt export, `LogIndex.iter_decoded` with types): the
events and errors of Zero's reader over the whole log, kept to those types."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zero_tui.store import Event, SessionStore, StoreError
from zero_tui.store.events import parse_log
from zero_tui.transcript import export
from zero_tui.transcript.export import export_to_stream
from zero_tui.transcript.log_index import LogIndex

SID = "s"
TXT_TYPES = export._TXT_EVENT_TYPES


def line(sequence: int, event_type: str, payload: object = None) -> bytes:
    raw = None if payload is None else json.dumps(payload, separators=(",", ":")).encode()
    return Event(
        f"{SID}:{sequence}", SID, sequence, event_type, "2026-07-04T10:00:00Z", raw
    ).to_json_line()


def turn(sequence: int) -> list[bytes]:
    """Four lines of a turn, as Zero writes them: a question, a call, its result, usage."""
    call = f"c{sequence}"
    return [
        line(sequence, "message", {"role": "user", "content": f"question {sequence}"}),
        line(sequence + 1, "tool_call", {"id": call, "name": "bash", "arguments": "{}"}),
        line(
            sequence + 2,
            "tool_result",
            {"toolCallId": call, "name": "bash", "status": "ok", "output": "x" * 300},
        ),
        line(sequence + 3, "provider_usage", {"promptTokens": sequence}),
    ]


def turns(count: int) -> list[bytes]:
    return [piece for number in range(count) for piece in turn(number * 4 + 1)]


BAD_TOOL = b'{"id":"s:b","sessionId":"s","sequence":7,"type":"tool_result","createdAt":"t","payload":{"output":}}\n'  # noqa: E501
BAD_MESSAGE = b'{"id":"s:m","sessionId":"s","sequence":8,"type":"message","createdAt":"t","payload":{"role":}}\n'  # noqa: E501
UNCLOSED = b'{"id":"s:u","sessionId":"s","sequence":15,"type":"tool_call\n'  # no end quote
SHADOWED = (  # a tool line by its head, a message by Go's rules: the last "type" wins
    b'{"id":"s:x","sessionId":"s","sequence":9,"type":"tool_call","createdAt":"t",'
    b'"payload":{"x":1},"type":"message","payload":{"role":"assistant","content":"late"}}\n'
)
ODD_SPELLINGS = [
    b'   {"id":"s:o","sessionId":"s","sequence":10,"type":"tool_call","createdAt":"t"}  \n',
    b'{"ID":"s:p","Type":"message","sequence":11,"payload":{"role":"user","content":"f"}}\n',
    b'{"id":"s:q","sessionId":"s","sequence":12,"type":"mess\\u0061ge","createdAt":"t",'
    b'"payload":{"role":"assistant","content":"escaped type"}}\n',
    b'{"id":"s:r","sessionId":"s","sequence":13,"type":"tool_result","createdAt":"t",'
    b'"payload":[1,2]}\r\n',
    b"\n   \n",
    line(14, "tool_result", {"output": "\ud800 lone"}),
]


def read(path: Path, types: frozenset[str] | None = TXT_TYPES) -> tuple[list[Event], str]:
    """The events a stream gives, up to its error if any (and the error's message)."""
    got: list[Event] = []
    with LogIndex.open(path, SID) as index:
        try:
            for event in index.iter_decoded(range(len(index)), types):
                got.append(event)
        except StoreError as error:
            return got, str(error)
    return got, ""


def reference(data: bytes, types: frozenset[str] = TXT_TYPES) -> tuple[list[Event], str]:
    """Zero's reader over the whole log, kept to `types`: the events, or its error."""
    try:
        return [event for event in parse_log(data, SID) if event.type in types], ""
    except StoreError as error:
        return [], str(error)


def write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "events.jsonl"
    path.write_bytes(data)
    return path


def test_a_log_as_go_writes_it_gives_zeros_events(tmp_path: Path) -> None:
    data = b"".join(turns(50))
    got = read(write(tmp_path, data))
    assert got == reference(data)
    assert [event.sequence for event in got[0]] == list(range(1, 200, 4))


@pytest.mark.parametrize("where", ["first", "early", "middle", "last but one"])
@pytest.mark.parametrize(
    "bad", [BAD_TOOL, BAD_MESSAGE, UNCLOSED], ids=["tool", "message", "unclosed"]
)
def test_a_corrupt_line_anywhere_fails_with_zeros_error(
    tmp_path: Path, where: str, bad: bytes
) -> None:
    pieces = turns(30)
    at = {"first": 0, "early": 2, "middle": 60, "last but one": len(pieces) - 1}[where]
    pieces.insert(at, bad)
    data = b"".join(pieces)
    got = read(write(tmp_path, data))
    assert got[1] == reference(data)[1]
    assert f"events.jsonl at line {at + 1}:" in got[1]


def test_a_torn_last_line_is_forgiven(tmp_path: Path) -> None:
    data = b"".join(turns(20)) + BAD_TOOL.rstrip(b"\n")
    got = read(write(tmp_path, data))
    assert got == reference(data)
    assert got[1] == ""


@pytest.mark.parametrize("tool_first", [True, False])
def test_the_earliest_of_a_corrupt_message_and_a_corrupt_tool_line_is_named(
    tmp_path: Path, tool_first: bool
) -> None:
    pieces = turns(30)
    first, second = (BAD_TOOL, BAD_MESSAGE) if tool_first else (BAD_MESSAGE, BAD_TOOL)
    pieces.insert(70, second)
    pieces.insert(20, first)
    got = read(write(tmp_path, b"".join(pieces)))
    assert "events.jsonl at line 21:" in got[1]
    assert len(got[0]) == 5  # the messages before it


def test_lines_of_any_spelling_give_zeros_events(tmp_path: Path) -> None:
    pieces = turns(20)
    for offset, odd in enumerate([SHADOWED, *ODD_SPELLINGS]):
        pieces.insert(5 + offset * 9, odd)
    data = b"".join(pieces)
    got = read(write(tmp_path, data))
    assert got == reference(data)
    contents = [event.payload.get("content") for event in got[0]]
    assert "late" in contents
    assert "escaped type" in contents


_LINES = st.sampled_from(
    [*turn(1), *turn(5), BAD_TOOL, BAD_MESSAGE, UNCLOSED, SHADOWED, *ODD_SPELLINGS, b"not json\n"]
)


@settings(max_examples=60)
@given(pieces=st.lists(_LINES, max_size=24))
def test_any_log_gives_zeros_events_or_its_error(
    tmp_path_factory: pytest.TempPathFactory, pieces: list[bytes]
) -> None:
    data = b"".join(pieces)
    got = read(write(tmp_path_factory.mktemp("log"), data))
    want = reference(data)
    assert got[1] == want[1]
    if not want[1]:
        assert got[0] == want[0]


# --- the txt export itself -------------------------------------------------------------


def export_txt(store: SessionStore, session_id: str) -> bytes:
    stream = io.BytesIO()
    export_to_stream(store, session_id, stream, fmt="txt")
    return stream.getvalue()


def test_a_session_of_odd_lines_exports_them_and_names_a_corrupt_one(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    store.create("big", title="big", cwd="/w")
    pieces = turns(100)
    for offset, odd in enumerate([SHADOWED, *ODD_SPELLINGS]):
        pieces.insert(10 + offset * 40, odd.replace(b'"s"', b'"big"').replace(b'"s:', b'"big:'))
    store.events_path("big").write_bytes(b"".join(pieces))
    assert b"zero: late" in export_txt(store, "big")
    store.events_path("big").write_bytes(b"".join([*pieces[:150], BAD_TOOL, *pieces[150:]]))
    with pytest.raises(StoreError, match=r"at line 151:"):
        export_txt(store, "big")


def test_a_compacted_session_exports_its_summary_not_what_it_replaced(tmp_path: Path) -> None:
    # the rehydrated order puts the summary first: positions are not the file's lines
    store = SessionStore(tmp_path / "sessions")
    store.create("s", title="compacted", cwd="/w")
    pieces = turns(40)
    summary = {
        "summary": "what came before",
        "preserveLast": 0,
        "compactableEvents": [{"id": f"s:{n}", "sequence": n} for n in range(1, 81)],
    }
    pieces.append(line(161, "session_compaction", summary))
    pieces += [piece for number in range(10) for piece in turn(201 + number * 4)]
    store.events_path("s").write_bytes(b"".join(pieces))
    exported = export_txt(store, "s")
    assert b"what came before" in exported
    assert b"question 1\n" not in exported
