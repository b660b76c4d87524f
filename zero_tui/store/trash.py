"""A trash for sessions, outside Zero's store (design §3.11): delete is a move, restorable.

`move_to_trash` renames the session directory, under its lock and in one step, into
`<zero-tui data dir>/trash/<store>/`, so Zero no longer lists it; a record beside it
(`<entry>.json`) says where it came from and when. `restore` renames it back, bytes and
modes as they were, and refuses when the name is taken. `empty_trash` is the only thing
that removes a session for good. Nothing here follows a symlink: a symlinked session
directory is refused, and removal never descends through one.

The trash must be on the store's filesystem for the move to be one rename; where the data
directory is not, the trash is `<store>/../zero-tui-trash/<store>/` instead (beside
Zero's folder, never inside it), and `trashed()` lists both.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shutil
import stat
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from zero_tui.paths import default_data_dir
from zero_tui.store.errors import StoreError
from zero_tui.store.models import Metadata
from zero_tui.store.store import SessionStore, os_reason, valid_session_id

RECORD_SUFFIX = ".json"


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


def _store_key(store: SessionStore) -> str:
    return hashlib.sha256(os.fsencode(os.path.abspath(store.root))).hexdigest()[:20]


def trash_dirs(store: SessionStore) -> list[Path]:
    """Where this store's trash may be: zero-tui's data dir, then beside the store."""
    key = _store_key(store)
    beside = Path(os.path.abspath(store.root)).parent.parent / "zero-tui-trash" / key
    return [default_data_dir() / "trash" / key, beside]


def move_to_trash(store: SessionStore, session_id: str, *, now: datetime | None = None) -> Trashed:
    """Move one session into the trash (StoreError, one line, when it cannot be)."""
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
    for directory in trash_dirs(store):
        try:
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError:
            continue
        entry = directory / f"{session_id}@{stamp}"
        record = _record(session_id, store, moment, meta)
        try:
            with store.locked(session_id):  # no append is half-way when it moves
                os.rename(source, entry)
        except OSError as error:
            if error.errno == errno.EXDEV:
                continue  # another filesystem: the next place
            raise StoreError(f"cannot delete {session_id}: {os_reason(error)}") from None
        _write_record(entry, record)
        return _trashed(entry, record)
    raise StoreError(f"cannot delete {session_id}: no trash on the store's filesystem")


def _record(
    session_id: str, store: SessionStore, moment: datetime, meta: Metadata | None
) -> dict[str, str]:
    return {
        "sessionId": session_id,
        "store": os.path.abspath(store.root),
        "trashedAt": moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "title": meta.title if meta is not None else "",
        "cwd": meta.cwd if meta is not None else "",
    }


def _write_record(entry: Path, record: dict[str, str]) -> None:
    from zero_tui.atomic import write_atomic

    with contextlib.suppress(OSError, ValueError):  # the entry alone still restores
        write_atomic(str(entry) + RECORD_SUFFIX, json.dumps(record).encode())


def _trashed(entry: Path, record: dict[str, str]) -> Trashed:
    return Trashed(
        record.get("sessionId", "") or entry.name.partition("@")[0],
        entry,
        record.get("store", ""),
        record.get("trashedAt", ""),
        record.get("title", ""),
        record.get("cwd", ""),
    )


def trashed(store: SessionStore) -> list[Trashed]:
    """This store's sessions in the trash, newest first."""
    found: list[Trashed] = []
    for directory in trash_dirs(store):
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        for name in names:
            entry = directory / name
            if name.endswith(RECORD_SUFFIX) or "@" not in name or not entry.is_dir():
                continue
            try:
                record = json.loads((directory / (name + RECORD_SUFFIX)).read_bytes())
            except (OSError, ValueError):
                record = {}
            if not isinstance(record, dict):
                record = {}
            strings = {key: value for key, value in record.items() if isinstance(value, str)}
            if not strings.get("trashedAt"):
                strings["trashedAt"] = _stamp_time(name.partition("@")[2])
            found.append(_trashed(entry, strings))
    found.sort(key=lambda item: (item.trashed_at, item.entry.name), reverse=True)
    return found


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


def restore(store: SessionStore, item: Trashed) -> Path:
    """Move a trashed session back into the store, exactly as it was; refused when the store
    has a session of that name already."""
    target = store.session_dir(item.session_id)
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
    given); returns what was removed."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    removed: list[Trashed] = []
    for item in trashed(store):
        if older_than_days is not None:
            try:
                when = datetime.strptime(item.trashed_at, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
            except ValueError:
                continue  # no date: not known to be old
            if (moment - when).total_seconds() < older_than_days * 86400:
                continue
        try:
            shutil.rmtree(item.entry)  # never descends through a symlink
        except OSError as error:
            raise StoreError(f"cannot remove {item.entry}: {os_reason(error)}") from None
        with contextlib.suppress(OSError):
            os.unlink(str(item.entry) + RECORD_SUFFIX)
        removed.append(item)
    return removed
