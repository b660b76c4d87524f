"""The app ends when its terminal does: on SIGHUP, on SIGTERM, or when the tty is gone.

Textual (8.2) leaves these signals to the app (Textualize/textual#5140), and its Linux
driver can hang the app when the terminal dies under it. A hangup brings SIGCONT with
SIGHUP (the kernel sends both to the session leader and to the foreground group);
Textual's SIGCONT handler resumes application mode whether or not the app was suspended,
which starts a second writer thread on the dead tty. That writer dies on its first EIO,
its bounded queue (30 writes) fills, and the main thread blocks forever in the next write
or in `close()` (`WriterThread.stop` puts on that queue); the event loop is then blocked,
so no signal handler that needs it (SIGTERM included) ever runs.

Here: the driver never resumes what it did not suspend nor onto a dead terminal, and
neither writes to a dead terminal nor waits on its writer; a SIGHUP or SIGTERM asks the app
to exit, and if it has not within a few seconds, agent runs are stopped and the process
ends regardless.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from textual.app import App
from textual.driver import Driver

EXIT_DEADLINE_SECONDS = 3.0
"""How long the app gets to close its UI (and the interpreter to end) after a signal."""
POLL_SECONDS = 0.5
"""How often the terminal is checked for being gone when no signal said so."""
ENDING_SIGNALS = (signal.SIGHUP, signal.SIGTERM)


class _Terminal:
    """Whether the tty was seen hung up. A plain attribute, not a threading.Event: it is set
    in a signal handler, and an Event's set() there waits forever for the lock that the
    interrupted code holds when it was in that Event's set() or wait() itself."""

    gone = False


_terminal = _Terminal()


def terminal_gone() -> bool:
    """True once the tty was seen hung up: it can no longer be written or restored."""
    return _terminal.gone


def _terminal_fds() -> list[int]:
    """The descriptors Textual's Linux driver uses (stdin, stderr) that are terminals."""
    fds: list[int] = []
    for stream in (sys.__stdin__, sys.__stderr__):
        try:
            if stream is not None and os.isatty(stream.fileno()):
                fds.append(stream.fileno())
        except (OSError, ValueError):
            continue
    return fds


def _any_lost(fds: list[int]) -> bool:
    """A hung-up tty answers EIO to the ioctl isatty() makes."""
    return any(not os.isatty(fd) for fd in fds)


def _in_foreground(fd: int) -> bool:
    try:
        return os.tcgetpgrp(fd) == os.getpgrp()
    except OSError:
        return True  # not a terminal: Textual does not wait for the foreground there


def guarded_driver(base: type[Driver]) -> type[Driver]:
    """`base`, or in place of Textual's Linux driver a subclass that restarts application
    mode only after a suspension and only on a live terminal, and never blocks on a dead
    one.

    Why: LinuxDriver's SIGCONT handler calls `resume_application_mode` unconditionally, and
    a hangup's SIGCONT then starts a second writer on the dead tty, whose full queue hangs
    `close()` (see the module docstring; no upstream handling: Textualize/textual#5140).
    This relies on that handler going through the public `resume_application_mode`, and on
    `close()` being the only place the driver waits on its writer; only public Driver
    methods are overridden.
    """
    from textual.drivers.linux_driver import LinuxDriver

    if base is not LinuxDriver:
        return base

    class TerminalDriver(LinuxDriver):
        _suspended = False

        def suspend_application_mode(self) -> None:
            super().suspend_application_mode()
            self._suspended = True

        def resume_application_mode(self) -> None:
            if self.input_tty and _any_lost([self.fileno]):
                _terminal.gone = True
            if not self._suspended or terminal_gone():
                return
            super().resume_application_mode()
            # Continued in the background (`bg`), Textual gives up; `fg` continues it again.
            self._suspended = self.input_tty and not _in_foreground(self.fileno)

        def write(self, data: str) -> None:
            if not terminal_gone():
                super().write(data)

        def close(self) -> None:
            if not terminal_gone():  # its writer is a daemon thread: left as it is
                super().close()

    return TerminalDriver


class _Watch:
    """Signal handlers (main thread) and a watcher thread for one run of the app."""

    def __init__(self, app: App[Any], cleanup: Callable[[], None]) -> None:
        self.app = app
        self.cleanup = cleanup
        self.signalled = threading.Event()
        self.ui_closed = threading.Event()
        self.ended = threading.Event()
        self.signum = 0
        self.ttys = _terminal_fds()
        self._cleanup_lock = threading.Lock()
        self._cleaned = False

    def on_signal(self, signum: int, frame: FrameType | None) -> None:
        # Runs in the main thread between bytecodes, even while it waits on a lock: only
        # flags here; the watcher does the rest. A kernel hangup has already cut the tty
        # when its SIGHUP arrives; a `kill -HUP` leaves it, to be restored on the way out.
        if signum == signal.SIGHUP and _any_lost(self.ttys):
            _terminal.gone = True
        if self.signum:
            return  # a second signal, maybe inside the first one's set(), holding its lock
        self.signum = signum
        self.signalled.set()  # the main thread touches this Event nowhere else

    def cleanup_once(self) -> None:
        """The cleanup (stopping agent runs), by whichever thread comes first; the other
        waits for it to finish."""
        with self._cleanup_lock:
            if not self._cleaned:
                self._cleaned = True
                self.cleanup()

    def watch(self) -> None:
        while not self.signalled.wait(POLL_SECONDS):
            if self.ended.is_set():
                return
            if self.ttys and _any_lost(self.ttys):  # gone with no SIGHUP sent to us
                _terminal.gone = True
                self.signum = self.signum or signal.SIGHUP
                break
        status = 128 + self.signum
        try:
            self.close_ui(status)
            self.cleanup_once()
            if self.ui_closed.is_set():
                # The main thread is ending the process; this bounds it (a thread that
                # never ends would keep the interpreter waiting).
                time.sleep(EXIT_DEADLINE_SECONDS)
        finally:
            os._exit(status)

    def close_ui(self, status: int) -> None:
        """Ask the app to exit, and wait (a bounded time) for its UI to close."""
        deadline = time.monotonic() + EXIT_DEADLINE_SECONDS
        asked = False
        while not self.ui_closed.wait(0.05) and time.monotonic() < deadline:
            if not asked and self.app.is_running:
                asked = True
                with contextlib.suppress(RuntimeError):  # its loop closed meanwhile
                    self.app.exit(return_code=status)  # thread-safe: it posts a message


@contextmanager
def ends_with_terminal(app: App[Any], cleanup: Callable[[], None]) -> Iterator[None]:
    """Run `app` (in the body) so that it ends when its terminal does, or on SIGTERM, within
    a few seconds every time; `cleanup` runs once on the way out, however it ends.

    Must be entered in the main thread (it installs signal handlers)."""
    _terminal.gone = False
    watch = _Watch(app, cleanup)
    previous = {signum: signal.signal(signum, watch.on_signal) for signum in ENDING_SIGNALS}
    threading.Thread(target=watch.watch, name="zero-tui-hangup", daemon=True).start()
    try:
        yield
    finally:
        watch.ui_closed.set()
        watch.cleanup_once()
        watch.ended.set()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
