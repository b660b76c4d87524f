"""Reading events.jsonl exactly as Zero's ReadEvents does (store-format §5.2), and rehydration."""

from __future__ import annotations

import re
from collections.abc import Container, Iterator
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from zero_tui.store import gojson
from zero_tui.store.errors import StoreError
from zero_tui.store.gojson import GoJSONError
from zero_tui.store.gotext import decode_utf8, trim_space, trim_space_bytes
from zero_tui.store.models import Event
from zero_tui.store.payload_decoder import decode_payload
from zero_tui.store.payloads import CompactionPayload

# A line exactly as Go writes it, with no escapes in the header strings: the common case,
# decoded without building the whole object in Python. The payload group holds no whitespace
# at either end: Go's RawMessage is the value's bytes alone.
_CANONICAL_LINE = re.compile(
    rb'\{"id":"([^"\\\x00-\x1f]*)","sessionId":"([^"\\\x00-\x1f]*)",'
    rb'"sequence":(-?(?:0|[1-9][0-9]{0,18})),"type":"([^"\\\x00-\x1f]*)",'
    rb'"createdAt":"([^"\\\x00-\x1f]*)"(?:,"payload":([^ \t\n\r].*)(?<![ \t\n\r]))?\}\Z',
    re.DOTALL,
)
_EVENT_FIELDS = {
    "id": "id",
    "sessionId": "sessionid",
    "sequence": "sequence",
    "type": "type",
    "createdAt": "createdat",
    "payload": "payload",
}
_JSON_SPACE = " \t\n\r"


def events_file_error(session_id: str, line_number: int, detail: str) -> StoreError:
    return StoreError(
        f"invalid json in zero session {session_id} events.jsonl at line {line_number}: {detail}"
    )


def decode_line(line: bytes, session_id: str, line_number: int) -> Event:
    """Decode one trimmed, non-empty log line with Go's rules; raises StoreError."""
    try:
        return _decode(line, _CANONICAL_LINE.match(line))
    except GoJSONError as error:
        raise events_file_error(session_id, line_number, str(error)) from None


def decode_line_of_types(
    line: bytes, session_id: str, line_number: int, types: Container[str]
) -> Event | None:
    """`decode_line` for a reader that keeps only events whose type is in `types`: a line of
    another type is read with Go's rules all the same (a corrupt one raises StoreError), but
    no event is built for it (None)."""
    try:
        match = _CANONICAL_LINE.match(line)
        if (
            match is not None
            and decode_utf8(match.group(4)) not in types
            and _canonical_line_is_valid(match)
        ):
            return None
        event = _decode(line, match)
    except GoJSONError as error:
        raise events_file_error(session_id, line_number, str(error)) from None
    return event if event.type in types else None


def _canonical_line_is_valid(match: re.Match[bytes]) -> bool:
    """True when `_decode` would take the line as matched; False: it decides otherwise."""
    if not -(2**63) <= int(match.group(3)) < 2**63:
        return False
    payload = match.group(6)
    if payload is None:
        return True
    try:
        if len(payload) > gojson.HUGE_VALUE:
            gojson.check_valid(decode_utf8(payload), depth=1)
        else:
            gojson.check_decodes(payload, depth=1)
    except GoJSONError:
        return False
    return True


def _decode(line: bytes, match: re.Match[bytes] | None) -> Event:
    """The event of a line; `match`: the line's match of `_CANONICAL_LINE`, if any."""
    if match is None:
        return _decode_general(line)
    event_id, session_id, sequence_text, event_type, created_at, payload = match.groups()
    sequence = int(sequence_text)
    if not -(2**63) <= sequence < 2**63:
        return _decode_general(line)
    value: Any = None
    decoded = False
    if payload is not None:
        # validates the payload, and keeps the decoded value for later; a failure may only
        # mean more keys follow the payload, which the general decoder handles.
        # A huge payload is only validated: it is decoded when (if) it is used.
        try:
            if len(payload) > gojson.HUGE_VALUE:
                gojson.check_valid(decode_utf8(payload), depth=1)
            else:
                value = gojson.loads(payload, depth=1)
                decoded = True
        except GoJSONError:
            return _decode_general(line)
    return Event(
        decode_utf8(event_id),
        decode_utf8(session_id),
        sequence,
        decode_utf8(event_type),
        decode_utf8(created_at),
        payload,
        value,
        decoded,
    )


def _decode_general(line: bytes) -> Event:
    # surrogateescape keeps a 1:1 map between characters and invalid bytes, so the payload's
    # source bytes can be recovered from character offsets.
    text = line.decode("utf-8", "surrogateescape")
    value, end = gojson.raw_decode(text, 0) if not text.startswith("{") else (None, 0)
    if not text.startswith("{"):
        if text[end:].strip(_JSON_SPACE):
            raise GoJSONError(f"invalid character {text[end:][0]!r} after top-level value")
        if value is None:
            return Event()
        raise GoJSONError(
            f"cannot unmarshal {gojson.go_type_name(value)} into Go value of type sessions.Event"
        )
    event = Event()
    payload_span: tuple[int, int] | None = None
    # Go checks the syntax of the whole line first, then keeps the first type error and
    # decodes on: a type error is raised only once the rest of the line has parsed
    type_error: GoJSONError | None = None
    index = _skip_space(text, 1)
    if text[index : index + 1] == "}":
        index += 1
    else:
        while True:
            if text[index : index + 1] != '"':
                raise GoJSONError(f"invalid character {text[index : index + 1]!r} looking for key")
            key, index = gojson.raw_decode(text, index)
            index = _skip_space(text, index)
            if text[index : index + 1] != ":":
                raise GoJSONError("invalid character after object key")
            index = _skip_space(text, index + 1)
            start = index
            value, index = gojson.raw_decode(text, index, depth=1)
            try:
                _assign(event, key, value, text[start:index])
            except GoJSONError as error:
                type_error = type_error or error
            if _field_for(key) == "payload":
                payload_span = (start, index)
            index = _skip_space(text, index)
            separator = text[index : index + 1]
            index += 1
            if separator == "}":
                break
            if separator != ",":
                raise GoJSONError("invalid character after object key:value pair")
            index = _skip_space(text, index)
    if text[index:].strip(_JSON_SPACE):
        raise GoJSONError(f"invalid character {text[index:][0]!r} after top-level value")
    if type_error is not None:
        raise type_error
    if payload_span is not None:
        event.payload_raw = text[payload_span[0] : payload_span[1]].encode(
            "utf-8", "surrogateescape"
        )
    return event


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in _JSON_SPACE:
        index += 1
    return index


def _field_for(key: str) -> str | None:
    if key in _EVENT_FIELDS:
        return key
    folded = gojson.fold_key(key)
    for name, name_folded in _EVENT_FIELDS.items():
        if folded == name_folded:
            return name
    return None


def _assign(event: Event, key: str, value: Any, source: str) -> None:
    name = _field_for(key)
    where = f"Event.{name}"
    if name == "id":
        event.id = gojson.as_go_string(value, where, event.id)
    elif name == "sessionId":
        event.session_id = gojson.as_go_string(value, where, event.session_id)
    elif name == "type":
        event.type = gojson.as_go_string(value, where, event.type, "sessions.EventType")
    elif name == "createdAt":
        event.created_at = gojson.as_go_string(value, where, event.created_at)
    elif name == "sequence":
        if isinstance(value, float):  # Go names the literal as written: `number 1e2`
            raise gojson.field_type_error(f"number {source}", where, "int")
        event.sequence = gojson.as_go_int(value, where, event.sequence)
    elif name == "payload":
        event._payload_decoded = False


@dataclass(frozen=True, slots=True)
class LogLine:
    """One piece of the log between newlines: where it sits and whether it ended with `\\n`."""

    number: int
    start: int
    end: int
    content: bytes
    terminated: bool


def iter_pieces(data: bytes) -> Iterator[LogLine]:
    """Split on '\\n' only (1-based line numbers), trimmed with Go's TrimSpace; blanks skipped."""
    start = 0
    number = 0
    size = len(data)
    while start < size:
        newline = data.find(b"\n", start)
        end = size if newline < 0 else newline
        number += 1
        piece = data[start:end]
        if piece and (piece[0] in b"{n" and piece[-1] in b"}l"):
            content = piece
        else:
            content = trim_space_bytes(piece)
        if content:
            yield LogLine(number, start, end, content, newline >= 0)
        if newline < 0:
            break
        start = newline + 1


def parse_log(data: bytes, session_id: str) -> list[Event]:
    """Zero's ReadEvents over a whole log's bytes: only a torn last line is forgiven."""
    return _parse_log(data, session_id, None)


def parse_log_of_types(data: bytes, session_id: str, types: Container[str]) -> list[Event]:
    """`parse_log`'s events of the `types` only, and its errors: every other line is still
    read with Go's rules, but no event is built for it."""
    found = _canonical_log_of_types(data, types)
    return _parse_log(data, session_id, types) if found is None else found


# Every line of a log as Go writes it (`_CANONICAL_LINE`, one per line), found in one call;
# a sequence of at most 18 digits, which any int64 holds.
_CANONICAL_LOG_LINE = re.compile(
    rb'^\{"id":"([^"\\\x00-\x1f]*)","sessionId":"([^"\\\x00-\x1f]*)",'
    rb'"sequence":(-?(?:0|[1-9][0-9]{0,17})),"type":"([^"\\\x00-\x1f]*)",'
    rb'"createdAt":"([^"\\\x00-\x1f]*)"(?:,"payload":([^ \t\n\r][^\n]*)(?<![ \t\r]))?\}$',
    re.MULTILINE,
)


def _canonical_log_of_types(data: bytes, types: Container[str]) -> list[Event] | None:
    """The fast path of `parse_log_of_types`, for a log of lines exactly as Go writes them:
    every line canonical and ended by a newline, every sequence safely in int64 range, and
    every payload valid to the C decoder, all checked at once (the payloads as one array).
    Then each line decodes as `decode_line` would, and no line can fail: the events of the
    `types` are built from the matched fields. None: the line-by-line reader must decide."""
    if not data.endswith(b"\n") or len(data) > gojson.HUGE_VALUE:
        return None
    rows = _CANONICAL_LOG_LINE.findall(data)
    if len(rows) != data.count(b"\n"):
        return None  # a blank, spaced, torn or otherwise written line
    payloads = list(filter(None, map(_PAYLOAD, rows)))
    if payloads and not gojson.all_decode(payloads):
        return None
    names = {raw: decode_utf8(raw) for raw in set(map(_TYPE, rows))}
    wanted = {raw for raw, name in names.items() if name in types}
    return [
        Event(
            decode_utf8(event_id),
            decode_utf8(session_id),
            int(sequence),
            names[event_type],
            decode_utf8(created_at),
            payload or None,
        )
        for event_id, session_id, sequence, event_type, created_at, payload in rows
        if event_type in wanted
    ]


_TYPE = itemgetter(3)
_PAYLOAD = itemgetter(5)


def _parse_log(data: bytes, session_id: str, types: Container[str] | None) -> list[Event]:
    torn_tail_possible = bool(data) and not data.endswith(b"\n")
    events: list[Event] = []
    pending_error: StoreError | None = None
    for piece in iter_pieces(data):
        if pending_error is not None:
            raise pending_error
        try:
            if types is None:
                events.append(decode_line(piece.content, session_id, piece.number))
            else:
                event = decode_line_of_types(piece.content, session_id, piece.number, types)
                if event is not None:
                    events.append(event)
        except StoreError as error:
            if not torn_tail_possible:
                raise
            pending_error = error
    return events


# --- rehydration (store-format §10.4) ------------------------------------------------


@dataclass(frozen=True, slots=True)
class CompactionPlan:
    event_id: str
    skip_ids: frozenset[str]
    through_sequence: int

    @property
    def cutoff_mode(self) -> bool:
        return not self.skip_ids and self.through_sequence > 0

    def compacts(self, event_id: str, sequence: int) -> bool:
        if self.cutoff_mode:
            return sequence <= self.through_sequence
        return event_id in self.skip_ids


def compaction_plan(event: Event) -> CompactionPlan:
    """A session_compaction event's plan, from its payload as Zero decodes it (json.Unmarshal
    into its CompactionPayload); StoreError when it is unusable."""
    payload = decode_payload(event)
    if not isinstance(payload, CompactionPayload):
        raise TypeError(f"not a session_compaction event: {event.type!r}")
    prefix = f"decode compaction payload seq {event.sequence}"
    if payload.error:
        raise StoreError(f"{prefix}: {payload.error}")
    if not trim_space(payload.summary):
        raise StoreError(f"{prefix}: summary is required")
    return CompactionPlan(event.id, payload.compacted_ids, payload.compacted_through_sequence)


def rehydrate(events: list[Event]) -> list[Event]:
    """The compaction-aware view Zero resumes from; StoreError when the latest is broken."""
    latest: Event | None = None
    for event in reversed(events):
        if event.type == "session_compaction":
            latest = event
            break
    if latest is None:
        return list(events)
    plan = compaction_plan(latest)
    result: list[Event] = []
    summary_placed = False
    for event in events:
        if event.id == plan.event_id:
            continue
        if plan.compacts(event.id, event.sequence):
            if not summary_placed:
                result.append(latest)
                summary_placed = True
            continue
        result.append(event)
    if not summary_placed:
        result.insert(0, latest)
    return result
