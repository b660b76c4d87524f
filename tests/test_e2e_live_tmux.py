"""End to end, the live picker (issue 17): the installed `zero-tui` in a private tmux server
on a store of 10,000 sessions, while a second process (tests/store_writer.py: Zero's format
through the store layer, one locked append per event) changes the store. Nothing is pressed
while the picker follows; what the screen shows is polled until it shows the change.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import StoreBuilder
from test_e2e_tmux import PROMPT, Tmux, zero_tui_command
from test_e2e_tmux import tmux as tmux  # the fixture

from benchmarks.store_bench import generate_store, session_title

pytestmark = pytest.mark.e2e

SESSIONS = 10_000
WORKSPACES = 20
EVENTS = 4
WORKSPACE = "/home/dev/project-0"  # generate_store's first: sessions 0, 20, 40, …
WRITER = Path(__file__).with_name("store_writer.py")
CHECKOUT = Path(__file__).resolve().parents[1]


def session_id(index: int) -> str:
    """The id generate_store gives session `index`."""
    return f"zero_20260604090000_{1780563600000000000 + index}_{index + 1}"


@pytest.fixture(scope="module")
def big_store_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("big") / "sessions"
    generate_store(root, SESSIONS, EVENTS, WORKSPACES)
    return root


@pytest.fixture
def big_store(big_store_template: Path, tmp_path: Path) -> Path:
    root = tmp_path / "store"
    shutil.copytree(big_store_template, root, symlinks=True)
    return root


def writer_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(CHECKOUT)}


def write(root: Path, *operations: str) -> None:
    """Run the second process. How soon the picker shows what it wrote is the benchmark's
    figure (benchmarks/live_bench.py), not a test's: the tests wait until it does."""
    subprocess.run(
        [sys.executable, str(WRITER), str(root), *operations],
        env=writer_env(),
        check=True,
        timeout=60,
    )


def start_picker(server: Tmux, root: Path, workspace: str = WORKSPACE) -> None:
    command, _env = zero_tui_command()
    server.wait_for(lambda screen: PROMPT in screen, "the shell prompt")
    server.send_line(shlex.join([*command, "--store", str(root), "--cwd", workspace]))


def settled(shown: int) -> Callable[[str], bool]:
    """The status line counts `shown` rows, and the scan is done."""
    status = re.compile(rf"^ {shown:,} shown( ·|\s*$)", re.MULTILINE)
    return lambda screen: status.search(screen) is not None and "scanning" not in screen


def line_with(screen: str, text: str) -> str:
    return next((line for line in screen.splitlines() if text in line), "")


def test_the_picker_follows_a_second_writer_at_10000_sessions(tmux: Tmux, big_store: Path) -> None:
    here = list(range(0, SESSIONS, WORKSPACES))  # this workspace's sessions, oldest first
    start_picker(tmux, big_store)
    first = tmux.wait_for(settled(len(here)), "the workspace's 500 rows")
    newest_title = session_title(here[-1])
    assert newest_title[:30] in line_with(first, newest_title[:30])

    # continued (an old session, not on screen) and created: both at the top, counted
    continued = here[-50]
    continued_title = session_title(continued)[:24]
    write(
        big_store,
        f"create::zero_20261201_second_writer::{WORKSPACE}::Made by the second process",
        f"continue::{session_id(continued)}::3",
    )
    screen = tmux.wait_for(
        lambda screen: (
            settled(len(here) + 1)(screen)
            and "Made by the second process" in screen
            and f"{EVENTS + 3} ev" in line_with(screen, continued_title)
            and "answer 2 of the writer" in screen
        ),
        "the continued and the created session",
    )
    rows = [line for line in screen.splitlines() if " ev " in line or line.endswith(" ev")]
    assert continued_title in rows[0]  # the newest, highlighted: the preview is its own
    assert f"{EVENTS + 3} events" in screen  # the preview agrees with its row

    # renamed and removed: sessions on the first screen
    titles = [session_title(index) for index in here[-12:]]
    unique = [index for index in reversed(here[-12:-2]) if titles.count(session_title(index)) == 1]
    renamed, removed = unique[:2]
    removed_title = session_title(removed)[:30]
    assert removed_title in screen
    write(
        big_store,
        f"rename::{session_id(renamed)}::Renamed by the second process",
        f"remove::{session_id(removed)}",
    )
    screen = tmux.wait_for(
        lambda screen: (
            settled(len(here))(screen)
            and "Renamed by the second process" in screen
            and removed_title not in screen
        ),
        "the renamed session and no removed one",
    )
    assert "Made by the second process" in screen


def test_enter_right_after_start_opens_the_newest_session_of_the_store(
    tmux: Tmux, big_store: Path
) -> None:
    """The remembered first screen is stale (the oldest session was continued while
    zero-tui was closed): Enter pressed at once opens the newest session of the store, not
    the top row of the stale screen."""
    start_picker(tmux, big_store)
    tmux.wait_for(settled(SESSIONS // WORKSPACES), "the first run's rows")
    tmux.press("C-q")
    tmux.wait_for(lambda screen: screen.rstrip().endswith(PROMPT), "the shell prompt again")
    write(big_store, f"continue::{session_id(0)}::2")

    start_picker(tmux, big_store)
    tmux.wait_for(lambda screen: "Resume a session" in screen, "the picker's first frame")
    tmux.press("Enter")
    screen = tmux.wait_for(
        lambda screen: "continued by the writer" in screen and "answer 1 of the writer" in screen,
        "the transcript of the continued session",
    )
    assert session_title(0)[:20] in screen
    assert session_title(SESSIONS - WORKSPACES)[:20] not in screen

    # A query and Enter in one burst, right after start: the title is shared by other
    # sessions of the workspace, listed above it on the stale screen; the continued one is
    # first of them in the store's order, and opens.
    tmux.press("Tab", "q")
    tmux.wait_for(lambda screen: screen.rstrip().endswith(PROMPT), "the shell prompt again")
    chosen = WORKSPACES * 3
    title = session_title(chosen)
    twins = [index for index in range(0, SESSIONS, WORKSPACES) if session_title(index) == title]
    assert max(twins) > chosen  # above it until it was continued
    write(big_store, f"continue::{session_id(chosen)}::2")
    start_picker(tmux, big_store)
    tmux.wait_for(lambda screen: "Resume a session" in screen, "the picker's first frame")
    tmux.run("send-keys", "-t", "0", "-l", title, ";", "send-keys", "-t", "0", "Enter")
    screen = tmux.wait_for(
        lambda screen: "continued by the writer" in screen and title[:20] in screen,
        "the transcript of the continued session with that title",
    )


@pytest.fixture
def fake_zero_bin(tmp_path: Path) -> Path:
    """A `zero` that only waits: a run in flight, as /proc shows it."""
    script = tmp_path / "bin" / "zero"
    script.parent.mkdir()
    script.write_text("import time\ntime.sleep(120)\n")
    return script


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        process.kill()
        process.wait(timeout=10)


HOLD_RUN = """
import sys, time
from zero_tui.agent.running import claim_run
from zero_tui.store import SessionStore
claim = claim_run(SessionStore(sys.argv[1]), sys.argv[2])
print("held", flush=True)
time.sleep(120)
"""


def test_sessions_running_elsewhere_are_marked(
    tmux: Tmux,
    tmp_path: Path,
    make_store: Callable[..., StoreBuilder],
    fake_zero_bin: Path,
    processes: list[subprocess.Popen[bytes]],
) -> None:
    workspace = tmp_path / "proj"
    workspace.mkdir()
    builder = make_store("data/zero/sessions")  # Zero's root for XDG_DATA_HOME=data
    for number, title in enumerate(("Quiet one", "Run by zero", "Run by another zero-tui")):
        builder.add(
            f"e2e-run-{number}",
            title=title,
            cwd=str(workspace),
            updated_at=f"2026-07-04T1{number}:00:00Z",
        )
    start_picker(tmux, builder.root, str(workspace))
    tmux.wait_for(settled(3), "the three rows")

    # a `zero` whose arguments name one session, another zero-tui's run of the other
    zero = [sys.executable, str(fake_zero_bin), "exec", "--resume", "e2e-run-1", "--", "go"]
    processes.append(
        subprocess.Popen(zero, env={**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")})
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_RUN, str(builder.root), "e2e-run-2"],
        env={**tmux.env, "PYTHONPATH": str(CHECKOUT)},
        stdout=subprocess.PIPE,
    )
    processes.append(holder)
    assert holder.stdout is not None
    assert holder.stdout.readline() == b"held\n"
    write(builder.root, "continue::e2e-run-1::2", "continue::e2e-run-2::2")  # their runs
    screen = tmux.wait_for(
        lambda screen: "3 shown · 2 running" in screen,
        "two running sessions",
    )
    marked = [line for line in screen.splitlines() if line.startswith(" ● running ")]
    assert len(marked) == 2
    assert not any("Quiet one" in line for line in marked)
    # the preview of each says where it runs (the two wrote in the same second: either on top)
    where = {
        "Run by zero": ("● running in a `zero`", f"(pid {processes[0].pid})"),
        "Run by another zero-tui": ("● running in another", f"(pid {holder.pid})"),
    }
    first, second = ("Run by zero", "Run by another zero-tui")[
        :: 1 if "Run by zero" in marked[0] else -1
    ]
    tmux.wait_for(lambda screen: all(text in screen for text in where[first]), first)
    tmux.press("Down")
    tmux.wait_for(lambda screen: all(text in screen for text in where[second]), second)

    for process in processes:
        process.kill()
        process.wait(timeout=10)
    tmux.wait_for(lambda screen: settled(3)(screen) and "●" not in screen, "the marks gone")
