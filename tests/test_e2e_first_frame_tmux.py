"""End to end, the picker's first frame (issue 19): `zero-tui` in a private tmux server draws
the remembered rows before Textual is loaded, keeps what is typed meanwhile for the picker,
and leaves the terminal as it found it.

Textual is held back at will: the pane's PYTHONPATH starts with a `textual` package that
waits for a gate file, then hands over to the real one. So what is on screen before Textual
loads, and what happens to keys typed then, is seen every time, not raced for.
"""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import StoreBuilder, assistant, user
from test_e2e_tmux import PROMPT, Tmux
from test_e2e_tmux import tmux as tmux  # the fixture

import zero_tui
from zero_tui.picker.loader import PickerLoader

pytestmark = pytest.mark.e2e

CHECKOUT = Path(zero_tui.__file__).resolve().parent.parent
HELD_TEXTUAL = '''
"""Stands in for Textual until the gate file exists, then hands over to the real one."""
import importlib, os, sys, time
_GATE = {gate!r}
while not os.path.exists(_GATE):
    time.sleep(0.01)
_here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or ".") != _here]
del sys.modules["textual"]
sys.modules["textual"] = importlib.import_module("textual")
'''
FOOTER_KEY = "^q Quit"  # Textual's footer: the app is up


class Held:
    """Textual held back for one run of zero-tui."""

    def __init__(self, tmp_path: Path) -> None:
        self.gate = tmp_path / "textual-may-load"
        package = tmp_path / "held" / "textual"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text(HELD_TEXTUAL.format(gate=str(self.gate)))
        self.pythonpath = f"{package.parent}:{CHECKOUT}"

    def release(self) -> None:
        self.gate.touch()


def warm_store(builder: StoreBuilder, workspace: str, titles: list[str], tmp_path: Path) -> None:
    """Sessions titled `titles` (the last is the newest) and the picker's remembered rows,
    in the cache the pane's zero-tui uses ($XDG_CACHE_HOME/zero-tui)."""
    for number, title in enumerate(titles):
        builder.add(
            f"s{number}",
            title=title,
            cwd=workspace,
            updated_at=f"2026-07-04T10:{number:02}:00Z",
            events=[user(f"question {number}"), assistant(f"the answer of session {number}")],
        )
    cache = tmp_path / "cache" / "zero-tui"
    loader = PickerLoader(builder.store, workspace, (False, False), cache_dir=cache)
    loader.scan(lambda stage: None, shown=False)


def start(tmux: Tmux, held: Held, builder: StoreBuilder, workspace: str) -> None:
    tmux.wait_for(lambda screen: PROMPT in screen, "the shell prompt")
    tmux.send_line("stty -a > stty-before.txt")
    command = [sys.executable, "-m", "zero_tui", "--store", str(builder.root), "--cwd", workspace]
    tmux.send_line(f"PYTHONPATH={shlex.quote(held.pythonpath)} {shlex.join(command)}")


def test_the_first_frame_comes_before_textual_and_keys_typed_meanwhile_reach_the_picker(
    tmux: Tmux, tmp_path: Path, make_store: Callable[..., StoreBuilder]
) -> None:
    workspace = str(tmp_path / "proj")
    builder = make_store("store")
    titles = [f"Older session number {number}" for number in range(30)]
    titles += ["Fix the date parser", "The newest session of the workspace"]
    warm_store(builder, workspace, titles, tmp_path)
    held = Held(tmp_path)
    start(tmux, held, builder, workspace)

    frame = tmux.wait_for(
        lambda screen: "The newest session of the workspace" in screen, "the first frame"
    )
    assert FOOTER_KEY not in frame  # Textual is not loaded
    lines = frame.splitlines()
    assert lines[0].startswith(" Resume a session · ")
    assert "The newest session of the workspace" in lines[3]  # the first row, highlighted
    assert "Fix the date parser" in lines[4]
    assert "32 shown · scanning…" in frame

    tmux.send_text("date parser")  # typed in one burst while Textual is held back
    tmux.press("Enter")
    time.sleep(0.3)
    assert tmux.screen() == frame  # nothing echoed over the frame, nothing done yet
    held.release()
    screen = tmux.wait_for(
        lambda screen: "the answer of session 30" in screen, "the transcript of the match"
    )
    assert "question 30" in screen

    tmux.press("C-q")
    tmux.wait_for(lambda screen: screen.rstrip().endswith(PROMPT), "the shell prompt again")
    tmux.send_line("stty -a > stty-after.txt; echo exit-status=$?")
    tmux.wait_for(lambda screen: "exit-status=0" in screen, "the shell, working")
    home = tmp_path / "home"
    assert (home / "stty-after.txt").read_text() == (home / "stty-before.txt").read_text()


def test_a_hostile_title_is_visible_text_in_the_first_frame(
    tmux: Tmux, tmp_path: Path, make_store: Callable[..., StoreBuilder]
) -> None:
    workspace = str(tmp_path / "proj")
    builder = make_store("store")
    hostile = "Evil\x1b[2J\x1b]0;pwned\x07 title\x1b[31m red"
    warm_store(builder, workspace, ["A calm title", hostile], tmp_path)
    held = Held(tmp_path)
    start(tmux, held, builder, workspace)
    frame = tmux.wait_for(lambda screen: "A calm title" in screen, "the first frame")
    assert FOOTER_KEY not in frame
    assert "Evil" in frame  # the screen was not cleared by it
    assert "pwned" in frame
    assert "red" in frame
    held.release()
    tmux.wait_for(lambda screen: FOOTER_KEY in screen, "the picker")
    tmux.press("C-q")
    tmux.wait_for(lambda screen: screen.rstrip().endswith(PROMPT), "the shell prompt again")
