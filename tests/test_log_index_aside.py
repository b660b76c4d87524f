"""A big log read for some types only (txt export): the lines of other types validated by a
forked child while this process decodes the rest (`LogIndex.iter_decoded` with types), with
the events and errors of a pass here alone, and no child left behind."""

from __future__ import annotations

import io
import json
import os
import sys
import threading
from collections.abc import Callable, Generator, Iterator, Sequence
from pathlib import Path

import pytest
from example_store import copy_example_store
from hypothesis import given, settings
from hypothesis import strategies as st

from zero_tui import forked
from zero_tui.store import Event, SessionStore, StoreError
from zero_tui.store.events import parse_log
from zero_tui.transcript import export, log_index
from zero_tui.transcript.export import export_to_stream
from zero_tui.transcript.log_index import LogIndex

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the child is forked on Linux only"
)

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


@pytest.fixture
def aside(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every log read for types has its other lines validated by a child, told every few
    lines; the children's pids, as they are forked."""
    monkeypatch.setattr(log_index, "ASIDE_MIN_BYTES", 0)
    monkeypatch.setattr(log_index, "_TELL_EVERY", 3)
    monkeypatch.setattr(log_index, "_RELEASE_EVERY", 4096)  # pages let go of, read again
    monkeypatch.setattr(forked, "_cpus", lambda: 2)
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    pids: list[int] = []
    telling = forked.telling_in_child

    def recorded(work: Callable[[Callable[[Sequence[int]], None]], object]) -> forked.Told | None:
        told = telling(work)
        assert told is not None
        pids.append(told._child or 0)
        return told

    monkeypatch.setattr(forked, "telling_in_child", recorded)
    return pids


def here_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(log_index, "ASIDE_MIN_BYTES", 1 << 62)


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


def assert_reaped(pids: list[int]) -> None:
    assert pids
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "events.jsonl"
    path.write_bytes(data)
    return path


def test_a_log_as_go_writes_it_gives_the_same_events_with_the_child(
    tmp_path: Path, aside: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = b"".join(turns(50))
    path = write(tmp_path, data)
    with_child = read(path)
    assert_reaped(aside)
    here_alone(monkeypatch)
    assert read(path) == with_child == reference(data)
    assert len(aside) == 1  # the second read forked no child
    assert [event.sequence for event in with_child[0]] == list(range(1, 200, 4))


@pytest.mark.parametrize("where", ["first", "early", "middle", "last but one"])
@pytest.mark.parametrize(
    "bad", [BAD_TOOL, BAD_MESSAGE, UNCLOSED], ids=["tool", "message", "unclosed"]
)
def test_a_corrupt_line_anywhere_fails_with_todays_error(
    tmp_path: Path, aside: list[int], monkeypatch: pytest.MonkeyPatch, where: str, bad: bytes
) -> None:
    pieces = turns(30)
    at = {"first": 0, "early": 2, "middle": 60, "last but one": len(pieces) - 1}[where]
    pieces.insert(at, bad)
    data = b"".join(pieces)
    path = write(tmp_path, data)
    with_child = read(path)
    assert_reaped(aside)
    here_alone(monkeypatch)
    alone = read(path)
    assert with_child == alone
    assert with_child[1] == reference(data)[1]
    assert f"events.jsonl at line {at + 1}:" in with_child[1]


def test_a_torn_last_line_is_forgiven_with_the_child(
    tmp_path: Path, aside: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = b"".join(turns(20)) + BAD_TOOL.rstrip(b"\n")
    path = write(tmp_path, data)
    with_child = read(path)
    here_alone(monkeypatch)
    assert with_child == read(path) == reference(data)
    assert with_child[1] == ""


@pytest.mark.parametrize("tool_first", [True, False])
def test_the_earliest_of_a_corrupt_message_and_a_corrupt_tool_line_is_named(
    tmp_path: Path, aside: list[int], monkeypatch: pytest.MonkeyPatch, tool_first: bool
) -> None:
    pieces = turns(30)
    first, second = (BAD_TOOL, BAD_MESSAGE) if tool_first else (BAD_MESSAGE, BAD_TOOL)
    pieces.insert(70, second)
    pieces.insert(20, first)
    path = write(tmp_path, b"".join(pieces))
    with_child = read(path)
    here_alone(monkeypatch)
    assert with_child == read(path)
    assert "events.jsonl at line 21:" in with_child[1]
    assert len(with_child[0]) == 5  # the messages before it, as a pass here gives them


def test_lines_of_any_spelling_give_the_same_events_with_the_child(
    tmp_path: Path, aside: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    pieces = turns(20)
    for offset, odd in enumerate([SHADOWED, *ODD_SPELLINGS]):
        pieces.insert(5 + offset * 9, odd)
    data = b"".join(pieces)
    path = write(tmp_path, data)
    with_child = read(path)
    here_alone(monkeypatch)
    assert with_child == read(path) == reference(data)
    contents = [event.payload.get("content") for event in with_child[0]]
    assert "late" in contents
    assert "escaped type" in contents


_LINES = st.sampled_from(
    [*turn(1), *turn(5), BAD_TOOL, BAD_MESSAGE, UNCLOSED, SHADOWED, *ODD_SPELLINGS, b"not json\n"]
)


@settings(max_examples=60)
@given(pieces=st.lists(_LINES, max_size=24), torn=st.sampled_from([b"", b'{"id":"s:t']))
def test_any_log_gives_the_same_events_and_errors_with_and_without_the_child(
    tmp_path_factory: pytest.TempPathFactory, pieces: list[bytes], torn: bytes
) -> None:
    path = write(tmp_path_factory.mktemp("log"), b"".join(pieces) + torn)
    with pytest.MonkeyPatch.context() as patch:
        here_alone(patch)
        alone = read(path)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(log_index, "ASIDE_MIN_BYTES", 0)
        patch.setattr(log_index, "_TELL_EVERY", 2)
        patch.setattr(forked, "_forking_pays", lambda: True)
        assert read(path) == alone


def test_an_iteration_stopped_early_leaves_no_child(tmp_path: Path, aside: list[int]) -> None:
    path = write(tmp_path, b"".join(turns(200)))
    with LogIndex.open(path, SID) as index:
        stream = index.iter_decoded(range(len(index)), TXT_TYPES)
        assert next(stream).sequence == 1
        assert isinstance(stream, Generator)
        stream.close()
    assert_reaped(aside)


def test_a_stream_that_fails_leaves_no_child(tmp_path: Path, aside: list[int]) -> None:
    path = write(tmp_path, b"".join([*turns(5), BAD_MESSAGE, *turns(200)]))
    assert read(path)[1]
    assert_reaped(aside)


def failing_check(self: LogIndex, *args: object) -> None:
    raise RuntimeError("the child fails")


def stopping_check(
    self: LogIndex, order: object, types: object, tell: Callable[[int], None]
) -> None:
    tell(7)  # true so far; then it stops without a word


@pytest.mark.parametrize("check", [failing_check, stopping_check])
def test_what_a_child_did_not_check_is_validated_here(
    tmp_path: Path,
    aside: list[int],
    monkeypatch: pytest.MonkeyPatch,
    check: Callable[..., None],
) -> None:
    pieces = turns(30)
    pieces.insert(50, BAD_TOOL)
    data = b"".join(pieces)
    path = write(tmp_path, data)
    monkeypatch.setattr(LogIndex, "_tell_lines_to_decode", check)
    with_child = read(path)
    assert_reaped(aside)
    here_alone(monkeypatch)
    assert with_child == read(path)
    assert "events.jsonl at line 51:" in with_child[1]


def test_a_process_with_other_threads_reads_it_all_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(log_index, "ASIDE_MIN_BYTES", 0)
    monkeypatch.setattr(forked, "_cpus", lambda: 2)
    monkeypatch.setattr(os, "fork", lambda: pytest.fail("forked with another thread"))
    pieces = turns(20)
    pieces.insert(30, BAD_TOOL)
    data = b"".join(pieces)
    path = write(tmp_path, data)
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        got = read(path)
    finally:
        release.set()
        other.join()
    assert got[1] == reference(data)[1]


# --- the txt export itself -------------------------------------------------------------


def export_txt(store: SessionStore, session_id: str) -> bytes:
    stream = io.BytesIO()
    export_to_stream(store, session_id, stream, fmt="txt")
    return stream.getvalue()


def every_export(store: SessionStore, monkeypatch: pytest.MonkeyPatch) -> Iterator[bytes]:
    for name in sorted(path.name for path in store.root.iterdir()):
        with monkeypatch.context() as patch:
            here_alone(patch)
            alone = export_txt(store, name)
        yield alone
        yield export_txt(store, name)


def test_the_examples_export_the_same_bytes_with_the_child(
    tmp_path: Path, aside: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_example_store(tmp_path)  # skips where ../shared is not beside the repo
    exports = list(every_export(SessionStore(root), monkeypatch))
    assert exports[0::2] == exports[1::2]
    assert all(exports)
    assert_reaped(aside)


def test_a_generated_session_exports_the_same_bytes_with_the_child(
    tmp_path: Path, aside: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SessionStore(tmp_path / "sessions")
    store.create("big", title="big", cwd="/w")
    pieces = turns(100)
    for offset, odd in enumerate([SHADOWED, *ODD_SPELLINGS]):
        pieces.insert(10 + offset * 40, odd.replace(b'"s"', b'"big"').replace(b'"s:', b'"big:'))
    store.events_path("big").write_bytes(b"".join(pieces))
    alone, with_child = every_export(store, monkeypatch)
    assert with_child == alone
    assert b"zero: late" in alone
    assert_reaped(aside)
    store.events_path("big").write_bytes(b"".join([*pieces[:150], BAD_TOOL, *pieces[150:]]))
    with pytest.raises(StoreError, match=r"at line 151:"):
        export_txt(store, "big")


def test_a_compacted_session_exports_the_same_bytes_with_the_child(
    tmp_path: Path, aside: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
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
    alone, with_child = every_export(store, monkeypatch)
    assert with_child == alone
    assert b"what came before" in alone
    assert b"question 1\n" not in alone
    assert_reaped(aside)
