"""The picker's content search (ctrl+t): what was said in a scope's sessions, without Textual.

`ContentSearch` answers one query over the rows of a scope, best first, with the hit each
row shows; `build_index` brings the text index up to date meanwhile. The picker's thread
workers call both and post what they return.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path

from zero_tui.picker.scopes import hits_in_rows, row_positions
from zero_tui.picker.session_rows import PickerRow
from zero_tui.search.catalog import SessionCatalog
from zero_tui.search.query import QueryError, SearchHit, parse_query, search
from zero_tui.store import Metadata, SessionStore
from zero_tui.store.session_flags import EMPTY_BOOK, FlagBook

CONTENT_LIMIT = 200  # hits a query shows at the most
KEPT_ANSWERS = 64  # queries answered over the same rows kept for a backspace or a retyped word


@dataclass(frozen=True, slots=True)
class ContentOutcome:
    """A content search of one scope's rows: the hits among them, best first, and the index
    of each one's row (`order`); `matched` before the limit; `error` for a bad query."""

    order: list[int]
    hits: list[SearchHit]
    matched: int
    error: str | None = None
    notices: tuple[str, ...] = ()

    @property
    def status(self) -> str:
        """What the status line says of it."""
        if self.error is not None:
            return self.error
        if self.matched > len(self.hits):
            return f"best {len(self.hits)} of {self.matched:,}"
        return " · ".join(self.notices)


@dataclass(frozen=True, slots=True)
class SearchedRows:
    """The rows a content search was last given, and what every query over them needs:
    their sessions' metadata in the rows' order and each row's index by session id. Kept
    while the picker hands the same rows key after key: the same metadata list lets the
    query layer keep its index of the scope (10,000 rows: a dict built per key, else)."""

    rows: Sequence[PickerRow]
    scan: int
    sessions: Mapping[str, Metadata] | None
    metadata: list[Metadata]
    position: dict[str, int]
    answers: OrderedDict[str, ContentOutcome] = field(default_factory=OrderedDict)
    """The outcome of each query asked over these rows while the index and the flags stayed
    as they were (`ContentSearch._answers_valid`): backspace asks one of them again."""

    def searched(
        self, rows: Sequence[PickerRow], scan: int, sessions: Mapping[str, Metadata] | None
    ) -> bool:
        return rows is self.rows and scan == self.scan and sessions is self.sessions


class ContentSearch:
    """Content queries over a store's catalog, opened at the first query and kept, with the
    scope's metadata read from it once per scan. One query at a time."""

    def __init__(self, store: SessionStore, cache_dir: Path | None = None) -> None:
        self._store = store
        self._cache_dir = cache_dir
        self._catalog: SessionCatalog | None = None
        self._metadata: tuple[int, dict[str, Metadata]] | None = None
        self._searched: SearchedRows | None = None
        self._answered_under: tuple[FlagBook, tuple[int, int]] | None = None
        self.flags: FlagBook = EMPTY_BOOK  # what tag: and is: match (the picker's, as read)

    def search(
        self,
        text: str,
        rows: Sequence[PickerRow],
        *,
        scan: int,
        sessions: Mapping[str, Metadata] | None = None,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> ContentOutcome:
        """The rows whose sessions match `text`; `scan` names the scan the rows come from
        (a new one reads their metadata again); `sessions`: the store's metadata by id as
        the picker follows it (new and changed sessions included), instead."""
        if self._catalog is None:
            self._catalog = SessionCatalog(self._store, self._cache_dir)
        catalog = self._catalog
        try:
            parsed = parse_query(text).with_flags(self.flags)
        except QueryError as error:
            return ContentOutcome([], [], 0, str(error))
        scope = self._searched
        if scope is None or not scope.searched(rows, scan, sessions):
            if sessions is None:
                metadata = self._scope_metadata(rows, scan, catalog)
            else:
                metadata = [sessions[row.session_id] for row in rows if row.session_id in sessions]
            scope = self._searched = SearchedRows(
                rows, scan, sessions, metadata, row_positions(rows)
            )
        answers = scope.answers
        if not self._answers_valid(catalog):
            answers.clear()
        known = answers.get(text)
        if known is not None:
            return known
        result = search(catalog, parsed, scope.metadata, limit=CONTENT_LIMIT, cancelled=cancelled)
        hits, order = hits_in_rows(result.hits, scope.position)
        outcome = ContentOutcome(order, hits, result.matched, None, result.notices)
        if not cancelled():  # a cancelled search may have stopped short
            answers[text] = outcome
            if len(answers) > KEPT_ANSWERS:
                answers.popitem(last=False)  # one call: a cancelled search may still run beside
        return outcome

    def _answers_valid(self, catalog: SessionCatalog) -> bool:
        """Whether the answers kept still stand: the same flags, and no write to the index
        since (an update of the text index commits on another connection)."""
        under = (self.flags, catalog.database.version())
        kept = self._answered_under
        self._answered_under = under
        return kept is not None and kept[0] is under[0] and kept[1] == under[1]

    def _scope_metadata(
        self, rows: Sequence[PickerRow], scan: int, catalog: SessionCatalog
    ) -> list[Metadata]:
        """The rows' metadata from the catalog (the scope, in the picker's order)."""
        cached = self._metadata
        if cached is None or cached[0] != scan or len(cached[1]) < len(rows):
            by_id = {meta.session_id: meta for meta in catalog.cached_sessions()}
            cached = self._metadata = (scan, by_id)
        by_id = cached[1]
        return [by_id[row.session_id] for row in rows if row.session_id in by_id]


def build_index(
    store: SessionStore,
    cache_dir: Path | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> int:
    """Bring the text index up to date, newest sessions first; the sessions looked at."""
    with SessionCatalog(store, cache_dir) as catalog:
        sessions = catalog.refresh()
        report = catalog.update_content(
            [meta.session_id for meta in sessions], progress=progress, cancelled=cancelled
        )
    return report.sessions


class StoresContentSearch:
    """Content queries over this machine's store and each host's mirror: each store's own
    catalog and text index (built from the mirror by the same code), the rows of each
    searched in it, and the hits taken in turns, the best of each store first."""

    def __init__(
        self,
        store: SessionStore,
        cache_dir: Path | None = None,
        host_stores: Mapping[str, SessionStore] | None = None,
    ) -> None:
        self._searches: dict[str | None, ContentSearch] = {None: ContentSearch(store, cache_dir)}
        for host, mirror in (host_stores or {}).items():
            self._searches[host] = ContentSearch(mirror, cache_dir)

    @property
    def flags(self) -> FlagBook:
        return self._searches[None].flags

    @flags.setter
    def flags(self, book: FlagBook) -> None:
        """This machine's pins and tags (a mirror's sessions have none)."""
        self._searches[None].flags = book

    def search(
        self,
        text: str,
        rows: Sequence[PickerRow],
        *,
        scan: int,
        sessions: Mapping[str, Metadata] | None = None,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> ContentOutcome:
        """As `ContentSearch.search`; `sessions` are this machine's (a mirror's metadata
        is read from its catalog)."""
        if len(self._searches) == 1:
            return self._searches[None].search(
                text, rows, scan=scan, sessions=sessions, cancelled=cancelled
            )
        groups: dict[str | None, list[int]] = {}
        for index, row in enumerate(rows):
            groups.setdefault(row.host, []).append(index)
        found: list[list[tuple[int, SearchHit]]] = []
        matched, notices = 0, list[str]()
        for host, indices in groups.items():
            search_here = self._searches.get(host)
            if search_here is None or cancelled():
                continue
            outcome = search_here.search(
                text,
                [rows[index] for index in indices],
                scan=scan,
                sessions=sessions if host is None else None,
                cancelled=cancelled,
            )
            if outcome.error is not None:
                return outcome
            found.append(
                [(indices[at], hit) for at, hit in zip(outcome.order, outcome.hits, strict=True)]
            )
            matched += outcome.matched
            notices.extend(notice for notice in outcome.notices if notice not in notices)
        taken = [pair for turn in zip_longest(*found) for pair in turn if pair is not None]
        taken = taken[:CONTENT_LIMIT]
        return ContentOutcome(
            [index for index, _hit in taken],
            [hit for _index, hit in taken],
            matched,
            None,
            tuple(notices),
        )
