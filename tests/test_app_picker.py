"""The resume picker driven as a user drives it (Pilot): keys, typing, mouse, scopes, --resume."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import StoreBuilder, assistant, chat, fixed_clock, settle, user, wait_until
from textual import events
from textual.pilot import Pilot
from textual.widgets import Static

from zero_tui.picker.ranking import Tier
from zero_tui.store import SessionStore
from zero_tui.ui.app import ZeroApp, css_paths, make_app
from zero_tui.ui.screens.picker import PickerScreen
from zero_tui.ui.screens.transcript import TranscriptScreen
from zero_tui.ui.widgets.preview import SessionPreview
from zero_tui.ui.widgets.session_list import SessionList
from zero_tui.ui.widgets.store_feed import StoreFeed

W = "/home/u/proj"
SIZE = (120, 36)


def picker_app(builder: StoreBuilder, **options: Any) -> ZeroApp:
    return make_app(builder.store, cwd=options.pop("cwd", W), clock=fixed_clock(), **options)


def picker(pilot: Pilot[Any]) -> PickerScreen:
    screen = pilot.app.screen
    assert isinstance(screen, PickerScreen)
    return screen


def shown_ids(pilot: Pilot[Any]) -> list[str]:
    return [row.session_id for row in picker(pilot).session_list.visible_rows()]


def status(pilot: Pilot[Any]) -> str:
    return str(picker(pilot).query_one("#status", Static).visual)


def preview_text(pilot: Pilot[Any]) -> str:
    return picker(pilot).query_one(SessionPreview).text


def highlighted(pilot: Pilot[Any]) -> str | None:
    row = picker(pilot).session_list.highlighted_row
    return row.session_id if row is not None else None


def watcher_stopped() -> bool:
    return not any(thread.name == "zero-tui store watcher" for thread in threading.enumerate())


async def stop_watcher(pilot: Pilot[Any]) -> None:
    """Stop the store's watcher and wait until its thread is gone: from then on nothing
    reads a change but what the test does (the watcher looks whether to stop only every
    STOP_LOOK_SECONDS, and may emit meanwhile)."""
    picker(pilot).feed._watch_stop.set()
    await wait_until(pilot, watcher_stopped, "the store's watcher stopped")


async def type_text(pilot: Pilot[Any], text: str) -> None:
    await pilot.press(*["space" if char == " " else char for char in text])
    await settle(pilot)


async def clear_query(pilot: Pilot[Any]) -> None:
    query = picker(pilot).query_one("#query")
    while getattr(query, "value", ""):
        await pilot.press("backspace")
    await settle(pilot)


@pytest.fixture
def scoped_store(make_store: Callable[..., StoreBuilder]) -> StoreBuilder:
    """Three sessions here (one empty run), two elsewhere, one child session."""
    builder = make_store()
    builder.add("here-new", title="Fix parser", cwd=W, updated_at="2026-07-04T11:00:00Z")
    builder.add(
        "here-old",
        title="Write docs",
        cwd=W,
        model_id="gpt-5",
        updated_at="2026-07-03T09:00:00Z",
        events=[user("write the docs"), assistant("docs written")],
    )
    builder.add(
        "here-empty",
        title="Nothing",
        cwd=W,
        events=[user("hello")],
        updated_at="2026-07-04T09:00:00Z",
    )
    builder.add(
        "there-1", title="Other project", cwd="/srv/other", updated_at="2026-07-04T10:30:00Z"
    )
    builder.add("there-2", title="Old other", cwd="/srv/other", updated_at="2025-12-31T23:59:59Z")
    builder.add("kid", title="Child run", cwd=W, session_kind="child")
    return builder


# --- rows, order, scope ---------------------------------------------------------------------


async def test_rows_follow_recency_and_go_labels(make_store: Callable[..., StoreBuilder]) -> None:
    builder = make_store()
    builder.add("b", title="Bee", cwd=W, updated_at="2026-07-04T09:00:00Z")
    builder.add("a", title="Ay", cwd=W, updated_at="2026-07-04T09:00:00Z")
    builder.add("c", title="", cwd=W, updated_at="2026-07-04T11:00:00Z")
    app = picker_app(builder)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown_ids(pilot) == ["c", "a", "b"]
        rows = picker(pilot).session_list.visible_rows()
        assert rows[0].label == "11:00:00      untitled"
        assert rows[1].label == "09:00:00      Ay"
        assert status(pilot) == "3 shown"


async def test_scope_and_empty_run_toggles_state_what_is_hidden(
    scoped_store: StoreBuilder,
) -> None:
    app = picker_app(scoped_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown_ids(pilot) == ["here-new", "here-old"]
        assert status(pilot) == (
            "2 shown · 2 in other workspaces (Tab: all) · 1 empty run (ctrl+e: show) · "
            "1 sub-session not resumable"
        )

        await pilot.press("tab")
        await settle(pilot)
        assert shown_ids(pilot) == ["here-new", "there-1", "here-old", "there-2"]
        assert status(pilot).startswith("4 shown · all workspaces (Tab: this workspace)")
        assert picker(pilot).session_list.shown.show_workspace

        await pilot.press("ctrl+e")
        await settle(pilot)
        assert shown_ids(pilot) == ["here-new", "there-1", "here-empty", "here-old", "there-2"]
        assert "empty runs shown (ctrl+e: hide)" in status(pilot)

        await pilot.press("tab")
        await settle(pilot)
        assert shown_ids(pilot) == ["here-new", "here-empty", "here-old"]
        assert status(pilot).startswith("3 shown · 2 in other workspaces (Tab: all)")


async def test_all_flag_starts_with_every_workspace(scoped_store: StoreBuilder) -> None:
    app = picker_app(scoped_store, all_workspaces=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown_ids(pilot) == ["here-new", "there-1", "here-old", "there-2"]


async def test_no_sessions_here_points_at_tab(make_store: Callable[..., StoreBuilder]) -> None:
    builder = make_store()
    builder.add("far", title="Far away", cwd="/srv/other")
    app = picker_app(builder)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown_ids(pilot) == []
        session_list = picker(pilot).session_list
        assert session_list._empty_message == (
            "no sessions in this workspace · Tab shows 1 in other workspaces"
        )
        assert status(pilot) == "0 shown · 1 in other workspaces (Tab: all)"


async def test_empty_store_explains_where_sessions_come_from(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = make_store()
    app = picker_app(builder)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        empty = picker(pilot).query_one("#empty-state", Static)
        assert empty.display
        text = str(empty.visual)
        assert "No Zero sessions yet." in text
        assert str(builder.root) in text
        assert "run `zero` in a project" in text
        assert not picker(pilot).query_one("#picker-body").display


async def test_missing_store_root_is_an_empty_store(tmp_path: Path) -> None:
    root = tmp_path / "never-created"
    app = make_app(SessionStore(root), cwd=W, clock=fixed_clock())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = str(picker(pilot).query_one("#empty-state", Static).visual)
        assert "No Zero sessions yet." in text
        assert str(root) in text
    assert not root.exists()  # browsing never creates the store


async def test_unreadable_store_root_says_why(tmp_path: Path) -> None:
    root = tmp_path / "a-file"
    root.write_text("not a directory")
    app = make_app(SessionStore(root), cwd=W, clock=fixed_clock())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = str(picker(pilot).query_one("#empty-state", Static).visual)
        assert "The session store could not be read." in text
        assert "read zero session root" in text
        assert pilot.app.is_running


async def test_rescan_picks_up_new_sessions(make_store: Callable[..., StoreBuilder]) -> None:
    builder = make_store()
    app = picker_app(builder)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        builder.add("late", title="Arrived later", cwd=W)
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert shown_ids(pilot) == ["late"]
        assert picker(pilot).query_one("#picker-body").display


# --- typing and ranking ---------------------------------------------------------------------


@pytest.fixture
def ranked_store(make_store: Callable[..., StoreBuilder]) -> StoreBuilder:
    """One session per ranking tier for the query `parser`, newest first = worst tier first."""
    builder = make_store()
    builder.add("t1", title="Fix parsr bug", cwd=W, updated_at="2026-07-04T11:50:00Z")
    builder.add("t2", title="p_a_r_s_e_r thing", cwd=W, updated_at="2026-07-04T11:40:00Z")
    builder.add("parser-notes", title="zzz", cwd=W, updated_at="2026-07-04T11:30:00Z")
    builder.add("t4", title="Fix parser", cwd=W, updated_at="2026-07-04T11:20:00Z")
    builder.add("t5", title="Unrelated", cwd=W, updated_at="2026-07-04T11:10:00Z")
    return builder


async def test_typing_ranks_by_tier_and_highlights_the_title(ranked_store: StoreBuilder) -> None:
    app = picker_app(ranked_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert picker(pilot).query_one("#query").has_focus
        await type_text(pilot, "parser")
        # label contains < id (hay contains) < subsequence < typo; t5 is dropped.
        assert shown_ids(pilot) == ["t4", "parser-notes", "t2", "t1"]
        assert highlighted(pilot) == "t4"
        session_list = picker(pilot).session_list
        row = session_list.visible_rows()[0]
        positions = session_list.highlight_positions(0)
        assert "".join(row.label[p] for p in positions) == "parser"
        assert [session_list.highlight_positions(1)] == [()]
        typo_row = session_list.visible_rows()[3]
        typo_positions = session_list.highlight_positions(3)
        assert typo_positions
        assert all(p >= typo_row.title_offset for p in typo_positions)
        assert status(pilot) == "4 of 5 match"


async def test_typo_tier_alone(ranked_store: StoreBuilder) -> None:
    app = picker_app(ranked_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_text(pilot, "unrelatde")
        assert shown_ids(pilot) == ["t5"]
        rows = picker(pilot).session_list
        assert _tier_of(pilot, 0) == Tier.TYPO
        assert rows.highlight_positions(0)


async def test_a_typo_of_the_model_lists_its_sessions_and_says_why(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = make_store()
    sessions = (
        ("Fix the date parser test", "claude-sonnet-4-5"),
        ("Split the linter and the rest", "gpt-5"),
        ("Bump Node", "claude-sonnet-4-5"),
    )
    for number, (title, model) in enumerate(sessions):
        builder.add(
            f"s{number}",
            title=title,
            cwd=W,
            model_id=model,
            updated_at=f"2026-07-04T1{number}:00:00Z",
        )
    app = picker_app(builder)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_text(pilot, "snnet")
        assert shown_ids(pilot) == ["s2", "s0"]  # not the gpt-5 one, s..n..n..e..t apart
        session_list = picker(pilot).session_list
        for line in range(2):
            text = session_list.render_line(line).text
            assert "  ≈ sonnet (model)  " in text
            assert session_list.highlight_positions(line) == ()


def _tier_of(pilot: Pilot[Any], line: int) -> Tier:
    ranking = picker(pilot).body._last_ranking
    assert ranking is not None
    return ranking[line].tier


async def test_full_id_leaves_one_row_and_missing_shows_no_match(
    scoped_store: StoreBuilder,
) -> None:
    app = picker_app(scoped_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_text(pilot, "here-old")
        assert shown_ids(pilot) == ["here-old"]
        await clear_query(pilot)
        await type_text(pilot, "__missing_session__")
        assert shown_ids(pilot) == []
        assert picker(pilot).session_list._empty_message == "no matching items"
        assert status(pilot).startswith("0 of 2 match")
        # Enter on an empty list does nothing.
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(pilot.app.screen, PickerScreen)


async def test_backspace_restores_recency_order(ranked_store: StoreBuilder) -> None:
    app = picker_app(ranked_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "down", "down")
        await type_text(pilot, "x")
        assert picker(pilot).session_list.cursor == 0
        await clear_query(pilot)
        assert shown_ids(pilot) == ["t1", "t2", "parser-notes", "t4", "t5"]
        assert picker(pilot).session_list.cursor == 0


async def test_query_searches_workspace_in_all_scope(scoped_store: StoreBuilder) -> None:
    app = picker_app(scoped_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_text(pilot, "other")
        assert shown_ids(pilot) == []
        await pilot.press("tab")
        await settle(pilot)
        assert shown_ids(pilot) == ["there-1", "there-2"]


# --- moving ---------------------------------------------------------------------------------


async def test_keys_move_while_the_query_has_focus(make_store: Callable[..., StoreBuilder]) -> None:
    builder = make_store()
    for minute in range(25):
        builder.add(
            f"s{minute:02d}",
            title=f"Session {minute}",
            cwd=W,
            updated_at=f"2026-07-04T11:{59 - minute:02d}:00Z",
        )
    app = picker_app(builder)
    async with app.run_test(size=(120, 20)) as pilot:
        await settle(pilot)
        session_list = picker(pilot).session_list
        await pilot.press("down", "ctrl+n")
        assert highlighted(pilot) == "s02"
        await pilot.press("ctrl+p")
        assert highlighted(pilot) == "s01"
        await pilot.press("up", "up")
        assert highlighted(pilot) == "s24"  # wraps, as in Zero
        await pilot.press("down")
        assert highlighted(pilot) == "s00"
        await pilot.press("end")
        assert highlighted(pilot) == "s24"
        assert session_list.scroll_y > 0
        await pilot.press("home")
        assert highlighted(pilot) == "s00"
        assert session_list.scroll_y == 0
        await pilot.press("pagedown")
        assert session_list.cursor > 5
        await pilot.press("pageup")
        assert session_list.cursor == 0
        assert picker(pilot).query_one("#query").has_focus


async def test_mouse_wheel_and_clicks(scoped_store: StoreBuilder) -> None:
    app = picker_app(scoped_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        session_list = picker(pilot).session_list
        session_list.post_message(
            events.MouseScrollDown(session_list, 2, 0, 0, 1, 0, False, False, False)
        )
        await pilot.pause()
        assert highlighted(pilot) == "here-old"
        session_list.post_message(
            events.MouseScrollUp(session_list, 2, 0, 0, -1, 0, False, False, False)
        )
        await pilot.pause()
        assert highlighted(pilot) == "here-new"
        # A click on another row selects it, a click on the selected row opens it.
        await pilot.click(SessionList, offset=(5, 1))
        await settle(pilot)
        assert highlighted(pilot) == "here-old"
        assert isinstance(pilot.app.screen, PickerScreen)
        await pilot.click(SessionList, offset=(5, 1))
        await settle(pilot)
        assert isinstance(pilot.app.screen, TranscriptScreen)
        assert pilot.app.screen.session_id == "here-old"


async def test_the_row_under_the_mouse_is_hovered_until_the_mouse_leaves(
    scoped_store: StoreBuilder,
) -> None:
    app = picker_app(scoped_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        session_list = picker(pilot).session_list
        await pilot.hover(SessionList, offset=(5, 1))
        await settle(pilot)
        assert session_list.hover_line == 1
        assert session_list.mouse_hover
        await pilot.hover("#status")
        await settle(pilot)
        assert session_list.hover_line is None
        assert not session_list.mouse_hover  # Widget's own Leave handler ran too


# --- preview --------------------------------------------------------------------------------


async def test_preview_follows_the_highlight(scoped_store: StoreBuilder) -> None:
    app = picker_app(scoped_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = preview_text(pilot)
        assert "Fix parser" in text
        assert "here-new" in text
        assert "fix it" in text
        assert "done" in text
        await pilot.press("down")
        await settle(pilot)
        text = preview_text(pilot)
        assert "Write docs" in text
        assert "gpt-5" in text
        assert "write the docs" in text
        assert "docs written" in text
        assert "2026-07-03 09:00:00" in text


async def test_preview_shows_an_answer_s_markdown_as_plain_text(
    make_store: Callable[..., StoreBuilder],
) -> None:
    """Issue 25, item 21: `## Answer 17` reads `Answer 17` at a glance; prompts as typed."""
    builder = make_store()
    answer = "## Answer 17\n\nIt is **done**: see `main.py`.\n\n- first\n- second"
    builder.add(
        "md", title="Markdown", cwd=W, events=[user("a **typed** prompt"), assistant(answer)]
    )
    app = picker_app(builder)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = preview_text(pilot)
        assert "Answer 17\n\nIt is done: see main.py.\n\n• first\n• second" in text
        assert "##" not in text
        assert "a **typed** prompt" in text


async def test_preview_shows_markup_as_text(make_store: Callable[..., StoreBuilder]) -> None:
    builder = make_store()
    builder.add(
        "m1",
        title="[bold]title[/bold]",
        cwd=W,
        events=[user("[red]hi[/red]"), assistant("[link=x]y[/link] \x1b[2J done")],
    )
    app = picker_app(builder)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = preview_text(pilot)
        assert "[bold]title[/bold]" in text
        assert "[red]hi[/red]" in text
        assert "[link=x]y[/link]" in text
        assert "\x1b" not in text
        line = picker(pilot).session_list.render_line(0).text
        assert "[bold]title[/bold]" in line


async def test_preview_of_a_corrupt_log_says_why(make_store: Callable[..., StoreBuilder]) -> None:
    builder = make_store()
    builder.add("bad", title="Broken log", cwd=W, events=chat())
    events_file = builder.root / "bad" / "events.jsonl"
    events_file.write_bytes(events_file.read_bytes() + b"not json\n" + events_file.read_bytes())
    app = picker_app(builder)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown_ids(pilot) == ["bad"]  # fails open, as Zero does
        assert "invalid json in zero session bad" in preview_text(pilot)


# --- opening and quitting -------------------------------------------------------------------


async def test_enter_opens_escape_comes_back_and_only_ctrl_q_quits(
    scoped_store: StoreBuilder,
) -> None:
    app = picker_app(scoped_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, TranscriptScreen)
        assert screen.session_id == "here-old"
        await pilot.press("escape")
        await settle(pilot)
        picker = pilot.app.screen
        assert isinstance(picker, PickerScreen)
        await pilot.press("escape")  # Esc, Esc by reflex: the app stays
        await pilot.pause()
        assert app.is_running
        assert "ctrl+q quits zero-tui" in [note.message for note in app._notifications]
        await pilot.press(*"here")
        await settle(pilot)
        await pilot.press("escape")  # clears the query
        await settle(pilot)
        assert picker.composer.text_value == ""
        assert app.is_running
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code == 0
    assert not app.is_running


@pytest.mark.parametrize("query", ["", "here"])
async def test_a_line_feed_opens_as_enter_does(scoped_store: StoreBuilder, query: str) -> None:
    """ctrl+j is the line feed an Enter typed before the app had the terminal became."""
    app = picker_app(scoped_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        if query:
            await type_text(pilot, query)
        highlighted_id = highlighted(pilot)
        await pilot.press("ctrl+j")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, TranscriptScreen)
        assert screen.session_id == highlighted_id


async def test_ctrl_q_quits_from_a_pushed_screen(scoped_store: StoreBuilder) -> None:
    app = picker_app(scoped_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(pilot.app.screen, TranscriptScreen)
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert not app.is_running


async def test_palette_is_on_f1_and_lists_picker_actions(scoped_store: StoreBuilder) -> None:
    app = picker_app(scoped_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        names = [command.title for command in app.get_system_commands(pilot.app.screen)]
        assert "Sessions: all workspaces" in names
        assert "Sessions: show empty runs" in names
        await pilot.press("f1")
        await pilot.pause()
        assert pilot.app.screen.__class__.__name__ == "CommandPalette"


# --- --resume -------------------------------------------------------------------------------


async def test_resume_latest_takes_the_picker_filters(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = make_store()
    builder.add(
        "ok1",
        title="Ok",
        cwd="/w",
        events=[assistant("new answer")],
        updated_at="2026-07-04T08:00:00Z",
    )
    builder.add("new3", cwd="/w", events=[user("x")], updated_at="2026-07-04T09:00:00Z")
    builder.add("new2", cwd="/other", updated_at="2026-07-04T10:00:00Z")
    builder.add("new1", cwd="/w", session_kind="child", updated_at="2026-07-04T11:00:00Z")
    for argument in ("latest", "LATEST"):
        app = picker_app(builder, cwd="/w", resume=argument)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            screen = pilot.app.screen
            assert isinstance(screen, TranscriptScreen)
            assert screen.session_id == "ok1"


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("zero_123", "zero session not found: zero_123"),
        ("a:b", 'invalid zero session id "a:b"'),
        ("latest", "no zero sessions available to resume"),
        ("[/]", 'invalid zero session id "[/]"'),  # markup in a notification is shown
        ("[bogus]", 'invalid zero session id "[bogus]"'),
    ],
)
async def test_resume_messages_leave_the_picker_usable(
    make_store: Callable[..., StoreBuilder], argument: str, message: str
) -> None:
    builder = make_store()
    builder.add("c1", cwd="/w", session_kind="child")
    app = picker_app(builder, cwd="/w", resume=argument)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        assert isinstance(pilot.app.screen, PickerScreen)
        notes = [(note.title, note.message) for note in pilot.app._notifications]
        assert notes == [("Sessions", message)]
        await pilot.pause()
        (toast,) = pilot.app.screen.query("Toast")
        assert message in str(toast.render())  # drawn literally (markup would raise here)
        assert picker(pilot).query_one("#query").has_focus


async def test_resume_explicit_id_bypasses_filters(make_store: Callable[..., StoreBuilder]) -> None:
    builder = make_store()
    builder.add("x1", cwd="repo", events=[])
    app = picker_app(builder, cwd="/w", resume="x1")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, TranscriptScreen)
        assert screen.session_id == "x1"


# --- packaging ------------------------------------------------------------------------------


def test_every_stylesheet_exists() -> None:
    for path in css_paths():
        assert path.is_file(), path
    assert [Path(path) for path in ZeroApp.CSS_PATH] == css_paths()


async def test_stylesheets_parse(make_store: Callable[..., StoreBuilder]) -> None:
    app = picker_app(make_store())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert pilot.app.screen.query_one("#status")


async def test_preview_catches_up_with_a_fast_moving_highlight(
    scoped_store: StoreBuilder,
) -> None:
    app = picker_app(scoped_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "up", "down")
        await settle(pilot)
        assert highlighted(pilot) == "here-old"
        assert "Write docs" in preview_text(pilot)


# --- the remembered first screen and the catalog --------------------------------------------


def cache_files(directory: Path) -> list[Path]:
    """The cache's files (not sqlite's own -wal/-shm, which come and go with connections)."""
    return sorted(path for path in directory.iterdir() if not path.name.endswith(("-wal", "-shm")))


async def test_a_second_start_revalidates_remembered_rows(
    make_store: Callable[..., StoreBuilder], private_cache_dir: Path
) -> None:
    builder = make_store()
    builder.add("keep", title="Kept", cwd=W, updated_at="2026-07-04T10:00:00Z")
    builder.add("gone", title="Deleted later", cwd=W, updated_at="2026-07-04T11:00:00Z")
    async with picker_app(builder).run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown_ids(pilot) == ["gone", "keep"]
    assert [path.name for path in cache_files(private_cache_dir) if path.name.startswith("picker")]

    shutil.rmtree(builder.root / "gone")
    builder.add("new", title="Added later", cwd=W, updated_at="2026-07-04T11:30:00Z")
    async with picker_app(builder).run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown_ids(pilot) == ["new", "keep"]
        assert status(pilot) == "2 shown"


async def test_the_remembered_rows_are_painted_before_the_store_is_watched(
    make_store: Callable[..., StoreBuilder],
    private_cache_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The watcher's child process starts with the scan, after the first rows are painted."""
    builder = make_store()
    builder.add("keep", title="Kept", cwd=W, updated_at="2026-07-04T10:00:00Z")
    async with picker_app(builder).run_test(size=SIZE) as pilot:
        await settle(pilot)  # the first screen remembered
    rows_when_watched: list[list[str]] = []
    start_watching = StoreFeed._start_watching

    def watched(feed: StoreFeed) -> None:
        lists = feed.screen.query(SessionList)
        rows = lists.first().visible_rows() if lists else []
        rows_when_watched.append([row.session_id for row in rows])
        start_watching(feed)

    monkeypatch.setattr(StoreFeed, "_start_watching", watched)
    async with picker_app(builder).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+r")  # a scan again: the watcher is not started twice
        await settle(pilot)
    assert rows_when_watched == [["keep"]]


async def test_a_damaged_cache_is_ignored_and_rebuilt(
    make_store: Callable[..., StoreBuilder], private_cache_dir: Path
) -> None:
    builder = make_store()
    builder.add("one", title="One", cwd=W)
    async with picker_app(builder).run_test(size=SIZE) as pilot:
        await settle(pilot)
    written = cache_files(private_cache_dir)
    assert written
    for path in written:
        path.write_bytes(b"\x00not json")
    async with picker_app(builder).run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown_ids(pilot) == ["one"]
    for path in written:
        assert path.read_bytes() != b"\x00not json"


async def test_unreadable_sessions_are_counted_and_listed_with_the_reason(
    make_store: Callable[..., StoreBuilder],
) -> None:
    # issue 9, fault 10: a session whose metadata cannot be read no longer vanishes
    builder = make_store()
    builder.add("good", cwd=W)
    root = Path(builder.store.root)
    for name, content in (("garbage", b"{not json"), ("empty", b"")):
        (root / name).mkdir()
        (root / name / "metadata.json").write_bytes(content)
    app = picker_app(builder)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown_ids(pilot) == ["good"]
        assert status(pilot) == "1 shown · 2 unreadable (zero-tui check)"
        await pilot.press("ctrl+g")
        await settle(pilot)
        shown = str(pilot.app.screen.query_one("#unreadable-text", Static).visual)
        assert "garbage\n    invalid zero session metadata garbage:" in shown
        assert "empty\n    invalid zero session metadata empty:" in shown
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(pilot.app.screen, PickerScreen)


async def test_the_unreadable_key_is_offered_only_when_some_are(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = make_store()
    builder.add("good", cwd=W)
    app = picker_app(builder)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert picker(pilot).check_action("unreadable", ()) is False
        await pilot.press("ctrl+g")
        await settle(pilot)
        assert isinstance(pilot.app.screen, PickerScreen)


async def test_a_slash_query_that_names_no_command_is_searched_as_text(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = make_store()
    builder.add("api", title="Fix /api/health timeouts", cwd=W, updated_at="2026-07-04T11:00:00Z")
    builder.add("docs", title="Write docs", cwd=W, updated_at="2026-07-04T10:00:00Z")
    app = picker_app(builder)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        picker = pilot.app.screen
        assert isinstance(picker, PickerScreen)
        await pilot.press(*"/api/health")
        await settle(pilot)
        assert not picker.command_mode
        assert [row.session_id for row in picker.session_list.visible_rows()] == ["api"]
        await pilot.press("enter")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, TranscriptScreen)
        assert screen.session_id == "api"


def test_what_starts_a_command() -> None:
    from zero_tui.commands import REGISTRY

    for text in ("/", "/ex", "/export x.md", "/HELP", "/q", "/ ", "/nope"):
        assert REGISTRY.starts_a_command(text), text
    for text in ("/api/health", "/tmp/x.md", "/v1.2", "docs", ""):
        assert not REGISTRY.starts_a_command(text), text


async def test_ctrl_r_says_what_the_rescan_found(make_store: Callable[..., StoreBuilder]) -> None:
    builder = make_store()
    builder.add("one", title="First", cwd=W, updated_at="2026-07-04T10:00:00Z")
    builder.add("two", title="Second", cwd=W, updated_at="2026-07-04T09:00:00Z")
    builder.add("old", title="Old", cwd=W, updated_at="2026-07-04T08:00:00Z")
    app = picker_app(builder)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await stop_watcher(pilot)  # what ctrl+r finds, not what the watcher would
        builder.add("three", title="Third", cwd=W, updated_at="2026-07-04T11:00:00Z")
        builder.add("four", title="Fourth", cwd=W, updated_at="2026-07-04T11:30:00Z")
        builder.store.update_title("two", "Second, renamed")
        shutil.rmtree(builder.store.session_dir("old"))
        await pilot.press("ctrl+r")
        await settle(pilot)
        notes = [note.message for note in app._notifications]
        assert "4 shown · 2 new · 1 changed · 1 removed · 4 sessions in the store" in notes
        await pilot.press("ctrl+r")
        await settle(pilot)
        notes = [note.message for note in app._notifications]
        assert "4 shown · no change · 4 sessions in the store" in notes


def test_rescan_summary() -> None:
    from zero_tui.picker.session_rows import PickerRow, rescan_summary

    def row(
        session_id: str, events: int = 2, updated_at: str = "2026-07-04T10:00:00Z"
    ) -> PickerRow:
        return PickerRow(
            session_id, session_id, "10:00", session_id, "", "", events, False, "/w", updated_at
        )

    before = [row("a"), row("b"), row("c")]
    after = [row("b", events=4, updated_at="2026-07-04T11:00:00Z"), row("c"), row("d"), row("e")]
    assert rescan_summary(before, after, 40) == (
        "4 shown · 2 new · 1 changed · 1 removed · 40 sessions in the store"
    )
    # the time label alone moves with the clock: not a change
    relabelled = [
        PickerRow("c", "c", "Jul 04 10:00", "c", "", "", 2, False, "/w", "2026-07-04T10:00:00Z")
    ]
    assert (
        rescan_summary([row("c")], relabelled, 1) == "1 shown · no change · 1 session in the store"
    )
    assert rescan_summary([], [], 1) == "0 shown · no change · 1 session in the store"


async def test_a_failed_screenshot_says_where_and_why(
    make_store: Callable[..., StoreBuilder], tmp_path: Path
) -> None:
    app = picker_app(make_store())
    missing = tmp_path / "no-Downloads-here"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.deliver_screenshot("shot.svg", str(missing))

        def said() -> list[str]:
            return [note.message for note in app._notifications]

        await wait_until(pilot, lambda: any("screenshot" in note.lower() for note in said()))
        notes = said()
        failed = [note for note in notes if note.startswith("Failed to save the screenshot: ")]
        assert len(failed) == 1
        assert str(missing) in failed[0]
        assert "Failed to save screenshot" not in notes  # Textual's note without a reason


async def test_a_rename_shows_everywhere_at_once(scoped_store: StoreBuilder) -> None:
    app = picker_app(scoped_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        picker = pilot.app.screen
        assert isinstance(picker, PickerScreen)
        await pilot.press("down", "enter")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, TranscriptScreen)
        await pilot.press(*"/rename Brand new name", "enter")
        await settle(pilot)
        title = screen.query_one("#transcript-title", Static)
        assert str(title.render()) == "Brand new name"
        await pilot.press("tab", "home", "enter")  # the resume card, unfolded
        await pilot.pause()
        view = screen.view
        card = "\n".join(view.render_line(y).text for y in range(view.size.height))
        assert "title: Brand new name" in card
        await pilot.press("tab")
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(pilot.app.screen, PickerScreen)
        titles = [row.title for row in pilot.app.screen.session_list.visible_rows()]
        assert "Brand new name" in titles  # no ctrl+r needed
        assert "Brand new name" in picker.query_one(SessionPreview).text


async def test_a_specialist_card_opens_its_child_read_only(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = make_store()
    builder.add(
        "child-1",
        title="explorer",
        cwd=W,
        session_kind="child",
        events=[user("map the repo"), assistant("the repo has three packages")],
    )
    start = {
        "childSessionId": "child-1",
        "toolCallId": "task-1",
        "specialist": "explorer",
        "status": "running",
    }
    builder.add(
        "parent",
        title="Parent",
        cwd=W,
        events=[
            user("explore"),
            ("specialist_start", start),
            ("specialist_stop", {**start, "status": "success"}),
            assistant("done exploring"),
        ],
    )
    app = picker_app(builder, resume="parent")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        parent = pilot.app.screen
        assert isinstance(parent, TranscriptScreen)
        assert parent.session_id == "parent"
        await pilot.press("tab", "up")  # to the rows; the card is the row above the answer
        row = parent.view.row_at(parent.view.cursor) if parent.view.cursor is not None else None
        assert row is not None
        assert row.specialist is not None
        await pilot.press("enter")
        await settle(pilot)
        child = pilot.app.screen
        assert isinstance(child, TranscriptScreen)
        assert child.session_id == "child-1"
        note = str(child.query_one("#transcript-note", Static).render())
        assert "Read-only" in note
        assert "cannot be continued" in note
        await pilot.press("escape")
        await settle(pilot)
        assert pilot.app.screen is parent  # Esc comes back to the parent

        await pilot.press("tab")  # back to the editor
        await pilot.press(*"/resume child-1", "enter")  # not 'not resumable': read-only
        await settle(pilot)
        reopened = pilot.app.screen
        assert isinstance(reopened, TranscriptScreen)
        assert reopened.session_id == "child-1"
        assert "Read-only" in str(reopened.query_one("#transcript-note", Static).render())


async def test_started_in_a_subfolder_the_picker_names_the_enclosing_folders(
    make_store: Callable[..., StoreBuilder], tmp_path: Path
) -> None:
    project = tmp_path / "webapp"
    (project / "src").mkdir(parents=True)
    builder = make_store()
    builder.add("one", title="First", cwd=str(project), updated_at="2026-07-04T10:00:00Z")
    builder.add("two", title="Second", cwd=str(project), updated_at="2026-07-04T09:00:00Z")
    builder.add("top", title="Top", cwd=str(tmp_path), updated_at="2026-07-04T08:00:00Z")
    app = picker_app(builder, cwd=str(project / "src"))
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot)
        screen = picker(pilot)
        status = str(screen.query_one("#status", Static).render())
        assert status.startswith(
            f"0 shown · in enclosing folders: {project} (2), {tmp_path} (1) (alt+up: go there)"
        )
        await pilot.press("alt+up")
        await settle(pilot)
        assert screen.workspace == str(project)
        assert [row.session_id for row in screen.session_list.visible_rows()] == ["one", "two"]
        assert str(project) in str(screen.query_one("#picker-title", Static).render())


def test_enclosing_workspaces_counts_what_the_picker_would_show_there() -> None:
    from zero_tui.store import Metadata
    from zero_tui.store.resumable import enclosing_workspaces

    def meta(session_id: str, cwd: str, kind: str = "", events: int = 2) -> Metadata:
        return Metadata(session_id=session_id, cwd=cwd, session_kind=kind, event_count=events)

    sessions = [
        meta("a", "/w/app"),
        meta("b", "/w/app/"),
        meta("c", "/w"),
        meta("child", "/w", kind="child"),
        meta("empty", "/w", events=0),
        meta("here", "/w/app/src"),
        meta("sibling", "/w/apples"),
        meta("relative", "w"),
    ]
    found = enclosing_workspaces(sessions, "/w/app/src", lambda _id: True)
    assert found == [("/w/app", 2), ("/w", 1)]
    assert enclosing_workspaces(sessions, "/w/app/src", lambda _id: False) == []
    assert enclosing_workspaces(sessions, "relative/dir", lambda _id: True) == []


async def test_a_cold_start_shows_the_newest_sessions_before_reading_every_one(
    make_store: Callable[..., StoreBuilder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing remembered: a first screen of the newest sessions (by their files' times)
    comes before the whole store has been read, and the full scan then replaces it."""
    from zero_tui.picker import loader
    from zero_tui.ui import messages

    builder = make_store()
    count = loader.FIRST_SCREEN_ROWS + 40
    for number in range(count):
        stamp = f"2026-07-04T10:{number // 60:02}:{number % 60:02}Z"
        builder.add(f"s{number:03}", title=f"Session {number}", cwd=W, updated_at=stamp)
    seen: list[tuple[bool, list[str]]] = []
    original = PickerScreen.on_scan_stage

    def record(self: PickerScreen, message: messages.ScanStage) -> None:
        stage = message.stage
        rows = stage.scope if isinstance(stage, loader.RememberedRows) else stage
        if isinstance(rows, loader.ScopeLoaded) and rows.key == (False, False):
            seen.append((rows.complete, [row.session_id for row in rows.rows]))
        original(self, message)

    monkeypatch.setattr(PickerScreen, "on_scan_stage", record)
    newest_first = [f"s{number:03}" for number in reversed(range(count))]
    async with picker_app(builder).run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown_ids(pilot)[:3] == newest_first[:3]
    first_complete, first_rows = seen[0]
    assert not first_complete
    assert loader.FIRST_SCREEN_ROWS <= len(first_rows) < count
    assert first_rows == newest_first[: len(first_rows)]
    assert seen[-1] == (True, newest_first)
