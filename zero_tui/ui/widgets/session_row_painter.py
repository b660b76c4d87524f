"""How one line of the picker's session list is drawn: a row, the snippet under it, or the
list's message when it has no row.

Functions of what the list shows (`ShownRows`) and a style lookup (the list's component
classes), so the list widget keeps only its scrolling, cursor and mouse. Session text
reaches the screen only as plain `Segment` text: it is never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from zero_tui.picker.row_layout import crop, pad, row_layout, row_text
from zero_tui.picker.session_rows import PickerRow
from zero_tui.picker.shown_rows import ShownRows, SnippetLine
from zero_tui.store.session_flags import NO_FLAGS
from zero_tui.text.labels import TIME_COLUMN_WIDTH

RUNNING_MARK = "●"
RUNNING_WORD = "running"  # `● running` in the time column of a session being written now
MARKED = "✓"  # in a marked row's first cell (ctrl+x)

PartStyle = Callable[[str], Style]
"""A component class of the list (`session-list--time`) -> its partial style."""


def message_strip(message: str, width: int, base: Style, part: PartStyle) -> Strip:
    """The first line of a list with no row: what it says instead."""
    style = base + part("session-list--message")
    return Strip([Segment(pad(message, width, cells=cell_len), style)], width)


def row_strip(
    shown: ShownRows,
    row: PickerRow,
    positions: Sequence[int],
    width: int,
    base: Style,
    part: PartStyle,
    *,
    is_cursor: bool,
    is_hover: bool,
    note: str = "",
) -> Strip:
    """`row`'s line, with the label's characters at `positions` marked as matched and
    `note` (why it matched) after its title."""
    overlay = Style()
    if is_cursor:
        overlay = part("session-list--cursor")
    elif is_hover:
        overlay = part("session-list--hover")
    plain = base + overlay
    time_style = base + part("session-list--time") + overlay
    detail_style = base + part("session-list--detail") + overlay
    match_part = part("session-list--match")

    running = row.host is None and row.session_id in shown.running
    title_offset = row.title_offset
    time_positions = {pos for pos in positions if pos < len(row.when)} if not running else set()
    title_positions = {pos - title_offset for pos in positions if pos >= title_offset}

    layout = row_layout(width, shown.widths, timed=bool(row.when) or running)
    usage = shown.usage_text(row) if layout.usage else ""
    flags = shown.flags.of(row.session_id) if row.host is None else NO_FLAGS
    text = row_text(
        row,
        layout,
        home=shown.home,
        usage=usage,
        note=note,
        cells=cell_len,
        pinned=flags.pinned,
        tags=flags.tags,
    )
    right: list[Segment] = []
    if text.workspace:
        workspace_style = base + part("session-list--workspace") + overlay
        right.append(Segment(text.workspace, workspace_style))
    if text.model:
        right.append(Segment(text.model, detail_style))
    right.append(Segment(text.count, detail_style))
    if text.usage:
        right.append(Segment(text.usage, detail_style))

    if row.host is None and row.session_id in shown.marked:
        left = [Segment(MARKED, base + part("session-list--marked") + overlay)]
    else:
        left = [Segment(" ", plain)]
    if running and layout.time:
        running_style = base + part("session-list--running") + overlay
        mark = f"{RUNNING_MARK} {RUNNING_WORD}".ljust(layout.time)
        left += [Segment(mark, running_style), Segment("  ", plain)]
    elif layout.time:
        when = row.when.ljust(layout.time)
        left.extend(highlighted(when, time_positions, time_style, match_part))
        left.append(Segment("  ", plain))
    if text.host:
        left.append(Segment(text.host, base + part("session-list--host") + overlay))
    if text.pin:
        left.append(Segment(text.pin, base + part("session-list--pinned") + overlay))
    left.extend(highlighted(text.title, title_positions, plain, match_part))
    if text.tags:
        left.append(Segment(text.tags, base + part("session-list--tags") + overlay))
    if text.lineage:
        fork_style = base + part("session-list--fork") + overlay
        left.append(Segment(text.lineage, fork_style))
    if text.note:
        left.append(Segment(text.note, detail_style))
    left.append(Segment(" " * text.title_pad, plain))

    strip = Strip([*left, *right], layout.left + layout.title + layout.right)
    return strip.adjust_cell_length(width, plain)


def snippet_strip(
    snippet: SnippetLine | None, width: int, base: Style, part: PartStyle, *, is_cursor: bool
) -> Strip:
    """The line under a content-search result: where it matched, and the text around it."""
    overlay = part("session-list--cursor") if is_cursor else Style()
    style = base + part("session-list--snippet") + overlay
    detail = base + part("session-list--detail") + overlay
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
        text = crop(text, room, cell_len)
        positions = {
            position
            for start, end in spans
            for position in range(max(0, start), min(end, len(text)))
        }
        segments = [Segment(indent, style), Segment(where, detail)]
        segments += highlighted(text, positions, style, part("session-list--match"))
    return Strip(segments).adjust_cell_length(width, style)


def highlighted(
    text: str, positions: Collection[int], style: Style, match_part: Style
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
            segments.append(Segment(text[run_start:index], match_style if run_matched else style))
            run_start, run_matched = index, matched
    return segments
