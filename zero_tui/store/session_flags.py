"""Pins, tags and the archive: zero-tui's own marks on a store's sessions (design §13).

They live in zero-tui's data directory, never in Zero's `metadata.json` (Zero rewrites it),
in one file per store: `<data dir>/flags/<store key>.json`, keyed by the store's resolved
path (`store_key`, as the trash and the run registry are) and inside by session id. The
archive is a view: an archived session stays where it is, resumable by id.

* Written atomically (`write_atomic`), read as zero-tui's own files are (`read_own_file`:
  a regular file, never through a symlink, never past `FLAGS_LIMIT`). A damaged file reads
  as no flags at all, with one warning line, never an error.
* A change is read-modify-write under `<store key>.lock` (filelock), so two zero-tui
  processes tagging at once never lose each other's tags.
* Keyed by id, the flags follow a session into the trash and back out of it; emptying the
  trash forgets them (`forget_flags`). A fork starts with none of its own; `parent_tags`
  is what is shown of its parent's.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol, TypeVar

from zero_tui.atomic import AtomicWriteError, write_atomic
from zero_tui.paths import default_data_dir
from zero_tui.store.errors import StoreError
from zero_tui.store.regular_files import read_own_file
from zero_tui.store.root import store_key

FLAGS_LIMIT = 8 * 1024 * 1024
TAG_LIMIT = 40
LOCK_TIMEOUT = 30.0
_FORMAT = 1
_BAD_TAG_CHARACTER = re.compile(r"[\s,\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True, slots=True)
class SessionFlags:
    """What zero-tui keeps of one session: pinned, archived, its tags (sorted, distinct)."""

    pinned: bool = False
    archived: bool = False
    tags: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.pinned or self.archived or self.tags)

    def has_tag(self, name: str) -> bool:
        folded = name.casefold()
        return any(tag.casefold() == folded for tag in self.tags)

    def with_tags(self, added: Iterable[str] = (), removed: Iterable[str] = ()) -> SessionFlags:
        gone = {name.casefold() for name in removed}
        kept = [tag for tag in self.tags if tag.casefold() not in gone]
        for name in added:
            if not any(tag.casefold() == name.casefold() for tag in kept):
                kept.append(name)
        return replace(self, tags=tuple(sorted(kept, key=str.casefold)))

    def to_json(self) -> dict[str, object]:
        return {"pinned": self.pinned, "archived": self.archived, "tags": list(self.tags)}


NO_FLAGS = SessionFlags()


@dataclass(frozen=True, slots=True)
class FlagBook:
    """Every flagged session of a store (`of` answers NO_FLAGS for the others), and the
    warning line of a damaged file ("" when it read well)."""

    sessions: Mapping[str, SessionFlags]
    warning: str = ""

    def of(self, session_id: str) -> SessionFlags:
        return self.sessions.get(session_id, NO_FLAGS)

    def ids(self, test: Callable[[SessionFlags], bool]) -> frozenset[str]:
        return frozenset(key for key, flags in self.sessions.items() if test(flags))


EMPTY_BOOK = FlagBook({})


def tag_problem(name: str) -> str | None:
    """Why `name` cannot be a tag (one line), else None."""
    if not name:
        return "a tag needs a name"
    if _BAD_TAG_CHARACTER.search(name):
        return f"not a tag: {name!r} (no spaces, commas or control characters)"
    if name[0] in "+-":
        return f"not a tag: {name!r} (it cannot start with + or -)"
    if len(name) > TAG_LIMIT:
        return f"not a tag: {name[:TAG_LIMIT]}… (at most {TAG_LIMIT} characters)"
    return None


def parse_tag_changes(words: Iterable[str]) -> tuple[list[str], list[str]]:
    """`+work -old plain` → (added, removed): a plain name is added. ValueError (one line)
    for a word that is no tag."""
    added: list[str] = []
    removed: list[str] = []
    for word in words:
        sign = word[:1]
        name = word[1:] if sign in ("+", "-") else word
        problem = tag_problem(name)
        if problem is not None:
            raise ValueError(problem)
        (removed if sign == "-" else added).append(name)
    return added, removed


def flags_path(root: str | os.PathLike[str]) -> Path:
    """Where the flags of the store at `root` are kept."""
    return default_data_dir() / "flags" / f"{store_key(root)}.json"


def read_flags(root: str | os.PathLike[str]) -> FlagBook:
    """The flags of the store at `root`: none when there is no file, none and a warning
    when it is damaged (never an error)."""
    path = flags_path(root)
    try:
        raw = read_own_file(path, FLAGS_LIMIT)
    except FileNotFoundError:
        return EMPTY_BOOK
    except OSError as error:
        return FlagBook({}, f"pins and tags not read: {path}: {error.strerror or error}")
    return _decoded(raw, path)


def _decoded(raw: bytes, path: Path) -> FlagBook:
    damaged = FlagBook(
        {},
        f"pins and tags not read: {path} is damaged: read as none (the next change writes it anew)",
    )
    try:
        document = json.loads(raw)
    except ValueError:
        return damaged
    entries = document.get("sessions") if isinstance(document, dict) else None
    if not isinstance(entries, dict):
        return damaged
    sessions: dict[str, SessionFlags] = {}
    for session_id, entry in entries.items():
        if not isinstance(entry, dict):
            continue
        tags = entry.get("tags")
        names = [tag for tag in tags if isinstance(tag, str)] if isinstance(tags, list) else []
        flags = SessionFlags(
            entry.get("pinned") is True,
            entry.get("archived") is True,
            tuple(sorted({tag for tag in names if tag_problem(tag) is None}, key=str.casefold)),
        )
        if not flags.empty:
            sessions[session_id] = flags
    return FlagBook(sessions)


def update_flags(
    root: str | os.PathLike[str],
    session_ids: Iterable[str],
    change: Callable[[SessionFlags], SessionFlags],
) -> FlagBook:
    """Apply `change` to each session's flags and write them all back, under the store's
    flags lock (StoreError, one line, when they cannot be written). Returns the new book."""
    import filelock  # here: 15 ms of every start, and only a change needs it

    path = flags_path(root)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        lock = filelock.FileLock(
            path.with_suffix(".lock"), mode=0o600, timeout=LOCK_TIMEOUT, thread_local=False
        )
        with lock:
            book = read_flags(root)
            sessions = dict(book.sessions)
            for session_id in session_ids:
                flags = change(sessions.get(session_id, NO_FLAGS))
                if flags.empty:
                    sessions.pop(session_id, None)
                else:
                    sessions[session_id] = flags
            document = {
                "format": _FORMAT,
                "store": os.path.realpath(root),
                "sessions": {key: sessions[key].to_json() for key in sorted(sessions)},
            }
            write_atomic(str(path), json.dumps(document, ensure_ascii=False, indent=1).encode())
    except filelock.Timeout:
        raise StoreError(f"pins and tags are busy: another zero-tui holds {path}") from None
    except AtomicWriteError as error:
        raise StoreError(str(error)) from None
    except OSError as error:
        raise StoreError(f"cannot keep pins and tags in {path.parent}: {error.strerror}") from None
    return FlagBook(sessions)


def forget_flags(root: str | os.PathLike[str], session_ids: Iterable[str]) -> None:
    """Drop the flags of sessions gone for good (the trash emptied); never an error."""
    ids = list(session_ids)
    if not ids or not any(session_id in read_flags(root).sessions for session_id in ids):
        return
    with contextlib.suppress(StoreError):
        update_flags(root, ids, lambda _flags: NO_FLAGS)


def parent_tags(book: FlagBook, parent_id: str) -> str:
    """` (tags: work, old)` for a fork's parent that has tags, else ""."""
    tags = book.of(parent_id).tags if parent_id else ()
    return f" (tags: {', '.join(tags)})" if tags else ""


def flag_facts(flags: SessionFlags) -> list[tuple[str, str]]:
    """The flags as a header's facts (`show`): pinned, archived, tags; none when bare."""
    facts = [("pinned", "yes")] if flags.pinned else []
    facts += [("archived", "yes (hidden from the list; still resumable)")] if flags.archived else []
    return facts + ([("tags", ", ".join(flags.tags))] if flags.tags else [])


class _Identified(Protocol):
    @property
    def session_id(self) -> str: ...


_Session = TypeVar("_Session", bound=_Identified)


def kept_view(
    sessions: Sequence[_Session],
    book: FlagBook,
    *,
    pinned: bool = False,
    tags: Sequence[str] = (),
    archived: bool = False,
) -> tuple[list[_Session], int]:
    """`sessions` (in their order) with the pinned first; with `pinned` only those, with
    `tags` only those with every tag, with `archived` only the archived (else those are
    left out). Also how many archived sessions were left out."""
    if not book.sessions:
        return ([], 0) if pinned or tags or archived else (list(sessions), 0)
    first: list[_Session] = []
    rest: list[_Session] = []
    hidden = 0
    for session in sessions:
        flags = book.sessions.get(session.session_id, NO_FLAGS)
        if flags.archived != archived:
            hidden += flags.archived
            continue
        if (pinned and not flags.pinned) or not all(flags.has_tag(tag) for tag in tags):
            continue
        (first if flags.pinned else rest).append(session)
    return first + rest, hidden


PIN_MARK = "★"


def tag_words(tags: Sequence[str]) -> str:
    """`  #work #old` after a title ("" for none)."""
    return "  " + " ".join(f"#{tag}" for tag in tags) if tags else ""
