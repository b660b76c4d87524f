"""End to end: zero-tui ends when its terminal does, or on SIGTERM, within a few seconds.

Each launch is the only pane of a private tmux server, on a cold cache (a fresh
ZERO_TUI_CACHE_DIR) over a generated store of a few thousand sessions, so that the
picker's first scan is the busiest moment the terminal can die in. The pane runs
`sh -c 'echo $$ > pid; exec zero-tui …'`, so the pid is zero-tui's own. A hung zero-tui
used to be left behind now and then, depending on thread timing (Textual restarting
application mode on the hangup's SIGCONT, its second writer dying on the dead tty, and the
app waiting on that writer's full queue forever); here every launch must end.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from process_tree import alive
from test_e2e_tmux import Tmux, isolated_env, zero_tui_command

from benchmarks.store_bench import generate_store
from zero_tui.ui.hangup import EXIT_DEADLINE_SECONDS

pytestmark = pytest.mark.e2e

SESSIONS = 3_000
ENDS_WITHIN_SECONDS = EXIT_DEADLINE_SECONDS + 60.0
"""A bound on a hang, not a timing assertion: the app's own deadline ends it well before."""
KILL_MOMENTS = (0.2, 0.35, 0.5, 0.65, 0.8, 0.95, 1.1, 1.25, 1.4, 1.55)
"""Seconds after zero-tui's interpreter starts: before, during and after the first scan."""
IN_BAND_RESIZE_REPLY = "\x1b[?2048;2$y"
"""A terminal's answer that it supports in-band resize (DEC mode 2048), as kitty, foot and
ghostty give: Textual then writes once more on its way out."""


class Launch:
    """zero-tui as the one pane of its own tmux server."""

    def __init__(self, work: Path, store: Path, wrapper: tuple[str, ...]) -> None:
        self.tmux = Tmux(isolated_env(work))
        self.tmux.env["ZERO_TUI_CACHE_DIR"] = str(work / "fresh-cache")
        self.pid_file = work / "pid"
        command, _env = zero_tui_command()
        app = shlex.join([*command, "--store", str(store), "--all"])
        script = f"echo $$ > {shlex.quote(str(self.pid_file))}; exec {app}"
        self.tmux.run(
            "start-server", ";",
            "set-option", "-g", "remain-on-exit", "on", ";",  # its exit status stays readable
            "new-session", "-d", "-x", "120", "-y", "40", *wrapper, "sh", "-c", script,
        )  # fmt: skip
        self.pid = self._read_pid()

    def _read_pid(self) -> int:
        deadline = time.monotonic() + ENDS_WITHIN_SECONDS
        while time.monotonic() < deadline:
            text = self.pid_file.read_text() if self.pid_file.exists() else ""
            if text.endswith("\n"):
                return int(text)
            time.sleep(0.01)
        raise AssertionError("zero-tui never started")

    def running(self) -> bool:
        """Alive and not a zombie (tmux may not have reaped it yet)."""
        return alive(self.pid)

    def ends_within(self, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while self.running() and time.monotonic() < deadline:
            time.sleep(0.05)
        return not self.running()

    def exit_status(self) -> str | None:
        """`status N`, or `signal N` for a process a signal ended, once tmux has seen it;
        None when tmux marks the pane dead but names neither (tmux 3.3a under load does)."""
        self.tmux.wait_for(lambda _screen: self._pane("#{pane_dead}") == "1", "a dead pane")
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            status = self._pane("#{pane_dead_status}")
            if status:
                return f"status {status}"
            signalled = self._pane("#{pane_dead_signal}")
            if signalled:
                return f"signal {signalled}"
            time.sleep(0.05)
        return None

    def _pane(self, variable: str) -> str:
        return self.tmux.run("display-message", "-p", "-t", "0", variable).strip()

    def close(self) -> None:
        self.tmux.kill()
        if self.running():  # a failed test must not leave a hung zero-tui behind
            os.kill(self.pid, signal.SIGKILL)


@contextmanager
def launched(work: Path, store: Path, wrapper: tuple[str, ...] = ()) -> Iterator[Launch]:
    work.mkdir()
    launch = Launch(work, store, wrapper)
    try:
        yield launch
    finally:
        launch.close()


@pytest.fixture(scope="module")
def big_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    root = tmp_path_factory.mktemp("hangup-store") / "sessions"
    generate_store(root, SESSIONS, events_per_session=8)
    return root


def test_killing_the_pane_during_a_cold_start_ends_the_app(tmp_path: Path, big_store: Path) -> None:
    left_running: list[float] = []
    for index, moment in enumerate(KILL_MOMENTS):
        with launched(tmp_path / f"launch-{index}", big_store) as launch:
            if index % 2:
                launch.tmux.send_text(IN_BAND_RESIZE_REPLY)
            time.sleep(moment)
            launch.tmux.run("kill-pane", "-t", "0")
            if not launch.ends_within(ENDS_WITHIN_SECONDS):
                left_running.append(moment)
    assert left_running == [], f"zero-tui outlived its pane when killed at {left_running} s"


def test_a_terminal_gone_without_a_hangup_signal_ends_the_app(
    tmp_path: Path, big_store: Path
) -> None:
    """In a session of its own (`setsid`), zero-tui gets no SIGHUP when the pane dies: it
    must notice the dead tty itself (it used to spin on it forever)."""
    if shutil.which("setsid") is None:
        pytest.skip("setsid is not installed")
    with launched(tmp_path / "setsid", big_store, wrapper=("setsid", "-w")) as launch:
        launch.tmux.wait_for(lambda screen: "shown ·" in screen, "the picker")
        launch.tmux.run("kill-pane", "-t", "0")
        assert launch.ends_within(ENDS_WITHIN_SECONDS), "zero-tui outlived its terminal"


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM], ids=["SIGHUP", "SIGTERM"])
def test_a_signal_during_the_cold_start_ends_the_app_and_restores_the_terminal(
    tmp_path: Path, big_store: Path, signum: signal.Signals
) -> None:
    with launched(tmp_path / "signal", big_store) as launch:
        launch.tmux.wait_for(lambda screen: "Quit" in screen, "the picker's first frame")
        os.kill(launch.pid, signum)
        assert launch.ends_within(ENDS_WITHIN_SECONDS), f"zero-tui outlived {signum.name}"
        assert launch.exit_status() in (f"status {128 + signum}", None)
        screen = launch.tmux.screen()
        assert "Quit" not in screen, f"the terminal was left in the app's screen:\n{screen}"


def test_a_sigcont_without_a_suspension_changes_nothing(tmp_path: Path, big_store: Path) -> None:
    """Textual restarts application mode on any SIGCONT (a second writer and input thread);
    zero-tui only after a suspension: the app goes on, and quits on ctrl+q."""
    with launched(tmp_path / "sigcont", big_store) as launch:
        launch.tmux.wait_for(lambda screen: "shown ·" in screen, "the picker")
        os.kill(launch.pid, signal.SIGCONT)
        launch.tmux.press("C-q")
        assert launch.ends_within(ENDS_WITHIN_SECONDS), "ctrl+q did not quit"
        assert launch.exit_status() in ("status 0", None)
