"""The usage screen's bar chart, laid out as text (no UI): the scale, the columns, the
labels, the highlighted day, and any size without a crash."""

from __future__ import annotations

from datetime import date, timedelta

from hypothesis import given
from hypothesis import strategies as st

from zero_tui.transcript.usage_chart import (
    ChartLine,
    Role,
    chart_geometry,
    day_chart,
    nice_ceiling,
)

LAST = date(2026, 7, 4)


def month_of_days(count: int = 30) -> list[date]:
    return [LAST - timedelta(days=count - 1 - index) for index in range(count)]


def text(line: ChartLine) -> str:
    return "".join(part for part, _role in line)


def cells(line: ChartLine, role: Role) -> str:
    """The line with only the cells of one role kept (others as spaces)."""
    return "".join(part if kind is role else " " * len(part) for part, kind in line)


def test_the_axis_ends_at_a_round_figure() -> None:
    assert [nice_ceiling(value) for value in (0, 1, 7, 11, 34_184, 40_001, 99_999)] == [
        0,
        1,
        8,
        15,
        40_000,
        50_000,
        100_000,
    ]


def test_the_days_share_the_width() -> None:
    wide = chart_geometry(30, 198, 4)
    assert (wide.slot, wide.bar, wide.first, wide.count) == (6, 4, 0, 30)
    assert wide.with_values
    assert wide.wide
    narrow = chart_geometry(30, 78, 4)
    assert (narrow.slot, narrow.bar, narrow.count) == (2, 1, 30)
    assert not narrow.wide
    # the bars sit in the middle of what is left after the axis
    assert narrow.left - 4 == (74 - 60 + 1) // 2
    cramped = chart_geometry(30, 24, 4)  # 20 columns: the latest 20 days, one each
    assert (cramped.slot, cramped.first, cramped.count) == (1, 10, 20)


def test_a_click_finds_its_day() -> None:
    geometry = chart_geometry(30, 198, 4)
    assert geometry.day_at(geometry.left) == 0
    assert geometry.day_at(geometry.left + 6 * 29 + 3) == 29
    assert geometry.day_at(geometry.left + 6 * 30) is None
    assert geometry.day_at(2) is None  # the axis
    assert chart_geometry(30, 24, 4).day_at(4) == 10


def test_the_bars_are_drawn_in_eighths() -> None:
    # four rows of bars up to 8: 3 is a row and a half
    _geometry, lines = day_chart(month_of_days(2), [8, 3], 8, 8)
    assert [text(line) for line in lines[:6]] == [
        "        ",
        "8┤██┈┈┈┈",
        " │██    ",
        "4┤██┈▄▄┈",
        " │██ ██ ",
        "0└──────",
    ]
    assert cells(lines[3], Role.BAR) == "  ██ ▄▄ "


def test_a_small_day_still_shows_and_a_quiet_one_does_not() -> None:
    geometry, lines = day_chart(month_of_days(3), [1_000_000, 1, 0], 40, 8)
    columns = ["".join(cells(line, Role.BAR)) for line in lines]
    drawn = {index for line in columns for index, char in enumerate(line) if char != " "}
    assert geometry.bar_start(1) in drawn  # one eighth: ▁
    assert geometry.bar_start(2) not in drawn


def test_wide_every_bar_has_its_count_and_day() -> None:
    values = [0] * 29 + [21_067]
    values[23] = 34_184
    geometry, lines = day_chart(month_of_days(), values, 198, 18, highlight=29)
    joined = "\n".join(text(line) for line in lines)
    assert "34k" in joined
    highlighted = "".join(cells(line, Role.HIGHLIGHT) for line in lines)
    assert "21k" in highlighted  # the highlighted day's count, and its day: 4
    assert "4" in highlighted
    assert "▲" in highlighted
    day_row, month_row = text(lines[-2]), text(lines[-1])
    assert day_row.split() == [str(day.day) for day in month_of_days()]
    assert month_row.split() == ["Jun", "Jul"]
    assert month_row.index("Jul") == geometry.bar_start(26)  # July 1st


def test_narrow_a_date_every_week_back_from_the_last_day() -> None:
    values = list(range(30))
    _geometry, lines = day_chart(month_of_days(), values, 78, 9)
    assert text(lines[-1]).split() == ["06-06", "06-13", "06-20", "06-27", "07-04"]
    assert "┈" in "".join(cells(line, Role.GRID) for line in lines)  # no counts: grid lines
    _geometry, lines = day_chart(month_of_days(), values, 78, 9, highlight=23)
    labels = text(lines[-1]).split()
    assert labels == ["06-06", "06-13", "06-20", "06-28", "07-04"]  # in place of 06-27
    assert cells(lines[-1], Role.HIGHLIGHT).strip() == "06-28"


def test_an_empty_window_draws_an_empty_chart() -> None:
    _geometry, lines = day_chart(month_of_days(), [0] * 30, 78, 9)
    assert len(lines) == 9
    assert not "".join(cells(line, Role.BAR) for line in lines).strip()
    assert "┤" not in "".join(text(line) for line in lines)  # no scale to show
    assert text(lines[-2]).startswith("0└")


@given(
    values=st.lists(st.integers(0, 10**12), min_size=1, max_size=40),
    width=st.integers(0, 240),
    height=st.integers(0, 40),
    highlight=st.integers(-1, 45),
)
def test_any_size_gives_lines_of_that_size(
    values: list[int], width: int, height: int, highlight: int
) -> None:
    days = month_of_days(len(values))
    _geometry, lines = day_chart(days, values, width, height, highlight)
    assert len(lines) <= max(0, height)
    for line in lines:
        assert len(text(line)) == width
