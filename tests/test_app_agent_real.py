"""The transcript screen against the real Go agent and a scripted model server on 127.0.0.1.

The same sandbox as tests/test_agent_real.py (private HOME and XDG dirs, only PATH-like
variables passed, Zero pointed at tests/model_server.py), skipping with its reason when no
real `zero` is found; the same Pilot app as tests/test_app_agent.py, with the engine on
the real `zero`. Each test watches the live turn as it is rendered, then the rows the
screen rebuilds from what Zero stored.
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from agent_fixtures import AgentSandbox
from conftest import wait_until
from model_server import Failure, ModelServer, Response, serve, stalled, text_answer, tool_call
from test_agent_real import UNKNOWN_MODEL, point_at, stored
from test_agent_real import real_agent as real_agent  # the fixture
from test_app_agent import SIZE, AgentApp, outcome_text, ready, send, whole_screen
from test_transcript_screen import screen_text
from textual.pilot import Pilot
from textual.widgets import Static

from zero_tui.agent import running as running_module
from zero_tui.agent.outcome import HINTS, Category
from zero_tui.ui.screens.transcript import TranscriptScreen
from zero_tui.ui.widgets import agent_pane

pytestmark = pytest.mark.agent


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
    await wait_until(pilot, lambda: not screen.running and not screen.live.shown and screen.loaded)
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
            # the live card, drawn as the stored one: the call's file, its status once the
            # result came, the output's first lines
            assert any("▸ read_file  notes.txt  ok" in text for text in seen), seen
            assert not any('{"path"' in text for text in seen), seen
            assert "the word is pineapple" in seen[-1]
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
            # the error Zero stored is a row; under the run, once, what to do about it
            outcome = outcome_text(screen)
            assert outcome == "✖ The run failed: its error is above. — " + HINTS[Category.AUTH]
            rows = screen_text(pilot)
            assert "error: auth error:" in rows
            assert "Incorrect API key provided" in rows


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
            )
            assert screen.running
            await pilot.press("escape")  # the editor is empty: Esc cancels the run
            await wait_until(pilot, lambda: not screen.running and screen.live.kept)
            assert pilot.app.screen is screen
            assert outcome_text(screen) == "■ Run cancelled."
            # what was streamed, which Zero does not store, stays under the stored rows
            assert screen.live.blocks_text().strip() == "Thinking about it"
    assert stored(real_agent.store, session)[-2:] == [
        ("message", {"content": "hi", "role": "user"}),
        ("error", {"message": "interrupted"}),
    ]


# --- issue 17: one run per session, a healthy log first, nothing the agent said dropped ----


@pytest.fixture
def private_runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setattr(running_module, "_process_scan", None)


async def test_a_session_removed_mid_run_is_said_and_what_was_shown_stays(
    real_agent: AgentSandbox, private_runtime: None
) -> None:
    """Zero goes on, stops recording, ends with exit 0 and its warning on stderr."""
    session = real_agent.new_session()
    answer = text_answer("one ", "two ", "three", pause=0.7)
    with app_on(real_agent, [answer], session) as (app, _server):
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(pilot)
            await send(pilot, "count to three")
            await wait_until(pilot, lambda: "one" in screen.live.blocks_text())
            shutil.rmtree(real_agent.store.session_dir(session))
            await wait_until(pilot, lambda: not screen.running)
            notes = outcome_text(screen)
            assert notes.startswith("✖ This session was removed while the run was in flight")
            assert "⚠ zero: WARNING: session not fully recorded: open zero session lock:" in notes
            assert "one two three" in screen.live.blocks_text()
            assert "earlier work" in str(screen.query_one("#transcript-title", Static).visual)


async def test_no_connection_is_said_once_with_zero_doctor(
    real_agent: AgentSandbox, private_runtime: None
) -> None:
    session = real_agent.new_session()
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # nothing listens on it
    real_agent.env.update(
        OPENAI_BASE_URL=f"http://127.0.0.1:{port}/v1",
        OPENAI_API_KEY="test-key-not-secret",
        OPENAI_MODEL=UNKNOWN_MODEL,
    )
    app = AgentApp(real_agent, session)
    app.engine = real_agent.engine(grace_seconds=10.0, exit_timeout=30.0)
    async with app.run_test(size=(110, 50)) as pilot:
        screen = await ready(pilot)
        await send(pilot, "hi")
        await finished(pilot, screen)
        assert outcome_text(screen) == (
            "✖ The run failed: its error is above. — " + HINTS[Category.CONNECTIVITY]
        )
        await pilot.pause(0.2)
        assert whole_screen(pilot).count("upstream unreachable") == 1


async def test_a_rate_limited_run_says_it_waits_and_zero_prints_no_retries(
    real_agent: AgentSandbox, private_runtime: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Zero retries a 429 six times in silence (internal/providers/providerio/retry.go logs
    nothing; nothing reaches stdout or stderr): the status line says the model is silent."""
    monkeypatch.setattr(agent_pane, "QUIET_SECONDS", 1.0)
    session = real_agent.new_session()
    limited = Failure(429, "Rate limit reached for requests", (("Retry-After", "1"),))
    seen: list[str] = []
    with app_on(real_agent, [limited], session) as (app, server):
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(pilot)
            await send(pilot, "hi")

            def watch() -> bool:
                seen.append(str(screen.query_one("#run-status", Static).visual))
                return not screen.running and not screen.live.shown

            await wait_until(pilot, watch)
            assert outcome_text(screen) == (
                "✖ The run failed: its error is above. — " + HINTS[Category.RATE_LIMIT]
            )
    assert len(server.chat_requests()) == 6
    assert any("waiting for the model: no output for" in line for line in seen), seen


async def test_a_torn_tail_is_cut_and_zero_continues_the_session(
    real_agent: AgentSandbox, private_runtime: None
) -> None:
    session = real_agent.new_session()
    log = real_agent.store.events_path(session)
    healthy = log.read_bytes()
    log.write_bytes(healthy + b'{"createdAt":"2026-')
    with app_on(real_agent, [text_answer("Still ", "here.")], session) as (app, _server):
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(pilot)
            await send(pilot, "after the crash")
            await finished(pilot, screen)
            notes = outcome_text(screen)
            assert notes.startswith("⚠ Before the run: the log's last line was torn")
            await wait_until(pilot, lambda: "Still here." in screen_text(pilot))
    assert log.read_bytes().startswith(healthy)
    assert stored(real_agent.store, session)[-1] == (
        "message",
        {"content": "Still here.", "role": "assistant"},
    )


@pytest.fixture
def zero_exec_elsewhere(
    real_agent: AgentSandbox, private_runtime: None
) -> Iterator[tuple[str, ModelServer, subprocess.Popen[bytes]]]:
    """A real `zero exec --resume=<session>` in flight, its model stalled mid-answer."""
    session = real_agent.new_session()
    with serve([stalled("Thinking")]) as server:
        point_at(real_agent, server)
        argv = [real_agent.env["ZERO_BIN"], "exec", "--output-format", "stream-json"]
        argv += [f"--resume={session}", "--cwd", str(real_agent.workspace)]
        argv += ["--no-completion-gate", "--", "slow external run"]
        other = subprocess.Popen(
            argv, env=real_agent.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            assert server.stalled.wait(30)
            yield session, server, other
        finally:
            other.send_signal(signal.SIGINT)
            other.wait(30)


async def test_a_zero_exec_running_on_the_session_refuses_a_second_run(
    real_agent: AgentSandbox,
    zero_exec_elsewhere: tuple[str, ModelServer, subprocess.Popen[bytes]],
) -> None:
    session, server, other = zero_exec_elsewhere
    app = AgentApp(real_agent, session)
    app.engine = point_at(real_agent, server)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "concurrent prompt")
        await wait_until(pilot, lambda: bool(outcome_text(screen)))
        assert f"running in a `zero` process (pid {other.pid})" in outcome_text(screen)
        assert screen.composer.text == "concurrent prompt"
    prompts = [p for t, p in stored(real_agent.store, session) if t == "message"]
    assert {"content": "concurrent prompt", "role": "user"} not in prompts
