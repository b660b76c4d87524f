"""Pins, tags, the archive and marks in the picker (issue 29), driven as a user drives them
(Pilot): alt+p, alt+t, alt+a, alt+h, ctrl+x, Esc, and F8 on the marked rows."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import StoreBuilder, settle, wait_until
from test_app_picker import highlighted, picker, picker_app, preview_text, shown_ids, status
from test_app_picker_trash import dialog_text, no_runs_elsewhere, notes
from textual.pilot import Pilot
from textual.widgets import Static

from zero_tui.agent.running import Running
from zero_tui.store.fork import fork_session
from zero_tui.store.session_flags import SessionFlags, read_flags, update_flags
from zero_tui.store.trash import trashed
from zero_tui.ui.screens.dialogs import ExportDialog, TagDialog

pytestmark = pytest.mark.usefixtures(no_runs_elsewhere.__name__)
W = "/home/u/proj"
SIZE = (120, 36)


@pytest.fixture
def four(make_store: Callable[..., StoreBuilder]) -> StoreBuilder:
    builder = make_store()
    for number, name in enumerate(("s-d", "s-c", "s-b", "s-a")):
        builder.add(
            name, title=f"Session {name[-1]}", cwd=W, updated_at=f"2026-07-04T1{number}:00:00Z"
        )
    return builder  # newest first: s-a, s-b, s-c, s-d


async def press(pilot: Pilot[Any], *keys: str) -> None:
    """Press the keys, then wait for what they set going."""
    await pilot.press(*keys)
    await settle(pilot)


def flags_of(builder: StoreBuilder, session_id: str) -> SessionFlags:
    return read_flags(builder.root).of(session_id)


async def test_alt_p_pins_the_row_which_is_listed_first(four: StoreBuilder) -> None:
    app = picker_app(four)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown_ids(pilot) == ["s-a", "s-b", "s-c", "s-d"]
        await pilot.press("down", "down")
        await press(pilot, "alt+p")
        assert flags_of(four, "s-c").pinned
        assert shown_ids(pilot) == ["s-c", "s-a", "s-b", "s-d"]
        assert highlighted(pilot) == "s-c"  # the highlight went with it
        assert "★ pinned" in preview_text(pilot)
        await pilot.press("alt+p")  # again: unpinned
        await settle(pilot)
        assert not flags_of(four, "s-c").pinned
        assert shown_ids(pilot) == ["s-a", "s-b", "s-c", "s-d"]


async def test_pins_made_elsewhere_are_read_at_start(four: StoreBuilder) -> None:
    update_flags(four.root, ["s-d"], lambda flags: SessionFlags(True, False, ("work",)))
    app = picker_app(four)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown_ids(pilot)[0] == "s-d"
        await press(pilot, "end")
        assert shown_ids(pilot)[0] == "s-d"


async def test_the_tag_dialog_checks_as_typed_and_adds_and_removes(four: StoreBuilder) -> None:
    update_flags(four.root, ["s-a"], lambda flags: flags.with_tags(["old"]))
    app = picker_app(four)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "alt+t")
        screen = pilot.app.screen
        assert isinstance(screen, TagDialog)
        await press(pilot, *"+a,b")
        assert "no spaces, commas" in str(screen.query_one("#tag-problem", Static).visual)
        await press(pilot, "enter")
        assert pilot.app.screen is screen  # refused: the line says why
        await press(pilot, *["backspace"] * 4, *"+work", "space", *"-old", "enter")
        assert flags_of(four, "s-a").tags == ("work",)
        assert "#work" in preview_text(pilot)
        await press(pilot, "alt+t", "escape")
        assert flags_of(four, "s-a").tags == ("work",)


async def test_tag_and_pin_words_filter_the_title_query(four: StoreBuilder) -> None:
    update_flags(four.root, ["s-b", "s-d"], lambda flags: flags.with_tags(["work"]))
    update_flags(four.root, ["s-c"], lambda flags: SessionFlags(pinned=True))
    app = picker_app(four)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, *"tag:work")
        assert shown_ids(pilot) == ["s-b", "s-d"]
        await press(pilot, *["backspace"] * 8, *"is:pinned")
        assert shown_ids(pilot) == ["s-c"]
        await press(pilot, *["backspace"] * 9, *"pinned:", "space", "s")
        assert shown_ids(pilot) == ["s-c"]


async def test_archive_hides_the_row_and_the_status_line_counts_it(four: StoreBuilder) -> None:
    app = picker_app(four)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "down", "alt+a")
        assert flags_of(four, "s-b").archived
        assert shown_ids(pilot) == ["s-a", "s-c", "s-d"]
        assert "1 archived (alt+h: show)" in status(pilot)
        assert four.store.session_dir("s-b").is_dir()  # a view: nothing moved
        await press(pilot, "alt+h")
        assert shown_ids(pilot) == ["s-a", "s-b", "s-c", "s-d"]
        assert "archived shown (alt+h: hide)" in status(pilot)
        await press(pilot, "alt+h")
        assert "s-b" not in shown_ids(pilot)


async def test_ctrl_x_marks_and_moves_on_and_esc_clears_the_marks_first(
    four: StoreBuilder,
) -> None:
    app = picker_app(four)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, *"sess")
        await press(pilot, "ctrl+x", "ctrl+x")
        assert picker(pilot).state.marked == {"s-a", "s-b"}
        assert highlighted(pilot) == "s-c"
        assert "2 marked (Esc: clear)" in status(pilot)
        assert picker(pilot).composer.value == "sess"  # ctrl+x cut nothing
        await pilot.press("up", "ctrl+x")  # unmark
        await settle(pilot)
        assert picker(pilot).state.marked == {"s-a"}
        await press(pilot, "escape")
        assert picker(pilot).state.marked == frozenset()
        assert picker(pilot).composer.value == "sess"  # the marks went first
        await press(pilot, "escape")
        assert picker(pilot).composer.value == ""


async def test_actions_on_marked_rows_ask_once_naming_how_many(four: StoreBuilder) -> None:
    app = picker_app(four)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "ctrl+x", "ctrl+x", "ctrl+x", "alt+a")
        assert "Archive 3 sessions?" in dialog_text(pilot)
        await press(pilot, "y")
        assert shown_ids(pilot) == ["s-d"]
        assert "3 archived" in status(pilot)
        assert "marked" not in status(pilot)  # the action used the marks up
        await press(pilot, "alt+h")
        await press(pilot, "home", "ctrl+x", "ctrl+x", "alt+p")
        assert "Pin 2 sessions?" in dialog_text(pilot)
        await press(pilot, "n")
        assert not any(flags.pinned for flags in read_flags(four.root).sessions.values())
        await press(pilot, "alt+t")
        assert isinstance(pilot.app.screen, TagDialog)
        await press(pilot, *"+bulk", "enter")
        tagged = read_flags(four.root).ids(lambda flags: flags.has_tag("bulk"))
        assert tagged == {"s-a", "s-b"}


async def test_f8_on_marked_rows_deletes_them_after_one_question(four: StoreBuilder) -> None:
    app = picker_app(four)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "down", "ctrl+x", "ctrl+x", "f8")
        assert "Move 2 sessions to the trash?" in dialog_text(pilot)
        await press(pilot, "y")
        assert shown_ids(pilot) == ["s-a", "s-d"]
        assert sorted(item.session_id for item in trashed(four.store)) == ["s-b", "s-c"]
        assert "2 in the trash" in status(pilot)
        assert any("moved 2 sessions to the trash" in note for note in notes(pilot))


async def test_f8_on_marked_rows_refuses_a_running_one_by_name(four: StoreBuilder) -> None:
    app = picker_app(four)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "ctrl+x", "ctrl+x")
        screen = picker(pilot)
        screen.state = replace(screen.state, running={"s-a": Running("s-a", "zero-process", 7)})
        await press(pilot, "f8")
        assert any("not deleting s-a: running now" in note for note in notes(pilot))
        assert "Move 1 session to the trash?" in dialog_text(pilot)
        await press(pilot, "y")
        assert [item.session_id for item in trashed(four.store)] == ["s-b"]


async def test_a_marked_row_keeps_its_mark_drawn(four: StoreBuilder) -> None:
    app = picker_app(four)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        session_list = picker(pilot).session_list
        before = session_list.render_line(0).text
        await press(pilot, "ctrl+x")
        after = session_list.render_line(0).text
        assert before[0] == " "
        assert after[0] == "✓"


async def test_ctrl_s_on_marked_rows_exports_one_file_each_into_a_folder(
    four: StoreBuilder, tmp_path: Path
) -> None:
    folder = tmp_path / "out" / "batch"
    app = picker_app(four)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "ctrl+x", "ctrl+x", "ctrl+s")
        screen = pilot.app.screen
        assert isinstance(screen, ExportDialog)
        assert "Export 2 sessions into a folder" in str(screen.query(Static).first().visual)
        await pilot.press(*str(folder))
        await press(pilot, "enter")
        await wait_until(pilot, lambda: len(list(folder.glob("*.txt"))) == 2, "two files")
        assert sorted(path.name for path in folder.iterdir()) == ["s-a.txt", "s-b.txt"]
        assert "Session a" in (folder / "s-a.txt").read_text()
        assert any("wrote 2 of 2 transcripts" in note for note in notes(pilot))


async def test_a_forks_preview_names_its_parents_tags(four: StoreBuilder) -> None:
    update_flags(four.root, ["s-d"], lambda flags: SessionFlags(True, False, ("work",)))
    fork = fork_session(four.store, "s-d", title="Forked")
    app = picker_app(four)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown_ids(pilot)[0] == "s-d"
        assert shown_ids(pilot)[1:].count(fork.session_id) == 1  # the fork is not pinned
        await press(pilot, *"forked")
        assert highlighted(pilot) == fork.session_id
        await wait_until(pilot, lambda: "(tags: work)" in preview_text(pilot), "the parent's tags")
        assert "#work" not in preview_text(pilot)
