"""What the picker's list shows, without an app: its lines, and where the highlight goes."""

from __future__ import annotations

from typing import Any

import pytest

from zero_tui.picker import row_layout, shown_rows
from zero_tui.picker.row_layout import USAGE_WIDTH, NaturalWidths
from zero_tui.picker.session_rows import PickerRow
from zero_tui.picker.shown_rows import ShownRows, SnippetLine
from zero_tui.store.token_counts import Tokens
from zero_tui.text.cells import cell_width


def row(session_id: str) -> PickerRow:
    return PickerRow(session_id, session_id, "", session_id, "", "", 2, False, "/w")


def shown(*names: str) -> ShownRows:
    rows = ShownRows(home="/h", cells=cell_width)
    rows.set_rows([row(name) for name in names], None, None, show_workspace=False, snippets=None)
    return rows


def test_the_lines_follow_the_order_with_their_matches_and_snippets() -> None:
    rows = shown("a", "b", "c")
    assert [item.session_id for item in rows.visible()] == ["a", "b", "c"]
    assert rows.lines_per_row == 1
    assert rows.positions(0) == ()
    snippet = SnippetLine("user #3", "the text")
    rows.set_rows(
        rows.rows, [2, 0], lambda line: (line,), show_workspace=True, snippets=lambda _: snippet
    )
    assert [item.session_id for item in rows.visible()] == ["c", "a"]
    assert rows.row_at(1) == row("a")
    assert rows.row_at(2) is None
    assert rows.positions(1) == (1,)
    assert rows.positions(5) == ()
    assert rows.snippet_at(0) is snippet
    assert rows.snippet_at(2) is None
    assert rows.lines_per_row == 2  # each row and its snippet


def test_the_highlight_stays_on_its_session_only_once_the_user_moved_it() -> None:
    rows = shown("a", "b", "c")
    new = [row("x"), row("b"), row("c")]
    assert rows.cursor_on("b", [0, 1, 2], new, cursor=1) == 0  # not moved: the first row
    rows.user_moved = True
    assert rows.cursor_on("b", [2, 1, 0], new, cursor=1) == 1  # on b, wherever it went
    assert rows.cursor_on("gone", [0, 1, 2], new, cursor=2) == 0  # gone: the first row
    rows.removing("c")  # deleted here: the row that takes its line
    assert rows.cursor_on("c", [0, 1], new, cursor=2) == 1  # it was the last: the new last
    assert rows.cursor_on("c", [0, 1, 2], [row("x"), row("b"), row("y")], cursor=1) == 1


def test_running_marks_and_tokens_say_when_rows_are_drawn_otherwise() -> None:
    rows = shown("a", "b")
    assert rows.set_running(frozenset({"a"}))
    assert not rows.set_running(frozenset({"a"}))
    usage = {"a": Tokens(requests=1, total=12_000)}
    assert not rows.set_usage(usage)  # a narrow screen has no tokens column
    assert rows.usage_text(row("a")) == "12k tok"
    assert rows.usage_text(row("b")) == ""
    assert not rows.fit(USAGE_WIDTH - 1)
    assert rows.fit(USAGE_WIDTH)
    assert rows.show_usage
    assert rows.widths.usage > 0  # a row has tokens: the column is measured
    assert rows.set_usage({**usage})
    assert not rows.set_usage(rows.usage)  # the same mapping: nothing to draw again


def test_a_new_order_of_the_same_rows_keeps_their_widths_unmeasured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A query key orders the same rows anew: the columns are not measured over every row
    again (at 10,000 rows that was most of a keystroke's cost)."""
    rows = shown("a", "bb", "c")
    measured: list[int] = []
    measure = row_layout.natural_widths

    def counted(*args: Any, **kwargs: Any) -> NaturalWidths:
        measured.append(1)
        return measure(*args, **kwargs)

    monkeypatch.setattr(shown_rows, "natural_widths", counted)
    widths = rows.widths
    rows.set_rows(rows.rows, [1, 0], None, show_workspace=False, snippets=None)
    rows.set_rows(rows.rows, [2], None, show_workspace=False, snippets=None)
    assert measured == []
    assert rows.widths == widths
    rows.set_rows(rows.rows, [2], None, show_workspace=True, snippets=None)  # another column
    rows.set_rows([row("dddd")], None, None, show_workspace=True, snippets=None)  # other rows
    assert measured == [1, 1]
