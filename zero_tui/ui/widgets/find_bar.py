"""A one-line find bar: type a query, Enter / Shift+Enter for the next / previous match;
and `RowFinder`, which keeps a query's matches and steps through them from the cursor."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, Label

from zero_tui.transcript.geometry import PRELUDE_POSITION
from zero_tui.transcript.log_index import next_match
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


@dataclass(frozen=True)
class FindStep:
    """Where a find goes (None: nowhere) and what the bar says: `3/12`, or `no match`."""

    position: int | None
    status: str


class RowFinder:
    """ctrl+f over the rows: the positions matching the query searched last (kept until the
    rows change), and the step from the cursor to the next or previous one."""

    def __init__(self) -> None:
        self._matches: tuple[str, Sequence[int]] | None = None

    def forget(self) -> None:
        """The rows changed: the next find searches them again."""
        self._matches = None

    def known(self, query: str) -> Sequence[int] | None:
        """The matches of `query`, if it was the query searched last."""
        if self._matches is not None and self._matches[0] == query:
            return self._matches[1]
        return None

    def step(
        self,
        query: str,
        positions: Sequence[int],
        cursor: int | None,
        count: int,
        *,
        backwards: bool,
    ) -> FindStep:
        """Keep `positions` as the matches of `query`; the next (or previous) one after the
        cursor, among `count` rows, and a word on wrapping around."""
        self._matches = (query, positions)
        if cursor is None or cursor == PRELUDE_POSITION:
            cursor = count if backwards else -1
        match = next_match(positions, cursor, backwards=backwards)
        if match is None:
            return FindStep(None, "no match")
        status = f"{match.number}/{match.total}"
        if match.wrapped and match.total > 1:
            status += " · wrapped to the bottom" if backwards else " · wrapped to the top"
        return FindStep(match.position, status)
