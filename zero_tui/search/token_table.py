"""The catalog's table of each session's tokens (`store.token_counts.logged_tokens` of its
log), with the stat of the log they were counted in and the time before the read: valid
while the log is that file, unchanged (`file_identity.same_file`). Derived data, like the
rest of the catalog: a row that cannot be written is counted again next time."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import NamedTuple

from zero_tui.search.database import CatalogDatabase
from zero_tui.store.token_counts import Tokens


class CountedTokens(NamedTuple):
    """A session's tokens as counted, for the log as its stat said it was."""

    session_id: str
    log_stat: str
    checked_ns: int  # the wall time before the read
    figures: tuple[int, ...]  # `Tokens.figures()`


_FIGURES = "requests, input, output, total, cached, cache_write, reasoning"
_INSERT = (
    f"INSERT OR REPLACE INTO session_tokens (session_id, log_stat, checked_ns, {_FIGURES}) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_BATCH = 500


def write_tokens(connection: sqlite3.Connection, counted: Sequence[CountedTokens]) -> None:
    """Remember `counted`, in the caller's transaction."""
    if counted:
        connection.executemany(
            _INSERT,
            [(item.session_id, item.log_stat, item.checked_ns, *item.figures) for item in counted],
        )


def remembered_tokens(
    database: CatalogDatabase, session_ids: Sequence[str]
) -> dict[str, tuple[str, int, Tokens]]:
    """session id -> (its log's stat key, the time before the read, its tokens) as
    remembered, for those of `session_ids` the table holds well-typed."""
    rows: list[tuple[object, ...]] = []
    try:
        for start in range(0, len(session_ids), _BATCH):
            batch = tuple(session_ids[start : start + _BATCH])
            marks = ", ".join("?" for _ in batch)
            rows += database.read(
                f"SELECT session_id, log_stat, checked_ns, {_FIGURES} FROM session_tokens "
                f"WHERE session_id IN ({marks})",
                batch,
            )
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
