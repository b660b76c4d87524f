"""Which sessions of a store changed, as soon as they do (design §3.8, issue 17).

`StoreWatcher.run` blocks in a worker thread and calls `emit(session ids)` with each batch
of sessions that were created, appended to, renamed or removed. It uses the platform's
file-change notification (inotify, through watchfiles, in a child process:
watch_child.py) where it can, and polls where it cannot: the store does not exist yet,
the kernel's watch limit is reached for the store folder itself, the platform has none, or
`ZERO_TUI_POLL=1`. Session folders made once the limit is reached are not watched, and
watchfiles says nothing of it: the watching process finds them out (`UNWATCHED`), and those
sessions alone are polled (`UnwatchedSessions`, said by `mode`). Polling
lists the store's folders and stats each session's `metadata.json` (Zero rewrites it
after every append, rename and rewind) once a `interval`; what changed while the watch was
being put in place is found the same way. `mode` says which is in use, for the status
line, and `on_mode` is told each time it changes. Idle, notification costs next to
nothing; a poll of 10,000 sessions costs 10,000 stats a second.

A store folder replaced under the watch (renamed away, or removed, and another made in its
place) is no longer the folder watched: the watching process says the watched folder went,
and the device and inode at the store's path change (an `rm -rf` and `mkdir` may reuse the
inode number, hence both). Then `emit(set())` says to read the whole store again, and the
folder now in its place is watched.
"""

from __future__ import annotations

import os
import select
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from zero_tui.picker.watch_child import END, FAILED, READY, STORE_REMOVED, UNWATCHED
from zero_tui.text.labels import counted

METADATA_FILE = "metadata.json"
POLL_VARIABLE = "ZERO_TUI_POLL"
WATCH_CHILD = Path(__file__).with_name("watch_child.py")
STOP_LOOK_SECONDS = 0.5  # how often a watch with nothing to say looks whether to stop

NOTIFICATION = "file-change notification"
STORE_REPLACED = "the store was replaced"
_UNTIL_THE_STORE_EXISTS = ("no store yet", "the store was removed", STORE_REPLACED)

Emit = Callable[[set[str]], None]
Stat = tuple[int, int, int]  # inode, size, mtime in ns
Identity = tuple[int, int] | None  # the store folder's device and inode; None: not a folder


class StoreWatcher:
    def __init__(
        self,
        root: Path,
        *,
        interval: float = 1.0,
        notify: bool | None = None,
        on_mode: Callable[[str], None] | None = None,
    ) -> None:
        self.root = root
        self.interval = interval
        self.notify = notify if notify is not None else os.environ.get(POLL_VARIABLE) != "1"
        self._on_mode = on_mode
        self._mode = "not started"
        self.in_place = threading.Event()
        """Set once a change to the store is seen: the watch or the first poll's look is in
        place (for tests, which change the store only then)."""

    @property
    def mode(self) -> str:
        """`file-change notification`, or `polling every 1s (why)`."""
        return self._mode

    @mode.setter
    def mode(self, mode: str) -> None:
        if mode != self._mode:
            self._mode = mode
            if self._on_mode is not None:
                self._on_mode(mode)

    def run(self, emit: Emit, stop: threading.Event) -> None:
        """Watch until `stop` is set, emitting batches of changed session ids."""
        polled: dict[str, Stat | None] | None = None  # the last look before a switch
        while not stop.is_set():
            if self.notify and self.root.is_dir():
                reason = self._notified(emit, stop, polled)
                if reason is None:
                    return
                if reason == STORE_REPLACED and self.root.is_dir():
                    # Watch the new folder from this look on, and read it all from after it.
                    polled = _snapshot(self.root)
                    emit(set())
                    continue
            else:
                reason = "no notification asked for" if not self.notify else "no store yet"
            polled = self._poll(emit, stop, reason)

    def _notified(
        self, emit: Emit, stop: threading.Event, polled: dict[str, Stat | None] | None
    ) -> str | None:
        """Watch with inotify until `stop` (None), or the reason it cannot. The watch runs in
        a child process (watch_child.py: watchfiles holds the GIL while it starts). What
        changes from `polled` (the last poll's look, else now) until the watch is in place
        is told once it is."""
        identity = _identity(self.root)
        before = _snapshot(self.root) if polled is None else polled
        try:
            child = subprocess.Popen(
                [sys.executable, "-I", str(WATCH_CHILD), str(self.root)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # the terminal's signals are the app's to handle
            )
        except OSError as error:
            return f"notification failed: {error}"
        self.mode = NOTIFICATION
        try:
            return self._follow_child(child, emit, stop, before, identity)
        finally:
            _end_child(child)

    def _follow_child(
        self,
        child: subprocess.Popen[bytes],
        emit: Emit,
        stop: threading.Event,
        before: dict[str, Stat | None],
        identity: Identity,
    ) -> str | None:
        """Pass on what the watching process tells until `stop` (None), or until the watch
        ends (why). The store folder renamed away or removed, another put in its place: the
        watching process says so (the watched folder went), and so do the device and inode
        of what is now at the store's path (`_gone`)."""
        assert child.stdout is not None
        output = child.stdout.fileno()
        pending = b""
        batch: list[str] = []
        unwatched = UnwatchedSessions(self.root)
        next_poll = time.monotonic() + self.interval
        while not stop.is_set():
            readable, _, _ = select.select([output], [], [], STOP_LOOK_SECONDS)
            if unwatched.stats and time.monotonic() >= next_poll:
                next_poll = time.monotonic() + self.interval
                changed = unwatched.poll()
                if changed:
                    emit(changed)
                self.mode = unwatched.mode(self.interval)
            if not readable:
                if _identity(self.root) != identity:
                    return self._gone(emit)
                continue
            data = os.read(output, 65536)
            if not data:
                return "notification failed: the watching process ended"
            *records, pending = (pending + data).split(END)
            for record in records:
                if record.startswith(FAILED):
                    return "notification failed: " + record[1:].decode("utf-8", "replace")
                if record == READY:
                    self.in_place.set()
                    changed = _changed_sessions(before, _snapshot(self.root))
                    if changed:
                        emit(changed)
                    continue
                if record == STORE_REMOVED:
                    return self._gone(emit)
                if record.startswith(UNWATCHED):
                    unwatched.add(record[1:])
                    self.mode = unwatched.mode(self.interval)
                    continue
                if record:
                    batch.append(os.fsdecode(record))
                    continue
                if _identity(self.root) != identity:
                    return self._gone(emit)
                changed = _session_ids(self.root, batch)
                batch = []
                if changed:
                    emit(changed)
        return None

    def _gone(self, emit: Emit) -> str:
        """The watched folder is no longer the store: STORE_REPLACED when another is in its
        place (`run` reads it all and watches it), else the store was removed (read again
        now: it is empty)."""
        if self.root.is_dir():
            return STORE_REPLACED
        emit(set())
        return "the store was removed"

    def _poll(
        self, emit: Emit, stop: threading.Event, reason: str
    ) -> dict[str, Stat | None] | None:
        """Poll until `stop` (None), or until notification becomes possible (the store
        appears): then the last look, which notification takes on from."""
        # first: what changes once the mode is said is seen
        seen = _identity(self.root)  # the last folder seen in the store's place
        known = _snapshot(self.root)
        self.mode = f"polling every {self.interval:g}s ({reason})"
        self.in_place.set()
        while not stop.wait(self.interval):
            identity = _identity(self.root)
            now = _snapshot(self.root)
            changed = _changed_sessions(known, now)
            known = now
            if identity is not None and seen is not None and identity != seen:
                emit(set())  # another folder in the store's place: read it all
            elif changed:
                emit(changed)
            seen = identity or seen
            if self.notify and reason in _UNTIL_THE_STORE_EXISTS and self.root.is_dir():
                return known  # switch to notification
        return None


class UnwatchedSessions:
    """The session folders inotify does not watch (the watching process tells which, and
    why: the kernel's watch limit reached as they were made), polled meanwhile."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.stats: dict[str, Stat | None] = {}
        self.why = ""

    def add(self, record: bytes) -> None:
        """Poll the folder an UNWATCHED record names (`why/name`) from now on."""
        why, _, name = os.fsdecode(record).rpartition("/")
        self.why = why or self.why
        self.stats[name] = _session_stat(self.root, name)

    def poll(self) -> set[str]:
        """Those of the folders that changed since the last look; a removed one is let go."""
        changed: set[str] = set()
        for name, before in list(self.stats.items()):
            now = _session_stat(self.root, name)
            if now != before:
                changed.add(name)
            if now is None and not os.path.isdir(os.path.join(self.root, name)):
                del self.stats[name]
            else:
                self.stats[name] = now
        return changed

    def mode(self, interval: float) -> str:
        """The watcher's mode: notification, and which sessions are polled and why."""
        count = len(self.stats)
        if not count:
            return NOTIFICATION
        return (
            f"{NOTIFICATION}, {counted(count, 'session')} polled every {interval:g}s ({self.why})"
        )


def _end_child(child: subprocess.Popen[bytes]) -> None:
    """The watching process ends when its input closes; one that does not is killed."""
    for stream in (child.stdin, child.stdout):
        if stream is not None:
            stream.close()
    try:
        child.wait(timeout=2)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def _identity(root: Path) -> Identity:
    try:
        info = os.stat(root)
    except OSError:
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISDIR(info.st_mode) else None


def _session_ids(root: Path, paths: Iterable[str]) -> set[str]:
    """The sessions (first folder below the root) that changed paths belong to."""
    prefix = str(root).rstrip(os.sep) + os.sep
    found: set[str] = set()
    for path in paths:
        if path.startswith(prefix):
            name = path[len(prefix) :].split(os.sep, 1)[0]
            if name and not name.startswith("."):
                found.add(name)
    return found


def _changed_sessions(before: dict[str, Stat | None], after: dict[str, Stat | None]) -> set[str]:
    return {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}


def _snapshot(root: Path) -> dict[str, Stat | None]:
    """Each session folder and its metadata.json's stat (None when it has none)."""
    try:
        names = os.listdir(root)
    except OSError:
        return {}
    return {name: _session_stat(root, name) for name in names if not name.startswith(".")}


def _session_stat(root: Path, name: str) -> Stat | None:
    """A session folder's metadata.json's stat (None when it has none)."""
    try:
        info = os.stat(os.path.join(root, name, METADATA_FILE))
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)
