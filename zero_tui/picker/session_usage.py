"""Each listed session's tokens, remembered in the catalog's database so a listing stays fast.

`session_usage(catalog, session_ids)` gives each session's `Tokens` (its usage events added
up as `zero usage report` adds them: transcript/usage.py). A session's figures are kept
with the stat of the log they were read from and used again only while the log is that
file, unchanged, and not changed too close to when it was read (the catalog's rule for
every cached value: file_identity.same_file); otherwise the log is read again. The table is
derived data, like the rest of the catalog: a database that cannot be written only means
the figures are read each time.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterable, Sequence
from functools import partial

from zero_tui import forked
from zero_tui.search.catalog import SessionCatalog
from zero_tui.search.database import Bypassed
from zero_tui.search.file_identity import regular_stat, same_file, stat_key
from zero_tui.store import SessionStore, StoreError
from zero_tui.store.store import EVENTS_FILE
from zero_tui.store.usage import Tokens
from zero_tui.transcript.usage import session_tokens

_TABLE = """CREATE TABLE IF NOT EXISTS session_usage (
    session_id TEXT PRIMARY KEY,
    log_stat TEXT NOT NULL,
    checked_ns INTEGER NOT NULL,
    requests INTEGER NOT NULL,
    input INTEGER NOT NULL,
    output INTEGER NOT NULL,
    total INTEGER NOT NULL,
    cached INTEGER NOT NULL,
    cache_write INTEGER NOT NULL,
    reasoning INTEGER NOT NULL
)"""
_FIGURES = "requests, input, output, total, cached, cache_write, reasoning"


def session_usage(catalog: SessionCatalog, session_ids: Iterable[str]) -> dict[str, Tokens]:
    """session id -> its tokens (no usage events: zeros), in the order asked; a log that
    cannot be read is left out (the listing says why elsewhere)."""
    wanted = list(dict.fromkeys(session_ids))
    if not wanted:
        return {}
    remembered = _remembered(catalog, wanted)
    prefix = os.path.join(os.fspath(catalog.store.root), "")
    found: dict[str, Tokens] = {}
    fresh: list[tuple[str, str, int, Tokens]] = []
    to_read: list[tuple[str, os.stat_result]] = []
    just_read = catalog.metadata.take_tokens_read()  # with their metadata, by this process
    for session_id in wanted:
        read_now = just_read.get(session_id)
        if read_now is not None:
            log_stat, checked_ns, counted = read_now
            found[session_id] = tokens = Tokens(*counted)
            fresh.append((session_id, log_stat, checked_ns, tokens))
            continue
        info = regular_stat(f"{prefix}{session_id}/{EVENTS_FILE}")
        if info is None:
            found[session_id] = Tokens()  # no log: nothing used
            continue
        entry = remembered.get(session_id)
        if entry is not None and same_file(info, entry[0], entry[1]):
            found[session_id] = entry[2]
            continue
        to_read.append((session_id, info))
    # a cold catalog reads every log: shared with a forked child
    read = forked.shared(
        partial(_read_tokens, catalog.store), [session_id for session_id, _ in to_read]
    )
    for (session_id, info), (checked_ns, figures) in zip(to_read, read, strict=True):
        if figures is None:
            continue
        tokens = Tokens(*figures)
        found[session_id] = tokens
        fresh.append((session_id, stat_key(info), checked_ns, tokens))
    _remember(catalog, fresh)
    return {session_id: found[session_id] for session_id in wanted if session_id in found}


def _read_tokens(
    store: SessionStore, session_ids: Sequence[str]
) -> list[tuple[int, tuple[int, ...] | None]]:
    """Each session's figures as plain values (a forked child sends them back pickled),
    with the wall time before its log was read; None for a log that cannot be read."""
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


def _remembered(catalog: SessionCatalog, wanted: list[str]) -> dict[str, tuple[str, int, Tokens]]:
    rows: list[tuple[object, ...]] = []
    try:
        with catalog.lock:
            catalog.connection.execute(_TABLE)
            for start in range(0, len(wanted), 500):
                batch = wanted[start : start + 500]
                marks = ", ".join("?" for _ in batch)
                rows += catalog.connection.execute(
                    f"SELECT session_id, log_stat, checked_ns, {_FIGURES} FROM session_usage "
                    f"WHERE session_id IN ({marks})",
                    batch,
                ).fetchall()
    except sqlite3.Error:
        return {}
    remembered: dict[str, tuple[str, int, Tokens]] = {}
    for session_id, log_stat, checked_ns, *figures in rows:
        if (
            isinstance(session_id, str)
            and isinstance(log_stat, str)
            and isinstance(checked_ns, int)
            and all(isinstance(value, int) for value in figures)
        ):
            remembered[session_id] = (log_stat, checked_ns, Tokens(*figures))  # type: ignore[arg-type]
    return remembered


def _remember(catalog: SessionCatalog, fresh: list[tuple[str, str, int, Tokens]]) -> None:
    if not fresh:
        return
    rows = [
        (
            session_id,
            log_stat,
            checked_ns,
            t.requests,
            t.input,
            t.output,
            t.total,
            t.cached,
            t.cache_write,
            t.reasoning,
        )
        for session_id, log_stat, checked_ns, t in fresh
    ]
    try:
        with catalog.database.write() as connection:
            connection.execute(_TABLE)
            connection.executemany(
                f"INSERT OR REPLACE INTO session_usage (session_id, log_stat, checked_ns, "
                f"{_FIGURES}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
    except (sqlite3.Error, Bypassed):
        pass  # derived data: read again next time
