"""The preview beside the picker's list: a session's facts and its last exchanges."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import tzinfo

from zero_tui.store.models import Event, Metadata
from zero_tui.store.payload_decoder import decode_payload
from zero_tui.store.payloads import MessagePayload, ToolCallPayload
from zero_tui.text.labels import (
    clean_text,
    display_title,
    event_count_label,
    format_timestamp,
    one_line,
)


@dataclass(frozen=True, slots=True)
class PreviewExchange:
    role: str  # "user", "assistant", "tool" or "system"
    text: str


@dataclass(frozen=True, slots=True)
class PreviewData:
    session_id: str
    title: str
    workspace: str
    model: str
    provider: str
    created: str
    updated: str
    event_count: int
    kind: str
    exchanges: tuple[PreviewExchange, ...]
    error: str = ""
    shown_events: int | None = None  # the compaction-aware view's events, when read
    lineage: str = ""  # where a fork (a side or child session) came from, with the turn

    @property
    def events_label(self) -> str:
        return event_count_label(self.shown_events, self.event_count)


def _message_exchange(message: MessagePayload) -> PreviewExchange | None:
    content = (message.display_content or message.content).strip()
    if not content:
        return None
    role = message.role.lower()
    if role == "user":
        return PreviewExchange("user", clean_text(content))
    if role in ("assistant", ""):  # Markdown, read at a glance: its marks go
        # markdown-it loaded with the first preview, not with the picker (30-60 ms)
        from zero_tui.transcript.markdown_text import markdown_as_text

        return PreviewExchange("assistant", clean_text(markdown_as_text(content)))
    return PreviewExchange("system", clean_text(content))


def _exchange(event: Event) -> PreviewExchange | None:
    """What a message or a tool call shows in the preview (nothing for other events)."""
    if event.type not in ("message", "tool_call"):
        return None  # not decoded
    match decode_payload(event):
        case MessagePayload() as message:
            return _message_exchange(message)
        case ToolCallPayload(name=name):
            return PreviewExchange("tool", f"tool call: {one_line(name) if name else '?'}")
        case _:
            return None


def preview_exchanges(events: Sequence[Event], limit: int = 8) -> list[PreviewExchange]:
    """The last `limit` user/assistant messages and tool calls, oldest first."""
    found: list[PreviewExchange] = []
    for event in reversed(events):
        exchange = _exchange(event)
        if exchange is not None:
            found.append(exchange)
            if len(found) >= limit:
                break
    found.reverse()
    return found


def build_preview(
    meta: Metadata,
    events: Sequence[Event],
    *,
    tz: tzinfo | None = None,
    error: str = "",
    limit: int = 8,
    shown_events: int | None = None,
    lineage: str = "",
) -> PreviewData:
    """The preview of `meta` from its (compaction-aware) `events`; `shown_events` defaults
    to their number."""
    return PreviewData(
        session_id=meta.session_id,
        title=display_title(meta.title),
        workspace=one_line(meta.cwd),
        model=one_line(meta.model_id),
        provider=one_line(meta.provider),
        created=format_timestamp(meta.created_at, tz),
        updated=format_timestamp(meta.updated_at, tz),
        event_count=meta.event_count,
        kind=one_line(meta.session_kind),
        exchanges=tuple(preview_exchanges(events, limit)),
        error=one_line(error),
        shown_events=len(events) if shown_events is None else shown_events,
        lineage=one_line(lineage),
    )


def missing_preview(session_id: str, error: str) -> PreviewData:
    """The preview of a session whose metadata cannot be read."""
    return PreviewData(
        session_id=session_id,
        title=one_line(session_id),
        workspace="",
        model="",
        provider="",
        created="",
        updated="",
        event_count=0,
        kind="",
        exchanges=(),
        error=one_line(error),
    )
