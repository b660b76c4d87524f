"""The picker's state without an app: how loader stages fold in, and what it shows."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from zero_tui.agent.running import Running
from zero_tui.picker.live import RunningFound, SessionChange, SessionFacts, StoreChanged
from zero_tui.picker.loader import (
    ChangesDone,
    EnclosingFolders,
    RememberedRows,
    ScanDone,
    ScanFailed,
    ScanProgress,
    ScopeLoaded,
    UnreadableFound,
    UsageFound,
)
from zero_tui.picker.scopes import HiddenCounts, ScopeKey
from zero_tui.picker.session_rows import PickerRow, insert_in_zero_order
from zero_tui.picker.state import PickerState, ScopeRows
from zero_tui.store.store import UnreadableSession
from zero_tui.store.token_counts import Tokens

HERE: ScopeKey = (False, False)
EVERYWHERE: ScopeKey = (True, False)


def row(session_id: str, updated_at: str = "", events: int = 2) -> PickerRow:
    return PickerRow(
        session_id, session_id, "", session_id, "", "", events, False, "/w", updated_at
    )


def loaded(
    key: ScopeKey,
    *names: str,
    complete: bool = False,
    replace: bool = True,
    hidden: HiddenCounts | None = None,
) -> ScopeLoaded:
    counts = hidden or HiddenCounts()
    return ScopeLoaded(key, [row(name) for name in names], counts, 9, complete, replace)


def state(**changes: Any) -> PickerState:
    return replace(PickerState("/store", "/w"), **changes)


def test_stages_start_a_scope_over_or_extend_it() -> None:
    start = state(scan_progress=(3, 9), scan_error="old")
    first = start.with_rows(loaded(HERE, "a", "b"))
    assert first.scope == ScopeRows((row("a"), row("b")))
    assert (first.store_total, first.scan_error, first.scan_progress) == (9, None, (3, 9))
    more = first.with_rows(loaded(HERE, "c", complete=True, replace=False))
    assert more.scope is not None
    assert [item.session_id for item in more.scope.rows] == ["a", "b", "c"]
    assert more.scope.complete
    assert more.scan_progress is None  # a complete scope: the scan has read everything
    again = more.with_rows(loaded(HERE, "z"))
    assert again.scope is not None
    assert [item.session_id for item in again.scope.rows] == ["z"]
    # Another scope leaves the current one as it was; the current one follows Tab.
    other = again.with_rows(loaded(EVERYWHERE, "x", "y"))
    assert other.scope is again.scope
    assert replace(other, all_workspaces=True).scope == ScopeRows((row("x"), row("y")))
    assert start.scope is None  # each change is a new value


def test_each_loader_stage_folds_into_the_state() -> None:
    start = state(scan_progress=(3, 9))
    assert start.with_stage(RememberedRows(HERE, None)) is start  # nothing to redraw
    assert start.with_stage(ChangesDone(indexed=True)) is start
    remembered = start.with_stage(RememberedRows(HERE, loaded(HERE, "a")))
    assert remembered == start.with_rows(loaded(HERE, "a"))
    rows = remembered.with_stage(loaded(HERE, "b", replace=False))
    assert rows == remembered.with_rows(loaded(HERE, "b", replace=False))
    assert start.with_stage(ScanProgress(4, 9)).scan_progress == (4, 9)
    assert start.with_stage(ScanProgress(9, 9)).scan_progress is None  # every one read
    unreadable = (UnreadableSession(Path("/store/bad"), "broken"),)
    assert start.with_stage(UnreadableFound(unreadable)).unreadable == unreadable
    assert start.with_stage(EnclosingFolders((("/", 2),))).enclosing == (("/", 2),)
    failed = rows.with_stage(ScanFailed("no store"))
    assert (failed.scan_error, failed.store_total) == ("no store", 0)
    done = start.with_stage(ScanDone({}))
    assert (done.live, done.sessions) == (True, {})
    running = {"a": Running("a", "zero-process", pid=7)}
    assert start.with_stage(RunningFound(running)).running == running
    tokens = Tokens(input=5)
    assert start.with_stage(UsageFound({"a": tokens})).usage == {"a": tokens}


def test_the_status_line_says_what_is_shown_hidden_and_loading() -> None:
    assert state().status() == "scanning…"
    assert state(scan_progress=(20, 300)).status() == "scanning 20/300…"
    assert state(store_total=0).status() == "0 sessions · store /store"
    hidden = HiddenCounts(other_workspace=2, empty_runs=1)
    shown = state(shown=2).with_rows(loaded(HERE, "a", "b", complete=True, hidden=hidden))
    assert shown.status() == (
        "2 shown · 2 in other workspaces (Tab: all) · 1 empty run (ctrl+e: show)"
    )
    unreadable = (UnreadableSession(Path("/store/bad"), "broken"),)
    matching = replace(shown, query="a", shown=1, unreadable=unreadable)
    assert matching.status().startswith("1 of 2 match · ")
    assert matching.status().endswith(" · 1 unreadable (zero-tui check)")
    content = replace(matching, content_mode=True, content_status="best 1 of 5")
    assert content.status().endswith(
        " · content search · best 1 of 5 · indexing… · results may be incomplete"
    )
    indexing = replace(content, index_progress=(10, 40))
    assert indexing.status().endswith(" · indexing 10/40 · results may be incomplete")
    ready = replace(content, index_ready=True)
    assert ready.status().endswith(" · content search · best 1 of 5")


def test_the_empty_state_and_the_lists_empty_message() -> None:
    assert state().list_empty_message() == "scanning the session store…"
    hidden = HiddenCounts(other_workspace=3)
    scanned = state().with_rows(loaded(HERE, complete=True, hidden=hidden))
    assert scanned.list_empty_message() == (
        "no sessions in this workspace · Tab shows 3 in other workspaces"
    )
    assert replace(scanned, query="x").list_empty_message() == "no matching items"
    assert "No Zero sessions yet." in state(store_total=0).empty_state()
    assert "start one from here: type /new" in state(store_total=0).empty_state()
    failed = state(store_total=0, scan_error="read zero session root: denied")
    assert "could not be read.\n\n  read zero session root: denied\n" in failed.empty_state()


def test_the_title_and_the_placeholder_follow_the_mode_and_the_workspace() -> None:
    assert state().title() == "Resume a session · /w"
    content = state(content_mode=True, workspace="/")
    assert content.title() == "Resume a session · / · searching what was said (ctrl+t: titles)"
    assert content.placeholder().endswith("ctrl+t: titles")
    assert state().placeholder().endswith("/ for commands")


def test_the_keys_on_offer() -> None:
    ready = state(store_total=4)
    assert ready.offers("scope", ("all",), row_highlighted=True)
    assert not ready.offers("scope", ("this",), row_highlighted=True)
    assert replace(ready, all_workspaces=True).offers("scope", ("this",), row_highlighted=True)
    assert ready.offers("empty", ("show",), row_highlighted=True)
    assert ready.offers("search_mode", ("content",), row_highlighted=True)
    assert replace(ready, content_mode=True).offers("search_mode", ("title",), row_highlighted=True)
    assert ready.offers("open", (), row_highlighted=True)
    assert not ready.offers("open", (), row_highlighted=False)
    assert not ready.offers("go_up", (), row_highlighted=True)
    assert replace(ready, enclosing=(("/", 2),)).offers("go_up", (), row_highlighted=True)
    assert not ready.offers("unreadable", (), row_highlighted=True)
    # Nothing to open or export in an empty store; the rest still works.
    empty = state(store_total=0)
    assert not empty.offers("open", (), row_highlighted=True)
    assert not empty.offers("export_dialog", (), row_highlighted=True)
    assert not empty.offers("command_key", (), row_highlighted=True)
    assert empty.offers("scope", ("all",), row_highlighted=False)
    assert empty.offers("rescan", (), row_highlighted=False)
    # The footer is redrawn when what `offers` reads changes, not for a keystroke.
    assert replace(ready, query="x", shown=1).offer_facts() == ready.offer_facts()
    assert replace(ready, store_total=0).offer_facts() != ready.offer_facts()
    assert replace(ready, content_mode=True).offer_facts() != ready.offer_facts()


def test_a_batch_of_changes_moves_each_session_in_every_scope() -> None:
    here, away, empty = (
        SessionFacts(True, True, False),
        SessionFacts(True, False, False),
        SessionFacts(True, True, True),
    )
    rows = (row("c", "2026-07-04T09:00:00Z"), row("a", "2026-07-04T08:00:00Z"))
    start = state(
        scopes={HERE: ScopeRows(rows, HiddenCounts(other_workspace=1, empty_runs=1), True)},
        running={"a": Running("a", "recent"), "gone": Running("gone", "recent")},
    )
    appended = row("a", "2026-07-04T10:00:00Z", events=4)
    changes = (
        SessionChange("a", here, here, appended),  # appended to: to the top
        SessionChange("e", empty, here, row("e", "2026-07-04T08:30:00Z")),  # answered now
        SessionChange("x", away, None, None),  # removed
        SessionChange("n", None, here, row("n", "2026-07-04T09:00:00Z")),  # new, a tie with c
    )
    sessions = {sid: object() for sid in "acen"}
    changed = StoreChanged(changes, 4, (), (), sessions)  # type: ignore[arg-type]
    after = start.with_changes(changed)
    scope = after.scopes[HERE]
    assert [item.session_id for item in scope.rows] == ["a", "c", "n", "e"]
    assert scope.rows[0].event_count == 4
    assert scope.hidden == HiddenCounts()
    assert (after.store_total, after.sessions) == (4, sessions)
    assert set(after.running) == {"a"}  # a removed session no longer runs
    assert after.running_in_scope() == 1
    assert replace(after, shown=4).status() == "4 shown · 1 running"


def test_the_status_line_says_polling_only_when_it_polls() -> None:
    shown = state(shown=1).with_rows(loaded(HERE, "a", complete=True))
    notified = replace(shown, watch_mode="file-change notification")
    assert notified.status() == "1 shown"
    assert "file-change notification" in notified.live_note()
    polling = replace(shown, watch_mode="polling every 1s (watchfiles is not installed)")
    assert polling.status() == "1 shown · polling the store every 1s"
    assert "watchfiles is not installed" in polling.live_note()
    limited = replace(
        shown,
        watch_mode="file-change notification, 3 sessions polled every 1s "
        "(the inotify watch limit is reached)",
    )  # issue 25, item 7: notification, but not for the sessions made past the limit
    assert limited.status() == (
        "1 shown · 3 sessions polled every 1s (the inotify watch limit is reached)"
    )


def test_the_counts_move_with_a_session_and_never_go_below_zero() -> None:
    counts = HiddenCounts(other_workspace=1, empty_runs=0, not_resumable=2)
    assert counts.moved("other_workspace", "empty_runs") == HiddenCounts(0, 1, 2)
    assert counts.moved(None, "not_resumable") == HiddenCounts(1, 0, 3)
    assert counts.moved("empty_runs", None) == counts  # already at zero
    assert counts.moved("listed", "other_empty_runs") == counts  # neither is counted here


def test_rows_go_in_zero_order() -> None:
    rows = [row("b", "2026-07-04T10:00:00Z"), row("d", "2026-07-04T10:00:00Z")]
    for item in (row("a", "2026-07-04T11:00:00Z"), row("c", "2026-07-04T10:00:00Z"), row("z", "")):
        insert_in_zero_order(rows, item)
    assert [item.session_id for item in rows] == ["a", "b", "c", "d", "z"]
