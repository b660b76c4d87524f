"""Property tests (hypothesis): hostile bytes never crash or hang a reader, and every JSON
value round-trips through append and read (issue 9).

Bounded for CI by the "ci" profile (tests/conftest.py). The long fuzzing run:

    ZERO_TUI_HYPOTHESIS_PROFILE=fuzz ZERO_TUI_FUZZ_EXAMPLES=20000 \\
        python -m pytest tests/test_store_properties.py --timeout 0 --hypothesis-show-statistics
"""

from __future__ import annotations

import io
import math
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from example_store import copy_example_store
from hypothesis import given
from hypothesis import strategies as st

from zero_tui.cli import main
from zero_tui.store import Event, Metadata, SessionStore, StoreError, gojson, models
from zero_tui.store.check import check_store
from zero_tui.store.events import parse_log, parse_log_of_types
from zero_tui.store.resumable import filter_resumable, has_resumable_content
from zero_tui.transcript.export import render_export
from zero_tui.transcript.export_formats import EXPORT_FORMATS
from zero_tui.transcript.log_index import LogIndex

UPDATED = "2026-07-04T10:00:00Z"
SID = "fuzzed"

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=["Cs"]), max_size=40)
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=5)
        | st.dictionaries(
            st.text(st.characters(exclude_categories=["Cs"]), max_size=8), children, max_size=5
        )
    ),
    max_leaves=25,
)
_NUMBER_LITERALS = st.sampled_from(
    [b"1e400", b"-1E+999", b"9" * 5000, b"0.000", b"-0", b"1.5e-400", b"12345678901234567890"]
)


@st.composite
def log_lines(draw: st.DrawFn) -> bytes:
    kind = draw(st.integers(0, 6))
    sequence = draw(st.integers(-3, 40))
    if kind == 0:
        payload = gojson.marshal(draw(json_values))
        return Event(f"{SID}:{sequence}", SID, sequence, "message", UPDATED, payload).to_json_line()
    if kind == 1:
        content = draw(st.text(max_size=30))
        payload = gojson.marshal(
            {"role": draw(st.sampled_from(["user", "assistant"])), "content": content}
        )
        line = Event(f"{SID}:{sequence}", SID, sequence, "message", UPDATED, payload).to_json_line()
        return line[: draw(st.integers(0, len(line)))]  # torn anywhere
    if kind == 2:
        return (
            b'{"sequence":'
            + draw(_NUMBER_LITERALS)
            + b',"payload":['
            + draw(_NUMBER_LITERALS)
            + b"]}\n"
        )
    if kind == 3:
        depth = draw(st.integers(900, 10_050))
        return b'{"sequence":1,"payload":' + b"[" * depth + b"]" * depth + b"}\n"
    if kind == 4:
        return draw(st.sampled_from([b"null\n", b"{}\n", b"\n", b"  \r\n", b"\xef\xbb\xbf{}\n"]))
    return draw(st.binary(max_size=80))


log_bytes = st.one_of(st.binary(max_size=3000), st.lists(log_lines(), max_size=12).map(b"".join))


@st.composite
def metadata_bytes(draw: st.DrawFn) -> bytes:
    if draw(st.booleans()):
        return draw(st.binary(max_size=600))
    fields: dict[str, Any] = {
        "sessionId": SID,
        "createdAt": UPDATED,
        "updatedAt": UPDATED,
        "eventCount": 1,
    }
    for key in draw(
        st.lists(st.sampled_from(["title", "eventCount", "goal", "depth", "cwd", "X"]))
    ):
        fields[key] = draw(json_values)
    text = gojson.marshal(fields)
    if draw(st.booleans()):
        text = text.replace(
            b'"eventCount":', b'"eventCount":' + draw(_NUMBER_LITERALS) + b'  ,"x":'
        )
    return text[: draw(st.integers(0, len(text)))] if draw(st.booleans()) else text


@contextmanager
def hostile_store(metadata: bytes | None, log: bytes | None) -> Iterator[SessionStore]:
    with tempfile.TemporaryDirectory() as directory:
        store = SessionStore(Path(directory) / "sessions")
        store.create("healthy")
        store.append_events("healthy", [("message", {"role": "assistant", "content": "ok"})])
        store.create(SID)
        if metadata is not None:
            store.metadata_path(SID).write_bytes(metadata)
        if log is not None:
            store.events_path(SID).write_bytes(log)
        yield store


def run_cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    out.buffer = io.BytesIO()  # type: ignore[misc]  # export -o - writes bytes
    with redirect_stdout(out), redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


def every_reader(store: SessionStore) -> None:
    """Every way the store is read: only StoreError may come out."""
    for read in (
        lambda: store.get(SID),
        lambda: store.read_events(SID),
        lambda: store.read_rehydrated_events(SID),
        lambda: store.read_events_for_display(SID),
        lambda: store.last_complete_sequence(SID),
        lambda: store.next_sequence(SID),
        lambda: parse_log(store.events_path(SID).read_bytes(), SID),
    ):
        message = ""
        try:
            read()
        except StoreError as error:
            message = str(error)
        assert "\n" not in message
    assert has_resumable_content(store, SID) in (True, False)
    assert "healthy" in [meta.session_id for meta in store.list()]
    filter_resumable(store, "", include_empty=True)
    check_store(store)
    try:
        with LogIndex.open(store.events_path(SID), SID) as index:
            for position in range(min(len(index), 50)):
                index.decode(position)
            index.rehydrated_order()
    except StoreError:
        pass
    try:
        meta = store.get(SID)
        events, _ = store.read_events_for_display(SID)
    except StoreError:
        return
    for fmt in EXPORT_FORMATS:
        render_export(meta or store.get("healthy"), events, fmt)  # type: ignore[arg-type]


def cli_is_clean(store: SessionStore) -> None:
    root = str(store.root)
    with tempfile.TemporaryDirectory() as out_dir:
        for args in (
            ["sessions", "--all", "--store", root],
            ["sessions", "--all", "--json", "--include-empty", "--store", root],
            ["show", SID, "--store", root],
            ["show", SID, "--json", "--store", root],
            ["show", SID, "--raw", "--json", "--store", root],
            ["export", SID, "-o", str(Path(out_dir) / "x.html"), "--store", root],
            ["export", SID, "-o", "-", "--format", "json", "--store", root],
            ["check", "--store", root],
        ):
            code, _, err = run_cli(args)
            assert code in (0, 1), (args, err)
            if code == 1 and args[0] != "check":
                assert err.count("\n") == 1, (args, err)
                assert err.startswith("zero-tui: "), (args, err)


@given(log=log_bytes)
def test_any_log_bytes_give_events_or_a_store_error(log: bytes) -> None:
    with hostile_store(None, log) as store:
        every_reader(store)
        cli_is_clean(store)


def _parsed(read: Any) -> tuple[list[Event], str | None]:
    try:
        return read(), None
    except StoreError as error:
        return [], str(error)


_USAGE_LINE = Event(
    f"{SID}:7", SID, 7, "provider_usage", UPDATED, b'{"promptTokens":12,"totalTokens":20}'
).to_json_line()


@given(
    log=st.one_of(log_bytes, st.lists(st.sampled_from([_USAGE_LINE]) | log_lines()).map(b"".join)),
    types=st.sampled_from([(), ("message",), ("provider_usage",), ("message", "", "x")]),
)
def test_a_log_read_for_some_types_gives_the_whole_read_of_those_types(
    log: bytes, types: tuple[str, ...]
) -> None:
    """The reader that builds only some events' types (usage figures) has the whole
    reader's events of those types, and its error, on any bytes."""
    whole, whole_error = _parsed(lambda: parse_log(log, SID))
    some, some_error = _parsed(lambda: parse_log_of_types(log, SID, types))
    assert some_error == whole_error
    assert some == [event for event in whole if event.type in types]


@given(metadata=metadata_bytes())
def test_any_metadata_bytes_give_metadata_or_a_store_error(metadata: bytes) -> None:
    with hostile_store(metadata, None) as store:
        every_reader(store)
        cli_is_clean(store)
        scan = store.scan()
        # no session vanishes: each of the two directories is listed or reported unreadable
        assert len(scan.sessions) + len(scan.unreadable) == 2
        assert "healthy" in {meta.session_id for meta in scan.sessions}


def _same(left: Any, right: Any) -> bool:
    """Equal as JSON values (an integral float comes back as an int, as Go writes it)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right or (math.isclose(left, right, rel_tol=0, abs_tol=0))
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(_same, left, right))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same(left[k], right[k]) for k in left)
    return bool(left == right)


@given(value=json_values)
def test_any_json_value_round_trips_through_append_and_read(value: Any) -> None:
    with hostile_store(None, None) as store:
        (written,) = store.append_events(SID, [("tool_result", value)])
        (raw_written,) = store.append_events(SID, [("tool_result", gojson.marshal(value))])
        first, second = store.read_events(SID)
        assert first.payload_raw == written.payload_raw
        assert second.payload_raw == raw_written.payload_raw == gojson.marshal(value)
        if value is not None:  # a nil payload is left out; raw `null` is kept (Go's rule)
            assert first.payload_raw == second.payload_raw
        assert _same(first.payload, value)
        assert _same(second.payload, value)
        assert [first.sequence, second.sequence] == [1, 2]


@pytest.mark.parametrize("literal", [b"1e400", b"9" * 5000, b"-0.0e-99999"])
def test_number_literals_python_cannot_hold_round_trip_as_raw(literal: bytes) -> None:
    with hostile_store(None, None) as store:
        (event,) = store.append_events(SID, [("tool_result", b"[" + literal + b"]")])
        assert store.read_events(SID)[0].payload_raw == b"[" + literal + b"]" == event.payload_raw


def test_the_example_store_read_for_some_types_gives_the_whole_read_of_those_types(
    tmp_path: Path,
) -> None:
    store = SessionStore(copy_example_store(tmp_path))
    for meta in store.list():
        whole = store.read_events(meta.session_id)
        for types in [(event_type,) for event_type in {e.type for e in whole}] + [()]:
            assert store.read_events_of_types(meta.session_id, types) == [
                event for event in whole if event.type in types
            ]


@given(
    name=st.text(alphabet=st.sampled_from("aZ09_-. \t\u00a0\u2028é"), max_size=12)
    | st.text(max_size=12)
)
def test_a_session_id_is_valid_as_zero_trims_and_matches_it(name: str) -> None:
    from zero_tui.store import store as store_module
    from zero_tui.store.gotext import trim_space

    expected = store_module._SESSION_ID.fullmatch(trim_space(name)) is not None
    assert store_module.valid_session_id(name) == expected


_METADATA_KEYS = ["sessionId", "title", "eventCount", "depth", "goal", "cwd", "updatedAt"]


@st.composite
def metadata_objects(draw: st.DrawFn) -> bytes:
    """Metadata objects as Go's decoder meets them: keys written exactly, in another case
    (`TITLE`, with a long s for an s), unknown or repeated, with values of any JSON type."""
    keys = draw(
        st.lists(
            st.sampled_from(_METADATA_KEYS).flatmap(
                lambda key: st.sampled_from(
                    [key, key.upper(), key.replace("s", "\u017f", 1), key + "X"]
                )
            ),
            max_size=9,
        )
    )
    values = [
        draw(json_values | st.integers(-(2**64), 2**64) | _NUMBER_LITERALS.map(bytes.decode))
        for _ in keys
    ]
    body = b",".join(
        gojson.encode_string(key).encode("utf-8", "surrogateescape")
        + b":"
        + (
            value.encode()
            if isinstance(value, str) and value[:1].isdigit()
            else gojson.marshal(value)
        )
        for key, value in zip(keys, values, strict=True)
    )
    return b"{" + body + b"}\n"


def _decoded(decode: Any, data: bytes) -> object:
    try:
        return decode(data)
    except gojson.GoJSONError as error:
        return ("error", str(error))


@given(data=metadata_objects() | metadata_bytes())
def test_a_plain_metadata_file_decodes_as_go_s_unmarshal_decodes_it(data: bytes) -> None:
    """`Metadata.from_json` maps a plain file's fields directly: the same metadata, or the
    same error, as every key through Go's unmarshal rules."""

    def through_unmarshal(raw: bytes) -> Metadata:
        return Metadata.from_pairs(gojson.loads_pairs(raw))

    assert _decoded(Metadata.from_json, data) == _decoded(through_unmarshal, data)


def test_the_example_store_s_metadata_decodes_as_go_s_unmarshal_decodes_it(
    tmp_path: Path,
) -> None:
    root = copy_example_store(tmp_path)
    files = sorted(root.glob("*/metadata.json"))
    assert files
    for path in files:
        data = path.read_bytes()
        assert models._plain_fields(gojson.loads_pairs(data)) is not None  # the fast one
        assert Metadata.from_json(data) == Metadata.from_pairs(gojson.loads_pairs(data))
