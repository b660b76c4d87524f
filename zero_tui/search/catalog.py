"""The derived index of a store: its sessions' metadata and verdicts, and their text (sqlite).

One database per store in zero-tui's cache dir (`zero_tui.paths`), in WAL mode, with
named columns and a schema version. It is never the source of truth:

- Every entry is revalidated against the files before it is trusted (`refresh`). A file's
  identity is (inode, size, mtime, ctime); because an atomic rename can reuse an inode and
  keep size and mtime on a filesystem with 1-second timestamps, an entry recorded within a
  few seconds of the file's last change is "racy" (as in git's index) and its content is
  compared again (a digest of metadata.json, the bytes before the indexed offset of a log)
  until it is old enough for any later change to show in the timestamps. The only
  unvalidated read is `cached_sessions`, for a first paint. A text search (`revalidate`)
  lists the directories only, and looks again at the sessions it goes on to order or load
  (`recency_order`, `sessions_with_keys`): at 10,000 sessions a look at every metadata
  file costs more than the query.
- A missing, corrupt, foreign, read-only or version-mismatched database is rebuilt, or
  bypassed with an in-memory one; wrong-typed values in it are ignored and re-read.
- The store is only read. Two processes may share the database: writes are short
  transactions (WAL, a busy timeout), and the text index re-reads a session's state inside
  its write transaction, so two indexers never index the same bytes twice.

Text (messages, tool calls and outputs, compaction summaries, errors) is indexed per event
in an FTS5 table whose rowid is `session key << 32 | n`, so a hit's session is known without
a lookup. A log is read from the byte offset indexed up to; a shrunk, replaced or rewritten
log is indexed again; a deleted session is dropped. Queries live in `search.query`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple

from zero_tui.paths import default_cache_dir
from zero_tui.search.content import EventText, line_text
from zero_tui.store import Goal, Metadata, SessionStore, StoreError
from zero_tui.store.events import compaction_plan, decode_line
from zero_tui.store.gojson import GoJSONError
from zero_tui.store.gotext import trim_space_bytes
from zero_tui.store.resumable import has_resumable_content
from zero_tui.store.store import (
    EVENTS_FILE,
    METADATA_FILE,
    UnreadableSession,
    read_regular,
    sort_in_zero_order,
    sort_sessions,
)

SCHEMA_VERSION = 4
BUSY_TIMEOUT_MS = 5000
RACY_NS = 3_000_000_000  # coarser than any timestamp granularity we meet (FAT: 2 s)
TAIL_CHECK_BYTES = 4096
READ_CHUNK = 8 * 1024 * 1024
FULL_CHECK_SECONDS = 60.0
VERDICT_BATCH = 512
VERDICTS_ONE_BY_ONE = 64
PROGRESS_EVERY = 256
STAT_REUSE_SECONDS = 1.0
KEYS_PER_QUERY = 20_000
EVENT_BITS = 32

_FIELDS = tuple(dataclasses.fields(Metadata))
_PLAIN_FIELDS = tuple(field for field in _FIELDS if field.name != "goal")
_FIELD_NAMES = tuple(field.name for field in _PLAIN_FIELDS)
_ALL_FIELD_NAMES = tuple(field.name for field in _FIELDS)  # goal among them
_GOAL_INDEX = _ALL_FIELD_NAMES.index("goal")
_INT_FIELDS = frozenset(
    field.name for field in _PLAIN_FIELDS if field.type in (int, "int")
)  # annotations are strings under `from __future__ import annotations`
_GOAL_FIELDS = tuple(field.name for field in dataclasses.fields(Goal))
_GOAL_INT_FIELDS = frozenset(
    field.name for field in dataclasses.fields(Goal) if field.type in (int, "int")
)

Progress = Callable[[int, int], None]


def _delete_event_text(connection: sqlite3.Connection, session_key: int) -> None:
    """Drop one session's indexed events: the rowids `session_key << EVENT_BITS | n`."""
    low = session_key << EVENT_BITS
    connection.execute(
        "DELETE FROM event_text WHERE rowid BETWEEN ? AND ?", (low, low + (1 << EVENT_BITS) - 1)
    )


def _column(name: str) -> str:
    # No declared type, so no affinity: a value of the wrong type stays so (sqlite would
    # turn 5 into '5' in a TEXT column), and `_VALID_ROW` sees it and re-reads the file.
    return f"{name} NOT NULL"


_SCHEMA = f"""
CREATE TABLE info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sessions (
    key INTEGER PRIMARY KEY AUTOINCREMENT,
    {", ".join(_column(name) for name in _FIELD_NAMES)},
    goal,
    metadata_stat NOT NULL,
    metadata_digest NOT NULL,
    metadata_checked_ns NOT NULL,
    verdict,
    verdict_stat,
    verdict_checked_ns,
    log_identity,
    log_stat,
    log_checked_ns,
    log_offset INTEGER NOT NULL DEFAULT 0,
    log_tail,
    log_events INTEGER NOT NULL DEFAULT 0,
    compaction
);
CREATE UNIQUE INDEX sessions_by_id ON sessions (session_id);
CREATE INDEX sessions_log_check ON sessions (
    session_id, log_identity, log_stat, log_checked_ns, log_offset, log_events
);
CREATE INDEX sessions_verdicts ON sessions (session_id, verdict, verdict_stat, verdict_checked_ns);
CREATE VIRTUAL TABLE event_text USING fts5(
    body, sequence UNINDEXED, role UNINDEXED, event_id UNINDEXED,
    tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
);
"""

_VALID_ROW = " AND ".join(
    [
        *(
            f"typeof({name}) = '{'integer' if name in _INT_FIELDS else 'text'}'"
            for name in _FIELD_NAMES
        ),
        "(goal IS NULL OR typeof(goal) = 'text')",
        "typeof(metadata_stat) = 'text'",
        "typeof(metadata_digest) = 'blob'",
        "typeof(metadata_checked_ns) = 'integer'",
    ]
)


class _Bypass(Exception):
    """The database cannot be used: continue with an in-memory one."""


_SQLITE_CORRUPT = 11
_SQLITE_NOTADB = 26


def is_damaged(error: sqlite3.DatabaseError) -> bool:
    """The database file itself is broken (not busy, locked or read-only)."""
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB)
    return type(error) is sqlite3.DatabaseError


def _stat_key(info: os.stat_result) -> str:
    return f"{info.st_ino}:{info.st_size}:{info.st_mtime_ns}:{info.st_ctime_ns}"


def _changed_ns(info: os.stat_result) -> int:
    return max(info.st_mtime_ns, info.st_ctime_ns)


def _is_racy(changed_ns: int, checked_ns: int) -> bool:
    """Could a later change keep the same timestamps? (changed too close to the check)"""
    return changed_ns >= checked_ns - RACY_NS


def _same_file(info: os.stat_result | None, remembered: object, checked_ns: object) -> bool:
    """The file (`info`: its stat) is the one remembered (`remembered`: its `_stat_key` as
    taken at `checked_ns`), by the stat alone: never when it changed too close to that."""
    return (
        info is not None
        and isinstance(checked_ns, int)
        and remembered == _stat_key(info)
        and not _is_racy(_changed_ns(info), checked_ns)
    )


def _sql_lists(keys: Iterable[int]) -> Iterator[str]:
    """The distinct keys, ascending, as SQL lists of at most `KEYS_PER_QUERY`."""
    wanted = sorted({int(key) for key in keys})
    for start in range(0, len(wanted), KEYS_PER_QUERY):
        yield ",".join(map(str, wanted[start : start + KEYS_PER_QUERY]))


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def _regular_stat(path: str) -> os.stat_result | None:
    """stat of a regular file, else None (a FIFO or device is never opened)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info if stat.S_ISREG(info.st_mode) else None


def _metadata_of(columns: tuple[Any, ...]) -> Metadata | None:
    """A session from its columns (`_ALL_FIELD_NAMES`: Metadata's fields, in order), or
    None when its goal is not one."""
    if columns[_GOAL_INDEX] is None:
        return Metadata(*columns)
    values = list(columns)
    try:
        values[_GOAL_INDEX] = _goal_from_json(values[_GOAL_INDEX])
    except (ValueError, TypeError):
        return None
    return Metadata(*values)


def _goal_json(goal: Goal | None) -> str | None:
    if goal is None:
        return None
    return json.dumps({name: getattr(goal, name) for name in _GOAL_FIELDS}, ensure_ascii=False)


def _goal_from_json(text: str | None) -> Goal | None:
    if text is None:
        return None
    values = json.loads(text)
    if not isinstance(values, dict) or set(values) != set(_GOAL_FIELDS):
        raise ValueError("goal has the wrong shape")
    for name, value in values.items():
        expected = int if name in _GOAL_INT_FIELDS else str
        if type(value) is not expected:
            raise ValueError("goal has a wrong-typed field")
    return Goal(**values)


@dataclass(slots=True)
class _Known:
    """What the database remembers of one session's metadata."""

    key: int
    metadata: Metadata
    stat: str
    digest: bytes
    checked_ns: int


_Upsert = tuple[Metadata, str, bytes, int]  # metadata, its file's stat key, digest, check time
_LogCheck = tuple[object, object, object, object]  # a `_LOG_CHECK` row, without the session


class LogState(NamedTuple):
    """How far one session's log has been indexed (a tuple: one is built per session at
    every full check)."""

    identity: str | None
    stat: str | None
    checked_ns: int | None
    offset: int
    tail: bytes | None
    events: int


@dataclass(frozen=True, slots=True)
class UpdateReport:
    """What `update_content` did."""

    sessions: int
    indexed: int  # sessions whose text was (re)read
    events: int  # events added to the index
    complete: bool  # False when cancelled or when a session could not be written


class SessionCatalog:
    """The store's sessions and their text, remembered between runs; safe to share between
    threads (one connection, one lock) and between processes (sqlite)."""

    def __init__(self, store: SessionStore, cache_dir: Path | None = None) -> None:
        self.store = store
        root = os.path.abspath(store.root)
        root_digest = hashlib.sha256(os.fsencode(root)).hexdigest()[:20]
        self.path = (cache_dir or default_cache_dir()) / f"index-{root_digest}.sqlite3"
        self._root_text = os.fsencode(root).decode("utf-8", "replace")
        self._prefix = os.path.join(os.fspath(store.root), "")  # + session id: its directory
        self._lock = threading.RLock()
        self._connection: sqlite3.Connection | None = None
        self.persistent = True  # False once bypassed to an in-memory database
        self._known_cache: dict[str, _Known] | None = None  # this instance's view of the rows
        # as of the last `refresh`; after `revalidate`, those a text search has looked at
        self.unreadable: list[UnreadableSession] = []
        self._ids_by_key: dict[int, str] | None = None
        # Logs to look at on the next partial update: their metadata changed, or they were
        # indexed too recently for their timestamps to be trusted.
        self._logs_to_check: set[str] = set()
        # content verdicts: remembered per instance, written in batches (`save`)
        self._verdicts: dict[str, tuple[object, object, object]] | None = None
        self._verdicts_asked = 0  # one by one, before `_verdicts` is loaded
        self._pending_verdicts: list[tuple[int, str, int, str]] = []
        self.busy = False  # a write waited out the busy timeout: another process holds it
        self._all_logs_checked_at: float | None = None
        # the logs' last stats (`_log_stat`): (monotonic time, wall time, stat)
        self._log_stats: dict[str, tuple[float, int, os.stat_result | None]] = {}

    # --- the database ------------------------------------------------------------------

    @property
    def lock(self) -> threading.RLock:
        """Held around every use of `connection` (it is shared between threads)."""
        return self._lock

    @property
    def connection(self) -> sqlite3.Connection:
        with self._lock:
            if self._connection is None:
                self._connection = self._open()
            return self._connection

    def close(self) -> None:
        """Write the verdicts still pending and let go of the database."""
        self.save()
        self._disconnect()

    def _disconnect(self) -> None:
        with self._lock:
            if self._connection is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._connection.close()
                self._connection = None

    def __enter__(self) -> SessionCatalog:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _open(self) -> sqlite3.Connection:
        for attempt in range(2):
            try:
                return self._open_file()
            except sqlite3.OperationalError as error:
                if "locked" in str(error) or "busy" in str(error):
                    break  # another process is busy with it: leave it alone
                if attempt == 0:
                    self._remove_files()
            except (sqlite3.DatabaseError, _Bypass):
                if attempt == 0:
                    self._remove_files()
            except OSError:
                break
        return self._open_memory()

    def _open_file(self) -> sqlite3.Connection:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if self.path.exists() and not os.access(self.path, os.R_OK | os.W_OK):
            raise _Bypass("unwritable")
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        os.close(fd)
        connection = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
        try:
            connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()
            if mode is None or str(mode[0]).lower() != "wal":
                raise _Bypass("no WAL")
            connection.execute("PRAGMA synchronous = NORMAL")
            self._ensure_schema(connection)
        except BaseException:
            connection.close()
            raise
        self.persistent = True
        return connection

    def _open_memory(self) -> sqlite3.Connection:
        connection = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        self._create_schema(connection)
        self.persistent = False
        return connection

    def _ensure_schema(self, connection: sqlite3.Connection) -> None:
        tables = {
            row[0]
            for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        if not tables:
            connection.execute("BEGIN IMMEDIATE")
            try:
                if not connection.execute("SELECT 1 FROM sqlite_master").fetchone():
                    self._create_schema(connection, in_transaction=True)
                connection.execute("COMMIT")
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            return
        info: dict[str, str] = {}
        with contextlib.suppress(sqlite3.Error):
            info = dict(connection.execute("SELECT key, value FROM info").fetchall())
        if info.get("schema_version") != str(SCHEMA_VERSION) or info.get("root") != self._root_text:
            raise _Bypass("another schema or store")

    def _create_schema(
        self, connection: sqlite3.Connection, *, in_transaction: bool = False
    ) -> None:
        statements = [part for part in _SCHEMA.split(";") if part.strip()]
        if not in_transaction:
            connection.execute("BEGIN")
        for statement in statements:
            connection.execute(statement)
        connection.executemany(
            "INSERT INTO info (key, value) VALUES (?, ?)",
            [("schema_version", str(SCHEMA_VERSION)), ("root", self._root_text)],
        )
        if not in_transaction:
            connection.execute("COMMIT")

    def _remove_files(self) -> None:
        self._disconnect()
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(OSError):
                os.unlink(f"{self.path}{suffix}")

    def _bypass(self, error: sqlite3.DatabaseError | None = None) -> None:
        """Continue on a fresh database: the file rebuilt when `error` says it is damaged
        (found in use: a check of every page at each start would cost more than the
        query), else an in-memory one for this process."""
        with self._lock:
            self._disconnect()
            if error is not None and is_damaged(error):
                self._remove_files()
                self._connection = self._open()
            else:
                self._connection = self._open_memory()
            self._verdicts = None
            self._known_cache = None
            self._ids_by_key = None

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction. A database that fails for other reasons than being busy
        is given up for an in-memory one (raising `_Bypass` so the caller can start over)."""
        with self._lock:
            connection = self.connection
            try:
                connection.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as error:
                if "locked" in str(error) or "busy" in str(error):
                    self.busy = True
                    raise
                self._bypass(error)
                raise _Bypass(str(error)) from None
            try:
                yield connection
                connection.execute("COMMIT")
            except BaseException as error:
                with contextlib.suppress(sqlite3.Error):
                    connection.execute("ROLLBACK")
                if isinstance(error, sqlite3.DatabaseError):
                    if "locked" in str(error) or "busy" in str(error):
                        self.busy = True
                    else:
                        self._bypass(error)
                        raise _Bypass(str(error)) from None
                raise

    def _read(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[Any]:
        with self._lock:
            try:
                return self.connection.execute(sql, parameters).fetchall()
            except sqlite3.DatabaseError as error:
                self._bypass(error)
                return self.connection.execute(sql, parameters).fetchall()

    def use_private_index(self) -> None:
        """Go on with an index of this process's own, in memory: for a caller that must not
        answer from a shared database another process keeps busy (`busy`). Complete but
        slower, as every log is read again; the shared one is left as it is."""
        self._bypass()
        self.busy = False

    def recover(self, error: sqlite3.Error) -> None:
        """After a query failed on `error`: a damaged database is rebuilt (empty, to be
        filled by the next `refresh` and `update_content`)."""
        if isinstance(error, sqlite3.DatabaseError) and is_damaged(error):
            self._bypass(error)

    # --- the catalog -------------------------------------------------------------------

    def _known(self, where: str = "") -> dict[str, _Known]:
        """The remembered sessions (`where`: an SQL condition and AND, to pick some) whose
        values are all well typed (others are re-read)."""
        rows = self._read(
            f"SELECT {', '.join(_ALL_FIELD_NAMES)}, key, metadata_stat, metadata_digest, "
            f"metadata_checked_ns FROM sessions WHERE {where}{_VALID_ROW}"
        )
        known: dict[str, _Known] = {}
        width = len(_ALL_FIELD_NAMES)
        for row in rows:
            meta = _metadata_of(row[:width])
            if meta is not None:
                known[meta.session_id] = _Known(row[width], meta, *row[width + 1 :])
        return known

    def cached_sessions(self) -> list[Metadata]:
        """What the database remembers, in Zero's order, without touching the store."""
        try:
            return sort_sessions([entry.metadata for entry in self._known().values()])
        except sqlite3.Error:
            return []

    def save(self) -> None:
        """Write the content verdicts found since the last save (one transaction)."""
        with self._lock:
            pending, self._pending_verdicts = self._pending_verdicts, []
        if not pending:
            return
        try:
            with self._write() as connection:
                connection.executemany(
                    "UPDATE sessions SET verdict = ?, verdict_stat = ?, verdict_checked_ns = ? "
                    "WHERE session_id = ?",
                    pending,
                )
        except (sqlite3.Error, _Bypass):
            pass  # found again next time

    def refresh(self, progress: Progress | None = None) -> list[Metadata]:
        """Every valid session now in the store (Zero's List), re-reading only what changed;
        `progress(done, total)` is told of the sessions looked at, every few hundred."""
        return sort_sessions(self._revalidate(progress))

    def revalidate(self) -> None:
        """Bring the catalog's list of sessions up to date with the store's directories, as
        `refresh` does, without looking again at the metadata of the sessions it knows: a
        new session is read and catalogued, a gone one dropped.

        For a text search, which then loads only the sessions that match with
        `sessions_with_keys`, which looks again at each of them: at 10,000 sessions, a look
        at every metadata file costs more than the query. `unreadable` then lists the new
        sessions that could not be read, and those `recency_order` and `sessions_with_keys`
        find so."""
        self._log_stats.clear()  # a new look at the store: no stat from before it is reused
        try:
            rows = self._read("SELECT session_id, key FROM sessions")
        except sqlite3.Error:
            rows = []
        known: dict[str, int] = dict(rows)  # an ill-typed row is re-read when it is loaded
        names = list(self.store.iter_session_dirs())
        unreadable: list[UnreadableSession] = []
        upserts: list[_Upsert] = []
        for name in names:
            if name not in known:
                _, upsert, _ = self._check_metadata(name, None, unreadable)
                if upsert is not None:
                    upserts.append(upsert)
        listed = set(names)
        dropped = [key for session_id, key in known.items() if session_id not in listed]
        self.unreadable = []
        self._add_unreadable(unreadable)
        keys = self._remember(upserts, dropped)
        if keys is not None:  # what was read is the map of keys `session_ids_by_key` keeps
            ids_by_key = {key: name for name, key in known.items() if name in listed}
            self._ids_by_key = ids_by_key | {key: name for name, key in keys.items()}

    def sessions_with_keys(self, keys: Iterable[int]) -> list[Metadata]:
        """The catalogued sessions with these keys, in Zero's order, each looked at again
        (its metadata.json re-read if it changed; dropped if it is gone or unreadable)."""
        wanted = {int(key) for key in keys}
        entries: dict[str, _Known] = {}
        for listed in _sql_lists(wanted):
            try:
                entries.update(self._known(f"key IN ({listed}) AND "))
            except sqlite3.Error:
                return []
        to_check: list[tuple[str, _Known | None]] = list(entries.items())
        ill_typed = wanted - {entry.key for entry in entries.values()}
        if ill_typed:  # rows `_known` does not trust: read again from their files
            ids_by_key = self.session_ids_by_key()
            names = {ids_by_key[key] for key in ill_typed if key in ids_by_key}
            to_check += [(name, None) for name in sorted(names - entries.keys())]
        found: list[Metadata] = []
        upserts: list[_Upsert] = []
        dropped: list[int] = []
        unreadable: list[UnreadableSession] = []
        for name, entry in to_check:
            meta, upsert, kept = self._check_metadata(name, entry, unreadable)
            if meta is not None:
                found.append(meta)
            if upsert is not None:
                upserts.append(upsert)
            if entry is not None and not kept:
                dropped.append(entry.key)
        self._remember(upserts, dropped)
        self._add_unreadable(unreadable)
        return sort_sessions(found)

    def recency_order(self, keys: Iterable[int]) -> list[int]:
        """These catalogued sessions' keys in Zero's order, by each one's metadata as it is
        now, without loading them: every file is looked at (a stat), a changed one read
        again and remembered, a gone or unreadable one dropped and left out."""
        rows: list[Any] = []
        for listed in _sql_lists(keys):
            try:
                rows += self._read(
                    "SELECT key, session_id, updated_at, metadata_stat, metadata_checked_ns "
                    f"FROM sessions WHERE key IN ({listed}) AND typeof(session_id) = 'text'"
                )
            except sqlite3.Error:
                return []
        order: list[tuple[str, str, int]] = []
        upserts: list[_Upsert] = []
        dropped: list[int] = []
        unreadable: list[UnreadableSession] = []
        for session_key, name, updated_at, remembered, checked_ns in rows:
            looked = self._metadata_stat(name)
            if isinstance(updated_at, str) and _same_file(looked[1], remembered, checked_ns):
                order.append((updated_at, name, session_key))
                continue
            meta, upsert, kept = self._check_metadata(name, None, unreadable, looked)
            if upsert is not None:
                upserts.append(upsert)
            if meta is not None and kept:
                order.append((meta.updated_at, name, session_key))
            else:
                dropped.append(session_key)
        self._remember(upserts, dropped)
        self._add_unreadable(unreadable)
        sort_in_zero_order(order, itemgetter(0), itemgetter(1))
        return [session_key for _, _, session_key in order]

    def _add_unreadable(self, found: list[UnreadableSession]) -> None:
        if found:
            by_id = {item.session_id: item for item in [*self.unreadable, *found]}
            self.unreadable = sorted(by_id.values(), key=lambda item: item.session_id)

    def _metadata_stat(self, name: str) -> tuple[int, os.stat_result | None]:
        """The wall time just before, and the stat of, a session's metadata.json."""
        checked_ns = time.time_ns()
        return checked_ns, _regular_stat(f"{self._prefix}{name}/{METADATA_FILE}")

    def _check_metadata(
        self,
        name: str,
        entry: _Known | None,
        unreadable: list[UnreadableSession],
        looked: tuple[int, os.stat_result | None] | None = None,
    ) -> tuple[Metadata | None, _Upsert | None, bool]:
        """One session's metadata.json against what the catalog remembers of it (`entry`):
        (its metadata, None when unreadable; what to remember anew, if anything; whether
        the catalog keeps the session). An unreadable one is added to `unreadable`, in the
        store's words. `looked`: the file's `_metadata_stat`, when the caller took it."""
        checked_ns, info = looked or self._metadata_stat(name)
        if info is None:
            return self._cannot_read(name, unreadable)
        if entry is not None and _same_file(info, entry.stat, entry.checked_ns):
            return entry.metadata, None, True
        try:
            data = read_regular(f"{self._prefix}{name}/{METADATA_FILE}")
        except OSError:
            return self._cannot_read(name, unreadable)
        digest = _digest(data)
        if entry is not None and entry.digest == digest:
            meta = entry.metadata
        else:
            try:
                meta = Metadata.from_json(data)
            except (GoJSONError, StoreError, ValueError, RecursionError):
                return self._cannot_read(name, unreadable)
        if meta.session_id != name:
            # the catalog is keyed by directory: such a session is listed, not kept
            return meta, None, False
        # remember it (again): new, changed, or checked anew while racy
        self._logs_to_check.add(name)
        return meta, (meta, _stat_key(info), digest, checked_ns), True

    def _cannot_read(
        self, name: str, unreadable: list[UnreadableSession]
    ) -> tuple[None, None, bool]:
        """`_check_metadata`'s answer for a session it cannot read, noted in `unreadable`."""
        found = self.store.read_session(name)  # the reason, in the store's words
        if isinstance(found, UnreadableSession):
            unreadable.append(found)
        return None, None, False

    def _revalidate(self, progress: Progress | None) -> list[Metadata]:
        self._log_stats.clear()  # a new look at the store: no stat from before it is reused
        by_directory = self._known_cache
        if by_directory is None:
            try:
                by_directory = self._known()
            except sqlite3.Error:
                by_directory = {}
        sessions: list[Metadata] = []
        upserts: list[_Upsert] = []
        seen: set[str] = set()
        unreadable: list[UnreadableSession] = []
        names = list(self.store.iter_session_dirs())
        for done, name in enumerate(names):
            if progress is not None and done % PROGRESS_EVERY == 0:
                progress(done, len(names))
            meta, upsert, kept = self._check_metadata(name, by_directory.get(name), unreadable)
            if meta is not None:
                sessions.append(meta)
            if upsert is not None:
                upserts.append(upsert)
            if kept:
                seen.add(name)
        if progress is not None:
            progress(len(names), len(names))
        self.unreadable = []
        self._add_unreadable(unreadable)
        dropped = [entry.key for name, entry in by_directory.items() if name not in seen]
        keys = self._remember(upserts, dropped)
        if keys is not None:
            cache = {name: entry for name, entry in by_directory.items() if name in seen}
            for meta, key, digest, checked_ns in upserts:
                session_key = keys.get(meta.session_id)
                if session_key is None:
                    cache.pop(meta.session_id, None)
                else:
                    cache[meta.session_id] = _Known(session_key, meta, key, digest, checked_ns)
            self._known_cache = cache
        return sessions

    def _remember(self, upserts: list[_Upsert], dropped: list[int]) -> dict[str, int] | None:
        """Write what changed (`_store_metadata`) and forget the views of the rows it makes
        stale; the keys of the upserted sessions, or None when not written."""
        keys = self._store_metadata(upserts, dropped)
        if keys is None or keys or dropped:
            self._known_cache = None
        known_ids = self._ids_by_key
        if (
            keys is None
            or dropped
            or (known_ids is not None and not known_ids.keys() >= set(keys.values()))
        ):
            self._ids_by_key = None  # a key came or went (an update keeps its session's key)
        return keys

    def _store_metadata(self, upserts: list[_Upsert], dropped: list[int]) -> dict[str, int] | None:
        """Write the changes; the keys of the upserted sessions, or None when not written."""
        if not upserts and not dropped:
            return {}
        columns = ", ".join(_FIELD_NAMES)
        placeholders = ", ".join("?" for _ in _FIELD_NAMES)
        updates = ", ".join(
            f"{name} = excluded.{name}"
            for name in (
                *_FIELD_NAMES,
                "goal",
                "metadata_stat",
                "metadata_digest",
                "metadata_checked_ns",
            )
        )
        statement = (
            f"INSERT INTO sessions ({columns}, goal, metadata_stat, metadata_digest, "
            f"metadata_checked_ns) VALUES ({placeholders}, ?, ?, ?, ?) "
            f"ON CONFLICT (session_id) DO UPDATE SET {updates} RETURNING key"
        )
        keys: dict[str, int] = {}
        try:
            with self._write() as connection:
                for session_key in dropped:
                    self._drop(connection, session_key)
                for meta, key, digest, checked_ns in upserts:
                    values = [getattr(meta, name) for name in _FIELD_NAMES]
                    try:
                        row = connection.execute(
                            statement, (*values, _goal_json(meta.goal), key, digest, checked_ns)
                        ).fetchone()
                    except (UnicodeEncodeError, OverflowError):
                        continue  # not representable in sqlite: listed, re-read next time
                    keys[meta.session_id] = row[0]
        except (sqlite3.Error, _Bypass):
            return None  # a cache that cannot be written is skipped; the listing stays right
        return keys

    @staticmethod
    def _drop(connection: sqlite3.Connection, session_key: int) -> None:
        _delete_event_text(connection, session_key)
        connection.execute("DELETE FROM sessions WHERE key = ?", (session_key,))

    def has_content(self, session_id: str) -> bool:
        """has_resumable_content, remembered until the log changes."""
        # the verdict is dated by the stat it rests on: a reused stat must not look newer
        checked_ns, info = self._log_stat(session_id)
        if info is not None:
            remembered = self._remembered_verdict(session_id)
            if remembered is not None:
                verdict, verdict_stat, verdict_checked = remembered
                if verdict in (0, 1) and _same_file(info, verdict_stat, verdict_checked):
                    return bool(verdict)
        verdict_now = has_resumable_content(self.store, session_id)
        if info is not None:
            key = _stat_key(info)
            with self._lock:
                if self._verdicts is not None:
                    self._verdicts[session_id] = (int(verdict_now), key, checked_ns)
                self._pending_verdicts.append((int(verdict_now), key, checked_ns, session_id))
                flush = len(self._pending_verdicts) >= VERDICT_BATCH
            if flush:
                self.save()
        return verdict_now

    _VERDICT = "SELECT session_id, verdict, verdict_stat, verdict_checked_ns FROM sessions"

    def _remembered_verdict(self, session_id: str) -> tuple[object, object, object] | None:
        """(verdict, the log stat it rests on, when it was found) as the database has it:
        the first few sessions asked of one by one, then every session's at once (a search
        that matched a few sessions asks of those; the picker, of every session)."""
        with self._lock:
            if self._verdicts is None and self._verdicts_asked < VERDICTS_ONE_BY_ONE:
                self._verdicts_asked += 1
                try:
                    rows = self._read(f"{self._VERDICT} WHERE session_id = ?", (session_id,))
                except sqlite3.Error:
                    rows = []
                return (rows[0][1], rows[0][2], rows[0][3]) if rows else None
            if self._verdicts is None:
                try:
                    rows = self._read(self._VERDICT)
                except sqlite3.Error:
                    rows = []
                self._verdicts = {row[0]: (row[1], row[2], row[3]) for row in rows}
            return self._verdicts.get(session_id)

    # --- the text index ----------------------------------------------------------------

    def session_keys(self) -> dict[str, int]:
        """session id -> its key in the database."""
        return {session_id: key for key, session_id in self.session_ids_by_key().items()}

    def session_ids_by_key(self) -> dict[int, str]:
        """key -> session id, as this instance last saw the catalog."""
        with self._lock:
            if self._ids_by_key is None:
                try:
                    rows = self._read(
                        "SELECT key, session_id FROM sessions WHERE typeof(key) = 'integer'"
                    )
                except sqlite3.Error:
                    rows = []
                self._ids_by_key = {key: str(session_id) for key, session_id in rows}
            return self._ids_by_key

    def compactions(self, keys: Iterable[int]) -> dict[int, str]:
        """key -> the plan of the session's latest compaction (JSON), for those of these
        sessions that have one."""
        plans: dict[int, str] = {}
        for listed in _sql_lists(keys):
            try:
                rows = self._read(
                    f"SELECT key, compaction FROM sessions WHERE key IN ({listed}) "
                    "AND typeof(compaction) = 'text'"
                )
            except sqlite3.Error:
                return {}
            plans.update(rows)
        return plans

    def update_content(
        self,
        session_ids: list[str] | None = None,
        *,
        progress: Progress | None = None,
        cancelled: Callable[[], bool] = lambda: False,
        retry: bool = True,
    ) -> UpdateReport:
        """Bring the text index up to date for `session_ids` (default: every catalogued one).

        Call `refresh` first: only sessions in the catalog are indexed. Every log is looked
        at (a stat) on this instance's first update and then at least every
        `FULL_CHECK_SECONDS`; in between, only the logs whose metadata changed (Zero's
        writer rewrites it after every append and rewind) or that are still racy.
        """
        started = time.monotonic()
        full = (
            self._all_logs_checked_at is None
            or started - self._all_logs_checked_at > FULL_CHECK_SECONDS
        )
        try:
            checks = self._log_checks(None if full else sorted(self._logs_to_check))
        except sqlite3.Error:
            checks = {}
        wanted = list(checks) if session_ids is None else [s for s in session_ids if s in checks]
        indexed = events = 0
        complete = True
        prefix = self._prefix
        for done, session_id in enumerate(wanted):
            if cancelled():
                complete = False
                break
            if progress is not None and done % 64 == 0:
                progress(done, len(wanted))
            if _log_unchanged(self._log_stat(session_id)[1], checks[session_id]):
                self._logs_to_check.discard(session_id)
                continue
            self._logs_to_check.add(session_id)  # until its timestamps can be trusted
            try:
                added = self._index_session(session_id, cancelled)
            except sqlite3.OperationalError:
                complete = False  # busy beyond the timeout: each of the rest would wait as long
                break
            except _Bypass:
                if not retry:
                    return UpdateReport(len(wanted), indexed, events, False)
                # now in memory: every key changed, start over there once
                self.refresh()
                return self.update_content(
                    session_ids, progress=progress, cancelled=cancelled, retry=False
                )
            if added is None:
                complete = False
                break
            if added >= 0:
                indexed += 1
                events += added
            else:
                with self._lock:
                    check = self._log_checks([session_id]).get(session_id)
                if check is not None and _log_unchanged(
                    _regular_stat(f"{prefix}{session_id}/{EVENTS_FILE}"), check
                ):
                    self._logs_to_check.discard(session_id)  # settled
        if progress is not None and complete:
            progress(len(wanted), len(wanted))
        if full and complete and session_ids is None:
            self._all_logs_checked_at = started
        return UpdateReport(len(wanted), indexed, events, complete)

    def _log_stat(self, session_id: str) -> tuple[int, os.stat_result | None]:
        """The log's stat (None: not a regular file) and the wall time just before it was
        taken: one per log between two refreshes, if under a second old, so that a filter
        and the update next to it see the same files for one stat each."""
        now = time.monotonic()
        taken = self._log_stats.get(session_id)
        if taken is not None and now - taken[0] < STAT_REUSE_SECONDS:
            return taken[1], taken[2]
        checked_ns = time.time_ns()
        info = _regular_stat(f"{self._prefix}{session_id}/{EVENTS_FILE}")
        self._log_stats[session_id] = (now, checked_ns, info)
        return checked_ns, info

    # What `_log_unchanged` compares a log's stat with: its identity and stat as indexed,
    # when they were taken, and whether the state is well typed (an ill-typed one, or one
    # that counts events without a log, is never unchanged).
    _LOG_CHECK = (
        "SELECT session_id, log_identity, log_stat, log_checked_ns, "
        "typeof(log_offset) = 'integer' AND typeof(log_events) = 'integer' "
        "AND (log_identity IS NOT NULL OR log_events = 0) FROM sessions"
    )

    def _log_checks(self, session_ids: Iterable[str] | None) -> dict[str, _LogCheck]:
        """session id -> what its log was indexed as (`_LOG_CHECK`), for every catalogued
        session (`session_ids` None) or for these."""
        if session_ids is None:
            rows = self._read(self._LOG_CHECK)
        else:
            rows = []
            for session_id in session_ids:
                rows += self._read(f"{self._LOG_CHECK} WHERE session_id = ?", (session_id,))
        return {row[0]: row[1:] for row in rows if isinstance(row[0], str)}

    _STATE_COLUMNS = "key, log_identity, log_stat, log_checked_ns, log_offset, log_tail, log_events"

    def _log_state(self, session_id: str) -> tuple[int, LogState] | None:
        rows = self.connection.execute(
            f"SELECT {self._STATE_COLUMNS} FROM sessions WHERE session_id = ?", (session_id,)
        ).fetchall()
        return _state_of(rows[0]) if rows else None

    def _index_session(self, session_id: str, cancelled: Callable[[], bool]) -> int | None:
        """Index what is new in one log: -1 when it was up to date, None when cancelled,
        else the number of events added."""
        path = os.path.join(self.store.root, session_id, EVENTS_FILE)
        added = 0
        touched = False
        while True:
            with self._lock:
                found = self._log_state(session_id)
            if found is None:
                return added if touched else -1
            key, state = found
            checked_ns = time.time_ns()
            chunk = self._read_chunk(path, state, checked_ns)
            if chunk is None:
                return added if touched else -1
            result = self._commit_chunk(session_id, key, state, chunk)
            if result is None:
                continue  # another process moved this session on: look again
            if not touched and not chunk.reset and not chunk.data:
                return -1  # unchanged: only the time of this check was recorded
            added += result
            touched = True
            if chunk.info is None or chunk.offset >= chunk.info.st_size or not chunk.data:
                return added
            if cancelled():
                return None

    def _read_chunk(self, path: str, state: LogState, checked_ns: int) -> _Chunk | None:
        """The next complete lines to index, or None when the log has not changed."""
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            fd = -1
        try:
            info = os.fstat(fd) if fd >= 0 else None
            if info is not None and not stat.S_ISREG(info.st_mode):
                info = None
            plan = self._plan(fd, info, state, checked_ns)
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
            tail = _digest(os.pread(fd, offset - low, low)) if offset else None
            return _Chunk(reset, info, checked_ns, start, data, tail)
        finally:
            if fd >= 0:
                os.close(fd)

    @staticmethod
    def _plan(
        fd: int, info: os.stat_result | None, state: LogState, checked_ns: int
    ) -> tuple[int, bool] | None:
        """(offset to read from, whether to start over), or None when nothing changed."""
        if info is None:
            return (0, True) if state.identity is not None or state.events else None
        if state.identity != _log_identity(info) or info.st_size < state.offset:
            return 0, True
        if _same_file(info, state.stat, state.checked_ns):
            return None
        if state.offset:
            low = max(0, state.offset - TAIL_CHECK_BYTES)
            if state.tail != _digest(os.pread(fd, state.offset - low, low)):
                return 0, True  # rewritten in place
        # grown, or unchanged but racy: read on (nothing, maybe), recording the new check
        return state.offset, False

    def _commit_chunk(
        self, session_id: str, key: int, state: LogState, chunk: _Chunk
    ) -> int | None:
        """Write one chunk's events and the new state, if the state is still `state`."""
        texts = _line_texts(chunk.data)
        with self._write() as connection:
            current = self._log_state(session_id)
            if current is None or current != (key, state):
                return None
            low = key << EVENT_BITS
            count = 0 if chunk.reset else state.events
            compaction: str | bool | None = False  # False: unchanged
            if chunk.reset:
                _delete_event_text(connection, key)
                compaction = None
            rows: list[tuple[int, str, int, str, str]] = []
            for line, text in texts:
                count += 1
                if text is None or count >= 1 << EVENT_BITS:
                    continue
                rows.append((low | count, text.text, text.sequence, text.role, text.event_id))
                if text.event_type == "session_compaction":
                    compaction = _compaction_json(line, session_id)
            connection.executemany(
                "INSERT INTO event_text (rowid, body, sequence, role, event_id) "
                "VALUES (?, ?, ?, ?, ?)",
                rows,
            )
            info = chunk.info
            values: tuple[Any, ...] = (None, None, None, 0, None, 0)
            if info is not None:
                values = (
                    _log_identity(info),
                    _stat_key(info),
                    chunk.checked_ns,
                    chunk.offset,
                    chunk.tail,
                    count,
                )
            connection.execute(
                "UPDATE sessions SET log_identity = ?, log_stat = ?, log_checked_ns = ?, "
                "log_offset = ?, log_tail = ?, log_events = ? WHERE key = ?",
                (*values, key),
            )
            if compaction is not False:
                connection.execute(
                    "UPDATE sessions SET compaction = ? WHERE key = ?", (compaction, key)
                )
            return len(rows)


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


def _line_texts(data: bytes) -> list[tuple[bytes, EventText | None]]:
    """Each non-blank line of `data` (complete lines) with its searchable text."""
    found: list[tuple[bytes, EventText | None]] = []
    for piece in data.split(b"\n"):
        content = piece if piece[:1] == b"{" and piece[-1:] == b"}" else trim_space_bytes(piece)
        if content:
            found.append((content, line_text(content)))
    return found


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
    key, identity, log_stat, checked, offset, tail, count = row
    if not isinstance(key, int):
        return None
    if not (isinstance(offset, int) and isinstance(count, int)):
        return key, LogState(None, None, None, 0, None, 0)
    return key, LogState(
        identity if isinstance(identity, str) else None,
        log_stat if isinstance(log_stat, str) else None,
        checked if isinstance(checked, int) else None,
        max(0, offset),
        tail if isinstance(tail, bytes) else None,
        max(0, count),
    )


def _log_identity(info: os.stat_result) -> str:
    return f"{info.st_dev}:{info.st_ino}"


def _log_unchanged(info: os.stat_result | None, check: _LogCheck) -> bool:
    """The log (`info`: its stat, None when it is not a regular file) is as indexed
    (`check`: from `_LOG_CHECK`), by the stat alone."""
    identity, stat_key, indexed_ns, well_typed = check
    if not well_typed:
        return False
    if info is None:
        return identity is None
    return identity == _log_identity(info) and _same_file(info, stat_key, indexed_ns)
