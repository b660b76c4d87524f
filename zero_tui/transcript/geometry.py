"""The transcript's geometry: which row sits on which virtual line. No Textual or Rich import.

Rows come in chunks of order positions: a fixed prelude chunk first, then one chunk per
`CHUNK_EVENTS` events of the log. A chunk knows the height of each of its rows (an estimate
until the row is rendered) and the line each row starts on within it; a chunk whose rows
were never built (or were forgotten) counts with an estimate per event. `TranscriptGeometry`
adds the chunks' heights up to place them, and answers which chunk and row are at a line,
which rows overlap a span of lines, and where a row starts. The view renders rows and keeps
what it rendered in each chunk's `lines`; this module only counts lines.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Generic, TypeVar

from zero_tui.transcript.cards import folded_card
from zero_tui.transcript.log_index import CHUNK_EVENTS
from zero_tui.transcript.row_model import Row, RowKind

ESTIMATED_LINES_PER_EVENT = 2
GUTTER = 2
PRELUDE_POSITION = -1

Lines = TypeVar("Lines")
"""What a rendered row is (the view's strips)."""

_TOOL_KINDS = (RowKind.TOOL_CALL, RowKind.TOOL_RESULT)


def is_tool_card(row: Row) -> bool:
    return row.kind in _TOOL_KINDS


def is_foldable(row: Row) -> bool:
    """A row Enter or ctrl+o unfolds and folds: a tool card, or a card with a folded line."""
    return is_tool_card(row) or folded_card(row) is not None


def estimate_height(row: Row, width: int) -> int:
    """Lines a row will take at `width`, before it is rendered (refined when it is)."""
    if is_tool_card(row):
        return 3
    if folded_card(row) is not None:
        return 2
    text = row.text
    if len(text) > 20_000:
        return len(text) // max(1, width) + 2
    usable = max(1, width - GUTTER)
    lines = sum(1 + len(line) // usable for line in text.split("\n"))
    if row.kind in (RowKind.CARD, RowKind.SUMMARY):
        lines += 2
    if row.kind is RowKind.ASSISTANT:
        lines += text.count("```")
    return lines + 1


@dataclass(eq=False)
class Chunk(Generic[Lines]):
    """Rows of the events at order positions [start, end); prelude rows when `fixed`.

    `lines[i]` holds row i rendered at `width`, or None until it is first on screen; until
    then `heights[i]` is an estimate. `row_tops[i]` is the line row i starts on.
    """

    start: int
    end: int
    fixed: bool = False
    rows: list[Row] | None = None
    positions: list[int] = field(default_factory=list)
    lines: list[Lines | None] = field(default_factory=list)
    heights: list[int] = field(default_factory=list)
    row_tops: list[int] = field(default_factory=lambda: [0])
    width: int = 0
    height: int = 0

    def forget(self) -> None:
        """Drop rows and rendered lines (the height stays, as an estimate)."""
        self.rows, self.positions, self.lines, self.heights = None, [], [], []
        self.row_tops = [0]

    def row_index(self, position: int) -> int | None:
        for row_index, row_position in enumerate(self.positions):
            if row_position == position:
                return row_index
        return None

    def set_rows(self, positions: list[int], rows: list[Row], width: int) -> None:
        """Hold these rows, none rendered yet, at their estimated heights for `width`."""
        self.positions, self.rows = positions, rows
        self.width = width
        self.lines = [None] * len(rows)
        self.heights = [estimate_height(row, width) for row in rows]
        self.sum_rows()

    def sum_rows(self) -> None:
        self.row_tops = [0, *accumulate(self.heights)]
        self.height = self.row_tops[-1]

    def row_at_offset(self, offset: int) -> int:
        """The index of the row holding line `offset` of the chunk (-1 above the first)."""
        return bisect_right(self.row_tops, offset) - 1

    def rendered(self, row_index: int, lines: Lines, height: int) -> bool:
        """Keep a row's rendering; True when its height differs from what was counted
        (then `sum_rows` must follow)."""
        self.lines[row_index] = lines
        if height == self.heights[row_index]:
            return False
        self.heights[row_index] = height
        return True


class TranscriptGeometry(Generic[Lines]):
    """The chunks of one transcript, placed one below the other."""

    def __init__(self) -> None:
        self.chunks: list[Chunk[Lines]] = []
        self.tops: list[int] = [0]
        self.lines_per_event = float(ESTIMATED_LINES_PER_EVENT)

    @property
    def height(self) -> int:
        """The virtual height of the whole transcript, as last placed."""
        return self.tops[-1]

    def reset(self, prelude: Sequence[Row], width: int) -> None:
        """Only the prelude rows (the log's chunks are added by `add_chunks`)."""
        prelude_chunk: Chunk[Lines] = Chunk(PRELUDE_POSITION, PRELUDE_POSITION, fixed=True)
        self.chunks = [prelude_chunk]
        prelude_chunk.set_rows([PRELUDE_POSITION] * len(prelude), list(prelude), width)

    def add_chunks(self, start: int, total: int) -> None:
        """Chunks, not yet built, for the order positions [start, total)."""
        for chunk_start in range(start, total, CHUNK_EVENTS):
            chunk: Chunk[Lines] = Chunk(chunk_start, min(total, chunk_start + CHUNK_EVENTS))
            chunk.height = max(1, round((chunk.end - chunk.start) * self.lines_per_event))
            self.chunks.append(chunk)

    def drop_chunks_from(self, chunk_index: int) -> int:
        """Drop the log's chunks from `chunk_index` on (never the prelude); returns the
        order position the remaining chunks end at."""
        del self.chunks[max(1, chunk_index) :]
        return self.chunks[-1].end if len(self.chunks) > 1 else 0

    def learn_density(self, chunk: Chunk[Lines]) -> None:
        """Refine the lines-per-event estimate of unbuilt chunks from a built one."""
        events = chunk.end - chunk.start
        if events:
            self.lines_per_event = 0.8 * self.lines_per_event + 0.2 * (chunk.height / events)

    def chunk_of(self, position: int) -> int:
        """The chunk holding the row of order position `position`."""
        if position < 0:
            return 0
        return min(len(self.chunks) - 1, 1 + position // CHUNK_EVENTS)

    def place(self) -> int:
        """Place the chunks by their heights; returns the total height."""
        self.tops = [0, *accumulate(chunk.height for chunk in self.chunks)]
        return self.tops[-1]

    def chunk_at(self, y: int) -> int:
        """The chunk holding virtual line `y` (the first or last one beyond either end)."""
        return max(0, min(len(self.chunks) - 1, bisect_right(self.tops, y) - 1))

    def line_of(self, chunk_index: int, row_index: int) -> int:
        """The virtual line a row starts on."""
        return self.tops[chunk_index] + self.chunks[chunk_index].row_tops[row_index]

    def anchor(self, target: int) -> tuple[int, int, int]:
        """(chunk, row, offset): the first row starting at or below line `target`, and how
        far below it starts; (-1, -1, 0) when none does."""
        chunk_index = self.chunk_at(target)
        while chunk_index < len(self.chunks):
            chunk = self.chunks[chunk_index]
            chunk_top = self.tops[chunk_index]
            for row_index in range(len(chunk.heights)):
                row_top = chunk_top + chunk.row_tops[row_index]
                if row_top >= target:
                    return chunk_index, row_index, row_top - target
            chunk_index += 1
        return -1, -1, 0

    def rows_between(self, top: int, bottom: int) -> list[tuple[int, Row]]:
        """The built rows at least partly on lines [top, bottom), top to bottom, with their
        order positions."""
        shown: list[tuple[int, Row]] = []
        chunk_index = self.chunk_at(top)
        while chunk_index < len(self.chunks) and self.tops[chunk_index] < bottom:
            chunk = self.chunks[chunk_index]
            chunk_top = self.tops[chunk_index]
            for row_index, row in enumerate(chunk.rows or []):
                row_start = chunk_top + chunk.row_tops[row_index]
                row_end = chunk_top + chunk.row_tops[row_index + 1]
                if row_end > top and row_start < bottom:
                    shown.append((chunk.positions[row_index], row))
            chunk_index += 1
        return shown

    def row_at_line(self, y: int) -> tuple[int, Row] | None:
        """The built row on virtual line `y` (the nearest of its chunk), with its position."""
        chunk_index = self.chunk_at(y)
        chunk = self.chunks[chunk_index]
        if not chunk.rows:
            return None
        row_index = chunk.row_at_offset(y - self.tops[chunk_index])
        row_index = max(0, min(row_index, len(chunk.rows) - 1))
        return chunk.positions[row_index], chunk.rows[row_index]
