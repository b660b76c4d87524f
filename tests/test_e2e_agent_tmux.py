"""End to end: continuing a session in the installed `zero-tui`, in a private tmux server.

`zero-tui --store <data>/zero/sessions --resume ID` runs with ZERO_BIN pointing at the fake
`zero` (tests/fake_zero.py) and HOME / XDG dirs private to the test. Keys go in as a user
(or a laggy link) sends them: text in one `send-keys -l` burst, and a prompt with its Enter
in a single `send-keys` call. Every assertion is about what `capture-pane` shows, except the
last: no agent process outlives the app. Each step polls the pane with a deadline that only
bounds a hang; nothing asserts on how long a step took.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from agent_fixtures import write_fake_zero
from test_e2e_tmux import (
    DEADLINE_SECONDS,
    POLL_SECONDS,
    PROMPT,
    Tmux,
    isolated_env,
    zero_tui_command,
)

from zero_tui.store import SessionStore
from zero_tui.ui.widgets.row_painter import USER_MARKER

pytestmark = pytest.mark.e2e

SESSION = "e2e-agent-1"
CHUNKS = 60  # `slow 60`: 60 deltas 0.05 s apart, long enough to be seen growing
CHUNK = re.compile(r"chunk (\d+)\b")
RUNNING = re.compile(r"running \d+s · ")  # the status line's spinner part


class AgentTmux(Tmux):
    def __init__(self, env: dict[str, str], workspace: Path) -> None:
        super().__init__(env)
        self.workspace = workspace

    def agent_pids(self) -> list[int]:
        """The fake agents running in this test's workspace (other tests run theirs)."""
        result = subprocess.run(
            ["pgrep", "-af", "fake_zero"], capture_output=True, text=True, check=False
        )
        marker = f"--cwd {self.workspace} "
        return [
            int(line.split(maxsplit=1)[0])
            for line in result.stdout.splitlines()
            if marker in line and "fake_zero.py exec" in line
        ]

    def wait_for_no_agent(self) -> None:
        """Polls (with the screen's deadline) until no fake agent of this test runs."""
        deadline = time.monotonic() + DEADLINE_SECONDS
        while self.agent_pids() and time.monotonic() < deadline:
            time.sleep(POLL_SECONDS)
        assert self.agent_pids() == [], "an agent process outlived zero-tui"

    def bottom(self, screen: str, lines: int = 6) -> str:
        """The pane's last lines: status line, editor and footer."""
        return "\n".join(screen.rstrip("\n").splitlines()[-lines:])

    def running(self, screen: str) -> bool:
        """The status line shows a run in flight."""
        return RUNNING.search(self.bottom(screen)) is not None


def chunks_shown(screen: str) -> int:
    """How many of the streamed chunks the pane shows (the highest number, plus one)."""
    numbers = [int(number) for number in CHUNK.findall(screen)]
    return max(numbers) + 1 if numbers else 0


@pytest.fixture
def agent_tmux(tmp_path: Path) -> Iterator[AgentTmux]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    if shutil.which("pgrep") is None:
        pytest.skip("pgrep is not installed")
    env = isolated_env(tmp_path)
    env["ZERO_BIN"] = str(write_fake_zero(tmp_path / "bin"))
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    server = AgentTmux(env, workspace)
    server.start(tmp_path / "home")
    try:
        yield server
    finally:
        server.kill()
        for pid in server.agent_pids():  # a failed test must not leave its agent behind
            os.kill(pid, signal.SIGKILL)


def test_continue_a_session_stream_retry_edit_cancel_and_quit(
    agent_tmux: AgentTmux, tmp_path: Path
) -> None:
    tmux = agent_tmux
    root = tmp_path / "data" / "zero" / "sessions"  # Zero's default root under XDG_DATA_HOME
    store = SessionStore(root)
    store.create(SESSION, cwd=str(tmux.workspace), title="Plan the parser")
    store.append_events(
        SESSION,
        [
            ("message", {"role": "user", "content": "what is the plan"}),
            ("message", {"role": "assistant", "content": "the plan is ready"}),
        ],
    )

    command, _env = zero_tui_command()
    tmux.wait_for(lambda screen: PROMPT in screen, "the shell prompt")
    tmux.send_line(shlex.join([*command, "--store", str(root), "--resume", SESSION]))
    screen = tmux.wait_for(
        lambda screen: "the plan is ready" in screen and "2 events" in screen, "the transcript"
    )
    assert "Plan the parser" in screen
    assert "model: default · auto: low" in tmux.bottom(screen)  # the status line, idle

    # A prompt typed in one burst, then Enter: the answer streams in.
    tmux.send_text(f"slow {CHUNKS}")
    tmux.press("Enter")
    seen: list[int] = []

    def streamed_to_the_end(screen: str) -> bool:
        if tmux.running(screen):
            seen.append(chunks_shown(screen))
        return "5 events" in screen and f"chunk {CHUNKS - 1}" in screen

    screen = tmux.wait_for(streamed_to_the_end, "the whole answer, stored")
    partial = [count for count in seen if 0 < count < CHUNKS]
    assert partial, f"never saw the answer partly streamed: {seen}"
    assert len(set(partial)) >= 2, f"the answer did not grow on screen: {seen}"
    assert seen == sorted(seen)  # it only grows
    assert f"{USER_MARKER}slow {CHUNKS}" in screen
    assert not tmux.running(screen)
    assert "Esc: cancel" not in screen
    # the shell is in HOME: the status line says the run used the session's workspace
    assert "running in the session's workspace" in tmux.bottom(screen)

    # /retry: the same prompt again, as a new turn.
    tmux.send_text("/retry")
    tmux.wait_for(lambda screen: "Send the last prompt again" in screen, "the completion list")
    tmux.press("Enter")
    # Both prompt rows are part of the wait, as for the hanging run below: as the stored
    # turn replaces the live one, the view can be scrolled for a moment, a prompt hidden.
    tmux.wait_for(
        lambda screen: (
            "8 events" in screen
            and f"chunk {CHUNKS - 1}" in screen
            and screen.count(f"{USER_MARKER}slow {CHUNKS}") == 2
        ),
        "the retried turn, stored, both prompts shown",
    )

    # /edit and Enter in one send-keys call: the prompt comes back into the editor.
    tmux.press("/edit", "Enter")
    screen = tmux.wait_for(
        lambda screen: f"  slow {CHUNKS}" in tmux.bottom(screen, 3), "the prompt in the editor"
    )
    assert "8 events" in screen  # nothing was sent
    tmux.press("Escape")  # Esc clears the editor
    tmux.wait_for(lambda screen: "Ask zero…" in tmux.bottom(screen, 3), "an empty editor")

    # A run that hangs until cancelled; Esc cancels it, and the app goes on.
    tmux.press("hang", "Enter")
    # The prompt row is part of the wait: for a moment after the first text the live turn
    # can be laid out short and scrolled, prompt hidden (a transient glitch; it settles).
    screen = tmux.wait_for(
        lambda screen: (
            "waiting" in screen
            and USER_MARKER + "hang" in screen
            and "Esc: cancel" in tmux.bottom(screen)
        ),
        "the hanging run, its prompt row shown",
    )
    assert len(tmux.agent_pids()) == 1
    tmux.press("Escape")
    screen = tmux.wait_for(lambda screen: "Run cancelled." in screen, "the cancelled run")
    assert "■ Run cancelled." in screen
    assert not tmux.running(screen)
    assert "Plan the parser" in screen  # still the transcript, not the shell
    tmux.wait_for(lambda _screen: not tmux.agent_pids(), "the cancelled agent gone")

    # Quit mid-run, once confirmed: the agent is cancelled too, and nothing is printed over
    # the shell.
    tmux.press("hang", "Enter")
    tmux.wait_for(
        lambda screen: (
            "Esc: cancel" in tmux.bottom(screen) and screen.count(USER_MARKER + "hang") == 2
        ),
        "the second hanging run",
    )
    # "Esc: cancel" shows from the claim on, before zero is started: wait for its process
    tmux.wait_for(lambda _screen: len(tmux.agent_pids()) == 1, "the second agent started")
    running = tmux.agent_pids()
    tmux.press("C-q")  # a run streams: the app asks first, and the run goes on meanwhile
    screen = tmux.wait_for(lambda screen: "Quit while the agent runs?" in screen, "the dialog")
    assert "y: quit and lose the streamed answer · n or Esc: keep running" in screen
    assert tmux.agent_pids() == running
    tmux.press("y")
    screen = tmux.wait_for(lambda screen: screen.rstrip().endswith(PROMPT), "the shell again")
    assert "Traceback" not in screen
    assert "Error" not in screen
    assert tmux.agent_pids() == []  # gone once the app has exited: nothing to wait for
    events = store.read_events(SESSION)
    assert [event.payload for event in events[-2:]] == [
        {"content": "hang", "role": "user"},
        {"message": "interrupted"},  # the agent was told to stop, not killed mid-write
    ]


def test_a_closed_terminal_cancels_the_run_in_flight(agent_tmux: AgentTmux, tmp_path: Path) -> None:
    """tmux killed (as an SSH link dropping): the pane's processes get SIGHUP; the agent,
    in its own process group, does not — zero-tui must cancel it on its way out."""
    tmux = agent_tmux
    root = tmp_path / "data" / "zero" / "sessions"
    store = SessionStore(root)
    store.create(SESSION, cwd=str(tmux.workspace), title="Plan the parser")
    command, _env = zero_tui_command()
    tmux.wait_for(lambda screen: PROMPT in screen, "the shell prompt")
    tmux.send_line(shlex.join([*command, "--store", str(root), "--resume", SESSION]))
    tmux.wait_for(lambda screen: "Plan the parser" in screen, "the transcript")
    tmux.press("hang", "Enter")
    tmux.wait_for(lambda screen: "waiting" in screen and tmux.running(screen), "the hanging run")
    assert len(tmux.agent_pids()) == 1
    tmux.kill()
    tmux.wait_for_no_agent()
    events = store.read_events(SESSION)
    assert [event.payload for event in events] == [
        {"content": "hang", "role": "user"},
        {"message": "interrupted"},
    ]


class Windows:
    """The test's tmux server with a window per zero-tui (`0`, then `1`)."""

    def __init__(self, tmux: AgentTmux, home: Path) -> None:
        self.tmux = tmux
        self.home = home

    def open(self, target: str) -> None:
        shell = f"env PS1={shlex.quote(PROMPT + ' ')} sh"
        self.tmux.run("new-window", "-d", "-t", target, "-c", str(self.home), shell)

    def screen(self, target: str) -> str:
        return self.tmux.run("capture-pane", "-p", "-t", target)

    def press(self, target: str, *keys: str) -> None:
        """One `send-keys` call: the keys arrive in one burst."""
        self.tmux.run("send-keys", "-t", target, *keys)

    def wait_for(self, target: str, condition: Callable[[str], bool], what: str) -> str:
        deadline = time.monotonic() + DEADLINE_SECONDS
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen(target)
            if condition(screen):
                return screen
            time.sleep(POLL_SECONDS)
        raise AssertionError(f"window {target} never showed {what}:\n{screen}")


OTHER_RUN = re.compile(r"● running in another zero-tui \(pid (\d+)\)")


def test_a_second_zero_tui_refuses_a_second_run_and_follows_the_first(
    agent_tmux: AgentTmux, tmp_path: Path
) -> None:
    """Two zero-tuis on one session: the second refuses to start a run while the first's
    is in flight, says where it runs, keeps the prompt, follows the first run live, and
    sends the prompt once that run has ended."""
    tmux = agent_tmux
    windows = Windows(tmux, tmp_path / "home")
    root = tmp_path / "data" / "zero" / "sessions"
    store = SessionStore(root)
    store.create(SESSION, cwd=str(tmux.workspace), title="Plan the parser")
    store.append_events(
        SESSION,
        [
            ("message", {"role": "user", "content": "what is the plan"}),
            ("message", {"role": "assistant", "content": "the plan is ready"}),
        ],
    )
    for path in (store.events_path(SESSION), store.metadata_path(SESSION)):
        os.utime(path, (1, 1))  # written long ago: nothing in flight
    command, _env = zero_tui_command()
    resume = shlex.join([*command, "--store", str(root), "--resume", SESSION])

    first = "0"
    windows.wait_for(first, lambda screen: PROMPT in screen, "the shell prompt")
    windows.press(first, "-l", resume)
    windows.press(first, "Enter")
    windows.wait_for(first, lambda screen: "the plan is ready" in screen, "the transcript")
    windows.press(first, "hang", "Enter")
    windows.wait_for(
        first, lambda screen: "waiting" in screen and tmux.running(screen), "the first run"
    )

    second = "1"
    windows.open(second)
    windows.wait_for(second, lambda screen: PROMPT in screen, "the second shell prompt")
    windows.press(second, "-l", resume)
    windows.press(second, "Enter")
    screen = windows.wait_for(
        second, lambda screen: OTHER_RUN.search(screen) is not None, "the running mark"
    )
    # a prompt and its Enter in one burst: refused, kept, and where the run is is said
    windows.press(second, "a second run", "Enter")
    screen = windows.wait_for(
        second, lambda screen: "Not sent: this session is running" in screen, "the refusal"
    )
    match = OTHER_RUN.search(screen)
    assert match is not None
    assert f"in another zero-tui (pid {match.group(1)})" in screen.replace("\n", " ")
    assert "a second run" in tmux.bottom(screen, 3)  # still in the editor
    assert len(tmux.agent_pids()) == 1
    # the first run is cancelled: the second zero-tui shows it, nothing pressed there
    windows.press(first, "Escape")
    windows.wait_for(first, lambda screen: "Run cancelled." in screen, "the cancelled run")
    windows.wait_for(
        second,
        lambda screen: "error: interrupted" in screen and OTHER_RUN.search(screen) is None,
        "the first run's end, followed live",
    )
    # now the kept prompt goes
    windows.press(second, "Enter")
    windows.wait_for(
        second, lambda screen: "You said: a second run" in screen, "the second run's answer"
    )
    for target in (first, second):
        windows.press(target, "C-q")
        windows.wait_for(target, lambda screen: screen.rstrip().endswith(PROMPT), "the shell")
    tmux.wait_for_no_agent()
    prompts = [
        event.payload["content"]
        for event in store.read_events(SESSION)
        if event.type == "message" and event.payload.get("role") == "user"
    ]
    assert prompts == ["what is the plan", "hang", "a second run"]
