"""A keystroke redraws what it changed, and nothing else (issue 26): counted on what Textual
did — footer recomposes, `FooterKey`s made, layouts of the screen, full redraws of the
list — never on time."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from conftest import StoreBuilder, chat, fixed_clock, settle, spy, wait_until
from test_app_picker import picker
from textual import events
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.pilot import Pilot
from textual.screen import Screen
from textual.scrollbar import ScrollBar
from textual.widget import Widget
from textual.widgets._footer import FooterKey

from zero_tui.picker import scopes
from zero_tui.picker.content_search import StoresContentSearch
from zero_tui.picker.scopes import RowRanker
from zero_tui.picker.session_rows import PickerRow
from zero_tui.ui.app import ZeroApp, make_app
from zero_tui.ui.screens.picker import PickerScreen
from zero_tui.ui.screens.transcript import TranscriptScreen
from zero_tui.ui.widgets import picker_body
from zero_tui.ui.widgets.picker_body import PickerBody
from zero_tui.ui.widgets.preview import SessionPreview
from zero_tui.ui.widgets.session_list import SessionList
from zero_tui.ui.widgets.steady_footer import SteadyFooter

W = "/home/u/proj"
SIZE = (120, 36)


@pytest.fixture
def done(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """What Textual did, counted: `recompose` (the footer), `footer_key` (FooterKeys
    made), `layout` (the screen laid out), `list_redrawn` (the whole session list)."""
    counts: Counter[str] = Counter()

    def counting(cls: type, name: str, label: str) -> None:
        original = getattr(cls, name)

        def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
            counts[label] += 1
            return original(self, *args, **kwargs)

        monkeypatch.setattr(cls, name, counted)

    counting(SteadyFooter, "recompose", "recompose")
    counting(FooterKey, "__init__", "footer_key")
    counting(Screen, "_refresh_layout", "layout")
    refresh = SessionList.refresh

    def list_refresh(self: SessionList, *regions: Region, **kwargs: Any) -> Any:
        if not regions:
            counts["list_redrawn"] += 1
        return refresh(self, *regions, **kwargs)

    monkeypatch.setattr(SessionList, "refresh", list_refresh)
    return counts


def picker_app(make_store: Callable[..., StoreBuilder]) -> ZeroApp:
    """The picker over three sessions, two of them starting with "fi"."""
    builder = make_store()
    builder.add("s-fix", title="Fix parser", cwd=W, updated_at="2026-07-04T11:00:00Z")
    builder.add("s-fin", title="Find the leak", cwd=W, updated_at="2026-07-03T11:00:00Z")
    builder.add("s-doc", title="Write docs", cwd=W, updated_at="2026-07-02T11:00:00Z")
    return make_app(builder.store, cwd=W, clock=fixed_clock())


async def type_keys(pilot: Pilot[Any], keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


def footer_keys(pilot: Pilot[Any]) -> list[str]:
    """The keys the footer shows (the ones not offered now are hidden)."""
    return [str(key.description) for key in pilot.app.screen.query(FooterKey) if key.display]


async def test_a_query_key_neither_recomposes_the_footer_nor_lays_out_the_screen(
    make_store: Callable[..., StoreBuilder], done: Counter[str]
) -> None:
    app = picker_app(make_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, PickerScreen)
        await type_keys(pilot, "f")  # the first character: Esc clears now (the footer says so)
        assert "Clear" in footer_keys(pilot)
        done.clear()
        await type_keys(pilot, "ix")
        await pilot.press("backspace", "backspace")
        await settle(pilot)
        assert app.screen.query_one("#query").value == "f"  # type: ignore[attr-defined]
        assert done["recompose"] == 0
        assert done["footer_key"] == 0
        assert done["layout"] == 0


async def test_a_query_key_never_spells_out_the_rows(
    make_store: Callable[..., StoreBuilder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ranking worker gets the rows: Textual describes a worker by the repr of its
    arguments unless it is given a description (every row, at every key)."""
    spelled: list[str] = []

    def spell(row: PickerRow) -> str:
        spelled.append(row.session_id)
        return row.session_id

    monkeypatch.setattr(PickerRow, "__repr__", spell)
    app = picker_app(make_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_keys(pilot, "fi")
        await pilot.press("ctrl+t")
        await type_keys(pilot, "x")
        await settle(pilot)
    assert spelled == []


async def test_moving_the_highlight_redraws_two_rows_not_the_list(
    make_store: Callable[..., StoreBuilder], done: Counter[str]
) -> None:
    app = picker_app(make_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        done.clear()
        screen = picker(pilot)
        for key in ("down", "down", "up"):
            await pilot.press(key)
            await settle(pilot)
        row = screen.session_list.highlighted_row
        assert row is not None
        assert row.session_id == "s-fin"
        assert done["list_redrawn"] == 0
        assert done["recompose"] == 0


async def test_the_footer_follows_the_keys_when_they_do_change(
    make_store: Callable[..., StoreBuilder],
) -> None:
    """A query that leaves no row takes the row's keys out of the footer; deleting it
    brings them back (the footer is no longer redrawn at every key to catch this)."""
    app = picker_app(make_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "Delete" in footer_keys(pilot)
        await type_keys(pilot, "zzq")
        await settle(pilot)
        assert "Delete" not in footer_keys(pilot)
        assert "Clear" in footer_keys(pilot)
        for _ in range(3):
            await pilot.press("backspace")
        await settle(pilot)
        assert "Delete" in footer_keys(pilot)
        assert "Clear" not in footer_keys(pilot)


async def test_keys_coming_and_going_neither_recompose_the_footer_nor_make_keys(
    make_store: Callable[..., StoreBuilder], done: Counter[str]
) -> None:
    """The first query key offers Esc, a query matching nothing takes the row's keys away:
    the footer hides and shows the keys it made, in place."""
    app = picker_app(make_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "Clear" not in footer_keys(pilot)
        done.clear()
        await type_keys(pilot, "f")
        assert "Clear" in footer_keys(pilot)
        await type_keys(pilot, "zq")
        assert "Delete" not in footer_keys(pilot)
        for _ in range(3):
            await pilot.press("backspace")
        await settle(pilot)
        assert "Delete" in footer_keys(pilot)
        assert "Clear" not in footer_keys(pilot)
        assert done["recompose"] == 0
        assert done["footer_key"] == 0


async def test_the_footers_keys_mount_styled_as_they_stay(
    make_store: Callable[..., StoreBuilder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key made compact, then told it is not (as `Footer.compose` makes them), or made
    shown, then hidden, is styled again after it mounts, its two parts with it: the
    footer makes each key as it is to be shown (the picker's start). A key shown once the
    rows come is a change of what is offered, and allowed."""
    restyled: list[tuple[str, str]] = []
    set_class = FooterKey.set_class

    def watched(self: FooterKey, add: bool, *names: str, update: bool = True) -> FooterKey:
        for name in names:
            changes = self.is_mounted and (name in self.classes) != add
            if changes and (name == "-compact" or (name == "-unavailable" and add)):
                restyled.append((str(self.description), name))
        return set_class(self, add, *names, update=update)

    monkeypatch.setattr(FooterKey, "set_class", watched)
    app = picker_app(make_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        footer = app.screen.query_one(SteadyFooter)
        keys = [key for key in footer.query(FooterKey) if "-command-palette" not in key.classes]
        assert "Delete" in footer_keys(pilot)
        assert "Clear" not in footer_keys(pilot)  # made hidden: no query yet
        assert all(key.compact == footer.compact for key in keys)
        assert all(key.has_class("-compact") == footer.compact for key in keys)
        assert restyled == []


async def test_opening_a_transcript_makes_its_footers_keys_once(
    make_store: Callable[..., StoreBuilder], done: Counter[str]
) -> None:
    """A screen's bindings change several times as it opens (the focus lands on one widget,
    then on the prompt): its footer makes one set of keys, for the bindings it settles on
    — not one per change (it made six sets of 14 keys per transcript opened)."""
    app = picker_app(make_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        done.clear()
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TranscriptScreen))
        await settle(pilot)
        footer = app.screen.query_one(SteadyFooter)
        made = list(footer.query(FooterKey))
        assert footer.possible_keys(app.screen) == footer._layout
        assert done["recompose"] == 1
        assert done["footer_key"] == len(made)
        assert "Back" in footer_keys(pilot)


async def test_keys_that_move_the_focus_while_the_footer_recomposes_are_shown_after(
    make_store: Callable[..., StoreBuilder],
) -> None:
    """Tab pressed as the transcript opens, and again, before its footer's keys are made:
    the footer ends showing what the bindings offer then, as Textual's `Footer` would."""
    app = picker_app(make_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter", "tab", "tab", "tab")
        await wait_until(pilot, lambda: isinstance(app.screen, TranscriptScreen))
        await settle(pilot)
        footer = app.screen.query_one(SteadyFooter)
        offered = footer.footer_shows(app.screen.active_bindings)
        assert footer_keys(pilot) == [str(binding.description) for binding in offered]


async def test_a_focus_moved_while_the_footers_keys_mount_is_shown_after(
    make_store: Callable[..., StoreBuilder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bindings change while the footer's keys are being made (a key handled as they
    mount): the footer looks again once they are, and shows what is offered then."""
    recompose = SteadyFooter.recompose
    moved: list[str] = []

    async def recompose_and_move(self: SteadyFooter) -> None:
        await recompose(self)
        if isinstance(self.screen, TranscriptScreen) and not moved:
            moved.append(type(self.screen.focused).__name__)
            self.screen.focus_next()

    monkeypatch.setattr(SteadyFooter, "recompose", recompose_and_move)
    app = picker_app(make_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TranscriptScreen))
        await settle(pilot)
        assert moved
        assert type(app.screen.focused).__name__ != moved[0]  # the focus did move
        footer = app.screen.query_one(SteadyFooter)
        offered = footer.footer_shows(app.screen.active_bindings)
        assert footer_keys(pilot) == [str(binding.description) for binding in offered]


async def test_a_composer_key_neither_recomposes_the_footer_nor_lays_out_the_screen(
    make_store: Callable[..., StoreBuilder], done: Counter[str]
) -> None:
    builder = make_store("data/zero/sessions")
    builder.add("s1", title="A chat", cwd=W, events=chat())
    app = make_app(builder.store, cwd=W, resume="s1", clock=fixed_clock())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        await type_keys(pilot, "h")
        done.clear()
        await type_keys(pilot, "ello")
        await pilot.press("backspace")
        await settle(pilot)
        assert app.screen.composer.text == "hell"
        assert done["recompose"] == 0
        assert done["footer_key"] == 0
        assert done["layout"] == 0


async def test_moving_the_highlight_shows_its_preview_without_laying_out_the_screen(
    make_store: Callable[..., StoreBuilder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The preview is a line-API view: a new session's text is drawn in it, nothing in it
    asks for a layout of the screen (its height changes the preview's scrollbar alone)."""
    app = picker_app(make_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = picker(pilot)
        preview = screen.query_one(SessionPreview)
        assert "Fix parser" in preview.text
        refreshes = spy(monkeypatch, Widget, "refresh")
        for key in ("down", "down"):
            await pilot.press(key)
            await settle(pilot)
        assert "Write docs" in preview.text
        laid_out = [
            args[0]
            for args, kwargs in refreshes
            if kwargs.get("layout") and preview in (args[0], *args[0].ancestors)
        ]
        assert laid_out == []


async def test_a_preview_longer_than_the_pane_beside_a_short_one_lays_nothing_out(
    make_store: Callable[..., StoreBuilder], done: Counter[str]
) -> None:
    """The preview's scrollbar keeps its place, its track the pane's colour: a session
    whose preview scrolls beside one whose preview fits moves the thumb alone, where a
    scrollbar that came and went laid out the screen at every ↓."""
    builder = make_store()
    answer = "\n".join(f"step {n}" for n in range(12))
    builder.add("s-long", title="Long one", cwd=W, events=chat("why?", answer) * 4)
    builder.add("s-short", title="Short one", cwd=W, updated_at="2026-07-03T11:00:00Z")
    app = make_app(builder.store, cwd=W, clock=fixed_clock())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        preview = picker(pilot).query_one(SessionPreview)
        assert "Long one" in preview.text
        assert preview.max_scroll_y > 0
        done.clear()
        for key in ("down", "up", "down"):
            await pilot.press(key)
            await settle(pilot)
        assert "Short one" in preview.text
        assert preview.max_scroll_y == 0
        assert done["layout"] == 0


async def test_previews_that_fit_leave_the_scrollbar_undrawn(
    make_store: Callable[..., StoreBuilder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three short previews of different heights: the scrollbar beside them has no thumb
    before or after a move, and is not drawn again (its new length changes nothing)."""
    builder = make_store()
    for number, exchanges in enumerate((1, 3, 2)):
        moment = f"2026-07-0{4 - number}T11:00:00Z"
        builder.add(
            f"s{number}",
            title=f"Short {number}",
            cwd=W,
            updated_at=moment,
            events=chat() * exchanges,
        )
    app = make_app(builder.store, cwd=W, clock=fixed_clock())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        preview = picker(pilot).query_one(SessionPreview)
        heights = {preview.virtual_size.height}
        drawn = spy(monkeypatch, ScrollBar, "render")
        for key in ("down", "down", "up"):
            await pilot.press(key)
            await settle(pilot)
            heights.add(preview.virtual_size.height)
        assert "Short 1" in preview.text
        assert len(heights) == 3
        assert max(heights) < preview.size.height
        assert [args[0] for args, _ in drawn if args[0].parent is preview] == []


async def test_a_query_that_leaves_fewer_rows_redraws_the_lines_it_changed_alone(
    make_store: Callable[..., StoreBuilder], done: Counter[str]
) -> None:
    """Three rows become two: the list's height changes, and only the lines whose row
    changed are drawn again (the first row stays, and with it its line)."""
    app = picker_app(make_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = picker(pilot)
        done.clear()
        await type_keys(pilot, "fi")
        assert [row.session_id for row in screen.session_list.visible_rows()] == [
            "s-fix",
            "s-fin",
        ]
        assert done["list_redrawn"] == 0


async def test_another_preview_redraws_the_lines_that_differ_alone(
    make_store: Callable[..., StoreBuilder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two sessions' previews share most of their lines' places (the fields' names, the
    blank end of the pane): moving between them redraws the lines that differ, never
    the whole pane."""
    app = picker_app(make_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = picker(pilot)
        preview = screen.query_one(SessionPreview)
        refreshes = spy(monkeypatch, SessionPreview, "refresh")
        lines = spy(monkeypatch, SessionPreview, "refresh_line")
        await pilot.press("down")
        await settle(pilot)
        assert "Find the leak" in preview.text
        assert [args for args, _ in refreshes if len(args) == 1] == []  # no region: all
        assert 0 < len(lines) < preview.size.height // 2


async def test_a_row_read_before_shows_its_preview_without_reading_it_again(
    make_store: Callable[..., StoreBuilder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Back and forth between two rows: each session's preview is read once; a change to
    the session on disk reads it again."""
    loads = spy(monkeypatch, picker_body, "load_preview")
    app = picker_app(make_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = picker(pilot)
        for key in ("down", "up", "down", "up", "down"):
            await pilot.press(key)
            await settle(pilot)
        assert "Find the leak" in screen.query_one(SessionPreview).text
        assert [args[1] for args, _ in loads] == ["s-fix", "s-fin"]
        screen.body.forget_preview(["s-fix"])
        await pilot.press("up")
        await settle(pilot)
        assert [args[1] for args, _ in loads] == ["s-fix", "s-fin", "s-fix"]


def rows(*titles: str) -> list[PickerRow]:
    return [
        PickerRow(
            session_id=f"s{index}",
            label=f"11:00:00  {title}",
            when="11:00:00",
            title=title,
            model="gpt-5",
            provider="openai",
            event_count=2,
            is_fork=False,
            workspace=W,
        )
        for index, title in enumerate(titles)
    ]


class ListApp(App[None]):
    def compose(self) -> ComposeResult:
        yield SessionList()


async def test_new_ranking_redraws_only_the_lines_that_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A new order that leaves rows on their lines redraws the others alone, not the list."""
    app = ListApp()
    async with app.run_test(size=(80, 10)) as pilot:
        session_list = app.query_one(SessionList)
        shown = rows("alpha", "beta", "gamma", "delta")
        session_list.set_rows(shown, show_workspace=False)
        await pilot.pause()
        lines: list[int] = []
        whole: list[bool] = []
        refresh_line = SessionList.refresh_line
        refresh = SessionList.refresh

        def counted_line(self: SessionList, y: int) -> None:
            lines.append(y)
            refresh_line(self, y)

        def counted_refresh(self: SessionList, *regions: Region, **kwargs: Any) -> Any:
            if not regions:
                whole.append(True)
            return refresh(self, *regions, **kwargs)

        monkeypatch.setattr(SessionList, "refresh_line", counted_line)
        monkeypatch.setattr(SessionList, "refresh", counted_refresh)
        session_list.set_rows(shown, [0, 2, 1, 3], show_workspace=False)  # beta, gamma swap
        await pilot.pause()
        assert sorted(set(lines)) == [0, 1, 2]  # the two swapped, and the cursor's row
        assert whole == []
        assert [row.title for row in session_list.visible_rows()] == [
            "alpha",
            "gamma",
            "beta",
            "delta",
        ]


async def test_fewer_rows_under_the_scrollbar_tell_it_without_a_layout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Fewer rows that still overflow the list: the scrollbar gets their number and the
    view stays within them, with no layout of the screen; rows that fit keep the
    scrollbar's column (a track with no thumb), again with no layout, and more rows than
    fit bring its thumb back the same way."""
    app = ListApp()
    async with app.run_test(size=(80, 10)) as pilot:
        session_list = app.query_one(SessionList)
        many = rows(*(f"title {index}" for index in range(40)))
        session_list.set_rows(many, show_workspace=False)
        await pilot.pause()
        session_list.last()
        await pilot.pause()
        layouts: list[bool] = []
        refresh_layout = Screen._refresh_layout

        def counted(self: Screen[Any], *args: Any, **kwargs: Any) -> None:
            layouts.append(kwargs.get("scroll", args[1] if len(args) > 1 else False))
            refresh_layout(self, *args, **kwargs)

        monkeypatch.setattr(Screen, "_refresh_layout", counted)
        session_list.set_rows(many, list(range(20)), show_workspace=False, cursor=39)
        await pilot.pause()
        assert [scroll for scroll in layouts if not scroll] == []
        assert session_list.vertical_scrollbar.window_virtual_size == 20
        assert session_list.scroll_y == session_list.max_scroll_y == 20 - 10
        session_list.set_rows(many, list(range(3)), show_workspace=False)
        await pilot.pause()
        assert session_list.show_vertical_scrollbar
        assert session_list.vertical_scrollbar.window_virtual_size == 3
        assert session_list.scroll_y == session_list.max_scroll_y == 0
        session_list.set_rows(many, show_workspace=False)
        await pilot.pause()
        assert session_list.vertical_scrollbar.window_virtual_size == 40
        assert [scroll for scroll in layouts if not scroll] == []


async def test_a_burst_of_query_keys_ranks_once_for_the_last_one(
    make_store: Callable[..., StoreBuilder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keys queued together (a paste, fast typing) rank the small scope once, on the loop:
    for the query they make, with no worker and nothing typed lost."""
    ranked = spy(monkeypatch, RowRanker, "rank")
    started = spy(monkeypatch, PickerBody, "run_worker")
    app = picker_app(make_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = picker(pilot)
        started.clear()
        for char in "find":
            app.post_message(events.Key(char, char))
        await settle(pilot)
        assert screen.composer.value == "find"
        assert [args[3] for args, _ in ranked] == ["find"]
        assert [row.session_id for row in screen.session_list.visible_rows()] == ["s-fin"]
        assert started == []


async def test_a_big_scope_is_indexed_before_the_first_key(
    make_store: Callable[..., StoreBuilder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scope ranked in a thread (more rows than INLINE_RANK_ROWS) has its ranking index
    built once it is read whole: the first key ranks with it, builds none."""
    monkeypatch.setattr(picker_body, "INLINE_RANK_ROWS", 2)
    built = spy(monkeypatch, scopes, "_row_index")
    app = picker_app(make_store)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: len(built) == 1, "the index prepared, no key typed")
        await settle(pilot)
        screen = picker(pilot)
        assert len(built) == 1
        await type_keys(pilot, "fi")
        assert len(built) == 1
        assert [row.session_id for row in screen.session_list.visible_rows()] == [
            "s-fix",
            "s-fin",
        ]


def hold_the_pause(monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """The picker's pauses (before a preview is read, before a content search) last until
    the event returned is set: keys pressed meanwhile all come within them."""
    resting = asyncio.Event()

    async def held(_seconds: float) -> None:
        await resting.wait()

    monkeypatch.setattr(picker_body, "sleep", held, raising=False)
    return resting


def content_app(make_store: Callable[..., StoreBuilder]) -> ZeroApp:
    """The picker over two sessions, one of which said "the parser leaks"."""
    builder = make_store()
    builder.add("s-fix", title="Fix parser", cwd=W, events=chat("the parser leaks", "fixed"))
    builder.add("s-doc", title="Write docs", cwd=W, events=chat("write the docs", "done"))
    return make_app(builder.store, cwd=W, clock=fixed_clock())


async def test_key_repeat_on_down_reads_the_preview_of_the_row_it_stops_on(
    make_store: Callable[..., StoreBuilder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Key repeat on ↓: the highlight moves at each key, the preview is read and drawn for
    the row it rests on, not for every row it passed (the pause is held until the keys are
    in, as key repeat's come within it)."""
    builder = make_store()
    for number in range(12):
        builder.add(
            f"s{number:02}",
            title=f"Session {number:02}",
            cwd=W,
            updated_at=f"2026-07-04T{20 - number:02}:00:00Z",
        )
    app = make_app(builder.store, cwd=W, clock=fixed_clock())
    loads = spy(monkeypatch, picker_body, "load_preview")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = picker(pilot)
        preview = screen.query_one(SessionPreview)
        assert "Session 00" in preview.text
        loads.clear()
        resting = hold_the_pause(monkeypatch)
        for expected in range(1, 11):
            await pilot.press("down")  # handled before the next key, as key repeat's are
            highlighted = screen.session_list.highlighted_row
            assert highlighted is not None
            assert highlighted.session_id == f"s{expected:02}"
        assert loads == []
        resting.set()
        await settle(pilot)
        assert [args[1] for args, _ in loads] == ["s10"]
        assert "Session 10" in preview.text


async def test_content_typing_searches_once_for_the_query_it_rests_on(
    make_store: Callable[..., StoreBuilder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """ctrl+t: keys typed within the pause start no search each (no worker per key); the
    one search is for the query the last key made."""
    app = content_app(make_store)
    searches = spy(monkeypatch, StoresContentSearch, "search")
    started = spy(monkeypatch, PickerBody, "run_worker")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = picker(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)
        searches.clear()
        started.clear()
        resting = hold_the_pause(monkeypatch)
        for key in "leaks":
            await pilot.press(key)  # handled before the next key
        assert searches == []
        resting.set()
        await settle(pilot)
        assert [args[1] for args, _ in searches] == ["leaks"]
        assert [kwargs["group"] for _, kwargs in started] == ["content-pause", "content"]
        assert [row.session_id for row in screen.session_list.visible_rows()] == ["s-fix"]


async def test_a_content_query_deleted_within_the_pause_shows_the_whole_scope(
    make_store: Callable[..., StoreBuilder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """ctrl+t, a word typed then deleted before the keys rest: the search that was due
    finds no query and starts none, and the list keeps every session of the workspace
    (it searched for "" and showed no row, saying the workspace had none)."""
    app = content_app(make_store)
    searches = spy(monkeypatch, StoresContentSearch, "search")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = picker(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)
        searches.clear()
        resting = hold_the_pause(monkeypatch)
        await pilot.press("p", "a", "backspace", "backspace")
        resting.set()
        await settle(pilot)
        assert searches == []
        shown = sorted(row.session_id for row in screen.session_list.visible_rows())
        assert shown == ["s-doc", "s-fix"]
