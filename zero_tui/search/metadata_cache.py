"""The catalog's copy of every session's metadata.json, revalidated before it is trusted.

Every entry is looked at again (a stat) before it is used, and a racy one (see
`file_identity`) compared by content (a digest of metadata.json). The only unvalidated
read is `cached_sessions`, for a first paint, and `ranking_rows`, for a text search to
rank and count its matches by. A text search (`revalidate`) lists the directories only,
and looks again at the sessions it goes on to show (`sessions_with_keys`): at 10,000
sessions a look at every metadata file costs more than the query. Wrong-typed values in
the database are ignored and re-read.

What is read is held in named records (`NewRead`, `Remembered`, `_Known`), and written by
one function, `_write_found`, in one transaction.
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
from itertools import starmap
from operator import attrgetter
from typing import Any, NamedTuple

from zero_tui.search import file_identity
from zero_tui.search.database import (
    INDEXED_VERDICT,
    LISTING_EXCEPTION,
    METADATA_COLUMNS,
    RANKED_COLUMNS,
    Bypassed,
    CatalogDatabase,
    add_orphans,
    sql_lists,
    typed,
)
from zero_tui.search.file_identity import LogStats, identity_of, regular_stat
from zero_tui.search.token_table import CountedTokens, write_tokens
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
from zero_tui.store.token_counts import logged_tokens
from zero_tui.store.workspace import workspace_matches

PROGRESS_EVERY = 256
_ROOT_LISTING = "root_listing"  # the info row: the root's stat when it was last listed

Progress = Callable[[int, int], None]

# --- the records -------------------------------------------------------------------------


class LogVerdict(NamedTuple):
    """Whether a log has resumable content, found for the log as its stat said it was."""

    resumable: bool
    log_stat: str
    checked_ns: int  # the wall time before the stat


class LogTokens(NamedTuple):
    """A log's tokens (`Tokens.figures()`), counted for the log as its stat said it was."""

    log_stat: str
    checked_ns: int
    figures: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class NewRead:
    """One read of a session's metadata.json the catalog did not know, and, when asked, of
    its log. `stat_key` None: not a regular file; `digest` None: unreadable; `metadata`
    None: invalid; `verdict` and `tokens` None: not asked, no log, or not countable."""

    checked_ns: int  # the wall time before the stat
    stat_key: str | None
    digest: bytes | None = None
    metadata: Metadata | None = None
    verdict: LogVerdict | None = None
    tokens: LogTokens | None = None


@dataclass(frozen=True, slots=True)
class Remembered:
    """What the catalog writes of one session: its metadata, the stat and digest of its
    metadata.json when read, and what was found of its log in the same read."""

    metadata: Metadata
    stat_key: str
    digest: bytes
    checked_ns: int
    verdict: LogVerdict | None = None
    tokens: LogTokens | None = None


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


@dataclass(slots=True)
class _Found:
    """What one look at some sessions found, to write in one transaction."""

    remembered: list[Remembered] = dataclasses.field(default_factory=list)
    dropped: list[int] = dataclasses.field(default_factory=list)  # their keys
    unreadable: list[UnreadableSession] = dataclasses.field(default_factory=list)


class _Checked(NamedTuple):
    """One session's metadata.json against what the catalog remembers of it."""

    metadata: Metadata | None  # None: unreadable
    remember: Remembered | None  # what to write anew, if anything
    kept: bool  # whether the catalog keeps the session (its id is its directory's)


# --- the SQL -------------------------------------------------------------------------------

_INT_COLUMNS = frozenset({"depth", "forked_from_sequence", "spawned_from_sequence", "event_count"})
_GOAL_FIELDS = tuple(field.name for field in dataclasses.fields(Goal))
_GOAL_INT_FIELDS = frozenset(
    {"token_budget", "tokens_used", "continuation_count", "continuation_limit"}
)
# Metadata's fields in order (the goal among them, as JSON), then what the row adds
_FIELD_NAMES = tuple(field.name for field in dataclasses.fields(Metadata))
_GOAL_AT = _FIELD_NAMES.index("goal")
_KNOWN = (
    f"SELECT {', '.join(_FIELD_NAMES)}, key, metadata_stat, metadata_digest, "
    "metadata_checked_ns FROM sessions WHERE "
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
_WRITTEN = (*METADATA_COLUMNS, "goal", "metadata_stat", "metadata_digest", "metadata_checked_ns")
_UPSERT = (
    f"INSERT INTO sessions ({', '.join(_WRITTEN)}) VALUES ({', '.join('?' * len(_WRITTEN))}) "
    "ON CONFLICT (session_id) DO UPDATE SET "
    + ", ".join(f"{name} = excluded.{name}" for name in _WRITTEN)
)
_SET_VERDICT = (
    "UPDATE sessions SET verdict = ?, verdict_stat = ?, verdict_checked_ns = ? WHERE session_id = ?"
)
_metadata_values = attrgetter(*METADATA_COLUMNS)


def _write_rows(connection: sqlite3.Connection, sql: str, rows: list[tuple[Any, ...]]) -> None:
    """`sql` for every row, in one go; one by one when a value sqlite cannot hold (it
    skips only its row, which is read again next time)."""
    try:
        connection.executemany(sql, rows)
    except (UnicodeEncodeError, OverflowError):
        for row in rows:
            with contextlib.suppress(UnicodeEncodeError, OverflowError):
                connection.execute(sql, row)


def _write_found(connection: sqlite3.Connection, found: _Found) -> dict[str, int]:
    """Write what a look found, in the caller's transaction: the sessions dropped, the
    metadata remembered anew with the verdicts and tokens read with it. The keys of the
    sessions written."""
    for session_key in found.dropped:  # its indexed text stays, found by no session
        indexed = connection.execute(
            "SELECT log_events FROM sessions WHERE key = ? AND text_key IS NOT NULL",
            (session_key,),
        ).fetchone()
        if indexed is not None and isinstance(indexed[0], int):
            add_orphans(connection, indexed[0])
        connection.execute("DELETE FROM sessions WHERE key = ?", (session_key,))
    rows = [
        (
            *_metadata_values(item.metadata),
            _goal_json(item.metadata.goal),
            item.stat_key,
            item.digest,
            item.checked_ns,
        )
        for item in found.remembered
    ]
    _write_rows(connection, _UPSERT, rows)
    verdicts = [
        (
            int(item.verdict.resumable),
            item.verdict.log_stat,
            item.verdict.checked_ns,
            item.metadata.session_id,
        )
        for item in found.remembered
        if item.verdict is not None
    ]
    _write_rows(connection, _SET_VERDICT, verdicts)
    write_tokens(connection, _counted_tokens(found.remembered))
    return _keys_of(connection, [item.metadata.session_id for item in found.remembered])


def _counted_tokens(remembered: Iterable[Remembered]) -> list[CountedTokens]:
    return [
        CountedTokens(item.metadata.session_id, *item.tokens)
        for item in remembered
        if item.tokens is not None
    ]


_FEW_KEYS = 256  # written sessions whose keys are looked up one by one rather than all read


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


def _known_of(row: tuple[Any, ...]) -> _Known | None:
    """A row of `_KNOWN` as remembered; None when its goal is not one."""
    *fields, key, stat, digest, checked_ns = row
    if fields[_GOAL_AT] is not None:
        try:
            fields[_GOAL_AT] = _goal_from_json(fields[_GOAL_AT])
        except (ValueError, TypeError):
            return None
    return _Known(key, Metadata(*fields), stat, digest, checked_ns)


def _goal_json(goal: Goal | None) -> str | None:
    if goal is None:
        return None
    return json.dumps({name: getattr(goal, name) for name in _GOAL_FIELDS}, ensure_ascii=False)


def _goal_from_json(text: str) -> Goal:
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


# --- reading a new session ---------------------------------------------------------------


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
) -> NewRead:
    """Read a new session's metadata.json, and with `questions`, what they ask of its log,
    for a session a listing would ask it of."""
    path = f"{prefix}{name}/{METADATA_FILE}"
    info: os.stat_result | None
    if stat_now is None:  # the stat of the file read, from the same open
        checked_ns = time.time_ns()
        try:
            info, data = read_regular_stat(path)
        except NotRegularFileError:
            return NewRead(checked_ns, None)
        except OSError:  # gone, or there but unreadable: what a stat says of it
            info = regular_stat(path)
            return NewRead(checked_ns, None if info is None else file_identity.stat_key(info))
    else:
        checked_ns, info = stat_now
        if info is None:
            return NewRead(checked_ns, None)
        try:
            data = read_regular(path)
        except OSError:
            return NewRead(checked_ns, file_identity.stat_key(info))
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
    return NewRead(checked_ns, key, file_identity.digest(data), meta, verdict, tokens)


def _log_answers(
    questions: _LogQuestions, path: str, name: str
) -> tuple[LogVerdict | None, LogTokens | None]:
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
            verdict = LogVerdict(log_has_resumable_content(data, name), key, checked_ns)
            try:
                return verdict, LogTokens(key, checked_ns, logged_tokens(data, name).figures())
            except StoreError:
                return verdict, None
    log_info = regular_stat(path)
    if log_info is None:
        return None, None
    resumable = has_resumable_content(questions.store, name)
    return LogVerdict(resumable, file_identity.stat_key(log_info), checked_ns), None


def _read_new(
    prefix: str,
    names: Sequence[str],
    progress: Progress | None,
    total: int,
    questions: _LogQuestions | None,
) -> dict[str, NewRead]:
    """The metadata of sessions the catalog does not know yet (on a cold catalog, every
    one), with what `questions` asks of their logs; `progress` is told how far it is, as
    if these were all `total`."""
    found: dict[str, NewRead] = {}
    for done, name in enumerate(names):
        if progress is not None and done % PROGRESS_EVERY == 0:
            progress(done * total // len(names), total)
        found[name] = _read_metadata(prefix, name, questions=questions)
    return found


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
        self._tokens_read: dict[str, LogTokens] = {}
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
        known: dict[str, _Known] = {}
        for row in self._database.read(f"{_KNOWN}{where}{_VALID_ROW}"):
            entry = _known_of(row)
            if entry is not None:
                known[entry.metadata.session_id] = entry
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
        found = _Found()
        seen: set[str] = set()
        listed_at = self._root_stat()
        names = list(self.store.iter_session_dirs())
        questions = None
        if with_verdicts or with_tokens:
            questions = _LogQuestions(self.store, tokens=with_tokens)
        # a cold catalog reads nearly all of them first: the progress of that, then the rest
        new_names = [name for name in names if name not in by_directory]
        new = _read_new(self._prefix, new_names, progress, len(names), questions)
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
            checked = self._check_metadata(name, entry, found, stat_now, new.get(name))
            if checked.metadata is not None:
                sessions.append(checked.metadata)
            if checked.remember is not None:
                found.remembered.append(checked.remember)
            if checked.kept:
                seen.add(name)
        if progress is not None:
            progress(len(names), len(names))
        found.dropped = [entry.key for name, entry in by_directory.items() if name not in seen]
        self._tokens_read = {
            item.metadata.session_id: item.tokens
            for item in found.remembered
            if item.tokens is not None
        }
        self.unreadable = []
        keys = self._remember(found)
        if keys is not None:
            self._known_cache = self._cache_after(by_directory, seen, found.remembered, keys)
            self._remember_listing(listed_at, [name for name in names if name not in seen])
        return sort_sessions(sessions)

    def take_tokens_read(self) -> dict[str, LogTokens]:
        """session id -> its log's tokens as the last `refresh` read them whole
        (`with_tokens`), given once: they are as fresh as the read, not as whatever asks
        later."""
        taken, self._tokens_read = self._tokens_read, {}
        return taken

    @staticmethod
    def _cache_after(
        before: dict[str, _Known],
        seen: set[str],
        remembered: list[Remembered],
        keys: dict[str, int],
    ) -> dict[str, _Known]:
        """The view of the rows once `remembered` is written with `keys`, of the sessions
        `seen` (the others were dropped)."""
        cache = {name: entry for name, entry in before.items() if name in seen}
        for item in remembered:
            session_id = item.metadata.session_id
            session_key = keys.get(session_id)
            if session_key is None:
                cache.pop(session_id, None)
            else:
                cache[session_id] = _Known(
                    session_key, item.metadata, item.stat_key, item.digest, item.checked_ns
                )
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
        found = _Found()
        new = _read_new(self._prefix, [name for name in names if name not in known], None, 0, None)
        for name, read in new.items():
            checked = self._check_metadata(name, None, found, read=read)
            if checked.remember is not None:
                found.remembered.append(checked.remember)
        listed = set(names)
        found.dropped = [key for session_id, key in known.items() if session_id not in listed]
        self.unreadable = []
        keys = self._remember(found)
        if keys is not None:  # what was read is the map of keys `session_ids_by_key` keeps
            ids_by_key = {key: name for name, key in known.items() if name in listed}
            self._ids_by_key = ids_by_key | {key: name for name, key in keys.items()}
            catalogued = known.keys() | keys.keys()
            self._remember_listing(listed_at, [name for name in names if name not in catalogued])

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
        found = _Found()
        for name in unlisted:
            checked = self._check_metadata(name, None, found)
            if checked.remember is not None:
                found.remembered.append(checked.remember)
        keys = self._remember(found)
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
        exceptions: dict[int, RankingRow] = {}
        ill_typed: set[int] = set()
        for *values, well_typed in rows:
            if well_typed == 1:
                row = RankingRow(*values)
                exceptions[row.key] = row
            elif isinstance(values[0], int):
                ill_typed.add(values[0])  # its key
        return exceptions, ill_typed

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
        sessions: list[Metadata] = []
        found = _Found()
        for name, entry in to_check:
            checked = self._check_metadata(name, entry, found)
            if checked.metadata is not None:
                sessions.append(checked.metadata)
            if checked.remember is not None:
                found.remembered.append(checked.remember)
            if entry is not None and not checked.kept:
                found.dropped.append(entry.key)
        self._remember(found)
        return sort_sessions(sessions)

    # --- one session's metadata.json -----------------------------------------------------

    def _metadata_stat(self, name: str) -> tuple[int, os.stat_result | None]:
        """The wall time just before, and the stat of, a session's metadata.json."""
        checked_ns = time.time_ns()
        return checked_ns, regular_stat(f"{self._prefix}{name}/{METADATA_FILE}")

    def _check_metadata(
        self,
        name: str,
        entry: _Known | None,
        found: _Found,
        stat_now: tuple[int, os.stat_result | None] | None = None,
        read: NewRead | None = None,
    ) -> _Checked:
        """One session's metadata.json against what the catalog remembers of it (`entry`).
        An unreadable one is added to `found.unreadable`, in the store's words. `stat_now`:
        the file's `_metadata_stat`, when the caller took it; `read`: what `_read_metadata`
        found, when the caller read a new one."""
        verdict = tokens = None
        if entry is None:
            read = read or _read_metadata(self._prefix, name, stat_now)
            if read.stat_key is None or read.digest is None or read.metadata is None:
                return self._cannot_read(name, found)
            meta, stat_key, digest = read.metadata, read.stat_key, read.digest
            checked_ns, verdict, tokens = read.checked_ns, read.verdict, read.tokens
        else:
            checked_ns, info = stat_now or self._metadata_stat(name)
            if info is None:
                return self._cannot_read(name, found)
            if file_identity.same_file(info, entry.stat, entry.checked_ns):
                return _Checked(entry.metadata, None, True)
            try:
                data = read_regular(f"{self._prefix}{name}/{METADATA_FILE}")
            except OSError:
                return self._cannot_read(name, found)
            digest = file_identity.digest(data)
            if entry.digest == digest:
                meta = entry.metadata
            else:
                try:
                    meta = Metadata.from_json(data)
                except (GoJSONError, StoreError, ValueError, RecursionError):
                    return self._cannot_read(name, found)
            stat_key = file_identity.stat_key(info)
        if meta.session_id != name:
            # the catalog is keyed by directory: such a session is listed, not kept
            return _Checked(meta, None, False)
        # remember it (again): new, changed, or checked anew while racy
        self._metadata_changed(name)
        if verdict is not None:
            self._verdict_found(name, verdict.resumable)
        remember = Remembered(meta, stat_key, digest, checked_ns, verdict, tokens)
        return _Checked(meta, remember, True)

    def _cannot_read(self, name: str, found: _Found) -> _Checked:
        """`_check_metadata`'s answer for a session it cannot read, noted in `found`."""
        unreadable = self.store.read_session(name)  # the reason, in the store's words
        if isinstance(unreadable, UnreadableSession):
            found.unreadable.append(unreadable)
        return _Checked(None, None, False)

    # --- writing what was found ----------------------------------------------------------

    def _remember(self, found: _Found) -> dict[str, int] | None:
        """Write what changed, in one transaction; note the unreadable, and forget the views
        of the rows it makes stale. The keys of the sessions written, or None when not
        written (a cache that cannot be written is skipped; the listing stays right)."""
        if found.unreadable:
            by_id = {item.session_id: item for item in [*self.unreadable, *found.unreadable]}
            self.unreadable = sorted(by_id.values(), key=lambda item: item.session_id)
        keys: dict[str, int] | None = {}
        if found.remembered or found.dropped:
            try:
                with self._database.write() as connection:
                    keys = _write_found(connection, found)
            except (sqlite3.Error, Bypassed):
                keys = None
        if keys is None or keys or found.dropped:
            self._known_cache = None
        known_ids = self._ids_by_key
        if (
            keys is None
            or found.dropped
            or (known_ids is not None and not known_ids.keys() >= set(keys.values()))
        ):
            self._ids_by_key = None  # a key came or went (an update keeps its session's key)
        return keys
