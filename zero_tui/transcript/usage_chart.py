"""The usage screen's bar chart of tokens per day, laid out as text: a column per day,
drawn with the eighth blocks, a y axis with round figures, and the days under the bars.

Wide enough, every bar has its count above it and its day of the month under it, with the
month's name where one begins; narrow, a date every week, counted back from the last day.
The UI paints each run of text by its `Role`. No Textual or Rich import.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from enum import StrEnum

from zero_tui.text.labels import MONTHS, compact_count

EIGHTHS = " ▁▂▃▄▅▆▇█"
_NICE_STEPS = (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)
DAY_NUMBER_SLOT = 3  # the columns a day needs for its day of the month under its bar
VALUE_SLOT = 5  # the columns a day needs for its count above its bar (`1.2k` and a space)
WEEK = 7


class Role(StrEnum):
    """What a run of the chart's text is, for its style."""

    BLANK = "blank"
    AXIS = "axis"
    GRID = "grid"
    BAR = "bar"
    BAR_HIGHLIGHT = "bar-highlight"
    VALUE = "value"
    LABEL = "label"
    HIGHLIGHT = "highlight"  # the highlighted day's count and date


ChartLine = tuple[tuple[str, Role], ...]
"""One line of the chart: runs of text, each with its role."""


def nice_ceiling(value: int) -> int:
    """The round figure the axis ends at: the least of 1, 1.5, 2, 3, 4, 5, 6, 8 times a
    power of ten that is at least `value` (0 for 0)."""
    if value <= 0:
        return 0
    power: int = 10 ** max(0, math.floor(math.log10(value)))
    for step in _NICE_STEPS:
        if step * power >= value and float(step * power).is_integer():
            return int(step * power)
    return 10 * power


@dataclass(frozen=True, slots=True)
class ChartGeometry:
    """Where the days are: `slot` columns a day from column `left`, the bar in the first
    `bar` of them, for the days from `first` on (a narrow chart shows the latest ones)."""

    left: int
    slot: int
    bar: int
    first: int
    count: int  # the days shown

    def day_at(self, x: int) -> int | None:
        """The day (an index into the chart's days) whose column `x` is, if any."""
        if self.slot <= 0 or x < self.left:
            return None
        shown = (x - self.left) // self.slot
        return self.first + shown if shown < self.count else None

    def bar_start(self, day: int) -> int:
        return self.left + (day - self.first) * self.slot

    @property
    def wide(self) -> bool:
        return self.slot >= DAY_NUMBER_SLOT

    @property
    def with_values(self) -> bool:
        return self.slot >= VALUE_SLOT


def chart_geometry(days: int, width: int, axis_width: int) -> ChartGeometry:
    """Share `width` columns (after the axis) among `days` days: as many whole columns
    each as fit, at least one, the bars in the middle; the earliest days are left out when
    even one each is too many."""
    room = max(0, width - axis_width)
    if days <= 0 or room <= 0:
        return ChartGeometry(axis_width, 0, 0, 0, 0)
    slot = room // days
    if slot < 1:
        return ChartGeometry(axis_width, 1, 1, days - room, room)
    gap = 0 if slot == 1 else 1 if slot < 6 else 2
    # the columns left over go on both sides, half the gap before the first bar too
    margin = (room - slot * days + gap) // 2
    return ChartGeometry(axis_width + margin, slot, slot - gap, 0, days)


class _Grid:
    """A block of cells, each a character and a role."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.cells = [[(" ", Role.BLANK)] * width for _ in range(height)]

    def put(self, row: int, column: int, text: str, role: Role) -> None:
        if not 0 <= row < len(self.cells):
            return
        for offset, char in enumerate(text):
            if 0 <= column + offset < self.width:
                self.cells[row][column + offset] = (char, role)

    def free(self, row: int, start: int, end: int) -> bool:
        return all(self.cells[row][x][0] == " " for x in range(max(0, start), min(end, self.width)))

    def lines(self) -> list[ChartLine]:
        lines: list[ChartLine] = []
        for row in self.cells:
            runs: list[tuple[str, Role]] = []
            for char, role in row:
                if runs and runs[-1][1] is role:
                    runs[-1] = (runs[-1][0] + char, role)
                else:
                    runs.append((char, role))
            lines.append(tuple(runs))
        return lines


def day_chart(
    days: Sequence[date],
    values: Sequence[int],
    width: int,
    height: int,
    highlight: int | None = None,
) -> tuple[ChartGeometry, list[ChartLine]]:
    """The chart of `values` (one a day, oldest first) in `width` x `height` cells, the day
    at index `highlight` marked; with its geometry, to find the day under the mouse."""
    top = nice_ceiling(max(values, default=0))
    ticks = [compact_count(top), compact_count(top // 2) if top % 2 == 0 else "", "0"]
    label_width = max(len(tick) for tick in ticks)
    geometry = chart_geometry(len(days), width, label_width + 1)
    label_rows = 2 if geometry.wide else 1
    headroom = 1  # the counts on the bars, or a blank line above the chart
    bar_rows = max(1, height - headroom - 1 - label_rows)
    if bar_rows >= 4 and bar_rows % 2:  # an even count has a middle row for the middle figure
        bar_rows -= 1
        headroom += 1
    axis_row = headroom + bar_rows
    grid = _Grid(width, axis_row + 1 + label_rows)

    # the y axis: the top figure, the middle one when the rows have a middle, and 0; narrow
    # (no counts on the bars), a dotted line across at each figure
    tick_rows = [(headroom, ticks[0])] if top else []  # nothing to scale: the axis alone
    if top and bar_rows >= 4 and ticks[1]:
        tick_rows.append((headroom + bar_rows // 2, ticks[1]))
    for row in range(headroom, axis_row):
        grid.put(row, label_width, "│", Role.AXIS)
    for row, tick in tick_rows:
        grid.put(row, 0, tick.rjust(label_width) + "┤", Role.AXIS)
        if not geometry.with_values and top:
            grid.put(row, label_width + 1, "┈" * (width - label_width - 1), Role.GRID)
    grid.put(axis_row, 0, "0".rjust(label_width) + "└", Role.AXIS)
    grid.put(axis_row, label_width + 1, "─" * (width - label_width - 1), Role.AXIS)

    for day in range(geometry.first, geometry.first + geometry.count):
        marked = day == highlight
        start = geometry.bar_start(day)
        eighths = round(values[day] / top * bar_rows * 8) if top else 0
        if values[day] > 0:
            eighths = max(1, eighths)
        for level in range(bar_rows):
            fill = min(8, eighths - level * 8)
            if fill > 0:
                block = EIGHTHS[fill] * geometry.bar
                grid.put(
                    axis_row - 1 - level, start, block, Role.BAR_HIGHLIGHT if marked else Role.BAR
                )
        if geometry.with_values and values[day] > 0:
            text = compact_count(values[day])
            row = axis_row - 1 - math.ceil(eighths / 8)
            column = start + (geometry.bar - len(text) + 1) // 2
            grid.put(row, column, text, Role.HIGHLIGHT if marked else Role.VALUE)
        if marked:
            grid.put(axis_row, start + (geometry.bar - 1) // 2, "▲", Role.HIGHLIGHT)

    if geometry.wide:
        _day_numbers(grid, geometry, days, axis_row + 1, highlight)
    else:
        _weekly_dates(grid, geometry, days, axis_row + 1, highlight)
    return geometry, grid.lines()[:height] if height > 0 else []


def _day_numbers(
    grid: _Grid, geometry: ChartGeometry, days: Sequence[date], row: int, highlight: int | None
) -> None:
    """Each day's number under its bar; the month's name under the first day shown and
    under each first of a month."""
    for day in range(geometry.first, geometry.first + geometry.count):
        start = geometry.bar_start(day)
        text = str(days[day].day)
        role = Role.HIGHLIGHT if day == highlight else Role.LABEL
        grid.put(row, start + (geometry.bar - len(text) + 1) // 2, text, role)
        if day == geometry.first or days[day].day == 1:
            month = MONTHS[days[day].month - 1]
            if grid.free(row + 1, start - 1, start + len(month) + 1):
                grid.put(row + 1, start, month, Role.LABEL)


def _weekly_dates(
    grid: _Grid, geometry: ChartGeometry, days: Sequence[date], row: int, highlight: int | None
) -> None:
    """`MM-DD` under the last day and every seventh before it, where they fit; the
    highlighted day's date in place of the one it would overlap."""
    last = geometry.first + geometry.count - 1
    chosen = list(range(last, geometry.first - 1, -WEEK))
    if highlight is not None and geometry.first <= highlight <= last:
        chosen = [highlight, *(day for day in chosen if day != highlight)]
    for day in chosen:
        text = f"{days[day].month:02d}-{days[day].day:02d}"
        centre = geometry.bar_start(day) + (geometry.bar - 1) // 2
        column = min(max(centre - len(text) // 2, geometry.left), grid.width - len(text))
        if grid.free(row, column - 1, column + len(text) + 1):
            grid.put(row, column, text, Role.HIGHLIGHT if day == highlight else Role.LABEL)
