"""The picker's scopes: which sessions each lists, what it hides, and its ranked rows.

A scope is (all workspaces?, empty runs too?). `ScopeScan` filters the store's sessions
into one scope chunk by chunk, the newest first, so the picker can post the first rows
before a big store is filtered; what the scope hid is counted along the way. With nothing
remembered, `first_screen` finds a first screenful before every session is read. No
Textual or Rich import here (tests/test_import_hygiene.py): the picker's workers call these.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from zero_tui.picker.head_cache import HEAD_ROWS, CachedSession, ScopeHead
from zero_tui.picker.hint_keys import DEFAULT_HINT_KEYS, HintKeys
from zero_tui.picker.ranking import PickerItem, RankedIndex, Ranking
from zero_tui.picker.session_rows import PickerRow
from zero_tui.search.query import SearchHit
from zero_tui.store import Metadata, SessionStore, StoreError
from zero_tui.store.resumable import Placement, ResumeList, filter_resumable
from zero_tui.store.store import sort_sessions

ScopeKey = tuple[bool, bool]
"""(every workspace, empty runs too): the picker's Tab and ctrl+e."""

ALL_SCOPES: tuple[ScopeKey, ...] = ((False, False), (True, False), (False, True), (True, True))


def filter_scope(
    store: SessionStore,
    workspace: str,
    key: ScopeKey,
    sessions: Sequence[Metadata],
    content_check: Callable[[str], bool],
) -> ResumeList:
    """`filter_resumable` of `sessions` for the scope `key`."""
    all_workspaces, include_empty = key
    return filter_resumable(
        store,
        workspace,
        all_workspaces=all_workspaces,
        include_empty=include_empty,
        sessions=sessions,
        content_check=content_check,
    )


@dataclass(frozen=True, slots=True)
class HiddenCounts:
    """What a scope hid, each under the key that would show it (see `filter_resumable`)."""

    other_workspace: int = 0
    empty_runs: int = 0
    not_resumable: int = 0

    def plus(self, found: ResumeList) -> HiddenCounts:
        return HiddenCounts(
            self.other_workspace + found.other_workspace,
            self.empty_runs + found.empty_runs,
            self.not_resumable + found.not_resumable,
        )

    def moved(self, before: Placement | None, after: Placement | None) -> HiddenCounts:
        """The counts once one session moved from `before` to `after` (None: not in the
        store); never below zero."""
        counts = {
            "other_workspace": self.other_workspace,
            "empty_runs": self.empty_runs,
            "not_resumable": self.not_resumable,
        }
        if before in counts:
            counts[before] = max(0, counts[before] - 1)
        if after in counts:
            counts[after] += 1
        return HiddenCounts(**counts)


@dataclass(frozen=True, slots=True)
class ScopeChunk:
    """One chunk of a scope: the sessions of it the scope lists, and the counts so far."""

    sessions: list[Metadata]
    hidden: HiddenCounts  # this chunk's and those before it
    first: bool  # the scope starts over with this chunk
    last: bool  # every session has been filtered


class SessionsById(Mapping[str, Metadata]):
    """`sessions` by id, indexed on the first look-up: most scopes have no fork."""

    def __init__(self, sessions: Sequence[Metadata]) -> None:
        self._sessions = sessions
        self._by_id: dict[str, Metadata] | None = None

    def _index(self) -> dict[str, Metadata]:
        if self._by_id is None:
            self._by_id = {meta.session_id: meta for meta in self._sessions}
        return self._by_id

    def __getitem__(self, session_id: str) -> Metadata:
        return self._index()[session_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._index())

    def __len__(self) -> int:
        return len(self._index())


class ScopeScan:
    """`sessions` (the store's, newest first) filtered into the scope `key`."""

    def __init__(
        self,
        store: SessionStore,
        workspace: str,
        key: ScopeKey,
        sessions: Sequence[Metadata],
        content_check: Callable[[str], bool],
    ) -> None:
        self._store = store
        self._workspace = workspace
        self._key = key
        self._sessions = sessions
        self._content_check = content_check
        self._kept: list[CachedSession] = []
        self.hidden = HiddenCounts()
        self.parents = SessionsById(sessions)
        """Where a fork's row finds its parent (picker_rows), and its head the title."""

    def chunks(
        self, first: int, rest: int, *, cancelled: Callable[[], bool] = lambda: False
    ) -> Iterator[ScopeChunk]:
        """The scope, `first` sessions filtered, then `rest` at a time; at least one chunk
        (empty for no sessions). Stops before the next chunk once `cancelled()`."""
        sessions = self._sessions
        start = 0
        size = first
        while not cancelled():
            part = sessions[start : start + size]
            found = filter_scope(self._store, self._workspace, self._key, part, self._content_check)
            self.hidden = self.hidden.plus(found)
            room = HEAD_ROWS - len(self._kept)
            self._kept.extend(self._cached(meta) for meta in found.sessions[:room])
            is_first = start == 0
            start += len(part)
            done = start >= len(sessions)
            yield ScopeChunk(found.sessions, self.hidden, is_first, done)
            if done:
                return
            size = rest

    def _cached(self, meta: Metadata) -> CachedSession:
        parent = self.parents.get(meta.parent_session_id) if meta.parent_session_id else None
        return CachedSession.of(meta, parent.title if parent is not None else "")

    def head(self) -> ScopeHead:
        """The scope's first rows and what it hid, as far as `chunks` got: the picker
        shows these at its next start, before the store is read."""
        hidden = self.hidden
        return ScopeHead(
            tuple(self._kept),
            hidden.other_workspace,
            hidden.empty_runs,
            hidden.not_resumable,
            len(self._sessions),
        )


@dataclass(frozen=True, slots=True)
class FirstScreen:
    """A cold start's first rows of one scope, before every metadata file is read."""

    sessions: list[Metadata]  # in the picker's order
    hidden: HiddenCounts  # among the sessions read
    read: int  # metadata files read


def first_screen(
    store: SessionStore,
    workspace: str,
    key: ScopeKey,
    content_check: Callable[[str], bool],
    *,
    rows: int,
    reads: int,
    batch: int,
    cancelled: Callable[[], bool] = lambda: False,
) -> FirstScreen | None:
    """The newest sessions of scope `key` by their files' times (`recently_changed`), read
    `batch` at a time until `rows` are kept or `reads` files are read. None when none are
    kept, when the store cannot be read (the full scan says why), or once `cancelled()`."""
    recent = store.recently_changed()
    kept: list[Metadata] = []
    hidden = HiddenCounts()
    read = 0
    while len(kept) < rows and read < reads:
        try:
            part = list(itertools.islice(recent, batch))
        except (StoreError, OSError):
            return None
        if not part or cancelled():
            break
        read += len(part)
        found = filter_scope(store, workspace, key, part, content_check)
        kept.extend(found.sessions)
        hidden = hidden.plus(found)
    if not kept or cancelled():
        return None
    return FirstScreen(sort_sessions(kept), hidden, read)


def empty_list_message(
    hidden: HiddenCounts | None,
    *,
    scanned: bool,
    query: str,
    all_workspaces: bool,
    include_empty: bool,
    keys: HintKeys = DEFAULT_HINT_KEYS,
) -> str:
    """What the list says when it shows no row; `hidden` None: the scope is not read yet,
    `scanned`: some of its rows are in, or all of it."""
    if hidden is None or not scanned:
        return "scanning the session store…"
    if query:
        return "no matching items"
    if not all_workspaces and hidden.other_workspace:
        return (
            f"no sessions in this workspace · {keys.scope} shows {hidden.other_workspace} "
            "in other workspaces"
        )
    if not include_empty and hidden.empty_runs:
        return f"only empty runs here · {keys.empty} shows {hidden.empty_runs}"
    return "no sessions to resume"


def row_positions(rows: Sequence[PickerRow]) -> dict[str, int]:
    """Each row's index in `rows`, by its session's id."""
    return {row.session_id: index for index, row in enumerate(rows)}


def hits_in_rows(
    hits: Sequence[SearchHit], position: Mapping[str, int]
) -> tuple[list[SearchHit], list[int]]:
    """The content-search hits that are among a scope's rows (`position`: each one's index,
    `row_positions`), best first, and the index of each one's row."""
    kept = [hit for hit in hits if hit.session.session_id in position]
    return kept, [position[hit.session.session_id] for hit in kept]


class RowRanker:
    """One `RankedIndex` per scope, rebuilt when the scope's rows change. A big scope's is
    built in a thread before the first key (`prepare`); a ranking of the same rows asked
    for meanwhile waits for that build rather than making a second one."""

    def __init__(self) -> None:
        self._cached: tuple[ScopeKey, Sequence[PickerRow], RankedIndex] | None = None
        self._building = threading.Lock()

    def forget(self) -> None:
        self._cached = None

    def prepare(self, key: ScopeKey, rows: Sequence[PickerRow], *, with_workspace: bool) -> None:
        """Build the index of `rows` now, for the keys to come (a thread worker's)."""
        self._index(key, rows, with_workspace, wait=True)

    def rank(
        self,
        key: ScopeKey,
        rows: Sequence[PickerRow],
        query: str,
        *,
        with_workspace: bool,
        wait: bool = True,
    ) -> Ranking:
        """`rows` ranked for `query`. `wait=False` (the event loop): while another thread
        builds an index, build this one apart rather than wait for it."""
        return self._index(key, rows, with_workspace, wait).rank(query)

    def _index(
        self, key: ScopeKey, rows: Sequence[PickerRow], with_workspace: bool, wait: bool
    ) -> RankedIndex:
        if not self._building.acquire(blocking=wait):
            return _row_index(rows, with_workspace)
        try:
            cached = self._cached
            if cached is not None and cached[0] == key and cached[1] is rows:
                return cached[2]
            index = _row_index(rows, with_workspace)
            self._cached = (key, rows, index)
            return index
        finally:
            self._building.release()


def _row_index(rows: Sequence[PickerRow], with_workspace: bool) -> RankedIndex:
    return RankedIndex(
        [
            PickerItem(
                label=row.label,
                value=row.session_id,
                meta=row.workspace if with_workspace else "",
                model=row.model,
                provider=row.provider,
            )
            for row in rows
        ]
    )
