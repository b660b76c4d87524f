"""The searchable text of one event: what a person said and who said it, and every value
of its payload for substring search.

Two texts per event. What a person would look for (messages, tool calls and their output,
compaction summaries and errors) is the event's `text`: the word index ranks it and its
snippets come from it. Every value of the payload, whatever the event's type (strings,
numbers as Go prints them, true/false), lower-cased as Zero's search lowers it, is the
event's `values`: the substring index finds in it all that `zero search` finds, short of
words found only in JSON key names or event types, which are not indexed. No Textual import.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import assert_never

from zero_tui.store.errors import StoreError
from zero_tui.store.events import decode_line
from zero_tui.store.gotext import format_go_sprint_float, go_lower
from zero_tui.store.payload_decoder import decode_payload
from zero_tui.store.payloads import (
    CheckpointPayload,
    ChildPayload,
    CompactionPayload,
    ErrorPayload,
    ForkPayload,
    GoalPayload,
    MessageKind,
    MessagePayload,
    Payload,
    PermissionPayload,
    RewindPayload,
    SpecialistStartPayload,
    SpecialistStopPayload,
    SpecPayload,
    ToolCallPayload,
    ToolResultPayload,
    UnknownPayload,
    UsagePayload,
)

TEXT_TYPES = frozenset({"message", "tool_call", "tool_result", "error", "session_compaction"})
MAX_EVENT_TEXT = 256 * 1024  # characters of one event that are indexed (each text)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]+")
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True, slots=True)
class EventText:
    """One event's searchable texts: `text` ("" when it says nothing a person said, with
    `role` "" too) and `values` ("" when its payload holds none)."""

    event_id: str
    sequence: int
    event_type: str
    role: str
    text: str
    values: str


def go_text(text: str) -> str:
    """A decoded JSON string as Go's decoder reads it: a lone surrogate escape (`\\ud800`,
    which Python keeps and sqlite cannot store) is U+FFFD."""
    return text if text.isascii() else _SURROGATE.sub("\ufffd", text)


def _scalar_text(value: object) -> str | None:
    """A JSON scalar as Zero's ExtractText prints it (numbers are float64s to Go)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        try:
            return format_go_sprint_float(float(value))
        except OverflowError:
            return str(value)  # Go could not decode it: its digits stand for it
    return None  # null: nothing


def payload_values(payload: object) -> str:
    """Every value in a decoded payload (not the key names), one per line, lower-cased as
    Zero's search lowers its text, with control characters as spaces; bounded."""
    found: list[str] = []
    size = 0
    pending: list[object] = [payload]
    while pending and size < MAX_EVENT_TEXT:
        value = pending.pop()
        if isinstance(value, dict):
            pending.extend(reversed(value.values()))
        elif isinstance(value, list):
            pending.extend(reversed(value))
        else:
            text = _scalar_text(value)
            if text:
                found.append(text)
                size += len(text) + 1
    joined = "\n".join(found)
    if len(joined) > MAX_EVENT_TEXT:
        joined = joined[:MAX_EVENT_TEXT]
    return go_lower(_CONTROL.sub(" ", go_text(joined)))


def clean_body(text: str) -> str:
    """Text as indexed: control characters (but newlines and tabs) become spaces, bounded."""
    if len(text) > MAX_EVENT_TEXT:
        text = text[:MAX_EVENT_TEXT]
    return _CONTROL.sub(" ", go_text(text))


def _joined(parts: Iterable[str]) -> str:
    return "\n".join(part for part in parts if part)


def _message_text(message: MessagePayload) -> tuple[str, str]:
    kind = message.kind
    parts = [message.content]
    if message.display_content != message.content:
        parts.append(message.display_content)
    match kind:
        case MessageKind.ASK_USER:
            for question in message.questions:
                parts += [question.question, *question.options]
            return "assistant", _joined(parts)
        case MessageKind.ASK_USER_ANSWERS:
            return "user", _joined([*parts, *message.answers])
        case MessageKind.USER | MessageKind.PEER:
            return "user", _joined(parts)
        case MessageKind.ASSISTANT:
            return "assistant", _joined(parts)
        case MessageKind.OTHER:
            return ("user" if message.role.lower() == "goal" else "assistant"), _joined(parts)
        case _:
            assert_never(kind)


def payload_text(payload: Payload) -> tuple[str, str] | None:
    """(role, text) of an event's payload, or None when it holds nothing to search."""
    match payload:
        case MessagePayload():
            role, text = _message_text(payload)
        case ToolCallPayload():
            role, text = "tool", _joined((payload.name, payload.arguments))
        case ToolResultPayload():
            role, text = "tool", _joined((payload.output, payload.display_preview))
        case ErrorPayload():
            role, text = "error", payload.message
        case CompactionPayload():
            role, text = "summary", payload.text
        case (
            PermissionPayload()
            | UsagePayload()
            | CheckpointPayload()
            | RewindPayload()
            | ForkPayload()
            | ChildPayload()
            | SpecialistStartPayload()
            | SpecialistStopPayload()
            | SpecPayload()
            | GoalPayload()
            | UnknownPayload()
        ):
            return None
        case _:
            assert_never(payload)
    text = clean_body(text)
    return (role, text) if text.strip() else None


def line_text(line: bytes) -> EventText | None:
    """The searchable texts of one log line: what a person said in it (for the text types)
    and every value of its payload (what `zero search` matches); None for a line Zero's
    reader rejects."""
    try:
        event = decode_line(line, "", 0)
    except StoreError:
        return None
    found = payload_text(decode_payload(event)) if event.type in TEXT_TYPES else None
    role, text = found or ("", "")
    try:
        values = payload_values(event.payload) if event.has_payload else ""
    except (ValueError, TypeError, RecursionError):
        values = ""  # a payload Zero's search could not read either
    return EventText(go_text(event.id), event.sequence, event.type, role, text, values)
