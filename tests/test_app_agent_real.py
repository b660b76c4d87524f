"""The transcript screen against the real Go agent and a scripted model server on 127.0.0.1.

The same sandbox as tests/test_agent_real.py (private HOME and XDG dirs, only PATH-like
variables passed, Zero pointed at tests/model_server.py), skipping with its reason when no
real `zero` is found; the same Pilot app as tests/test_app_agent.py, with the engine on
the real `zero`. Each test watches the live turn as it is rendered, then the rows the
screen rebuilds from what Zero stored.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from agent_fixtures import AgentSandbox
from model_server import Failure, ModelServer, Response, serve, stalled, text_answer, tool_call
from test_agent_real import point_at, stored
from test_agent_real import real_agent as real_agent  # the fixture
from test_app_agent import SIZE, AgentApp, outcome_text, ready, send
from test_transcript_screen import screen_text, wait_until
from textual.pilot import Pilot
from textual.widgets import Static

from zero_tui.agent.outcome import HINTS, Category
from zero_tui.ui.screens.transcript import TranscriptScreen

pytestmark = pytest.mark.agent

ROUNDS = 1500  # 0.02 s each: bounds a hang of the real agent, asserts nothing on time


@contextmanager
def app_on(
    sandbox: AgentSandbox, responses: list[Response], session_id: str
) -> Iterator[tuple[AgentApp, ModelServer]]:
    """The Pilot app, its engine on the real `zero` talking to a scripted model server."""
    with serve(responses) as server:
        app = AgentApp(sandbox, session_id)
        app.engine = point_at(sandbox, server)
        yield app, server


def watch_live(screen: TranscriptScreen) -> list[str]:
    """Every state of the live turn as the screen renders it (the run ends too fast for
    polling to catch it)."""
    seen: list[str] = []
    live = screen.live
    original = live.show

    async def show(turn: Any) -> None:
        await original(turn)
        seen.append(live.blocks_text())

    live.show = show  # type: ignore[method-assign]
    return seen


async def finished(pilot: Pilot[Any], screen: TranscriptScreen) -> None:
    """The run is over and the rows from the store have replaced the live turn."""
    await wait_until(
        pilot, lambda: not screen.running and not screen.live.shown and screen.loaded, ROUNDS
    )
    await pilot.pause()


async def test_a_streamed_answer_is_live_then_the_stored_rows(real_agent: AgentSandbox) -> None:
    session = real_agent.new_session()
    answer = text_answer("Tiny web app ", "& date ", "parser.")
    with app_on(real_agent, [answer], session) as (app, _server):
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(pilot)
            seen = watch_live(screen)
            await send(pilot, "Shorter, please")
            await finished(pilot, screen)
            assert outcome_text(screen) == ""
            assert any("Tiny web app & date parser." in text for text in seen), seen
            assert all(text.startswith("Shorter, please") for text in seen)
            rows = screen_text(pilot)
            assert "Shorter, please" in rows
            assert "Tiny web app & date parser." in rows
            facts = str(screen.query_one("#transcript-facts", Static).visual)
            assert "5 events" in facts  # the 2 earlier ones and the 3 Zero stored
    assert stored(real_agent.store, session)[-1] == (
        "message",
        {"content": "Tiny web app & date parser.", "role": "assistant"},
    )


async def test_a_tool_call_shows_a_tool_card(real_agent: AgentSandbox) -> None:
    session = real_agent.new_session()
    (real_agent.workspace / "notes.txt").write_text("the word is pineapple\n", encoding="utf-8")
    responses: list[Response] = [
        tool_call("call_1", "read_file", {"path": "notes.txt"}),
        text_answer("It says ", "pineapple."),
    ]
    with app_on(real_agent, responses, session) as (app, _server):
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(pilot)
            seen = watch_live(screen)
            await send(pilot, "What do my notes say?")
            await finished(pilot, screen)
            assert outcome_text(screen) == ""
            # the live card: the call, its status once the result came, the output's lines
            card = '▸ read_file  {"path": "notes.txt"}  '
            assert any(card + "ok" in text for text in seen), seen
            assert "1 | the word is pineapple" in seen[-1]
            assert seen[-1].endswith("It says pineapple.")
            rows = screen_text(pilot)  # the stored tool card, then the answer
            assert "▸ read_file  notes.txt  ok" in rows
            assert rows.index("read_file") < rows.index("It says pineapple.")
    types = [event_type for event_type, _payload in stored(real_agent.store, session)]
    assert types[-4:] == ["tool_call", "tool_result", "provider_usage", "message"]


async def test_http_401_shows_the_auth_hint(real_agent: AgentSandbox) -> None:
    session = real_agent.new_session()
    with app_on(real_agent, [Failure(401, "Incorrect API key provided")], session) as (app, _):
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(pilot)
            await send(pilot, "hi")
            await finished(pilot, screen)
            outcome = outcome_text(screen)
            assert outcome.startswith("✖ auth error:")
            assert "Incorrect API key provided" in outcome
            assert outcome.endswith(" — " + HINTS[Category.AUTH])
            assert "Incorrect API key provided" in screen_text(pilot)  # the stored error row


async def test_a_stalled_stream_is_cancelled_with_escape(real_agent: AgentSandbox) -> None:
    session = real_agent.new_session()
    with app_on(real_agent, [stalled("Thinking about ", "it")], session) as (app, server):
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(pilot)
            await send(pilot, "hi")
            await wait_until(
                pilot,
                lambda: (
                    "Thinking about it" in screen.live.blocks_text() and server.stalled.is_set()
                ),
                ROUNDS,
            )
            assert screen.running
            await pilot.press("escape")  # the editor is empty: Esc cancels the run
            await finished(pilot, screen)
            assert pilot.app.screen is screen
            assert outcome_text(screen) == "■ Run cancelled."
    assert stored(real_agent.store, session)[-2:] == [
        ("message", {"content": "hi", "role": "user"}),
        ("error", {"message": "interrupted"}),
    ]
