"""A one-line find bar: type a query, Enter / Shift+Enter for the next / previous match."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, Label

from zero_tui.ui.widgets.composer import TextLine


class FindBar(Horizontal):
    """Hidden until `open()`; posts `FindBar.Find` and `FindBar.Closed`."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("shift+enter,up", "find(True)", "Previous match", show=True),
        Binding("down", "find(False)", "Next match", show=False),
        Binding("escape", "close", "Close find", show=True),
    ]

    class Find(Message):
        """Go to the next (or previous) row matching `query`."""

        def __init__(self, query: str, backwards: bool) -> None:
            super().__init__()
            self.query = query
            self.backwards = backwards

    class Changed(Message):
        """The query text changed (for highlighting as the user types)."""

        def __init__(self, query: str) -> None:
            super().__init__()
            self.query = query

    class Closed(Message):
        """The bar was closed."""

    def compose(self) -> ComposeResult:
        yield Label("Find:", id="find-label")
        yield TextLine(placeholder="text in this transcript", id="find-input")
        yield Label("", id="find-status")

    @property
    def text(self) -> str:
        return self.query_one("#find-input", Input).value

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def open(self) -> None:
        self.add_class("-open")
        # set_focus now, not `focus()` (deferred): keys typed right behind ctrl+f go here
        self.screen.set_focus(self.query_one("#find-input", Input))

    def close(self) -> None:
        self.remove_class("-open")
        self.set_status("")

    def set_status(self, status: str) -> None:
        self.query_one("#find-status", Label).update(Content(status))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_find(False)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(event.value))

    def action_find(self, backwards: bool) -> None:
        if self.text:
            self.post_message(self.Find(self.text, backwards))

    def action_close(self) -> None:
        self.close()
        self.post_message(self.Closed())
