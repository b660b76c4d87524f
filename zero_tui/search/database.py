"""The catalog's sqlite database: where it is, its schema, and what happens when it fails.

One database per store in zero-tui's cache dir (`zero_tui.paths`), in WAL mode, with named
columns and a schema version. The text is indexed twice, and kept by neither index (the
logs are the source of truth: a hit's event is read again from its log). `event_text`
holds one contentless row per event of what a person said, by words (ranking, phrases),
whose id is `text key << EVENT_BITS | offset of its line in the log`. For substrings, the
distinct words of every event's values (what whitespace separates) are a vocabulary,
`value_words`, each word once for the whole store, indexed by trigrams (`word_grams`), and
`word_sessions` says which sessions' logs hold each word: a query's word, having no
whitespace, is inside a session's values if and only if it is inside one of its words. A
session's `text_key` is new whenever its log is indexed anew, so what was indexed of a
log's earlier version (or of a dropped session) belongs to no session and is never found.
A missing, corrupt, foreign, read-only or version-mismatched database is rebuilt, or
bypassed with an in-memory one. Two processes may share it: writes are short transactions
(WAL, a busy timeout), and a write that waited the timeout out sets `busy` rather than
giving the database up.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from zero_tui.paths import default_cache_dir
from zero_tui.store import Metadata
from zero_tui.store.models import RESUMABLE_KINDS

SCHEMA_VERSION = 8
BUSY_TIMEOUT_MS = 5000
KEYS_PER_QUERY = 20_000
EVENT_BITS = 32  # an indexed line's rowid: text key << EVENT_BITS | its offset in the log

METADATA_COLUMNS = tuple(
    field.name for field in dataclasses.fields(Metadata) if field.name != "goal"
)  # the goal is a column of its own, as JSON


def _column(name: str) -> str:
    # No declared type, so no affinity: a value of the wrong type stays so (sqlite would
    # turn 5 into '5' in a TEXT column), and the metadata cache sees it and re-reads the file.
    return f"{name} NOT NULL"


RANKED_COLUMNS = ("key", "session_id", "updated_at", "cwd", "session_kind", "event_count")
INDEXED_VERDICT = "CASE WHEN verdict IN (0, 1) AND verdict_stat = log_stat THEN verdict END"


def typed(columns: Iterable[str]) -> str:
    """SQL: these columns hold values of the types Metadata gives them."""
    return " AND ".join(
        f"typeof({name}) = '{'integer' if name in ('key', 'event_count') else 'text'}'"
        for name in columns
    )


LISTING_EXCEPTION = (
    f"NOT ({typed(RANKED_COLUMNS)}) "
    f"OR session_kind NOT IN ({', '.join(repr(kind) for kind in sorted(RESUMABLE_KINDS))}) "
    f"OR event_count <= 0 OR {INDEXED_VERDICT} IS NOT 1"
)
"""SQL: a row a listing may leave out whatever its workspace (another kind, no events, no
resumable content in its log as last indexed, or no verdict yet), or an ill-typed one. A
partial index keeps these few, so that a search reads them alone, not every row."""


_SCHEMA = f"""
CREATE TABLE info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sessions (
    key INTEGER PRIMARY KEY AUTOINCREMENT,
    {", ".join(_column(name) for name in METADATA_COLUMNS)},
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
    log_check,
    compaction,
    text_key
);
CREATE UNIQUE INDEX sessions_by_id ON sessions (session_id);
CREATE INDEX sessions_log_check ON sessions (session_id, log_check, log_offset, log_events);
CREATE INDEX sessions_recency ON sessions (updated_at DESC, session_id);
CREATE INDEX sessions_by_cwd ON sessions (cwd);
CREATE INDEX sessions_listing_exceptions ON sessions (key) WHERE {LISTING_EXCEPTION};
CREATE UNIQUE INDEX sessions_by_text_key ON sessions (text_key) WHERE text_key IS NOT NULL;
CREATE VIRTUAL TABLE event_text USING fts5(
    body, content = '', tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TABLE session_tokens (
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
);
"""
# The words are lower-cased already (`content.go_lower`).
_GRAMS_SCHEMA = """
CREATE TABLE value_words (id INTEGER PRIMARY KEY, word TEXT NOT NULL UNIQUE);
CREATE VIRTUAL TABLE word_grams USING fts5(
    word, content = '', columnsize = 0, tokenize = 'trigram case_sensitive 1'
);
CREATE TABLE word_sessions (
    word_id INTEGER NOT NULL,
    text_key INTEGER NOT NULL,
    PRIMARY KEY (word_id, text_key)
) WITHOUT ROWID;
"""


@functools.cache
def trigrams_supported() -> bool:
    """Whether this sqlite has FTS5's trigram tokenizer (3.34 and later)."""
    try:
        with contextlib.closing(sqlite3.connect(":memory:")) as probe:
            probe.execute("CREATE VIRTUAL TABLE probe USING fts5(body, tokenize = 'trigram')")
    except sqlite3.Error:
        return False
    return True


Result = TypeVar("Result")
Other = TypeVar("Other")


def _schema_version() -> str:
    """The version the database is written with: without trigrams it is another schema,
    rebuilt once an sqlite that has them opens it."""
    return str(SCHEMA_VERSION) if trigrams_supported() else f"{SCHEMA_VERSION}-words"


class Bypassed(Exception):
    """The database cannot be used, or was given up for an in-memory one: start over."""


_SQLITE_CORRUPT = 11
_SQLITE_NOTADB = 26


def is_damaged(error: sqlite3.DatabaseError) -> bool:
    """The database file itself is broken (not busy, locked or read-only)."""
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB)
    return type(error) is sqlite3.DatabaseError


def _is_busy(error: sqlite3.Error) -> bool:
    return "locked" in str(error) or "busy" in str(error)


def sql_lists(keys: Iterable[int]) -> Iterator[str]:
    """The distinct keys, ascending, as SQL lists of at most `KEYS_PER_QUERY`."""
    wanted = sorted({int(key) for key in keys})
    for start in range(0, len(wanted), KEYS_PER_QUERY):
        yield ",".join(map(str, wanted[start : start + KEYS_PER_QUERY]))


def new_text_key(connection: sqlite3.Connection) -> int:
    """A text key no session of this database has had (in the caller's write transaction):
    the rows indexed under an earlier one are never found again."""
    connection.execute("UPDATE info SET value = CAST(value AS INTEGER) + 1 WHERE key = 'text_keys'")
    row = connection.execute("SELECT value FROM info WHERE key = 'text_keys'").fetchone()
    if row is None:
        raise sqlite3.DatabaseError("the info table has no text_keys")
    return int(row[0])


ORPHANS_FLOOR = 50_000  # events: below this, orphaned index rows are left alone


def add_orphans(connection: sqlite3.Connection, events: int) -> None:
    """Count `events` indexed rows that no session finds any more (a log indexed anew, a
    session dropped), in the caller's write transaction."""
    if events > 0:
        connection.execute(
            "INSERT INTO info (key, value) VALUES ('orphan_events', ?) ON CONFLICT (key) "
            "DO UPDATE SET value = CAST(value AS INTEGER) + excluded.value",
            (str(events),),
        )


def orphans_outweigh_live(connection: sqlite3.Connection) -> bool:
    """Whether most rows of the text index belong to no session (and there are enough of
    them to matter): then a rebuild makes it smaller and its queries faster."""
    row = connection.execute("SELECT value FROM info WHERE key = 'orphan_events'").fetchone()
    orphans = int(row[0]) if row is not None and str(row[0]).isdigit() else 0
    if orphans < ORPHANS_FLOOR:
        return False
    live = connection.execute(
        "SELECT coalesce(sum(log_events), 0) FROM sessions WHERE text_key IS NOT NULL"
    ).fetchone()[0]
    return orphans > int(live)


def catalog_path(store_root: Path, cache_dir: Path | None = None) -> Path:
    """Where the catalog of the store at `store_root` is kept (in `cache_dir`, default
    zero-tui's cache): a file named by a digest of the store's absolute path."""
    root_digest = hashlib.sha256(os.fsencode(os.path.abspath(store_root))).hexdigest()[:20]
    return (cache_dir or default_cache_dir()) / f"index-{root_digest}.sqlite3"


class CatalogDatabase:
    """One store's database: one connection shared between threads under one lock, opened
    on first use, replaced by a fresh one when it fails (see `when_replaced`)."""

    def __init__(self, store_root: Path, cache_dir: Path | None = None) -> None:
        root = os.path.abspath(store_root)
        self.path = catalog_path(store_root, cache_dir)
        self._root_text = os.fsencode(root).decode("utf-8", "replace")
        self._lock = threading.RLock()
        self._connection: sqlite3.Connection | None = None
        self._on_replaced: list[Callable[[], None]] = []
        self.persistent = True  # False once bypassed to an in-memory database
        self.busy = False  # a write waited out the busy timeout: another process holds it
        self._second: sqlite3.Connection | None = None  # `side_by_side`'s, opened on first use

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

    def when_replaced(self, forget: Callable[[], None]) -> None:
        """Call `forget` (under the lock) whenever the database is replaced by a fresh one:
        what was read from the old one no longer holds (its keys, its verdicts)."""
        self._on_replaced.append(forget)

    def close(self) -> None:
        with self._lock:
            for connection in (self._connection, self._second):
                if connection is not None:
                    with contextlib.suppress(sqlite3.Error):
                        connection.close()
            self._connection = self._second = None

    def side_by_side(
        self,
        here: Callable[[sqlite3.Connection], Result],
        beside: Callable[[sqlite3.Connection], Other],
        *,
        at_once: bool = True,
    ) -> tuple[Result, Other]:
        """`here(connection)` and `beside(a second connection)` at the same time: sqlite lets
        go of the GIL while a query runs, so two full-text queries take the time of the
        longer one on two CPUs (a search's word and substring queries). One after the other
        when not `at_once`, or where the database is in memory (no second connection sees
        it)."""
        with self._lock:
            connection = self.connection
            second = self._second_connection() if at_once else None
            if second is None:
                return here(connection), beside(connection)
            found: list[Other] = []
            failed: list[BaseException] = []

            def run_beside() -> None:
                try:
                    found.append(beside(second))
                except BaseException as error:  # raised here, once both are done
                    failed.append(error)

            thread = threading.Thread(target=run_beside, name="catalog-side-by-side")
            thread.start()
            try:
                first = here(connection)
            finally:
                thread.join()
            if failed:
                raise failed[0]
            return first, found[0]

    def _second_connection(self) -> sqlite3.Connection | None:
        if self._second is None and self.persistent:
            try:
                second = sqlite3.connect(
                    self.path,
                    timeout=BUSY_TIMEOUT_MS / 1000,
                    isolation_level=None,
                    check_same_thread=False,
                )
                second.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            except sqlite3.Error:
                return None
            self._second = second
        return self._second

    # --- reading and writing -------------------------------------------------------------

    def version(self) -> tuple[int, int]:
        """Changes when another connection (another process) commits a write, or when the
        database is replaced: an answer read before stands only while it is the same
        (`PRAGMA data_version`; this connection's own writes do not change it)."""
        with self._lock:
            connection = self.connection
            try:
                row = connection.execute("PRAGMA data_version").fetchone()
            except sqlite3.Error:
                row = None
            return id(connection), row[0] if row is not None else -1

    def read(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[Any]:
        """The rows of one query; a damaged database is rebuilt and asked again."""
        with self._lock:
            try:
                return self.connection.execute(sql, parameters).fetchall()
            except sqlite3.DatabaseError as error:
                self._bypass(error)
                return self.connection.execute(sql, parameters).fetchall()

    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction. A database that fails for other reasons than being busy
        is given up for an in-memory one (raising `Bypassed` so the caller can start over)."""
        with self._lock:
            connection = self.connection
            try:
                connection.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as error:
                if _is_busy(error):
                    self.busy = True
                    raise
                self._bypass(error)
                raise Bypassed(str(error)) from None
            try:
                yield connection
                connection.execute("COMMIT")
            except BaseException as error:
                with contextlib.suppress(sqlite3.Error):
                    connection.execute("ROLLBACK")
                if isinstance(error, sqlite3.DatabaseError):
                    if _is_busy(error):
                        self.busy = True
                    else:
                        self._bypass(error)
                        raise Bypassed(str(error)) from None
                raise

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

    def _bypass(self, error: sqlite3.DatabaseError | None = None) -> None:
        """Continue on a fresh database: the file rebuilt when `error` says it is damaged
        (found in use: a check of every page at each start would cost more than the
        query), else an in-memory one for this process."""
        with self._lock:
            self.close()
            if error is not None and is_damaged(error):
                self._remove_files()
                self._connection = self._open()
            else:
                self._connection = self._open_memory()
            for forget in self._on_replaced:
                forget()

    # --- opening -------------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        for attempt in range(2):
            try:
                return self._open_file()
            except sqlite3.OperationalError as error:
                if _is_busy(error):
                    break  # another process is busy with it: leave it alone
                if attempt == 0:
                    self._remove_files()
            except (sqlite3.DatabaseError, Bypassed):
                if attempt == 0:
                    self._remove_files()
            except OSError:
                break
        return self._open_memory()

    def _open_file(self) -> sqlite3.Connection:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if self.path.exists() and not os.access(self.path, os.R_OK | os.W_OK):
            raise Bypassed("unwritable")
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        os.close(fd)
        connection = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
        try:
            connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()
            if mode is None or str(mode[0]).lower() != "wal":
                raise Bypassed("no WAL")
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
        if info.get("schema_version") != _schema_version() or info.get("root") != self._root_text:
            raise Bypassed("another schema or store")

    def _create_schema(
        self, connection: sqlite3.Connection, *, in_transaction: bool = False
    ) -> None:
        schema = _SCHEMA + (_GRAMS_SCHEMA if trigrams_supported() else "")
        statements = [part for part in schema.split(";") if part.strip()]
        if not in_transaction:
            connection.execute("BEGIN")
        for statement in statements:
            connection.execute(statement)
        connection.executemany(
            "INSERT INTO info (key, value) VALUES (?, ?)",
            [("schema_version", _schema_version()), ("root", self._root_text), ("text_keys", "0")],
        )
        if not in_transaction:
            connection.execute("COMMIT")

    def _remove_files(self) -> None:
        self.close()
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(OSError):
                os.unlink(f"{self.path}{suffix}")
