"""What the picker's session list shows, without Textual, and where its highlight goes.

`ShownRows` holds the rows in their ranked order, each line's matched positions, its
note (why a typo matched it) and its snippet (a content search's), which sessions run now,
their tokens, and the columns' natural widths; the list widget
(zero_tui.ui.widgets.session_list) draws from it and measures text with Rich. It also
remembers whether the user moved the highlight, which decides where the highlight goes
when new rows come (`cursor_on`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zero_tui.picker.row_layout import USAGE_WIDTH, Cells, NaturalWidths, natural_widths, usage_text
from zero_tui.picker.session_rows import PickerRow
from zero_tui.store.session_flags import EMPTY_BOOK, FlagBook

if TYPE_CHECKING:
    from zero_tui.store.token_counts import Tokens

HighlightLookup = Callable[[int], Sequence[int]]
"""Display line -> code-point positions of that row's label to highlight."""
NoteLookup = Callable[[int], str]
"""Display line -> why that row matched the query, shown after its title ("": nothing)."""


@dataclass(frozen=True, slots=True)
class SnippetLine:
    """The line under a content-search result: where the match is and the text around it."""

    where: str  # "user #12", "tool #40 (compacted)"
    text: str  # one line, already made safe for the terminal
    spans: tuple[tuple[int, int], ...] = ()  # matched (start, end) code points of `text`


class ShownRows:
    """The rows a session list shows, in display order (`order` indexes `rows`).

    `home` shortens the workspaces shown; `cells` measures a text in terminal cells."""

    def __init__(self, *, home: str, cells: Cells) -> None:
        self.rows: Sequence[PickerRow] = ()
        self.order: Sequence[int] = ()
        self.highlight: HighlightLookup | None = None
        self.notes: NoteLookup | None = None
        # With snippets (content search), each row takes two lines: its own and the snippet.
        self.snippets: Callable[[int], SnippetLine | None] | None = None
        self.show_workspace = False
        self.running: frozenset[str] = frozenset()
        self.flags: FlagBook = EMPTY_BOOK  # pins and tags, drawn on their rows
        self.marked: frozenset[str] = frozenset()  # ctrl+x: drawn with a mark
        self.usage: Mapping[str, Tokens] = {}
        self.show_usage = False  # the screen is wide enough for the tokens column
        self.widths = NaturalWidths()
        self._widths_of: tuple[Sequence[PickerRow], bool] | None = None  # what `widths` measured
        self.home = home
        self._cells = cells
        self.user_moved = False
        """The user moved the highlight since the list was last started over: new rows then
        keep it on its session (else it goes to the first row)."""
        self._removed: str | None = None  # a session deleted here: its line keeps the highlight

    def set_rows(
        self,
        rows: Sequence[PickerRow],
        order: Sequence[int] | None,
        highlight: HighlightLookup | None,
        *,
        show_workspace: bool,
        snippets: Callable[[int], SnippetLine | None] | None,
        notes: NoteLookup | None = None,
    ) -> None:
        """Show `rows` at `order` (None: their own order, recency)."""
        # The columns are as wide as the scope's widest rows, whatever the order: a query's
        # new order over the same rows keeps them (no look at every row per keystroke).
        measured = self._widths_of is not None and self._widths_of[0] is rows
        measured = measured and self.show_workspace == show_workspace
        self.rows = rows
        self.notes = notes
        self.snippets = snippets
        self.show_workspace = show_workspace
        if not measured:
            self.widths = self._natural_widths()
            self._widths_of = (rows, show_workspace)
        self.order = range(len(rows)) if order is None else order
        self.highlight = highlight

    @property
    def lines_per_row(self) -> int:
        return 2 if self.snippets is not None else 1

    def row_at(self, line: int) -> PickerRow | None:
        """The row at display `line` (the row's number in the order), if any."""
        if 0 <= line < len(self.order):
            return self.rows[self.order[line]]
        return None

    def positions(self, line: int) -> Sequence[int]:
        """The matched label positions of the row at display `line`."""
        if self.highlight is None or not 0 <= line < len(self.order):
            return ()
        return self.highlight(line)

    def note(self, line: int) -> str:
        """Why the row at display `line` matched the query ("": no note)."""
        if self.notes is None or not 0 <= line < len(self.order):
            return ""
        return self.notes(line)

    def snippet_at(self, line: int) -> SnippetLine | None:
        """The snippet under the row at display `line`, if any."""
        if self.snippets is None or not 0 <= line < len(self.order):
            return None
        return self.snippets(line)

    def visible(self) -> list[PickerRow]:
        return [self.rows[index] for index in self.order]

    def set_running(self, session_ids: frozenset[str]) -> bool:
        """Mark these sessions as running; whether any row is drawn otherwise now."""
        if session_ids == self.running:
            return False
        self.running = session_ids
        return True

    def set_flags(self, book: FlagBook) -> bool:
        """The pins and tags to draw; whether any row is drawn otherwise now."""
        if book is self.flags:
            return False
        self.flags = book
        return True

    def set_marked(self, session_ids: frozenset[str]) -> frozenset[str]:
        """Mark these sessions; the sessions whose rows are drawn otherwise now."""
        changed = session_ids ^ self.marked
        self.marked = session_ids
        return changed

    def line_of(self, session_id: str, near: int) -> int | None:
        """The display line of `session_id`'s row, looked for from line `near` on (a
        mark is set at the highlight), else None."""
        lines: list[int] = [near, *range(len(self.order))]
        for line in lines:
            row = self.row_at(line)
            if row is not None and row.session_id == session_id:
                return line
        return None

    def set_usage(self, usage: Mapping[str, Tokens]) -> bool:
        """Each session's tokens; whether any row is drawn otherwise now."""
        if usage is self.usage:
            return False
        self.usage = usage
        if not self.show_usage:
            return False
        self.widths = self._natural_widths()
        return True

    def fit(self, screen_width: int) -> bool:
        """The screen is `screen_width` wide: the tokens column shows on a wide one.
        Whether that changed."""
        wide = screen_width >= USAGE_WIDTH
        if wide == self.show_usage:
            return False
        self.show_usage = wide
        self.widths = self._natural_widths()
        return True

    def usage_text(self, row: PickerRow) -> str:
        """What the tokens column says of `row`: `12k tok`; "" when none is known."""
        return usage_text(self.usage.get(row.key))

    def _natural_widths(self) -> NaturalWidths:
        return natural_widths(
            self.rows,
            show_workspace=self.show_workspace,
            home=self.home,
            show_usage=self.show_usage and any(map(self.usage_text, self.rows)),
            cells=self._cells,
        )

    def cursor_on(
        self, session_id: str, order: Sequence[int], rows: Sequence[PickerRow], cursor: int
    ) -> int:
        """Where the highlight, now on line `cursor` on `session_id`'s row, goes in new rows
        (`order` into `rows`): on that session's row when the user moved to it, else (or
        when it is gone) the first row; when the user deleted it, the row that takes its
        line (the last, if it was the last)."""
        if self.user_moved:
            for line, index in enumerate(order):
                if rows[index].session_id == session_id:
                    return line
            if session_id == self._removed:
                return max(0, min(cursor, len(order) - 1))
        return 0

    def removing(self, session_id: str) -> None:
        """The user deleted `session_id`: when its row goes, the highlight stays on its line."""
        self._removed = session_id
        self.user_moved = True
