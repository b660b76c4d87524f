"""Which sessions of a store changed, as soon as they do (design §3.8, issue 17).

`StoreWatcher.run` blocks in a worker thread and calls `emit(session ids)` with each batch
of sessions that were created, appended to, renamed or removed. It uses the platform's
file-change notification (inotify, through watchfiles) where it can, and polls where it
cannot: the store does not exist yet, the kernel's watch limit is reached, the platform
has none, or `ZERO_TUI_POLL=1`. Polling lists the store's folders and stats each session's
`metadata.json` (Zero rewrites it after every append, rename and rewind) once a `interval`.
`mode` says which is in use, for the status line, and `on_mode` is told each time it
changes. Idle, notification costs next to nothing; a poll of 10,000 sessions costs 10,000
stats a second.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

METADATA_FILE = "metadata.json"
POLL_VARIABLE = "ZERO_TUI_POLL"
DEBOUNCE_MS = 150  # changes this close together arrive as one batch

_UNTIL_THE_STORE_EXISTS = ("no store yet", "the store was removed")

Emit = Callable[[set[str]], None]
Stat = tuple[int, int, int]  # inode, size, mtime in ns


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
        while not stop.is_set():
            if self.notify and self.root.is_dir():
                reason = self._notified(emit, stop)
                if reason is None:
                    return
            else:
                reason = "no notification asked for" if not self.notify else "no store yet"
            self._poll(emit, stop, reason)

    def _notified(self, emit: Emit, stop: threading.Event) -> str | None:
        """Watch with inotify until `stop` (None), or the reason it cannot."""
        try:
            import watchfiles
        except ImportError:
            return "watchfiles is not installed"
        self.mode = "file-change notification"
        try:
            for changes in watchfiles.watch(
                self.root,
                watch_filter=None,
                debounce=DEBOUNCE_MS,
                step=50,
                stop_event=stop,
                rust_timeout=1000,
                yield_on_timeout=True,
                raise_interrupt=False,
                force_polling=False,
                ignore_permission_denied=True,
            ):
                if not self.root.is_dir():
                    emit(set())  # the store itself went away: look at everything again
                    return "the store was removed"
                changed = _session_ids(self.root, (path for _change, path in changes))
                if changed:
                    emit(changed)
        except Exception as error:  # the watch limit, a vanished root: poll instead
            return f"notification failed: {error}"
        return None

    def _poll(self, emit: Emit, stop: threading.Event, reason: str) -> None:
        """Poll until `stop`, or until notification becomes possible (the store appears)."""
        self.mode = f"polling every {self.interval:g}s ({reason})"
        known = _snapshot(self.root)
        while not stop.wait(self.interval):
            now = _snapshot(self.root)
            changed = {
                name for name in known.keys() | now.keys() if known.get(name) != now.get(name)
            }
            known = now
            if changed:
                emit(changed)
            if self.notify and reason in _UNTIL_THE_STORE_EXISTS and self.root.is_dir():
                return  # switch to notification


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


def _snapshot(root: Path) -> dict[str, Stat | None]:
    """Each session folder and its metadata.json's stat (None when it has none)."""
    try:
        names = os.listdir(root)
    except OSError:
        return {}
    found: dict[str, Stat | None] = {}
    for name in names:
        if name.startswith("."):
            continue
        try:
            info = os.stat(os.path.join(root, name, METADATA_FILE))
        except OSError:
            found[name] = None
            continue
        found[name] = (info.st_ino, info.st_size, info.st_mtime_ns)
    return found


def idle_cpu_seconds(watcher: StoreWatcher, seconds: float) -> float:
    """CPU time this process spends watching an unchanging store for `seconds` (for the
    benchmark): the watcher runs in a thread, and the process's CPU clock is read around."""
    stop = threading.Event()
    thread = threading.Thread(target=watcher.run, args=(lambda _ids: None, stop), daemon=True)
    thread.start()
    time.sleep(min(1.0, seconds / 4))  # settle: the first listing is not idle work
    started = time.process_time()
    time.sleep(seconds)
    spent = time.process_time() - started
    stop.set()
    thread.join(timeout=5)
    return spent
