"""ctrl+c and ctrl+q as a newcomer presses them (issue 25, items 13 and 14): ctrl+c cancels
the run in flight as Esc does and otherwise says which key quits, in plain words; ctrl+q
while a run streams asks before the streamed answer is lost."""

from __future__ import annotations

import pytest
from agent_fixtures import AgentSandbox
from conftest import wait_until
from keys import burst
from test_app_agent import outcome_text
from test_app_turn_actions import SIZE, app_for, dialog_of, hanging_run, notes, opened

from zero_tui.ui.screens.dialogs import QuitDialog


async def test_ctrl_c_cancels_the_run_in_flight(fake_agent: AgentSandbox) -> None:
    sid = fake_agent.new_session()
    async with app_for(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await opened(pilot, sid)
        await hanging_run(pilot, screen)
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not screen.running)
        assert "■" in outcome_text(screen)  # cancelled, as Esc cancels
        assert pilot.app.is_running


async def test_ctrl_c_with_no_run_says_which_key_quits(fake_agent: AgentSandbox) -> None:
    sid = fake_agent.new_session()
    async with app_for(fake_agent, sid).run_test(size=SIZE) as pilot:
        await opened(pilot, sid)
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: bool(notes(pilot)))
        assert notes(pilot)[-1] == "ctrl+q quits zero-tui, and so does ctrl+c again"
        assert pilot.app.is_running


async def test_ctrl_q_mid_run_asks_first(fake_agent: AgentSandbox) -> None:
    sid = fake_agent.new_session()
    app = app_for(fake_agent, sid)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot, sid)
        await hanging_run(pilot, screen)
        await pilot.press("ctrl+q")
        await dialog_of(pilot, QuitDialog)
        await pilot.press("escape")  # keep running
        await wait_until(pilot, lambda: pilot.app.screen is screen)
        assert screen.running
        burst(pilot.app, "/quit\r")  # /quit asks too
        await dialog_of(pilot, QuitDialog)
        await pilot.press("y")
        await wait_until(pilot, lambda: not pilot.app.is_running)
    assert app.return_code == 0


async def test_ctrl_q_with_no_run_quits_at_once(fake_agent: AgentSandbox) -> None:
    sid = fake_agent.new_session()
    app = app_for(fake_agent, sid)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, sid)
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: not pilot.app.is_running)


@pytest.mark.parametrize("note_up", [True, False])
async def test_ctrl_c_again_while_its_note_is_up_quits(
    fake_agent: AgentSandbox, note_up: bool
) -> None:
    sid = fake_agent.new_session()
    app = app_for(fake_agent, sid)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, sid)
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: len(notes(pilot)) == 1)
        if not note_up:
            app._quit_note_at -= app.NOTIFICATION_TIMEOUT  # as if the note had timed out
        await pilot.press("ctrl+c")
        if note_up:
            await wait_until(pilot, lambda: not pilot.app.is_running)
        else:
            await wait_until(pilot, lambda: len(notes(pilot)) == 2)  # says it again
            assert pilot.app.is_running
    assert app.return_code == (0 if note_up else None)  # None: the test ended it
