"""The derived index of a store: its sessions' metadata and verdicts, and their text (sqlite).

It is never the source of truth: every entry is revalidated against the files before it is
trusted, and a database that fails is rebuilt or bypassed. `SessionCatalog` is the one
object callers hold; it joins four parts over one database and one lock:

- `database.CatalogDatabase`: where the database is, its schema, and what happens when it
  is damaged, busy, read-only or foreign (rebuilt, or bypassed with an in-memory one);
- `metadata_cache.MetadataCache`: the sessions' metadata, revalidated by stat (and by
  content while racy, see `file_identity`);
- `verdicts.ContentVerdicts`: whether each session has resumable content, until its log
  changes;
- `content_index.ContentIndex`: the logs' text in FTS5, read on from where each log was
  indexed up to. Queries live in `search.query`.

The store is only read. Two processes may share the database (see `database`).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TypeVar

from zero_tui.search.content_index import ContentIndex, IndexReplaced, Progress, UpdateReport
from zero_tui.search.database import EVENT_BITS, SCHEMA_VERSION, CatalogDatabase
from zero_tui.search.file_identity import RACY_NS, LogStats
from zero_tui.search.metadata_cache import MetadataCache
from zero_tui.search.verdicts import ContentVerdicts
from zero_tui.store import Metadata, SessionStore
from zero_tui.store.store import EVENTS_FILE, UnreadableSession

Result = TypeVar("Result")
Other = TypeVar("Other")

__all__ = ["EVENT_BITS", "RACY_NS", "SCHEMA_VERSION", "SessionCatalog", "UpdateReport"]


class SessionCatalog:
    """The store's sessions and their text, remembered between runs; safe to share between
    threads (one connection, one lock) and between processes (sqlite)."""

    def __init__(self, store: SessionStore, cache_dir: Path | None = None) -> None:
        self.store = store
        self.database = CatalogDatabase(store.root, cache_dir)
        log_stats = LogStats(os.path.join(os.fspath(store.root), ""), EVENTS_FILE)
        self.content = ContentIndex(store, self.database, log_stats)
        self.verdicts = ContentVerdicts(store, self.database, log_stats)
        self.metadata = MetadataCache(
            store,
            self.database,
            log_stats,
            metadata_changed=self.content.metadata_changed,
            verdict_found=self.verdicts.found_with_metadata,
        )

    # --- the database --------------------------------------------------------------------

    @property
    def path(self) -> Path:
        return self.database.path

    @property
    def lock(self) -> threading.RLock:
        """Held around every use of `connection` (it is shared between threads)."""
        return self.database.lock

    @property
    def connection(self) -> sqlite3.Connection:
        return self.database.connection

    @property
    def persistent(self) -> bool:
        """False once bypassed to an in-memory database."""
        return self.database.persistent

    @property
    def busy(self) -> bool:
        """A write waited out the busy timeout: another process holds the database."""
        return self.database.busy

    def use_private_index(self) -> None:
        """See `CatalogDatabase.use_private_index`."""
        self.database.use_private_index()

    def recover(self, error: sqlite3.Error) -> None:
        """See `CatalogDatabase.recover`."""
        self.database.recover(error)

    def save(self) -> None:
        """Write the content verdicts found since the last save (one transaction)."""
        self.verdicts.save()

    def close(self) -> None:
        """Write the verdicts still pending and let go of the database."""
        self.save()
        self.database.close()

    def __enter__(self) -> SessionCatalog:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- the sessions --------------------------------------------------------------------

    @property
    def unreadable(self) -> list[UnreadableSession]:
        """The sessions the last look at the store could not read, in the store's words."""
        return self.metadata.unreadable

    def cached_sessions(self) -> list[Metadata]:
        """See `MetadataCache.cached_sessions`: no store IO, for a first paint only."""
        return self.metadata.cached_sessions()

    def refresh(
        self,
        progress: Progress | None = None,
        *,
        with_verdicts: bool = False,
        with_tokens: bool = False,
    ) -> list[Metadata]:
        """See `MetadataCache.refresh`: every valid session now in the store."""
        return self.metadata.refresh(progress, with_verdicts=with_verdicts, with_tokens=with_tokens)

    def revalidate(self) -> None:
        """See `MetadataCache.revalidate`: the directories only, for a text search."""
        self.metadata.revalidate()

    def sessions_with_keys(self, keys: Iterable[int]) -> list[Metadata]:
        """See `MetadataCache.sessions_with_keys`."""
        return self.metadata.sessions_with_keys(keys)

    def session_keys(self) -> dict[str, int]:
        """session id -> its key in the database."""
        return self.metadata.session_keys()

    def session_ids_by_key(self) -> dict[int, str]:
        """key -> session id, as this instance last saw the catalog."""
        return self.metadata.session_ids_by_key()

    def find_verdicts(self, session_ids: Sequence[str]) -> dict[str, bool]:
        """See `ContentVerdicts.find_many`: `has_content` of many sessions at once."""
        return self.verdicts.find_many(session_ids)

    def has_content(self, session_id: str) -> bool:
        """has_resumable_content, remembered until the log changes."""
        return self.verdicts.has_content(session_id)

    # --- the text ------------------------------------------------------------------------

    def side_by_side(
        self,
        here: Callable[[sqlite3.Connection], Result],
        beside: Callable[[sqlite3.Connection], Other],
    ) -> tuple[Result, Other]:
        """See `CatalogDatabase.side_by_side`: two queries at once, but one after the other
        while the logs are checked in the background (that child has the second CPU)."""
        return self.database.side_by_side(
            here, beside, at_once=not self.content.checking_in_background
        )

    def check_logs_in_background(self) -> None:
        """See `ContentIndex.check_in_background`: every log compared with the index in a
        thread, for the next `update_content`; the caller asks the index meanwhile."""
        self.content.check_in_background()

    def compactions(self, keys: Iterable[int]) -> dict[int, str]:
        """See `ContentIndex.compactions`."""
        return self.content.compactions(keys)

    def update_content(
        self,
        session_ids: list[str] | None = None,
        *,
        progress: Progress | None = None,
        cancelled: Callable[[], bool] = lambda: False,
        retry: bool = True,
    ) -> UpdateReport:
        """Bring the text index up to date for `session_ids` (default: every catalogued
        one), as `ContentIndex.update` does. Call `refresh` first: only sessions in the
        catalog are indexed."""
        try:
            return self.content.update(session_ids, progress=progress, cancelled=cancelled)
        except IndexReplaced as replaced:
            if not retry:
                return replaced.report
        self.refresh()  # now in memory: every key changed, start over there once
        return self.update_content(session_ids, progress=progress, cancelled=cancelled, retry=False)
