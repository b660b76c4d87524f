"""The searchable text of one event: what a person would look for, and who said it.

Only the event types that carry words are read: messages, tool calls and their output,
compaction summaries and errors. Everything else (usage, permissions, checkpoints) yields
nothing. No Textual import.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

# The head of a line as Zero's encoder writes it: enough to skip uninteresting types
# without decoding their payloads.
_HEADER = re.compile(
    rb'\{"id":"((?:[^"\\]|\\.)*)","sessionId":"(?:[^"\\]|\\.)*",'
    rb'"sequence":(-?[0-9]{1,19}),"type":"([a-z_]*)"'
)
TEXT_TYPES = frozenset({"message", "tool_call", "tool_result", "error", "session_compaction"})
_TEXT_TYPE_BYTES = frozenset(name.encode() for name in TEXT_TYPES)
MAX_EVENT_TEXT = 256 * 1024  # characters of one event that are indexed
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]+")
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True, slots=True)
class EventText:
    """One event's searchable text."""

    event_id: str
    sequence: int
    event_type: str
    role: str
    text: str
    payload: dict[str, Any]


def go_text(text: str) -> str:
    """A decoded JSON string as Go's decoder reads it: a lone surrogate escape (`\\ud800`,
    which Python keeps and sqlite cannot store) is U+FFFD."""
    return text if text.isascii() else _SURROGATE.sub("\ufffd", text)


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
    """The searchable text of one log line; None for other types or a line that is not JSON."""
    head = _HEADER.match(line)
    if head is not None and head.group(3) not in _TEXT_TYPE_BYTES:
        return None
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
    if (
        not isinstance(event_type, str)
        or event_type not in TEXT_TYPES
        or not isinstance(sequence, int)
        or not isinstance(payload, dict)
    ):
        return None
    found = payload_text(event_type, payload)
    if found is None:
        return None
    role, text = found
    return EventText(
        go_text(event_id) if isinstance(event_id, str) else "",
        sequence,
        event_type,
        role,
        text,
        payload,
    )
