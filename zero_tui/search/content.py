"""The searchable text of one event: what a person would look for, and who said it.

Only the event types that carry words are read: messages, tool calls and their output,
compaction summaries and errors. Everything else (usage, permissions, checkpoints) yields
nothing. No Textual import.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import assert_never

from zero_tui.store.errors import StoreError
from zero_tui.store.events import decode_line
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


@dataclass(frozen=True, slots=True)
class EventText:
    """One event's searchable text."""

    event_id: str
    sequence: int
    event_type: str
    role: str
    text: str


def clean_body(text: str) -> str:
    """Text as indexed: control characters (but newlines and tabs) become spaces, bounded."""
    if len(text) > MAX_EVENT_TEXT:
        text = text[:MAX_EVENT_TEXT]
    return _CONTROL.sub(" ", text)


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
    """The searchable text of one log line; None for other types or a line Zero's reader
    rejects."""
    head = _HEADER.match(line)
    if head is not None and head.group(3) not in _TEXT_TYPE_BYTES:
        return None
    try:
        event = decode_line(line, "", 0)
    except StoreError:
        return None
    if event.type not in TEXT_TYPES:
        return None
    found = payload_text(decode_payload(event))
    if found is None:
        return None
    role, text = found
    return EventText(event.id, event.sequence, event.type, role, text)
