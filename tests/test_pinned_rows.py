"""The picker's rows by their flags (picker/pinned_rows) and a pinned, tagged row's text
(picker/row_layout), without an app."""

from __future__ import annotations

from dataclasses import replace

from zero_tui.picker.pinned_rows import FlagWords, PinnedRows, split_flag_words
from zero_tui.picker.row_layout import NaturalWidths, row_layout, row_text
from zero_tui.picker.session_rows import PickerRow
from zero_tui.store.session_flags import FlagBook, SessionFlags


def row(session_id: str, title: str = "title") -> PickerRow:
    return PickerRow(session_id, title, "10:00", title, "", "", 2, False, "/w")


ROWS = tuple(row(name) for name in ("a", "b", "c", "d"))
BOOK = FlagBook(
    {
        "c": SessionFlags(pinned=True),
        "b": SessionFlags(archived=True, tags=("work",)),
        "d": SessionFlags(tags=("work", "old")),
    }
)


def ids(rows: object) -> list[str]:
    return [item.session_id for item in rows]  # type: ignore[attr-defined]


def test_the_flag_words_leave_the_query() -> None:
    assert split_flag_words("fix tag:work  -tag:old is:pinned") == (
        "fix",
        FlagWords(pinned=True, tags=(("work", True), ("old", False))),
    )
    assert split_flag_words("pinned: parser") == ("parser", FlagWords(pinned=True))
    assert split_flag_words("-is:archived") == ("", FlagWords(archived=False))
    assert split_flag_words("model:gpt-5 x") == ("model:gpt-5 x", FlagWords())
    assert split_flag_words("notag:work") == ("notag:work", FlagWords())


def test_pinned_first_and_the_archived_left_out_and_counted() -> None:
    listed, hidden = PinnedRows().rows(ROWS, BOOK, show_archived=False)
    assert ids(listed) == ["c", "a", "d"]
    assert hidden == 1
    listed, hidden = PinnedRows().rows(ROWS, BOOK, show_archived=True)
    assert ids(listed) == ["c", "a", "b", "d"]
    assert hidden == 0


def test_the_words_filter_and_is_archived_shows_the_archive() -> None:
    pinned = PinnedRows()
    assert ids(pinned.rows(ROWS, BOOK, show_archived=False, words=FlagWords(pinned=True))[0]) == [
        "c"
    ]
    work = FlagWords(tags=(("work", True),))
    assert ids(pinned.rows(ROWS, BOOK, show_archived=False, words=work)[0]) == ["d"]
    archived_work = replace(work, archived=True)
    assert ids(pinned.rows(ROWS, BOOK, show_archived=False, words=archived_work)[0]) == ["b"]
    not_old = FlagWords(tags=(("OLD", False),))
    assert ids(pinned.rows(ROWS, BOOK, show_archived=False, words=not_old)[0]) == ["c", "a"]


def test_the_same_rows_flags_and_words_answer_the_same_list() -> None:
    pinned = PinnedRows()
    first = pinned.rows(ROWS, BOOK, show_archived=False)[0]
    assert pinned.rows(ROWS, BOOK, show_archived=False)[0] is first
    assert pinned.rows(ROWS, BOOK, show_archived=True)[0] is not first
    assert PinnedRows().rows(ROWS, FlagBook({}), show_archived=False)[0] is ROWS


def test_a_pin_and_tags_never_push_the_title_off_at_80_columns() -> None:
    long = row("a", "Make the retry loop back off exponentially with jitter")
    layout = row_layout(78, NaturalWidths(count=4, title=48), timed=True)  # an 80-column list
    many = tuple(f"tag{number}" for number in range(12))
    text = row_text(long, layout, home="/", pinned=True, tags=many)
    assert text.pin == "★ "
    assert text.title.startswith("Make the retry loop")
    assert len(text.title) >= (layout.title - 2) * 3 // 4 - 1
    assert text.tags.startswith("  #tag0")
    width = len(text.pin + text.title + text.tags + text.lineage + text.note) + text.title_pad
    assert width == layout.title
    bare = row_text(long, layout, home="/")
    assert (bare.pin, bare.tags) == ("", "")


def test_short_titles_leave_the_tags_their_room() -> None:
    layout = row_layout(80, NaturalWidths(count=4, title=10), timed=True)
    text = row_text(row("a", "Short"), layout, home="/", tags=("work", "review"))
    assert text.title == "Short"
    assert text.tags == "  #review #work" or text.tags == "  #work #review"
