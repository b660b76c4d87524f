"""The session list of the resume picker: a line-API `ScrollView` that draws only visible rows.

What it shows is a `ShownRows` (zero_tui.picker.shown_rows): rows in a ranked order with
the matched characters of each label highlighted, and where the highlight goes when they
change. Each line is drawn by `session_row_painter` with the styles of
`COMPONENT_CLASSES`; the widget keeps the scrolling, the cursor and the mouse.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from functools import partial
from os.path import expanduser
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from rich.style import Style
from textual import events, on
from textual.cache import LRUCache
from textual.message import Message
from textual.reactive import var
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from zero_tui.picker.session_rows import PickerRow
from zero_tui.picker.shown_rows import HighlightLookup, NoteLookup, ShownRows, SnippetLine
from zero_tui.ui.widgets.session_row_painter import message_strip, row_strip, snippet_strip
from zero_tui.ui.widgets.virtual_height import set_virtual_height

if TYPE_CHECKING:
    from zero_tui.store.session_flags import FlagBook
    from zero_tui.store.token_counts import Tokens

NARROW_WIDTH = 110
"""On a screen narrower than this the list's container gets the class `-narrow`: the
picker's CSS then hides the preview, so the titles get the room."""


class SessionList(ScrollView, can_focus=False):
    """A virtual list of sessions; the picker's query Input keeps the focus. Its scrollbar
    is always there, its track the list's colour: a query whose rows come to fit (or no
    longer fit) lays nothing out, where a scrollbar that came and went did, at most keys of
    a content search on a small terminal."""

    DEFAULT_CSS = """
    SessionList {
        overflow-x: hidden;
        overflow-y: scroll;
        scrollbar-background: $surface;
        scrollbar-background-hover: $surface;
        scrollbar-background-active: $surface;
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "session-list--cursor",
        "session-list--hover",
        "session-list--match",
        "session-list--time",
        "session-list--detail",
        "session-list--fork",
        "session-list--host",
        "session-list--workspace",
        "session-list--message",
        "session-list--snippet",
        "session-list--running",
        "session-list--pinned",
        "session-list--tags",
        "session-list--marked",
    }

    cursor: var[int] = var(0, always_update=True, init=False)
    """Index of the highlighted row in the current order. A `var`: its watcher redraws the
    two rows it moved between, not the whole list."""

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
        self.shown = ShownRows(home=expanduser("~"), cells=cell_len)
        self.hover_line: int | None = None
        """The display line under the mouse, drawn as hovered."""
        self._empty_message = ""
        self._generation = 0
        self._strip_cache: LRUCache[tuple[int, Hashable, int, bool, bool], Strip] = LRUCache(1024)
        self._moving = False  # the cursor is being moved by the user
        self._part = partial(self.get_component_rich_style, partial=True)
        self._base_style: Style | None = None

    # --- data ----------------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        return len(self.shown.order)

    @property
    def highlighted_row(self) -> PickerRow | None:
        return self.shown.row_at(self.cursor)

    def highlight_positions(self, line: int) -> tuple[int, ...]:
        """The highlighted label positions of the row at display `line`."""
        return tuple(self.shown.positions(line))

    def visible_rows(self) -> list[PickerRow]:
        """The rows in display order (for tests and the status line)."""
        return self.shown.visible()

    def set_rows(
        self,
        rows: Sequence[PickerRow],
        order: Sequence[int] | None = None,
        highlight: HighlightLookup | None = None,
        *,
        show_workspace: bool,
        cursor: int = 0,
        snippets: Callable[[int], SnippetLine | None] | None = None,
        notes: NoteLookup | None = None,
    ) -> None:
        """Replace the rows; `order` defaults to the rows' own order (recency), and
        `highlight(line)` gives the matched label positions.

        `snippets(line)` gives the line shown under the row at display line `line`, and
        `notes(line)` why it matched, after its title."""
        shown = self.shown
        before = (shown.widths, shown.lines_per_row, shown.show_workspace)
        drawn = self._drawn_lines()
        shown.set_rows(
            rows, order, highlight, show_workspace=show_workspace, snippets=snippets, notes=notes
        )
        if before != (shown.widths, shown.lines_per_row, shown.show_workspace):
            self._invalidate()  # the columns or the lines of a row: every line changes
        else:
            self._refresh_changed(drawn)
        set_virtual_height(self, len(shown.order) * shown.lines_per_row)
        self.cursor = max(0, min(cursor, len(shown.order) - 1))

    def snippet_at(self, line: int) -> SnippetLine | None:
        """The snippet under the row at display `line`, if any."""
        return self.shown.snippet_at(line)

    def set_running(self, session_ids: frozenset[str]) -> None:
        """Mark the rows of these sessions as running (an agent writes them now)."""
        if self.shown.set_running(session_ids):
            self._invalidate()

    def set_flags(self, book: FlagBook) -> None:
        """The pins and tags to draw on the rows."""
        if self.shown.set_flags(book):
            self._invalidate()

    def set_marked(self, session_ids: frozenset[str]) -> None:
        """Draw these sessions' rows marked: only the rows whose mark changed are drawn
        again (one, for a ctrl+x)."""
        changed = self.shown.set_marked(session_ids)
        if len(changed) > 8:
            self._invalidate()
            return
        for session_id in changed:  # a line's mark is part of what the strip is cached by
            line = self.shown.line_of(session_id, self.cursor)
            if line is not None:
                self._refresh_row(line)

    def set_usage(self, usage: Mapping[str, Tokens]) -> None:
        """Each session's tokens, for the tokens column (shown on a wide screen)."""
        if self.shown.set_usage(usage):
            self._invalidate()

    def usage_text(self, row: PickerRow) -> str:
        """What the tokens column says of `row`: `12k tok`; "" when none is known."""
        return self.shown.usage_text(row)

    @property
    def shows_usage(self) -> bool:
        return self.shown.show_usage

    def cursor_on(self, session_id: str, order: Sequence[int], rows: Sequence[PickerRow]) -> int:
        """Where the highlight goes in new rows (`order` into `rows`): ShownRows.cursor_on."""
        return self.shown.cursor_on(session_id, order, rows, self.cursor)

    def set_empty_message(self, message: str) -> None:
        """What the first line says when there is no row to show (drawn again only then:
        a query changes it at every key)."""
        if message != self._empty_message:
            self._empty_message = message
            if not self.shown.order:
                self.refresh_line(0)

    def _line_content(self, y: int) -> Hashable:
        """What the list's line `y` (from its top) draws, but for the cursor and the hover:
        the same content, the same strip."""
        shown = self.shown
        line, part = divmod(y, shown.lines_per_row)
        if line >= len(shown.order):
            return self._empty_message if line == 0 and part == 0 else None
        if part:
            return ("snippet", shown.snippet_at(line))
        row = shown.rows[shown.order[line]]
        marked = row.session_id in shown.marked
        return (row, tuple(shown.positions(line)), shown.note(line), marked)

    def _drawn_lines(self) -> list[Hashable]:
        """What the lines on screen draw now."""
        top = round(self.scroll_y)
        return [self._line_content(top + y) for y in range(self.scrollable_content_region.height)]

    def _refresh_changed(self, drawn: list[Hashable]) -> None:
        """Redraw the lines on screen that draw something else than `drawn`, no other."""
        top = round(self.scroll_y)
        for y, before in enumerate(drawn):
            if self._line_content(top + y) != before:
                self.refresh_line(top + y)

    def _invalidate(self) -> None:
        self._generation += 1
        self._strip_cache.clear()
        self.refresh()

    # --- cursor --------------------------------------------------------------------------

    def watch_cursor(self, old: int, new: int) -> None:
        self._refresh_row(old)
        self._refresh_row(new)
        self._scroll_cursor_into_view()
        self.post_message(self.Highlighted(self.highlighted_row, by_user=self._moving))

    def _scroll_cursor_into_view(self, *, later: bool = True) -> None:
        """Scroll so that the cursor's lines show; with no height yet, once more after the
        next refresh (`later`)."""
        height = self.scrollable_content_region.height
        if height <= 0:
            if later:
                self.call_after_refresh(self._scroll_cursor_into_view, later=False)
            return
        top = round(self.scroll_y)
        lines = self.shown.lines_per_row
        first, last = self.cursor * lines, self.cursor * lines + lines - 1
        if first < top:
            self.scroll_to(y=first, animate=False)
        elif last >= top + height:
            self.scroll_to(y=last - height + 1, animate=False)

    def _move_to(self, line: int) -> None:
        """The user moves the highlight to `line`."""
        self.shown.user_moved = True
        self._moving = True
        try:
            self.cursor = line
        finally:
            self._moving = False

    def move(self, delta: int, *, wrap: bool) -> None:
        count = self.row_count
        if not count:
            return
        target = self.cursor + delta
        self._move_to(target % count if wrap else max(0, min(target, count - 1)))

    def page(self, pages: int) -> None:
        rows = self.scrollable_content_region.height // self.shown.lines_per_row
        self.move(pages * max(1, rows - 1), wrap=False)

    def first(self) -> None:
        if self.row_count:
            self._move_to(0)

    def last(self) -> None:
        if self.row_count:
            self._move_to(self.row_count - 1)

    # --- mouse ---------------------------------------------------------------------------
    # Public `on_` handlers: Textual runs each class's handler down the MRO, so Widget's own
    # (`_on_leave`, ...) still runs after these unless they prevent the default.

    def _line_at(self, event: events.MouseEvent) -> int | None:
        offset = event.get_content_offset(self)
        if offset is None:
            return None
        line = (offset.y + round(self.scroll_y)) // self.shown.lines_per_row
        return line if 0 <= line < self.row_count else None

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

    @on(events.MouseMove)
    @on(events.Leave)
    def _hover(self, event: events.MouseMove | events.Leave) -> None:
        """The mouse moved over a line, or left the list: draw the line under it hovered."""
        line = self._line_at(event) if isinstance(event, events.MouseMove) else None
        if line != self.hover_line:
            previous, self.hover_line = self.hover_line, line
            for changed in (previous, line):
                if changed is not None:
                    self._refresh_row(changed)

    def _refresh_row(self, row: int) -> None:
        lines = self.shown.lines_per_row
        for part in range(lines):
            self.refresh_line(row * lines + part)

    @on(events.MouseScrollDown)
    @on(events.MouseScrollUp)
    def _wheel(self, event: events.MouseScrollDown | events.MouseScrollUp) -> None:
        """The wheel moves the highlight, a row at a time (not the view)."""
        event.prevent_default()
        event.stop()
        self.move(1 if isinstance(event, events.MouseScrollDown) else -1, wrap=False)

    # --- rendering -----------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strip_cache.clear()
        self._base_style = None

    def on_resize(self, event: events.Resize) -> None:
        # The list asks for the room: on a narrow screen its container drops the preview (see
        # the picker's CSS). The screen's width, not the container's, decides: it does not
        # change when the preview comes and goes.
        screen_width = self.screen.size.width
        if isinstance(self.parent, Widget):
            self.parent.set_class(screen_width < NARROW_WIDTH, "-narrow")
        if self.shown.fit(screen_width):
            self._invalidate()

    def render_line(self, y: int) -> Strip:
        shown = self.shown
        width = self.scrollable_content_region.width
        line, part = divmod(round(self.scroll_y) + y, shown.lines_per_row)
        base = self._base_style
        if base is None:
            base = self._base_style = self.rich_style  # walks the ancestors: once, not per line
        if line >= len(shown.order):
            if line == 0 and part == 0 and self._empty_message:  # once, not per line of a row
                return message_strip(self._empty_message, width, base, self._part)
            return Strip.blank(width, base)
        is_cursor = line == self.cursor
        is_hover = not part and line == self.hover_line
        content = self._line_content(line * shown.lines_per_row + part)
        key = (self._generation, content, width, is_cursor, is_hover)
        strip = self._strip_cache.get(key)
        if strip is None:
            if part:
                snippet = shown.snippet_at(line)
                strip = snippet_strip(snippet, width, base, self._part, is_cursor=is_cursor)
            else:
                row = shown.rows[shown.order[line]]
                positions = shown.positions(line)
                strip = row_strip(
                    shown,
                    row,
                    positions,
                    width,
                    base,
                    self._part,
                    is_cursor=is_cursor,
                    is_hover=is_hover,
                    note=shown.note(line),
                )
            self._strip_cache[key] = strip
        return strip
