"""The catalog's copy of every session's metadata.json, revalidated before it is trusted.

Every entry is looked at again (a stat) before it is used, and a racy one (see
`file_identity`) compared by content (a digest of metadata.json). The only unvalidated
read is `cached_sessions`, for a first paint, and `ranking_rows`, for a text search to
rank and count its matches by. A text search (`revalidate`) lists the directories only,
and looks again at the sessions it goes on to show (`sessions_with_keys`): at 10,000
sessions a look at every metadata file costs more than the query. Wrong-typed values in
the database are ignored and re-read.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import starmap
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from zero_tui import forked
from zero_tui.search import file_identity
from zero_tui.search.database import (
    INDEXED_VERDICT,
    LISTING_EXCEPTION,
    METADATA_COLUMNS,
    RANKED_COLUMNS,
    Bypassed,
    CatalogDatabase,
    delete_event_text,
    sql_lists,
    typed,
    write_alone,
)
from zero_tui.search.file_identity import LogStats, identity_of, regular_stat
from zero_tui.store import Goal, Metadata, SessionStore, StoreError
from zero_tui.store.gojson import GoJSONError
from zero_tui.store.resumable import has_resumable_content, log_has_resumable_content
from zero_tui.store.store import (
    EVENTS_FILE,
    METADATA_FILE,
    NotRegularFileError,
    UnreadableSession,
    read_regular,
    read_regular_stat,
    sort_sessions,
)
from zero_tui.store.workspace import workspace_matches

if TYPE_CHECKING:
    from zero_tui.search.session_tokens import CountedTokens

PROGRESS_EVERY = 256
_ROOT_LISTING = "root_listing"  # the info row: the root's stat when it was last listed

Progress = Callable[[int, int], None]

_FIELD_NAMES = tuple(field.name for field in dataclasses.fields(Metadata))  # goal among them
_GOAL_INDEX = _FIELD_NAMES.index("goal")
_INT_COLUMNS = frozenset(
    field.name
    for field in dataclasses.fields(Metadata)
    if field.name in METADATA_COLUMNS and field.type in (int, "int")
)  # annotations are strings under `from __future__ import annotations`
_GOAL_FIELDS = tuple(field.name for field in dataclasses.fields(Goal))
_GOAL_INT_FIELDS = frozenset(
    field.name for field in dataclasses.fields(Goal) if field.type in (int, "int")
)
_VALID_ROW = " AND ".join(
    [
        *(
            f"typeof({name}) = '{'integer' if name in _INT_COLUMNS else 'text'}'"
            for name in METADATA_COLUMNS
        ),
        "(goal IS NULL OR typeof(goal) = 'text')",
        "typeof(metadata_stat) = 'text'",
        "typeof(metadata_digest) = 'blob'",
        "typeof(metadata_checked_ns) = 'integer'",
    ]
)
_REMEMBERED_COLUMNS = (
    *METADATA_COLUMNS,
    "goal",
    "metadata_stat",
    "metadata_digest",
    "metadata_checked_ns",
)
_UPSERT = (
    f"INSERT INTO sessions ({', '.join(_REMEMBERED_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in _REMEMBERED_COLUMNS)}) ON CONFLICT (session_id) DO UPDATE "
    f"SET {', '.join(f'{name} = excluded.{name}' for name in _REMEMBERED_COLUMNS)}"
)
_JUDGED_COLUMNS = (*_REMEMBERED_COLUMNS, "verdict", "verdict_stat", "verdict_checked_ns")
_UPSERT_JUDGED = (
    f"INSERT INTO sessions ({', '.join(_JUDGED_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in _JUDGED_COLUMNS)}) ON CONFLICT (session_id) DO UPDATE "
    f"SET {', '.join(f'{name} = excluded.{name}' for name in _JUDGED_COLUMNS)}"
)
_metadata_values = attrgetter(*METADATA_COLUMNS)


def _write_rows(connection: sqlite3.Connection, sql: str, rows: list[tuple[Any, ...]]) -> None:
    """`sql` for every row, in one go; one by one when a value sqlite cannot hold (it
    skips only its row, which is read again next time)."""
    if not rows:
        return
    try:
        connection.executemany(sql, rows)
    except (UnicodeEncodeError, OverflowError):
        for row in rows:
            with contextlib.suppress(UnicodeEncodeError, OverflowError):
                connection.execute(sql, row)


def _write_changes(
    looked: _Looked, connection: sqlite3.Connection, *, keys: bool = True
) -> dict[str, int]:
    """Write what a look found, in the caller's transaction (a forked child's connection,
    or this process's); the keys of the upserted sessions, with `keys`."""
    for session_key in looked.dropped:
        delete_event_text(connection, session_key)
        connection.execute("DELETE FROM sessions WHERE key = ?", (session_key,))
    plain: list[tuple[Any, ...]] = []
    judged: list[tuple[Any, ...]] = []  # with the verdict on the log, read with it
    for meta, stat_key, digest, checked_ns, verdict in looked.upserts:
        row = (*_metadata_values(meta), _goal_json(meta.goal), stat_key, digest)
        if verdict is None:
            plain.append((*row, checked_ns))
        else:
            judged.append((*row, checked_ns, *verdict))
    _write_rows(connection, _UPSERT, plain)
    _write_rows(connection, _UPSERT_JUDGED, judged)
    from zero_tui.search.session_tokens import write_tokens  # not for a search's start

    write_tokens(connection, looked.tokens)
    return _keys_of(connection, [meta.session_id for meta, *_ in looked.upserts]) if keys else {}


def _new_upsert(name: str, read: _Read) -> _Upsert | None:
    """What the catalog remembers of a new session as read (`_check_metadata`'s), if
    anything: not of one unreadable, nor of one whose id is not its directory's."""
    checked_ns, key, digest, meta, verdict, _ = read
    if key is None or digest is None or meta is None or meta.session_id != name:
        return None
    return meta, key, digest, checked_ns, verdict


def _write_reads_alone(path: Path, names: Sequence[str], reads: list[_Read]) -> None:
    """A forked child's follow-up: what it read of new sessions, written by itself."""
    looked = _Looked()
    for name, read in zip(names, reads, strict=True):
        upsert = _new_upsert(name, read)
        if upsert is not None:
            looked.keep(upsert, read)
    write_alone(path, partial(_write_changes, looked, keys=False))


_FEW_KEYS = 256  # upserts whose keys are looked up one by one rather than all read


def _keys_of(connection: sqlite3.Connection, session_ids: list[str]) -> dict[str, int]:
    """The keys of these sessions, those written."""
    if len(session_ids) > _FEW_KEYS:
        wanted = set(session_ids)
        found = connection.execute("SELECT session_id, key FROM sessions").fetchall()
        return {session_id: key for session_id, key in found if session_id in wanted}
    keys: dict[str, int] = {}
    for session_id in session_ids:
        try:
            row = connection.execute(
                "SELECT key FROM sessions WHERE session_id = ?", (session_id,)
            ).fetchone()
        except UnicodeEncodeError:
            continue
        if row is not None:
            keys[session_id] = row[0]
    return keys


def _metadata_of(columns: tuple[Any, ...]) -> Metadata | None:
    """A session from its columns (`_FIELD_NAMES`: Metadata's fields, in order), or None
    when its goal is not one."""
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


class RankingRow(NamedTuple):
    """What the catalog remembers of a session to rank and count it without reading it."""

    key: int
    session_id: str
    updated_at: str
    cwd: str
    session_kind: str
    event_count: int
    verdict: int | None  # has resumable content (0 or 1), found for the log as last indexed
    # read only for a query that filters on them
    title: str = ""
    model_id: str = ""
    provider: str = ""
    log_seen: int | None = None  # 1: the log was a file at its last check (exceptions only)


_FILTERED_COLUMNS = ("title", "model_id", "provider")


def _ranking_rows_sql(filtered: bool) -> str:
    extra = _FILTERED_COLUMNS if filtered else ()
    return (
        f"SELECT {', '.join(RANKED_COLUMNS)}, {INDEXED_VERDICT}"
        f"{''.join(', ' + name for name in extra)} FROM sessions "
        f"WHERE {typed((*RANKED_COLUMNS, *extra))}"
    )


_RANKING_ROWS = {filtered: _ranking_rows_sql(filtered) for filtered in (False, True)}
# the sessions a listing may leave out whatever their workspace, and the ill-typed ones
_EXCEPTIONS = (
    f"SELECT {', '.join(RANKED_COLUMNS)}, {INDEXED_VERDICT}, '', '', '', "
    f"length(log_check) > 0, {typed(RANKED_COLUMNS)} "
    f"FROM sessions WHERE {LISTING_EXCEPTION}"  # as the partial index has it, to use it
)
_IN_ZERO_ORDER = (
    "SELECT group_concat(key) FROM (SELECT key FROM sessions WHERE typeof(updated_at) = 'text' "
    "AND typeof(session_id) = 'text' ORDER BY updated_at DESC, session_id)"
)


_Verdict = tuple[int, str, int]  # has resumable content (0/1), the log's stat key, check time
_LogTokens = tuple[str, int, tuple[int, ...]]  # the log's stat key, check time, its figures
_Read = tuple[
    int,
    str | None,
    bytes | None,
    Metadata | None,
    _Verdict | None,
    _LogTokens | None,
]
"""A new session's metadata.json as read: the wall time before its stat, the stat's key (None:
not a regular file; a key, not the stat, as a forked child sends 5,000 back), the digest of
its bytes (None: unreadable), the metadata (None: invalid),
the verdict on its log when it was asked for (None: not asked, or no log), and the log's
tokens when they were asked for (None: not asked, no log, or not countable)."""


@dataclass(frozen=True, slots=True)
class _LogQuestions:
    """What a read of new sessions also asks of each one's log: its verdict (`store`), and
    with `tokens` its tokens, found in one read of the whole log."""

    store: SessionStore
    tokens: bool = False


def _read_metadata(
    prefix: str,
    name: str,
    stat_now: tuple[int, os.stat_result | None] | None = None,
    questions: _LogQuestions | None = None,
) -> _Read:
    """Read a new session's metadata.json, and with `questions`, what they ask of its log,
    for a session a listing would ask it of."""
    path = f"{prefix}{name}/{METADATA_FILE}"
    info: os.stat_result | None
    if stat_now is None:  # the stat of the file read, from the same open
        checked_ns = time.time_ns()
        try:
            info, data = read_regular_stat(path)
        except NotRegularFileError:
            return checked_ns, None, None, None, None, None
        except OSError:  # gone, or there but unreadable: what a stat says of it
            return checked_ns, _key_of(regular_stat(path)), None, None, None, None
    else:
        checked_ns, info = stat_now
        if info is None:
            return checked_ns, None, None, None, None, None
        try:
            data = read_regular(path)
        except OSError:
            return checked_ns, file_identity.stat_key(info), None, None, None, None
    try:
        meta = Metadata.from_json(data)
    except (GoJSONError, StoreError, ValueError, RecursionError):
        meta = None
    verdict = tokens = None
    if (
        questions is not None
        and meta is not None
        and meta.is_resumable_kind
        and meta.event_count > 0
    ):
        verdict, tokens = _log_answers(questions, f"{prefix}{name}/{EVENTS_FILE}", name)
    key = file_identity.stat_key(info)
    return checked_ns, key, file_identity.digest(data), meta, verdict, tokens


def _key_of(info: os.stat_result | None) -> str | None:
    return None if info is None else file_identity.stat_key(info)


def _log_answers(
    questions: _LogQuestions, path: str, name: str
) -> tuple[_Verdict | None, _LogTokens | None]:
    """has_resumable_content of a session's log, and its tokens when asked, each dated by
    the log's stat taken before it was read (as `ContentVerdicts` dates its own); None
    when there is no log file (or its tokens cannot be counted)."""
    checked_ns = time.time_ns()
    if questions.tokens:
        try:
            info, data = read_regular_stat(path)
        except OSError:  # not a file, or unreadable: the verdict alone, as without tokens
            pass
        else:
            key = file_identity.stat_key(info)
            verdict = int(log_has_resumable_content(data, name)), key, checked_ns
            try:
                return verdict, (key, checked_ns, _logged_figures(data, name))
            except StoreError:
                return verdict, None
    log_info = regular_stat(path)
    if log_info is None:
        return None, None
    resumable = int(has_resumable_content(questions.store, name))
    return (resumable, file_identity.stat_key(log_info), checked_ns), None


def _logged_figures(data: bytes, name: str) -> tuple[int, ...]:
    from zero_tui.store.usage import logged_tokens  # not for a search's start

    return logged_tokens(data, name).figures()


def _scaled(progress: Progress | None, part: int, total: int) -> Progress | None:
    """`progress` told of `part` of `total` items as if they were all of them; None when
    there is no part to tell of."""
    if progress is None or not part:
        return None
    return lambda done, _: progress(done * total // part, total)


def _read_many(prefix: str, questions: _LogQuestions | None, names: Sequence[str]) -> list[_Read]:
    return [_read_metadata(prefix, name, questions=questions) for name in names]


_UNSET: Any = object()


@dataclass(slots=True)
class _Known:
    """What the database remembers of one session's metadata."""

    key: int
    metadata: Metadata
    stat: str
    digest: bytes
    checked_ns: int
    # the file's identity when a stat alone can say it is unchanged (`same_file`), found
    # on the first look: None when it cannot
    identity: tuple[int, ...] | None = dataclasses.field(default=_UNSET, compare=False)

    def trusted(self) -> tuple[int, ...] | None:
        identity = self.identity
        if identity is _UNSET:
            identity = self.identity = file_identity.trusted_identity(self.stat, self.checked_ns)
        return identity


# metadata, its file's stat key, digest, check time; the verdict on the log read with it
_Upsert = tuple[Metadata, str, bytes, int, _Verdict | None]


@dataclass(slots=True)
class _Looked:
    """What one look at some sessions' metadata files found, to write in one transaction."""

    upserts: list[_Upsert] = dataclasses.field(default_factory=list)
    dropped: list[int] = dataclasses.field(default_factory=list)
    unreadable: list[UnreadableSession] = dataclasses.field(default_factory=list)
    tokens: list[CountedTokens] = dataclasses.field(default_factory=list)

    def keep(self, upsert: _Upsert, read: _Read | None) -> None:
        """Remember `upsert`, with the tokens counted in the same read of its log (`read`,
        when it was read new), if they were."""
        self.upserts.append(upsert)
        if read is not None and read[5] is not None:
            self.tokens.append((upsert[0].session_id, *read[5]))


class MetadataCache:
    """The sessions' metadata as the database remembers it, each entry revalidated against
    its file before it is trusted. `metadata_changed(session_id)` is told of every session
    whose metadata.json was (re)read: Zero rewrites it after every append and rewind;
    `verdict_found(session_id, verdict)` of every verdict on a log read with its metadata."""

    def __init__(
        self,
        store: SessionStore,
        database: CatalogDatabase,
        log_stats: LogStats,
        metadata_changed: Callable[[str], None],
        verdict_found: Callable[[str, bool], None] = lambda session_id, verdict: None,
    ) -> None:
        self.store = store
        self._database = database
        self._log_stats = log_stats
        self._metadata_changed = metadata_changed
        self._verdict_found = verdict_found
        self._prefix = os.path.join(os.fspath(store.root), "")  # + session id: its directory
        self.unreadable: list[UnreadableSession] = []
        # session id -> its log's tokens as the last `refresh` read them (`with_tokens`)
        self._tokens_read: dict[str, _LogTokens] = {}
        # this instance's view of the rows as of the last `refresh`; after `revalidate`,
        # those a text search has looked at
        self._known_cache: dict[str, _Known] | None = None
        self._ids_by_key: dict[int, str] | None = None
        database.when_replaced(self._forget)

    def _forget(self) -> None:
        self._known_cache = None
        self._ids_by_key = None

    # --- reading what is remembered ------------------------------------------------------

    def cached_sessions(self) -> list[Metadata]:
        """What the database remembers, in Zero's order, without touching the store."""
        try:
            return sort_sessions([entry.metadata for entry in self._known().values()])
        except sqlite3.Error:
            return []

    def session_keys(self) -> dict[str, int]:
        """session id -> its key in the database."""
        return {session_id: key for key, session_id in self.session_ids_by_key().items()}

    def session_ids_by_key(self) -> dict[int, str]:
        """key -> session id, as this instance last saw the catalog."""
        with self._database.lock:
            if self._ids_by_key is None:
                try:
                    rows = self._database.read(
                        "SELECT key, session_id FROM sessions WHERE typeof(key) = 'integer'"
                    )
                except sqlite3.Error:
                    rows = []
                self._ids_by_key = {key: str(session_id) for key, session_id in rows}
            return self._ids_by_key

    def ids_by_key_of(self, session_ids: Iterable[str]) -> dict[int, str]:
        """key -> session id, for these sessions only (for a few: `session_ids_by_key` reads
        every one)."""
        try:
            rows = self._database.read(
                "SELECT key, session_id FROM sessions WHERE typeof(key) = 'integer' "
                "AND session_id IN (SELECT value FROM json_each(?))",
                (json.dumps(list(session_ids)),),
            )
        except (sqlite3.Error, UnicodeEncodeError):
            return {}
        return {key: str(session_id) for key, session_id in rows}

    def _known(self, where: str = "") -> dict[str, _Known]:
        """The remembered sessions (`where`: an SQL condition and AND, to pick some) whose
        values are all well typed (others are re-read)."""
        rows = self._database.read(
            f"SELECT {', '.join(_FIELD_NAMES)}, key, metadata_stat, metadata_digest, "
            f"metadata_checked_ns FROM sessions WHERE {where}{_VALID_ROW}"
        )
        known: dict[str, _Known] = {}
        width = len(_FIELD_NAMES)
        for row in rows:
            meta = _metadata_of(row[:width])
            if meta is not None:
                known[meta.session_id] = _Known(row[width], meta, *row[width + 1 :])
        return known

    # --- looking at the store again ------------------------------------------------------

    def refresh(
        self,
        progress: Progress | None = None,
        *,
        with_verdicts: bool = False,
        with_tokens: bool = False,
    ) -> list[Metadata]:
        """Every valid session now in the store (Zero's List), re-reading only what changed;
        `progress(done, total)` is told of the sessions looked at, every few hundred.
        `with_verdicts`: a session read anew has its log's verdict found in the same go
        (a cold listing asks every one), and remembered with it; `with_tokens` too, and
        its tokens, from the same read of its log (`take_tokens_read`)."""
        self._log_stats.forget()
        by_directory = self._known_cache
        if by_directory is None:
            try:
                by_directory = self._known()
            except sqlite3.Error:
                by_directory = {}
        sessions: list[Metadata] = []
        looked = _Looked()
        seen: set[str] = set()
        listed_at = self._root_stat()
        names = list(self.store.iter_session_dirs())
        new_names = [name for name in names if name not in by_directory]
        # a cold catalog reads nearly all of them first: the progress of that, then the rest
        questions = None
        if with_verdicts or with_tokens:
            questions = _LogQuestions(self.store, tokens=with_tokens)
        # a cold catalog's reading is shared with a forked child, which then writes what it
        # read while this process goes on (to print a listing, say)
        new, reader = self._read_new(
            new_names, _scaled(progress, len(new_names), len(names)), questions, write=True
        )
        prefix, metadata_file = self._prefix, f"/{METADATA_FILE}"
        for done, name in enumerate(names):
            if progress is not None and done % PROGRESS_EVERY == 0 and not new:
                progress(done, len(names))
            entry = by_directory.get(name)
            stat_now = None
            if entry is not None:  # most of them, unchanged: one stat, one comparison
                stat_now = (time.time_ns(), regular_stat(prefix + name + metadata_file))
                info = stat_now[1]
                if info is not None and identity_of(info) == entry.trusted():
                    sessions.append(entry.metadata)
                    seen.add(name)  # as `_check_metadata` keeps it: its id is its directory
                    continue
            read = new.get(name)
            meta, upsert, kept = self._check_metadata(name, entry, looked, stat_now, read=read)
            if meta is not None:
                sessions.append(meta)
            if upsert is not None:
                looked.keep(upsert, read)
            if kept:
                seen.add(name)
        if progress is not None:
            progress(len(names), len(names))
        looked.dropped = [entry.key for name, entry in by_directory.items() if name not in seen]
        self._tokens_read = {item[0]: item[1:] for item in looked.tokens}
        self.unreadable = []
        self._note_unreadable(looked)
        unlisted = [name for name in names if name not in seen]
        if reader is None:
            keys = self._store_metadata(looked)
            self._forget_views(looked, keys)
            if keys is not None:
                self._known_cache = self._cache_after(by_directory, seen, looked.upserts, keys)
                self._remember_listing(listed_at, unlisted)
        else:
            self._write_behind(
                looked,
                reader,
                frozenset(forked.their_half(new_names)),
                partial(self._remember_listing, listed_at, unlisted),
            )
        return sort_sessions(sessions)

    def _write_behind(
        self,
        looked: _Looked,
        reader: forked.Answering[list[_Read]],
        theirs: frozenset[str],
        then: Callable[[], None],
    ) -> None:
        """Have what `refresh` found written while the caller goes on: the reading child's
        sessions (`theirs`) by that child, the rest by another (here, where none can be
        forked). The next use of the database waits for them, writes here what either
        failed to, and does `then`."""
        rest = _Looked(dropped=looked.dropped)
        by_reader = _Looked()
        for upsert in looked.upserts:
            (by_reader if upsert[0].session_id in theirs else rest).upserts.append(upsert)
        for counted in looked.tokens:
            (by_reader if counted[0] in theirs else rest).tokens.append(counted)
        self._known_cache = self._ids_by_key = None  # read again, once written

        def reader_done(followed_up: bool) -> None:
            if not followed_up:
                self._remember(by_reader)

        def writer_done(keys: dict[str, int] | None) -> None:
            if keys is None:
                self._remember(rest)
            then()

        self._database.wait_for(reader.followed_up, reader_done)
        if not self._database.write_in_child(
            partial(_write_changes, rest, keys=False), writer_done
        ):
            writer_done(None)

    @staticmethod
    def _cache_after(
        before: dict[str, _Known], seen: set[str], upserts: list[_Upsert], keys: dict[str, int]
    ) -> dict[str, _Known]:
        """The view of the rows once `upserts` are written with `keys`, of the sessions
        `seen` (the others were dropped)."""
        cache = {name: entry for name, entry in before.items() if name in seen}
        for meta, stat_key, digest, checked_ns, _ in upserts:
            session_key = keys.get(meta.session_id)
            if session_key is None:
                cache.pop(meta.session_id, None)
            else:
                cache[meta.session_id] = _Known(session_key, meta, stat_key, digest, checked_ns)
        return cache

    def revalidate(self) -> None:
        """Bring the catalog's list of sessions up to date with the store's directories, as
        `refresh` does, without looking again at the metadata of the sessions it knows: a
        new session is read and catalogued, a gone one dropped.

        For a text search, which then loads only the sessions that match with
        `sessions_with_keys`, which looks again at each of them: at 10,000 sessions, a look
        at every metadata file costs more than the query. `unreadable` then lists the new
        sessions that could not be read, and those `sessions_with_keys` finds so."""
        self._log_stats.forget()
        listed_at = self._root_stat()
        unlisted = self._unlisted_since(listed_at)
        if unlisted is not None:
            # the root is as it was listed: only the directories not catalogued then
            self._catalogue_unlisted(listed_at, unlisted)
            return
        try:
            rows = self._database.read("SELECT session_id, key FROM sessions")
        except sqlite3.Error:
            rows = []
        known: dict[str, int] = dict(rows)  # an ill-typed row is re-read when it is loaded
        names = list(self.store.iter_session_dirs())
        looked = _Looked()
        new, _ = self._read_new([name for name in names if name not in known])
        for name, read in new.items():
            _, upsert, _ = self._check_metadata(name, None, looked, read=read)
            if upsert is not None:
                looked.upserts.append(upsert)
        listed = set(names)
        looked.dropped = [key for session_id, key in known.items() if session_id not in listed]
        self.unreadable = []
        keys = self._remember(looked)
        if keys is not None:  # what was read is the map of keys `session_ids_by_key` keeps
            ids_by_key = {key: name for name, key in known.items() if name in listed}
            self._ids_by_key = ids_by_key | {key: name for name, key in keys.items()}
            catalogued = known.keys() | keys.keys()
            self._remember_listing(listed_at, [name for name in names if name not in catalogued])

    def take_tokens_read(self) -> dict[str, _LogTokens]:
        """session id -> (its log's stat key, the time before the read, its figures) of the
        logs the last `refresh` read whole (`with_tokens`), given once: they are as fresh
        as the read, not as whatever asks later."""
        taken, self._tokens_read = self._tokens_read, {}
        return taken

    def _read_new(
        self,
        names: list[str],
        progress: Progress | None = None,
        questions: _LogQuestions | None = None,
        *,
        write: bool = False,
    ) -> tuple[dict[str, _Read], forked.Answering[list[_Read]] | None]:
        """The metadata of sessions the catalog does not know yet, read (a cold catalog:
        all of them, shared with a forked child), with what `questions` asks of their logs;
        `progress` is told how far it is. With `write`, the child goes on to write what it
        read (`forked.their_half` of them), and is given back to be waited for."""
        read = partial(_read_many, self._prefix, questions)
        reader = None
        if write and self._database.persistent:
            self._database.connection  # noqa: B018 (opened, with its schema, before the fork)
            follow_up = partial(_write_reads_alone, self._database.path)
            found, reader = forked.shared_answering(read, names, progress, follow_up)
        else:
            found = forked.shared(read, names, progress)
        return dict(zip(names, found, strict=True)), reader

    # --- the root's listing, remembered ----------------------------------------------------

    def _root_stat(self) -> tuple[int, os.stat_result | None]:
        """The wall time just before, and the stat of, the store's root directory."""
        checked_ns = time.time_ns()
        try:
            return checked_ns, os.stat(self.store.root)
        except OSError:
            return checked_ns, None

    def _unlisted_since(self, listed_at: tuple[int, os.stat_result | None]) -> list[str] | None:
        """The directories the last listing could not catalogue, when the root is still as
        it was then (an entry added, removed or renamed changes its times); else None."""
        info = listed_at[1]
        if info is None:
            return None
        try:
            rows = self._database.read("SELECT value FROM info WHERE key = ?", (_ROOT_LISTING,))
            remembered = json.loads(rows[0][0]) if rows else None
        except (sqlite3.Error, ValueError, TypeError):
            return None
        if not isinstance(remembered, dict):
            return None
        unlisted = remembered.get("unlisted")
        if not file_identity.same_file(
            info, remembered.get("stat"), remembered.get("checkedNs")
        ) or not (isinstance(unlisted, list) and all(isinstance(n, str) for n in unlisted)):
            return None
        return unlisted

    def _catalogue_unlisted(
        self, listed_at: tuple[int, os.stat_result | None], unlisted: list[str]
    ) -> None:
        """Look again at the directories a listing could not catalogue (a session being
        created, one whose metadata was unreadable), and catalogue those now readable."""
        self.unreadable = []
        if not unlisted:
            return
        looked = _Looked()
        for name in unlisted:
            _, upsert, _ = self._check_metadata(name, None, looked)
            if upsert is not None:
                looked.upserts.append(upsert)
        keys = self._remember(looked)
        if keys is not None and keys:
            self._remember_listing(listed_at, [name for name in unlisted if name not in keys])

    def _remember_listing(
        self, listed_at: tuple[int, os.stat_result | None], unlisted: list[str]
    ) -> None:
        """Note the root's stat at a listing, and the directories it could not catalogue
        (unless that is what is noted already, and trusted)."""
        checked_ns, info = listed_at
        if info is None or self._unlisted_since(listed_at) == unlisted:
            return
        value = {
            "stat": file_identity.stat_key(info),
            "checkedNs": checked_ns,
            "unlisted": unlisted,
        }
        try:
            with self._database.write() as connection:
                connection.execute(
                    "INSERT OR REPLACE INTO info (key, value) VALUES (?, ?)",
                    (_ROOT_LISTING, json.dumps(value)),
                )
        except (sqlite3.Error, Bypassed):
            pass  # listed again next time

    def ranking_rows(self, *, filtered: bool = False) -> dict[int, RankingRow]:
        """key -> every catalogued session as remembered, without a look at its files (a row
        with an ill-typed value is left out: `sessions_with_keys` reads it again); with the
        title, model and provider when `filtered`. The verdict is the one resting on the
        stat the log was last indexed at: once every log has been checked, the log's."""
        try:
            rows = self._database.read(_RANKING_ROWS[filtered])
        except sqlite3.Error:
            return {}
        return {row.key: row for row in starmap(RankingRow, rows)}

    def listing_exceptions(self) -> tuple[dict[int, RankingRow], set[int]]:
        """The sessions a listing may leave out whatever their workspace, as remembered:
        key -> those of a kind Zero does not resume, with no events, or whose log, as last
        indexed, holds no resumable content or has no verdict yet; and the keys of the rows
        with an ill-typed value (`sessions_with_keys` reads them again). The others are
        listed in their workspace."""
        try:
            rows = self._database.read(_EXCEPTIONS)
        except sqlite3.Error:
            return {}, set()
        exceptions = {row[0]: RankingRow(*row[:-1]) for row in rows if row[-1] == 1}
        return exceptions, {row[0] for row in rows if row[-1] != 1 and isinstance(row[0], int)}

    def keys_in_workspace(self, workspace: str) -> set[int]:
        """The keys of the sessions remembered as started in `workspace` (or the same
        directory on disk, as `workspace_matches` says)."""
        try:
            cwds = self._database.read(
                "SELECT DISTINCT cwd FROM sessions WHERE typeof(cwd) = 'text'"
            )
            matching = [cwd for (cwd,) in cwds if workspace_matches(cwd, workspace)]
            rows = self._database.read(
                "SELECT key FROM sessions WHERE cwd IN (SELECT value FROM json_each(?))",
                (json.dumps(matching),),
            )
        except sqlite3.Error:
            return set()
        return {key for (key,) in rows}

    def keys_in_zero_order(self) -> list[int]:
        """The keys of the sessions as remembered, in Zero's order (updatedAt descending,
        then id), but for the ill-typed ones."""
        try:
            rows = self._database.read(_IN_ZERO_ORDER)
        except sqlite3.Error:
            return []
        joined = rows[0][0] if rows else None
        return [int(key) for key in joined.split(",")] if isinstance(joined, str) else []

    def sessions_with_keys(self, keys: Iterable[int]) -> list[Metadata]:
        """The catalogued sessions with these keys, in Zero's order, each looked at again
        (its metadata.json re-read if it changed; dropped if it is gone or unreadable)."""
        wanted = {int(key) for key in keys}
        entries: dict[str, _Known] = {}
        for listed in sql_lists(wanted):
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
        looked = _Looked()
        for name, entry in to_check:
            meta, upsert, kept = self._check_metadata(name, entry, looked)
            if meta is not None:
                found.append(meta)
            if upsert is not None:
                looked.upserts.append(upsert)
            if entry is not None and not kept:
                looked.dropped.append(entry.key)
        self._remember(looked)
        return sort_sessions(found)

    # --- one session's metadata.json -----------------------------------------------------

    def _metadata_stat(self, name: str) -> tuple[int, os.stat_result | None]:
        """The wall time just before, and the stat of, a session's metadata.json."""
        checked_ns = time.time_ns()
        return checked_ns, regular_stat(f"{self._prefix}{name}/{METADATA_FILE}")

    def _check_metadata(
        self,
        name: str,
        entry: _Known | None,
        looked: _Looked,
        stat_now: tuple[int, os.stat_result | None] | None = None,
        read: _Read | None = None,
    ) -> tuple[Metadata | None, _Upsert | None, bool]:
        """One session's metadata.json against what the catalog remembers of it (`entry`):
        (its metadata, None when unreadable; what to remember anew, if anything; whether
        the catalog keeps the session). An unreadable one is added to `looked.unreadable`,
        in the store's words. `stat_now`: the file's `_metadata_stat`, when the caller
        took it; `read`: what `_read_metadata` found, when the caller read a new one."""
        verdict: _Verdict | None = None
        if entry is None:
            read = read or _read_metadata(self._prefix, name, stat_now)
            checked_ns, key, digest, found, verdict, _ = read
            if key is None or digest is None or found is None:
                return self._cannot_read(name, looked)
            meta = found
        else:
            checked_ns, info = stat_now or self._metadata_stat(name)
            if info is None:
                return self._cannot_read(name, looked)
            if file_identity.same_file(info, entry.stat, entry.checked_ns):
                return entry.metadata, None, True
            try:
                data = read_regular(f"{self._prefix}{name}/{METADATA_FILE}")
            except OSError:
                return self._cannot_read(name, looked)
            digest = file_identity.digest(data)
            if entry.digest == digest:
                meta = entry.metadata
            else:
                try:
                    meta = Metadata.from_json(data)
                except (GoJSONError, StoreError, ValueError, RecursionError):
                    return self._cannot_read(name, looked)
            key = file_identity.stat_key(info)
        if meta.session_id != name:
            # the catalog is keyed by directory: such a session is listed, not kept
            return meta, None, False
        # remember it (again): new, changed, or checked anew while racy
        self._metadata_changed(name)
        if verdict is not None:
            self._verdict_found(name, bool(verdict[0]))
        return meta, (meta, key, digest, checked_ns, verdict), True

    def _cannot_read(self, name: str, looked: _Looked) -> tuple[None, None, bool]:
        """`_check_metadata`'s answer for a session it cannot read, noted in `looked`."""
        found = self.store.read_session(name)  # the reason, in the store's words
        if isinstance(found, UnreadableSession):
            looked.unreadable.append(found)
        return None, None, False

    # --- writing what was found ----------------------------------------------------------

    def _remember(self, looked: _Looked) -> dict[str, int] | None:
        """Write what changed (`_store_metadata`), note the unreadable, and forget the views
        of the rows it makes stale; the keys of the upserted sessions, or None when not
        written."""
        self._note_unreadable(looked)
        keys = self._store_metadata(looked)
        self._forget_views(looked, keys)
        return keys

    def _note_unreadable(self, looked: _Looked) -> None:
        if looked.unreadable:
            by_id = {item.session_id: item for item in [*self.unreadable, *looked.unreadable]}
            self.unreadable = sorted(by_id.values(), key=lambda item: item.session_id)

    def _forget_views(self, looked: _Looked, keys: dict[str, int] | None) -> None:
        """Forget the views of the rows that writing `looked` (its `keys`) made stale."""
        if keys is None or keys or looked.dropped:
            self._known_cache = None
        known_ids = self._ids_by_key
        if (
            keys is None
            or looked.dropped
            or (known_ids is not None and not known_ids.keys() >= set(keys.values()))
        ):
            self._ids_by_key = None  # a key came or went (an update keeps its session's key)

    def _store_metadata(self, looked: _Looked) -> dict[str, int] | None:
        """Write the changes; the keys of the upserted sessions, or None when not written."""
        if not looked.upserts and not looked.dropped and not looked.tokens:
            return {}
        try:
            with self._database.write() as connection:
                return _write_changes(looked, connection)
        except (sqlite3.Error, Bypassed):
            return None  # a cache that cannot be written is skipped; the listing stays right
