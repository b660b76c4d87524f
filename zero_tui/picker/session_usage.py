"""Each listed session's tokens, remembered in the catalog's database so a listing stays fast.

`session_usage(catalog, session_ids)` gives each session's `Tokens` (its usage events added
up as `zero usage report` adds them: store/usage.py). A session's figures are kept
with the stat of the log they were read from and used again only while the log is that
file, unchanged, and not changed too close to when it was read (the catalog's rule for
every cached value: file_identity.same_file); otherwise the log is read again. The table is
derived data, like the rest of the catalog: a database that cannot be written only means
the figures are read each time.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterable, Sequence

from zero_tui.search.catalog import SessionCatalog
from zero_tui.search.database import Bypassed
from zero_tui.search.file_identity import regular_stat, same_file, stat_key
from zero_tui.search.token_table import CountedTokens, remembered_tokens, write_tokens
from zero_tui.store import SessionStore, StoreError
from zero_tui.store.store import EVENTS_FILE
from zero_tui.store.token_counts import Tokens, session_tokens


def session_usage(catalog: SessionCatalog, session_ids: Iterable[str]) -> dict[str, Tokens]:
    """session id -> its tokens (no usage events: zeros), in the order asked; a log that
    cannot be read is left out (the listing says why elsewhere)."""
    wanted = list(dict.fromkeys(session_ids))
    if not wanted:
        return {}
    found: dict[str, Tokens] = {}
    # counted with their metadata by this process's `refresh`, and remembered with them
    for session_id, counted in catalog.metadata.take_tokens_read().items():
        found[session_id] = Tokens(*counted.figures)
    others = [session_id for session_id in wanted if session_id not in found]
    # the database only for the others: a cold listing's is being written meanwhile
    remembered = remembered_tokens(catalog.database, others) if others else {}
    prefix = os.path.join(os.fspath(catalog.store.root), "")
    fresh: list[CountedTokens] = []
    to_read: list[tuple[str, os.stat_result]] = []
    for session_id in others:
        info = regular_stat(f"{prefix}{session_id}/{EVENTS_FILE}")
        if info is None:
            found[session_id] = Tokens()  # no log: nothing used
            continue
        entry = remembered.get(session_id)
        if entry is not None and same_file(info, entry[0], entry[1]):
            found[session_id] = entry[2]
            continue
        to_read.append((session_id, info))
    read = _read_tokens(catalog.store, [session_id for session_id, _ in to_read])
    for (session_id, info), (checked_ns, figures) in zip(to_read, read, strict=True):
        if figures is None:
            continue
        found[session_id] = Tokens(*figures)
        fresh.append(CountedTokens(session_id, stat_key(info), checked_ns, figures))
    if fresh:
        with contextlib.suppress(sqlite3.Error, Bypassed), catalog.database.write() as connection:
            write_tokens(connection, fresh)  # derived data: else counted again next time
    return {session_id: found[session_id] for session_id in wanted if session_id in found}


def _read_tokens(
    store: SessionStore, session_ids: Sequence[str]
) -> list[tuple[int, tuple[int, ...] | None]]:
    """Each session's figures, with the wall time before its log was read; None for a log
    that cannot be read."""
    found: list[tuple[int, tuple[int, ...] | None]] = []
    for session_id in session_ids:
        checked_ns = time.time_ns()
        try:
            tokens = session_tokens(store, session_id)
        except (StoreError, OSError):
            found.append((checked_ns, None))
            continue
        found.append((checked_ns, tokens.figures()))
    return found
