"""A trash for sessions, outside Zero's store (design §3.11): delete is a move, restorable.

`move_to_trash` renames the session directory, under its lock and in one step, into
`<zero-tui data dir>/trash/<store key>/`, so Zero no longer lists it; a record beside it
(`<entry>.json`) says where it came from and when. `restore` renames it back, bytes and
modes as they were, and refuses when the name is taken. `empty_trash` is the only thing
that removes a session for good. Nothing here follows a symlink: a symlinked session
directory is refused, and removal never descends through one.

The trash must be on the store's filesystem for the move to be one rename; where the data
directory is not, the trash is `<store>/../zero-tui-trash/<store key>/` instead (beside
Zero's folder, never inside it), and `trashed()` lists both. The key is the store's
resolved path (`store_key`), so every spelling of a store finds one trash.

What keeps a session whole (issue 25):

* Each trash folder is the user's own, 0700, never a symlink, and sits in a folder no
  other user can write to; all of that is checked on every use, and a folder that fails
  is not used (nor listed).
* Restore and emptying take the folder's lock (`flock` on `.lock`): an entry is restored
  whole or emptied whole, never both. Emptying first renames an entry into `.emptying/`,
  out of the listing, then removes it; what a crash or an error leaves there is never
  listed nor restored, but reported (`trash_contents().damaged`) with how to remove it,
  as is an entry that an older zero-tui left half removed.
* An entry's session id is its name's, checked as Zero checks one, before it names a path.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shlex
import shutil
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

from zero_tui.atomic import write_atomic
from zero_tui.paths import default_data_dir
from zero_tui.store.errors import StoreError
from zero_tui.store.models import Metadata
from zero_tui.store.root import store_key, typed_store_key
from zero_tui.store.session_flags import forget_flags
from zero_tui.store.store import (
    EVENTS_FILE,
    METADATA_FILE,
    SessionStore,
    open_regular,
    os_reason,
    read_regular,
    valid_session_id,
)

RECORD_SUFFIX = ".json"
LOCK_NAME = ".lock"
EMPTYING = ".emptying"
_TOPS = ("trash", "zero-tui-trash")  # in the data dir; beside the store
_PARTS = (METADATA_FILE, EVENTS_FILE)  # what a record says the session had


class UnsafeTrash(StoreError):
    """A trash folder that another user could have put there, or could change."""


@dataclass(frozen=True, slots=True)
class Trashed:
    """One session in the trash: its entry (the moved directory) and what its record says."""

    session_id: str
    entry: Path
    store_root: str
    trashed_at: str  # RFC 3339, UTC
    title: str
    cwd: str

    def to_json(self) -> dict[str, object]:
        return {
            "sessionId": self.session_id,
            "title": self.title,
            "cwd": self.cwd,
            "trashedAt": self.trashed_at,
            "store": self.store_root,
            "path": str(self.entry),
        }


@dataclass(frozen=True, slots=True)
class Damaged:
    """Something in the trash that is no whole session (never listed nor restored): what
    is left, why, and the command that removes it (none for a folder that is not ours)."""

    path: Path
    reason: str
    removable: bool = True

    @property
    def command(self) -> str:
        return f"rm -rf -- {shlex.quote(str(self.path))}" if self.removable else ""

    def describe(self) -> str:
        """One line: `damaged: PATH: why; remove it with: rm -rf -- PATH`."""
        line = f"damaged: {self.path}: {self.reason}"
        return f"{line}; remove it with: {self.command}" if self.removable else line


@dataclass(frozen=True, slots=True)
class TrashContents:
    items: list[Trashed] = field(default_factory=list)
    damaged: list[Damaged] = field(default_factory=list)


# --- the trash folders ------------------------------------------------------------------------


def trash_dirs(store: SessionStore) -> list[Path]:
    """Where this store's trash may be: zero-tui's data dir, then beside the store."""
    return [container / top / store_key(store.root) for container, top in _containers(store)]


def _containers(store: SessionStore) -> list[tuple[Path, str]]:
    beside = Path(os.path.realpath(store.root)).parent.parent
    return [(default_data_dir(), _TOPS[0]), (beside, _TOPS[1])]


def _listed_dirs(store: SessionStore) -> Iterator[tuple[Path, str, str]]:
    """(container, top, key) of every folder this store's trash may be in: the resolved
    path's key, then the typed path's (what an older zero-tui wrote)."""
    keys = dict.fromkeys((store_key(store.root), typed_store_key(store.root)))
    for container, top in _containers(store):
        for key in keys:
            yield container, top, key


def _safe_dir(container: Path, top: str, key: str, *, create: bool) -> Path | None:
    """`container/top/key` once checked (None: absent and not created): UnsafeTrash when
    `container` is writable by every user or belongs to another, or a folder below it is a
    symlink, not a folder, or not the user's own. A folder of ours that others may read is
    made 0700."""
    if create and top == _TOPS[0]:
        container.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        info = os.stat(container)
    except FileNotFoundError:
        return None
    if info.st_mode & stat.S_IWOTH:
        raise UnsafeTrash(f"{container} is writable by every user: no trash is kept there")
    if info.st_uid not in (os.geteuid(), 0):
        raise UnsafeTrash(f"{container} belongs to another user (uid {info.st_uid})")
    path = container
    for name in (top, key):
        path = path / name
        if create:
            with contextlib.suppress(FileExistsError):
                os.mkdir(path, 0o700)
        if not _own_private_dir(path):
            return None
    return path


def _own_private_dir(path: Path) -> bool:
    """Whether `path` is there (UnsafeTrash when it is not a folder of the user's own)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            raise UnsafeTrash(f"{path} is a symlink or not a folder") from None
        raise UnsafeTrash(f"{path}: {os_reason(error)}") from None
    try:
        info = os.fstat(fd)
        if info.st_uid != os.geteuid():
            raise UnsafeTrash(f"{path} belongs to another user (uid {info.st_uid})")
        if stat.S_IMODE(info.st_mode) & 0o077:
            os.fchmod(fd, 0o700)
    finally:
        os.close(fd)
    return True


@contextlib.contextmanager
def _trash_lock(directory: Path) -> Iterator[None]:
    """The trash folder's lock: restore and emptying take it, so they never overlap."""
    if fcntl is None:  # pragma: no cover - not POSIX
        yield
        return
    fd = open_regular(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # drops the lock


# --- delete ---------------------------------------------------------------------------------


def move_to_trash(
    store: SessionStore,
    session_id: str,
    *,
    now: datetime | None = None,
    refuse: Callable[[], str | None] | None = None,
) -> Trashed:
    """Move one session into the trash (StoreError, one line, when it cannot be).

    `refuse`, asked under the session's lock right before the move: why not (one line),
    else None (whether an agent could be writing it: the layers above know)."""
    if not valid_session_id(session_id):
        raise StoreError(f"zero session not found: {session_id}")
    source = store.session_dir(session_id)
    try:
        info = os.lstat(source)
    except FileNotFoundError:
        raise StoreError(f"zero session not found: {session_id}") from None
    except OSError as error:
        raise StoreError(f"cannot delete {session_id}: {os_reason(error)}") from None
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise StoreError(f"not deleting {session_id}: it is not a session folder (a symlink?)")
    try:
        meta: Metadata | None = store.get(session_id)
    except StoreError:
        meta = None
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    stamp = moment.strftime("%Y%m%dT%H%M%S.%fZ")
    reasons: list[str] = []
    for container, top in _containers(store):
        try:
            directory = _safe_dir(container, top, store_key(store.root), create=True)
        except (UnsafeTrash, OSError) as error:
            reasons.append(str(error) if isinstance(error, StoreError) else os_reason(error))
            continue
        if directory is None:
            continue
        entry = directory / f"{session_id}@{stamp}"
        record = _record(session_id, store, moment, meta)
        try:
            with store.locked(session_id):  # no append is half-way when it moves
                refusal = refuse() if refuse is not None else None
                if refusal is not None:
                    raise StoreError(refusal)
                os.rename(source, entry)
        except OSError as error:
            if error.errno == errno.EXDEV:
                continue  # another filesystem: the next place
            raise StoreError(f"cannot delete {session_id}: {os_reason(error)}") from None
        _write_record(entry, record)
        return _trashed(entry, record)
    why = f" ({'; '.join(reasons)})" if reasons else ""
    raise StoreError(f"cannot delete {session_id}: no safe trash on the store's filesystem{why}")


def _record(
    session_id: str, store: SessionStore, moment: datetime, meta: Metadata | None
) -> dict[str, object]:
    source = store.session_dir(session_id)
    return {
        "sessionId": session_id,
        "store": os.path.realpath(store.root),
        "trashedAt": moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "title": meta.title if meta is not None else "",
        "cwd": meta.cwd if meta is not None else "",
        "parts": [name for name in _PARTS if stat.S_ISREG(_lstat_mode(source / name))],
    }


def _write_record(entry: Path, record: dict[str, object]) -> None:
    with contextlib.suppress(OSError, ValueError):  # the entry alone still restores
        write_atomic(str(entry) + RECORD_SUFFIX, json.dumps(record).encode())


def _trashed(entry: Path, record: dict[str, object]) -> Trashed:
    def text(key: str) -> str:
        value = record.get(key)
        return value if isinstance(value, str) else ""

    return Trashed(
        entry.name.partition("@")[0],  # the name's id, never the record's: it names paths
        entry,
        text("store"),
        text("trashedAt") or _stamp_time(entry.name.partition("@")[2]),
        text("title"),
        text("cwd"),
    )


# --- what the trash holds ---------------------------------------------------------------------


def trash_contents(store: SessionStore) -> TrashContents:
    """This store's sessions in the trash, newest first, and what is damaged there."""
    contents = TrashContents()
    for container, top, key in _listed_dirs(store):
        try:
            directory = _safe_dir(container, top, key, create=False)
        except UnsafeTrash as error:
            contents.damaged.append(Damaged(container / top / key, str(error), removable=False))
            continue
        if directory is not None:
            _read_dir(directory, contents)
    contents.items.sort(key=lambda item: (item.trashed_at, item.entry.name), reverse=True)
    return contents


def trash_state(store: SessionStore) -> tuple[int, ...]:
    """What changes whenever an entry goes in or out of this store's trash (its folders'
    modification times and how many names each holds, as a time may not tick between two
    moves): a count need not be read again while it stays the same."""
    state: list[int] = []
    for container, top, key in _listed_dirs(store):
        directory = container / top / key
        try:
            state += [os.stat(directory).st_mtime_ns, len(os.listdir(directory))]
        except OSError:
            state += [0, 0]
    return tuple(state)


def trashed(store: SessionStore) -> list[Trashed]:
    """This store's whole sessions in the trash, newest first."""
    return trash_contents(store).items


def _read_dir(directory: Path, contents: TrashContents) -> None:
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        if name == EMPTYING:
            for left in _names(directory / EMPTYING):
                contents.damaged.append(
                    Damaged(
                        directory / EMPTYING / left,
                        "partly removed by a `trash --empty` that did not finish "
                        "(zero-tui trash --empty finishes it)",
                    )
                )
            continue
        entry = directory / name
        if not _entry_name(name) or not stat.S_ISDIR(_lstat_mode(entry)):
            continue
        record = _read_record(entry)
        missing = _missing_part(entry, record)
        if missing is not None:
            contents.damaged.append(Damaged(entry, f"a partly removed session: {missing}"))
            continue
        contents.items.append(_trashed(entry, record))


def _entry_name(name: str) -> bool:
    session_id, at, _stamp = name.partition("@")
    return bool(at) and not name.endswith(RECORD_SUFFIX) and valid_session_id(session_id)


def _names(directory: Path) -> list[str]:
    try:
        return sorted(os.listdir(directory))
    except OSError:
        return []


def _lstat_mode(path: Path) -> int:
    try:
        return os.lstat(path).st_mode
    except OSError:
        return 0


def _missing_part(entry: Path, record: dict[str, object]) -> str | None:
    """What a trashed session lacks that it had (a removal stopped half-way), else None.

    The record names the files it had; without one (an older zero-tui's, or a move whose
    record was never written), Zero's order says: it writes metadata.json first and
    events.jsonl with the first event, so a session with no metadata, or whose metadata
    counts events that have no log, is not whole."""
    parts = record.get("parts")
    if isinstance(parts, list):
        for name in _PARTS:
            if name in parts and not stat.S_ISREG(_lstat_mode(entry / name)):
                return f"{name} is gone"
        return None
    try:
        raw = read_regular(entry / METADATA_FILE)
    except OSError:
        return f"{METADATA_FILE} is gone"
    if stat.S_ISREG(_lstat_mode(entry / EVENTS_FILE)):
        return None
    try:
        count = json.loads(raw).get("eventCount")
    except (ValueError, AttributeError):
        return None  # metadata that was damaged before: not ours to judge
    if isinstance(count, int) and count > 0:
        return f"{EVENTS_FILE} is gone ({count} events were recorded)"
    return None


def _read_record(entry: Path) -> dict[str, object]:
    try:
        record = json.loads(read_regular(str(entry) + RECORD_SUFFIX))
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def _stamp_time(stamp: str) -> str:
    try:
        moment = datetime.strptime(stamp, "%Y%m%dT%H%M%S.%fZ")
    except ValueError:
        return ""
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def find_trashed(store: SessionStore, argument: str) -> Trashed:
    """The trashed session an id or a unique prefix names (the newest, if trashed twice)."""
    entries = trashed(store)
    exact = [item for item in entries if item.session_id == argument]
    matches = exact or [item for item in entries if item.session_id.startswith(argument)]
    ids = sorted({item.session_id for item in matches})
    if not ids:
        raise StoreError(f"not in the trash: {argument}")
    if len(ids) > 1:
        raise StoreError(
            f"ambiguous session id {argument!r}: {len(ids)} sessions in the trash start "
            f"with it: {', '.join(ids[:5])}"
        )
    return matches[0]


# --- restore and empty ----------------------------------------------------------------------


def _checked_dir_of(store: SessionStore, entry: Path) -> Path:
    """The trash folder `entry` is in, checked again now (UnsafeTrash, StoreError)."""
    for container, top, key in _listed_dirs(store):
        if entry.parent == container / top / key:
            directory = _safe_dir(container, top, key, create=False)
            if directory is not None:
                return directory
    raise StoreError(f"not in the trash: {entry}")


def restore(store: SessionStore, item: Trashed) -> Path:
    """Move a trashed session back into the store, exactly as it was; refused when the store
    has a session of that name already, or when the entry is no longer whole in the trash
    (emptied meanwhile)."""
    if not valid_session_id(item.session_id):
        raise StoreError(f"not restoring {item.entry.name}: not a session id")
    target = store.session_dir(item.session_id)
    directory = _checked_dir_of(store, item.entry)
    with _trash_lock(directory):
        if not stat.S_ISDIR(_lstat_mode(item.entry)):
            raise StoreError(
                f"not in the trash any more: {item.session_id} (restored or emptied meanwhile)"
            )
        missing = _missing_part(item.entry, _read_record(item.entry))
        if missing is not None:
            raise StoreError(f"not restoring {item.session_id}: {missing}")
        if os.path.lexists(target):
            raise StoreError(
                f"not restoring {item.session_id}: the store has a session of that name already"
            )
        try:
            store.root.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.rename(item.entry, target)  # nothing is there: lexists just said so
        except OSError as error:
            raise StoreError(f"cannot restore {item.session_id}: {os_reason(error)}") from None
        with contextlib.suppress(OSError):
            os.unlink(str(item.entry) + RECORD_SUFFIX)
    return target


def empty_trash(
    store: SessionStore, *, older_than_days: float | None = None, now: datetime | None = None
) -> list[Trashed]:
    """Remove trashed sessions for good (those trashed more than `older_than_days` ago, when
    given; else also what is damaged there); returns what was removed.

    Under each folder's lock, every entry to go is renamed into `.emptying/`, out of the
    listing, in one step; they are removed after. StoreError names what is left when a
    removal fails."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    removed: list[Trashed] = []
    going: list[Path] = []
    for container, top, key in _listed_dirs(store):
        try:
            directory = _safe_dir(container, top, key, create=False)
        except UnsafeTrash:
            continue  # not used: `trash` says why
        if directory is None:
            continue
        with _trash_lock(directory):
            contents = TrashContents()
            _read_dir(directory, contents)
            chosen = [item for item in contents.items if _old_enough(item, older_than_days, moment)]
            partial = [] if older_than_days is not None else contents.damaged
            for path in [item.entry for item in chosen] + [damaged.path for damaged in partial]:
                if path.parent.name == EMPTYING:
                    continue  # already there
                _set_aside(directory, path)
            removed.extend(chosen)
            _forget_lone_records(directory)
        going.extend(directory / EMPTYING / name for name in _names(directory / EMPTYING))
    failures: list[StoreError] = []
    for path in going:
        try:
            _remove(path)
        except StoreError as error:
            failures.append(error)  # the others still go
    _forget_flags_of_gone(store, removed)
    if failures:
        raise failures[0]
    return removed


def _forget_flags_of_gone(store: SessionStore, removed: list[Trashed]) -> None:
    """Forget the pins and tags of the sessions gone for good (not of an id the store or
    the trash still has)."""
    if not removed:
        return
    still = {item.session_id for item in trashed(store)}
    gone = [
        item.session_id
        for item in removed
        if item.session_id not in still and not os.path.lexists(store.session_dir(item.session_id))
    ]
    forget_flags(store.root, gone)


def _old_enough(item: Trashed, older_than_days: float | None, moment: datetime) -> bool:
    if older_than_days is None:
        return True
    try:
        when = datetime.strptime(item.trashed_at, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return False  # no date: not known to be old
    return (moment - when).total_seconds() >= older_than_days * 86400


def _set_aside(directory: Path, entry: Path) -> None:
    """Rename `entry` into `.emptying/` (in one step: it leaves the listing whole)."""
    aside = directory / EMPTYING
    with contextlib.suppress(FileExistsError):
        os.mkdir(aside, 0o700)
    try:
        os.rename(entry, aside / entry.name)
    except OSError as error:
        raise StoreError(f"cannot remove {entry}: {os_reason(error)}") from None
    with contextlib.suppress(OSError):
        os.unlink(str(entry) + RECORD_SUFFIX)


def _forget_lone_records(directory: Path) -> None:
    """Remove the records whose entry is gone (a restore or an emptying stopped between
    its rename and the record's unlink), and a record's temp file whose writer is dead (a
    delete stopped while writing it: `write_atomic` names it `.<name>.<pid>-<hex>.tmp`)."""
    for name in _names(directory):
        entry = name.removesuffix(RECORD_SUFFIX)
        lone = entry != name and _entry_name(entry) and not os.path.lexists(directory / entry)
        if lone or _dead_writers_temp(name):
            with contextlib.suppress(OSError):
                os.unlink(directory / name)


def _dead_writers_temp(name: str) -> bool:
    if not (name.startswith(".") and name.endswith(".tmp") and RECORD_SUFFIX in name):
        return False
    writer = name.removesuffix(".tmp").rpartition(".")[2].partition("-")[0]
    if not writer.isdigit():
        return False
    try:
        os.kill(int(writer), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def _remove(path: Path) -> None:
    def gone_already(
        _function: object, _path: str, info: tuple[type, BaseException, object]
    ) -> None:
        if not isinstance(info[1], FileNotFoundError):  # another `--empty` removed it first
            raise info[1]

    try:
        shutil.rmtree(path, onerror=gone_already)  # never descends through a symlink
    except OSError as error:
        raise StoreError(
            f"cannot remove {path}: {os_reason(error)}; what is left is not listed: "
            f"{Damaged(path, '').command} removes it"
        ) from None
