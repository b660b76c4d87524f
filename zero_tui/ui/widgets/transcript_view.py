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

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar, assert_never

from rich.cells import cell_len
from rich.console import RenderableType
from rich.markdown import Markdown
from rich.panel import Panel
from rich.rule import Rule
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.events import Click, Key, Resize
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from zero_tui.text.sanitize import sanitize_line, sanitize_text
from zero_tui.transcript.geometry import (
    GUTTER,
    PRELUDE_POSITION,
    Chunk,
    TranscriptGeometry,
    is_tool_card,
)
from zero_tui.transcript.log_index import LogIndex, chunk_rows
from zero_tui.transcript.markdown_parser import markdown_parser
from zero_tui.transcript.rows import LogFacts, Row, RowKind
from zero_tui.ui.widgets.ordered_keys import OrderedKeys, hand_over
from zero_tui.ui.widgets.tool_card import tool_card

LIVE_CHUNKS = 48
"""Chunks that keep their rows and strips; others keep only their height."""
MARKDOWN_LIMIT = 100_000
"""Answers longer than this (in characters) are shown as plain text."""
USER_MARKER = "\u276f "  # a heavy angle quote before each prompt


class LiteralMarkdown(Markdown):
    """Rich's Markdown with raw HTML read as text: `<script>` in an answer shows as written.

    Rich parses with markdown-it's default preset, which takes `<tag>` as HTML and then drops
    it; session text is data, so HTML blocks and inline tags stay literal (`markdown_parser`,
    as in the live turn and the exports).
    """

    _parser = markdown_parser()

    def __init__(self, markup: str) -> None:
        super().__init__("")
        self.markup = markup
        self.parsed = self._parser.parse(markup)


@dataclass(frozen=True, slots=True)
class _Marked:
    """A row body drawn after a one-cell marker (the marker column stays clear below)."""

    marker: str
    style: Style
    body: RenderableType


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
        self._index: LogIndex | None = None
        self._order: Sequence[int] = ()
        self._facts: LogFacts | None = None
        self._geometry: TranscriptGeometry[list[Strip]] = TranscriptGeometry()
        self._live: OrderedDict[int, None] = OrderedDict()
        self._expanded: set[int] = set()
        self.cursor: int | None = None
        self.following = True
        self.search_query = ""
        self._preparing = False
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
        return len(self._order)

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
        self._index = index
        self._order = order
        self._facts = facts
        self._geometry.reset(prelude, self._row_width)
        self._live.clear()
        self._geometry.add_chunks(0, len(order))
        self.cursor = None
        self._expanded = set()
        self._layout(scroll_to_end=True)

    def replace_prelude(self, prelude: Sequence[Row]) -> None:
        """New rows above the log's (the resume card after a rename)."""
        if not self._geometry.chunks:
            return
        positions = [PRELUDE_POSITION] * len(prelude)
        self._geometry.chunks[0].set_rows(positions, list(prelude), self._row_width)
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
        cursor = self.cursor
        expanded = {position + shift for position in self._expanded}
        self.set_source(index, order, prelude, facts)
        self._expanded = expanded
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
        self._order = order
        if facts is not None:
            self._facts = facts
        for position in stale:
            stale_index = self.chunk_of(position)
            if 0 < stale_index < len(self._geometry.chunks):
                self._geometry.chunks[stale_index].forget()
                self._live.pop(stale_index, None)
        chunk_index = self.chunk_of(first_changed)
        for dropped in range(chunk_index, len(self._geometry.chunks)):
            self._live.pop(dropped, None)
        self._geometry.add_chunks(self._geometry.drop_chunks_from(chunk_index), len(order))
        self._layout(scroll_to_end=at_end)

    def chunk_of(self, position: int) -> int:
        """The chunk holding the row of order position `position`."""
        return self._geometry.chunk_of(position)

    def _materialize(self, chunk_index: int) -> tuple[Chunk[list[Strip]], bool]:
        """Rows of one chunk at the current width (decoding its events if needed).

        Returns the chunk and whether its height changed.
        """
        chunk = self._geometry.chunks[chunk_index]
        old_height = chunk.height
        width = self._row_width
        if chunk.rows is None and self._index is not None and not chunk.fixed:
            shown = chunk_rows(self._index, self._order, chunk.start, chunk.end, self._facts)
            chunk.set_rows([position for position, _ in shown], [row for _, row in shown], width)
            self._geometry.learn_density(chunk)
        elif chunk.rows is not None and chunk.width != width:
            chunk.set_rows(chunk.positions, chunk.rows, width)
        if not chunk.fixed:
            self._live[chunk_index] = None
            self._live.move_to_end(chunk_index)
            while len(self._live) > LIVE_CHUNKS:
                evicted, _ = self._live.popitem(last=False)
                self._geometry.chunks[evicted].forget()
        return chunk, chunk.height != old_height

    def _render_rows(self, chunk: Chunk[list[Strip]], top: int, bottom: int) -> bool:
        """Render the rows of `chunk` that overlap its lines [top, bottom).

        Returns True when a row's height differed from its estimate.
        """
        if chunk.rows is None:
            return False
        changed = False
        first = max(0, chunk.row_at_offset(top))
        for row_index in range(first, len(chunk.rows)):
            if chunk.row_tops[row_index] >= bottom:
                break
            if chunk.lines[row_index] is None:
                lines = self._render_row(
                    chunk.rows[row_index], chunk.positions[row_index], chunk.width
                )
                changed |= chunk.rendered(row_index, lines, len(lines))
        if changed:
            chunk.sum_rows()
        return changed

    def _rerender_row(self, position: int) -> None:
        chunk = self._geometry.chunks[self.chunk_of(position)]
        row_index = chunk.row_index(position)
        if chunk.rows is None or row_index is None:
            return
        lines = self._render_row(chunk.rows[row_index], position, chunk.width)
        chunk.rendered(row_index, lines, len(lines))
        chunk.sum_rows()
        self._layout()

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
                    chunk, resized = self._materialize(chunk_index)
                    chunk_top = geometry.tops[chunk_index]
                    if resized:
                        changed = True
                        break  # positions below moved: measure again
                    changed |= self._render_rows(
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

    def notify_style_update(self) -> None:
        super().notify_style_update()
        for chunk in self._geometry.chunks:
            chunk.width = 0  # re-estimated and re-rendered when next in view
        if self.is_mounted:
            self.call_later(self._layout)

    # -- positions of rows ------------------------------------------------------------

    def row_top(self, position: int) -> int | None:
        """The first virtual line of the row at `position`, rendering it if needed."""
        chunk_index = self.chunk_of(position)
        chunk, resized = self._materialize(chunk_index)
        row_index = chunk.row_index(position)
        if row_index is None:
            return None
        top = chunk.row_tops[row_index]
        resized |= self._render_rows(chunk, top, top + 1)
        if resized:
            self._set_virtual_height()
        return self._geometry.line_of(chunk_index, row_index)

    def row_height(self, position: int) -> int:
        chunk = self._geometry.chunks[self.chunk_of(position)]
        row_index = chunk.row_index(position)
        return 0 if row_index is None else chunk.heights[row_index]

    def row_at(self, position: int) -> Row | None:
        chunk, _ = self._materialize(self.chunk_of(position))
        row_index = chunk.row_index(position)
        if row_index is None or chunk.rows is None:
            return None
        return chunk.rows[row_index]

    def visible_rows(self) -> list[tuple[int, Row]]:
        """The rows at least partly on screen, top to bottom."""
        top = round(self.scroll_y)
        return self._geometry.rows_between(top, top + self.scrollable_content_region.height)

    def _neighbour(self, position: int | None, step: int) -> int | None:
        """The position of the row before/after `position` (None at either end)."""
        if position is None:
            return None
        chunk_index = self.chunk_of(position)
        while 0 <= chunk_index < len(self._geometry.chunks):
            chunk, _ = self._materialize(chunk_index)
            candidates = chunk.positions if step > 0 else list(reversed(chunk.positions))
            for candidate in candidates:
                if (candidate > position) if step > 0 else (candidate < position):
                    return candidate
            chunk_index += step
        return None

    # -- cursor and navigation --------------------------------------------------------

    def move_cursor(self, position: int | None, *, align_top: bool = False) -> None:
        """Highlight the row at `position` and scroll it into view."""
        self.cursor = position
        if position is not None:
            self.scroll_to_row(position, align_top=align_top)
        self.refresh()

    def scroll_to_row(self, position: int, *, align_top: bool = False) -> None:
        top = self.row_top(position)
        if top is None:
            return
        height = self.row_height(position)
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
        previous = self._neighbour(current, -1)
        self.move_cursor(previous if previous is not None else current)

    def action_cursor_down(self) -> None:
        current = self._cursor_on_screen()
        following = self._neighbour(current, 1)
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

    def _turn_from(self, position: int, step: int) -> int | None:
        """The next/previous user row after/before `position`."""
        candidate: int | None = position
        while True:
            candidate = self._neighbour(candidate, step)
            if candidate is None:
                return None
            row = self.row_at(candidate)
            if row is not None and row.kind is RowKind.USER:
                return candidate

    def action_next_turn(self) -> None:
        current = self._cursor_on_screen()
        target = self._turn_from(current if current is not None else PRELUDE_POSITION, 1)
        if target is not None:
            self.move_cursor(target, align_top=True)

    def action_previous_turn(self) -> None:
        current = self._cursor_on_screen()
        if current is None:
            return
        target = self._turn_from(current, -1)
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
        """Expand or collapse a tool card (the cursor's, else the last one on screen)."""
        target = position
        if target is None:
            current = self._cursor_on_screen()
            row = self.row_at(current) if current is not None else None
            if current is not None and row is not None and is_tool_card(row):
                target = current
            else:
                cards = [pos for pos, shown in self.visible_rows() if is_tool_card(shown)]
                target = cards[-1] if cards else None
        if target is None:
            return False
        self._expanded.symmetric_difference_update({target})
        keep_bottom = self.following and target not in self._expanded
        self.cursor = target
        self._rerender_row(target)
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
        elif position == self.cursor and is_tool_card(row):
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
        chunk, resized = self._materialize(chunk_index)
        offset = line_y - geometry.tops[chunk_index]
        if resized or self._render_rows(chunk, offset, offset + 1):
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
            strip = self._highlight(strip)
        is_cursor = chunk.positions[row_index] == self.cursor
        gutter_style = self.get_component_rich_style("transcript--cursor") if is_cursor else base
        gutter = Strip([Segment("▌ " if is_cursor else "  ", gutter_style)], GUTTER)
        return Strip.join([gutter, strip]).adjust_cell_length(width, base)

    def _highlight(self, strip: Strip) -> Strip:
        """Mark every occurrence of the search query on one line."""
        text = strip.text.casefold()
        needle = self.search_query.casefold()
        if len(text) != len(strip.text) or needle not in text:
            return strip  # (case folding that changes lengths would misplace the marks)
        cuts: list[int] = []
        start = text.find(needle)
        while start >= 0:
            cuts += [start, start + len(needle)]
            start = text.find(needle, start + len(needle))
        cells = [strip.index_to_cell_position(index) for index in cuts]
        pieces = strip.divide([*cells, strip.cell_length])
        style = self.get_component_rich_style("transcript--match")
        return Strip.join(
            Strip(list(Segment.apply_style(piece, post_style=style)), piece.cell_length)
            if number % 2
            else piece
            for number, piece in enumerate(pieces)
        )

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"transcript--{name}")

    def _render_row(self, row: Row, position: int, width: int) -> list[Strip]:
        console = self.app.console
        base = self.rich_style
        renderable = self._renderable(row, position)
        if isinstance(renderable, _Marked):
            marker_width = cell_len(renderable.marker)
            options = console.options.update_width(max(1, width - marker_width))
            body = console.render_lines(
                renderable.body, options.update(highlight=False), style=base, pad=True
            )
            first = Segment(renderable.marker, base + renderable.style)
            rest = Segment(" " * marker_width, base)
            strips = [
                Strip([first if number == 0 else rest, *line], width)
                for number, line in enumerate(body)
            ]
        else:
            options = console.options.update_width(width).update(highlight=False)
            lines = console.render_lines(renderable, options, style=base, pad=True)
            strips = [Strip(line, width) for line in lines]
        strips.append(Strip.blank(width, base))
        return strips

    def _renderable(self, row: Row, position: int) -> RenderableType | _Marked:
        match row.kind:
            case RowKind.USER:
                return self._prompt(row)
            case RowKind.ASSISTANT:
                return self._answer(row)
            case RowKind.ERROR:
                return self._error(row)
            case RowKind.TOOL_CALL | RowKind.TOOL_RESULT:
                return self._tool_card(row, position)
            case RowKind.PERMISSION:
                return self._permission(row)
            case RowKind.ASK_USER:
                return self._question(row)
            case RowKind.SPECIALIST:
                return self._specialist(row)
            case RowKind.CARD:
                return self._card(row)
            case RowKind.SUMMARY:
                return self._summary(row)
            case RowKind.FORK:
                return self._fork_marker(row)
            case RowKind.SYSTEM | RowKind.PEER | RowKind.WELCOME:
                return self._note(row)
            case _:
                assert_never(row.kind)

    def _prompt(self, row: Row) -> _Marked:
        body = Text(sanitize_text(row.text), style=self._style("user"))
        if not row.attachments.empty:
            body.append("\n" + row.attachments.label(), style=self._style("dim"))
        return _marked(USER_MARKER, body, self._style("user"))

    def _answer(self, row: Row) -> _Marked:
        text = sanitize_text(row.text)
        # parsing Markdown costs time in proportion to its size: a huge answer stays plain
        answer: RenderableType = (
            LiteralMarkdown(text) if len(text) <= MARKDOWN_LIMIT else Text(text)
        )
        return _marked("● ", answer, self._style("assistant"))

    def _error(self, row: Row) -> _Marked:
        text = "error: " + sanitize_text(row.text)
        return _marked("✖ ", Text(text, style=self._style("error")), self._style("error"))

    def _permission(self, row: Row) -> _Marked:
        line = Text(sanitize_text(row.text), style=self._style("permission"))
        detail = row.detail
        if detail:
            line.append("  " + sanitize_line(detail), style=self._style("dim"))
        return _marked("⚑ ", line, self._style("permission"))

    def _question(self, row: Row) -> _Marked:
        body = Text(sanitize_text(row.text), style=self._style("ask"))
        detail = row.detail
        if detail:
            body.append("\n" + sanitize_text(detail))
        return _marked("? ", body, self._style("ask"))

    def _specialist(self, row: Row) -> _Marked:
        body = Text(sanitize_text(row.text), style=self._style("specialist"))
        detail = row.detail
        if detail:
            body.append("\n" + sanitize_text(detail), style=self._style("dim"))
        return _marked("◆ ", body, self._style("specialist"))

    def _card(self, row: Row) -> Panel:
        first, _, rest = sanitize_text(row.text).partition("\n")
        return Panel(
            Text(rest),
            title=Text(first, style=self._style("card")),
            title_align="left",
            border_style=self._style("card"),
        )

    def _summary(self, row: Row) -> Panel:
        return Panel(
            LiteralMarkdown(sanitize_text(row.text)),
            title=Text("summary of earlier conversation", style=self._style("summary")),
            title_align="left",
            border_style=self._style("summary"),
        )

    def _fork_marker(self, row: Row) -> Rule:
        text = Text(sanitize_text(row.text), style=self._style("system"))
        return Rule(text, style=self._style("dim"))

    def _note(self, row: Row) -> _Marked:
        text = Text(sanitize_text(row.text), style=self._style("system"))
        return _marked("· ", text, self._style("system"))

    def _tool_card(self, row: Row, position: int) -> RenderableType:
        return tool_card(row, expanded=position in self._expanded, style=self._style)


def _marked(marker: str, body: RenderableType, marker_style: Style) -> _Marked:
    return _Marked(marker, marker_style, body)
