"""The transcript's rows in chunks: built from the log index when a chunk is needed, each
row rendered to strips when first asked for, and a bounded number of chunks kept.

`TranscriptGeometry` counts the lines; this holds what the view shows (the log index, the
rehydrated order, the rows' facts) and renders rows through the view's `render` callback.
Nothing here scrolls or draws: the view asks, and lays itself out again when a chunk's
height changed.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence

from textual.strip import Strip

from zero_tui.transcript.geometry import PRELUDE_POSITION, Chunk, TranscriptGeometry
from zero_tui.transcript.log_index import LogIndex, chunk_rows
from zero_tui.transcript.rows import LogFacts, Row, RowKind

LIVE_CHUNKS = 48
"""Chunks that keep their rows and strips; others keep only their height."""

RenderRow = Callable[[Row, int, int], list[Strip]]
"""A row's strips: (row, order position, width)."""


class RowChunks:
    """The rows of one log (after a prelude of rows of its own), by chunk."""

    def __init__(self, render: RenderRow, width: Callable[[], int]) -> None:
        self.geometry: TranscriptGeometry[list[Strip]] = TranscriptGeometry()
        self._render = render
        self._width = width
        self._index: LogIndex | None = None
        self.order: Sequence[int] = ()
        self._facts: LogFacts | None = None
        self._live: OrderedDict[int, None] = OrderedDict()

    def reset(
        self,
        index: LogIndex,
        order: Sequence[int],
        prelude: Sequence[Row],
        facts: LogFacts | None,
    ) -> None:
        """Rows of `order` (line indices of `index`), after the `prelude` rows."""
        self._index = index
        self.order = order
        self._facts = facts
        self.geometry.reset(prelude, self._width())
        self._live.clear()
        self.geometry.add_chunks(0, len(order))

    def replace_prelude(self, prelude: Sequence[Row]) -> bool:
        """New rows above the log's; False when nothing is shown yet."""
        if not self.geometry.chunks:
            return False
        positions = [PRELUDE_POSITION] * len(prelude)
        self.geometry.chunks[0].set_rows(positions, list(prelude), self._width())
        return True

    def extend(
        self,
        order: Sequence[int],
        first_changed: int,
        facts: LogFacts | None,
        stale: Iterable[int],
    ) -> None:
        """The log grew: positions from `first_changed` on are new or changed, and the rows
        of the `stale` positions are built again."""
        self.order = order
        if facts is not None:
            self._facts = facts
        chunks = self.geometry.chunks
        for position in stale:
            stale_index = self.chunk_of(position)
            if 0 < stale_index < len(chunks):
                chunks[stale_index].forget()
                self._live.pop(stale_index, None)
        chunk_index = self.chunk_of(first_changed)
        for dropped in range(chunk_index, len(chunks)):
            self._live.pop(dropped, None)
        self.geometry.add_chunks(self.geometry.drop_chunks_from(chunk_index), len(order))

    def chunk_of(self, position: int) -> int:
        """The chunk holding the row of order position `position`."""
        return self.geometry.chunk_of(position)

    def materialize(self, chunk_index: int) -> tuple[Chunk[list[Strip]], bool]:
        """Rows of one chunk at the current width (decoding its events if needed).

        Returns the chunk and whether its height changed.
        """
        chunk = self.geometry.chunks[chunk_index]
        old_height = chunk.height
        width = self._width()
        if chunk.rows is None and self._index is not None and not chunk.fixed:
            shown = chunk_rows(self._index, self.order, chunk.start, chunk.end, self._facts)
            chunk.set_rows([position for position, _ in shown], [row for _, row in shown], width)
            self.geometry.learn_density(chunk)
        elif chunk.rows is not None and chunk.width != width:
            chunk.set_rows(chunk.positions, chunk.rows, width)
        if not chunk.fixed:
            self._live[chunk_index] = None
            self._live.move_to_end(chunk_index)
            while len(self._live) > LIVE_CHUNKS:
                evicted, _ = self._live.popitem(last=False)
                self.geometry.chunks[evicted].forget()
        return chunk, chunk.height != old_height

    def render_rows(self, chunk: Chunk[list[Strip]], top: int, bottom: int) -> bool:
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
                lines = self._render(chunk.rows[row_index], chunk.positions[row_index], chunk.width)
                changed |= chunk.rendered(row_index, lines, len(lines))
        if changed:
            chunk.sum_rows()
        return changed

    def rerender(self, position: int) -> bool:
        """Render the row at `position` again (a card expanded); False if it is not built."""
        chunk = self.geometry.chunks[self.chunk_of(position)]
        row_index = chunk.row_index(position)
        if chunk.rows is None or row_index is None:
            return False
        lines = self._render(chunk.rows[row_index], position, chunk.width)
        chunk.rendered(row_index, lines, len(lines))
        chunk.sum_rows()
        return True

    def row_top(self, position: int) -> tuple[int | None, bool]:
        """The first virtual line of the row at `position` (rendering it if needed), and
        whether a height changed on the way (the caller places the chunks again)."""
        chunk_index = self.chunk_of(position)
        chunk, resized = self.materialize(chunk_index)
        row_index = chunk.row_index(position)
        if row_index is None:
            return None, resized
        top = chunk.row_tops[row_index]
        resized |= self.render_rows(chunk, top, top + 1)
        if resized:
            self.geometry.place()
        return self.geometry.line_of(chunk_index, row_index), resized

    def row_lines(self, position: int) -> list[Strip] | None:
        """The rendered lines of the row at `position` (after `row_top` rendered it)."""
        chunk = self.geometry.chunks[self.chunk_of(position)]
        row_index = chunk.row_index(position)
        if row_index is None or row_index >= len(chunk.lines):
            return None
        return chunk.lines[row_index]

    def row_height(self, position: int) -> int:
        chunk = self.geometry.chunks[self.chunk_of(position)]
        row_index = chunk.row_index(position)
        return 0 if row_index is None else chunk.heights[row_index]

    def row_at(self, position: int) -> Row | None:
        chunk, _ = self.materialize(self.chunk_of(position))
        row_index = chunk.row_index(position)
        if row_index is None or chunk.rows is None:
            return None
        return chunk.rows[row_index]

    def neighbour(self, position: int | None, step: int) -> int | None:
        """The position of the row before/after `position` (None at either end)."""
        if position is None:
            return None
        chunk_index = self.chunk_of(position)
        while 0 <= chunk_index < len(self.geometry.chunks):
            chunk, _ = self.materialize(chunk_index)
            candidates = chunk.positions if step > 0 else list(reversed(chunk.positions))
            for candidate in candidates:
                if (candidate > position) if step > 0 else (candidate < position):
                    return candidate
            chunk_index += step
        return None

    def turn_from(self, position: int, step: int) -> int | None:
        """The position of the next/previous user row after/before `position`."""
        candidate: int | None = position
        while True:
            candidate = self.neighbour(candidate, step)
            if candidate is None:
                return None
            row = self.row_at(candidate)
            if row is not None and row.kind is RowKind.USER:
                return candidate
