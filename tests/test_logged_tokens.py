"""A session's tokens found in its log's bytes (`store.token_counts.logged_tokens`),
decoding only the lines that can be usage events: the figures Zero's own reader gives for
every log it can read, and for a log it cannot, the usage events that can still be read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zero_tui.store import SessionStore, StoreError
from zero_tui.store import token_counts as token_counts_module
from zero_tui.store.token_counts import Tokens, logged_tokens
from zero_tui.transcript.usage_report import session_usage

SESSION = "s"


def line(event_type: str, payload: object, sequence: int = 1, *, key: str = "type") -> bytes:
    event = {
        "id": f"e{sequence}",
        "sessionId": SESSION,
        "sequence": sequence,
        key: event_type,
        "createdAt": "2026-07-01T10:00:00Z",
        "payload": payload,
    }
    return json.dumps(event, separators=(",", ":")).encode() + b"\n"


def usage(prompt: int, completion: int = 0) -> dict[str, int]:
    return {"promptTokens": prompt, "completionTokens": completion, "totalTokens": prompt}


USER = line("message", {"role": "user", "content": "hi"})


def strict_tokens(store: SessionStore) -> Tokens:
    """What Zero's reader (ReadEvents, then each usage payload) adds up."""
    tokens = Tokens()
    for event in session_usage(store, SESSION):
        tokens.add(event.tokens)
    return tokens


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    store = SessionStore(tmp_path / "sessions")
    store.create(SESSION, cwd="/w")
    return store


def write_log(store: SessionStore, data: bytes) -> bytes:
    store.events_path(SESSION).write_bytes(data)
    return data


def test_the_usage_events_are_added_up(store: SessionStore) -> None:
    data = write_log(store, USER + line("provider_usage", usage(100, 7), 2) + USER)
    assert logged_tokens(data, SESSION) == Tokens(1, 100, 7, 100) == strict_tokens(store)


def test_a_type_spelled_with_an_escape_is_a_usage_event(store: SessionStore) -> None:
    escaped = line("provider_usage", usage(5), 2).replace(
        b"provider_usage", b"provider\\u005fusage"
    )
    data = write_log(store, USER + escaped)
    assert b"provider_usage" not in data
    assert logged_tokens(data, SESSION) == Tokens(1, 5, 0, 5) == strict_tokens(store)


def test_a_type_under_a_key_in_another_case_is_a_usage_event(store: SessionStore) -> None:
    data = write_log(store, USER + line("provider_usage", usage(9), 2, key="TYPE"))
    assert logged_tokens(data, SESSION) == Tokens(1, 9, 0, 9) == strict_tokens(store)


def test_the_name_said_in_a_message_is_no_usage_event(store: SessionStore) -> None:
    said = line("message", {"role": "user", "content": 'type "provider_usage" \\u0070'})
    data = write_log(store, said + line("provider_usage", usage(3), 2))
    assert logged_tokens(data, SESSION) == Tokens(1, 3, 0, 3) == strict_tokens(store)


def test_a_torn_last_usage_line_is_dropped_as_zero_drops_it(store: SessionStore) -> None:
    whole = line("provider_usage", usage(4), 2)
    data = write_log(store, USER + whole + whole[:-20])
    assert logged_tokens(data, SESSION) == Tokens(1, 4, 0, 4) == strict_tokens(store)


def test_a_damaged_usage_line_before_another_line_leaves_no_figures(
    store: SessionStore,
) -> None:
    whole = line("provider_usage", usage(4), 2)
    data = write_log(store, whole[:-20] + b"\n" + whole)
    with pytest.raises(StoreError, match="line 1"):
        logged_tokens(data, SESSION)


def test_a_payload_zero_s_report_fails_on_leaves_no_figures(store: SessionStore) -> None:
    data = write_log(store, USER + line("provider_usage", {"promptTokens": "lots"}, 2))
    with pytest.raises(StoreError, match="usage event 2"):
        logged_tokens(data, SESSION)
    with pytest.raises(StoreError):
        strict_tokens(store)


def test_a_line_damaged_elsewhere_hides_no_usage_event(store: SessionStore) -> None:
    """Zero's report leaves such a session out whole (`usage_report` does too); its
    listing figures still say what it used."""
    data = write_log(store, USER + b"{ not json\n" + line("provider_usage", usage(11), 3))
    assert logged_tokens(data, SESSION) == Tokens(1, 11, 0, 11)
    with pytest.raises(StoreError):
        strict_tokens(store)


_EVENTS = st.lists(
    st.one_of(
        st.builds(
            lambda content, role: ("message", {"role": role, "content": content}),
            st.text(max_size=30),
            st.sampled_from(["user", "assistant"]),
        ),
        st.builds(
            lambda prompt, completion: ("provider_usage", usage(prompt, completion)),
            st.integers(0, 10**6),
            st.integers(0, 10**6),
        ),
        st.builds(lambda name: ("tool_call", {"name": name, "arguments": {}}), st.text(max_size=8)),
    ),
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(events=_EVENTS, torn=st.integers(0, 40), spaced=st.booleans())
def test_the_figures_are_zero_s_for_every_log_it_can_read(
    tmp_path_factory: pytest.TempPathFactory,
    events: list[tuple[str, object]],
    torn: int,
    spaced: bool,
) -> None:
    store = SessionStore(tmp_path_factory.mktemp("store"))
    store.create(SESSION, cwd="/w")
    lines = [line(kind, payload, number) for number, (kind, payload) in enumerate(events, 1)]
    if spaced:  # blank and indented lines, which Zero's reader trims
        lines = [b"  \n" + item.replace(b"{", b" {", 1) for item in lines]
    data = b"".join(lines)
    if torn and lines:
        data = data[: max(0, len(data) - torn)]
    write_log(store, data)
    try:
        expected = strict_tokens(store)
    except StoreError:
        return  # a log Zero cannot read: see the tests above
    assert logged_tokens(data, SESSION) == expected


class _ScanCountingBytes(bytes):
    """Bytes that add up how much of them `count` scans."""

    scanned = 0

    def count(self, sub: bytes, start: int | None = None, end: int | None = None) -> int:  # type: ignore[override]
        begin = 0 if start is None else start
        stop = len(self) if end is None else end
        _ScanCountingBytes.scanned += max(0, stop - begin)
        return super().count(sub, start, end)


def test_the_line_numbers_are_counted_in_one_pass() -> None:
    """A 100 MB log with 20,000 usage events once took minutes: each line's number was
    counted from the start of the log."""
    lines = [USER]
    for number in range(2, 2002):
        lines.append(line("provider_usage", usage(1), number) if number % 2 else USER)
    data = _ScanCountingBytes(b"".join(lines))
    _ScanCountingBytes.scanned = 0
    assert logged_tokens(data, SESSION) == Tokens(1000, 1000, 0, 1000)
    assert _ScanCountingBytes.scanned <= len(data)


_FIGURE_VALUES = st.one_of(
    st.integers(-(2**63), 2**63 - 1),
    st.integers(2**63, 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.none(),
    st.booleans(),
    st.text(max_size=3),
)
_PAYLOADS: st.SearchStrategy[object] = st.dictionaries(
    st.sampled_from([*token_counts_module._FIGURE_KEYS, "model", "PromptTokens", "MODEL", "other"]),
    _FIGURE_VALUES,
    max_size=8,
) | st.sampled_from([None, [], "x", 5])


@settings(max_examples=300, deadline=None)
@given(payload=_PAYLOADS)
def test_a_payload_read_straight_gives_what_go_s_rules_give(
    tmp_path_factory: pytest.TempPathFactory, payload: object
) -> None:
    """The figures of a plain payload are read without Go's decoder: the same as Zero's
    report gives, or the same failure, for every shape of payload."""
    store = SessionStore(tmp_path_factory.mktemp("store"))
    store.create(SESSION, cwd="/w")
    data = write_log(store, USER + line("provider_usage", payload, 2))
    try:
        expected: Tokens | str = strict_tokens(store)
    except StoreError as error:
        expected = str(error)
    try:
        found: Tokens | str = logged_tokens(data, SESSION)
    except StoreError as error:
        found = str(error)
    assert found == expected
