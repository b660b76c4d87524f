"""The session list of the resume picker: a line-API `ScrollView` that draws only visible rows.

Rows are `PickerRow`s; the list shows them in a ranked `order` (indices into the rows) with the
matched characters of each label highlighted. Session text reaches the screen only as plain
`Segment` text with styles from `COMPONENT_CLASSES`: it is never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from os.path import expanduser
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from zero_tui.picker.row_layout import (
    USAGE_WIDTH,
    NaturalWidths,
    crop,
    natural_widths,
    pad,
    row_layout,
    row_text,
    usage_text,
)
from zero_tui.picker.session_rows import PickerRow
from zero_tui.text.labels import TIME_COLUMN_WIDTH

if TYPE_CHECKING:
    from zero_tui.transcript.usage import Tokens

RUNNING_MARK = "●"
RUNNING_WORD = "running"  # `● running` in the time column of a session being written now
NARROW_WIDTH = 110
"""On a screen narrower than this the list's container gets the class `-narrow`: the
picker's CSS then hides the preview, so the titles get the room."""

HighlightLookup = Callable[[int], Sequence[int]]
"""Display line -> code-point positions of that row's label to highlight."""


@dataclass(frozen=True, slots=True)
class SnippetLine:
    """The line under a content-search result: where the match is and the text around it."""

    where: str  # "user #12", "tool #40 (compacted)"
    text: str  # one line, already made safe for the terminal
    spans: tuple[tuple[int, int], ...] = ()  # matched (start, end) code points of `text`


def _crop(text: str, width: int) -> str:
    return crop(text, width, cell_len)


def _pad(text: str, width: int) -> str:
    return pad(text, width, cells=cell_len)


class SessionList(ScrollView, can_focus=False):
    """A virtual list of sessions; the picker's query Input keeps the focus."""

    DEFAULT_CSS = """
    SessionList {
        overflow-x: hidden;
        overflow-y: auto;
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "session-list--cursor",
        "session-list--hover",
        "session-list--match",
        "session-list--time",
        "session-list--detail",
        "session-list--fork",
        "session-list--workspace",
        "session-list--message",
        "session-list--snippet",
        "session-list--running",
    }

    cursor: reactive[int] = reactive(0, always_update=True, init=False)
    """Index of the highlighted row in the current order."""

    class Highlighted(Message):
        """The highlighted row changed (None when the list is empty); `by_user`: the user
        moved it (a key, the wheel, a click), not new rows."""

        def __init__(self, row: PickerRow | None, *, by_user: bool = False) -> None:
            super().__init__()
            self.row = row
            self.by_user = by_user

    class Selected(Message):
        """A row was chosen with the mouse (a click on the highlighted row)."""

        def __init__(self, row: PickerRow) -> None:
            super().__init__()
            self.row = row

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._rows: Sequence[PickerRow] = ()
        self._order: Sequence[int] = ()
        self._highlight: HighlightLookup | None = None
        self._show_workspace = False
        self._empty_message = ""
        self._generation = 0
        self._hover_line: int | None = None
        self._widths = NaturalWidths()
        self._home = expanduser("~")
        self._strip_cache: LRUCache[tuple[int, int, int, bool, bool], Strip] = LRUCache(1024)
        # With snippets (content search), each row takes two lines: its own and the snippet.
        self._snippets: Callable[[int], SnippetLine | None] | None = None
        self._running_ids: frozenset[str] = frozenset()
        self._usage: Mapping[str, Tokens] = {}
        self._show_usage = False  # the screen is wide enough for the tokens column
        self.user_moved = False
        """The user moved the highlight since the list was last started over: new rows then
        keep it on its session (else it goes to the first row)."""
        self._moving = False  # the cursor is being moved by the user
        self._removed: str | None = None  # a session deleted here: its line keeps the highlight

    # --- data ----------------------------------------------------------------------------

    @property
    def rows(self) -> Sequence[PickerRow]:
        return self._rows

    @property
    def order(self) -> Sequence[int]:
        return self._order

    @property
    def row_count(self) -> int:
        return len(self._order)

    @property
    def hover_line(self) -> int | None:
        """The display line under the mouse, drawn as hovered."""
        return self._hover_line

    @property
    def highlighted_row(self) -> PickerRow | None:
        if 0 <= self.cursor < len(self._order):
            return self._rows[self._order[self.cursor]]
        return None

    def highlight_positions(self, line: int) -> tuple[int, ...]:
        """The highlighted label positions of the row at display `line`."""
        if self._highlight is None or not 0 <= line < len(self._order):
            return ()
        return tuple(self._highlight(line))

    def visible_rows(self) -> list[PickerRow]:
        """The rows in display order (for tests and the status line)."""
        return [self._rows[index] for index in self._order]

    def set_rows(
        self,
        rows: Sequence[PickerRow],
        order: Sequence[int] | None = None,
        highlight: HighlightLookup | None = None,
        *,
        show_workspace: bool,
        cursor: int = 0,
        snippets: Callable[[int], SnippetLine | None] | None = None,
    ) -> None:
        """Replace the rows; `order` defaults to the rows' own order (recency).

        `snippets(line)` gives the line shown under the row at display line `line`."""
        self._rows = rows
        self._snippets = snippets
        self._show_workspace = show_workspace
        self._widths = self._natural_widths()
        self.set_order(range(len(rows)) if order is None else order, highlight, cursor=cursor)

    def set_order(
        self,
        order: Sequence[int],
        highlight: HighlightLookup | None = None,
        *,
        cursor: int = 0,
    ) -> None:
        """Show the rows at `order`; `highlight(line)` gives the matched label positions."""
        self._order = order
        self._highlight = highlight
        self._invalidate()
        self.virtual_size = Size(0, len(order) * self.lines_per_row)
        self.cursor = max(0, min(cursor, len(order) - 1))

    @property
    def lines_per_row(self) -> int:
        return 2 if self._snippets is not None else 1

    def snippet_at(self, line: int) -> SnippetLine | None:
        """The snippet under the row at display `line`, if any."""
        if self._snippets is None or not 0 <= line < len(self._order):
            return None
        return self._snippets(line)

    def set_running(self, session_ids: frozenset[str]) -> None:
        """Mark the rows of these sessions as running (an agent writes them now)."""
        if session_ids != self._running_ids:
            self._running_ids = session_ids
            self._invalidate()

    def set_usage(self, usage: Mapping[str, Tokens]) -> None:
        """Each session's tokens, for the tokens column (shown on a wide screen)."""
        if usage is not self._usage:
            self._usage = usage
            if self._show_usage:
                self._widths = self._natural_widths()
                self._invalidate()

    def usage_text(self, row: PickerRow) -> str:
        """What the tokens column says of `row`: `12k tok`; "" when none is known."""
        return usage_text(self._usage.get(row.session_id))

    @property
    def shows_usage(self) -> bool:
        return self._show_usage

    def _natural_widths(self) -> NaturalWidths:
        return natural_widths(
            self._rows,
            show_workspace=self._show_workspace,
            home=self._home,
            show_usage=self._show_usage and any(map(self.usage_text, self._rows)),
            cells=cell_len,
        )

    def runs(self, row: PickerRow) -> bool:
        return row.session_id in self._running_ids

    def cursor_on(self, session_id: str, order: Sequence[int], rows: Sequence[PickerRow]) -> int:
        """Where the highlight goes in new rows (`order` into `rows`): on `session_id`'s
        row when the user moved to it, else (or when it is gone) the first row; when the
        user deleted it, the row that takes its line (the last, if it was the last)."""
        if self.user_moved:
            for line, index in enumerate(order):
                if rows[index].session_id == session_id:
                    return line
            if session_id == self._removed:
                return max(0, min(self.cursor, len(order) - 1))
        return 0

    def removing(self, session_id: str) -> None:
        """The user deleted `session_id`: when its row goes, the highlight stays on its line."""
        self._removed = session_id
        self.user_moved = True

    def set_empty_message(self, message: str) -> None:
        """What the first line says when there is no row to show."""
        if message != self._empty_message:
            self._empty_message = message
            self._invalidate()

    def _invalidate(self) -> None:
        self._generation += 1
        self._strip_cache.clear()
        self.refresh()

    # --- cursor --------------------------------------------------------------------------

    def watch_cursor(self, old: int, new: int) -> None:
        lines = self.lines_per_row
        for row in (old, new):
            for part in range(lines):
                self.refresh_line(row * lines + part)
        self._scroll_cursor_into_view()
        self.post_message(self.Highlighted(self.highlighted_row, by_user=self._moving))

    def _scroll_cursor_into_view(self) -> None:
        height = self.scrollable_content_region.height
        if height <= 0:
            self.call_after_refresh(self._scroll_cursor_into_view_later)
            return
        top = round(self.scroll_y)
        lines = self.lines_per_row
        first, last = self.cursor * lines, self.cursor * lines + lines - 1
        if first < top:
            self.scroll_to(y=first, animate=False)
        elif last >= top + height:
            self.scroll_to(y=last - height + 1, animate=False)

    def _scroll_cursor_into_view_later(self) -> None:
        if self.scrollable_content_region.height > 0:
            self._scroll_cursor_into_view()

    def _move_to(self, line: int) -> None:
        """The user moves the highlight to `line`."""
        self.user_moved = True
        self._moving = True
        try:
            self.cursor = line
        finally:
            self._moving = False

    def move(self, delta: int, *, wrap: bool) -> None:
        count = len(self._order)
        if not count:
            return
        target = self.cursor + delta
        self._move_to(target % count if wrap else max(0, min(target, count - 1)))

    def page(self, pages: int) -> None:
        rows = self.scrollable_content_region.height // self.lines_per_row
        self.move(pages * max(1, rows - 1), wrap=False)

    def first(self) -> None:
        if self._order:
            self._move_to(0)

    def last(self) -> None:
        if self._order:
            self._move_to(len(self._order) - 1)

    # --- mouse ---------------------------------------------------------------------------
    # Public `on_` handlers: Textual runs each class's handler down the MRO, so Widget's own
    # (`_on_leave`, ...) still runs after these unless they prevent the default.

    def _line_at(self, event: events.MouseEvent) -> int | None:
        offset = event.get_content_offset(self)
        if offset is None:
            return None
        line = (offset.y + round(self.scroll_y)) // self.lines_per_row
        return line if 0 <= line < len(self._order) else None

    async def on_click(self, event: events.Click) -> None:
        line = self._line_at(event)
        if line is None:
            return
        event.stop()
        if line == self.cursor:
            if (row := self.highlighted_row) is not None:
                self.post_message(self.Selected(row))
        else:
            self._move_to(line)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        line = self._line_at(event)
        if line != self._hover_line:
            previous, self._hover_line = self._hover_line, line
            for changed in (previous, line):
                if changed is not None:
                    self._refresh_row(changed)

    def on_leave(self, event: events.Leave) -> None:
        if self._hover_line is not None:
            previous, self._hover_line = self._hover_line, None
            self._refresh_row(previous)

    def _refresh_row(self, row: int) -> None:
        lines = self.lines_per_row
        for part in range(lines):
            self.refresh_line(row * lines + part)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.prevent_default()
        event.stop()
        self.move(1, wrap=False)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.prevent_default()
        event.stop()
        self.move(-1, wrap=False)

    # --- rendering -----------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strip_cache.clear()

    def on_resize(self, event: events.Resize) -> None:
        # The list asks for the room: on a narrow screen its container drops the preview (see
        # the picker's CSS). The screen's width, not the container's, decides: it does not
        # change when the preview comes and goes.
        screen_width = self.screen.size.width
        if isinstance(self.parent, Widget):
            self.parent.set_class(screen_width < NARROW_WIDTH, "-narrow")
        if (screen_width >= USAGE_WIDTH) != self._show_usage:
            self._show_usage = screen_width >= USAGE_WIDTH
            self._widths = self._natural_widths()
            self._invalidate()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        line, part = divmod(round(self.scroll_y) + y, self.lines_per_row)
        base = self.rich_style
        if part and line < len(self._order):
            return self._render_snippet(line, width, base)
        if line >= len(self._order):
            if line == 0 and part == 0 and self._empty_message:  # once, not per line of a row
                style = base + self.get_component_rich_style("session-list--message", partial=True)
                return Strip([Segment(_pad(self._empty_message, width), style)], width)
            return Strip.blank(width, base)
        is_cursor = line == self.cursor
        is_hover = line == self._hover_line
        key = (self._generation, line, width, is_cursor, is_hover)
        strip = self._strip_cache.get(key)
        if strip is None:
            item = self._order[line]
            positions = self._highlight(line) if self._highlight is not None else ()
            strip = self._render_row(self._rows[item], positions, width, base, is_cursor, is_hover)
            self._strip_cache[key] = strip
        return strip

    def _render_row(
        self,
        row: PickerRow,
        positions: Sequence[int],
        width: int,
        base: Style,
        is_cursor: bool,
        is_hover: bool,
    ) -> Strip:
        part = self.get_component_rich_style
        overlay = Style()
        if is_cursor:
            overlay = part("session-list--cursor", partial=True)
        elif is_hover:
            overlay = part("session-list--hover", partial=True)
        plain = base + overlay
        time_style = base + part("session-list--time", partial=True) + overlay
        detail_style = base + part("session-list--detail", partial=True) + overlay
        match_part = part("session-list--match", partial=True)

        running = row.session_id in self._running_ids
        title_offset = row.title_offset
        time_positions = {pos for pos in positions if pos < len(row.when)} if not running else set()
        title_positions = {pos - title_offset for pos in positions if pos >= title_offset}

        layout = row_layout(width, self._widths, timed=bool(row.when) or running)
        usage = self.usage_text(row) if layout.usage else ""
        text = row_text(row, layout, home=self._home, usage=usage, cells=cell_len)
        right: list[Segment] = []
        if text.workspace:
            workspace_style = base + part("session-list--workspace", partial=True) + overlay
            right.append(Segment(text.workspace, workspace_style))
        if text.model:
            right.append(Segment(text.model, detail_style))
        right.append(Segment(text.count, detail_style))
        if text.usage:
            right.append(Segment(text.usage, detail_style))

        left: list[Segment] = [Segment(" ", plain)]
        if running and layout.time:
            running_style = base + part("session-list--running", partial=True) + overlay
            mark = f"{RUNNING_MARK} {RUNNING_WORD}".ljust(layout.time)
            left += [Segment(mark, running_style), Segment("  ", plain)]
        elif layout.time:
            when = row.when.ljust(layout.time)
            left.extend(self._highlighted(when, time_positions, time_style, match_part))
            left.append(Segment("  ", plain))
        left.extend(self._highlighted(text.title, title_positions, plain, match_part))
        if text.lineage:
            fork_style = base + part("session-list--fork", partial=True) + overlay
            left.append(Segment(text.lineage, fork_style))
        left.append(Segment(" " * text.title_pad, plain))

        strip = Strip([*left, *right], layout.left + layout.title + layout.right)
        return strip.adjust_cell_length(width, plain)

    def _render_snippet(self, line: int, width: int, base: Style) -> Strip:
        is_cursor = line == self.cursor
        key = (self._generation, -1 - line, width, is_cursor, False)
        strip = self._strip_cache.get(key)
        if strip is not None:
            return strip
        snippet = self.snippet_at(line)
        part = self.get_component_rich_style
        overlay = part("session-list--cursor", partial=True) if is_cursor else Style()
        style = base + part("session-list--snippet", partial=True) + overlay
        detail = base + part("session-list--detail", partial=True) + overlay
        segments: list[Segment] = []
        if snippet is not None:
            indent = " " * (3 + TIME_COLUMN_WIDTH)
            where = f"{snippet.where}: "
            room = max(0, width - len(indent) - cell_len(where) - 1)
            text, spans = snippet.text, snippet.spans
            if spans and cell_len(text[: spans[0][1]]) > room - 1:
                # the first match would be cut off: start the line closer to it
                shift = max(0, spans[0][0] - room // 3)
                text = "…" + text[shift + 1 :]
                spans = tuple((start - shift, end - shift) for start, end in spans)
            text = _crop(text, room)
            positions = {
                position
                for start, end in spans
                for position in range(max(0, start), min(end, len(text)))
            }
            match_part = part("session-list--match", partial=True)
            segments = [Segment(indent, style), Segment(where, detail)]
            segments += self._highlighted(text, positions, style, match_part)
        strip = Strip(segments).adjust_cell_length(width, style)
        self._strip_cache[key] = strip
        return strip

    @staticmethod
    def _highlighted(
        text: str, positions: set[int], style: Style, match_part: Style
    ) -> list[Segment]:
        """Split `text` into runs, styling the characters at `positions` as matches."""
        if not positions:
            return [Segment(text, style)]
        match_style = style + match_part
        segments: list[Segment] = []
        run_start = 0
        run_matched = 0 in positions
        for index in range(1, len(text) + 1):
            matched = index in positions
            if index == len(text) or matched != run_matched:
                segments.append(
                    Segment(text[run_start:index], match_style if run_matched else style)
                )
                run_start, run_matched = index, matched
        return segments
