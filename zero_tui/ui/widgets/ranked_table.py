"""A small table of counts, largest first: `153,841  76%  name`, the figures aligned and
the names cut to the width the table gets (a path keeps its last folders)."""

from __future__ import annotations

from collections.abc import Sequence
from os.path import expanduser

from textual.content import Content
from textual.widget import Widget

from zero_tui.text.labels import shorten_path

MUTED = "$text-muted"


def share_label(part: int, whole: int) -> str:
    """`76%`, `<1%` for a sliver, `-` when there is no whole."""
    if whole <= 0:
        return "-"
    if 0 < part * 100 < whole:
        return "<1%"
    return f"{part * 100 / whole:.0f}%"


class RankedTable(Widget):
    """Rows of (name, count) with each count's share of a total."""

    DEFAULT_CSS = """
    RankedTable {
        height: auto;
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._rows: tuple[tuple[str, int], ...] = ()
        self._total = 0
        self._paths = False
        self._empty = ""

    def show(
        self, rows: Sequence[tuple[str, int]], total: int, *, paths: bool = False, empty: str
    ) -> None:
        """`rows`' names are already safe to show; `paths`: they are folders."""
        self._rows = tuple(rows)
        self._total = total
        self._paths = paths
        self._empty = empty
        self.refresh(layout=True)

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return max(1, len(self._rows))

    def render(self) -> Content:
        if not self._rows:
            return Content.styled(self._empty, MUTED)
        width = self.content_size.width
        figures = [f"{count:,}" for _name, count in self._rows]
        shares = [share_label(count, self._total) for _name, count in self._rows]
        figure_width = max(len(text) for text in figures)
        share_width = max(len(text) for text in shares)
        room = max(1, width - figure_width - share_width - 4)
        home = expanduser("~")
        lines = []
        for (name, _count), figure, share in zip(self._rows, figures, shares, strict=True):
            shown = Content(shorten_path(name, home, room) if self._paths else name)
            lines.append(
                Content.assemble(
                    figure.rjust(figure_width),
                    "  ",
                    (share.rjust(share_width), MUTED),
                    "  ",
                    shown.truncate(room, ellipsis=True),
                )
            )
        return Content("\n").join(lines)
