"""The transcript: a line-API list of rows that decodes and renders only what is on screen.

Events are grouped in chunks of `CHUNK_EVENTS` (by their position in the rehydrated order).
A chunk's rows are built from the log index when the chunk comes into view; each row is
rendered into strips at the current width only when it is on screen, and counts with an
estimated height until then (a chunk never built counts with an estimate per event). When
a render corrects an estimate, the row at the top of the screen stays where it is (or the
bottom, while following the log). A bounded number of chunks keep their rows and strips;
the rest keep only their height. Markdown is rendered by Rich straight to lines, never
mounted as widgets. The counting (chunk and row heights, where each row sits, the anchor
row) is `transcript_geometry`'s, which knows nothing of Textual or Rich; this module
renders, scrolls and handles keys.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.events import Click, Key, Resize
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from zero_tui.transcript.geometry import GUTTER, PRELUDE_POSITION, is_foldable
from zero_tui.transcript.log_index import LogIndex
from zero_tui.transcript.rows import LogFacts, Row
from zero_tui.ui.widgets.ordered_keys import OrderedKeys, hand_over
from zero_tui.ui.widgets.row_chunks import RowChunks
from zero_tui.ui.widgets.row_painter import highlight_matches, row_strips


class TranscriptView(OrderedKeys, ScrollView, can_focus=True):
    """Rows of one session, with a highlighted row (the cursor) and expandable tool cards."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "transcript--user",
        "transcript--assistant",
        "transcript--system",
        "transcript--card",
        "transcript--summary",
        "transcript--error",
        "transcript--tool",
        "transcript--tool-ok",
        "transcript--tool-error",
        "transcript--output",
        "transcript--permission",
        "transcript--ask",
        "transcript--specialist",
        "transcript--dim",
        "transcript--cursor",
        "transcript--match",
    }

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor_up", "Previous row", show=False),
        Binding("down", "cursor_down", "Next row", show=False),
        Binding("enter,space", "toggle_card", "Expand/collapse", show=False),
        Binding("home", "jump_top", "Top", show=False),
        Binding("end", "jump_bottom", "Bottom", show=False),
        Binding("left_square_bracket", "previous_turn", "Previous turn", show=False),
        Binding("right_square_bracket", "next_turn", "Next turn", show=False),
    ]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._chunks = RowChunks(self._render_row, lambda: self._row_width)
        self._geometry = self._chunks.geometry
        self._expanded: set[int] = set()
        self.cursor: int | None = None
        self.following = True
        self.search_query = ""
        self._preparing = False
        self._pending: tuple[int, str | None, bool] | None = None
        """A `move_cursor` (query None) or `reveal` asked for before the rows had a size
        (a search hit located before the first layout): done when they are first sized."""
        self.type_target: Widget | None = None
        """Where characters typed on the rows go (the screen's editor), with the focus."""

    async def unbound_character(self, event: Key) -> bool:
        """A character typed on the rows starts text in the editor, that key kept."""
        target = self.type_target
        if target is None:
            return False
        self.screen.set_focus(target)
        hand_over(event, target)
        return True

    # -- data -------------------------------------------------------------------------

    @property
    def event_count(self) -> int:
        return len(self._chunks.order)

    def set_source(
        self,
        index: LogIndex,
        order: Sequence[int],
        prelude: Sequence[Row],
        facts: LogFacts | None = None,
    ) -> None:
        """Show the rows of `order` (line indices of `index`) after the `prelude` rows.

        `facts` (`index_facts` of the order, from the indexing worker) make every chunk's
        rows those of the whole log; without them a chunk sees only a little context.
        """
        self._chunks.reset(index, order, prelude, facts)
        self._pending = None
        self.cursor = None
        self._expanded = set()
        self._layout(scroll_to_end=True)

    def replace_prelude(self, prelude: Sequence[Row]) -> None:
        """New rows above the log's (the resume card after a rename)."""
        if self._chunks.replace_prelude(prelude):
            self._layout()

    def replace_source(
        self,
        index: LogIndex,
        order: Sequence[int],
        prelude: Sequence[Row],
        *,
        shift: int,
        facts: LogFacts | None = None,
    ) -> None:
        """Show the whole log in place of a look at its latest events.

        The rows shown so far move down by `shift` positions; the view stays on them (or at
        the bottom when it was there), and so do the cursor and the expanded cards.
        """
        anchor: tuple[int, int] | None = None
        if not self.following:
            shown = self.visible_rows()
            if shown:
                first = shown[0][0]
                top = self.row_top(first)
                anchor = (first + shift, (top or 0) - round(self.scroll_y))
        cursor, pending = self.cursor, self._pending
        expanded = {position + shift for position in self._expanded}
        self.set_source(index, order, prelude, facts)
        self._expanded = expanded
        if pending is not None:
            self._pending = (pending[0] + shift, *pending[1:])
        if cursor is not None and cursor >= 0:
            self.cursor = cursor + shift
        if anchor is not None:
            top = self.row_top(anchor[0])
            if top is not None:
                self.following = False
                self._scroll_y_to(top - anchor[1])
                self._prepare()
        self.refresh()

    def extend_source(
        self,
        order: Sequence[int],
        first_changed: int,
        facts: LogFacts | None = None,
        stale: Iterable[int] = (),
    ) -> None:
        """The log grew: positions from `first_changed` on are new or changed (`facts`, when
        given, cover the grown order). The rows of the `stale` positions (earlier events
        linked to the new ones, e.g. a call whose result just came) are built again."""
        at_end = self.following
        self._chunks.extend(order, first_changed, facts, stale)
        self._layout(scroll_to_end=at_end)

    # -- geometry ---------------------------------------------------------------------

    @property
    def _row_width(self) -> int:
        return max(10, self.scrollable_content_region.width - GUTTER - 1)

    def _set_virtual_height(self) -> None:
        height = self._geometry.place()
        self.virtual_size = Size(self.scrollable_content_region.width, height)

    def _layout(self, *, scroll_to_end: bool = False) -> None:
        if scroll_to_end:
            self.following = True
        self._set_virtual_height()
        self._prepare()
        self.refresh()

    def _prepare(self) -> None:
        """Render the rows in view; keep the top row still (or the bottom when following)."""
        geometry = self._geometry
        if self._preparing or not geometry.chunks or self.size.height == 0:
            return
        self._preparing = True
        try:
            for _ in range(12):
                height = self.scrollable_content_region.height
                if self.following:
                    target = max(0, geometry.height - height)
                else:
                    target = min(round(self.scroll_y), max(0, geometry.height - height))
                anchor_chunk, anchor_row, anchor_offset = geometry.anchor(target)
                changed = False
                chunk_index = geometry.chunk_at(target)
                while (
                    chunk_index < len(geometry.chunks)
                    and geometry.tops[chunk_index] < target + height
                ):
                    chunk, resized = self._chunks.materialize(chunk_index)
                    chunk_top = geometry.tops[chunk_index]
                    if resized:
                        changed = True
                        break  # positions below moved: measure again
                    changed |= self._chunks.render_rows(
                        chunk, target - chunk_top, target + height - chunk_top
                    )
                    chunk_index += 1
                if not changed:
                    self._scroll_y_to(target)
                    break
                self._set_virtual_height()
                if not self.following and anchor_chunk >= 0:
                    self._scroll_y_to(geometry.line_of(anchor_chunk, anchor_row) - anchor_offset)
        finally:
            self._preparing = False

    def _scroll_y_to(self, y: int) -> None:
        maximum = max(0, self._geometry.height - self.scrollable_content_region.height)
        y = max(0, min(y, maximum))
        if round(self.scroll_y) != y:
            self.set_reactive(TranscriptView.scroll_y, float(y))
            self.scroll_target_y = float(y)
            self.vertical_scrollbar.position = y
            self.refresh()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if not self._preparing:
            maximum = max(0, self._geometry.height - self.scrollable_content_region.height)
            self.following = round(new_value) >= maximum
            self._prepare()

    def on_resize(self, event: Resize) -> None:
        self._layout()
        pending = self._pending
        if pending is not None and self.size.height > 0:
            self._pending = None
            position, query, align_top = pending
            if query is None:
                self.move_cursor(position, align_top=align_top)
            else:
                self.reveal(position, query, align_top=align_top)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        for chunk in self._geometry.chunks:
            chunk.width = 0  # re-estimated and re-rendered when next in view
        if self.is_mounted:
            self.call_later(self._layout)

    # -- positions of rows ------------------------------------------------------------

    def row_top(self, position: int) -> int | None:
        """The first virtual line of the row at `position`, rendering it if needed."""
        top, resized = self._chunks.row_top(position)
        if resized:
            self._set_virtual_height()
        return top

    def row_at(self, position: int) -> Row | None:
        return self._chunks.row_at(position)

    def visible_rows(self) -> list[tuple[int, Row]]:
        """The rows at least partly on screen, top to bottom."""
        top = round(self.scroll_y)
        return self._geometry.rows_between(top, top + self.scrollable_content_region.height)

    # -- cursor and navigation --------------------------------------------------------

    def move_cursor(self, position: int | None, *, align_top: bool = False) -> None:
        """Highlight the row at `position` and scroll it into view."""
        self.cursor = position
        if self.size.height == 0 and position is not None:
            self._pending = (position, None, align_top)  # no row can be placed yet
            return
        self._pending = None
        if position is not None:
            self.scroll_to_row(position, align_top=align_top)
        self.refresh()

    def reveal(self, position: int, query: str, *, align_top: bool = False) -> None:
        """Highlight the row at `position` with `query` on screen (a find's match, a search
        hit): a card folded over the match unfolds, and the view scrolls to its line."""
        if self.size.height == 0:
            self.cursor = position
            self._pending = (position, query, align_top)
            return
        self._pending = None
        self.move_cursor(position, align_top=align_top)
        row = self.row_at(position)
        line = self._line_with(position, query)
        if line is None and row is not None and is_foldable(row):
            if position not in self._expanded:
                self._expanded.add(position)
                if self._chunks.rerender(position):
                    self._layout()
            line = self._line_with(position, query)
        top = self.row_top(position)
        if line is None or top is None:
            return
        view_top = round(self.scroll_y)
        view_height = self.scrollable_content_region.height
        if not view_top <= top + line < view_top + view_height:
            target = top + line - view_height // 3  # the match a third of the way down
            maximum = max(0, self._geometry.height - view_height)
            self.following = target >= maximum
            self._scroll_y_to(max(target, top))
            self._prepare()
        self.refresh()

    def _line_with(self, position: int, query: str) -> int | None:
        """The first line of the rendered row at `position` that shows `query`."""
        if self.row_top(position) is None:
            return None
        needle = query.casefold()
        for number, strip in enumerate(self._chunks.row_lines(position) or []):
            if needle in strip.text.casefold():
                return number
        return None

    def scroll_to_row(self, position: int, *, align_top: bool = False) -> None:
        top = self.row_top(position)
        if top is None:
            return
        height = self._chunks.row_height(position)
        view_top = round(self.scroll_y)
        view_height = self.scrollable_content_region.height
        if align_top or top < view_top or height > view_height:
            target = top
        elif top + height > view_top + view_height:
            target = top + height - view_height
        else:
            return
        maximum = max(0, self._geometry.height - view_height)
        self.following = target >= maximum
        self._scroll_y_to(target)
        self._prepare()

    def _cursor_on_screen(self) -> int | None:
        """The cursor if its row is visible, else the nearest visible row."""
        shown = self.visible_rows()
        if not shown:
            return self.cursor
        positions = [position for position, _ in shown]
        if self.cursor in positions:
            return self.cursor
        return positions[-1] if self.following else positions[0]

    def action_cursor_up(self) -> None:
        current = self._cursor_on_screen()
        previous = self._chunks.neighbour(current, -1)
        self.move_cursor(previous if previous is not None else current)

    def action_cursor_down(self) -> None:
        current = self._cursor_on_screen()
        following = self._chunks.neighbour(current, 1)
        self.move_cursor(following if following is not None else current)

    def action_jump_top(self) -> None:
        self.following = self._geometry.height <= self.scrollable_content_region.height
        self._scroll_y_to(0)
        self._prepare()
        shown = self.visible_rows()
        self.move_cursor(shown[0][0] if shown else None)

    def action_jump_bottom(self) -> None:
        self._layout(scroll_to_end=True)
        shown = self.visible_rows()
        self.cursor = shown[-1][0] if shown else None
        self.refresh()

    def action_next_turn(self) -> None:
        current = self._cursor_on_screen()
        target = self._chunks.turn_from(current if current is not None else PRELUDE_POSITION, 1)
        if target is not None:
            self.move_cursor(target, align_top=True)

    def action_previous_turn(self) -> None:
        current = self._cursor_on_screen()
        if current is None:
            return
        target = self._chunks.turn_from(current, -1)
        if target is not None:
            self.move_cursor(target, align_top=True)

    def page(self, pages: int) -> None:
        view_height = self.scrollable_content_region.height
        target = round(self.scroll_y) + pages * max(1, view_height - 1)
        maximum = max(0, self._geometry.height - view_height)
        self.following = target >= maximum
        self._scroll_y_to(target)
        self._prepare()

    # -- tool cards -------------------------------------------------------------------

    def is_expanded(self, position: int) -> bool:
        return position in self._expanded

    def toggle_card(self, position: int | None = None) -> bool:
        """Expand or collapse a card (the cursor's, else the last one on screen)."""
        target = position
        if target is None:
            current = self._cursor_on_screen()
            row = self.row_at(current) if current is not None else None
            if current is not None and row is not None and is_foldable(row):
                target = current
            else:
                cards = [pos for pos, shown in self.visible_rows() if is_foldable(shown)]
                target = cards[-1] if cards else None
        if target is None:
            return False
        self._expanded.symmetric_difference_update({target})
        keep_bottom = self.following and target not in self._expanded
        self.cursor = target
        if self._chunks.rerender(target):
            self._layout()
        if not keep_bottom:
            self.scroll_to_row(target)
        self.refresh()
        return True

    class ChildRequested(Message):
        """Enter (or a click) on a highlighted specialist card: open its sub-session."""

        def __init__(self, child_session_id: str) -> None:
            super().__init__()
            self.child_session_id = child_session_id

    def action_toggle_card(self) -> None:
        row = self.row_at(self.cursor) if self.cursor is not None else None
        if row is not None and row.specialist is not None:
            self.post_message(self.ChildRequested(row.specialist.child_session_id))
            return
        self.toggle_card()

    def on_click(self, event: Click) -> None:
        hit = self._geometry.row_at_line(round(self.scroll_y) + event.y)
        if hit is None:
            return
        position, row = hit
        if position == self.cursor and row.specialist is not None:
            self.post_message(self.ChildRequested(row.specialist.child_session_id))
        elif position == self.cursor and is_foldable(row):
            self.toggle_card(position)
        else:
            self.move_cursor(position)

    # -- search highlight -------------------------------------------------------------

    def set_search(self, query: str) -> None:
        self.search_query = query
        self.refresh()

    # -- rendering --------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        line_y = round(self.scroll_y) + y
        geometry = self._geometry
        if not geometry.chunks or line_y >= geometry.height:
            return Strip.blank(width, base)
        chunk_index = geometry.chunk_at(line_y)
        chunk, resized = self._chunks.materialize(chunk_index)
        offset = line_y - geometry.tops[chunk_index]
        if resized or self._chunks.render_rows(chunk, offset, offset + 1):
            self.call_after_refresh(self._layout)  # estimates were off: lay out again
        row_index = chunk.row_at_offset(offset)
        if not 0 <= row_index < len(chunk.lines):
            return Strip.blank(width, base)
        lines = chunk.lines[row_index] or []
        line_in_row = offset - chunk.row_tops[row_index]
        if line_in_row >= len(lines):
            return Strip.blank(width, base)
        strip = lines[line_in_row]
        if self.search_query:
            strip = highlight_matches(strip, self.search_query, self._style("match"))
        is_cursor = chunk.positions[row_index] == self.cursor
        gutter_style = self.get_component_rich_style("transcript--cursor") if is_cursor else base
        gutter = Strip([Segment("▌ " if is_cursor else "  ", gutter_style)], GUTTER)
        return Strip.join([gutter, strip]).adjust_cell_length(width, base)

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"transcript--{name}")

    def _render_row(self, row: Row, position: int, width: int) -> list[Strip]:
        expanded = position in self._expanded
        return row_strips(
            self.app.console,
            self.rich_style,
            row,
            expanded=expanded,
            style=self._style,
            width=width,
        )
