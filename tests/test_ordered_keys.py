"""Keys typed faster than they are handled still land in order (zero_tui/widgets/ordered_keys).

Each test posts its keys in one burst (tests/keys.py), as a paste, `tmux send-keys` or a
laggy SSH link delivers them; before the fix `/export /tmp/x.json` landed as
`///export tmpx.json`, and a `/` typed on the rows was lost.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import ClassVar

from conftest import StoreBuilder, chat, settle, wait_until
from keys import burst, key_event
from test_app_picker import picker, picker_app, shown_ids
from test_transcript_screen import TranscriptApp, build, opened
from textual import events
from textual.app import App
from textual.binding import Binding, BindingType

from zero_tui.ui.widgets.find_bar import FindBar
from zero_tui.ui.widgets.ordered_keys import run_key_binding

SIZE = (110, 40)


async def test_a_burst_lands_in_the_editor_as_typed(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = build(make_store, chat())
    async with TranscriptApp(builder.store, "s1").run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        burst(pilot.app, "/export /tmp/x.json")
        await wait_until(pilot, lambda: screen.composer.text == "/export /tmp/x.json")


async def test_backspace_in_a_burst_deletes_where_it_was_typed(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = build(make_store, chat())
    async with TranscriptApp(builder.store, "s1").run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        burst(pilot.app, "abx\x7fc")
        await wait_until(pilot, lambda: screen.composer.text == "abc")


async def test_typing_on_the_rows_moves_to_the_editor_with_every_key(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = build(make_store, chat())
    async with TranscriptApp(builder.store, "s1").run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        screen.set_focus(screen.view)
        await pilot.pause()
        burst(pilot.app, "/copy 2")
        await wait_until(pilot, lambda: screen.composer.text == "/copy 2")
        assert screen.focused is screen.composer
        screen.composer.clear_line()
        screen.set_focus(screen.view)
        await pilot.pause()
        burst(pilot.app, "hello there")  # any text, its first key kept
        await wait_until(pilot, lambda: screen.composer.text == "hello there")


async def test_tab_then_keys_in_one_burst_go_to_the_new_focus(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = build(make_store, chat())
    async with TranscriptApp(builder.store, "s1").run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        burst(pilot.app, "ab\tq")  # Tab to the rows, then q: quit
        await wait_until(
            pilot, lambda: pilot.app.return_code is not None or not pilot.app.is_running
        )
        assert screen.composer.text == "ab"


async def test_the_find_bar_takes_a_burst_in_order(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = build(make_store, chat("find the /usr/lib path", "ok"))
    async with TranscriptApp(builder.store, "s1").run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        burst(pilot.app, [events.Key("ctrl+f", None), *map(key_event, "/usr/lib")])
        bar = screen.query_one(FindBar)
        await wait_until(pilot, lambda: bar.text == "/usr/lib")


async def test_the_picker_query_takes_a_burst_and_enter_opens_the_match(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = make_store()
    builder.add("one", title="Alpha work", cwd="/w")
    builder.add("two", title="Beta work", cwd="/w", updated_at="2026-07-04T11:00:00Z")
    async with picker_app(builder, cwd="/w").run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown_ids(pilot) == ["two", "one"]
        burst(pilot.app, "alpx\x7fha\r")
        query = picker(pilot).composer
        await wait_until(pilot, lambda: getattr(pilot.app.screen, "session_id", None) == "one")
        assert query.value == "alpha"
        await wait_until(pilot, lambda: getattr(pilot.app.screen, "painted", False))


def test_the_private_textual_call_is_still_there() -> None:
    """`run_key_binding` relies on `App._check_bindings(key, priority=False)`."""
    check = App._check_bindings
    assert inspect.iscoroutinefunction(check)
    assert list(inspect.signature(check).parameters) == ["self", "key", "priority"]
    assert inspect.iscoroutinefunction(run_key_binding)


async def test_the_private_call_runs_a_binding_and_says_so() -> None:
    """What `run_key_binding` relies on beyond the signature: True with the bound action
    run, False for a key no binding takes (the widget's own handling then takes it)."""
    ran: list[str] = []

    class Bound(App[None]):
        BINDINGS: ClassVar[list[BindingType]] = [Binding("x", "mark", "Mark")]

        def action_mark(self) -> None:
            ran.append("x")

    app = Bound()
    async with app.run_test() as pilot:
        await pilot.pause()
        widget = app.screen
        assert await run_key_binding(widget, "x") is True
        assert ran == ["x"]
        assert await run_key_binding(widget, "y") is False
