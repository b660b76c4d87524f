"""The transcript screen driven as a user drives it (Pilot): rows, keys, find, live append."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from pathlib import PurePath
from typing import Any, ClassVar

import pytest
from conftest import EventSpec, StoreBuilder, assistant, user, wait_until
from textual.app import App
from textual.command import CommandList
from textual.events import MouseScrollDown, MouseScrollUp
from textual.message import Message
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, Static

from zero_tui.store import SessionStore
from zero_tui.transcript import log_index
from zero_tui.transcript.log_index import CHUNK_EVENTS, CONTEXT_EVENTS, LogIndex
from zero_tui.ui.app import css_paths
from zero_tui.ui.messages import TranscriptLoaded
from zero_tui.ui.screens.transcript import TranscriptScreen
from zero_tui.ui.widgets.find_bar import FindBar
from zero_tui.ui.widgets.row_painter import USER_MARKER
from zero_tui.ui.widgets.transcript_view import TranscriptView

SIZE = (110, 60)
CURSOR = "\u258c "  # the highlighted row's gutter


class TranscriptApp(App[None]):
    """A tiny app that shows one transcript (optionally above a stand-in picker)."""

    CSS_PATH: ClassVar[list[str | PurePath]] = [path for path in css_paths() if path.exists()]

    def __init__(
        self,
        store: SessionStore,
        session_id: str,
        *,
        with_picker: bool = False,
        notice: str | None = None,
        at_sequence: int | None = None,
        mark: str = "",
    ) -> None:
        super().__init__()
        self.store = store
        self.session_id = session_id
        self.with_picker = with_picker
        self.notice = notice
        self.at = (at_sequence, mark)  # a search hit's event, and the word it found

    def on_mount(self) -> None:
        if self.with_picker:
            self.push_screen(Screen())
        at_sequence, mark = self.at
        self.push_screen(
            TranscriptScreen(
                self.store, self.session_id, notice=self.notice, at_sequence=at_sequence, mark=mark
            )
        )


def tool_call(call_id: str, name: str, arguments: str) -> EventSpec:
    return ("tool_call", {"id": call_id, "name": name, "arguments": arguments})


def tool_result(call_id: str, name: str, output: str, status: str = "ok") -> EventSpec:
    return (
        "tool_result",
        {"toolCallId": call_id, "name": name, "status": status, "output": output},
    )


EVERY_KIND: list[EventSpec] = [
    user("Please grep for [bold]Zero[/bold] \x1b[31mnow"),
    tool_call("call_1", "grep", '{"pattern":"Zero"}'),
    (
        "permission_decision",
        {
            "toolCallId": "call_1",
            "name": "grep",
            "action": "allow",
            "permissionMode": "auto",
            "grantMatched": True,
        },
    ),
    tool_result("call_1", "grep", "first match\nsecond match\nthird match"),
    ("permission_request", {"toolCallId": "call_2", "name": "write_file", "action": "prompt"}),
    (
        "permission_decision",
        {"toolCallId": "call_2", "name": "write_file", "action": "deny", "decisionAction": "deny"},
    ),
    ("provider_usage", {"promptTokens": 10, "completionTokens": 2, "totalTokens": 12}),
    assistant("Here is **the answer** with `code`."),
    ("message", {"role": "goal", "content": "Continue the goal"}),
    ("error", {"message": "provider error: boom"}),
    ("session_fork", {"parentSessionId": "parent-1"}),
    (
        "specialist_start",
        {
            "childSessionId": "child-1",
            "toolCallId": "call_task",
            "specialist": "explorer",
            "status": "running",
            "description": "map the repo",
        },
    ),
    (
        "specialist_stop",
        {
            "childSessionId": "child-1",
            "status": "success",
            "specialist": "explorer",
            "description": "map the repo",
        },
    ),
    (
        "message",
        {
            "role": "ask_user",
            "toolCallId": "q1",
            "header": "Database",
            "questions": [{"question": "Which DB?", "options": ["pg", "sqlite"]}],
        },
    ),
    ("message", {"role": "ask_user_answers", "toolCallId": "q1", "answers": ["pg"]}),
    (
        "message",
        {
            "role": "user",
            "origin": "cross_session",
            "from": "Builder [abcd1234]",
            "content": "<envelope>",
            "displayContent": "Visible peer body",
        },
    ),
    assistant("Final answer."),
]


def screen_text(pilot: Pilot[Any]) -> str:
    """What the transcript shows right now, one line per screen line."""
    view = pilot.app.screen.query_one(TranscriptView)
    return "\n".join(view.render_line(y).text.rstrip() for y in range(view.size.height))


def cursor_text(view: TranscriptView) -> str:
    """The text of the highlighted row ("" when none)."""
    row = view.row_at(view.cursor) if view.cursor is not None else None
    return row.text if row is not None else ""


def transcript(pilot: Pilot[Any]) -> TranscriptScreen:
    screen = pilot.app.screen
    assert isinstance(screen, TranscriptScreen)
    return screen


async def opened(pilot: Pilot[Any]) -> TranscriptScreen:
    await wait_until(
        pilot, lambda: isinstance(pilot.app.screen, TranscriptScreen) and pilot.app.screen.loaded
    )
    await pilot.pause()
    return transcript(pilot)


_BUILT = itertools.count()


def build(
    make_store: Callable[..., StoreBuilder], events: Sequence[EventSpec], **fields: Any
) -> StoreBuilder:
    # at …/zero/sessions: a store Zero can continue, so the editor invites a prompt
    builder = make_store(f"data{next(_BUILT)}/zero/sessions")
    fields.setdefault("title", "Grep session")
    builder.add("s1", events=list(events), model_id="gpt-4.1", provider="openai", **fields)
    return builder


async def test_every_row_kind_is_shown(make_store: Callable[..., StoreBuilder]) -> None:
    builder = build(make_store, EVERY_KIND)
    async with TranscriptApp(builder.store, "s1").run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await pilot.press("ctrl+home")
        text = screen_text(pilot)
        assert "▸ Resumed Zero session · status: ok · events: 17" in text  # folded
        assert "id: s1" not in text  # the header says it
        assert "Please grep for [bold]Zero[/bold] [31mnow" in text  # markup and ESC inert
        assert "\x1b" not in text
        assert "grep  Zero  ok" in text  # the call folded into its result card
        assert "first match\n    second match\n    third match" in text  # lines stay lines
        assert "tool call: grep" not in text
        assert "permission: write_file deny" in text
        assert "permission: grep" not in text  # a silent auto-approval
        assert "permission: write_file prompt" not in text  # hidden once decided
        assert "Here is the answer with code." in text  # Markdown, rendered
        assert "Continue the goal" in text
        assert "error: provider error: boom" in text
        assert "forked from session: parent-1" in text
        assert "specialist: explorer completed" in text
        assert "map the repo" in text
        assert "ask_user: Database" in text
        assert "1. Which DB?  (pg, sqlite)" in text
        assert "Answers" in text
        assert "1. pg" in text
        assert "Message from Builder [abcd1234]" in text
        assert "Visible peer body" in text
        assert "promptTokens" not in text
        title = screen.query_one("#transcript-title", Static).render()
        assert "Grep session" in str(title)


async def test_opens_at_the_bottom_and_jumps(make_store: Callable[..., StoreBuilder]) -> None:
    events: list[EventSpec] = []
    for turn in range(60):
        events += [user(f"question {turn}"), assistant(f"answer {turn}")]
    builder = build(make_store, events)
    async with TranscriptApp(builder.store, "s1").run_test(size=SIZE) as pilot:
        await opened(pilot)
        text = screen_text(pilot)
        assert "answer 59" in text
        assert "question 0" not in text
        await pilot.press("tab")  # from the command line to the rows
        await pilot.press("home")
        text = screen_text(pilot)
        assert "Resumed Zero session" in text
        assert "question 0" in text
        assert "answer 59" not in text
        await pilot.press("end")
        assert "answer 59" in screen_text(pilot)
        await pilot.press("ctrl+home")
        assert "question 0" in screen_text(pilot)
        await pilot.press("pagedown")
        text = screen_text(pilot)
        assert "question 0" not in text
        assert "Resumed Zero session" not in text
        await pilot.press("pageup")
        assert "Resumed Zero session" in screen_text(pilot)
        await pilot.press("ctrl+end")
        assert "answer 59" in screen_text(pilot)


async def test_turn_navigation(make_store: Callable[..., StoreBuilder]) -> None:
    events: list[EventSpec] = []
    for turn in range(40):
        events += [
            user(f"question {turn}"),
            tool_call(f"c{turn}", "bash", '{"command":"ls"}'),
            tool_result(f"c{turn}", "bash", "out"),
            assistant(f"answer {turn}"),
        ]
    builder = build(make_store, events)
    async with TranscriptApp(builder.store, "s1").run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        view = screen.view
        await pilot.press("alt+up")  # works from the command line too
        assert cursor_text(view) == "question 39"
        await pilot.press("tab")  # the rows: [ and ] are keys there
        await pilot.press("alt+up", "alt+up")
        assert cursor_text(view) == "question 37"
        assert CURSOR + USER_MARKER + "question 37" in screen_text(pilot)
        await pilot.press("right_square_bracket")
        assert cursor_text(view) == "question 38"
        await pilot.press("ctrl+home", "alt+down", "alt+down")
        assert cursor_text(view) == "question 1"
        first_line = screen_text(pilot).splitlines()[0]
        assert first_line == CURSOR + USER_MARKER + "question 1"  # the turn starts the screen
        await pilot.press("alt+up")
        assert cursor_text(view) == "question 0"
        await pilot.press("left_square_bracket")  # no earlier turn: the cursor stays
        assert cursor_text(view) == "question 0"


async def test_tool_card_expands_and_collapses(make_store: Callable[..., StoreBuilder]) -> None:
    output = "\n".join(f"line {number}" for number in range(1, 31))
    events = [
        user("run it"),
        tool_call("c1", "bash", '{"command":"seq 30"}'),
        tool_result("c1", "bash", output),
        assistant("done"),
    ]
    builder = build(make_store, events)
    async with TranscriptApp(builder.store, "s1").run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        assert "▸ bash  seq 30  ok" in screen_text(pilot)
        assert "line 30\n" not in screen_text(pilot) + "\n"
        await pilot.press("tab")  # the rows
        await pilot.press("up")  # from "done" to the card
        await pilot.press("enter")
        text = screen_text(pilot)
        assert "▾ bash  seq 30  ok" in text
        assert "│ line 17" in text
        await pilot.press("space")
        assert "▸ bash  seq 30  ok" in screen_text(pilot)
        await pilot.press("ctrl+o")  # the card under the cursor, from anywhere
        assert "▾ bash" in screen_text(pilot)
        await pilot.press("ctrl+o")
        assert "▸ bash" in screen_text(pilot)
        assert not screen.view.is_expanded(2)


async def test_find_in_transcript(make_store: Callable[..., StoreBuilder]) -> None:
    events: list[EventSpec] = []
    for turn in range(50):
        word = "needle" if turn in (5, 20) else "hay"
        events += [user(f"question {turn} {word}"), assistant(f"answer {turn}")]
    builder = build(make_store, events)
    async with TranscriptApp(builder.store, "s1").run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        view = screen.view
        await pilot.press("ctrl+f")
        bar = screen.query_one(FindBar)
        assert bar.is_open
        assert isinstance(screen.focused, Input)
        await pilot.press("slash")  # `/` is a character here, not the command line
        assert bar.text == "/"
        assert screen.focused.id == "find-input"
        await pilot.press("backspace")
        await pilot.press(*"NEEDLE", "enter")

        def status() -> str:
            return str(screen.query_one("#find-status", Static).render())

        await wait_until(pilot, lambda: cursor_text(view) == "question 5 needle")
        assert "question 5 needle" in screen_text(pilot)
        assert status() == "1/2"
        await pilot.press("enter")
        await wait_until(pilot, lambda: cursor_text(view) == "question 20 needle")
        assert status() == "2/2"
        await pilot.press("enter")  # wraps around, and says so
        await wait_until(pilot, lambda: cursor_text(view) == "question 5 needle")
        assert status() == "1/2 · wrapped to the top"
        await pilot.press("shift+enter")
        await wait_until(pilot, lambda: cursor_text(view) == "question 20 needle")
        assert status() == "2/2 · wrapped to the bottom"
        await pilot.press("ctrl+a", *"nowhere", "enter")
        await wait_until(
            pilot, lambda: "no match" in str(screen.query_one("#find-status", Static).render())
        )
        await pilot.press("escape")
        assert not bar.is_open
        assert screen.focused is view
        assert view.search_query == ""


async def test_broken_compaction_falls_back_with_a_note(
    make_store: Callable[..., StoreBuilder],
) -> None:
    events = [
        user("alpha"),
        assistant("beta"),
        ("session_compaction", {"summary": ""}),
        user("gamma"),
    ]
    builder = build(make_store, events)
    async with TranscriptApp(builder.store, "s1").run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        note = str(screen.query_one("#transcript-note", Static).render())
        assert "compacted view could not be rebuilt" in note
        assert "raw log" in note
        text = screen_text(pilot)
        assert "alpha" in text
        assert "beta" in text
        assert "gamma" in text
        assert "events: 4" in text


async def test_compaction_summary_replaces_earlier_rows(
    make_store: Callable[..., StoreBuilder],
) -> None:
    refs = [
        {"id": "s1:1", "sequence": 1, "type": "message"},
        {"id": "s1:2", "sequence": 2, "type": "message"},
    ]
    events = [
        user("alpha"),
        assistant("beta"),
        user("gamma"),
        assistant("delta"),
        ("session_compaction", {"summary": "early summary", "compactableEvents": refs}),
        user("epsilon"),
    ]
    builder = build(make_store, events)
    async with TranscriptApp(builder.store, "s1").run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        text = screen_text(pilot)
        assert "summary of earlier conversation" in text
        assert "early summary" in text
        assert "alpha" not in text
        assert "beta" not in text
        assert text.index("early summary") < text.index("gamma") < text.index("epsilon")
        assert "events: 4" in text
        assert not screen.query_one("#transcript-note", Static).display


async def test_live_append_appears_and_follows(make_store: Callable[..., StoreBuilder]) -> None:
    events: list[EventSpec] = []
    for turn in range(40):
        events += [user(f"question {turn}"), assistant(f"answer {turn}")]
    builder = build(make_store, events)
    async with TranscriptApp(builder.store, "s1").run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        builder.store.append_events("s1", [user("live question"), assistant("live answer")])
        await wait_until(pilot, lambda: "live answer" in screen_text(pilot))
        assert "live question" in screen_text(pilot)
        assert "82 events" in str(screen.query_one("#transcript-facts", Static).render())
        await pilot.press("ctrl+home")
        builder.store.append_events("s1", [assistant("while scrolled up")])
        await wait_until(pilot, lambda: screen.view.event_count == 83)
        assert "Resumed Zero session" in screen_text(pilot)  # stays where the reader is
        await pilot.press("ctrl+end")
        assert "while scrolled up" in screen_text(pilot)


async def test_rewind_replacing_the_log_reloads(make_store: Callable[..., StoreBuilder]) -> None:
    builder = build(make_store, [user("keep me"), assistant("drop me")])
    async with TranscriptApp(builder.store, "s1").run_test(size=SIZE) as pilot:
        await opened(pilot)
        assert "drop me" in screen_text(pilot)
        log = builder.store.events_path("s1")
        kept = log.read_bytes().splitlines(keepends=True)[0]
        replacement = log.with_name("events.jsonl.tmp-test")
        replacement.write_bytes(kept)
        replacement.replace(log)
        await wait_until(pilot, lambda: "drop me" not in screen_text(pilot))
        assert "keep me" in screen_text(pilot)


async def test_escape_goes_back_and_q_quits(make_store: Callable[..., StoreBuilder]) -> None:
    builder = build(make_store, [user("hi"), assistant("hello")])
    app = TranscriptApp(builder.store, "s1", with_picker=True)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("escape")
        assert not isinstance(app.screen, TranscriptScreen)
    alone = TranscriptApp(builder.store, "s1", notice="opened from --resume")
    async with alone.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        assert "opened from --resume" in str(screen.query_one("#transcript-note", Static).render())
        await pilot.press("ctrl+f", "q")  # typed into the find bar: no quit
        assert alone.is_running
        assert screen.find_bar.text == "q"
        await pilot.press("escape", "q")
        await wait_until(pilot, lambda: not alone.is_running)


async def test_a_big_session_decodes_only_what_is_shown(
    make_store: Callable[..., StoreBuilder], monkeypatch: pytest.MonkeyPatch
) -> None:
    builder = make_store()
    builder.store.create("big", title="big")
    events = [
        user(f"question {n}") if n % 2 == 0 else assistant(f"answer {n}") for n in range(5000)
    ]
    builder.store.append_events("big", events)
    assert len(builder.store.read_events("big")) == 5000
    decoded: list[int] = []
    original = LogIndex.decode

    def counting(self: LogIndex, index: int) -> Any:
        # what the UI decodes to show rows (the indexing worker reads the whole log once)
        if threading.current_thread() is threading.main_thread():
            decoded.append(index)
        return original(self, index)

    monkeypatch.setattr(LogIndex, "decode", counting)
    async with TranscriptApp(builder.store, "big").run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        assert "answer 4999" in screen_text(pilot)
        budget = 3 * (CHUNK_EVENTS + 2 * CONTEXT_EVENTS)
        assert len(decoded) <= budget
        assert min(decoded) >= 5000 - budget
        decoded.clear()
        await pilot.press("ctrl+home")
        assert "question 0" in screen_text(pilot)
        assert len(decoded) <= budget
        assert max(decoded) < budget
        assert screen.view.event_count == 5000


async def test_escape_quits_when_no_picker_is_below(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = build(make_store, [user("hi"), assistant("hello")])
    app = TranscriptApp(builder.store, "s1")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.is_running)


async def test_click_highlights_then_toggles_a_card(
    make_store: Callable[..., StoreBuilder],
) -> None:
    events = [
        user("run it"),
        tool_call("c1", "bash", '{"command":"seq 3"}'),
        tool_result("c1", "bash", "1\n2\n3"),
        assistant("done"),
    ]
    builder = build(make_store, events)
    async with TranscriptApp(builder.store, "s1").run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        card_line = next(
            number
            for number, line in enumerate(screen_text(pilot).splitlines())
            if "bash  seq 3  ok" in line
        )
        await pilot.click(TranscriptView, offset=(8, card_line))
        assert cursor_text(screen.view).startswith("tool result: bash ok")
        assert not screen.view.is_expanded(2)
        await pilot.click(TranscriptView, offset=(8, card_line))
        assert screen.view.is_expanded(2)
        assert "│ 3" in screen_text(pilot)


async def test_actions_are_in_the_command_palette(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = build(make_store, [user("hi"), assistant("hello")])
    async with TranscriptApp(builder.store, "s1").run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await pilot.press("ctrl+p")
        await pilot.press(*"Find in transcript")
        await wait_until(
            pilot,
            lambda: (
                bool(pilot.app.screen.query(CommandList))
                and pilot.app.screen.query_one(CommandList).option_count > 0
            ),
        )
        await pilot.pause()
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.find_bar.is_open)


async def test_a_huge_log_shows_its_latest_events_first(
    make_store: Callable[..., StoreBuilder], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(log_index, "TAIL_BYTES", 4000)
    events: list[EventSpec] = []
    for turn in range(150):
        events += [user(f"question {turn}"), assistant(f"answer {turn}")]
    builder = build(make_store, events)
    loads: list[TranscriptLoaded] = []

    def record(message: Message) -> None:
        # (the hook may see one message more than once)
        if isinstance(message, TranscriptLoaded) and all(message is not m for m in loads):
            loads.append(message)

    app = TranscriptApp(builder.store, "s1")
    async with app.run_test(size=SIZE, message_hook=record) as pilot:
        screen = await opened(pilot)
        assert [load.partial for load in loads] == [True, False]
        assert 0 < len(loads[0].order) < 300
        assert "answer 149" in screen_text(pilot)
        assert "300 events" in str(screen.query_one("#transcript-facts", Static).render())
        await pilot.press("ctrl+home")
        assert "question 0" in screen_text(pilot)
        assert "events: 300" in screen_text(pilot)


async def test_mouse_wheel_scrolls(make_store: Callable[..., StoreBuilder]) -> None:
    events: list[EventSpec] = []
    for turn in range(60):
        events += [user(f"question {turn}"), assistant(f"answer {turn}")]
    builder = build(make_store, events)
    async with TranscriptApp(builder.store, "s1").run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        view = screen.view
        bottom = round(view.scroll_y)

        def wheel(event_type: type[MouseScrollUp | MouseScrollDown]) -> None:
            view.post_message(event_type(view, 5, 5, 0, 0, 0, False, False, False))

        for _ in range(10):
            wheel(MouseScrollUp)
        await wait_until(pilot, lambda: round(view.scroll_y) < bottom)
        assert not view.following
        assert "answer 59" not in screen_text(pilot)
        for _ in range(40):
            wheel(MouseScrollDown)
        await wait_until(pilot, lambda: round(view.scroll_y) == bottom)
        assert view.following
        assert "answer 59" in screen_text(pilot)


async def test_at_80_columns_the_header_keeps_the_events_and_tokens(
    make_store: Callable[..., StoreBuilder],
) -> None:
    """Issue 25, item 21: the provider and model are cut first, never the events."""
    from test_app_agent import whole_screen

    builder = make_store("data/zero/sessions")
    sid = "zero_20260807123045_1754569845123456789_1"
    usage = {"promptTokens": 20560, "completionTokens": 507, "totalTokens": 21067}
    builder.add(
        sid,
        events=[user("hi"), ("provider_usage", usage), assistant("hello")],
        model_id="qwen3-coder-480b",
        provider="openai-compatible",
    )
    async with TranscriptApp(builder.store, sid).run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot)
        facts = screen.query_one("#transcript-facts", Static)
        await wait_until(pilot, lambda: "tokens" in str(facts.visual))
        line = next(line for line in whole_screen(pilot).splitlines() if "zero_2026" in line)
        assert "3 events  ·  tokens 21k in · 507 out" in line


async def test_the_resume_card_is_one_line_until_it_is_unfolded(
    make_store: Callable[..., StoreBuilder],
) -> None:
    """Issue 25, item 21: a transcript opens under one line, not Zero's 9-line card (the
    header says the id, model and events); Enter on it shows the whole card."""
    builder = build(make_store, [user("first question"), assistant("first answer")])
    async with TranscriptApp(builder.store, "s1").run_test(size=SIZE) as pilot:
        await opened(pilot)
        text = screen_text(pilot)
        lines = text.splitlines()
        card = next(n for n, line in enumerate(lines) if "Resumed Zero session" in line)
        assert lines[card].strip() == "▸ Resumed Zero session · status: ok · events: 2"
        assert "first question" in lines[card + 2]  # the rows right under it
        assert "provider: openai" not in text
        await pilot.press("tab", "home", "enter")  # to the rows, the card, unfold it
        text = screen_text(pilot)
        assert "id: s1" in text
        assert "provider: openai" in text
        await pilot.press("enter")
        assert "provider: openai" not in screen_text(pilot)


def folded_match_events() -> list[EventSpec]:
    """Turns of hay, then a tool card whose fifth output line (folded) says `unicorn`."""
    events: list[EventSpec] = []
    for turn in range(30):
        events += [user(f"question {turn}"), assistant(f"answer {turn}")]
    output = "hello from alpha\nbeta\ngamma\ndelta\nthe unicorn is here\nomega"
    events += [
        user("look for it"),
        ("tool_call", {"id": "c1", "name": "exec_command", "arguments": '{"cmd":"cat"}'}),
        ("tool_result", {"toolCallId": "c1", "name": "exec_command", "output": output}),
    ]
    for turn in range(30, 40):
        events += [user(f"question {turn}"), assistant(f"answer {turn}")]
    return events


async def test_find_unfolds_a_tool_card_to_its_matching_line(
    make_store: Callable[..., StoreBuilder],
) -> None:
    """Issue 25, item 15: ctrl+f's match in a folded card's hidden lines is shown."""
    builder = build(make_store, folded_match_events())
    async with TranscriptApp(builder.store, "s1").run_test(size=(110, 30)) as pilot:
        screen = await opened(pilot)
        assert "the unicorn is here" not in screen_text(pilot)
        await pilot.press("ctrl+f", *"unicorn", "enter")
        await wait_until(pilot, lambda: "the unicorn is here" in screen_text(pilot))
        assert str(screen.query_one("#find-status", Static).render()) == "1/1"


async def test_a_search_hit_in_a_folded_card_opens_at_its_line(
    make_store: Callable[..., StoreBuilder],
) -> None:
    """Issue 25, item 15: a ctrl+t hit opens the transcript with its line on screen."""
    builder = build(make_store, folded_match_events())
    hit = next(
        event.sequence for event in builder.store.read_events("s1") if event.type == "tool_result"
    )
    app = TranscriptApp(builder.store, "s1", at_sequence=hit, mark="unicorn")
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, TranscriptScreen))
        await wait_until(pilot, lambda: "the unicorn is here" in screen_text(pilot))


async def test_a_search_hit_early_in_the_log_opens_at_its_row(
    make_store: Callable[..., StoreBuilder],
) -> None:
    """A hit located before the rows are first laid out is still the row shown."""
    builder = build(make_store, folded_match_events())
    hit = next(
        event.sequence
        for event in builder.store.read_events("s1")
        if event.type == "message" and event.payload.get("content") == "question 3"
    )
    for mark in ("", "question 3"):
        app = TranscriptApp(builder.store, "s1", at_sequence=hit, mark=mark)
        async with app.run_test(size=(110, 30)) as pilot:
            await wait_until(pilot, lambda: isinstance(pilot.app.screen, TranscriptScreen))
            await wait_until(pilot, lambda: "question 3\n" in screen_text(pilot) + "\n")
            assert "question 39" not in screen_text(pilot)
