"""End to end: F8 in the picker of this checkout's zero-tui moves a session to the trash
after asking, in a private tmux server (the helpers of test_e2e_tmux.py); the status line
counts the trash and `zero-tui trash` lists what was moved."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import StoreBuilder, assistant, user
from test_e2e_tmux import PROMPT, Tmux
from test_e2e_tmux import tmux as tmux
from test_e2e_usage_tmux import this_checkout

pytestmark = pytest.mark.e2e


def test_delete_from_the_picker(
    tmux: Tmux, tmp_path: Path, make_store: Callable[..., StoreBuilder]
) -> None:
    workspace = tmp_path / "proj"
    workspace.mkdir()
    builder = make_store("zero/sessions")
    usage = {"promptTokens": 12000, "completionTokens": 345, "totalTokens": 12345}
    builder.add(
        "keep-1",
        title="Tune the parser",
        cwd=str(workspace),
        updated_at="2026-07-04T11:00:00Z",
        events=[user("tune it"), ("provider_usage", usage), assistant("tuned")],
    )
    builder.add(
        "drop-2",
        title="Throwaway experiment",
        cwd=str(workspace),
        updated_at="2026-07-04T10:00:00Z",
    )
    builder.add(
        "keep-3", title="Write the docs", cwd=str(workspace), updated_at="2026-07-04T09:00:00Z"
    )
    tmux.wait_for(lambda screen: PROMPT in screen, "the shell prompt")
    command = [*this_checkout(), "--store", str(builder.root), "--cwd", str(workspace)]
    tmux.send_line(shlex.join(command))
    screen = tmux.wait_for(
        lambda screen: "Throwaway experiment" in screen and "12k tok" in screen,
        "the rows, with the tokens column",
    )
    assert "in the trash" not in screen

    tmux.press("Down")
    tmux.wait_for(lambda screen: "drop-2" in screen, "the preview of the second row")
    tmux.press("F8")
    screen = tmux.wait_for(
        lambda screen: "Move this session to the trash?" in screen, "the confirmation"
    )
    assert "“Throwaway experiment” (drop-2)" in screen
    tmux.press("n")
    tmux.wait_for(lambda screen: "nothing deleted" in screen, "the answer to no")
    assert builder.store.session_dir("drop-2").is_dir()

    tmux.press("F8")
    tmux.wait_for(lambda screen: "Move this session to the trash?" in screen, "the question")
    tmux.press("y")
    screen = tmux.wait_for(
        lambda screen: "Throwaway experiment" not in screen and "1 in the trash" in screen,
        "the row gone and the trash counted",
    )
    assert "Write the docs" in screen
    assert not builder.store.session_dir("drop-2").exists()

    tmux.press("C-q")
    tmux.wait_for(lambda screen: screen.rstrip().endswith(PROMPT), "the shell prompt again")
    tmux.send_line(shlex.join([*this_checkout(), "trash", "--store", str(builder.root)]))
    tmux.wait_for(
        lambda screen: "drop-2" in screen and "1 session in the trash" in screen,
        "the trash listing the session",
    )
