"""End to end: the real `zero-tui` with a config.toml that moves keys, driven in tmux."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import StoreBuilder
from test_e2e_tmux import PROMPT, Tmux, start_on_one_session
from test_e2e_tmux import tmux as tmux  # the fixture

pytestmark = pytest.mark.e2e

CONFIG = """\
[keys]
export = "f9"       # was ctrl+s
find = "ctrl+b"     # was ctrl+f
exprot = "f10"      # a typo: said once, and the app starts all the same
"""


def test_moved_keys_show_in_the_footer_and_run(
    tmux: Tmux, tmp_path: Path, make_store: Callable[..., StoreBuilder]
) -> None:
    config = tmp_path / "config" / "zero-tui" / "config.toml"  # the isolated XDG_CONFIG_HOME
    config.parent.mkdir(parents=True)
    config.write_text(CONFIG)
    # The typo's note is a notification: test_app_keymap checks it, where no timeout runs
    # out before a look (in the full suite on a loaded machine, this test missed it).
    start_on_one_session(tmux, tmp_path, make_store)
    screen = tmux.wait_for(
        lambda screen: "1 shown" in screen and "f9 Export" in screen, "the footer's f9 Export"
    )
    assert "^s Export" not in screen

    tmux.press("C-s")  # the old key: nothing
    tmux.press("F9")
    tmux.wait_for(lambda screen: "Export fix-1" in screen, "the export dialog, on F9")
    tmux.press("Escape")
    tmux.wait_for(lambda screen: "Export fix-1" not in screen, "the dialog closed")

    tmux.press("Enter")
    tmux.wait_for(lambda screen: "parser fixed" in screen and "^b Find" in screen, "the transcript")
    tmux.press("C-b")
    tmux.wait_for(lambda screen: "text in this transcript" in screen, "the find bar, on ctrl+b")

    tmux.press("C-q")
    tmux.wait_for(lambda screen: screen.rstrip().endswith(PROMPT), "the shell prompt again")
