"""A derived catalog of the store, so listing does not have to re-read every session.

It caches each session's metadata and its "has resumable content" verdict, keyed by the
identity of the files they came from (inode, size, mtime). It is never the source of
truth: a missing, corrupt or foreign cache file is ignored and rebuilt, and every entry
is revalidated against the store with a stat before it is trusted (`refresh`). The only
unvalidated read is `cached_sessions`, which lets a UI paint its first rows before the
revalidating scan finishes.

The file is JSON (one read, one `json.loads`): it needs no queries, and unlike pickle it
cannot run code if someone else manages to write it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zero_tui.store import Goal, Metadata, SessionStore
from zero_tui.store.resumable import has_resumable_content
from zero_tui.store.store import EVENTS_FILE, METADATA_FILE, UnreadableSession, sort_sessions

CATALOG_VERSION = 1
_METADATA_FIELDS = tuple(field.name for field in dataclasses.fields(Metadata))
_GOAL_FIELDS = tuple(field.name for field in dataclasses.fields(Goal))
_GOAL_INDEX = _METADATA_FIELDS.index("goal")

FileKey = tuple[int, int, int]  # (inode, size, mtime_ns)


def default_cache_dir() -> Path:
    override = os.environ.get("ZERO_TUI_CACHE_DIR", "").strip()
    if override:
        return Path(override)
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    return Path(base or Path.home() / ".cache") / "zero-tui"


def _file_key(path: str) -> FileKey | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def _as_file_key(value: Any) -> FileKey:
    inode, size, mtime = value
    return (int(inode), int(size), int(mtime))


def _metadata_values(meta: Metadata) -> list[Any]:
    values: list[Any] = [getattr(meta, name) for name in _METADATA_FIELDS]
    goal = values[_GOAL_INDEX]
    if goal is not None:
        values[_GOAL_INDEX] = [getattr(goal, name) for name in _GOAL_FIELDS]
    return values


def _metadata_from_values(values: list[Any]) -> Metadata:
    if len(values) != len(_METADATA_FIELDS):
        raise ValueError("catalog entry has the wrong shape")
    goal = values[_GOAL_INDEX]
    if goal is not None:
        values = list(values)
        values[_GOAL_INDEX] = Goal(*goal)
    return Metadata(*values)


@dataclass(slots=True)
class _Entry:
    metadata_key: FileKey
    metadata: Metadata
    events_key: FileKey | None = None
    has_content: bool | None = None


class SessionCatalog:
    """The store's sessions, remembered between runs; safe to share between threads."""

    def __init__(self, store: SessionStore, cache_dir: Path | None = None) -> None:
        self.store = store
        root_digest = hashlib.sha256(os.fsencode(os.path.abspath(store.root))).hexdigest()[:20]
        self.path = (cache_dir or default_cache_dir()) / f"catalog-{root_digest}.json"
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()
        self._loaded = False
        self._dirty = False
        self.unreadable: list[UnreadableSession] = []  # as of the last `refresh`

    # --- the cache file --------------------------------------------------------------

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        try:
            document = json.loads(self.path.read_bytes())
            if document.get("version") != CATALOG_VERSION or document.get("root") != str(
                self.store.root
            ):
                return
            entries: dict[str, _Entry] = {}
            for name, (meta_key, events_key, verdict, values) in document["sessions"].items():
                entries[name] = _Entry(
                    _as_file_key(meta_key),
                    _metadata_from_values(values),
                    _as_file_key(events_key) if events_key else None,
                    verdict if isinstance(verdict, bool) else None,
                )
            self._entries = entries
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            self._entries = {}

    def save(self) -> None:
        """Write the catalog atomically; a cache that cannot be written is simply skipped."""
        with self._lock:
            if not self._dirty:
                return
            document = {
                "version": CATALOG_VERSION,
                "root": str(self.store.root),
                "sessions": {
                    name: [
                        list(entry.metadata_key),
                        list(entry.events_key) if entry.events_key else None,
                        entry.has_content,
                        _metadata_values(entry.metadata),
                    ]
                    for name, entry in self._entries.items()
                },
            }
            self._dirty = False
        data = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode(
            "utf-8", "surrogateescape"
        )
        temp = self.path.with_name(f"{self.path.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}")
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(temp, self.path)
        except OSError:
            with contextlib.suppress(OSError):
                temp.unlink()

    # --- reading -----------------------------------------------------------------------

    def cached_sessions(self) -> list[Metadata]:
        """What the cache remembers, in Zero's order, without touching the store."""
        with self._lock:
            self._load()
            return sort_sessions([entry.metadata for entry in self._entries.values()])

    def refresh(self) -> list[Metadata]:
        """Every valid session now in the store (Zero's List), re-reading only what changed."""
        root = os.fspath(self.store.root)
        with self._lock:
            self._load()
            previous = self._entries
        current: dict[str, _Entry] = {}
        unreadable: list[UnreadableSession] = []
        changed = False
        for name in self.store.iter_session_dirs():
            metadata_path = os.path.join(root, name, METADATA_FILE)
            key = _file_key(metadata_path)
            if key is None:  # missing or not even stat-able: say why, list it next time
                found = self.store.read_session(name)
                if isinstance(found, UnreadableSession):
                    unreadable.append(found)
                continue
            entry = previous.get(name)
            if entry is None or entry.metadata_key != key:
                found = self.store.read_session(name)
                if isinstance(found, UnreadableSession):
                    unreadable.append(found)
                    changed = changed or entry is not None
                    continue
                meta = found
                keep_verdict = entry is not None
                entry = _Entry(
                    key,
                    meta,
                    entry.events_key if keep_verdict and entry else None,
                    entry.has_content if keep_verdict and entry else None,
                )
                changed = True
            current[name] = entry
        with self._lock:
            if changed or current.keys() != previous.keys():
                self._dirty = True
            self._entries = current
            self.unreadable = sorted(unreadable, key=lambda found: found.session_id)
            return sort_sessions([entry.metadata for entry in current.values()])

    def has_content(self, session_id: str) -> bool:
        """has_resumable_content, remembered until the log changes."""
        events_key = _file_key(os.path.join(self.store.root, session_id, EVENTS_FILE))
        with self._lock:
            entry = self._entries.get(session_id)
            if (
                entry is not None
                and events_key is not None
                and entry.events_key == events_key
                and entry.has_content is not None
            ):
                return entry.has_content
        verdict = has_resumable_content(self.store, session_id)
        with self._lock:
            entry = self._entries.get(session_id)
            if entry is not None and events_key is not None:
                entry.events_key = events_key
                entry.has_content = verdict
                self._dirty = True
        return verdict
