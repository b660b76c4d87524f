"""The transcript's geometry (chunk heights, row placement, anchoring), without Textual."""

from __future__ import annotations

import subprocess
import sys

from zero_tui.transcript.geometry import (
    GUTTER,
    PRELUDE_POSITION,
    TranscriptGeometry,
    estimate_height,
)
from zero_tui.transcript.log_index import CHUNK_EVENTS
from zero_tui.transcript.rows import Row, RowKind, ToolInfo

WIDTH = 40


def text_row(text: str, kind: RowKind = RowKind.USER) -> Row:
    return Row(kind=kind, text=text)


def geometry_of(prelude: list[Row], events: int) -> TranscriptGeometry[str]:
    geometry: TranscriptGeometry[str] = TranscriptGeometry()
    geometry.reset(prelude, WIDTH)
    geometry.add_chunks(0, events)
    geometry.place()
    return geometry


def test_estimates_count_wrapped_lines_and_the_extras_of_some_kinds() -> None:
    usable = WIDTH - GUTTER
    assert estimate_height(text_row("one line"), WIDTH) == 2  # its line and the blank after
    assert estimate_height(text_row("a\nb\nc"), WIDTH) == 4
    assert estimate_height(text_row("x" * usable), WIDTH) == 3  # exactly full wraps once
    card = Row(kind=RowKind.CARD, text="Title\nline")
    assert estimate_height(card, WIDTH) == 2 + 2 + 1  # the panel's borders
    answer = text_row("```\ncode\n```", RowKind.ASSISTANT)
    assert estimate_height(answer, WIDTH) == 3 + 2 + 1  # a fence line each
    tool = Row(kind=RowKind.TOOL_RESULT, text="x\n" * 50, tool_info=ToolInfo("grep", "c1"))
    assert estimate_height(tool, WIDTH) == 3  # collapsed cards are short
    huge = text_row("y" * 40_000)
    assert estimate_height(huge, WIDTH) == 40_000 // WIDTH + 2


def test_unbuilt_chunks_count_an_estimate_per_event() -> None:
    prelude = [text_row("resume card")]
    geometry = geometry_of(prelude, 2 * CHUNK_EVENTS + 10)
    assert [(c.start, c.end) for c in geometry.chunks] == [
        (PRELUDE_POSITION, PRELUDE_POSITION),
        (0, CHUNK_EVENTS),
        (CHUNK_EVENTS, 2 * CHUNK_EVENTS),
        (2 * CHUNK_EVENTS, 2 * CHUNK_EVENTS + 10),
    ]
    assert geometry.chunks[0].positions == [PRELUDE_POSITION]
    heights = [chunk.height for chunk in geometry.chunks]
    assert heights == [2, 2 * CHUNK_EVENTS, 2 * CHUNK_EVENTS, 20]
    assert geometry.height == sum(heights)
    assert geometry.tops == [0, 2, 2 + 128, 2 + 256, 2 + 276]
    assert geometry.chunk_of(PRELUDE_POSITION) == 0
    assert geometry.chunk_of(0) == 1
    assert geometry.chunk_of(CHUNK_EVENTS) == 2
    assert geometry.chunk_of(10**9) == 3  # beyond the end: the last chunk
    assert geometry.chunk_at(0) == 0
    assert geometry.chunk_at(2) == 1
    assert geometry.chunk_at(10**9) == 3


def test_rows_are_placed_by_their_rendered_heights() -> None:
    geometry = geometry_of([text_row("card")], CHUNK_EVENTS)
    chunk = geometry.chunks[1]
    rows = [text_row("a"), text_row("b\nb"), text_row("c")]
    chunk.set_rows([3, 7, 9], rows, WIDTH)
    assert chunk.heights == [2, 3, 2]
    assert not chunk.rendered(0, "two lines", 2)  # as estimated
    assert chunk.rendered(1, "five lines", 5)
    chunk.sum_rows()
    assert chunk.row_tops == [0, 2, 7, 9]
    assert geometry.place() == 2 + 9
    assert chunk.lines == ["two lines", "five lines", None]
    assert chunk.row_index(7) == 1
    assert chunk.row_index(8) is None
    assert chunk.row_at_offset(6) == 1
    assert geometry.line_of(1, 2) == 2 + 7
    assert geometry.row_at_line(2 + 3) == (7, rows[1])
    assert geometry.row_at_line(10**9) == (9, rows[2])  # past the end: the last row
    assert geometry.rows_between(2 + 1, 2 + 8) == [(3, rows[0]), (7, rows[1]), (9, rows[2])]
    assert geometry.rows_between(2 + 2, 2 + 7) == [(7, rows[1])]
    # the anchor: the first row starting at or below the line, and how far below
    assert geometry.anchor(2 + 1) == (1, 1, 1)
    assert geometry.anchor(2 + 2) == (1, 1, 0)
    assert geometry.anchor(0) == (0, 0, 0)
    assert geometry.anchor(2 + 8) == (-1, -1, 0)


def test_a_forgotten_chunk_keeps_its_height_and_chunks_can_be_dropped() -> None:
    geometry = geometry_of([], 3 * CHUNK_EVENTS)
    chunk = geometry.chunks[2]
    chunk.set_rows([CHUNK_EVENTS], [text_row("only row")], WIDTH)
    height = chunk.height
    chunk.forget()
    assert (chunk.rows, chunk.positions, chunk.height) == (None, [], height)
    assert geometry.rows_between(0, geometry.place()) == []
    assert geometry.drop_chunks_from(2) == CHUNK_EVENTS  # the first log chunk is left
    assert len(geometry.chunks) == 2
    assert geometry.drop_chunks_from(0) == 0  # the prelude chunk stays
    assert len(geometry.chunks) == 1


def test_a_built_chunk_teaches_the_estimate_for_unbuilt_ones() -> None:
    geometry = geometry_of([], CHUNK_EVENTS)
    chunk = geometry.chunks[1]
    chunk.set_rows(list(range(CHUNK_EVENTS)), [text_row("r")] * CHUNK_EVENTS, WIDTH)
    chunk.height = 6 * CHUNK_EVENTS
    geometry.learn_density(chunk)
    assert geometry.lines_per_event == 0.8 * 2 + 0.2 * 6
    geometry.add_chunks(CHUNK_EVENTS, 2 * CHUNK_EVENTS)
    assert geometry.chunks[-1].height == round(CHUNK_EVENTS * geometry.lines_per_event)


def test_the_geometry_loads_neither_textual_nor_rich() -> None:
    code = (
        "import sys\n"
        "import zero_tui.transcript.geometry\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "[]"
