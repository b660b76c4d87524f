"""Continuing a session from the transcript, through the fake `zero` (tests/fake_zero.py).

The transcript's editor sends a prompt; the live turn streams what the agent prints; when
the run ends the rows are rebuilt from what the agent stored.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from datetime import datetime
from pathlib import Path, PurePath
from typing import Any, ClassVar

import pytest
from agent_fixtures import AgentSandbox
from conftest import spy, wait_until
from keys import burst
from rich.console import Console
from test_transcript_screen import screen_text
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Static

from zero_tui.agent.engine import ExecEngine
from zero_tui.agent.settings import RunSettings
from zero_tui.agent.stream import RunStart
from zero_tui.agent.turn import TurnModel
from zero_tui.ui.app import css_paths
from zero_tui.ui.screens.transcript import TranscriptScreen

SIZE = (110, 40)


class AgentApp(App[None]):
    CSS_PATH: ClassVar[list[str | PurePath]] = [path for path in css_paths() if path.exists()]

    def __init__(
        self,
        sandbox: AgentSandbox,
        session_id: str | None,
        *,
        clock: Callable[[], datetime] | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        self.clock = clock
        self.sandbox = sandbox
        self.session_id = session_id
        self.settings = RunSettings()
        self.engine = ExecEngine(sandbox.store, env=sandbox.env, **options)

    def on_mount(self) -> None:
        self.push_screen(Screen())  # a stand-in picker below
        self.push_screen(
            TranscriptScreen(
                self.sandbox.store,
                self.session_id,
                workspace=str(self.sandbox.workspace),
                clock=self.clock,
                engine=self.engine,
                settings=self.settings,
            )
        )


def screen_of(pilot: Pilot[Any]) -> TranscriptScreen:
    screen = pilot.app.screen
    assert isinstance(screen, TranscriptScreen)
    return screen


async def ready(pilot: Pilot[Any], *, new: bool = False) -> TranscriptScreen:
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, TranscriptScreen))
    screen = screen_of(pilot)
    if not new:
        await wait_until(pilot, lambda: screen.loaded)
    await pilot.pause()
    return screen


async def send(pilot: Pilot[Any], text: str) -> None:
    """Type `text` and Enter in one burst, and let the editor handle them."""
    burst(pilot.app, text + "\r")
    await pilot.pause()


def whole_screen(pilot: Pilot[Any]) -> str:
    """Every line of the screen as it would be painted (header, rows, live turn, notes,
    status line, editor), as Textual's own screenshot renders it."""
    app = pilot.app
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        force_terminal=True,
        color_system=None,
        record=True,
        legacy_windows=False,
    )
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text(styles=False)


def outcome_text(screen: TranscriptScreen) -> str:
    widget = screen.query_one("#run-outcome", Static)
    return str(widget.visual) if widget.display else ""


def stored(sandbox: AgentSandbox, session_id: str) -> list[tuple[str, object]]:
    return [(event.type, event.payload) for event in sandbox.store.read_events(session_id)]


async def finished(pilot: Pilot[Any], screen: TranscriptScreen) -> None:
    await wait_until(pilot, lambda: not screen.running and not screen.live.shown)


async def test_a_prompt_streams_and_the_stored_rows_replace_it(fake_agent: AgentSandbox) -> None:
    sid = fake_agent.new_session()
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "slow 8")
        await wait_until(pilot, lambda: screen.running)
        await wait_until(pilot, lambda: "chunk 3" in screen.live.blocks_text())
        assert screen.composer.text == ""  # sent: the editor is cleared
        status = str(screen.query_one("#run-status", Static).visual)
        # on a loaded machine the last chunks may be in by now: the run is finishing
        assert "running" in status or "finishing" in status
        assert "Esc: cancel" in status
        await finished(pilot, screen)
        assert outcome_text(screen) == ""  # a success says nothing more
        text = screen_text(pilot)
        assert "slow 8" in text
        assert "chunk 7" in text
    events = stored(fake_agent, sid)
    assert events[-3][0] == "message"
    assert events[-3][1] == {"content": "slow 8", "role": "user"}
    assert events[-1][1] == {
        "content": "".join(f"chunk {i} " for i in range(8)),
        "role": "assistant",
    }


async def cancelled(pilot: Pilot[Any], screen: TranscriptScreen) -> None:
    """The run is over, and its partial answer is what the live turn keeps."""
    await wait_until(pilot, lambda: not screen.running and screen.live.kept)


async def test_escape_cancels_a_run_and_keeps_its_partial_answer(
    fake_agent: AgentSandbox,
) -> None:
    sid = fake_agent.new_session()
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "hang")
        await wait_until(pilot, lambda: "waiting" in screen.live.blocks_text())
        await pilot.press("escape")  # cancels; does not leave the screen
        await cancelled(pilot, screen)
        assert pilot.app.screen is screen
        assert "Run cancelled" in outcome_text(screen)
        # the rows show what Zero stored (the prompt, `interrupted`); under them, the text
        # it streamed and did not store, said to be so
        assert screen.live.blocks_text().strip() == "waiting"
        await wait_until(pilot, lambda: "is not stored" in whole_screen(pilot))
        text = whole_screen(pilot)
        assert "error: interrupted" in text
        assert "Cancelled while answering" in text
        assert "is not stored" in text
        # the next run drops it
        await send(pilot, "slow 2")
        await finished(pilot, screen)
        assert "Cancelled while answering" not in whole_screen(pilot)
    assert stored(fake_agent, sid)[-4] == ("error", {"message": "interrupted"})


async def test_a_second_prompt_while_running_is_refused_and_kept(
    fake_agent: AgentSandbox,
) -> None:
    sid = fake_agent.new_session()
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "hang")
        await wait_until(pilot, lambda: "waiting" in screen.live.blocks_text())
        await send(pilot, "another")
        await wait_until(pilot, lambda: screen.composer.text == "another")
        await pilot.press("escape")  # the editor's Esc clears the text first
        await pilot.press("escape")
        await cancelled(pilot, screen)


async def test_new_is_refused_while_a_run_is_in_progress(fake_agent: AgentSandbox) -> None:
    """/new (CommandScreen) asks the transcript first: a run in flight keeps the screen."""
    sid = fake_agent.new_session()
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "hang")
        await wait_until(pilot, lambda: "waiting" in screen.live.blocks_text())
        await send(pilot, "/new")
        refusal = "a run is in progress: press Esc to cancel it first"

        def notes() -> list[str]:
            return [note.message for note in pilot.app._notifications]

        await wait_until(pilot, lambda: refusal in notes())
        assert not any(note.startswith("Left session") for note in notes())
        assert screen.composer.text == "/new"  # kept, as a command that cannot run
        await pilot.press("escape")  # the editor's Esc clears the text first
        await pilot.press("escape")
        await cancelled(pilot, screen)


async def test_retry_resends_the_sessions_last_prompt_and_edit_recalls_it(
    fake_agent: AgentSandbox,
) -> None:
    sid = fake_agent.new_session()  # its last user message is "q"
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "/edit")
        await wait_until(pilot, lambda: screen.composer.text == "q")
        screen.composer.clear_line()
        await send(pilot, "/retry")
        await finished(pilot, screen)
        await wait_until(pilot, lambda: "You said: q" in screen_text(pilot))
        await send(pilot, "hang")  # a run that lasts until cancelled, however busy the machine
        await wait_until(pilot, lambda: "waiting" in screen.live.blocks_text())
        await pilot.press("escape")
        await cancelled(pilot, screen)
        await send(pilot, "/retry")  # now: the last prompt sent in this process
        await wait_until(pilot, lambda: screen.running)
        await send(pilot, "/retry")
        refusal = "cannot retry while a run is in progress."
        await wait_until(pilot, lambda: refusal in [n.message for n in pilot.app._notifications])
        if screen.composer.text:
            await pilot.press("escape")  # the editor's Esc clears the text first
        await pilot.press("escape")
        await cancelled(pilot, screen)
    prompts = [
        payload["content"]
        for kind, payload in stored(fake_agent, sid)
        if kind == "message" and isinstance(payload, dict) and payload["role"] == "user"
    ]
    assert prompts == ["q", "q", "hang", "hang"]


async def test_retry_and_edit_with_nothing_to_recall(fake_agent: AgentSandbox) -> None:
    async with AgentApp(fake_agent, None).run_test(size=SIZE) as pilot:
        screen = await ready(pilot, new=True)
        await send(pilot, "/retry")
        await send(pilot, "/edit")
        await wait_until(
            pilot, lambda: any("recall" in n.message for n in pilot.app._notifications)
        )
        messages = [n.message for n in pilot.app._notifications]
        assert "no previous prompt to resend." in messages
        assert "no previous prompt to recall." in messages
        assert not screen.running


async def test_a_new_conversation_gets_its_id_from_the_agent(fake_agent: AgentSandbox) -> None:
    async with AgentApp(fake_agent, None).run_test(size=SIZE) as pilot:
        screen = await ready(pilot, new=True)
        assert "New conversation" in str(screen.query_one("#transcript-title", Static).visual)
        await send(pilot, "Fix   the\nbug")
        await finished(pilot, screen)
        assert screen.session_id is not None
        await wait_until(pilot, lambda: screen.loaded)
        meta = fake_agent.store.get(screen.session_id)
        assert meta is not None
        assert meta.title == "Fix the bug"
        await wait_until(pilot, lambda: "You said: Fix" in screen_text(pilot))


async def test_a_missing_agent_is_one_line_and_the_prompt_is_kept(
    fake_agent: AgentSandbox, tmp_path: Path
) -> None:
    sid = fake_agent.new_session()
    fake_agent.env["ZERO_BIN"] = str(tmp_path / "no-such-zero")
    before = stored(fake_agent, sid)
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "hello")
        await wait_until(pilot, lambda: bool(outcome_text(screen)))
        assert "no-such-zero" in outcome_text(screen)
        assert "go install github.com/Gitlawb/zero/cmd/zero@latest" in outcome_text(screen)
        assert screen.composer.text == "hello"
        assert not screen.running
    assert stored(fake_agent, sid) == before


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("provider 401", "zero auth"),
        ("provider 429", "/retry"),
        ("crash", "panic: fake crash"),
    ],
)
async def test_failures_say_what_happened_and_what_to_do(
    fake_agent: AgentSandbox, prompt: str, expected: str
) -> None:
    sid = fake_agent.new_session()
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, prompt)
        await finished(pilot, screen)
        assert expected in outcome_text(screen)


async def test_model_and_auto_are_shown_and_passed(
    fake_agent: AgentSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    applied = spy(monkeypatch, TurnModel, "apply")  # the run's events, kept past its end
    sid = fake_agent.new_session()
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "/model gpt-5-mini")
        await send(pilot, "/auto high")
        run_status = screen.query_one("#run-status", Static)
        await wait_until(pilot, lambda: "auto: high" in str(run_status.visual))
        status = str(screen.query_one("#run-status", Static).visual)
        assert "model: gpt-5-mini" in status
        assert "auto: high" in status
        assert "unsafe" in status
        notes = [note.message for note in pilot.app._notifications]
        assert "autonomy for the next runs: high — their tools run without asking first" in notes
        await send(pilot, "slow 10")
        await wait_until(pilot, lambda: "chunk 1" in screen.live.blocks_text())
        live = screen.live.blocks_text()
        assert "Unsafe permissions are active for this run because --auto high was passed." in live
        await finished(pilot, screen)
        # read from the events the turn took in: on a busy machine the run may be over (and
        # its turn gone) by the time the test looks at the pane
        starts = [args[1] for args, _ in applied if isinstance(args[1], RunStart)]
        assert [start.model for start in starts] == ["gpt-5-mini"]


async def test_a_multi_line_prompt_keeps_its_lines(fake_agent: AgentSandbox) -> None:
    sid = fake_agent.new_session()
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        burst(pilot.app, "first")
        await pilot.pause()
        await pilot.press("ctrl+j")
        burst(pilot.app, "second\rthird")  # an unbracketed paste: Enter then more text
        await wait_until(pilot, lambda: screen.composer.text == "first\nsecond\nthird")
        assert not screen.running
        await pilot.press("enter")
        await finished(pilot, screen)
    user = [p for t, p in stored(fake_agent, sid) if t == "message"][-2]
    assert user == {"content": "first\nsecond\nthird", "role": "user"}


async def test_a_session_zero_cannot_continue_says_so_before_anything_runs(
    fake_agent: AgentSandbox,
) -> None:
    sid = fake_agent.new_session("zero_child", session_kind="child")
    before = stored(fake_agent, sid)
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "continue please")
        await wait_until(
            pilot,
            lambda: any("not resumable" in n.message for n in pilot.app._notifications),
        )
        messages = [n.message for n in pilot.app._notifications]
        assert any("Zero session is not resumable: zero_child" in m for m in messages)
        assert not screen.running
        assert screen.composer.text == "continue please"  # kept
    assert stored(fake_agent, sid) == before


async def test_a_store_zero_cannot_write_is_browse_only(
    fake_agent: AgentSandbox, tmp_path: Path
) -> None:
    from zero_tui.store import SessionStore

    elsewhere = SessionStore(tmp_path / "elsewhere")
    elsewhere.create("zero_s9", title="kept elsewhere", cwd=str(fake_agent.workspace))
    elsewhere.append_events("zero_s9", [("message", {"role": "user", "content": "q"})])
    fake_agent.store = elsewhere
    async with AgentApp(fake_agent, "zero_s9").run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        # said from the start, before anything is typed: the editor and the status line
        await wait_until(pilot, lambda: str(screen.composer.placeholder).startswith("Browse"))
        status = str(screen.query_one("#run-status", Static).visual)
        assert status.startswith("browse-only: Zero continues only sessions of a store at")
        await send(pilot, "hello")
        await wait_until(
            pilot, lambda: any("browse-only" in n.message for n in pilot.app._notifications)
        )
        notes = [note.message for note in pilot.app._notifications]
        assert any("is not one: a --store elsewhere is browse-only" in n for n in notes)
        assert not screen.running
        assert screen.composer.text == "hello"
    assert len(elsewhere.read_events("zero_s9")) == 1


async def test_a_bracketed_paste_keeps_its_lines_and_does_not_send(
    fake_agent: AgentSandbox,
) -> None:
    from textual import events

    sid = fake_agent.new_session()
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        pilot.app.post_message(events.Paste("def f():\n    return 1\n"))
        await wait_until(pilot, lambda: screen.composer.text == "def f():\n    return 1\n")
        assert not screen.running
