"""SessionStore: Zero's session store, shared byte for byte and lock for lock with the Go agent."""

from __future__ import annotations

import builtins
import dataclasses
import itertools
import os
import re
import stat
import threading
import time
from collections.abc import Callable, Container, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from operator import attrgetter
from pathlib import Path
from typing import TypeVar

try:
    import fcntl
except ImportError:  # Windows: filelock's LockFileEx-based lock instead
    fcntl = None  # type: ignore[assignment]

from zero_tui.atomic import AtomicWriteError, go_error_text, write_all, write_atomic
from zero_tui.store import gojson
from zero_tui.store.errors import SessionBusyError, StoreError
from zero_tui.store.events import decode_line, parse_log, parse_log_of_types, rehydrate
from zero_tui.store.gojson import GoJSONError
from zero_tui.store.gotext import trim_space, trim_space_bytes
from zero_tui.store.models import Event, Goal, Metadata
from zero_tui.store.regular_files import NotRegularFileError as NotRegularFileError
from zero_tui.store.regular_files import file_kind as file_kind
from zero_tui.store.regular_files import open_regular as open_regular
from zero_tui.store.root import store_root

METADATA_FILE = "metadata.json"
EVENTS_FILE = "events.jsonl"
LOCK_FILE = "session.lock"

_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
_TAIL_WINDOW = 64 * 1024
DEFAULT_LOCK_TIMEOUT = 30.0

Clock = Callable[[], datetime]
_Item = TypeVar("_Item")
EventInput = tuple[str, object]


def valid_session_id(session_id: str) -> bool:
    """Zero's ValidSessionID: the trimmed id fully matches ^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$."""
    # an id that matches as it is has nothing to trim (a listing asks it of every directory)
    return (
        _SESSION_ID.fullmatch(session_id) is not None
        or _SESSION_ID.fullmatch(trim_space(session_id)) is not None
    )


def go_quote(text: str) -> str:
    """Go's %q quoting, for error messages that name the user's input."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in "\a\b\f\n\r\t\v":
            out.append(repr(ch)[1:-1] if ch not in "\a\v" else {"\a": "\\a", "\v": "\\v"}[ch])
        elif 0xD800 <= code <= 0xDFFF:
            out.append(f"\\x{code - 0xDC00:02x}" if code >= 0xDC80 else "\\ufffd")
        elif ch.isprintable() or ch == " ":
            out.append(ch)
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def invalid_id_error(session_id: str) -> StoreError:
    return StoreError(f"invalid zero session id {go_quote(session_id)}")


def missing_log_notice(session_id: str) -> str:
    """What is wrong with a session whose metadata exists but whose log does not."""
    return f"the log of this session ({session_id}/{EVENTS_FILE}) is missing: no event can be shown"


def format_timestamp(moment: datetime) -> str:
    """RFC 3339, UTC, whole seconds, always Z (store-format §6)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _system_clock() -> datetime:
    return datetime.now(UTC)


def read_regular(path: str | os.PathLike[str]) -> bytes:
    """The whole content of a regular file (NotRegularFileError for anything else)."""
    return read_regular_stat(path)[1]


def read_regular_stat(path: str | os.PathLike[str]) -> tuple[os.stat_result, bytes]:
    """The stat and the whole content of a regular file, from one open (as `read_regular`:
    NotRegularFileError for anything else), in as few system calls as can be: a cold
    listing reads 10,000 metadata files."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFileError(os.fspath(path), info.st_mode)
        data = os.read(fd, info.st_size + 1)  # one more byte: a file that grew shows it
        # all of it as stat saw it: done; else it grew, shrank, or the read was cut short
        more = os.read(fd, _READ_MORE) if data and len(data) != info.st_size else b""
        if more:  # on to the end
            chunks = [data, more]
            while chunks[-1]:
                chunks.append(os.read(fd, _READ_MORE))
            data = b"".join(chunks)
    finally:
        os.close(fd)
    return info, data


_READ_MORE = 64 * 1024


def os_reason(error: OSError) -> str:
    """An OSError as one line, as Go words it: "no space left on device"."""
    if isinstance(error, NotRegularFileError):
        return str(error)
    return go_error_text(error)


@dataclass(frozen=True, slots=True)
class UnreadableSession:
    """A session directory whose metadata cannot be read, and why (design §3.9)."""

    session_dir: Path
    reason: str

    @property
    def session_id(self) -> str:
        return self.session_dir.name


@dataclass(frozen=True, slots=True)
class StoreScan:
    """Every session directory of the store: the readable ones in Zero's List order, and
    the ones List skips, with the reason."""

    sessions: list[Metadata]
    unreadable: list[UnreadableSession]


@dataclass(frozen=True, slots=True)
class LogTail:
    """What the end of events.jsonl says, found by reading only the tail."""

    keep_length: int  # the log is cut back to this length before appending
    needs_newline: bool  # the last accepted line lacks its "\n"
    last_sequence: int | None  # of the last complete event; None when unknown


class SessionStore:
    """Zero's session store (store-format.md) with the Python names of design.md §2."""

    def __init__(
        self,
        root: str | os.PathLike[str] | None = None,
        *,
        clock: Clock | None = None,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    ) -> None:
        self.root = store_root(root)
        self._clock = clock or _system_clock
        self.lock_timeout = lock_timeout
        self._counter = itertools.count(1)
        self._mutexes: dict[str, threading.Lock] = {}
        self._mutexes_guard = threading.Lock()

    # --- paths ---------------------------------------------------------------------

    def session_dir(self, session_id: str) -> Path:
        return self.root / session_id

    def metadata_path(self, session_id: str) -> Path:
        return self.root / session_id / METADATA_FILE

    def events_path(self, session_id: str) -> Path:
        return self.root / session_id / EVENTS_FILE

    def lock_path(self, session_id: str) -> Path:
        return self.root / session_id / LOCK_FILE

    def now(self) -> str:
        return format_timestamp(self._clock())

    def _check_id(self, session_id: str) -> None:
        if not valid_session_id(session_id):
            raise invalid_id_error(session_id)

    # --- reading -------------------------------------------------------------------

    def _read_metadata(self, session_id: str) -> Metadata:
        """Metadata of a session; FileNotFoundError when it has none."""
        try:
            data = read_regular(os.path.join(self.root, session_id, METADATA_FILE))
        except FileNotFoundError:
            raise
        except OSError as error:
            raise StoreError(
                f"read zero session metadata {session_id}: {os_reason(error)}"
            ) from None
        try:
            return Metadata.from_json(data)
        except GoJSONError as error:
            raise StoreError(f"invalid zero session metadata {session_id}: {error}") from None

    def get(self, session_id: str) -> Metadata | None:
        """Zero's Get: None when the session has no metadata; StoreError when it is invalid."""
        self._check_id(session_id)
        try:
            return self._read_metadata(session_id)
        except (FileNotFoundError, NotADirectoryError):
            return None

    def iter_session_dirs(self) -> Iterator[str]:
        """Names of the root's entries that are real directories (not symlinks) with valid ids."""
        try:
            entries = list(os.scandir(self.root))
        except FileNotFoundError:
            return
        except OSError as error:
            raise StoreError(f"read zero session root: {error.strerror}: {self.root}") from None
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir and valid_session_id(entry.name):
                yield entry.name

    def list(self) -> builtins.list[Metadata]:
        """Zero's List: every session with readable metadata, newest activity first.

        Unlike Go, listing never creates the root: a browser should not leave directories
        behind when pointed at the wrong place.
        """
        return self.scan().sessions

    def recently_changed(self) -> Iterator[Metadata]:
        """The readable sessions, the most recently changed metadata file first.

        Zero rewrites metadata.json at every update, so this is close to List's order by
        updatedAt, at the cost of one stat per session before the first read: what a first
        screen can show before every metadata file has been read (not the order itself,
        which `list` gives).
        """
        stamped: builtins.list[tuple[int, str]] = []
        for name in self.iter_session_dirs():
            try:
                changed = os.stat(os.path.join(self.root, name, METADATA_FILE)).st_mtime_ns
            except OSError:
                continue  # unreadable: `scan` says why
            stamped.append((changed, name))
        stamped.sort(reverse=True)
        for _, name in stamped:
            found = self.read_session(name)
            if isinstance(found, Metadata):
                yield found

    def read_session(self, name: str) -> Metadata | UnreadableSession:
        """One session directory's metadata, or why it cannot be read."""
        try:
            return self._read_metadata(name)
        except FileNotFoundError:
            return UnreadableSession(self.session_dir(name), f"no {METADATA_FILE}")
        except OSError as error:
            return UnreadableSession(self.session_dir(name), os_reason(error))
        except StoreError as error:
            return UnreadableSession(self.session_dir(name), str(error))

    def scan(self) -> StoreScan:
        """What List returns, plus every session directory List skips silently, with why."""
        sessions: builtins.list[Metadata] = []
        unreadable: builtins.list[UnreadableSession] = []
        for name in self.iter_session_dirs():
            found = self.read_session(name)
            if isinstance(found, Metadata):
                sessions.append(found)
            else:
                unreadable.append(found)
        unreadable.sort(key=lambda entry: entry.session_dir.name)
        return StoreScan(sort_sessions(sessions), unreadable)

    def list_resumable(self) -> builtins.list[Metadata]:
        return [meta for meta in self.list() if meta.is_resumable_kind]

    def latest_resumable(self) -> Metadata | None:
        resumable = self.list_resumable()
        return resumable[0] if resumable else None

    def read_log_bytes(self, session_id: str) -> bytes:
        self._check_id(session_id)
        try:
            return read_regular(self.events_path(session_id))
        except FileNotFoundError:
            return b""
        except OSError as error:
            raise StoreError(f"read zero session events: {os_reason(error)}") from None

    def read_events(self, session_id: str) -> builtins.list[Event]:
        """Zero's ReadEvents: every event; a torn last line is dropped, any other bad line fails."""
        return parse_log(self.read_log_bytes(session_id), session_id)

    def read_events_of_types(self, session_id: str, types: Container[str]) -> builtins.list[Event]:
        """`read_events`' events of the `types` only, with its errors (the other lines are
        read all the same, but no event is built for them)."""
        return parse_log_of_types(self.read_log_bytes(session_id), session_id, types)

    def read_rehydrated_events(self, session_id: str) -> builtins.list[Event]:
        """The compaction-aware view (store-format §10.4); StoreError if the latest is broken."""
        return rehydrate(self.read_events(session_id))

    def read_events_for_display(self, session_id: str) -> tuple[builtins.list[Event], str | None]:
        """Rehydrated events, or the raw ones with the reason when rehydration fails.

        A missing log reads as empty (as in Zero) but says so: the session is not an empty
        run, its log is gone.
        """
        self._check_id(session_id)
        if not os.path.lexists(self.events_path(session_id)):
            return [], missing_log_notice(session_id)
        events = self.read_events(session_id)
        try:
            return rehydrate(events), None
        except StoreError as error:
            return events, f"showing the raw log: {error}"

    # --- creating ------------------------------------------------------------------

    def _generate_id(self) -> str:
        moment = self._clock().astimezone(UTC)
        nanos = int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000
        return f"zero_{moment.strftime('%Y%m%d%H%M%S')}_{nanos}_{next(self._counter)}"

    def create(
        self,
        session_id: str | None = None,
        *,
        title: str = "",
        cwd: str = "",
        model_id: str = "",
        provider: str = "",
        session_kind: str = "",
        tag: str = "",
        depth: int = 0,
        parent_session_id: str = "",
        root_session_id: str = "",
        agent_name: str = "",
        task_id: str = "",
        forked_from_event_id: str = "",
        forked_from_sequence: int = 0,
        spawned_from_event_id: str = "",
        spawned_from_sequence: int = 0,
        spec_id: str = "",
        spec_file_path: str = "",
        spec_status: str = "",
        spec_draft_model_id: str = "",
        spec_draft_reasoning: str = "",
        spec_user_comment: str = "",
        spec_reject_reason: str = "",
        spec_source_session_id: str = "",
        spec_impl_session_id: str = "",
        goal: Goal | None = None,
    ) -> Metadata:
        """Zero's Create: a new session directory with its metadata and an empty log.

        Every text input but the kind is trimmed, the spec status normalised (store-format
        §10.1); the times are now, the event count 0.
        """
        given = session_id or ""
        sid = trim_space(given) or self._generate_id()
        if not valid_session_id(sid):
            raise invalid_id_error(given)
        if depth < 0:
            raise StoreError(f"invalid zero session depth {depth}")
        status = trim_space(spec_status).lower()
        timestamp = self.now()
        meta = Metadata(
            session_id=sid,
            session_kind=session_kind,
            title=trim_space(title),
            cwd=trim_space(cwd),
            model_id=trim_space(model_id),
            provider=trim_space(provider),
            tag=trim_space(tag),
            depth=depth,
            parent_session_id=trim_space(parent_session_id),
            root_session_id=trim_space(root_session_id),
            agent_name=trim_space(agent_name),
            task_id=trim_space(task_id),
            forked_from_event_id=trim_space(forked_from_event_id),
            forked_from_sequence=forked_from_sequence,
            spawned_from_event_id=trim_space(spawned_from_event_id),
            spawned_from_sequence=spawned_from_sequence,
            spec_id=trim_space(spec_id),
            spec_file_path=trim_space(spec_file_path),
            spec_status=status if status in ("draft", "approved", "rejected") else "",
            spec_draft_model_id=trim_space(spec_draft_model_id),
            spec_draft_reasoning=trim_space(spec_draft_reasoning),
            spec_user_comment=trim_space(spec_user_comment),
            spec_reject_reason=trim_space(spec_reject_reason),
            spec_source_session_id=trim_space(spec_source_session_id),
            spec_impl_session_id=trim_space(spec_impl_session_id),
            goal=goal,
            created_at=timestamp,
            updated_at=timestamp,
        )
        try:
            self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(f"create zero session root: {error.strerror}: {self.root}") from None
        directory = self.session_dir(sid)
        try:
            directory.mkdir(mode=0o700)
        except FileExistsError:
            raise StoreError(f"zero session already exists: {sid}") from None
        except OSError as error:
            raise StoreError(f"create zero session directory: {error.strerror}") from None
        self._write_metadata(sid, meta)
        try:
            fd = os.open(self.events_path(sid), os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        except OSError as error:
            raise StoreError(f"create zero session events file: {error.strerror}") from None
        os.close(fd)
        return meta

    # --- locking -------------------------------------------------------------------

    def _mutex(self, session_id: str) -> threading.Lock:
        with self._mutexes_guard:
            mutex = self._mutexes.get(session_id)
            if mutex is None:
                mutex = self._mutexes[session_id] = threading.Lock()
            return mutex

    @contextmanager
    def locked(self, session_id: str) -> Iterator[None]:
        """Zero's session lock: the in-process mutex, then flock on <session>/session.lock."""
        self._check_id(session_id)
        mutex = self._mutex(session_id)
        busy = SessionBusyError(
            f"session {session_id} is busy: another process (the Zero agent?) has held its "
            f"lock for {self.lock_timeout:g}s; try again when it finishes"
        )
        started = time.monotonic()
        if not mutex.acquire(timeout=self.lock_timeout if self.lock_timeout >= 0 else -1):
            raise busy
        try:
            path = self.lock_path(session_id)
            if not path.parent.is_dir():
                raise StoreError(f"open zero session lock: open {path}: no such file or directory")
            remaining = (
                max(0.0, self.lock_timeout - (time.monotonic() - started))
                if self.lock_timeout >= 0
                else None
            )
            if fcntl is None:
                with _soft_file_lock(path, remaining, busy):
                    yield
                return
            try:
                fd = open_regular(path, os.O_RDWR | os.O_CREAT, 0o600)
            except OSError as error:
                raise StoreError(f"open zero session lock: {os_reason(error)}: {path}") from None
            try:
                try:
                    acquired = _flock_within(fd, remaining)
                except OSError as error:
                    raise StoreError(f"lock zero session: {os_reason(error)}: {path}") from None
                if not acquired:
                    fd = -1  # the waiting thread owns it now (it unlocks and closes it)
                    raise busy
                try:
                    yield
                finally:
                    fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                if fd >= 0:
                    os.close(fd)
        finally:
            mutex.release()

    # --- writing -------------------------------------------------------------------

    def _write_metadata(self, session_id: str, meta: Metadata) -> None:
        path = self.metadata_path(session_id)
        try:
            write_atomic(os.fspath(path), meta.to_json_bytes())
        except AtomicWriteError as error:
            raise StoreError(f"write zero session metadata: {error}") from None

    def _metadata_for_update(self, session_id: str) -> Metadata:
        try:
            return self._read_metadata(session_id)
        except FileNotFoundError:
            raise StoreError(f"zero session not found: {session_id}") from None

    @staticmethod
    def _prepare(events: Sequence[EventInput]) -> builtins.list[tuple[str, bytes | None]]:
        prepared: builtins.list[tuple[str, bytes | None]] = []
        for event_type, payload in events:
            if not trim_space(event_type):
                raise StoreError("zero session event type is required")
            raw: bytes | None
            if payload is None:
                raw = None
            elif isinstance(payload, bytes | bytearray | memoryview):
                trimmed = trim_space_bytes(bytes(payload))
                if not trimmed:
                    raw = None
                else:
                    try:
                        gojson.check_go_reads(trimmed, depth=1)  # the line's object encloses it
                    except GoJSONError:
                        raise StoreError("invalid raw JSON payload") from None
                    raw = gojson.compact_raw(trimmed)
            else:
                try:
                    raw = gojson.marshal(payload, depth=1)
                except (TypeError, ValueError) as error:
                    raise StoreError(f"encode zero session payload: {error}") from None
            prepared.append((event_type, raw))
        return prepared

    def append_events(self, session_id: str, events: Sequence[EventInput]) -> builtins.list[Event]:
        """Zero's AppendEvents: one locked write of the batch, then metadata.

        Beyond Go (design §3.3, §5): a torn tail is cut back to the end of the last line
        the reader accepts before the batch is written, so the log stays readable; and an
        append that fails (a write, the fsync or the metadata write: a full disk) puts the
        log back exactly as it was, torn tail included, so retrying never duplicates.
        """
        self._check_id(session_id)
        prepared = self._prepare(events)
        if not prepared:
            return []
        with self.locked(session_id):
            meta = self._metadata_for_update(session_id)
            path = self.events_path(session_id)
            try:
                fd = open_regular(path, os.O_RDWR | os.O_CREAT, 0o600)
            except OSError as error:
                raise StoreError(f"append zero session event: {os_reason(error)}") from None
            try:
                try:
                    tail = self.read_log_tail(fd, session_id)
                    size = os.fstat(fd).st_size
                    cut = os.pread(fd, size - tail.keep_length, tail.keep_length)
                except OSError as error:
                    raise StoreError(
                        f"append zero session event: {os_reason(error)}: {path}"
                    ) from None
                next_sequence = meta.event_count + 1
                if tail.last_sequence is not None and tail.last_sequence >= next_sequence:
                    next_sequence = tail.last_sequence + 1
                new_events: builtins.list[Event] = []
                lines: builtins.list[bytes] = [b"\n"] if tail.needs_newline else []
                for index, (event_type, raw) in enumerate(prepared):
                    sequence = next_sequence + index
                    event = Event(
                        f"{session_id}:{sequence}",
                        session_id,
                        sequence,
                        event_type,
                        self.now(),
                        raw,
                    )
                    lines.append(event.to_json_line())
                    new_events.append(event)
                try:
                    if cut:
                        os.ftruncate(fd, tail.keep_length)
                    os.lseek(fd, tail.keep_length, os.SEEK_SET)
                    write_all(fd, b"".join(lines))
                    os.fsync(fd)
                except OSError as error:
                    restored = _restore_log(fd, tail.keep_length, cut)
                    raise StoreError(
                        f"append zero session event: {os_reason(error)}: {path}{restored}"
                    ) from None
                last = new_events[-1]
                try:
                    self._write_metadata(
                        session_id,
                        dataclasses.replace(
                            meta,
                            updated_at=last.created_at,
                            event_count=last.sequence,
                            last_event_type=last.type,
                        ),
                    )
                except StoreError as error:
                    # the batch must not stay in the log of a failed append
                    restored = _restore_log(fd, tail.keep_length, cut)
                    raise StoreError(f"{error}{restored}") from None
                return new_events
            finally:
                os.close(fd)

    def read_log_tail(self, fd: int, session_id: str) -> LogTail:
        """What the end of the open log `fd` says (store-format §5.3, §7), reading its tail."""
        size = os.fstat(fd).st_size
        if size == 0:
            return LogTail(0, False, 0)
        window = _TAIL_WINDOW
        while True:
            window = min(window, size)
            start = size - window
            data = os.pread(fd, window, start)
            tail = _read_tail(data, start, size, session_id)
            if tail is not None:
                return tail
            window *= 2

    def last_complete_sequence(self, session_id: str) -> int:
        """The sequence of the log's last complete event (0 when there is none)."""
        self._check_id(session_id)
        try:
            fd = open_regular(self.events_path(session_id))
        except FileNotFoundError:
            return 0
        except OSError as error:
            raise StoreError(f"read zero session events: {os_reason(error)}") from None
        try:
            return self.read_log_tail(fd, session_id).last_sequence or 0
        finally:
            os.close(fd)

    def next_sequence(self, session_id: str) -> int:
        """The sequence the next append would get."""
        self._check_id(session_id)
        meta = self._metadata_for_update(session_id)
        return max(meta.event_count, self.last_complete_sequence(session_id)) + 1

    def update_title(self, session_id: str, title: str) -> Metadata:
        """Zero's UpdateTitle: trimmed, non-empty; updatedAt untouched; no write when unchanged."""
        meta, _ = self._update_title(session_id, None, title)
        return meta

    def update_title_if_current(
        self, session_id: str, expected: str, title: str
    ) -> tuple[Metadata, bool]:
        """Zero's UpdateTitleIfCurrent: renames only while the title is still `expected`."""
        return self._update_title(session_id, expected, title)

    def _update_title(
        self, session_id: str, expected: str | None, title: str
    ) -> tuple[Metadata, bool]:
        self._check_id(session_id)
        trimmed = trim_space(title)
        if not trimmed:
            raise StoreError("zero session title is required")
        with self.locked(session_id):
            meta = self._metadata_for_update(session_id)
            if expected is not None and meta.title != trim_space(expected):
                return meta, False
            if meta.title == trimmed:
                return meta, True
            meta = dataclasses.replace(meta, title=trimmed)
            self._write_metadata(session_id, meta)
            return meta, True

    def update_model(self, session_id: str, model_id: str) -> Metadata:
        """Zero's UpdateModel: trimmed; empty clears it; no write when unchanged."""
        self._check_id(session_id)
        model = trim_space(model_id)
        with self.locked(session_id):
            meta = self._metadata_for_update(session_id)
            if meta.model_id == model:
                return meta
            meta = dataclasses.replace(meta, model_id=model)
            self._write_metadata(session_id, meta)
            return meta


def _restore_log(fd: int, length: int, cut: bytes) -> str:
    """Put a log back as it was before a failed append: its first `length` bytes, then the
    torn bytes `cut` that the append had cut off. Returns "" or a note that it could not."""
    try:
        os.ftruncate(fd, length)
        written = 0
        while written < len(cut):
            written += os.pwrite(fd, cut[written:], length + written)
        os.fsync(fd)
    except OSError as error:
        return f" (and the log could not be put back as it was: {os_reason(error)})"
    return ""


class _FlockWaiter:
    """A blocking flock(LOCK_EX) in its own thread, so that the caller can stop waiting.

    A blocking flock is queued by the kernel and wakes as soon as the holder unlocks, so a
    holder that re-locks at once (a busy agent) cannot starve it, as it starves a poll
    with LOCK_NB. A thread blocked in flock cannot be interrupted: when the caller gives
    up, the thread keeps the fd, and whenever it does get the lock it unlocks and closes
    at once, so no lock is ever left held.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.guard = threading.Lock()
        self.done = threading.Event()
        self.acquired = False
        self.error: OSError | None = None
        self.abandoned = False

    def run(self) -> None:
        assert fcntl is not None
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX)
            acquired, error = True, None
        except OSError as failure:
            acquired, error = False, failure
        with self.guard:
            if self.abandoned:
                if acquired:
                    fcntl.flock(self.fd, fcntl.LOCK_UN)
                os.close(self.fd)
                return
            self.acquired, self.error = acquired, error
            self.done.set()

    def wait(self, timeout: float | None) -> bool:
        self.done.wait(timeout)
        with self.guard:
            if self.done.is_set():
                if self.error is not None:
                    raise self.error
                return self.acquired
            self.abandoned = True
            return False


def _flock_within(fd: int, timeout: float | None) -> bool:
    """flock(fd, LOCK_EX) as a blocking waiter, giving up after `timeout` s (None: never).

    False means it gave up, and the fd then belongs to the waiting thread (see
    _FlockWaiter). OSError for a lock failure (the fd is still the caller's).
    """
    assert fcntl is not None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        pass
    if timeout is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return True
    waiter = _FlockWaiter(fd)
    threading.Thread(target=waiter.run, name="zero-tui-flock", daemon=True).start()
    return waiter.wait(timeout)


@contextmanager
def _soft_file_lock(path: Path, timeout: float | None, busy: SessionBusyError) -> Iterator[None]:
    """Where fcntl is missing (Windows): filelock's LockFileEx lock, polled."""
    import filelock  # here: on POSIX it is never needed, and it costs every start 15 ms

    file_lock = filelock.FileLock(
        path,
        mode=0o600,
        timeout=-1 if timeout is None else timeout,
        thread_local=False,
        fallback_to_soft=False,
    )
    try:
        file_lock.acquire()
    except filelock.Timeout:
        raise busy from None
    except OSError as error:
        raise StoreError(f"open zero session lock: {error.strerror}: {path}") from None
    try:
        yield
    finally:
        file_lock.release()


def sort_sessions(sessions: list[Metadata]) -> list[Metadata]:
    """Zero's List order: updatedAt descending (as strings), ties by session id ascending."""
    return sort_in_zero_order(sessions, attrgetter("updated_at"), attrgetter("session_id"))


def sort_in_zero_order(
    items: list[_Item], updated_at: Callable[[_Item], str], session_id: Callable[[_Item], str]
) -> list[_Item]:
    """`items` (sessions, or what stands for them) sorted in place in Zero's List order."""
    items.sort(key=session_id)
    items.sort(key=updated_at, reverse=True)
    return items


def _read_tail(data: bytes, start: int, size: int, session_id: str) -> LogTail | None:
    """Interpret the last `len(data)` bytes of a log; None when the window is too small."""
    whole_file = start == 0
    torn = not data.endswith(b"\n")
    keep_length = size
    needs_newline = False
    end = len(data)
    settled_keep = not torn
    # Walk pieces from the end: (piece_start, piece_end, terminated)
    while True:
        newline = data.rfind(b"\n", 0, end)
        if newline < 0 and not whole_file:
            return None
        piece_start = newline + 1
        terminated = end < len(data)  # a piece before the last "\n" of the window
        content = trim_space_bytes(data[piece_start:end])
        if content:
            try:
                sequence = decode_line(content, session_id, 0).sequence
            except StoreError:
                if not settled_keep:
                    # the reader drops this torn line: cut back to where it starts
                    keep_length = start + piece_start
                    settled_keep = True
                    if newline < 0:
                        return LogTail(keep_length, False, 0)
                    end = newline
                    continue
                # a complete line that does not decode: the log is corrupt; leave the
                # bytes alone and let the metadata count decide the sequence
                return LogTail(keep_length, needs_newline, None)
            if not settled_keep:
                if terminated:
                    keep_length = start + end + 1
                else:
                    needs_newline = True
            return LogTail(keep_length, needs_newline, sequence)
        if newline < 0:
            # reached the start of the file without a complete event
            return LogTail(0 if not settled_keep else keep_length, False, 0)
        end = newline
