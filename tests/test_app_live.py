"""The picker as the store changes under it (issue 17, items 1 to 4), driven with Pilot: the
rows, the preview and the counts follow with no key pressed, the highlight stays on its
session, Enter opens what it was pressed on, and sessions being written are marked."""

from __future__ import annotations

import re
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import StoreBuilder, assistant, settle, user, wait_until
from test_app_picker import (
    W,
    highlighted,
    picker,
    picker_app,
    preview_text,
    shown_ids,
    status,
    stop_watcher,
)
from textual.pilot import Pilot

from zero_tui.agent import running as running_module
from zero_tui.picker.loader import PickerLoader
from zero_tui.picker.scopes import RowRanker
from zero_tui.store import SessionStore
from zero_tui.ui.screens.dialogs import HelpScreen
from zero_tui.ui.screens.transcript import TranscriptScreen
from zero_tui.ui.widgets import picker_body, store_feed
from zero_tui.ui.widgets.session_list import SessionList
from zero_tui.ui.widgets.session_row_painter import RUNNING_MARK

SIZE = (120, 30)


@pytest.fixture(autouse=True)
def own_runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No other zero-tui's runs, no Zero TUI peers, no `zero` of another test."""
    (tmp_path / "runtime").mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setattr(running_module, "zero_processes", lambda *_, **__: {})


@pytest.fixture
def three(make_store: Callable[..., StoreBuilder]) -> StoreBuilder:
    builder = make_store()
    builder.add("new", title="Newest", cwd=W, updated_at="2026-07-04T11:00:00Z")
    builder.add("mid", title="Middle", cwd=W, updated_at="2026-07-04T10:00:00Z")
    builder.add(
        "old",
        title="Oldest",
        cwd=W,
        updated_at="2026-07-04T09:00:00Z",
        events=[user("the oldest question"), assistant("the oldest answer")],
    )
    return builder


def rows(pilot: Pilot[Any]) -> list[tuple[str, int, str]]:
    return [
        (row.session_id, row.event_count, row.title)
        for row in picker(pilot).session_list.visible_rows()
    ]


async def test_rows_preview_and_counts_follow_the_store_with_no_key_pressed(
    three: StoreBuilder,
) -> None:
    store = SessionStore(three.root)  # another writer, on the real clock
    app = picker_app(three)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert status(pilot) == "3 shown"
        await pilot.press("down", "down")
        await wait_until(pilot, lambda: "the oldest answer" in preview_text(pilot), "the preview")
        assert "2 events" in preview_text(pilot)

        store.append_events("old", [user("one more question"), assistant("one more answer")])
        await wait_until(pilot, lambda: rows(pilot)[0] == ("old", 4, "Oldest"), "old on top")
        assert highlighted(pilot) == "old"  # the user moved there: it stays on its session
        await wait_until(pilot, lambda: "4 events" in preview_text(pilot), "the preview")
        assert "one more answer" in preview_text(pilot)

        store.create("fresh", cwd=W, title="Started elsewhere")
        store.append_events("fresh", [user("hi"), assistant("hello")])
        store.update_title("mid", "Middle, renamed")
        shutil.rmtree(store.session_dir("new"))
        expected = {("fresh", 2, "Started elsewhere"), ("mid", 2, "Middle, renamed")}
        await wait_until(
            pilot,
            lambda: {item for item in rows(pilot) if item[0] != "old"} == expected,
            "the new, the renamed and no removed row",
        )
        assert status(pilot) == "3 shown"
        assert highlighted(pilot) == "old"
        assert picker(pilot).state.store_total == 3


def replace_folder(root: Path, how: str) -> None:
    if how == "renamed away":
        root.rename(root.with_name("sessions.old"))
    else:
        shutil.rmtree(root)
    root.mkdir()


@pytest.mark.parametrize("how", ["renamed away", "removed and made again"])
async def test_a_store_folder_replaced_under_the_picker_is_read_anew(
    three: StoreBuilder, how: str
) -> None:
    """Issue 25, item 6: the picker kept the old rows, or said "No Zero sessions yet",
    forever: it watched the folder that was no longer the store."""
    root = Path(three.root)
    app = picker_app(three)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await wait_until(pilot, lambda: picker(pilot).state.watch_mode != "", "the watch")
        assert shown_ids(pilot) == ["new", "mid", "old"]
        replace_folder(root, how)
        store = SessionStore(root)
        store.create("fresh", cwd=W, title="In the new store")
        store.append_events("fresh", [user("hi"), assistant("hello")])
        await wait_until(pilot, lambda: shown_ids(pilot) == ["fresh"], "the new store's rows")
        store.create("later", cwd=W, title="Later in the new store")
        store.append_events("later", [user("hi"), assistant("hello")])
        await wait_until(
            pilot, lambda: sorted(shown_ids(pilot)) == ["fresh", "later"], "followed anew"
        )


async def test_before_the_user_moves_the_highlight_is_on_the_newest(
    three: StoreBuilder,
) -> None:
    store = SessionStore(three.root)
    app = picker_app(three)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert highlighted(pilot) == "new"
        store.append_events("mid", [user("again")])
        await wait_until(pilot, lambda: shown_ids(pilot)[0] == "mid", "mid on top")
        assert highlighted(pilot) == "mid"
        await wait_until(pilot, lambda: "again" in preview_text(pilot), "mid's preview")


class Gate:
    """Holds a worker's step until the test opens it."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self.opened = threading.Event()

    def wait(self) -> None:
        self.reached.set()
        assert self.opened.wait(20)


@pytest.fixture
def held_scan(monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    """The store's scan waits at its start until the gate opens: the remembered rows stay
    on screen meanwhile."""
    gate = Gate()
    scan = PickerLoader.scan

    def held(self: PickerLoader, *args: Any, **kwargs: Any) -> None:
        gate.wait()
        scan(self, *args, **kwargs)

    monkeypatch.setattr(PickerLoader, "scan", held)
    yield gate
    gate.opened.set()


async def remember_first_screen(builder: StoreBuilder) -> None:
    async with picker_app(builder).run_test(size=SIZE) as pilot:
        await settle(pilot)


async def test_enter_on_a_stale_first_screen_opens_the_newest_of_the_store(
    three: StoreBuilder, held_scan: Gate
) -> None:
    held_scan.opened.set()
    await remember_first_screen(three)  # new, mid, old
    held_scan.opened.clear()
    held_scan.reached.clear()
    SessionStore(three.root).append_events("old", [user("continued while closed")])
    app = picker_app(three)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, held_scan.reached.is_set, "the scan to start")
        await wait_until(pilot, lambda: shown_ids(pilot) == ["new", "mid", "old"], "stale rows")
        await pilot.press("enter")
        await pilot.pause(0.1)
        assert not isinstance(app.screen, TranscriptScreen)  # the order is not known yet
        held_scan.opened.set()
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, TranscriptScreen) and app.screen.session_id == "old",
            "the newest session of the store opened",
        )


async def test_a_highlight_the_user_chose_stays_on_its_session_across_the_reorder(
    three: StoreBuilder, held_scan: Gate
) -> None:
    held_scan.opened.set()
    await remember_first_screen(three)
    held_scan.opened.clear()
    SessionStore(three.root).append_events("old", [user("continued while closed")])
    app = picker_app(three)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: shown_ids(pilot) == ["new", "mid", "old"], "stale rows")
        await pilot.press("down")  # on mid, as the user saw it
        held_scan.opened.set()
        await wait_until(pilot, lambda: shown_ids(pilot) == ["old", "new", "mid"], "the reorder")
        assert highlighted(pilot) == "mid"
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, TranscriptScreen) and app.screen.session_id == "mid",
            "the session the user chose opened",
        )


async def test_an_enter_waiting_for_its_ranking_is_dropped_with_its_query(
    three: StoreBuilder, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate()
    rank = RowRanker.rank

    def held(self: RowRanker, *args: Any, **kwargs: Any) -> Any:
        if args[2] == "oldest":
            gate.wait()
        return rank(self, *args, **kwargs)

    monkeypatch.setattr(RowRanker, "rank", held)
    monkeypatch.setattr(picker_body, "INLINE_RANK_ROWS", 0)  # held in a worker, not the loop
    app = picker_app(three)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"oldest", "enter")  # Enter before the ranking: it waits for it
        await wait_until(pilot, gate.reached.is_set, "the ranking to start")
        for _ in "oldest":
            await pilot.press("backspace")  # the query it waited for is gone
        gate.opened.set()
        await pilot.press(*"mid")
        await settle(pilot)
        assert shown_ids(pilot) == ["mid"]
        assert not isinstance(app.screen, TranscriptScreen)  # no Enter for "mid" was pressed


async def test_running_sessions_are_marked_in_the_row_the_preview_and_the_counts(
    three: StoreBuilder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_feed, "RUNNING_REFRESH_SECONDS", 0.2)
    app = picker_app(three)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        claim = running_module.claim_run(three.store, "new")
        try:
            # a write wakes the picker; the registry says a zero-tui runs the session
            SessionStore(three.root).append_events("new", [user("go"), assistant("going")])
            await wait_until(pilot, lambda: "1 running" in status(pilot), "the count")
            assert status(pilot) == "3 shown · 1 running"
            session_list = picker(pilot).query_one(SessionList)
            line = session_list.render_line(0).text
            assert line.startswith(f" {RUNNING_MARK} running ")
            assert "Newest" in line
            assert not session_list.render_line(1).text.startswith(RUNNING_MARK)
            await wait_until(pilot, lambda: "● running in this zero-tui" in preview_text(pilot), "")
        finally:
            claim.release()
        # the run ended without another write: the periodic look sees it
        await wait_until(pilot, lambda: status(pilot) == "3 shown", "the mark gone")
        assert "running" not in preview_text(pilot)


async def test_a_preview_that_finds_more_than_its_row_brings_the_row_up_to_date(
    three: StoreBuilder,
) -> None:
    app = picker_app(three)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await stop_watcher(pilot)  # no watcher: only the preview notices
        SessionStore(three.root).append_events("mid", [user("behind the watcher's back")])
        await pilot.press("down")
        await wait_until(pilot, lambda: rows(pilot)[0][:2] == ("mid", 3), "the row read again")
        assert "3 events" in preview_text(pilot)


async def test_no_content_match_says_so_once(three: StoreBuilder) -> None:
    app = picker_app(three)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t", *"zzqqxx")
        await settle(pilot)
        await wait_until(pilot, lambda: "0 of 3 match" in status(pilot), "no match")
        session_list = picker(pilot).query_one(SessionList)
        lines = [session_list.render_line(y).text for y in range(4)]
        assert sum("no matching items" in line for line in lines) == 1


async def test_help_lists_each_key_once_and_how_the_store_is_watched(
    three: StoreBuilder,
) -> None:
    app = picker_app(three)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await wait_until(pilot, lambda: bool(picker(pilot).state.watch_mode), "the watcher")
        await pilot.press(*"/help", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "/help")
        text = str(app.screen.query_one("#help-text").render())
        key_lines = [line for line in text.split("Keys", 1)[1].splitlines() if line[:2] == "  "]
        keys = [re.split(r"\s{2,}", line.strip())[0] for line in key_lines]
        assert len(keys) == len(set(keys)), keys  # one line per key: a toggle says both ways
        assert "  ctrl+e  show the runs with no conversation / hide them again" in text
        for key in ("Tab", "ctrl+e", "ctrl+t", "ctrl+s", "F2", "Esc", "ctrl+q", "F1"):
            assert f"\n  {key} " in text, key
        assert "The list follows the store: changes in the store show up as they happen (" in text


async def test_polling_is_said_on_the_status_line_and_in_the_palette(
    three: StoreBuilder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZERO_TUI_POLL", "1")
    store = SessionStore(three.root)
    app = picker_app(three)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await wait_until(pilot, lambda: "polling" in status(pilot), "the polling status")
        assert status(pilot) == "3 shown · polling the store every 1s"
        rescan = next(
            command for command in picker(pilot).system_commands() if "scan again" in command.title
        )
        assert "polling every 1s (no notification asked for)" in rescan.help
        store.append_events("old", [user("polled")])  # polling follows the store too
        await wait_until(pilot, lambda: shown_ids(pilot)[0] == "old", "old on top")
