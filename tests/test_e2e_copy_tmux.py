"""End to end: `/copy` in the installed `zero-tui`, inside a real tmux with `set-clipboard on`.

A private tmux server (its own socket, no user config) runs `zero-tui --resume ID`; the
composer has the focus, so typing `/copy` and Enter copies the answer. The test polls
`tmux show-buffer` until it holds the answer, sanitised as tui-behaviour §4 says, byte for
byte (the deadline only bounds a hang; nothing asserts on timing).
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import StoreBuilder, assistant, user
from test_e2e_tmux import (
    DEADLINE_SECONDS,
    POLL_SECONDS,
    PROMPT,
    Tmux,
    isolated_env,
    zero_tui_command,
)

from zero_tui.clipboard import sanitize

pytestmark = pytest.mark.e2e

ANSWER = (
    "Here is the fix — **bold** and `code`:\n\n"
    "```python\nprint('héllo')\n```\n"
    "\tindented\x07 line\x1b[31m red\r\nlast line ✓"
)


class ClipboardTmux(Tmux):
    def buffer(self) -> bytes | None:
        """`tmux show-buffer` as bytes; None while there is no buffer."""
        result = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", "show-buffer"],
            env=self.env,
            capture_output=True,
            timeout=DEADLINE_SECONDS,
            check=False,
        )
        return result.stdout if result.returncode == 0 else None

    def wait_for_buffer(self, expected: bytes) -> bytes | None:
        deadline = time.monotonic() + DEADLINE_SECONDS
        seen = self.buffer()
        while seen != expected and time.monotonic() < deadline:
            time.sleep(POLL_SECONDS)
            seen = self.buffer()
        return seen


@pytest.fixture
def clipboard_tmux(tmp_path: Path) -> Iterator[ClipboardTmux]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    env = isolated_env(tmp_path)
    server = ClipboardTmux(env)
    server.start(tmp_path / "home")
    try:
        server.run("set-option", "-g", "set-clipboard", "on")
        yield server
    finally:
        server.kill()


def test_copy_puts_the_answer_in_the_tmux_buffer(
    clipboard_tmux: ClipboardTmux, tmp_path: Path, make_store: Callable[..., StoreBuilder]
) -> None:
    tmux = clipboard_tmux
    workspace = tmp_path / "proj"
    workspace.mkdir()
    builder = make_store("store")
    builder.add(
        "copy-1",
        title="Copy me",
        cwd=str(workspace),
        events=[
            user("an older question"),
            assistant("an older answer"),
            user("fix it"),
            assistant(ANSWER),
        ],
    )
    assert tmux.buffer() is None  # nothing copied yet

    command, _env = zero_tui_command()
    tmux.wait_for(lambda screen: PROMPT in screen, "the shell prompt")
    line = [*command, "--store", str(builder.root), "--cwd", str(workspace), "--resume", "copy-1"]
    tmux.send_line(shlex.join(line))
    tmux.wait_for(lambda screen: "last line ✓" in screen, "the transcript")

    tmux.send_text("/copy")
    tmux.wait_for(lambda screen: "/copy [N | code]" in screen, "the completion list")
    tmux.press("Enter")

    expected = sanitize(ANSWER).encode("utf-8")
    assert "\x1b" not in sanitize(ANSWER)
    assert tmux.wait_for_buffer(expected) == expected
    screen = tmux.wait_for(lambda screen: "Copied" in screen, "the notification")
    assert f"Copied {len(sanitize(ANSWER)):,} characters" in screen

    tmux.send_text("/copy 2")
    tmux.press("Enter")
    assert tmux.wait_for_buffer(b"an older answer") == b"an older answer"

    tmux.press("C-q")
    tmux.wait_for(lambda screen: screen.rstrip().endswith(PROMPT), "the shell prompt again")
