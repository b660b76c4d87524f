"""Whether a session has resumable content, remembered in the catalog until its log changes."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence

from zero_tui.search import file_identity
from zero_tui.search.database import Bypassed, CatalogDatabase
from zero_tui.search.file_identity import LogStats
from zero_tui.store import SessionStore
from zero_tui.store.resumable import has_resumable_content

VERDICT_BATCH = 512
VERDICTS_ONE_BY_ONE = 256


_VERDICT = "SELECT session_id, verdict, verdict_stat, verdict_checked_ns FROM sessions"


class ContentVerdicts:
    """`has_resumable_content` per session, dated by the log's stat it rests on: remembered
    per instance, and written to the database in batches (`save`)."""

    def __init__(self, store: SessionStore, database: CatalogDatabase, log_stats: LogStats) -> None:
        self.store = store
        self._database = database
        self._log_stats = log_stats
        self._verdicts: dict[str, tuple[object, object, object]] | None = None
        self._pending: list[tuple[int, str, int, str]] = []
        self._asked_one_by_one = 0  # before `_verdicts` is loaded
        self._just_found: dict[str, bool] = {}  # see `found_with_metadata`
        database.when_replaced(self._forget)

    def _forget(self) -> None:
        self._verdicts = None

    def found_with_metadata(self, session_id: str, verdict: bool) -> None:
        """A verdict found just now on a log read with its session's metadata (and written
        with them): `find_many` takes it without a second look at the log."""
        self._just_found[session_id] = verdict

    def has_content(self, session_id: str) -> bool:
        """has_resumable_content, remembered until the log changes."""
        # the verdict is dated by the stat it rests on: a reused stat must not look newer
        checked_ns, info = self._log_stats.look(session_id)
        if info is not None:
            remembered = self._valid(session_id, info)
            if remembered is not None:
                return remembered
        verdict_now = has_resumable_content(self.store, session_id)
        if info is not None and self._record(session_id, verdict_now, info, checked_ns):
            self.save()
        return verdict_now

    def find_many(self, session_ids: Sequence[str]) -> dict[str, bool]:
        """`has_content` of many sessions at once: session id -> its verdict, each found with
        its metadata just now, remembered for its log as it is, or found now (on a cold
        catalog, every one). A session with no log file is left out (`has_content` says)."""
        verdicts: dict[str, bool] = {}
        missing: list[tuple[str, int, os.stat_result]] = []
        just_found, self._just_found = self._just_found, {}
        to_look_at = [session_id for session_id in session_ids if session_id not in just_found]
        self._log_stats.look_all(to_look_at)
        for session_id in session_ids:
            if session_id in just_found:
                verdicts[session_id] = just_found[session_id]
                continue
            checked_ns, info = self._log_stats.look(session_id)
            if info is None:
                continue
            remembered = self._valid(session_id, info)
            if remembered is None:
                missing.append((session_id, checked_ns, info))
            else:
                verdicts[session_id] = remembered
        for session_id, checked_ns, info in missing:
            verdict = has_resumable_content(self.store, session_id)
            self._record(session_id, verdict, info, checked_ns)
            verdicts[session_id] = verdict
        self.save()
        return verdicts

    def _valid(self, session_id: str, info: os.stat_result) -> bool | None:
        """The remembered verdict, if it rests on the log as `info` says it is now."""
        remembered = self._remembered(session_id)
        if remembered is None:
            return None
        verdict, verdict_stat, verdict_checked = remembered
        if verdict in (0, 1) and file_identity.same_file(info, verdict_stat, verdict_checked):
            return bool(verdict)
        return None

    def _record(
        self, session_id: str, verdict: bool, info: os.stat_result, checked_ns: int
    ) -> bool:
        """Remember a verdict found for the log as `info` says it was; True when enough are
        pending to be written."""
        stat_key = file_identity.stat_key(info)
        with self._database.lock:
            if self._verdicts is not None:
                self._verdicts[session_id] = (int(verdict), stat_key, checked_ns)
            self._pending.append((int(verdict), stat_key, checked_ns, session_id))
            return len(self._pending) >= VERDICT_BATCH

    def save(self) -> None:
        """Write the content verdicts found since the last save (one transaction)."""
        with self._database.lock:
            pending, self._pending = self._pending, []
        if not pending:
            return
        try:
            with self._database.write() as connection:
                connection.executemany(
                    "UPDATE sessions SET verdict = ?, verdict_stat = ?, verdict_checked_ns = ? "
                    "WHERE session_id = ?",
                    pending,
                )
        except (sqlite3.Error, Bypassed):
            pass  # found again next time

    def _remembered(self, session_id: str) -> tuple[object, object, object] | None:
        """(verdict, the log stat it rests on, when it was found) as the database has it:
        the first few sessions asked of one by one, then every session's at once (a search
        that matched a few sessions asks of those; the picker, of every session)."""
        with self._database.lock:
            if self._verdicts is None and self._asked_one_by_one < VERDICTS_ONE_BY_ONE:
                self._asked_one_by_one += 1
                try:
                    rows = self._database.read(f"{_VERDICT} WHERE session_id = ?", (session_id,))
                except sqlite3.Error:
                    rows = []
                return (rows[0][1], rows[0][2], rows[0][3]) if rows else None
            if self._verdicts is None:
                try:
                    rows = self._database.read(_VERDICT)
                except sqlite3.Error:
                    rows = []
                self._verdicts = {row[0]: (row[1], row[2], row[3]) for row in rows}
            return self._verdicts.get(session_id)
