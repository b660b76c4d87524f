"""The decoder's fast path gives exactly what its exact path gives (issue 19, big export).

`gojson` tries the C scanner alone first and keeps its result only when a cheap scan shows
that none of Go's rules could have changed it; `events` reads a line written as Zero writes
it without the general, key-by-key decoder. Both are compared here with the slow paths they
stand in for — values with their types and key order, errors with their messages — on every
fixture the tests hold, on the shared example store, and on generated hostile input.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from example_store import EXAMPLE_STORE, shared_available
from hypothesis import given
from hypothesis import strategies as st

from zero_tui.store import Event, StoreError, gojson
from zero_tui.store.events import (
    _CANONICAL_LINE,
    _decode,
    _decode_general,
    decode_line,
    decode_line_of_types,
    iter_pieces,
)
from zero_tui.store.gojson import GoJSONError, JSONNumber, JSONObject
from zero_tui.store.gotext import decode_utf8

TESTS = Path(__file__).resolve().parent


# --- comparing outcomes ---------------------------------------------------------------------


def shape(value: Any) -> list[object]:
    """A value as a flat list of typed tokens (iterative: values nest 10,000 deep). 1, 1.0
    and True differ, -0.0 and 0.0 differ, a JSONObject and a list differ, and object keys
    keep their order."""
    tokens: list[object] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, JSONObject):
            tokens.append(("pairs", len(item)))
            stack.extend(reversed([part for pair in item for part in pair]))
        elif isinstance(item, dict):
            tokens.append(("object", len(item)))
            stack.extend(reversed([part for pair in item.items() for part in pair]))
        elif isinstance(item, list | tuple):  # a tuple: raw_decode's (value, end)
            tokens.append((type(item).__name__, len(item)))
            stack.extend(reversed(item))
        elif isinstance(item, float):
            tokens.append(("float", repr(item)))
        elif isinstance(item, JSONNumber):
            tokens.append(("number", item.text))
        elif isinstance(item, Event):
            tokens.append(("event", item, outcome(payload_of, item)))
        else:
            tokens.append((type(item).__name__, item))
    return tokens


def payload_of(event: Event) -> Any:
    return event.payload


def outcome(decode: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[object, ...]:
    """What `decode(*args, **kwargs)` gives: its value's tokens, or its error and message."""
    try:
        return ("value", shape(decode(*args, **kwargs)))
    except GoJSONError as error:
        return ("error", type(error).__name__, str(error))


def assert_same_as_exact(data: bytes | str) -> None:
    """loads, loads_pairs and raw_decode agree with the exact path on `data`."""
    text = decode_utf8(data) if isinstance(data, bytes) else data
    for pairs, fast in ((False, gojson.loads), (True, gojson.loads_pairs)):
        for depth in (0, 1):
            expected = outcome(gojson._whole_exact, text, pairs, depth)
            assert outcome(fast, data, depth=depth) == expected, data
            assert outcome(fast, text, depth=depth) == expected, data
            if isinstance(data, bytes) and not pairs:  # the check decodes as loads does
                checked = expected if expected[0] == "error" else ("value", shape(None))
                assert outcome(gojson.check_decodes, data, depth=depth) == checked, data
    # raw_decode reads one value at an index and leaves what follows to its caller
    raw = data.decode("utf-8", "surrogateescape") if isinstance(data, bytes) else data
    for index in {0, len(raw) - len(raw.lstrip(" \t\r\n"))}:
        expected = outcome(gojson._decode_exact, raw, index, False, 0)
        assert outcome(gojson.raw_decode, raw, index) == expected, data


def assert_line_same_as_general(line: bytes) -> None:
    """A trimmed log line reads the same through the canonical-line path and the general
    decoder it stands in for (fields, payload bytes, payload value, errors)."""
    assert outcome(_decode, line, _CANONICAL_LINE.match(line)) == outcome(_decode_general, line), (
        line
    )


TYPE_FILTERS = [frozenset(), frozenset({"message"}), frozenset({"message", "tool_call", ""})]


def assert_type_filter_same_as_decoding(line: bytes) -> None:
    """`decode_line_of_types` gives what `decode_line` gives, or None for another type."""
    try:
        event = decode_line(line, "s", 7)
    except StoreError as error:
        message = str(error)
    else:
        message = ""
    if message:
        for types in TYPE_FILTERS:
            with pytest.raises(StoreError) as raised:
                decode_line_of_types(line, "s", 7, types)
            assert str(raised.value) == message, (line, types)
        return
    for types in TYPE_FILTERS:
        expected = event if event.type in types else None
        assert shape(decode_line_of_types(line, "s", 7, types)) == shape(expected), (line, types)


def check_everything(data: bytes) -> None:
    assert_same_as_exact(data)
    assert_same_as_exact(data.decode("utf-8", "surrogateescape"))
    for piece in iter_pieces(data):
        assert_same_as_exact(piece.content)
        assert_line_same_as_general(piece.content)
        assert_type_filter_same_as_decoding(piece.content)


# --- every fixture --------------------------------------------------------------------------


def _constants(path: Path) -> Iterator[bytes]:
    """The str and bytes literals of a test module: the inline fixtures."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str | bytes):
            value = node.value
            yield value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")


def fixture_texts() -> Iterator[tuple[str, bytes]]:
    for path in sorted(TESTS.glob("*.py")):
        for number, constant in enumerate(_constants(path)):
            if constant.strip()[:1] in (b"{", b"[", b'"', b"n") or b'"payload"' in constant:
                yield f"{path.name}#{number}", constant
    for path in sorted(TESTS.rglob("*")):
        if path.is_file() and path.suffix in (".json", ".jsonl"):
            yield str(path.relative_to(TESTS)), path.read_bytes()
    if shared_available():
        for path in sorted(EXAMPLE_STORE.rglob("*")):
            if path.is_file() and path.suffix in (".json", ".jsonl"):
                yield f"example/{path.relative_to(EXAMPLE_STORE)}", path.read_bytes()


def test_the_fixtures_are_found() -> None:
    names = [name for name, _ in fixture_texts()]
    assert any(name.startswith("test_store_format.py#") for name in names)
    assert any(name.startswith("golden/") for name in names)
    if shared_available():
        assert sum(name.endswith("events.jsonl") for name in names) >= 3
        assert sum(name.endswith("metadata.json") for name in names) >= 3


def test_every_fixture_decodes_the_same_on_both_paths() -> None:
    for _name, data in fixture_texts():
        check_everything(data)


# --- cases the fast path must hand over ---------------------------------------------------------

HUGE_INTEGER = "9" * 5000

HANDED_OVER = [
    '"\\ud800"',  # a lone high surrogate escape
    '"\\uDC00x"',  # a lone low one, upper case
    '"\\ud83d\\ude00"',  # a pair: one astral character, no replacement
    '"\\ud800\\ud800"',
    '{"\\udbff":1,"k":"\\ud800\\u0041"}',  # in a key
    '"\\\\ud800"',  # an escaped backslash: no surrogate at all
    '{"a":1,"a":2,"A":3}',  # duplicate keys: the last wins, case kept
    "[1e400,-1E+999,1.5e-400,-0,0.000,12345678901234567890]",
    f"[{HUGE_INTEGER}]",
    f'{{"x":-{HUGE_INTEGER}.5}}',
    "NaN",
    "[Infinity]",
    " [1] ",
    "\t{}\r\n",
    "[1] x",
    "01",
    "[1,]",
    '{"a" 1}',
    '"\x01"',
    "",
    "   ",
    "[" * 999 + "]" * 999,
    "[" * 1500 + '"\\ud800"' + "]" * 1500,
    "[" * 10_000 + "]" * 10_000,
    "[" * 10_001 + "]" * 10_001,
    "{" + '"a":{' * 9_999 + "}" * 10_000,
]


@pytest.mark.parametrize("text", HANDED_OVER, ids=range(len(HANDED_OVER)))
def test_what_needs_gos_rules_decodes_the_same_on_both_paths(text: str) -> None:
    assert_same_as_exact(text)
    assert_same_as_exact(text.encode())


@pytest.mark.parametrize(
    "data",
    [
        b'"\xff"',  # an invalid byte: one U+FFFD
        b'"\xe2\x82"',  # a truncated sequence: one U+FFFD per byte
        b'"\xed\xa0\x80"',  # a surrogate written in UTF-8: invalid, three U+FFFD
        b'{"\xc3":"\xa9"}',
        b'"\xef\xbb\xbf"',
        b"\xef\xbb\xbf{}",  # a BOM is not whitespace
    ],
)
def test_invalid_utf8_decodes_the_same_on_both_paths(data: bytes) -> None:
    assert_same_as_exact(data)
    assert_same_as_exact(data.decode("utf-8", "surrogateescape"))


def test_a_raw_surrogate_in_text_is_replaced_on_the_fast_path() -> None:
    assert gojson.loads('["\ud800", "\udcff"]') == ["\ufffd", "\ufffd"]
    assert gojson.raw_decode('x"\udcff"', 1) == ("\ufffd", 4)
    assert_same_as_exact('{"\udcff":"é"}')


def event_line(payload: bytes, **header: str) -> bytes:
    fields = {
        "id": "s:1",
        "sessionId": "s",
        "sequence": "1",
        "type": "message",
        "createdAt": "2026-07-04T10:00:00Z",
    }
    fields.update(header)
    return (
        b'{"id":"%s","sessionId":"%s","sequence":%s,"type":"%s","createdAt":"%s","payload":'
        % tuple(field.encode() for field in fields.values())
        + payload
        + b"}"
    )


ODD_PAYLOADS = [
    b' {"a":1}',
    b'{"a":1} ',
    b"\t[1]\r",
    b'{"a":1},"payload":{"b":2}',
    b'{"a":1},"Payload":{"b":2}',
    b'{"a":1},"x":"y"',
    b"null",
    b'"\\ud800"',
    b"[" + HUGE_INTEGER.encode() + b"]",
    b"[" * 10_000 + b"]" * 10_000,
]


@pytest.mark.parametrize("payload", ODD_PAYLOADS, ids=range(len(ODD_PAYLOADS)))
def test_a_canonical_line_reads_as_the_general_decoder_reads_it(payload: bytes) -> None:
    for event_type in ("message", "tool_call", "other"):
        for sequence in ("1", "-0", "9223372036854775807", "9223372036854775808", "-" + "9" * 19):
            line = event_line(payload, type=event_type, sequence=sequence)
            assert_line_same_as_general(line)
            assert_type_filter_same_as_decoding(line)


def test_a_canonical_line_with_odd_header_bytes_reads_as_the_general_decoder() -> None:
    assert_line_same_as_general(event_line(b"{}", id="x\u00e9"))
    line = event_line(b"{}").replace(b'"s:1"', b'"s:\xff\xe2\x82"')
    assert_line_same_as_general(line)
    assert decode_line(line, "s", 1).id == "s:\ufffd\ufffd\ufffd"


# --- generated input ------------------------------------------------------------------------

# Fragments that reach every rule: surrogate escapes in all spellings, numbers Python cannot
# hold, duplicate and case-folded keys, the constants Go refuses, and bytes that are not UTF-8.
_FRAGMENTS = [
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    " ",
    "\n",
    '"',
    '"a"',
    '"A"',
    '"payload"',
    '"\\ud800"',
    '"\\uDBFF\\uDFFF"',
    '"\\ud83d\\ude00"',
    '"\\udc00"',
    "\\u",
    "\\\\ud800",
    "\\",
    "d8",
    "1",
    "-0",
    "1.5",
    "1e400",
    "-1E-999",
    HUGE_INTEGER,
    "true",
    "null",
    "NaN",
    "Infinity",
    "é",
    "\u2028",
    "\x01",
    "\udcff",  # an invalid byte, as surrogateescape carries it
]

json_soup = st.lists(st.sampled_from(_FRAGMENTS), max_size=30).map("".join)

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)  # lone surrogates too: they are written as \ufffd
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)


@st.composite
def hostile_json(draw: st.DrawFn) -> bytes:
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return draw(st.binary(max_size=200))
    if kind == 1:
        return draw(json_soup).encode("utf-8", "surrogateescape")
    if kind == 2:  # valid JSON as Python writes it: \ud83d escapes for astral characters
        return json.dumps(draw(json_values), ensure_ascii=draw(st.booleans())).encode(
            "utf-8", "surrogatepass"
        )
    if kind == 3:  # valid JSON with a fragment spliced in anywhere
        text = gojson.marshal(draw(json_values))
        at = draw(st.integers(0, len(text)))
        splice = draw(st.sampled_from(_FRAGMENTS)).encode("utf-8", "surrogateescape")
        return text[:at] + splice + text[at:]
    if kind == 4:  # duplicate keys, in any case
        keys = draw(st.lists(st.sampled_from(["a", "A", "payload", "\\u0061", "\\ud800"])))
        values = [gojson.marshal(draw(json_scalars)) for _ in keys]
        return (
            b"{"
            + b",".join(b'"%s":%s' % (k.encode(), v) for k, v in zip(keys, values, strict=True))
            + b"}"
        )
    depth = draw(st.sampled_from([1, 900, 999, 1000, 1001, 5000, 9_999, 10_000, 10_001]))
    inner = draw(st.sampled_from([b"", b"1", b'"\\ud800"', b'{"a":1,"a":[]}', b"1,"]))
    return b"[" * depth + inner + b"]" * depth


@given(data=hostile_json())
def test_generated_input_decodes_the_same_on_both_paths(data: bytes) -> None:
    assert_same_as_exact(data)
    assert_same_as_exact(data.decode("utf-8", "surrogateescape"))


@given(
    payload=hostile_json(),
    event_id=st.text(max_size=8).map(lambda text: text.encode("utf-8", "surrogatepass")),
    around=st.sampled_from([(b"", b""), (b" ", b""), (b"", b"\t"), (b"\r\n", b" ")]),
)
def test_generated_event_lines_read_the_same_on_both_paths(
    payload: bytes, event_id: bytes, around: tuple[bytes, bytes]
) -> None:
    line = (
        b'{"id":"'
        + event_id
        + b'","sessionId":"s","sequence":1,"type":"message","createdAt":"t","payload":'
        + around[0]
        + payload
        + around[1]
        + b"}"
    )
    assert_line_same_as_general(line)
    assert_type_filter_same_as_decoding(line)


def test_a_value_with_whitespace_around_it_takes_the_fast_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A metadata file ends with a newline: decoding it once is enough."""
    texts = ['{"sessionId":"s"}\n', ' \t[1, "x"]\r\n ', "\n\n{}", "null "]
    expected = {text: outcome(gojson._whole_exact, text, True, 0) for text in texts}

    def refused(*args: object) -> None:
        raise AssertionError("the exact path was taken")

    monkeypatch.setattr(gojson, "_whole_exact", refused)
    for text in texts:
        assert outcome(gojson.loads_pairs, text.encode()) == expected[text]
