"""Turns of a session's log, and what the transcript's turn commands do with them.

A turn is a prompt (a user row, `log_facts.starts_turn`) and every event up to the next
prompt, in file order: its tool calls, answers, checkpoints and usage. `/fork` and `/rewind`
act on the turn of the highlighted row, through its last event: a fork holds the events up
to and including it (`fork_turn`, over `store.fork.fork_session`); a rewind keeps them.
`parent_link` says where a fork (or a side or child session) came from, for its header.

No Textual or Rich import here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from zero_tui.store import Event, Metadata, SessionStore, StoreError
from zero_tui.store.fork import fork_session
from zero_tui.store.gotext import collapse_space
from zero_tui.store.payload_decoder import decode_payload
from zero_tui.store.payloads import MessagePayload
from zero_tui.transcript.log_facts import starts_turn

PROMPT_LABEL_CHARS = 40


@dataclass(frozen=True, slots=True)
class TurnSpan:
    """One turn: its number (prompts so far, in file order), its prompt, and the sequences
    of its first event (the prompt) and its last."""

    number: int
    prompt: str
    first_sequence: int
    last_sequence: int
    is_last: bool  # no prompt after it

    def label(self) -> str:
        """`turn 3 “fix the parser”` (the prompt on one line, cut)."""
        return f"turn {self.number} “{short_prompt(self.prompt)}”"


def short_prompt(prompt: str) -> str:
    text = collapse_space(prompt)
    if len(text) <= PROMPT_LABEL_CHARS:
        return text
    cut = text[: PROMPT_LABEL_CHARS + 1]  # a space just after the limit: a word ends there
    if " " in cut[PROMPT_LABEL_CHARS // 2 :]:
        return cut.rsplit(" ", 1)[0].rstrip() + "…"
    return text[: PROMPT_LABEL_CHARS - 1] + "…"


def _prompt_of(event: Event) -> str | None:
    if event.type != "message":
        return None
    payload = decode_payload(event)
    if not starts_turn(payload):
        return None
    assert isinstance(payload, MessagePayload)
    return payload.content


def turns_of(events: Sequence[Event]) -> list[TurnSpan]:
    """Every turn of a log, in order (events before the first prompt belong to none)."""
    return [turn for _start, turn in _turns(events)]


def _turns(events: Sequence[Event]) -> list[tuple[int, TurnSpan]]:
    """Each turn with the index of its prompt."""
    starts = [
        (index, prompt)
        for index, event in enumerate(events)
        if (prompt := _prompt_of(event)) is not None
    ]
    turns: list[tuple[int, TurnSpan]] = []
    for number, (start, prompt) in enumerate(starts, start=1):
        following = starts[number][0] if number < len(starts) else len(events)
        last = events[following - 1].sequence
        turn = TurnSpan(number, prompt, events[start].sequence, last, number == len(starts))
        turns.append((start, turn))
    return turns


def turn_of(events: Sequence[Event], sequence: int) -> TurnSpan | None:
    """The turn holding the (first) event with `sequence`; None when no event has it or
    it comes before the first prompt."""
    index = next((i for i, event in enumerate(events) if event.sequence == sequence), None)
    if index is None:
        return None
    found: TurnSpan | None = None
    for start, turn in _turns(events):
        if start > index:
            break
        found = turn
    return found


def read_turn(store: SessionStore, session_id: str, sequence: int) -> TurnSpan:
    """The turn of the event with `sequence` in the session's log; StoreError (one line)
    when the log has no such event or it precedes the first prompt."""
    events = store.read_events(session_id)
    turn = turn_of(events, sequence)
    if turn is not None:
        return turn
    if any(event.sequence == sequence for event in events):
        raise StoreError(
            "that row comes before the first prompt: highlight a prompt, an answer or a "
            "tool card of a turn"
        )
    raise StoreError(f"event #{sequence} is no longer in the log of {session_id}")


# --- fork -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ForkedTurn:
    """A fork made by `/fork`: its metadata, and the turn it ends with (None: the whole
    parent, which had no prompt)."""

    fork: Metadata
    turn: TurnSpan | None


def fork_turn(
    store: SessionStore,
    session_id: str,
    sequence: int | None,
    *,
    title: str = "",
    refuse: Callable[[], str | None] | None = None,
) -> ForkedTurn:
    """Fork `session_id` through the end of the turn holding event `sequence` (None: its
    last turn, i.e. all of it), as Zero's Fork would had the session ended there
    (`refuse`: as fork_session's)."""
    if sequence is None:
        turns = turns_of(store.read_events(session_id))
        turn = turns[-1] if turns else None
        at_sequence = None
    else:
        turn = read_turn(store, session_id, sequence)
        at_sequence = turn.last_sequence
    forked = fork_session(store, session_id, at_sequence=at_sequence, title=title, refuse=refuse)
    return ForkedTurn(forked, turn)


# --- where a session came from ----------------------------------------------------------------

_RELATION = {"fork": "forked from", "side": "a side conversation of", "child": "a sub-session of"}


@dataclass(frozen=True, slots=True)
class ParentLink:
    """A session's parent, for its header: id, title, and the turn it was forked at."""

    parent_id: str
    kind: str
    parent_title: str = ""
    sequence: int = 0  # forkedFromSequence (0: none recorded)
    turn: TurnSpan | None = None
    missing: bool = False  # the parent is not in the store any more

    def describe(self) -> str:
        """`forked from “Plan the parser” (zero_…) at turn 2 “fix it” (event #24)`."""
        relation = _RELATION.get(self.kind, "a child of")
        if self.missing:
            return f"{relation} {self.parent_id} (no longer in the store)"
        named = f"“{self.parent_title}” ({self.parent_id})" if self.parent_title else self.parent_id
        text = f"{relation} {named}"
        if self.turn is not None:
            text += f" at {self.turn.label()} (event #{self.sequence})"
        elif self.sequence:
            text += f" at event #{self.sequence}"
        return text


def parent_link(store: SessionStore, meta: Metadata) -> ParentLink | None:
    """Where `meta`'s session came from; None for a session with no parent."""
    parent_id = meta.parent_session_id
    if not parent_id:
        return None
    kind = meta.session_kind or "fork"
    sequence = meta.forked_from_sequence
    try:
        parent = store.get(parent_id)
    except StoreError:
        parent = None
    if parent is None:
        return ParentLink(parent_id, kind, sequence=sequence, missing=True)
    turn = None
    if sequence > 0:
        try:
            turn = turn_of(store.read_events(parent_id), sequence)
        except StoreError:
            turn = None  # the parent's log cannot be read: the link still names it
    return ParentLink(parent_id, kind, parent.title, sequence, turn)
