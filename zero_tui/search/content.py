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

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from zero_tui.store.gotext import format_go_sprint_float

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


def go_lower(text: str) -> str:
    """Go's strings.ToLower, as Zero's search lowers both the text and the query: rune by
    rune, so U+0130 is "i" and a capital sigma U+03C3 even at a word's end (Python's
    str.lower gives "i" with a combining dot, and the final sigma U+03C2)."""
    if text.isascii():
        return text.lower()
    if "\u0130" in text:
        text = text.replace("\u0130", "i")
    if "\u03a3" in text:
        text = text.replace("\u03a3", "\u03c3")
    return text.lower()


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


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def _message_text(payload: dict[str, Any]) -> tuple[str, str]:
    role = payload.get("role")
    role = role.lower() if isinstance(role, str) else ""
    parts: list[str] = []
    for key in ("content", "displayContent"):
        value = payload.get(key)
        if isinstance(value, str) and value not in parts:
            parts.append(value)
    if role == "ask_user":
        parts.extend(_strings(payload.get("questions")))
        return "assistant", "\n".join(parts)
    if role == "ask_user_answers":
        parts.extend(_strings(payload.get("answers")))
        return "user", "\n".join(parts)
    return ("user" if role in ("user", "goal") else "assistant"), "\n".join(parts)


def payload_text(event_type: str, payload: dict[str, Any]) -> tuple[str, str] | None:
    """(role, text) of an event's payload, or None when it holds nothing to search."""
    if event_type == "message":
        role, text = _message_text(payload)
    elif event_type == "tool_call":
        role = "tool"
        text = "\n".join(
            value
            for value in (payload.get("name"), payload.get("arguments"))
            if isinstance(value, str)
        )
    elif event_type == "tool_result":
        role = "tool"
        parts = [payload.get("output"), payload.get("displayPreview")]
        text = "\n".join(value for value in parts if isinstance(value, str))
    elif event_type == "error":
        role = "error"
        message = payload.get("message")
        text = message if isinstance(message, str) else ""
    elif event_type == "session_compaction":
        role = "summary"
        summary = payload.get("summary")
        text = summary if isinstance(summary, str) else ""
    else:
        return None
    text = clean_body(text)
    return (role, text) if text.strip() else None


def line_text(line: bytes) -> EventText | None:
    """The searchable texts of one log line; None for a line that is not a JSON event."""
    try:
        decoded = json.loads(line.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(decoded, dict):
        return None
    event_type = decoded.get("type")
    sequence = decoded.get("sequence")
    event_id = decoded.get("id")
    payload = decoded.get("payload")
    if not isinstance(event_type, str) or not isinstance(sequence, int):
        return None
    found = None
    if event_type in TEXT_TYPES and isinstance(payload, dict):
        found = payload_text(event_type, payload)
    role, text = found or ("", "")
    return EventText(
        go_text(event_id) if isinstance(event_id, str) else "",
        sequence,
        event_type,
        role,
        text,
        payload_values(payload),
    )
