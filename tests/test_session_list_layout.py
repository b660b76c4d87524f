"""The picker list's column arithmetic, apart from its drawing (zero_tui/picker/row_layout)."""

from __future__ import annotations

from zero_tui.picker.row_layout import (
    MIN_TITLE,
    MODEL_COLUMN_MAX,
    MODEL_COLUMN_MIN,
    TITLE_WANTED,
    USAGE_COLUMN,
    WORKSPACE_COLUMN_MAX,
    WORKSPACE_COLUMN_MIN,
    NaturalWidths,
    RowLayout,
    natural_widths,
    row_layout,
    row_text,
    title_lineage_note,
    usage_text,
)
from zero_tui.picker.session_rows import PickerRow
from zero_tui.text.labels import TIME_COLUMN_WIDTH


def row(
    *, model: str = "", workspace: str = "/w", events: int = 2, fork: bool = False
) -> PickerRow:
    return PickerRow("s", "title", "Jul 04 10:00", "title", model, "", events, fork, workspace)


def test_natural_widths_come_from_the_rows() -> None:
    rows = [
        row(model="gpt-5", events=7),
        row(model="a-very-long-model-name-indeed", events=1234, workspace="/home/dev/webapp"),
    ]
    assert natural_widths(rows, show_workspace=False, home="/home/dev") == NaturalWidths(
        model=MODEL_COLUMN_MAX, workspace=0, count=len("1234 ev"), usage=0, title=len("title")
    )
    shown = natural_widths(rows, show_workspace=True, home="/home/dev")
    assert shown.workspace == len("~/webapp")
    deep = [row(workspace="/srv/" + "x" * 60)]
    assert natural_widths(deep, show_workspace=True, home="/h").workspace == WORKSPACE_COLUMN_MAX
    wide = natural_widths(rows, show_workspace=False, home="/h", show_usage=True)
    assert wide.usage == USAGE_COLUMN
    fork = natural_widths([row(fork=True)], show_workspace=False, home="/h")
    assert fork.title == len("title  ⑂ fork")  # a fork's lineage is in the title's cells
    assert natural_widths([], show_workspace=True, home="/h") == NaturalWidths(0, 0, 4, 0, 0)
    long = [PickerRow("s", "t", "", "t" * 90, "", "", 1, False, "/w")]
    assert natural_widths(long, show_workspace=False, home="/h").title == TITLE_WANTED


def test_a_wide_list_shows_every_column_in_full() -> None:
    natural = NaturalWidths(model=10, workspace=20, count=6, usage=USAGE_COLUMN)
    layout = row_layout(140, natural, timed=True)
    assert layout == RowLayout(
        time=TIME_COLUMN_WIDTH,
        title=140 - 1 - (1 + TIME_COLUMN_WIDTH + 2) - (2 + 20 + 2 + 10 + 2 + 6 + 2 + 8),
        workspace=20,
        model=10,
        count=6,
        usage=USAGE_COLUMN,
    )
    assert layout.left + layout.title + layout.right == 139  # one cell left at the end


def test_a_narrow_list_gives_up_the_model_then_the_workspace() -> None:
    natural = NaturalWidths(model=15, workspace=22, count=6)
    fixed = 1 + TIME_COLUMN_WIDTH + 2 + 2 + 6 + 1
    both = row_layout(
        fixed + MIN_TITLE + WORKSPACE_COLUMN_MIN + MODEL_COLUMN_MIN + 4, natural, timed=True
    )
    assert (both.workspace, both.model, both.title) == (
        WORKSPACE_COLUMN_MIN,
        MODEL_COLUMN_MIN,
        MIN_TITLE,
    )
    one = row_layout(fixed + MIN_TITLE + WORKSPACE_COLUMN_MIN + 2, natural, timed=True)
    assert (one.workspace, one.model, one.title) == (WORKSPACE_COLUMN_MIN, 0, MIN_TITLE)
    none = row_layout(fixed + MIN_TITLE + 3, natural, timed=True)
    assert (none.workspace, none.model, none.title) == (0, 0, MIN_TITLE + 3)
    tiny = row_layout(10, natural, timed=True)
    assert (tiny.workspace, tiny.model, tiny.title) == (0, 0, 0)


def test_a_row_without_a_time_gives_the_title_its_room() -> None:
    natural = NaturalWidths(model=8, count=5)
    timed = row_layout(100, natural, timed=True)
    untimed = row_layout(100, natural, timed=False)
    assert untimed.time == 0
    assert untimed.left == 1
    assert untimed.title == timed.title + TIME_COLUMN_WIDTH + 2
    assert (untimed.model, untimed.workspace) == (timed.model, timed.workspace)


def test_the_columns_never_overflow_a_list_with_room_for_them() -> None:
    natural = NaturalWidths(model=18, workspace=26, count=8, usage=USAGE_COLUMN)
    for width in range(0, 200):
        layout = row_layout(width, natural, timed=True)
        assert 0 <= layout.workspace <= natural.workspace
        assert 0 <= layout.model <= natural.model
        if layout.title:
            assert layout.left + layout.title + layout.right == width - 1
        if layout.workspace or layout.model:
            assert layout.title >= MIN_TITLE


def test_the_title_gets_its_room_before_the_workspace_and_the_model_grow() -> None:
    # every workspace at 160 columns: the list is about 101 cells beside the preview
    natural = NaturalWidths(model=MODEL_COLUMN_MAX, workspace=WORKSPACE_COLUMN_MAX, count=6)
    layout = row_layout(101, natural, timed=True)
    assert layout.title >= 40  # it was 28: titles cut at about 26 characters
    assert (layout.workspace, layout.model) >= (WORKSPACE_COLUMN_MIN, MODEL_COLUMN_MIN)
    # short titles leave the room to the other columns
    short = row_layout(101, NaturalWidths(model=18, workspace=26, count=6, title=20), timed=True)
    assert (short.workspace, short.model) == (26, 18)


def test_the_tokens_column_gives_way_to_the_title_the_workspace_and_the_model() -> None:
    natural = NaturalWidths(model=MODEL_COLUMN_MIN, count=6, usage=USAGE_COLUMN)
    fixed = 1 + TIME_COLUMN_WIDTH + 2 + 2 + 6 + 1
    room = fixed + MIN_TITLE + MODEL_COLUMN_MIN + 2 + USAGE_COLUMN + 2
    assert row_layout(room, natural, timed=True).usage == USAGE_COLUMN
    cramped = row_layout(room - 1, natural, timed=True)
    assert (cramped.model, cramped.usage) == (MODEL_COLUMN_MIN, 0)
    assert cramped.title >= MIN_TITLE
    # beside the preview at 120 columns (a list of about 75 cells): model and tokens both
    beside = row_layout(75, NaturalWidths(model=18, count=6, usage=USAGE_COLUMN), timed=True)
    assert beside.usage == USAGE_COLUMN
    assert beside.title >= 30


def test_a_fork_s_lineage_shares_the_title_s_cells() -> None:
    fork = PickerRow(
        "f", "l", "", "Plan the parser (fork)", "", "", 3, True, "/w",
        parent_id="p", parent_name="“Plan the parser”", forked_at=24,
    )  # fmt: skip
    title, lineage, _ = title_lineage_note(fork, 100, "")
    assert (title, lineage) == (
        "Plan the parser (fork)",
        "  ⑂ fork of “Plan the parser” at event #24",
    )
    title, lineage, _ = title_lineage_note(fork, 40, "")
    assert title == "Plan the parser (fork)"[:19] + "…"  # half the cells, then the lineage
    assert lineage.startswith("  ⑂ fork of")
    assert len(title) + len(lineage) == 40


def test_a_note_of_why_a_row_matched_keeps_its_cells_before_the_title() -> None:
    row = PickerRow("s", "l", "", "Explain the payment flow end to end", "", "", 3, False, "/w")
    note = "≈ sonnet (model)"
    assert title_lineage_note(row, 60, note) == (
        "Explain the payment flow end to end",
        "",
        "  ≈ sonnet (model)",
    )
    title, _, shown = title_lineage_note(row, 33, note)
    assert (title, shown) == ("Explain the pa…", "  ≈ sonnet (model)")
    title, _, shown = title_lineage_note(row, 21, note)
    assert (title, shown) == ("Explai…", "  ≈ sonnet (m…")  # a third of the cells, then the note
    fork = PickerRow(
        "f", "l", "", "Plan the parser (fork)", "", "", 3, True, "/w",
        parent_id="p", parent_name="“Plan the parser”", forked_at=24,
    )  # fmt: skip
    # the lineage gives up its cells first
    assert title_lineage_note(fork, 50, note) == (
        "Plan the parser…",
        "  ⑂ fork of “Pl…",
        "  ≈ sonnet (model)",
    )


def test_a_row_s_text_fills_its_layout_with_the_lineage_and_the_tokens() -> None:
    fork = PickerRow(
        "f", "l", "Jul 04 10:00", "Try another way", "gpt-5", "", 31, True, "/w",
        parent_id="p", parent_name="“Plan the parser”", forked_at=24,
    )  # fmt: skip
    natural = natural_widths([fork], show_workspace=False, home="/h", show_usage=True)
    layout = row_layout(100, natural, timed=True)
    text = row_text(fork, layout, home="/h", usage="12k tok")
    assert text.title == "Try another way"
    assert text.lineage == "  ⑂ fork of “Plan the parser” at event #24"
    assert len(text.title) + len(text.lineage) + text.title_pad == layout.title
    assert (text.model, text.count, text.usage) == ("  gpt-5", "  31 ev", "   12k tok")
    plain = row_text(row(), row_layout(100, natural, timed=True), home="/h")
    assert (plain.lineage, plain.usage) == ("", "  " + " " * USAGE_COLUMN)


def test_the_tokens_column_says_the_total_or_nothing() -> None:
    from zero_tui.store.token_counts import Tokens

    assert usage_text(None) == ""
    assert usage_text(Tokens()) == ""  # no request: nothing known
    assert usage_text(Tokens(requests=3, total=12_345)) == "12k tok"
