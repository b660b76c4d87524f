"""How one transcript row is drawn: the Rich renderable of each row kind, rendered to strips.

The transcript view asks for a row's strips when the row first comes on screen; the live
turn draws its answer the same way (`LiteralMarkdown`, `USER_MARKER`). Session text is
data: every string goes through `sanitize_text`/`sanitize_line` before Rich sees it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import assert_never

from rich.cells import cell_len
from rich.console import Console, RenderableType
from rich.markdown import Markdown
from rich.panel import Panel
from rich.rule import Rule
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from zero_tui.text.sanitize import sanitize_line, sanitize_text
from zero_tui.transcript.cards import folded_card
from zero_tui.transcript.markdown_parser import markdown_parser
from zero_tui.transcript.rows import Row, RowKind
from zero_tui.ui.widgets.tool_card import StyleOf, tool_card

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
class Marked:
    """A row body drawn after a one-cell marker (the marker column stays clear below)."""

    marker: str
    style: Style
    body: RenderableType


def row_strips(
    console: Console, base: Style, row: Row, *, expanded: bool, style: StyleOf, width: int
) -> list[Strip]:
    """The row's lines at `width`, then one blank line."""
    drawn = row_renderable(row, expanded=expanded, style=style)
    if isinstance(drawn, Marked):
        marker_width = cell_len(drawn.marker)
        options = console.options.update_width(max(1, width - marker_width))
        body = console.render_lines(
            drawn.body, options.update(highlight=False), style=base, pad=True
        )
        first = Segment(drawn.marker, base + drawn.style)
        rest = Segment(" " * marker_width, base)
        strips = [
            Strip([first if number == 0 else rest, *line], width)
            for number, line in enumerate(body)
        ]
    else:
        options = console.options.update_width(width).update(highlight=False)
        lines = console.render_lines(drawn, options, style=base, pad=True)
        strips = [Strip(line, width) for line in lines]
    strips.append(Strip.blank(width, base))
    return strips


def row_renderable(row: Row, *, expanded: bool, style: StyleOf) -> RenderableType | Marked:
    match row.kind:
        case RowKind.USER:
            return _prompt(row, style)
        case RowKind.ASSISTANT:
            return _answer(row, style)
        case RowKind.ERROR:
            error = Text("error: " + sanitize_text(row.text), style=style("error"))
            return Marked("✖ ", style("error"), error)
        case RowKind.TOOL_CALL | RowKind.TOOL_RESULT:
            return tool_card(row, expanded=expanded, style=style)
        case RowKind.PERMISSION:
            line = Text(sanitize_text(row.text), style=style("permission"))
            if row.detail:
                line.append("  " + sanitize_line(row.detail), style=style("dim"))
            return Marked("⚑ ", style("permission"), line)
        case RowKind.ASK_USER:
            return _with_detail("? ", row, style("ask"), None)
        case RowKind.SPECIALIST:
            return _with_detail("◆ ", row, style("specialist"), style("dim"))
        case RowKind.CARD:
            folded = folded_card(row)
            if folded is not None and not expanded:
                line = Text(sanitize_line(folded), style=style("card"))
                return Marked("▸ ", style("card"), line)
            first, _, rest = sanitize_text(row.text).partition("\n")
            return Panel(
                Text(rest),
                title=Text(first, style=style("card")),
                title_align="left",
                border_style=style("card"),
            )
        case RowKind.SUMMARY:
            return Panel(
                LiteralMarkdown(sanitize_text(row.text)),
                title=Text("summary of earlier conversation", style=style("summary")),
                title_align="left",
                border_style=style("summary"),
            )
        case RowKind.FORK:
            return Rule(Text(sanitize_text(row.text), style=style("system")), style=style("dim"))
        case RowKind.SYSTEM | RowKind.PEER | RowKind.WELCOME:
            note = Text(sanitize_text(row.text), style=style("system"))
            return Marked("· ", style("system"), note)
        case _:
            assert_never(row.kind)


def _prompt(row: Row, style: StyleOf) -> Marked:
    body = Text(sanitize_text(row.text), style=style("user"))
    if not row.attachments.empty:
        body.append("\n" + row.attachments.label(), style=style("dim"))
    return Marked(USER_MARKER, style("user"), body)


def _answer(row: Row, style: StyleOf) -> Marked:
    text = sanitize_text(row.text)
    # parsing Markdown costs time in proportion to its size: a huge answer stays plain
    answer: RenderableType = LiteralMarkdown(text) if len(text) <= MARKDOWN_LIMIT else Text(text)
    return Marked("● ", style("assistant"), answer)


def _with_detail(marker: str, row: Row, text_style: Style, detail_style: Style | None) -> Marked:
    """The row's text, and its detail (if any) on the lines below."""
    body = Text(sanitize_text(row.text), style=text_style)
    if row.detail:
        body.append("\n" + sanitize_text(row.detail), style=detail_style)
    return Marked(marker, text_style, body)


def highlight_matches(strip: Strip, query: str, style: Style) -> Strip:
    """Mark every occurrence of `query` (case-insensitive) on one line."""
    text = strip.text.casefold()
    needle = query.casefold()
    if len(text) != len(strip.text) or needle not in text:
        return strip  # (case folding that changes lengths would misplace the marks)
    cuts: list[int] = []
    start = text.find(needle)
    while start >= 0:
        cuts += [start, start + len(needle)]
        start = text.find(needle, start + len(needle))
    cells = [strip.index_to_cell_position(index) for index in cuts]
    pieces = strip.divide([*cells, strip.cell_length])
    return Strip.join(
        Strip(list(Segment.apply_style(piece, post_style=style)), piece.cell_length)
        if number % 2
        else piece
        for number, piece in enumerate(pieces)
    )
