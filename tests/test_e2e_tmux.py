"""End to end: the installed `zero-tui` in a private tmux server, driven with keys.

Each step polls `capture-pane` until the screen shows what a user waits for, with a deadline
(the deadline only bounds a hang; nothing asserts on how long a step took).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import StoreBuilder, assistant, user

import zero_tui

pytestmark = pytest.mark.e2e

DEADLINE_SECONDS = 30.0
POLL_SECONDS = 0.1
PROMPT = "e2e$"


def zero_tui_command() -> tuple[list[str], dict[str, str]]:
    """The console script when installed, else `python -m zero_tui` from this checkout."""
    script = shutil.which("zero-tui")
    if script is not None:
        return [script], {}
    checkout = str(Path(zero_tui.__file__).resolve().parent.parent)
    return [sys.executable, "-m", "zero_tui"], {"PYTHONPATH": checkout}


class Tmux:
    """One private tmux server (its own socket, no user config) with one 120x40 pane."""

    def __init__(self, env: dict[str, str]) -> None:
        self.socket = f"zero-tui-e2e-{uuid.uuid4().hex[:12]}"
        self.env = env

    def run(self, *args: str) -> str:
        result = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=DEADLINE_SECONDS,
            check=True,
        )
        return result.stdout

    def start(self, cwd: Path) -> None:
        # PS1 set on the command line: some shells ignore an inherited one (e.g. for root).
        shell = f"env PS1={shlex.quote(PROMPT + ' ')} sh"
        self.run("new-session", "-d", "-x", "120", "-y", "40", "-c", str(cwd), shell)

    def send_line(self, line: str) -> None:
        self.run("send-keys", "-t", "0", "-l", line)
        self.run("send-keys", "-t", "0", "Enter")

    def send_text(self, text: str) -> None:
        self.run("send-keys", "-t", "0", "-l", text)

    def press(self, *keys: str) -> None:
        self.run("send-keys", "-t", "0", *keys)

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "0")

    def wait_for(self, condition: Callable[[str], bool], what: str) -> str:
        deadline = time.monotonic() + DEADLINE_SECONDS
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if condition(screen):
                return screen
            time.sleep(POLL_SECONDS)
        raise AssertionError(f"the screen never showed {what}:\n{screen}")

    def kill(self) -> None:
        subprocess.run(
            ["tmux", "-L", self.socket, "kill-server"],
            env=self.env,
            capture_output=True,
            timeout=DEADLINE_SECONDS,
            check=False,
        )


def isolated_env(tmp_path: Path) -> dict[str, str]:
    """An environment whose HOME and XDG dirs live in tmp_path: the user's are never touched."""
    home = tmp_path / "home"
    for name in ("home", "data", "cache", "config", "state"):
        (tmp_path / name).mkdir()
    _command, extra = zero_tui_command()
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        **extra,
    }


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    server = Tmux(isolated_env(tmp_path))
    server.start(tmp_path / "home")
    try:
        yield server
    finally:
        server.kill()


def test_pick_filter_open_and_quit(
    tmux: Tmux, tmp_path: Path, make_store: Callable[..., StoreBuilder]
) -> None:
    workspace = tmp_path / "proj"
    workspace.mkdir()
    builder = make_store("store")
    builder.add(
        "fix-1",
        title="Fix date parser",
        cwd=str(workspace),
        updated_at="2026-07-04T11:00:00Z",
        events=[user("the parser breaks"), assistant("parser fixed")],
    )
    builder.add(
        "docs-2",
        title="Write the docs",
        cwd=str(workspace),
        updated_at="2026-07-04T10:00:00Z",
        events=[user("write the docs please"), assistant("the docs are written now")],
    )
    builder.add(
        "refactor-3",
        title="Refactor store",
        cwd=str(workspace),
        updated_at="2026-07-04T09:00:00Z",
    )
    builder.add("elsewhere-4", title="Other project", cwd="/srv/other")

    command, _env = zero_tui_command()
    tmux.wait_for(lambda screen: PROMPT in screen, "the shell prompt")
    tmux.send_line(shlex.join([*command, "--store", str(builder.root), "--cwd", str(workspace)]))

    tmux.wait_for(
        lambda screen: (
            "Fix date parser" in screen
            and "Refactor store" in screen
            and "3 shown · 1 in other workspaces (Tab: all)" in screen
        ),
        "the workspace's three rows",
    )

    tmux.send_text("docs")
    screen = tmux.wait_for(
        lambda screen: "1 of 3 match" in screen and "Fix date parser" not in screen,
        "the query narrowing the rows to one",
    )
    assert "Write the docs" in screen
    assert "Refactor store" not in screen

    tmux.press("Enter")
    screen = tmux.wait_for(
        lambda screen: "the docs are written now" in screen and "1 of 3 match" not in screen,
        "the transcript of the chosen session",
    )
    assert "write the docs please" in screen

    tmux.press("Tab", "q")  # the command line has the focus: Tab to the rows, where q quits
    tmux.wait_for(lambda screen: screen.rstrip().endswith(PROMPT), "the shell prompt again")
    tmux.send_line("echo exit-status=$?")
    tmux.wait_for(lambda screen: "exit-status=0" in screen, "a clean exit status")


def start_on_one_session(
    tmux: Tmux, tmp_path: Path, make_store: Callable[..., StoreBuilder], *, ready: str = "1 shown"
) -> Path:
    """The picker on a store of one session, "fix-1", in the workspace it returns, once
    `ready` is on screen."""
    workspace = tmp_path / "proj"
    workspace.mkdir()
    builder = make_store("store")
    builder.add(
        "fix-1",
        title="Fix date parser",
        cwd=str(workspace),
        events=[user("the parser breaks"), assistant("parser fixed")],
    )
    command, _env = zero_tui_command()
    tmux.wait_for(lambda screen: PROMPT in screen, "the shell prompt")
    tmux.send_line(shlex.join([*command, "--store", str(builder.root), "--cwd", str(workspace)]))
    tmux.wait_for(lambda screen: ready in screen, repr(ready))
    return workspace


def test_escape_by_reflex_the_export_dialog_and_a_rename(
    tmux: Tmux, tmp_path: Path, make_store: Callable[..., StoreBuilder]
) -> None:
    workspace = start_on_one_session(tmux, tmp_path, make_store)

    tmux.press("Enter")
    tmux.wait_for(lambda screen: "parser fixed" in screen, "the transcript")
    tmux.press("Escape")
    tmux.wait_for(lambda screen: "1 shown" in screen, "the picker again")
    tmux.press("Escape")  # Esc, Esc: still running, and told how to quit
    screen = tmux.wait_for(lambda screen: "ctrl+q quits zero-tui" in screen, "how to quit")
    assert "Fix date parser" in screen

    tmux.press("C-s")
    tmux.wait_for(lambda screen: "Export fix-1" in screen, "the export dialog")
    tmux.send_text("dialog.html")
    tmux.press("Enter")
    tmux.wait_for(lambda screen: "wrote transcript to" in screen, "the export's note")
    assert (workspace / "dialog.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")

    tmux.press("Enter")  # a rename in the transcript shows in the picker at once
    tmux.wait_for(lambda screen: "parser fixed" in screen, "the transcript again")
    tmux.send_text("/rename Renamed in tmux")
    tmux.press("Enter")
    tmux.wait_for(lambda screen: "Session renamed to Renamed in tmux." in screen, "the rename")
    tmux.press("Escape")
    screen = tmux.wait_for(
        lambda screen: "1 shown" in screen and "Renamed in tmux" in screen, "the new title"
    )
    assert "Fix date parser" not in screen

    tmux.press("C-q")
    tmux.wait_for(lambda screen: screen.rstrip().endswith(PROMPT), "the shell prompt again")


def test_a_session_opened_and_quit_in_one_burst_exits_cleanly(
    tmux: Tmux, tmp_path: Path, make_store: Callable[..., StoreBuilder]
) -> None:
    """Enter and ctrl+q together (a paste, a slow link): the app quits as the transcript
    mounts, and the shell gets a clean status with nothing written after the app."""
    start_on_one_session(tmux, tmp_path, make_store)

    tmux.press("Enter", "C-q")
    screen = tmux.wait_for(lambda screen: screen.rstrip().endswith(PROMPT), "the shell prompt")
    assert "Traceback" not in screen
    assert "Error" not in screen
    tmux.send_line("echo exit-status=$?")
    tmux.wait_for(lambda screen: "exit-status=0" in screen, "a clean exit status")


def test_a_query_and_enter_typed_before_the_app_has_the_terminal_open_the_match(
    tmux: Tmux, tmp_path: Path, make_store: Callable[..., StoreBuilder]
) -> None:
    """A query and Enter typed while the command starts: the tty, in its normal mode until
    zero-tui takes it, turns that Enter into a line feed; the match opens all the same."""
    workspace = tmp_path / "proj"
    workspace.mkdir()
    builder = make_store("store")
    builder.add("fix-1", title="Fix date parser", cwd=str(workspace), events=[user("x")])
    builder.add(
        "docs-2",
        title="Write the docs",
        cwd=str(workspace),
        events=[user("write the docs please"), assistant("the docs are written now")],
    )
    command, _env = zero_tui_command()
    tmux.wait_for(lambda screen: PROMPT in screen, "the shell prompt")
    app = shlex.join([*command, "--store", str(builder.root), "--cwd", str(workspace)])
    # typed once the shell runs the command: a line editor (bash's) would keep CR as it is
    tmux.send_line(f"echo starting; sleep 1; {app}")
    tmux.wait_for(lambda screen: "\nstarting" in screen, "the command running")
    tmux.send_text("docs")
    tmux.press("Enter")
    tmux.wait_for(
        lambda screen: "the docs are written now" in screen and "Resume a session" not in screen,
        "the transcript of the typed-ahead match, not its preview",
    )
    tmux.press("C-q")
    tmux.wait_for(lambda screen: screen.rstrip().endswith(PROMPT), "the shell prompt again")


def test_a_typo_of_the_model_in_the_demo_lists_its_sessions_and_says_why(tmux: Tmux) -> None:
    command, _env = zero_tui_command()
    tmux.wait_for(lambda screen: PROMPT in screen, "the shell prompt")
    tmux.send_line(shlex.join([*command, "--demo"]))
    tmux.wait_for(lambda screen: "Run the linter" in screen, "the demo's rows")

    tmux.send_text("snnet")  # the README's example: no title says sonnet, the model does
    screen = tmux.wait_for(
        lambda screen: "12 of 17 match" in screen and "Run the linter" not in screen,
        "the sonnet sessions alone",
    )
    rows = [line for line in screen.splitlines() if " ev " in line]
    assert len(rows) == 12
    assert all("≈ sonnet (model)" in row and "gpt-5" not in row for row in rows), screen

    tmux.press("C-q")
    tmux.wait_for(lambda screen: screen.rstrip().endswith(PROMPT), "the shell prompt again")


def test_a_burst_of_keys_arrives_whole_and_in_order_and_its_command_runs(
    tmux: Tmux, tmp_path: Path, make_store: Callable[..., StoreBuilder]
) -> None:
    """A paste-sized query, its deletion and a new query with Enter in one burst; then a
    slash command and its Enter in one burst: no key is lost or moved, the command runs."""
    workspace = start_on_one_session(tmux, tmp_path, make_store)
    typed = "the-date-parser-rejects-offsets-after-the-refactor"
    tmux.send_text(typed)
    screen = tmux.wait_for(lambda screen: "0 of 1 match" in screen, "the long query")
    assert f" {typed}\n" in screen  # every key, in order
    tmux.press(*["BSpace"] * len(typed), "date parser", "Enter")
    tmux.wait_for(lambda screen: "parser fixed" in screen, "the session the query matched")
    tmux.press("/export burst.md", "Enter")
    tmux.wait_for(lambda screen: "wrote transcript to" in screen, "the export's note")
    assert "parser fixed" in (workspace / "burst.md").read_text(encoding="utf-8")
    tmux.press("C-q")
    tmux.wait_for(lambda screen: screen.rstrip().endswith(PROMPT), "the shell prompt again")
