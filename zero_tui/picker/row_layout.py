"""The columns of a picker row: how wide each is at a list width, and the text in each.

Without Textual, so that the list widget's layout (zero_tui.ui.widgets.session_list, which
measures with Rich) is tested without an app.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from zero_tui.hosts.registry import host_tag
from zero_tui.picker.session_rows import PickerRow
from zero_tui.store.session_flags import PIN_MARK, tag_words
from zero_tui.text.cells import ELLIPSIS, cell_width
from zero_tui.text.labels import TIME_COLUMN_WIDTH, compact_count, shorten_path

if TYPE_CHECKING:
    from zero_tui.store.token_counts import Tokens

Cells = Callable[[str], int]
"""How many terminal cells a text takes."""

MODEL_COLUMN_MAX = 18
MODEL_COLUMN_MIN = 8
WORKSPACE_COLUMN_MAX = 26
WORKSPACE_COLUMN_MIN = 12
MIN_TITLE = 24
TITLE_WANTED = 48
"""The title grows to this (or to its longest, when shorter) before the workspace and the
model grow past their least: the title is what a session is recognised by."""
USAGE_COLUMN = len("999k tok")
USAGE_WIDTH = 120
"""On a screen this wide or wider the list has a column of each session's tokens (beside
the preview: narrower, it would crowd the titles), when some row has tokens to show."""
NO_WORKSPACE = "(no cwd)"


def crop(text: str, width: int, cells: Cells = cell_width) -> str:
    """Cut `text` to at most `width` cells, ending with `…` when something was cut."""
    if width <= 0:
        return ""
    if cells(text) <= width:
        return text
    kept: list[str] = []
    used = 0
    for char in text:
        char_width = cells(char)
        if used + char_width > width - 1:
            break
        kept.append(char)
        used += char_width
    return "".join(kept) + ELLIPSIS


def pad(text: str, width: int, *, right: bool = False, cells: Cells = cell_width) -> str:
    """`text` cropped to `width` cells and padded to them (`right`: aligned to the right)."""
    text = crop(text, width, cells)
    padding = " " * max(0, width - cells(text))
    return padding + text if right else text + padding


@dataclass(frozen=True, slots=True)
class NaturalWidths:
    """The cells a list's columns take in full, from its rows; 0: no such column."""

    model: int = 0
    workspace: int = 0
    count: int = 0  # "1234 ev"
    usage: int = 0  # USAGE_COLUMN when the tokens are shown
    title: int = TITLE_WANTED  # the longest title (and a fork's lineage), up to TITLE_WANTED


def natural_widths(
    rows: Sequence[PickerRow],
    *,
    show_workspace: bool,
    home: str,
    show_usage: bool = False,
    cells: Cells = cell_width,
) -> NaturalWidths:
    workspace = 0
    if show_workspace:
        longest = max((len(shorten_path(row.workspace, home, 1 << 16)) for row in rows), default=0)
        workspace = min(WORKSPACE_COLUMN_MAX, longest)
    return NaturalWidths(
        model=min(MODEL_COLUMN_MAX, max((cells(row.model) for row in rows), default=0)),
        workspace=workspace,
        count=max((len(str(row.event_count)) for row in rows), default=1) + 3,
        usage=USAGE_COLUMN if show_usage else 0,
        title=_longest_title(rows, cells),
    )


def _longest_title(rows: Sequence[PickerRow], cells: Cells) -> int:
    longest = 0
    for row in rows:
        text = f"{row.title}  {row.lineage}" if row.is_fork else row.title
        if len(text) >= TITLE_WANTED or cells(text) >= TITLE_WANTED:
            return TITLE_WANTED
        longest = max(longest, cells(text))
    return longest


@dataclass(frozen=True, slots=True)
class RowLayout:
    """The cells of each column of a row: `" " [time "  "] title ["  " workspace]
    ["  " model] "  " count ["  " usage]`; 0: the column is left out. A fork's lineage
    is in the title's cells."""

    time: int
    title: int
    workspace: int
    model: int
    count: int
    usage: int = 0

    @property
    def left(self) -> int:
        """The cells before the title."""
        return 1 + (self.time + 2 if self.time else 0)

    @property
    def right(self) -> int:
        """The cells after the title."""
        optional = (self.workspace, self.model, self.usage)
        return 2 + self.count + sum(cells + 2 for cells in optional if cells)


def row_layout(width: int, natural: NaturalWidths, *, timed: bool) -> RowLayout:
    """A row's columns at a list `width` (`timed`: the row has a time).

    The title keeps MIN_TITLE cells. The other columns then get their minimum in order
    of importance (the workspace first when every workspace is listed, then the model,
    then the tokens), the title grows to its natural width (up to TITLE_WANTED), the
    workspace and the model grow to theirs, and the title takes the rest (less one cell
    at the end).
    """
    fixed = 1 + TIME_COLUMN_WIDTH + 2 + 2 + natural.count + 1
    spare = width - fixed - MIN_TITLE
    wanted = [
        (natural.workspace, WORKSPACE_COLUMN_MIN),
        (natural.model, MODEL_COLUMN_MIN),
        (natural.usage, natural.usage),
    ]
    given = [0, 0, 0]
    for column, (full, minimum) in enumerate(wanted):
        least = min(full, minimum)
        if full and spare >= least + 2:
            given[column] = least
            spare -= least + 2
    spare -= min(max(0, spare), max(0, natural.title - MIN_TITLE))
    for column, (full, _minimum) in enumerate(wanted):
        if given[column]:
            extra = min(full - given[column], spare)
            given[column] += extra
            spare -= extra
    layout = RowLayout(
        time=TIME_COLUMN_WIDTH if timed else 0,
        title=0,
        workspace=given[0],
        model=given[1],
        count=natural.count,
        usage=given[2],
    )
    return replace(layout, title=max(0, width - layout.left - layout.right - 1))


def usage_text(tokens: Tokens | None) -> str:
    """What the tokens column says of a session: `12k tok`; "" when none is known."""
    if tokens is None or not tokens.requests:
        return ""
    return f"{compact_count(tokens.total)} tok"


def title_lineage_note(
    row: PickerRow, width: int, note: str, cells: Cells = cell_width
) -> tuple[str, str, str]:
    """The title, a fork's lineage and a ranked row's `note` (why it matched), each after
    a gap, in `width` cells: the title gives up its end first, down to half the cells (a
    third beside a note, which says why the row is there), then the lineage and the note
    their ends."""
    lineage = "  " + row.lineage if row.is_fork else ""
    note = "  " + note if note else ""
    if not (lineage or note):
        return crop(row.title, width, cells), "", ""
    least = width // 3 if note else width // 2
    title = crop(row.title, max(least, width - cells(lineage) - cells(note)), cells)
    room = width - cells(title)
    if note:
        # The note says why the row is listed: it keeps its cells before the lineage does.
        note = crop(note, room, cells)
        lineage = crop(lineage, room - cells(note), cells)
    else:
        lineage = crop(lineage, room, cells)
    return title, lineage, note


@dataclass(frozen=True, slots=True)
class RowText:
    """The text of each column of one row at a layout; "" where the column is left out.
    The title, a fork's lineage and the note are cropped, not padded: `title_pad` spaces
    follow."""

    title: str
    lineage: str  # a fork's, with the gap before it
    title_pad: int
    workspace: str  # each with the gap before it
    model: str
    count: str
    usage: str
    note: str = ""  # why a ranked row matched (`≈ sonnet (model)`), after the lineage
    host: str = ""  # a mirrored session's `@NAME `, before the title
    pin: str = ""  # `★ ` before a pinned session's title
    tags: str = ""  # `  #work #old` after the title, cropped first


def row_text(
    row: PickerRow,
    layout: RowLayout,
    *,
    home: str,
    usage: str = "",
    note: str = "",
    cells: Cells = cell_width,
    pinned: bool = False,
    tags: Sequence[str] = (),
) -> RowText:
    """`row`'s text at `layout`; `usage`: its tokens column's text (`usage_text`); `note`:
    why it matched a query, shown after its title. A mirrored session's host comes before
    the title in at most a third of the title's cells: the title is what a row is known by.
    `pinned` and `tags`: zero-tui's marks, a pin before the title and the tags after it, in
    the cells the title can spare."""
    host = crop(host_tag(row.host), layout.title // 3 - 1, cells) + " " if row.host else ""
    pin = PIN_MARK + " " if pinned else ""
    room = max(0, layout.title - cells(host) - len(pin))
    tag_text = _fitted_tags(row, room, note, tags, cells)
    title, lineage, note = title_lineage_note(row, room - cells(tag_text), note, cells)
    workspace = model = tokens = ""
    if layout.workspace:
        shown = shorten_path(row.workspace, home, layout.workspace) or NO_WORKSPACE
        workspace = "  " + pad(shown, layout.workspace, cells=cells)
    if layout.model:
        model = "  " + pad(row.model, layout.model, cells=cells)
    count = "  " + pad(f"{row.event_count} ev", layout.count, right=True, cells=cells)
    if layout.usage:
        tokens = "  " + pad(usage, layout.usage, right=True, cells=cells)
    title_pad = layout.title - cells(host) - len(pin) - cells(title + tag_text + lineage + note)
    return RowText(
        title, lineage, title_pad, workspace, model, count, tokens, note, host, pin, tag_text
    )


MIN_TAGS = 5
"""Fewer cells than this for the tags: none are shown (the preview has them)."""


def _fitted_tags(row: PickerRow, room: int, note: str, tags: Sequence[str], cells: Cells) -> str:
    """The tags after a title, in what the title, a fork's lineage and a note leave of
    `room`, or a quarter of it at least (the title then gives up its end)."""
    text = tag_words(tags)
    if not text:
        return ""
    natural = cells(row.title) + (cells(row.lineage) + 2 if row.is_fork else 0)
    natural += cells(note) + 2 if note else 0
    given = min(cells(text), max(room - natural, room // 4))
    if given < MIN_TAGS:
        return ""
    if given == cells(text):
        return text
    shown = "  #" + tags[0]
    for tag in tags[1:]:  # whole tags, then `…` for the rest
        if cells(f"{shown} #{tag}") > given - 2:
            fits = cells(shown) <= given - 2
            return shown + " " + ELLIPSIS if fits else crop(shown, given, cells)
        shown += " #" + tag
    return crop(shown, given, cells)
