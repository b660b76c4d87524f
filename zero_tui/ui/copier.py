"""The app's way to the clipboard: `zero_tui.clipboard.copy_text`, wired to the app's tty.

`Copier` is what screens call from a thread worker; tests inject one that records the text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.driver import Driver

from zero_tui.clipboard import CopyResult, copy_text

Copier = Callable[[str], CopyResult]


def app_driver(app: App[Any]) -> Driver | None:
    """The running app's driver: the one use of Textual's private `App._driver`.

    Textual has no public way to write an escape sequence (OSC 52 in tmux or screen
    passthrough) to the tty in order with its frames; its own `copy_to_clipboard` writes
    through the driver, and so do we. tests/test_copier.py fails if the attribute goes.
    """
    return app._driver


def terminal_copier(app: App[Any]) -> Copier:
    """Copy with `copy_text`; escape sequences go through the running app's driver.

    As Textual's own `App.copy_to_clipboard` does, the driver's `write` queues the string
    for its writer thread, which writes it to the tty in order with the frames (see the
    `zero_tui.clipboard` docstring). Headless (tests): no terminal.
    """

    def copy(text: str) -> CopyResult:
        driver = app_driver(app)
        write: Callable[[bytes], None] | None = None
        if driver is not None and not app.is_headless:

            def write(data: bytes) -> None:
                driver.write(data.decode("ascii"))

        return copy_text(text, write_terminal=write)

    return copy
