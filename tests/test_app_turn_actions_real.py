"""A denied tool call and its way forward against the real Go agent (issue 20, part 5):
the live card says what was asked while the run goes on, the stored card after it, and
allow and retry runs the turn again at --auto high for that run only. Skips, with its
reason, when no real `zero` is found (tests/test_agent_real.py)."""

from __future__ import annotations

from typing import Any

import pytest
from agent_fixtures import AgentSandbox
from conftest import wait_until
from model_server import Response, text_answer, tool_call
from test_agent_real import real_agent as real_agent  # the fixture
from test_app_agent import ready, send
from test_app_agent_real import app_on, finished, watch_live
from test_transcript_screen import screen_text

from zero_tui.ui.screens.zero_dialogs import ApprovalDialog

pytestmark = pytest.mark.agent

# destructive: Zero's sandbox asks for it whether or not a native shell sandbox is active
COMMAND = "rm -rf build"


async def test_a_denied_call_is_allowed_and_retried_at_auto_high(real_agent: AgentSandbox) -> None:
    session = real_agent.new_session()
    responses: list[Response] = [
        tool_call("call_1", "exec_command", {"cmd": COMMAND}),
        text_answer("I need your approval."),
        tool_call("call_2", "exec_command", {"cmd": COMMAND}),
        text_answer("Removed the build folder."),
    ]
    with app_on(real_agent, responses, session) as (app, _server):
        async with app.run_test(size=(130, 40)) as pilot:
            screen = await ready(pilot)
            seen = watch_live(screen)
            await send(pilot, "clean the build")
            await finished(pilot, screen)
            asked = f"⚑ approval required: exec_command: {COMMAND} — critical risk"
            assert any(asked in text for text in seen), seen
            text = " ".join(screen_text(pilot).split())
            assert asked in text
            assert "destructive shell command requires approval" in text
            assert "alt+a: allow and retry" in text
            assert "always allow" not in text  # Zero checks destructive commands first

            await pilot.press("alt+a")
            await wait_until(pilot, lambda: isinstance(pilot.app.screen, ApprovalDialog))
            await pilot.press("r")
            await wait_until(pilot, lambda: "Removed the build folder." in screen_text(pilot))
            await finished(pilot, screen)
            assert screen.settings.auto is None
    events = real_agent.store.read_events(session)
    results = [e.payload for e in events if e.type == "tool_result"]
    assert [result["status"] for result in results] == ["error", "ok"]
    decisions: list[Any] = [e.payload for e in events if e.type == "permission_decision"]
    assert decisions[-1]["permissionMode"] == "unsafe"
