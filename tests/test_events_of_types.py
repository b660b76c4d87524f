"""A log read for some event types only (usage figures): the whole log checked at once when
every line is as Go writes it, with the line-by-line reader's events and errors always."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zero_tui.store import Event, StoreError, gojson
from zero_tui.store import events as events_module
from zero_tui.store.events import parse_log, parse_log_of_types

SID = "s"
USAGE = "provider_usage"


def line(sequence: int, event_type: str, payload: bytes | None) -> bytes:
    return Event(
        f"{SID}:{sequence}", SID, sequence, event_type, "2026-07-04T10:00:00Z", payload
    ).to_json_line()


def log(*payloads: bytes | None) -> bytes:
    return b"".join(
        line(number, USAGE if number % 2 else "message", payload)
        for number, payload in enumerate(payloads, 1)
    )


def both(data: bytes, types: tuple[str, ...] = (USAGE,)) -> tuple[object, object]:
    def read(reader: object) -> object:
        try:
            return reader()  # type: ignore[operator]
        except StoreError as error:
            return str(error)

    whole = read(lambda: [event for event in parse_log(data, SID) if event.type in types])
    return whole, read(lambda: parse_log_of_types(data, SID, types))


CANONICAL = log(b'{"promptTokens":1}', b'{"role":"user","content":"hi \\u00e9"}', None, b"[1,2]")


def test_a_log_as_go_writes_it_is_read_in_one_go() -> None:
    fast = events_module._canonical_log_of_types(CANONICAL, (USAGE,))
    assert fast is not None
    assert [event.sequence for event in fast] == [1, 3]
    assert fast == parse_log_of_types(CANONICAL, SID, (USAGE,))
    whole, some = both(CANONICAL)
    assert some == whole
    assert fast[0].payload == {"promptTokens": 1}


@pytest.mark.parametrize(
    "data",
    [
        log(b"1,2"),  # a comma at the payload's top level: two values, not one
        log(b'{"a":1},"x":2'),  # a key after the payload
        log(b"[NaN]"),
        log(b"[" + b"9" * 5000 + b"]"),  # past Python's digit limit; Go takes it
        log(b"[" * 2000 + b"]" * 2000),  # past the C decoder's nesting; Go takes it
        log(b"[" * 10_001 + b"]" * 10_001),  # past Go's nesting too
        log(b'"\\ud800"', b'"\xff"'),
        log(b'{"x":1}').replace(b"}\n", b"}\r\n"),
        log(b"{}") + b"\n  \n" + log(b"[]"),
        log(b"{}") + b'{"id":"torn',
        log(b"{}") + b'{"id":"bad"}\n' + log(b"{}"),
        log(b"{}").replace(b'"sequence":1', b'"sequence":9223372036854775808'),
        log(b"{}").replace(b'"sequence":1', b'"sequence":-9223372036854775808'),
        log(b"{}").replace(b'"sequence":1', b'"sequence":"1"'),
        log(b"{}").replace(b'"type":"provider_usage"', b'"type":"provider_usage","type":1'),
    ],
)
def test_any_other_log_gives_the_line_by_line_events_and_errors(data: bytes) -> None:
    for types in ((USAGE,), ("message",), ()):
        whole, some = both(data, types)
        assert some == whole


def test_a_log_that_goes_line_by_line_is_not_taken_in_one_go() -> None:
    assert events_module._canonical_log_of_types(log(b"1,2"), (USAGE,)) is None
    assert events_module._canonical_log_of_types(log(b"{}") + b"\n", (USAGE,)) is None


_payloads = st.one_of(
    st.none(),
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(),
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(st.text(max_size=6), children, max_size=4)
        ),
        max_leaves=12,
    ).map(gojson.marshal),
    st.binary(min_size=1, max_size=20).filter(lambda raw: raw.strip(b" \t\r\n") == raw),
)


@given(lines=st.lists(st.tuples(st.sampled_from([USAGE, "message", "é"]), _payloads), max_size=8))
def test_any_canonical_log_gives_the_line_by_line_events_and_errors(
    lines: list[tuple[str, bytes | None]],
) -> None:
    data = b"".join(
        line(number, event_type, payload) for number, (event_type, payload) in enumerate(lines)
    )
    for types in ((USAGE,), ("message", "é")):
        whole, some = both(data, types)
        assert some == whole
