"""The picker's delete (F8), its count of the trash, a fork's row and the tokens column,
driven as a user drives them (Pilot); issue 20 parts 1, 3 and 4 in the picker."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import StoreBuilder, assistant, settle, user, wait_until
from test_app_picker import (
    highlighted,
    picker,
    picker_app,
    preview_text,
    shown_ids,
    status,
    stop_watcher,
)
from textual.pilot import Pilot
from textual.widgets import Static

from zero_tui.agent import running as running_module
from zero_tui.picker.row_layout import USAGE_COLUMN
from zero_tui.store.fork import fork_session
from zero_tui.store.trash import trashed
from zero_tui.ui.screens.dialogs import ConfirmDialog

W = "/home/u/proj"
SIZE = (120, 36)
HOSTILE = "\x1b[31mred\x1b[0m [bold]not markup[/bold] \x1b]52;c;aGk=\x07"


def usage(prompt: int, completion: int, cached: int = 0) -> tuple[str, object]:
    payload = {"promptTokens": prompt, "completionTokens": completion}
    return (
        "provider_usage",
        payload | {"totalTokens": prompt + completion, "cachedInputTokens": cached},
    )


@pytest.fixture(autouse=True)
def no_runs_elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "runtime").mkdir(exist_ok=True)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setattr(running_module, "zero_processes", lambda *_, **__: {})


@pytest.fixture
def three(make_store: Callable[..., StoreBuilder]) -> StoreBuilder:
    builder = make_store()
    builder.add("s-new", title="Newest", cwd=W, updated_at="2026-07-04T11:00:00Z")
    builder.add(
        "s-mid",
        title=HOSTILE,
        cwd=W,
        updated_at="2026-07-04T10:00:00Z",
        events=[user("q"), usage(12_000, 300, 9_000), assistant("a")],
    )
    builder.add("s-old", title="Oldest", cwd=W, updated_at="2026-07-04T09:00:00Z")
    return builder


def dialog(pilot: Pilot[Any]) -> ConfirmDialog:
    screen = pilot.app.screen
    assert isinstance(screen, ConfirmDialog), screen
    return screen


def dialog_text(pilot: Pilot[Any]) -> str:
    return "\n".join(str(part.visual) for part in dialog(pilot).query(Static))


def notes(pilot: Pilot[Any]) -> list[str]:
    return [note.message for note in pilot.app._notifications]


async def test_f8_asks_naming_the_session_and_yes_moves_it_to_the_trash(
    three: StoreBuilder,
) -> None:
    app = picker_app(three)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "in the trash" not in status(pilot)
        await pilot.press("down")  # the hostile title
        await settle(pilot)
        await pilot.press("f8")
        await settle(pilot)
        text = dialog_text(pilot)
        assert "(s-mid)" in text
        assert "zero-tui restore s-mid" in text
        assert "\x1b" not in text  # escapes shown, never sent
        assert "\x07" not in text
        assert "[bold]not markup[/bold]" in text  # text, not markup
        await pilot.press("y")
        await settle(pilot)
        assert shown_ids(pilot) == ["s-new", "s-old"]
        assert highlighted(pilot) == "s-old"  # the row that took its line
        assert [item.session_id for item in trashed(three.store)] == ["s-mid"]
        assert not three.store.session_dir("s-mid").exists()
        assert "1 in the trash (zero-tui trash)" in status(pilot)
        assert any("moved s-mid to the trash" in note for note in notes(pilot))
        # the last row: the highlight goes to the row above it
        await pilot.press("f8", "y")
        await settle(pilot)
        assert shown_ids(pilot) == ["s-new"]
        assert highlighted(pilot) == "s-new"
        assert "2 in the trash" in status(pilot)


async def test_n_or_escape_keeps_the_session(three: StoreBuilder) -> None:
    app = picker_app(three)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for key in ("n", "escape"):
            await pilot.press("f8")
            await settle(pilot)
            dialog(pilot)
            await pilot.press(key)
            await settle(pilot)
            assert shown_ids(pilot) == ["s-new", "s-mid", "s-old"]
        assert trashed(three.store) == []
        assert three.store.session_dir("s-new").is_dir()
        assert notes(pilot).count("nothing deleted") == 2
        assert "in the trash" not in status(pilot)


@pytest.fixture
def claimed(three: StoreBuilder) -> Iterator[None]:
    claim = running_module.claim_run(three.store, "s-new")
    try:
        yield
    finally:
        claim.release()


async def test_a_running_session_is_refused_in_one_line_without_asking(
    three: StoreBuilder, claimed: None
) -> None:
    app = picker_app(three)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "s-new" in picker(pilot).state.running
        await pilot.press("f8")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, ConfirmDialog)
        assert notes(pilot) == ["not deleting s-new: it is running in this zero-tui"]
        assert shown_ids(pilot) == ["s-new", "s-mid", "s-old"]
        assert trashed(three.store) == []


async def test_a_possible_writer_found_after_the_question_keeps_the_session(
    three: StoreBuilder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 25 item 1: F8 → y asks again under the session's lock; a `zero` resuming the
    store's latest session without naming it (no row says it runs) keeps it."""
    resuming = running_module._ZeroProcess(None, 4242, None)
    monkeypatch.setattr(running_module, "_zero_processes_of", lambda *_: [resuming])
    monkeypatch.setattr(running_module, "_started_at", lambda _pid: None)
    app = picker_app(three)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert picker(pilot).state.running == {}
        await pilot.press("f8", "y")
        await settle(pilot)
        assert notes(pilot) == [
            "not deleting s-new: a `zero` process (pid 4242) is resuming the latest session "
            "of this store, which may be this one"
        ]
        assert shown_ids(pilot) == ["s-new", "s-mid", "s-old"]
        assert three.store.session_dir("s-new").is_dir()
        assert trashed(three.store) == []


async def test_the_trash_count_follows_a_delete_and_restore_done_elsewhere(
    three: StoreBuilder,
) -> None:
    """Issue 25 item 17: the store's follower and ctrl+r count the trash again."""
    from zero_tui.store.trash import find_trashed, move_to_trash, restore

    app = picker_app(three)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        move_to_trash(three.store, "s-old")  # `zero-tui delete` in another terminal
        await wait_until(pilot, lambda: "1 in the trash" in status(pilot), "counted 1")
        restore(three.store, find_trashed(three.store, "s-old"))
        await wait_until(pilot, lambda: "in the trash" not in status(pilot), "counted 0")
        await stop_watcher(pilot)  # now only ctrl+r reads it again
        move_to_trash(three.store, "s-mid")
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert "1 in the trash (zero-tui trash)" in status(pilot)


async def test_the_trash_count_is_read_at_start(three: StoreBuilder) -> None:
    from zero_tui.store.trash import move_to_trash

    move_to_trash(three.store, "s-old")
    move_to_trash(three.store, "s-new")
    app = picker_app(three)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "2 in the trash (zero-tui trash)" in status(pilot)
        assert shown_ids(pilot) == ["s-mid"]


async def test_a_fork_s_row_names_its_parent_and_the_preview_its_turn(
    three: StoreBuilder,
) -> None:
    parent = three.add(
        "s-parent",
        title="Plan the parser",
        cwd=W,
        updated_at="2026-07-04T08:00:00Z",
        events=[user("plan it"), assistant("planned"), user("now fix it"), assistant("fixed")],
    )
    fork = fork_session(three.store, parent.session_id, at_sequence=2, title="Another way")
    app = picker_app(three)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        session_list = picker(pilot).session_list
        row = next(row for row in session_list.visible_rows() if row.session_id == fork.session_id)
        assert row.lineage == "⑂ fork of “Plan the parser” at event #2"
        line = session_list.shown.order.index(session_list.shown.rows.index(row))
        drawn = "".join(segment.text for segment in session_list.render_line(line))
        assert "Another way  ⑂ fork of “Plan the parser” a…" in drawn  # cut to fit
        await pilot.resize_terminal(200, 60)
        await settle(pilot)
        drawn = "".join(segment.text for segment in session_list.render_line(line))
        assert "Another way  ⑂ fork of “Plan the parser” at event #2" in drawn
        while highlighted(pilot) != fork.session_id:
            await pilot.press("down")
        await settle(pilot)
        assert "forked from “Plan the parser” (s-parent) at turn 1 “plan it” (event #2)" in (
            preview_text(pilot)
        )


def drawn_row(pilot: Pilot[Any], session_id: str) -> str:
    session_list = picker(pilot).session_list
    line = [row.session_id for row in session_list.visible_rows()].index(session_id)
    return "".join(segment.text for segment in session_list.render_line(line))


@pytest.mark.parametrize(
    ("size", "column"), [((80, 24), False), ((120, 36), True), ((200, 60), True)]
)
async def test_the_tokens_column_shows_on_a_wide_screen_only(
    three: StoreBuilder, size: tuple[int, int], column: bool
) -> None:
    app = picker_app(three)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        session_list = picker(pilot).session_list
        assert session_list.shows_usage is column
        assert ("12k tok" in drawn_row(pilot, "s-mid")) is column
        assert "tok" not in drawn_row(pilot, "s-new")  # no usage recorded: nothing said
        newest = drawn_row(pilot, "s-new")
        assert "Newest" in newest
        if column:
            assert len(session_list.usage_text(session_list.visible_rows()[1])) <= USAGE_COLUMN


async def test_the_preview_says_the_tokens(three: StoreBuilder) -> None:
    app = picker_app(three)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "tokens     none recorded" in preview_text(pilot)
        await pilot.press("down")
        await settle(pilot)
        assert "tokens     12k in (9k cached) · 300 out" in preview_text(pilot)
