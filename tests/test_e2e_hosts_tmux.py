"""End to end, `zero-tui --host NAME` (issue 28): the installed `zero-tui` in a private
tmux server, against a real sshd on 127.0.0.1 and the real rsync (tests/ssh_host.py). The
picker syncs the host at start and lists its session tagged `@devbox` beside the local
one; a session added on the host shows after ctrl+r; Enter opens it, ready
to continue on the host."""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable

import pytest
from conftest import StoreBuilder, chat
from ssh_host import SshHost
from ssh_host import ssh_host as ssh_host  # the fixture
from test_e2e_tmux import PROMPT, Tmux, zero_tui_command
from test_e2e_tmux import tmux as tmux  # the fixture

from zero_tui.cli import main

pytestmark = pytest.mark.e2e

W = "/home/u/proj"
SETTINGS = ("ZERO_TUI_SSH_CONFIG", "ZERO_TUI_CONFIG_DIR", "ZERO_TUI_CACHE_DIR", "ZERO_TUI_DATA_DIR")


def test_the_picker_over_a_host(
    tmux: Tmux, ssh_host: SshHost, make_store: Callable[..., StoreBuilder]
) -> None:
    remote = StoreBuilder(ssh_host.store)
    remote.add(
        "zero_20260704100000_1",
        title="remote parser fix",
        cwd=W,
        updated_at="2026-07-04T10:00:00Z",
        events=chat("fix the parser on the box"),
    )
    local = make_store()
    local.add("zero_20260704080000_3", title="local work", cwd=W, updated_at="2026-07-04T08:00:00Z")
    assert main(["hosts", "add", "devbox", ssh_host.alias]) == 0
    command, _env = zero_tui_command()
    settings = [f"{name}={os.environ[name]}" for name in SETTINGS]
    line = ["env", *settings, *command, "--store", str(local.root), "--cwd", W, "--host", "devbox"]
    tmux.wait_for(lambda screen: PROMPT in screen, "the shell prompt")
    tmux.send_line(shlex.join(line))
    screen = tmux.wait_for(
        lambda screen: "@devbox remote parser fix" in screen and "devbox synced" in screen,
        "the host's row and its freshness",
    )
    assert "local work" in screen
    assert "@devbox local work" not in screen
    remote.add(
        "zero_20260704110000_4", title="remote later", cwd=W, updated_at="2026-07-04T11:00:00Z"
    )
    tmux.press("C-r")
    tmux.wait_for(lambda screen: "@devbox remote later" in screen, "the session synced on ctrl+r")
    tmux.press("Down")
    tmux.press("Enter")
    tmux.wait_for(
        lambda screen: "Ask zero…" in screen and "fix the parser on the box" in screen,
        "the mirrored transcript, its editor ready to continue it on devbox",
    )
    tmux.press("C-q")
    tmux.wait_for(lambda screen: screen.rstrip().endswith(PROMPT), "the shell prompt again")
