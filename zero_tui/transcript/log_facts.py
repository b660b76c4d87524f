"""Whole-log facts: what the rows of part of a log take from the rest of it.

Most rows depend on their own event only. The rest depend on other events through a key:
a tool call, its results, its permission rows and an ask_user row through the call id
(occurrence numbers, de-dup keys, the call's arguments on the result card, the display
collapse); a specialist card through the child session id (its stops update it); every
row through the number of user rows before it (its turn); a tool row without an id
through the number of such calls before it (its occurrence); and a Task row through the
set of specialist call ids (Go's pre-pass over the whole list). `LogFacts` holds these for
a whole log, so the rows of any window of it — fed with the events linked to the window's
events — are exactly the rows a build of the whole log gives there.

No Textual or Rich import here.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import assert_never

from zero_tui.store import Event
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
from zero_tui.transcript.row_model import ROW_EVENT_TYPES


def _call_link(call_id: str) -> str:
    # Row ids are `id` or `id#k`, so ids that could collide share what precedes the first '#'.
    return "call:" + call_id.partition("#")[0] if call_id else ""


def event_links(event: Event) -> tuple[str, ...]:
    """The keys through which this event's rows depend on other events' rows (or theirs on it)."""
    if event.type not in ROW_EVENT_TYPES:
        return ()  # no row: nothing to decode
    return payload_links(decode_payload(event))


def payload_links(payload: Payload) -> tuple[str, ...]:
    """`event_links` of a decoded payload."""
    match payload:
        case ToolCallPayload(call_id=call_id) | ToolResultPayload(call_id=call_id):
            link = _call_link(call_id)
        case PermissionPayload(tool_call_id=call_id):
            link = _call_link(call_id)
        case MessagePayload():
            asks = payload.kind is MessageKind.ASK_USER
            link = _call_link(payload.tool_call_id) if asks else ""
        case SpecialistStartPayload():
            # it drops the Task rows of its call id: they depend on it (a live log tells)
            links = (_child_link(payload.child_session_id), _call_link(payload.tool_call_id))
            return tuple(link for link in links if link)
        case SpecialistStopPayload():
            child = _child_link(payload.child_session_id)
            return (child,) if child else ()
        case (
            UsagePayload()
            | ErrorPayload()
            | CheckpointPayload()
            | RewindPayload()
            | CompactionPayload()
            | ForkPayload()
            | ChildPayload()
            | SpecPayload()
            | GoalPayload()
            | UnknownPayload()
        ):
            link = ""
        case _:
            assert_never(payload)
    return (link,) if link else ()


def _child_link(child_session_id: str) -> str:
    return "child:" + child_session_id if child_session_id else ""


def starts_turn(payload: Payload) -> bool:
    """Whether the payload makes a user row (which starts a turn)."""
    return (
        isinstance(payload, MessagePayload)
        and payload.kind is MessageKind.USER
        and bool(payload.content)
    )


@dataclass(slots=True)
class LogFacts:
    """The facts of a whole log that rows of a part of it need (see above), by position.

    Built by `add`, one event at a time in log order; `unreadable` counts positions that
    could not be decoded (`note_unreadable`), with the first few reasons kept.
    """

    specialist_call_ids: set[str] = field(default_factory=set)
    turn_starts: list[int] = field(default_factory=list)
    unnamed_calls: list[int] = field(default_factory=list)
    linked: dict[str, list[int]] = field(default_factory=dict)
    length: int = 0
    unreadable: int = 0
    unreadable_reasons: list[str] = field(default_factory=list)

    def add(self, event: Event) -> None:
        position = self.length
        self.length += 1
        if event.type not in ROW_EVENT_TYPES:
            return
        payload = decode_payload(event)
        if isinstance(payload, SpecialistStartPayload):
            if payload.tool_call_id:
                self.specialist_call_ids.add(payload.tool_call_id)
        elif starts_turn(payload):
            self.turn_starts.append(position)
        elif isinstance(payload, ToolCallPayload) and not payload.call_id:
            self.unnamed_calls.append(position)
        for link in payload_links(payload):
            self.linked.setdefault(link, []).append(position)

    def merge(self, later: LogFacts) -> None:
        """Take in the facts of the positions that follow (a grown log): `later` was built
        from `LogFacts(length=self.length)`."""
        # a new set, not an update: a worker may be reading the old one
        self.specialist_call_ids = self.specialist_call_ids | later.specialist_call_ids
        self.turn_starts += later.turn_starts
        self.unnamed_calls += later.unnamed_calls
        for link, positions in later.linked.items():
            self.linked.setdefault(link, []).extend(positions)
        self.length = later.length
        self.unreadable += later.unreadable
        self.unreadable_reasons += later.unreadable_reasons[: 3 - len(self.unreadable_reasons)]

    def note_unreadable(self, reason: str) -> None:
        """The event at the next position could not be read (it stands in as an error)."""
        self.unreadable += 1
        if len(self.unreadable_reasons) < 3:
            self.unreadable_reasons.append(reason)

    def turn_before(self, position: int) -> int:
        """User rows before `position`: the turn a row there starts in."""
        return bisect_left(self.turn_starts, position)

    def unnamed_calls_before(self, position: int) -> int:
        """Tool calls without an id before `position` (they count occurrences of id "")."""
        return bisect_left(self.unnamed_calls, position)

    def linked_positions(self, links: Iterable[str]) -> set[int]:
        """Every position whose event shares one of `links`."""
        found: set[int] = set()
        for link in links:
            found.update(self.linked.get(link, ()))
        return found


def log_facts(events: Iterable[Event]) -> LogFacts:
    facts = LogFacts()
    for event in events:
        facts.add(event)
    return facts
