"""The preview beside the picker's list: a session's facts and its last exchanges."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import tzinfo

from zero_tui.store.models import Event, Metadata
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

    @property
    def events_label(self) -> str:
        return event_count_label(self.shown_events, self.event_count)


def _message_exchange(payload: object) -> PreviewExchange | None:
    if not isinstance(payload, dict):
        return None
    role = payload.get("role")
    content = payload.get("displayContent") or payload.get("content")
    if not isinstance(content, str) or not content.strip():
        return None
    role_name = role.lower() if isinstance(role, str) else "assistant"
    if role_name == "user":
        return PreviewExchange("user", clean_text(content.strip()))
    if role_name in ("assistant", ""):
        return PreviewExchange("assistant", clean_text(content.strip()))
    return PreviewExchange("system", clean_text(content.strip()))


def _tool_exchange(payload: object) -> PreviewExchange | None:
    if not isinstance(payload, dict):
        return None
    name = payload.get("name")
    return PreviewExchange("tool", f"tool call: {one_line(name) if isinstance(name, str) else '?'}")


def preview_exchanges(events: Sequence[Event], limit: int = 8) -> list[PreviewExchange]:
    """The last `limit` user/assistant messages and tool calls, oldest first."""
    found: list[PreviewExchange] = []
    for event in reversed(events):
        exchange: PreviewExchange | None = None
        if event.type == "message":
            exchange = _message_exchange(event.payload)
        elif event.type == "tool_call":
            exchange = _tool_exchange(event.payload)
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
