"""The log one transcript shows, followed while another process appends to it.

Textual-free. The UI's workers call `open_log` and `LogLook.run` and post what they return;
the UI hands that to its `LogFollower`, which holds the log as shown and says what changed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from zero_tui.store import Metadata, SessionStore, StoreError
from zero_tui.text.sanitize import sanitize_line
from zero_tui.transcript.cards import NEW_SESSION_HEADING, RESUMED_HEADING
from zero_tui.transcript.log_index import (
    LogChange,
    LogIndex,
    extend_facts,
    index_facts,
    log_problems,
)
from zero_tui.transcript.rows import LogFacts, Row, card_row, resume_card

CARD_LINE_LIMIT = 240


@dataclass(frozen=True)
class OpenedLog:
    """An indexed log: the whole of it, or (`partial`) only its latest events, shown while
    the whole log is indexed."""

    meta: Metadata | None
    index: LogIndex
    order: Sequence[int]
    note: str | None = None
    partial: bool = False
    facts: LogFacts | None = None  # the whole log's facts, for rows equal to a batch build


@dataclass(frozen=True)
class UnreadableLog:
    error: str
    removed: bool = False  # the session is no longer in the store


REMOVED_NOTE = (
    "This session is no longer in the store (removed or moved away): what was on screen "
    "stays, and nothing can be added to it."
)


def open_log(
    store: SessionStore, session_id: str, *, latest_first: bool, cancelled: Callable[[], bool]
) -> OpenedLog | UnreadableLog | None:
    """Index a session's log; None when cancelled. With `latest_first`, a huge log gives
    only its latest events (`partial`): the caller shows them, then opens it again whole."""
    try:
        meta = store.get(session_id)
        if meta is None and not store.session_dir(session_id).is_dir():
            # gone, not empty: the rows on screen are kept rather than read as none
            return UnreadableLog("removed from the store", removed=True)
        path = store.events_path(session_id)
        index = LogIndex.open_tail(path, session_id) if latest_first else None
        if index is not None and index.is_partial:
            if index.find_last_compaction() is None:
                # No compaction among the latest events: they end the rehydrated view as
                # they are, so they can be shown while the rest is indexed.
                return OpenedLog(meta, index, range(len(index)), partial=True)
            index.close()
            index = None
        if index is None:
            index = LogIndex.open(path, session_id)
    except (StoreError, OSError, ValueError) as error:
        return UnreadableLog(str(error))
    note: str | None = None
    order: Sequence[int]
    try:
        order = index.rehydrated_order()
    except StoreError as error:
        order = range(len(index))
        note = f"The compacted view could not be rebuilt ({error}); showing the raw log."
    facts = index_facts(index, order, cancelled=cancelled)
    if facts is None or cancelled():
        index.close()
        return None
    return OpenedLog(meta, index, order, note, facts=facts)


@dataclass(frozen=True)
class LogEnd:
    """What one look at the log's end found. `first_changed` None: nothing changed (or the
    look failed, and the next one tries again); `replaced`: the log must be read again."""

    load_id: int
    first_changed: int | None = None
    replaced: bool = False
    meta: Metadata | None = None
    facts: LogFacts | None = None  # of the new positions only (LogFacts.merge takes them in)


@dataclass(frozen=True)
class LogLook:
    """One look at the log's end: asked for on the UI's thread, `run` in a worker."""

    load_id: int
    session_id: str
    index: LogIndex
    shown: int  # the positions the view has
    keeps_all: bool  # the view's order is every line of the log

    def run(self, store: SessionStore) -> LogEnd:
        index = self.index
        try:
            before = len(index)
            refresh = index.refresh()
            if refresh.change is LogChange.REPLACED:
                return LogEnd(self.load_id, replaced=True)
            if refresh.change is not LogChange.GROWN:
                return LogEnd(self.load_id)
            first_changed = refresh.first_changed
            # A compaction changes what the rehydrated view keeps; a rewritten last line
            # (it had no newline yet) changes a position the facts hold: read it all again.
            if index.has_compaction_from(first_changed) or first_changed < before:
                return LogEnd(self.load_id, first_changed, replaced=True)
            meta = store.get(self.session_id)
            start = first_changed if self.keeps_all else self.shown
            new_lines = range(first_changed, len(index))
            facts = extend_facts(index, new_lines, LogFacts(length=start))
        except (StoreError, OSError, ValueError):
            return LogEnd(self.load_id)  # a vanished session keeps its rows
        return LogEnd(self.load_id, first_changed, meta=meta, facts=facts)


@dataclass(frozen=True)
class LogSwap:
    """How the view takes a newly opened log."""

    stale_index: LogIndex | None  # the index it no longer needs, to close
    shift: int | None  # the whole log replacing a look at its latest events: rows added above


@dataclass(frozen=True)
class Grown:
    """New events at the log's end: the view extends from `first_position`, and redraws the
    earlier rows linked to them (`stale`: a call whose result came)."""

    first_position: int
    stale: set[int]


@dataclass(frozen=True)
class Replaced:
    """The log was replaced (rewound, compacted, a last line rewritten): read it again."""


class LogFollower:
    """The log as the transcript shows it: its index, the rehydrated order, the facts, and
    which read of it is the current one (an older read's late answer is dropped)."""

    def __init__(self, session_id: str | None) -> None:
        self.session_id = session_id  # None: a new conversation, until the agent names it
        self.meta: Metadata | None = None
        self.index: LogIndex | None = None
        self.order: Sequence[int] = ()
        self.facts: LogFacts | None = None  # of the whole log, once it is indexed
        self.note: str | None = None
        self.loaded = False  # the whole log is indexed
        self.shown = False  # rows are in the view (maybe only the latest, while loading)
        self.load_id = 0
        self.removed = False  # the session left the store while it was shown
        self.started_new = session_id is None  # a conversation this screen began
        self._looking = False

    def restart(self) -> int:
        """A new read of the log, from the start: its id."""
        self.load_id += 1
        self.loaded = self.shown = False
        return self.load_id

    def is_current(self, load_id: int) -> bool:
        return load_id == self.load_id

    def unreadable(self, error: str, *, removed: bool = False) -> None:
        """The current read failed: the note says why (the rows shown, if any, stay)."""
        self.removed = removed
        self.note = REMOVED_NOTE if removed else f"This session cannot be read: {error}"

    def take(self, log: OpenedLog) -> LogSwap:
        """Hold `log` (an answer of the current read) in place of the log held until now."""
        previous, shown_before = self.index, len(self.order)
        replaces_latest = self.shown and not self.loaded
        self.meta, self.index, self.order = log.meta, log.index, log.order
        self.facts, self.note = log.facts, log.note
        self.removed = False
        self.shown = True
        if log.partial:
            return LogSwap(None, None)
        self.loaded = True
        stale = previous if previous is not None and previous is not log.index else None
        return LogSwap(stale, len(log.order) - shown_before if replaces_latest else None)

    def next_look(self) -> LogLook | None:
        """The next look at the log's end; None while one is out, until the whole log is in,
        and for a log with no line yet."""
        index, session_id = self.index, self.session_id
        if not self.loaded or self._looking or not index or not session_id:
            return None
        self._looking = True
        keeps_all = isinstance(self.order, range)
        return LogLook(self.load_id, session_id, index, len(self.order), keeps_all)

    def take_end(self, end: LogEnd) -> Grown | Replaced | None:
        """Take what a look found: what the view must do (None: nothing)."""
        self._looking = False
        index = self.index
        if end.load_id != self.load_id or index is None:
            return None
        if end.replaced:
            return Replaced()
        if end.first_changed is None:
            return None
        if end.meta is not None:
            self.meta = end.meta
        if isinstance(self.order, range):
            self.order = range(len(index))
            first_position = end.first_changed
        else:
            first_position = len(self.order)
            self.order = [*self.order, *range(end.first_changed, len(index))]
        stale: set[int] = set()
        if self.facts is not None and end.facts is not None:
            stale = self.facts.linked_positions(end.facts.linked)
            self.facts.merge(end.facts)
        return Grown(first_position, stale)

    @property
    def event_count(self) -> int | None:
        """The events shown, once the whole log is in."""
        return len(self.order) if self.loaded else None

    def prelude(self) -> list[Row]:
        """The rows above the log's: the resume card (once the whole log is in)."""
        meta, index = self.meta, self.index
        if meta is None or index is None:
            return []
        card = resume_card(
            meta,
            len(self.order),
            model=meta.model_id,
            provider=meta.provider,
            problems=log_problems(index, self.facts),
            heading=NEW_SESSION_HEADING if self.started_new else RESUMED_HEADING,
        )
        # a line is cut to a few screen lines: a 20,000-character title must not fill them
        shown = [
            line if len(line) <= CARD_LINE_LIMIT else line[:CARD_LINE_LIMIT] + "…" for line in card
        ]
        return [card_row(shown)]

    def why_not_continuable(self) -> str | None:
        """Why a prompt cannot continue this session now (zero-exec §1.4), or None."""
        meta = self.meta
        if self.removed:
            return REMOVED_NOTE
        if meta is not None and not meta.is_resumable_kind:
            return (
                f"Zero session is not resumable: {meta.session_id} "
                f"(a {sanitize_line(meta.session_kind)} session is read-only; "
                "continue its parent instead)"
            )
        if self.session_id is not None and not self.loaded:
            return "the transcript is still loading: try again in a moment"
        return None

    def close(self) -> None:
        """Drop every read in flight, and close the index."""
        self.load_id += 1
        if self.index is not None:
            self.index.close()
