"""The full-text index of the sessions' logs (sqlite FTS5), kept up to date incrementally.

What a person said (messages, tool calls and outputs, compaction summaries, errors) is
indexed per event in the contentless `event_text` table, whose rowid is `text key <<
EVENT_BITS | the line's offset in the log`, so a hit's session is its text key's and its
event is read again from the log (`events_at`); every word of the values of its events
(`content.payload_values`) is in the store's vocabulary, noted as held by its text key
(for substrings: see `database`). A log is read from the byte offset indexed up to; a
shrunk, replaced or rewritten log is indexed anew under a new text key (what was indexed
before is left behind, found by no session). Many sessions go in one write transaction
(`_Batch`): a cold build commits a few times a second, not once per session, and a query
on another connection sees it go on.
The state of each log is read inside the write transaction, so two processes never index
the same bytes twice. Queries live in `search.query`.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from zero_tui.search import file_identity
from zero_tui.search.content import EventText, line_text
from zero_tui.search.database import (
    BUSY_TIMEOUT_MS,
    EVENT_BITS,
    Bypassed,
    CatalogDatabase,
    add_orphans,
    new_text_key,
    orphans_outweigh_live,
    sql_lists,
    trigrams_supported,
)
from zero_tui.search.file_identity import LogStats, regular_stat
from zero_tui.store import SessionStore, StoreError
from zero_tui.store.events import compaction_plan, decode_line
from zero_tui.store.gotext import trim_space_bytes

if TYPE_CHECKING:
    from collections.abc import Iterator

TAIL_CHECK_BYTES = 4096
READ_CHUNK = 8 * 1024 * 1024
FULL_CHECK_SECONDS = 60.0
_PROGRESS_EVERY = 64
BATCH_SECONDS = 0.5  # the longest a write transaction takes sessions in
BATCH_BYTES = 32 * 1024 * 1024  # the most log bytes one write transaction indexes
LINE_READ = 64 * 1024  # what is read at a time to find an event's line again
UP_TO_DATE = -1  # `_index_session`: the log had nothing new
BUSY_SECONDS = BUSY_TIMEOUT_MS / 1000

Progress = Callable[[int, int], None]

# What `_log_unchanged` compares a log's stat with (`log_check`, see `_log_check`), for a
# well-typed state: None (never unchanged) for an ill-typed one, or one recorded too close to
# the log's last change for its stat to be trusted.
_LOG_CHECK = (
    "SELECT session_id, CASE WHEN typeof(log_offset) = 'integer' "
    "AND typeof(log_events) = 'integer' AND typeof(log_check) = 'text' THEN log_check END "
    "FROM sessions"
)
_STATE_COLUMNS = (
    "key, log_identity, log_stat, log_checked_ns, log_offset, log_tail, log_events, text_key"
)


class LogState(NamedTuple):
    """How far one session's log has been indexed (a tuple: one is built per session at
    every full check)."""

    identity: str | None
    stat: str | None
    checked_ns: int | None
    offset: int
    tail: bytes | None
    events: int
    text_key: int | None  # what its rows are indexed under (None: none yet)


@dataclass(frozen=True, slots=True)
class UpdateReport:
    """What `update_content` did."""

    sessions: int
    indexed: int  # sessions whose text was (re)read
    events: int  # events added to the index
    complete: bool  # False when cancelled or when a session could not be written
    changed: frozenset[str] = frozenset()  # the sessions whose text was (re)read


class IndexReplaced(Exception):
    """The database was given up for an in-memory one during an update: every session key
    changed, so the catalog must be filled again before the index is. `report`: what the
    update had done until then."""

    def __init__(self, report: UpdateReport) -> None:
        super().__init__("the index was replaced by an in-memory one")
        self.report = report


@dataclass(frozen=True, slots=True)
class _Chunk:
    """Complete lines of a log read from `start`, and the file they came from."""

    reset: bool  # start over: the log was replaced, rewritten, shrunk or removed
    info: os.stat_result | None
    checked_ns: int
    start: int
    data: bytes
    tail: bytes | None  # digest of the bytes before `offset`

    @property
    def offset(self) -> int:
        return self.start + len(self.data)


class ContentIndex:
    """The sessions' text, indexed from where each log was indexed up to."""

    def __init__(self, store: SessionStore, database: CatalogDatabase, log_stats: LogStats) -> None:
        self.store = store
        self._database = database
        self._log_stats = log_stats
        # Logs to look at on the next partial update: their metadata changed, or they were
        # indexed too recently for their timestamps to be trusted.
        self._logs_to_check: set[str] = set()
        self._all_logs_checked_at: float | None = None
        self._background: Callable[[], _Checked | None] | None = None  # its answer, awaited

    def metadata_changed(self, session_id: str) -> None:
        """A session's metadata.json was (re)read: its log is looked at on the next update
        (Zero's writer rewrites the metadata after every append and rewind)."""
        self._logs_to_check.add(session_id)

    def compactions(self, keys: Iterable[int]) -> dict[int, str]:
        """key -> the plan of the session's latest compaction (JSON), for those of these
        sessions that have one."""
        plans: dict[int, str] = {}
        for listed in sql_lists(keys):
            try:
                rows = self._database.read(
                    f"SELECT key, compaction FROM sessions WHERE key IN ({listed}) "
                    "AND typeof(compaction) = 'text'"
                )
            except sqlite3.Error:
                return {}
            plans.update(rows)
        return plans

    # --- the update, session by session --------------------------------------------------

    def update(
        self,
        session_ids: list[str] | None = None,
        *,
        progress: Progress | None = None,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> UpdateReport:
        """Bring the text index up to date for `session_ids` (default: every catalogued one).

        Every log is looked at (a stat) on this instance's first update and then at least
        every `FULL_CHECK_SECONDS`; in between, only the logs whose metadata changed or that
        are still racy. IndexReplaced when the database had to be given up midway.
        """
        started = time.monotonic()
        full = (
            self._all_logs_checked_at is None
            or started - self._all_logs_checked_at > FULL_CHECK_SECONDS
        )
        checked = self._background_check()  # for the full update right after it only
        if full and session_ids is None and self._dropped_orphans():
            checked = None  # every log is to be read again
        if checked is not None and full and session_ids is None:
            looked_at, checks, unchanged = checked
        else:
            due = self._logs_due(full)
            wanted = list(due) if session_ids is None else [s for s in session_ids if s in due]
            looked_at, checks, unchanged = _compare(wanted, due, self._log_stats)
        self._logs_to_check -= unchanged
        to_read = list(checks)
        complete = True
        skipped = looked_at - len(to_read)
        batch = _Batch(self._database)
        try:
            try:
                for done, session_id in enumerate(to_read):
                    if cancelled():
                        complete = False
                        break
                    if done % _PROGRESS_EVERY == 0:
                        batch.commit()  # what progress reports, a query finds
                        if progress is not None:
                            progress(skipped + done, looked_at)
                    if self._look_at(session_id, checks[session_id], cancelled, batch) is None:
                        complete = False
                        break
                    if batch.due():
                        batch.commit()
                batch.commit()
            except BaseException as error:
                batch.fail(error)
                raise
        except sqlite3.OperationalError:
            complete = False  # busy beyond the timeout: each of the rest would wait as long
        except Bypassed:
            raise IndexReplaced(batch.report(looked_at, complete=False)) from None
        if progress is not None and complete:
            progress(looked_at, looked_at)
        if full and complete and session_ids is None:
            self._all_logs_checked_at = started
        return batch.report(looked_at, complete=complete)

    def _dropped_orphans(self) -> bool:
        """When most of the text index is rows no session finds (logs indexed anew,
        sessions dropped), empty it, so that this update indexes every log again from its
        start: the index shrinks to what is live. False when it was left as it is."""
        try:
            with self._database.write() as connection:
                if not orphans_outweigh_live(connection):
                    return False
                connection.execute("INSERT INTO event_text (event_text) VALUES ('delete-all')")
                if trigrams_supported():
                    connection.execute("INSERT INTO word_grams (word_grams) VALUES ('delete-all')")
                    connection.execute("DELETE FROM word_sessions")
                    connection.execute("DELETE FROM value_words")
                connection.execute(
                    "UPDATE sessions SET text_key = NULL, log_offset = 0, log_tail = NULL, "
                    "log_events = 0, log_check = NULL"
                )
                connection.execute("DELETE FROM info WHERE key = 'orphan_events'")
        except (sqlite3.OperationalError, Bypassed):
            return False  # busy: the next full update tries again
        return True

    @property
    def checking_in_background(self) -> bool:
        """Whether a `check_in_background` is under way (its answer not yet taken)."""
        return self._background is not None

    def check_in_background(self) -> None:
        """Start comparing every catalogued log with the index, in a thread over a read-only
        connection of its own, while the caller asks the index as it stands: the next full
        `update` takes its answer (and reads on only the logs that changed). An index in
        memory has no second connection: the update compares them itself."""
        self._background_check()  # a check left over is stale
        if not self._database.persistent:
            return
        path = self._database.path
        due = frozenset(self._logs_to_check)
        log_stats = self._log_stats
        answer: list[_Checked | None] = []

        def compare() -> None:
            try:
                with contextlib.closing(
                    sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=BUSY_SECONDS)
                ) as connection:
                    rows = connection.execute(_LOG_CHECK).fetchall()
            except sqlite3.Error:
                answer.append(None)
                return
            checks = {row[0]: row[1] for row in rows if isinstance(row[0], str)}
            answer.append(_compare(list(checks), checks, log_stats, due))

        thread = threading.Thread(target=compare, name="zero-tui log check", daemon=True)
        thread.start()

        def joined() -> _Checked | None:
            thread.join()
            return answer[0] if answer else None

        self._background = joined

    def _background_check(self) -> _Checked | None:
        """What `check_in_background` found, once it is done (`_compare`'s answer over every
        catalogued log); None when none was started or it failed."""
        if self._background is None:
            return None
        awaited, self._background = self._background, None
        return awaited()

    def _logs_due(self, full: bool) -> dict[str, str | None]:
        """The logs an update looks at, with what each was indexed as: every catalogued one
        on a full check, else those whose metadata changed or that are still racy."""
        try:
            return self._log_checks(None if full else sorted(self._logs_to_check))
        except sqlite3.Error:
            return {}

    def _look_at(
        self, session_id: str, check: str | None, cancelled: Callable[[], bool], batch: _Batch
    ) -> int | None:
        """Index what is new in one log, if its stat says it may have changed (the answer of
        `_index_session`), and keep it among the logs to check until its timestamps can be
        trusted."""
        if _log_unchanged(self._log_stats.look(session_id)[1], check):
            self._logs_to_check.discard(session_id)
            return UP_TO_DATE
        self._logs_to_check.add(session_id)
        added = self._index_session(session_id, cancelled, batch)
        if added == UP_TO_DATE and self._settled(session_id):
            self._logs_to_check.discard(session_id)
        return added

    def _settled(self, session_id: str) -> bool:
        """The log is as now indexed, by its stat alone (no longer racy)."""
        with self._database.lock:
            check = self._log_checks([session_id]).get(session_id)
        return check is not None and _log_unchanged(
            regular_stat(self._log_stats.path(session_id)), check
        )

    def _log_checks(self, session_ids: Iterable[str] | None) -> dict[str, str | None]:
        """session id -> what its log was indexed as (`_LOG_CHECK`), for every catalogued
        session (`session_ids` None) or for these."""
        if session_ids is None:
            rows = self._database.read(_LOG_CHECK)
        else:
            rows = []
            for session_id in session_ids:
                rows += self._database.read(f"{_LOG_CHECK} WHERE session_id = ?", (session_id,))
        return {row[0]: row[1] for row in rows if isinstance(row[0], str)}

    def _log_state(self, session_id: str) -> tuple[int, LogState] | None:
        rows = self._database.connection.execute(
            f"SELECT {_STATE_COLUMNS} FROM sessions WHERE session_id = ?", (session_id,)
        ).fetchall()
        return _state_of(rows[0]) if rows else None

    # --- one log, chunk by chunk ---------------------------------------------------------

    def _index_session(
        self, session_id: str, cancelled: Callable[[], bool], batch: _Batch
    ) -> int | None:
        """Index what is new in one log, in `batch`'s transaction: UP_TO_DATE when there was
        nothing new, None when cancelled, else the number of events added."""
        path = self._log_stats.path(session_id)
        added = 0
        touched = False
        while True:
            connection = batch.connection()
            found = self._log_state(session_id)
            if found is None:
                return added if touched else UP_TO_DATE
            key, state = found
            chunk = _read_chunk(path, state, time.time_ns())
            if chunk is None:
                return added if touched else UP_TO_DATE
            written = _write_chunk(connection, session_id, key, state, chunk, batch.vocabulary)
            if not touched and not chunk.reset and not chunk.data:
                return UP_TO_DATE  # unchanged: only the time of this check was recorded
            batch.wrote(session_id, written, len(chunk.data))
            added += written
            touched = True
            if chunk.info is None or chunk.offset >= chunk.info.st_size or not chunk.data:
                return added
            if cancelled():
                return None
            if batch.due():
                batch.commit()

    # --- the events of hits, read again from their logs -----------------------------------

    def events_at(self, session_id: str, offsets: Iterable[int]) -> dict[int, EventText]:
        """offset -> the event of the line there in the session's log, for those of these
        offsets that still start a readable line."""
        found: dict[int, EventText] = {}
        try:
            with open(self._log_stats.path(session_id), "rb", buffering=0) as log:
                for offset in offsets:
                    text = line_text(_line_at(log.fileno(), offset))
                    if text is not None:
                        found[offset] = text
        except OSError:
            pass
        return found

    def first_events(self, session_id: str, limit: int) -> Iterator[EventText]:
        """The session's first `limit` readable events, from its log as it is now."""
        try:
            with open(self._log_stats.path(session_id), "rb", buffering=0) as log:
                data = log.read(READ_CHUNK)
        except OSError:
            return
        if len(data) == READ_CHUNK:
            data = data[: data.rfind(b"\n") + 1]
        for _, _, text in _line_texts(0, data)[:limit]:
            if text is not None:
                yield text


class _Batch:
    """The write transaction a run of sessions is indexed in: committed when `due`, so that
    a cold build pays a commit (and FTS5 a new segment) a few times a second, not once per
    session; what it indexed counts once committed."""

    def __init__(self, database: CatalogDatabase) -> None:
        self._database = database
        self._open: contextlib.AbstractContextManager[sqlite3.Connection] | None = None
        self._connection: sqlite3.Connection | None = None
        self._started = 0.0
        self._bytes = 0
        self._pending: dict[str, int] = {}  # session id -> events added, not yet committed
        self._changed: set[str] = set()
        self._events = 0
        self.vocabulary = _Vocabulary()

    def connection(self) -> sqlite3.Connection:
        """The open transaction's connection (one is begun when none is)."""
        if self._open is None or self._connection is None:
            opened = self._database.write()
            self._connection = opened.__enter__()
            self._open = opened
            self._started = time.monotonic()
            self._bytes = 0
        return self._connection

    def wrote(self, session_id: str, events: int, size: int) -> None:
        self._pending[session_id] = self._pending.get(session_id, 0) + events
        self._bytes += size

    def due(self) -> bool:
        if self._open is None:
            return False
        return self._bytes >= BATCH_BYTES or time.monotonic() - self._started >= BATCH_SECONDS

    def commit(self) -> None:
        opened, self._open = self._open, None
        if opened is None:
            return
        opened.__exit__(None, None, None)
        self._changed.update(self._pending)
        self._events += sum(self._pending.values())
        self._pending.clear()

    def fail(self, error: BaseException) -> None:
        """Roll the open transaction back after `error` (raising `Bypassed` when the
        database was given up for it)."""
        opened, self._open = self._open, None
        self._pending.clear()
        self.vocabulary.forget()
        if opened is not None:
            opened.__exit__(type(error), error, error.__traceback__)

    def report(self, sessions: int, *, complete: bool) -> UpdateReport:
        changed = frozenset(self._changed)
        return UpdateReport(sessions, len(changed), self._events, complete, changed)


def _write_chunk(
    connection: sqlite3.Connection,
    session_id: str,
    key: int,
    state: LogState,
    chunk: _Chunk,
    vocabulary: _Vocabulary,
) -> int:
    """Write one chunk's events and the log's new state: the number of events written."""
    lines = _line_texts(chunk.start, chunk.data)
    text_key = state.text_key
    if chunk.reset and text_key is not None:
        add_orphans(connection, state.events)
    if chunk.reset or text_key is None:  # the rows of what was indexed before stay behind
        text_key = new_text_key(connection) if lines else None
    count = 0 if chunk.reset else state.events
    rows: list[tuple[int, str]] = []
    compaction: str | bool | None = False
    if text_key is not None:
        rows, compaction = _event_rows(session_id, text_key, lines)
        connection.executemany("INSERT INTO event_text (rowid, body) VALUES (?, ?)", rows)
        if trigrams_supported():
            words = _value_words(lines)
            connection.executemany(
                "INSERT OR IGNORE INTO word_sessions (word_id, text_key) VALUES (?, ?)",
                [(word_id, text_key) for word_id in vocabulary.ids(connection, words)],
            )
    if chunk.reset and compaction is False:
        compaction = None  # indexed anew: the old plan goes
    _record_state(connection, key, chunk, count + len(lines), compaction, text_key)
    return len(rows)


def _line_at(fd: int, offset: int) -> bytes:
    """The line of the log that starts at `offset` (b"" past its end)."""
    data = b""
    while len(data) < READ_CHUNK:
        piece = os.pread(fd, LINE_READ, offset + len(data))
        end = piece.find(b"\n")
        if end >= 0:
            return data + piece[:end]
        data += piece
        if len(piece) < LINE_READ:
            break
    return data


def _read_chunk(path: str, state: LogState, checked_ns: int) -> _Chunk | None:
    """The next complete lines to index, or None when the log has not changed."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        fd = -1
    try:
        info = os.fstat(fd) if fd >= 0 else None
        if info is not None and not stat.S_ISREG(info.st_mode):
            info = None
        plan = _plan(fd, info, state)
        if plan is None:
            return None
        start, reset = plan
        if info is None:
            return _Chunk(reset, None, checked_ns, 0, b"", None)
        data = b""
        if start < info.st_size:
            data = os.pread(fd, min(READ_CHUNK, info.st_size - start), start)
        end = data.rfind(b"\n") + 1
        if end == 0 and len(data) == READ_CHUNK:
            end = len(data)  # one line longer than a chunk: index its first part
        data = data[:end]
        offset = start + end
        low = max(0, offset - TAIL_CHECK_BYTES)
        tail = file_identity.digest(os.pread(fd, offset - low, low)) if offset else None
        return _Chunk(reset, info, checked_ns, start, data, tail)
    finally:
        if fd >= 0:
            os.close(fd)


def _plan(fd: int, info: os.stat_result | None, state: LogState) -> tuple[int, bool] | None:
    """(offset to read from, whether to start over), or None when nothing changed."""
    if info is None:
        return (0, True) if state.identity is not None or state.events else None
    if state.identity != _log_identity(info) or info.st_size < state.offset:
        return 0, True
    if file_identity.same_file(info, state.stat, state.checked_ns):
        return None
    if state.offset:
        low = max(0, state.offset - TAIL_CHECK_BYTES)
        if state.tail != file_identity.digest(os.pread(fd, state.offset - low, low)):
            return 0, True  # rewritten in place
    # grown, or unchanged but racy: read on (nothing, maybe), recording the new check
    return state.offset, False


def _line_texts(start: int, data: bytes) -> list[tuple[int, bytes, EventText | None]]:
    """Each non-blank line of `data` (complete lines, read from offset `start` of the log)
    with its offset and its searchable text."""

    found: list[tuple[int, bytes, EventText | None]] = []
    offset = start
    for piece in data.split(b"\n"):
        content = piece if piece[:1] == b"{" and piece[-1:] == b"}" else trim_space_bytes(piece)
        if content:
            found.append((offset, content, line_text(content)))
        offset += len(piece) + 1
    return found


def _event_rows(
    session_id: str, text_key: int, lines: list[tuple[int, bytes, EventText | None]]
) -> tuple[list[tuple[int, str]], str | bool | None]:
    """The `event_text` rows of these lines; and the plan of the last compaction among them
    (False when there is none)."""
    low = text_key << EVENT_BITS
    compaction: str | bool | None = False
    rows: list[tuple[int, str]] = []
    for offset, line, text in lines:
        if text is None or offset >= 1 << EVENT_BITS:
            continue
        if text.text:
            rows.append((low | offset, text.text))
        if text.event_type == "session_compaction":
            compaction = _compaction_json(line, session_id)
    return rows, compaction


def _value_words(lines: list[tuple[int, bytes, EventText | None]]) -> list[str]:
    """Every word of these lines' values once (what whitespace separates, as in a query:
    a query's word, having no whitespace, is inside the values if and only if it is inside
    one of their words)."""
    return list(
        dict.fromkeys(
            word for _, _, text in lines if text is not None for word in text.values.split()
        )
    )


class _Vocabulary:
    """The ids of the store's value words (`value_words`), new ones added with their
    trigrams; those met in an update remembered (ids are never reused)."""

    LOOKUP = 500  # words asked for at once
    REMEMBERED = 200_000  # words remembered at the most

    def __init__(self) -> None:
        self._known: dict[str, int] = {}

    def forget(self) -> None:
        """The transaction the words were added in was rolled back."""
        self._known.clear()

    def ids(self, connection: sqlite3.Connection, words: list[str]) -> list[int]:
        """The id of each of `words`, added to the vocabulary when new (in the caller's
        write transaction)."""
        known = self._known
        if len(known) > self.REMEMBERED:
            known.clear()
        missing = [word for word in words if word not in known]
        for start in range(0, len(missing), self.LOOKUP):
            asked = missing[start : start + self.LOOKUP]
            marks = ",".join("?" * len(asked))
            known.update(
                connection.execute(
                    f"SELECT word, id FROM value_words WHERE word IN ({marks})", asked
                )
            )
        for word in missing:
            if word not in known:
                added = connection.execute("INSERT INTO value_words (word) VALUES (?)", (word,))
                word_id = added.lastrowid
                assert word_id is not None
                connection.execute(
                    "INSERT INTO word_grams (rowid, word) VALUES (?, ?)", (word_id, word)
                )
                known[word] = word_id
        return [known[word] for word in words]


def _record_state(
    connection: sqlite3.Connection,
    key: int,
    chunk: _Chunk,
    count: int,
    compaction: str | bool | None,
    text_key: int | None,
) -> None:
    """Note how far the log is indexed, under which text key, and its latest compaction's
    plan unless `compaction` is False (unchanged)."""
    info = chunk.info
    values: tuple[Any, ...] = (None, None, None, 0, None, 0)
    if info is not None:
        values = (
            _log_identity(info),
            file_identity.stat_key(info),
            chunk.checked_ns,
            chunk.offset,
            chunk.tail,
            count,
        )
    connection.execute(
        "UPDATE sessions SET log_identity = ?, log_stat = ?, log_checked_ns = ?, "
        "log_offset = ?, log_tail = ?, log_events = ?, log_check = ?, text_key = ? WHERE key = ?",
        (*values, _log_check(info, chunk.checked_ns), text_key, key),
    )
    if compaction is not False:
        connection.execute("UPDATE sessions SET compaction = ? WHERE key = ?", (compaction, key))


def _compaction_json(line: bytes, session_id: str) -> str | None:
    """The latest compaction's plan (what it replaced), or None when it cannot be applied."""
    try:
        event = decode_line(line, session_id, 0)
        plan = compaction_plan(event)
    except StoreError:
        return None
    return json.dumps(
        {
            "eventId": plan.event_id,
            "sequence": event.sequence,
            "skipIds": sorted(plan.skip_ids),
            "throughSequence": plan.through_sequence,
        }
    )


def _state_of(row: tuple[Any, ...]) -> tuple[int, LogState] | None:
    key, identity, log_stat, checked, offset, tail, count, text_key = row
    if not isinstance(key, int):
        return None
    if not (isinstance(offset, int) and isinstance(count, int)):
        return key, LogState(None, None, None, 0, None, 0, None)
    return key, LogState(
        identity if isinstance(identity, str) else None,
        log_stat if isinstance(log_stat, str) else None,
        checked if isinstance(checked, int) else None,
        max(0, offset),
        tail if isinstance(tail, bytes) else None,
        max(0, count),
        text_key if isinstance(text_key, int) else None,
    )


def _log_identity(info: os.stat_result) -> str:
    return f"{info.st_dev}:{info.st_ino}"


def _stat_check(info: os.stat_result) -> str:
    """A log's identity and `file_identity.stat_key`, in one string."""
    ino = info.st_ino
    return f"{info.st_dev}:{ino} {ino}:{info.st_size}:{info.st_mtime_ns}:{info.st_ctime_ns}"


def _log_check(info: os.stat_result | None, checked_ns: int) -> str | None:
    """What a later stat of the log must give for it to be as now recorded (`_stat_check`;
    "" for no log), or None when it was taken too close to the log's last change to be
    trusted (`file_identity.is_racy`)."""
    if info is None:
        return ""
    if file_identity.is_racy(file_identity.changed_ns(info), checked_ns):
        return None
    return _stat_check(info)


_Checked = tuple[int, dict[str, str | None], set[str]]
"""How many logs were looked at; those that changed, each with what it was indexed as (in
the order given); and those of the logs due a look that did not change."""


def _compare(
    session_ids: list[str],
    checks: dict[str, str | None],
    log_stats: LogStats,
    due: Iterable[str] | None = None,
) -> _Checked:
    """The logs of `session_ids` compared with what each was indexed as (`checks`), one
    stat each, all at once; of the unchanged, only those `due` a look are told (all of
    them when None)."""
    stats = log_stats.look_all(session_ids)
    changed: dict[str, str | None] = {}
    unchanged: set[str] = set()
    for session_id, info in zip(session_ids, stats, strict=True):
        check = checks[session_id]
        if not _log_unchanged(info, check):
            changed[session_id] = check
        elif due is None:
            unchanged.add(session_id)
    if due is not None:
        unchanged = {session_id for session_id in due if session_id in checks} - changed.keys()
    return len(session_ids), changed, unchanged


def _log_unchanged(info: os.stat_result | None, check: str | None) -> bool:
    """The log (`info`: its stat, None when it is not a regular file) is as indexed
    (`check`: from `_LOG_CHECK`), by the stat alone."""
    if check is None:
        return False
    return check == ("" if info is None else _stat_check(info))
