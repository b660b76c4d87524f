"""The store's file-change notification, in a process of its own: `python -I watch_child.py ROOT`.

watchfiles adds an inotify watch on every session folder as it starts, in Rust, holding
the GIL all along: 114 ms on 10,000 sessions, during which no other thread of the app
runs (its start, or the first keys, would stall). Here it holds this process's GIL only.
Only the standard library and watchfiles are imported.

Out, on stdout, records each ended by a NUL: `\\x03` once the watch is in place; the paths
of a batch of changes, one record each, and an empty record ending the batch; `\\x02` when
the store folder itself went away (removed or renamed: another may be in its place), or
`\\x01` and a reason when notification fails (either ends the process). It ends when its
stdin closes: the app stopped watching, or ended.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

FAILED = b"\x01"
STORE_REMOVED = b"\x02"
READY = b"\x03"
UNWATCHED = b"\x04"  # + why + "/" + the name of a session folder inotify does not watch
END = b"\0"
DEBOUNCE_MS = 150  # changes this close together arrive as one batch
ADDED, DELETED = 1, 3  # watchfiles' Change.added and .deleted, as its Rust backend reports
_WATCHED_INODE = re.compile(rb"^inotify wd:\S+ ino:([0-9a-f]+) ", re.M)


def watch(root: Path, out: BinaryIO, stop: threading.Event) -> int:
    """Write `root`'s changes to `out` until `stop`; the exit status. Through watchfiles'
    Rust backend, as `watchfiles.watch` uses it, so as to say when the watch is in place."""
    try:
        from watchfiles._rust_notify import RustNotify
    except ImportError:
        out.write(FAILED + b"watchfiles is not installed" + END)
        return 1
    try:
        # paths, debug, force polling, poll delay (ms), recursive, ignore permission denied
        with RustNotify([str(root)], False, False, 50, True, True) as notify:
            unwatched = Unwatched(root)
            why = unwatched.root_not_watched()
            if why:
                out.write(FAILED + why.encode("utf-8", "replace") + END)
                return 1
            out.write(READY + END)
            out.write(unwatched.told(unwatched.look(None)))
            out.flush()
            while True:
                changes = notify.watch(DEBOUNCE_MS, 50, 1000, stop)
                if changes in ("stop", "signal"):
                    return 0
                if not root.is_dir() or _root_went(root, changes):
                    out.write(STORE_REMOVED + END)
                    return 0
                made: set[str] = set()
                if isinstance(changes, set) and changes:
                    out.write(b"".join(os.fsencode(path) + END for _kind, path in changes) + END)
                    made = _folders_made(root, changes)
                out.write(unwatched.told(unwatched.look(made)))
                out.flush()
    except Exception as error:  # the watch limit, a vanished root: the app polls instead
        reason = " ".join(str(error).split()) or type(error).__name__
        out.write(FAILED + reason.encode("utf-8", "replace") + END)
        return 1


class Unwatched:
    """The session folders inotify does not watch. watchfiles adds a watch on each folder
    as it is made and says nothing when the kernel refuses it (the watch limit reached):
    this process's watches, as /proc/self/fdinfo lists them, tell (Linux only)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._told: set[str] = set()
        self._suspects: set[str] = set()  # made just now: its watch may be on its way

    def root_not_watched(self) -> str:
        """Why the store folder itself is not watched, or "" (it is, or /proc cannot say)."""
        watched = _watched_inodes()
        try:
            inode = os.stat(self.root).st_ino
        except OSError:
            return ""
        if watched is None or inode in watched:
            return ""
        return why_not_watched(self.root)

    def look(self, made: set[str] | None) -> dict[str, str]:
        """Folders not watched, each with why: every session folder (`made` None, as the
        watch starts), else those made in the last batch and the ones suspected before.
        A folder made just now is told only once a second look finds it still unwatched."""
        names = None if made is None else made | self._suspects
        if names is not None and not names:
            return {}
        watched = _watched_inodes()
        if watched is None:
            return {}
        found = {
            name: inode
            for name, inode in _session_folders(self.root, names)
            if inode not in watched and name not in self._told
        }
        settled = set(found) if made is None else set(found) & self._suspects
        self._suspects = set(found) - settled
        return {name: why_not_watched(self.root / name) for name in sorted(settled)}

    def told(self, found: dict[str, str]) -> bytes:
        """The records that tell `found`."""
        self._told.update(found)
        return b"".join(
            UNWATCHED + why.encode("utf-8", "replace") + b"/" + os.fsencode(name) + END
            for name, why in found.items()
        )


def _watched_inodes() -> set[int] | None:
    """The inode numbers of what this process's inotify instance watches; None when /proc
    does not say (another system)."""
    try:
        descriptors = os.listdir("/proc/self/fd")
    except OSError:
        return None
    for fd in descriptors:
        try:
            if os.readlink(f"/proc/self/fd/{fd}") != "anon_inode:inotify":
                continue
            with open(f"/proc/self/fdinfo/{fd}", "rb") as handle:
                info = handle.read()
        except OSError:
            continue
        return {int(match[1], 16) for match in _WATCHED_INODE.finditer(info)}
    return None


def _session_folders(root: Path, names: Iterable[str] | None) -> list[tuple[str, int]]:
    """(name, inode) of the session folders among `names` (None: all of them)."""
    found: list[tuple[str, int]] = []
    if names is None:
        try:
            with os.scandir(root) as entries:
                for entry in entries:
                    if not entry.name.startswith(".") and entry.is_dir(follow_symlinks=False):
                        found.append((entry.name, entry.inode()))
        except OSError:
            return []
        return found
    for name in names:
        with contextlib.suppress(OSError):
            info = os.lstat(root / name)
            if stat.S_ISDIR(info.st_mode):
                found.append((name, info.st_ino))
    return found


def _folders_made(root: Path, changes: set[tuple[int, str]]) -> set[str]:
    """The session folders the batch `changes` made (right below the store folder)."""
    prefix = str(root).rstrip(os.sep) + os.sep
    return {
        path[len(prefix) :]
        for kind, path in changes
        if kind == ADDED and path.startswith(prefix) and os.sep not in path[len(prefix) :]
    }


def why_not_watched(path: Path) -> str:
    """Why inotify may not watch `path`: a watch tried on an instance of its own says
    (ENOSPC: the per-user watch limit, fs.inotify.max_user_watches, is reached)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.inotify_init1(os.O_CLOEXEC)
        if fd < 0:
            return _limit_or(ctypes.get_errno(), errno.EMFILE, "instance")
        try:
            watch = libc.inotify_add_watch(fd, os.fsencode(path), 0x4)  # IN_ATTRIB
            code = ctypes.get_errno()
        finally:
            os.close(fd)
    except (OSError, AttributeError):
        return "inotify does not watch it"
    return "inotify does not watch it" if watch >= 0 else _limit_or(code, errno.ENOSPC, "watch")


def _limit_or(code: int, limit_code: int, what: str) -> str:
    return f"the inotify {what} limit is reached" if code == limit_code else os.strerror(code)


def _root_went(root: Path, changes: object) -> bool:
    """Whether the watched folder itself was removed or renamed away: the watch stays on it,
    wherever it went, even when another folder is already in its place (`rm -rf` and `mkdir`
    may even give the new one the old inode number)."""
    where = str(root)
    return isinstance(changes, set) and any(
        kind == DELETED and path == where for kind, path in changes
    )


def main() -> int:
    stop = threading.Event()

    def stop_at_end_of_input() -> None:
        while sys.stdin.buffer.read(4096):
            pass
        stop.set()

    threading.Thread(target=stop_at_end_of_input, daemon=True).start()
    try:
        return watch(Path(sys.argv[1]), sys.stdout.buffer, stop)
    except BrokenPipeError:  # the app is gone
        return 0
    finally:
        with contextlib.suppress(BrokenPipeError):
            sys.stdout.buffer.flush()


if __name__ == "__main__":
    sys.exit(main())
