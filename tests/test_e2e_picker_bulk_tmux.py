"""End to end: marks in the picker of this checkout's zero-tui, in a private tmux server
(the helpers of test_e2e_tmux.py). Each act is one burst of keys, as a quick typist or a
paste sends them: mark two rows and archive them, then mark two and delete them; the
command line then lists the archived and the trashed."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import StoreBuilder
from test_e2e_tmux import PROMPT, Tmux
from test_e2e_tmux import tmux as tmux
from test_e2e_usage_tmux import this_checkout

pytestmark = pytest.mark.e2e


def test_bulk_archive_and_delete_in_one_burst_each(
    tmux: Tmux, tmp_path: Path, make_store: Callable[..., StoreBuilder]
) -> None:
    workspace = tmp_path / "proj"
    workspace.mkdir()
    builder = make_store("zero/sessions")
    titles = {
        "s-a": "Alpha notes",
        "s-b": "Bravo spike",
        "s-c": "Charlie spike",
        "s-d": "Delta release",
    }
    for hour, (session_id, title) in zip((15, 14, 13, 12), titles.items(), strict=True):
        builder.add(
            session_id, title=title, cwd=str(workspace), updated_at=f"2026-07-04T{hour}:00:00Z"
        )
    tmux.wait_for(lambda screen: PROMPT in screen, "the shell prompt")
    command = [*this_checkout(), "--store", str(builder.root), "--cwd", str(workspace)]
    tmux.send_line(shlex.join(command))
    tmux.wait_for(lambda screen: "Delta release" in screen, "the rows")

    tmux.press("Down", "C-x", "C-x", "M-a", "y")
    screen = tmux.wait_for(
        lambda screen: "2 archived" in screen and "Bravo spike" not in screen,
        "the two marked rows archived",
    )
    assert "Charlie spike" not in screen
    assert "Alpha notes" in screen
    assert "Delta release" in screen
    assert builder.store.session_dir("s-b").is_dir()  # a view: nothing moved

    tmux.press("Home", "C-x", "C-x", "F8", "y")
    screen = tmux.wait_for(
        lambda screen: "2 in the trash" in screen and "Alpha notes" not in screen,
        "the two marked rows moved to the trash",
    )
    assert "Delta release" not in screen
    assert not builder.store.session_dir("s-a").exists()
    assert not builder.store.session_dir("s-d").exists()

    tmux.press("C-q")
    tmux.wait_for(lambda screen: screen.rstrip().endswith(PROMPT), "the shell prompt again")
    listing = [*this_checkout(), "sessions", "--archived", "--store", str(builder.root)]
    tmux.send_line(shlex.join([*listing, "--cwd", str(workspace)]))
    archived = ("Bravo spike", "Charlie spike", "2 shown")
    tmux.wait_for(
        lambda screen: all(text in screen for text in archived),
        "sessions --archived listing the archived",
    )
    tmux.send_line(shlex.join([*this_checkout(), "trash", "--store", str(builder.root)]))
    tmux.wait_for(
        lambda screen: "2 sessions in the trash" in screen, "the trash listing the deleted"
    )
