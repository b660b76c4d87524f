"""zero_tui.ui.hangup: after SIGHUP or SIGTERM the process ends, even when the app cannot;
the driver never restarts on a stray SIGCONT, nor onto a terminal that is gone.

The end-to-end tests (killing a tmux pane) are in test_e2e_hangup_tmux.py."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.app import App
from textual.drivers.linux_driver import LinuxDriver

import zero_tui
from zero_tui.ui import hangup
from zero_tui.ui.hangup import EXIT_DEADLINE_SECONDS, guarded_driver, terminal_gone

CHECKOUT = str(Path(zero_tui.__file__).resolve().parent.parent)

# An app that honours `exit` (`stuck` 0), or one blocked as Textual's was when the
# terminal died (`stuck` 1): in a put on a full queue that nothing drains.
SCRIPT = """
import os, queue, sys, threading
from pathlib import Path
from zero_tui.ui.hangup import ends_with_terminal

record, signum, stuck = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"

def note(line):
    with record.open("a") as file:
        file.write(line + "\\n")

class App:
    is_running = True
    code = 0
    closed = threading.Event()

    def exit(self, return_code=0):
        note(f"asked to exit {return_code}")
        self.code = return_code
        self.closed.set()

app = App()
with ends_with_terminal(app, cleanup=lambda: note("cleanup")):
    os.kill(os.getpid(), signum)
    if stuck:
        full = queue.Queue(1)
        full.put(None)
        full.put(None)
    app.closed.wait()
note("closed")
sys.exit(app.code)
"""


def run_script(tmp_path: Path, signum: int, *, stuck: bool) -> tuple[int, list[str]]:
    record = tmp_path / "record"
    command = [sys.executable, "-c", SCRIPT, str(record), str(signum), "1" if stuck else "0"]
    env = {**os.environ, "PYTHONPATH": CHECKOUT}
    # The timeout bounds a hang: the process must end on its own well before it.
    result = subprocess.run(command, env=env, timeout=EXIT_DEADLINE_SECONDS + 10, check=False)
    return result.returncode, record.read_text().splitlines()


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM], ids=["SIGHUP", "SIGTERM"])
def test_a_signal_asks_the_app_to_exit_and_cleans_up_once(
    tmp_path: Path, signum: signal.Signals
) -> None:
    status, record = run_script(tmp_path, signum, stuck=False)
    assert status == 128 + signum
    assert record == [f"asked to exit {128 + signum}", "cleanup", "closed"]


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM], ids=["SIGHUP", "SIGTERM"])
def test_the_process_ends_after_cleanup_when_the_app_is_stuck(
    tmp_path: Path, signum: signal.Signals
) -> None:
    status, record = run_script(tmp_path, signum, stuck=True)
    assert status == 128 + signum
    assert record == [f"asked to exit {128 + signum}", "cleanup"]  # never "closed"


def test_a_second_signal_inside_the_first_ones_handler_never_waits_on_its_lock() -> None:
    """A handler runs between two bytecodes of whatever the main thread does, its own
    handler included: SIGHUP and SIGTERM together (a terminal closed, then a kill) must not
    re-enter the wake-up's set() while the first call holds its lock."""
    watch = hangup._Watch(App[None](), lambda: None)

    class OneLockFlag:
        def __init__(self) -> None:
            self.lock = threading.Lock()
            self.sets = 0

        def set(self) -> None:
            assert self.lock.acquire(timeout=1), "set() entered again while it held its lock"
            try:
                self.sets += 1
                if self.sets == 1:
                    watch.on_signal(signal.SIGHUP, None)  # arrives in the middle of set()
            finally:
                self.lock.release()

    flag = OneLockFlag()
    watch.signalled = flag  # type: ignore[assignment]
    watch.on_signal(signal.SIGTERM, None)
    assert flag.sets == 1
    assert watch.signum == signal.SIGTERM  # the first signal says how the app ends


@pytest.fixture
def base_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """What reaches Textual's own LinuxDriver (nothing here touches a real terminal); the
    SIGTSTP/SIGCONT handlers its constructor installs are put back afterwards."""
    calls: list[str] = []
    for name in ("start_application_mode", "stop_application_mode", "close"):
        monkeypatch.setattr(LinuxDriver, name, lambda self, name=name: calls.append(name))
    monkeypatch.setattr(LinuxDriver, "write", lambda self, data: calls.append(f"write {data}"))
    monkeypatch.setattr(hangup, "_terminal", hangup._Terminal())  # this test's own
    saved = {signum: signal.getsignal(signum) for signum in (signal.SIGTSTP, signal.SIGCONT)}
    try:
        yield calls
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)


async def test_the_driver_resumes_only_after_a_suspension(base_calls: list[str]) -> None:
    driver = guarded_driver(LinuxDriver)(App[None]())
    driver.resume_application_mode()  # a SIGCONT out of the blue
    assert base_calls == []
    driver.suspend_application_mode()  # ctrl+z
    driver.resume_application_mode()  # fg
    driver.resume_application_mode()
    assert base_calls == ["stop_application_mode", "close", "start_application_mode"]


async def test_on_a_dead_terminal_the_driver_neither_resumes_writes_nor_waits(
    base_calls: list[str],
) -> None:
    driver = guarded_driver(LinuxDriver)(App[None]())
    assert isinstance(driver, LinuxDriver)
    controller, terminal = os.openpty()
    try:
        driver.fileno, driver.input_tty = terminal, True
        driver.write("frame")
        driver.suspend_application_mode()
        os.close(controller)  # the terminal goes away, as a killed pane's does
        controller = -1
        driver.resume_application_mode()  # the hangup's SIGCONT
        assert terminal_gone()
        driver.write("another frame")
        driver.close()
    finally:
        os.close(terminal)
        if controller != -1:
            os.close(controller)
    assert base_calls == ["write frame", "stop_application_mode", "close"]


def test_only_textuals_linux_driver_is_replaced() -> None:
    from textual.drivers.headless_driver import HeadlessDriver

    assert guarded_driver(HeadlessDriver) is HeadlessDriver
    assert issubclass(guarded_driver(LinuxDriver), LinuxDriver)
