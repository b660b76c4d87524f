"""SVG snapshots of a run: in flight (streamed text, reasoning, a tool card, the status
line) and finished (the rows rebuilt from what the agent stored). The fake `zero` stores
with a fixed clock, the elapsed time is fixed, and so is the screen's clock."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from agent_fixtures import AgentSandbox
from conftest import NOW, fixed_clock, no_cursor_blink, wait_until
from test_app_agent import AgentApp, finished, ready, send
from textual.pilot import Pilot
from textual.widgets import Static

from zero_tui.store import SessionStore
from zero_tui.ui.widgets import agent_pane

SnapCompare = Callable[..., bool]
SIZE = (100, 36)


@pytest.fixture
def fixed_session(fake_agent: AgentSandbox, monkeypatch: pytest.MonkeyPatch) -> str:
    """A session written at 10:00, a fake agent storing at NOW, a run that took 0 s."""
    monkeypatch.setenv("FAKE_ZERO_NOW", NOW.isoformat())
    fake_agent.env["FAKE_ZERO_NOW"] = NOW.isoformat()
    monkeypatch.setattr(agent_pane, "run_clock", lambda: 0.0)
    # the workspace under the private HOME: shown as ~/webapp, whatever the temp dir
    workspace = Path(fake_agent.env["HOME"]) / "webapp"
    workspace.mkdir()
    (workspace / "main.go").write_text("package main\n\nfunc main() {}\n")
    fake_agent.workspace = workspace
    store = SessionStore(fake_agent.store.root, clock=lambda: datetime(2026, 7, 4, 10, 0, 0))
    store.create(
        "zero_s1",
        title="Fix the date parser",
        cwd=str(workspace),
        model_id="gpt-5",
        provider="openai",
    )
    store.append_events(
        "zero_s1",
        [
            ("message", {"role": "user", "content": "Why does the parser reject +02:00?"}),
            ("message", {"role": "assistant", "content": "It only knows the `Z` layout."}),
        ],
    )
    return "zero_s1"


def test_a_run_in_flight(
    snap_compare: SnapCompare, fake_agent: AgentSandbox, fixed_session: str
) -> None:
    async def streaming(pilot: Pilot[Any]) -> None:
        screen = await ready(pilot)
        await send(pilot, "busy main.go")
        await wait_until(pilot, lambda: "one layout string" in screen.live.blocks_text())
        facts = screen.query_one("#transcript-facts", Static)
        await wait_until(pilot, lambda: "● running in this zero-tui" in str(facts.visual))
        await no_cursor_blink(pilot)
        await pilot.pause(0.3)

    app = AgentApp(fake_agent, fixed_session, clock=fixed_clock())
    assert snap_compare(app, terminal_size=SIZE, run_before=streaming)


def test_a_finished_run(
    snap_compare: SnapCompare, fake_agent: AgentSandbox, fixed_session: str
) -> None:
    async def done(pilot: Pilot[Any]) -> None:
        screen = await ready(pilot)
        await send(pilot, "tool read main.go")
        await finished(pilot, screen)
        await wait_until(pilot, lambda: screen.loaded and screen.painted)
        await no_cursor_blink(pilot)
        await pilot.pause(0.3)

    app = AgentApp(fake_agent, fixed_session, clock=fixed_clock())
    assert snap_compare(app, terminal_size=SIZE, run_before=done)


def test_a_cancelled_run_keeps_its_partial_answer(
    snap_compare: SnapCompare, fake_agent: AgentSandbox, fixed_session: str
) -> None:
    """The rows are what Zero stored (the prompt, `interrupted`); under them the answer as
    far as it was streamed, said to be unsaved, and how the run ended."""

    async def cancelled(pilot: Pilot[Any]) -> None:
        screen = await ready(pilot)
        await send(pilot, "busy main.go")
        await wait_until(pilot, lambda: "one layout string" in screen.live.blocks_text())
        await pilot.press("escape")
        await wait_until(pilot, lambda: not screen.running and screen.live.kept)
        await wait_until(pilot, lambda: screen.loaded and screen.painted)
        facts = screen.query_one("#transcript-facts", Static)
        await wait_until(pilot, lambda: "running" not in str(facts.visual))
        await no_cursor_blink(pilot)
        await pilot.pause(0.3)

    app = AgentApp(fake_agent, fixed_session, clock=fixed_clock())
    assert snap_compare(app, terminal_size=SIZE, run_before=cancelled)


def test_what_the_agent_said_on_stderr_is_shown_under_a_successful_run(
    snap_compare: SnapCompare, fake_agent: AgentSandbox, fixed_session: str
) -> None:
    async def done(pilot: Pilot[Any]) -> None:
        screen = await ready(pilot)
        await send(pilot, "stderr-note")
        await finished(pilot, screen)
        await wait_until(pilot, lambda: screen.loaded and screen.painted)
        await no_cursor_blink(pilot)
        await pilot.pause(0.3)

    app = AgentApp(fake_agent, fixed_session, clock=fixed_clock())
    assert snap_compare(app, terminal_size=SIZE, run_before=done)


def test_a_store_zero_cannot_write_says_browse_only_from_the_start(
    snap_compare: SnapCompare, fake_agent: AgentSandbox, fixed_session: str, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(fake_agent.store.root, elsewhere)
    fake_agent.store = SessionStore(elsewhere)

    async def opened(pilot: Pilot[Any]) -> None:
        screen = await ready(pilot)
        await wait_until(pilot, lambda: str(screen.composer.placeholder).startswith("Browse"))
        await no_cursor_blink(pilot)
        await pilot.pause(0.3)

    app = AgentApp(fake_agent, fixed_session, clock=fixed_clock())
    assert snap_compare(app, terminal_size=SIZE, run_before=opened)
