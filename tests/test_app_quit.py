"""Quitting at any moment: a screen or the app still mounting when the app exits (a quit
typed at once, or in the same burst of keys as what opened the screen) ends without a
traceback. Textual drops the children of a widget removed while it mounts and still runs
its mount handler (ui/mounting.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from conftest import StoreBuilder, assistant, settle, user
from test_app_picker import SIZE, W, picker_app
from textual.message import Message

from zero_tui.ui.app import ZeroApp
from zero_tui.ui.messages import NewConversation, OpenSession
from zero_tui.ui.screens.command_screen import CommandScreen

TICKS = range(5)  # how long the mount runs before the quit: the race is in the first few


@pytest.fixture
def one(make_store: Callable[..., StoreBuilder]) -> StoreBuilder:
    builder = make_store()
    builder.add("only", title="Only", cwd=W, events=[user("a question"), assistant("an answer")])
    return builder


async def ticks(count: int) -> None:
    for _ in range(count):
        await asyncio.sleep(0)


def slash(text: str) -> Callable[[ZeroApp], Awaitable[None]]:
    async def run(app: ZeroApp) -> None:
        screen = app.screen
        assert isinstance(screen, CommandScreen)
        assert await screen.run_text(text)

    return run


def posted(message: Callable[[], Message]) -> Callable[[ZeroApp], Awaitable[None]]:
    async def post(app: ZeroApp) -> None:
        assert app.post_message(message())

    return post


OPENERS: dict[str, Callable[[ZeroApp], Awaitable[None]]] = {
    "a transcript": posted(lambda: OpenSession("only")),
    "a new conversation": posted(NewConversation),
    "the usage screen": slash("/usage"),
    "the help": slash("/help"),
}


@pytest.mark.parametrize("count", TICKS)
@pytest.mark.parametrize("opened", OPENERS)
async def test_a_quit_as_a_screen_opens_ends_cleanly(
    one: StoreBuilder, opened: str, count: int
) -> None:
    app = picker_app(one)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await OPENERS[opened](app)
        await ticks(count)
        app.exit()
    assert app.return_code == 0  # run_test re-raises what a handler raised


@pytest.mark.parametrize("count", TICKS)
async def test_a_quit_as_the_app_starts_ends_cleanly(
    one: StoreBuilder, count: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    mount = ZeroApp.on_mount
    quits: list[asyncio.Task[None]] = []

    def mount_then_quit(app: ZeroApp) -> None:
        mount(app)  # pushes the picker, which mounts while the quit comes

        async def quit_soon() -> None:
            await ticks(count)
            app.exit()

        quits.append(asyncio.get_running_loop().create_task(quit_soon()))

    monkeypatch.setattr(ZeroApp, "on_mount", mount_then_quit)
    app = picker_app(one)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
    assert [quit.done() for quit in quits] == [True]
    assert app.return_code == 0
