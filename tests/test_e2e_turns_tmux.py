"""End to end, in a private tmux server: a fork from a turn continued with the agent, a
rewind after Zero's plan, and a denied tool call allowed and retried (issue 20, parts 1, 2
and 5). `zero-tui` runs with ZERO_BIN on the fake `zero` (tests/fake_zero.py: exec, the
rewind commands and the sandbox grants); keys go in as a terminal sends them, and every
assertion is about what `capture-pane` shows, or what the store holds afterwards.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_fixtures import write_fake_zero
from conftest import EventSpec, assistant, user
from test_e2e_agent_tmux import AgentTmux
from test_e2e_tmux import PROMPT, isolated_env, zero_tui_command

from zero_tui.store import SessionStore
from zero_tui.ui.widgets.row_painter import USER_MARKER

pytestmark = pytest.mark.e2e

SESSION = "e2e-turns-1"
TURNS: list[EventSpec] = [
    user("plan the parser"),
    assistant("the plan is ready"),
    user("write the tests"),
    assistant("tests written"),
    user("run them"),
    assistant("all green"),
]


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
        for pid in server.agent_pids():
            os.kill(pid, signal.SIGKILL)


def open_session(tmux: AgentTmux, tmp_path: Path, events: list[EventSpec]) -> SessionStore:
    root = tmp_path / "data" / "zero" / "sessions"
    store = SessionStore(root)
    store.create(SESSION, cwd=str(tmux.workspace), title="Parser work")
    store.append_events(SESSION, events)
    command, _env = zero_tui_command()
    tmux.wait_for(lambda screen: PROMPT in screen, "the shell prompt")
    tmux.send_line(shlex.join([*command, "--store", str(root), "--resume", SESSION]))
    tmux.wait_for(lambda screen: f"{len(events)} events" in screen, "the transcript")
    return store


def test_fork_a_turn_continue_it_and_go_back_to_the_parent(
    agent_tmux: AgentTmux, tmp_path: Path
) -> None:
    tmux = agent_tmux
    store = open_session(tmux, tmp_path, TURNS)
    # to the rows, three turns up (the first prompt), then ctrl+g
    tmux.press("Tab")
    for _ in range(3):
        tmux.press("M-Up")  # one at a time: a burst of escape sequences can run together
    tmux.press("C-g")
    screen = tmux.wait_for(lambda screen: "↳ forked from" in screen, "the fork's header")
    assert "Parser work (fork)" in screen
    assert f"({SESSION}) at turn 1 “plan the parser” (event #2) · alt+p opens it" in screen
    assert "write the tests" not in screen
    (fork,) = [meta for meta in store.list() if meta.session_kind == "fork"]
    assert (fork.parent_session_id, fork.forked_from_sequence) == (SESSION, 2)

    # the fork goes on with the agent
    tmux.press("Tab")  # back to the editor
    tmux.send_text("try the other way")
    tmux.press("Enter")
    tmux.wait_for(lambda screen: "You said: try the other way" in screen, "the fork's answer")
    last = store.read_events(fork.session_id)[-1]
    assert last.payload == {"content": "You said: try the other way", "role": "assistant"}
    assert len(store.read_events(SESSION)) == len(TURNS)  # the parent is untouched

    # alt+p: the parent, at the turn the fork came from; Esc: back to the fork
    tmux.press("M-p")
    screen = tmux.wait_for(
        # the parent, the turn the fork came from highlighted
        lambda screen: f"{SESSION}  ·" in screen and "▌ ● the plan is ready" in screen,
        "the parent at the fork's turn",
    )
    assert "↳" not in screen
    tmux.press("Escape")
    tmux.wait_for(lambda screen: "↳ forked from" in screen, "the fork again")
    tmux.press("C-q")
    tmux.wait_for(lambda screen: screen.rstrip().endswith(PROMPT), "the shell again")
    tmux.wait_for_no_agent()


def test_rewind_shows_zero_s_plan_and_rewinds_on_y(agent_tmux: AgentTmux, tmp_path: Path) -> None:
    tmux = agent_tmux
    store = open_session(tmux, tmp_path, TURNS)
    tmux.press("Tab")
    tmux.press("M-Up")
    tmux.press("M-Up")  # the second turn's prompt
    tmux.send_text("/rewind")  # typed on the rows: it goes to the editor
    tmux.press("Enter")
    screen = tmux.wait_for(lambda screen: "Zero's plan" in screen, "the rewind plan")
    assert "to the end of turn 2 “write the tests”?" in screen
    assert "keep 4 events, through #4; drop the 2 after them." in screen
    assert "y: rewind (zero sessions rewind)" in screen
    tmux.press("y")
    screen = tmux.wait_for(
        lambda screen: "Rewound to event #4" in screen and "all green" not in screen,
        "the rewound transcript",
    )
    assert "tests written" in screen
    assert [event.type for event in store.read_events(SESSION)][-1] == "session_rewind"
    tmux.press("C-q")
    tmux.wait_for(lambda screen: screen.rstrip().endswith(PROMPT), "the shell again")


def test_a_denied_call_is_allowed_and_retried_once(agent_tmux: AgentTmux, tmp_path: Path) -> None:
    tmux = agent_tmux
    store = open_session(tmux, tmp_path, TURNS[:2])
    tmux.send_text("deny ls -la")
    tmux.press("Enter")
    # the whole card, not the first frame the agent's answer shows in: on a busy machine
    # the card's rows can come a frame later
    tmux.wait_for(
        lambda screen: (
            "alt+a: allow and retry · always allow exec_command" in screen
            and "I need your approval" in screen
            and "⚑ approval required: exec_command: ls -la — high risk (shell)" in screen
        ),
        "the denied card",
    )
    tmux.press("M-a")
    screen = tmux.wait_for(lambda screen: "Approval required" in screen, "the approval dialog")
    assert "r: allow and retry · a: always allow · Esc: nothing now" in screen
    tmux.press("r")
    in_flight: list[str] = []  # the retry's status lines seen while it runs (it may be quick)

    def retried(screen: str) -> bool:
        # the status line's start (the retry's toast may cover its end), not the footer's
        # `esc Cancel run`: the footer is redrawn a frame after the status line
        status = tmux.bottom(screen, lines=3).splitlines()[0]
        if not status.lstrip().startswith("model:"):  # a spinner: a run in flight
            if screen.count(USER_MARKER + "deny ls -la") == 2:  # the retry, not the first run
                in_flight.append(status)
            return False
        return "Ran ls -la." in screen

    screen = tmux.wait_for(retried, "the allowed retry, ended")
    assert not [status for status in in_flight if "auto: low" in status]  # auto: high, its own
    assert "auto: low" in tmux.bottom(screen)  # the next runs: as before
    results = [e.payload for e in store.read_events(SESSION) if e.type == "tool_result"]
    assert [result["status"] for result in results] == ["error", "ok"]
    tmux.press("C-q")
    tmux.wait_for(lambda screen: screen.rstrip().endswith(PROMPT), "the shell again")
    tmux.wait_for_no_agent()
