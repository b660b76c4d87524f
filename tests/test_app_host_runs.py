"""The transcript of a mirrored session (TranscriptScreen with `host`), through Pilot,
against the real sshd with the fake `zero` on the "remote" PATH: a prompt runs on the
host and the rows become the host's log once the mirror is synced, Esc cancels there,
/rewind runs Zero's rewind there, /fork and /rename are refused in one line, and a host
without zero is browse-only."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import PurePath
from typing import Any, ClassVar

import pytest
from conftest import wait_until
from host_fixtures import SESSION, remote_log, synced_host
from ssh_host import SshHost
from ssh_host import ssh_host as ssh_host  # the fixture
from test_app_agent import SIZE, cancelled, finished, outcome_text, ready, send
from test_app_turn_actions import command, dialog_of, hanging_run, highlight, notes
from test_host_runs import sshd_sessions
from test_transcript_screen import screen_text
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen

from zero_tui.agent.engine import terminate_all
from zero_tui.hosts.registry import Host, mirror_root
from zero_tui.store import SessionStore
from zero_tui.store.store import EVENTS_FILE
from zero_tui.ui.app import css_paths
from zero_tui.ui.screens.transcript import TranscriptScreen
from zero_tui.ui.screens.zero_dialogs import RewindDialog


class HostApp(App[None]):
    CSS_PATH: ClassVar[list[str | PurePath]] = [path for path in css_paths() if path.exists()]

    def __init__(self, host: Host) -> None:
        super().__init__()
        self.host = host

    def on_mount(self) -> None:
        self.push_screen(Screen())  # a stand-in picker below
        self.push_screen(
            TranscriptScreen(SessionStore(mirror_root(self.host.name)), SESSION, host=self.host)
        )


@pytest.fixture
def devbox(ssh_host: SshHost) -> Iterator[Host]:
    yield synced_host(ssh_host)
    terminate_all(0.0)


async def test_a_prompt_runs_on_the_host_and_the_rows_become_its_log(
    devbox: Host, ssh_host: SshHost
) -> None:
    async with HostApp(devbox).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "slow 3")
        await wait_until(pilot, lambda: screen.running)
        await finished(pilot, screen)
        assert outcome_text(screen) == ""
        await wait_until(pilot, lambda: "chunk 2" in screen_text(pilot), "the host's answer")
    assert b"chunk 2" in remote_log(ssh_host)
    assert (mirror_root("devbox") / SESSION / EVENTS_FILE).read_bytes() == remote_log(ssh_host)


async def test_esc_cancels_the_run_on_the_host(devbox: Host, ssh_host: SshHost) -> None:
    async with HostApp(devbox).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await hanging_run(pilot, screen)
        await pilot.press("escape")
        await cancelled(pilot, screen)
        assert "Run cancelled" in outcome_text(screen)
    assert b"interrupted" in remote_log(ssh_host)


async def test_rewind_runs_zeros_rewind_on_the_host(devbox: Host, ssh_host: SshHost) -> None:
    async with HostApp(devbox).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        highlight(screen, "first answer")
        await command(pilot, screen, "/rewind")
        await dialog_of(pilot, RewindDialog)
        await pilot.press("y")
        await wait_until(
            pilot, lambda: any(note.startswith("Rewound to event #2") for note in notes(pilot))
        )
        await wait_until(pilot, lambda: "more" not in screen_text(pilot), "the rows rewound")
    assert b"session_rewind" in remote_log(ssh_host)


@pytest.mark.parametrize(
    ("typed", "line"),
    [
        ("/fork", "fork on devbox: Zero forks only a whole session into a new run"),
        ("/rename new title", "rename on devbox: Zero has no command to rename a session"),
    ],
)
async def test_what_zero_has_no_command_for_is_refused(
    devbox: Host, ssh_host: SshHost, typed: str, line: str
) -> None:
    before = remote_log(ssh_host)
    async with HostApp(devbox).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await command(pilot, screen, typed)
        await wait_until(pilot, lambda: any(note.startswith(line) for note in notes(pilot)))
    assert remote_log(ssh_host) == before
    assert sorted(path.name for path in ssh_host.store.iterdir()) == [SESSION]


async def test_a_host_without_zero_is_browse_only_said_once(
    devbox: Host, ssh_host: SshHost
) -> None:
    without = Host(devbox.name, devbox.target, devbox.store, has_zero=False)
    async with HostApp(without).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "hello")
        await wait_until(pilot, lambda: not screen.running)
        text = outcome_text(screen) + " ".join(notes(pilot)) + status_of(pilot)
        assert "devbox: no zero on its PATH; its sessions can be browsed only" in text
        # the status line and the editor say the host's reason, not a local store's
        assert status_of(pilot) == "browse-only: no zero on devbox's PATH"
        assert str(screen.composer.placeholder).startswith(
            "Browse-only: no zero on devbox's PATH · "
        )


def status_of(pilot: Pilot[Any]) -> str:
    from textual.widgets import Static

    return str(pilot.app.screen.query_one("#run-status", Static).visual)


async def test_a_link_dropped_mid_run_is_one_line_and_the_transcript_stays(
    devbox: Host, ssh_host: SshHost
) -> None:
    async with HostApp(devbox).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await hanging_run(pilot, screen)
        for session in sshd_sessions(ssh_host):
            os.kill(session, signal.SIGKILL)
        await wait_until(pilot, lambda: not screen.running)
        assert outcome_text(screen) == (
            "✖ devbox: the connection dropped (Connection to 127.0.0.1 closed by remote host.)"
        )
        assert pilot.app.screen is screen
        assert "first answer" in screen_text(pilot)  # the rows stay
