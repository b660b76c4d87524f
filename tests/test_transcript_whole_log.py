"""The transcript screen shows what a build of the whole log gives (what show and the
exports print), whatever the distance between linked events, and as the log grows."""

from __future__ import annotations

from collections.abc import Callable

from conftest import EventSpec, StoreBuilder, assistant, user, wait_until
from test_transcript_screen import SIZE, TranscriptApp, opened, screen_text
from textual.widgets import Static


def call(call_id: str) -> EventSpec:
    return ("tool_call", {"id": call_id, "name": "grep", "arguments": '{"pattern":"needle"}'})


def result(call_id: str) -> EventSpec:
    return ("tool_result", {"toolCallId": call_id, "name": "grep", "output": "found it"})


def filler(count: int) -> list[EventSpec]:
    return [assistant(f"step {n}") for n in range(count)]


async def test_a_call_and_its_result_far_apart_show_one_card(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = make_store()
    events = [user("go"), call("far"), *filler(150), result("far"), *filler(150), result("far")]
    builder.add("s1", events=events)
    async with TranscriptApp(builder.store, "s1").run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await pilot.press("ctrl+home")
        assert "no result" not in screen_text(pilot)  # the call folded into its result card
        await pilot.press("ctrl+f", *"found it", "enter")
        await wait_until(pilot, lambda: "grep  needle  ok" in screen_text(pilot))
        assert screen.view.cursor == 152  # the first result; the replayed one is not shown


async def test_a_result_appended_later_folds_the_earlier_call(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = make_store()
    builder.add("s1", events=[user("go"), call("late"), *filler(100)])
    async with TranscriptApp(builder.store, "s1").run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await pilot.press("ctrl+home")
        assert "grep  needle  no result" in screen_text(pilot)
        builder.store.append_events("s1", [result("late")])
        await wait_until(pilot, lambda: len(screen.order) == 103)
        await pilot.press("ctrl+home")
        await wait_until(pilot, lambda: "no result" not in screen_text(pilot))
        await pilot.press("ctrl+end")
        await wait_until(pilot, lambda: "grep  needle  ok" in screen_text(pilot))


async def test_the_resume_card_says_error_above_an_unreadable_line(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = make_store()
    builder.add("s1", events=[user("go")])
    with builder.store.events_path("s1").open("ab") as log:
        log.write(b"not json\n")
    builder.store.append_events("s1", [assistant("after")])
    async with TranscriptApp(builder.store, "s1").run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("ctrl+home")
        text = screen_text(pilot)
        assert "status: error" in text
        assert "status: ok" not in text
        assert "1 unreadable line, shown as errors" in text


async def test_a_huge_title_takes_one_line(make_store: Callable[..., StoreBuilder]) -> None:
    builder = make_store()
    builder.add("s1", title="T" * 20_000, events=[user("go"), assistant("the answer")])
    async with TranscriptApp(builder.store, "s1").run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        title = screen.query_one("#transcript-title", Static)
        assert title.size.height == 1
        assert title.render_line(0).text.rstrip().endswith("…")
        assert "the answer" in screen_text(pilot)  # the conversation is still on screen
        await pilot.press("ctrl+home")
        text = screen_text(pilot)
        assert "Resumed Zero session" in text
        assert text.count("T") < 400  # the card's title line is cut too
