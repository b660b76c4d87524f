"""End to end: `copy_text` run inside a real tmux pane puts the text into tmux, byte for byte.

A private tmux server (its own socket, no user config) runs `clipboard_helper.py` in a pane;
the helper calls `copy_text` as the app does, writing escape sequences to its own tty. Then
`tmux show-buffer` must equal the sanitised text. To see what reaches the terminal *outside*
tmux, the tmux under test runs as a client inside a pane of an outer tmux with
`set-clipboard on`: whatever OSC 52 the inner tmux sends to its terminal becomes the outer
server's paste buffer. The inner client runs with TERM=xterm-256color, so that tmux gives it
the clipboard feature, as it does for a real xterm-like terminal. Screen is checked the same
way, inside the outer tmux.

Every wait polls with a deadline that only bounds a hang; nothing asserts on speed.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import zero_tui
from zero_tui.clipboard import sanitize

pytestmark = pytest.mark.e2e

DEADLINE_SECONDS = 30.0
POLL_SECONDS = 0.05
HELPER = Path(__file__).resolve().parent / "clipboard_helper.py"
CHECKOUT = Path(zero_tui.__file__).resolve().parent.parent

# Markdown, a tab, unicode (accents, CJK, an emoji, a C1 control that must be kept) and
# controls that must be stripped (ESC with a colour sequence, CR, BEL, NUL, DEL).
ANSWER = (
    "# Fix\n\nRun:\n\n```sh\nprintf '%s\\n' \"$x\"\t# tab kept\n```\n\n"
    "**Done** — é, 中文, 😀, C1 \u0085 kept; \x1b[31mred\x1b[0m\r\n\x07\x00gone\x7f.\n"
)
EXPECTED = sanitize(ANSWER).encode("utf-8")


def test_the_answer_is_hostile_enough() -> None:
    assert "\x1b" in ANSWER
    assert b"\x1b" not in EXPECTED
    assert b"\r" not in EXPECTED
    assert b"\t" in EXPECTED
    assert "\u0085".encode() in EXPECTED


class Server:
    """One private tmux server."""

    def __init__(self, env: dict[str, str], name: str) -> None:
        self.socket = f"zero-tui-clip-{name}-{uuid.uuid4().hex[:10]}"
        self.env = env

    def command(self, *args: str) -> list[str]:
        return ["tmux", "-L", self.socket, "-f", "/dev/null", *args]

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            self.command(*args),
            env=self.env,
            capture_output=True,
            timeout=DEADLINE_SECONDS,
            check=check,
        )

    def buffer(self) -> bytes:
        """The top paste buffer, or b"" when there is none (or no server yet)."""
        result = self.run("show-buffer", check=False)
        return result.stdout if result.returncode == 0 else b""

    def alive(self) -> bool:
        return self.run("has-session", check=False).returncode == 0

    def type_line(self, line: str) -> None:
        self.run("send-keys", "-t", "0", "-l", line)
        self.run("send-keys", "-t", "0", "Enter")

    def kill(self) -> None:
        self.run("kill-server", check=False)


def eventually(read: Callable[[], Any], expected: Any) -> Any:
    """Read until the value is `expected` or the deadline passes; return the last value."""
    deadline = time.monotonic() + DEADLINE_SECONDS
    value = read()
    while value != expected and time.monotonic() < deadline:
        time.sleep(POLL_SECONDS)
        value = read()
    return value


class Rig:
    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        # The servers' sockets live here (short: a socket path has a length limit), so none
        # is left behind in the user's tmux directory.
        self.socket_dir = Path(tempfile.mkdtemp(prefix="ztclip"))
        self.env = {
            "TMUX_TMPDIR": str(self.socket_dir),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(tmp_path),
            "TERM": "xterm-256color",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "PYTHONPATH": str(CHECKOUT),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        self.servers: list[Server] = []
        self.screens: list[str] = []
        self.text_file = tmp_path / "answer.txt"
        self.text_file.write_bytes(ANSWER.encode("utf-8"))
        self.result_file = tmp_path / "result.json"

    def server(self, name: str) -> Server:
        server = Server(self.env, name)
        self.servers.append(server)
        return server

    def helper_line(self, mode: str = "tmux") -> str:
        return shlex.join(
            [sys.executable, str(HELPER), str(self.text_file), str(self.result_file), mode]
        )

    def result(self) -> dict[str, Any]:
        """The helper's `CopyResult`, once it has written it."""
        eventually(self.result_file.exists, True)
        loaded: dict[str, Any] = json.loads(self.result_file.read_text(encoding="utf-8"))
        return loaded

    def nested(self, set_clipboard: str, allow_passthrough: str) -> tuple[Server, Server]:
        """An outer tmux (`set-clipboard on`, the user's terminal) around the inner one."""
        outer, inner = self.server("outer"), self.server("inner")
        client = ["env", "-u", "TMUX", "TERM=xterm-256color"]
        client += inner.command("new-session", "-x", "100", "-y", "30", "sh")
        outer.run("new-session", "-d", "-x", "110", "-y", "35", shlex.join(client))
        outer.run("set", "-g", "set-clipboard", "on")
        assert eventually(inner.alive, True)
        inner.run("set", "-g", "set-clipboard", set_clipboard)
        inner.run("set", "-g", "allow-passthrough", allow_passthrough)
        return outer, inner

    def close(self) -> None:
        for name in self.screens:
            subprocess.run(
                ["screen", "-S", name, "-X", "quit"],
                env=self.env,
                capture_output=True,
                timeout=DEADLINE_SECONDS,
                check=False,
            )
        for server in reversed(self.servers):
            server.kill()
        shutil.rmtree(self.socket_dir, ignore_errors=True)


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    rig = Rig(tmp_path)
    try:
        yield rig
    finally:
        rig.close()


def test_copy_lands_in_tmux_buffer_with_set_clipboard_on(rig: Rig) -> None:
    server = rig.server("single")
    server.run("new-session", "-d", "-x", "100", "-y", "30", "sh")
    server.run("set", "-g", "set-clipboard", "on")
    server.type_line(rig.helper_line())
    result = rig.result()
    assert result["ok"], result
    assert result["methods"] == ["tmux buffer", "OSC 52 through tmux"]
    assert result["characters"] == len(EXPECTED.decode("utf-8"))
    assert eventually(server.buffer, EXPECTED) == EXPECTED


@pytest.mark.parametrize(
    ("set_clipboard", "allow_passthrough"),
    [("on", "off"), ("external", "off"), ("off", "on"), ("off", "off")],
)
def test_buffer_and_outer_terminal_in_each_setting(
    rig: Rig, set_clipboard: str, allow_passthrough: str
) -> None:
    outer, inner = rig.nested(set_clipboard, allow_passthrough)
    inner.type_line(rig.helper_line())
    assert rig.result()["methods"] == ["tmux buffer", "OSC 52 through tmux"]
    assert eventually(inner.buffer, EXPECTED) == EXPECTED
    assert eventually(outer.buffer, EXPECTED) == EXPECTED


def test_fallback_plain_osc52_with_set_clipboard_on(rig: Rig) -> None:
    """Without the tmux command, the plain OSC 52 fills the buffer and tmux sends it on."""
    outer, inner = rig.nested("on", "off")
    inner.type_line(rig.helper_line("sequences"))
    result = rig.result()
    assert result["methods"] == ["OSC 52 through tmux"]
    assert eventually(inner.buffer, EXPECTED) == EXPECTED
    assert eventually(outer.buffer, EXPECTED) == EXPECTED


def test_fallback_passthrough_reaches_the_outer_terminal_only(rig: Rig) -> None:
    """With only allow-passthrough on, the wrapped sequence reaches the outer terminal."""
    outer, inner = rig.nested("off", "on")
    inner.type_line(rig.helper_line("sequences"))
    assert rig.result()["methods"] == ["OSC 52 through tmux"]
    assert eventually(outer.buffer, EXPECTED) == EXPECTED
    # It has crossed the inner tmux by now, and passthrough never makes a paste buffer.
    assert inner.buffer() == b""


def test_screen_chunks_reach_the_outer_terminal(rig: Rig) -> None:
    if shutil.which("screen") is None:
        pytest.skip("GNU screen is not installed")
    # A long answer: its OSC 52 takes many of screen's DCS strings.
    rig.text_file.write_bytes((ANSWER * 40).encode("utf-8"))
    expected = sanitize(ANSWER * 40).encode("utf-8")
    outer = rig.server("outer")
    name = f"zero-tui-clip-{uuid.uuid4().hex[:10]}"
    rig.screens.append(name)
    screen = shlex.join(["env", "-u", "TMUX", "screen", "-S", name, "sh"])
    outer.run("new-session", "-d", "-x", "100", "-y", "30", screen)
    outer.run("set", "-g", "set-clipboard", "on")
    outer.type_line(rig.helper_line())
    assert rig.result()["methods"] == ["OSC 52 through screen"]
    assert eventually(outer.buffer, expected) == expected
