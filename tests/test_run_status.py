"""The run status line's one value and its text (zero_tui/ui/widgets/agent_pane.py)."""

from __future__ import annotations

from zero_tui.agent.settings import RunSettings
from zero_tui.ui.widgets.agent_pane import RunPhase, RunState, RunStatus


def test_between_runs_the_settings_and_a_warning() -> None:
    status = RunStatus.of(RunSettings(model="gpt-5", auto="high"), RunState())
    assert status.unsafe
    assert status.text(now=5.0) == (
        "model: gpt-5 · auto: high · unsafe: tools run without approval"
    )


def test_a_run_has_a_spinner_its_time_and_tokens() -> None:
    run = RunState(RunPhase.RUNNING, began=10.0, tokens=12345)
    status = RunStatus.of(RunSettings(), run)
    assert status.text(now=10.0) == (
        "⠋ running 0s · 12,345 tokens · model: default · auto: low · Esc: cancel"
    )
    assert status.text(now=12.25).startswith("⠹ running 2s · ")  # 22 frames in: the third glyph


def test_starting_and_cancelling_say_so() -> None:
    settings = RunSettings()
    starting = RunStatus.of(settings, RunState(RunPhase.STARTING, began=0.0))
    assert starting.text(now=0.0).startswith("⠋ starting zero 0s · model")
    cancelling = RunStatus.of(settings, RunState(RunPhase.CANCELLING, began=0.0))
    assert "cancelling (Esc again: kill)" in cancelling.text(now=0.0)


def test_the_working_folder_note_comes_last_and_stays_after_the_run() -> None:
    note = "the recorded folder is gone: running in /srv/webapp"
    running = RunStatus.of(RunSettings(), RunState(RunPhase.RUNNING, cwd_note=note))
    assert running.text(now=0.0).endswith("Esc: cancel · " + note)
    idle = RunStatus.of(RunSettings(), RunState(cwd_note=note))
    assert idle.text(now=0.0) == "model: default · auto: low · " + note


def test_a_run_at_its_own_autonomy_says_that_autonomy_until_it_ends() -> None:
    """Issue 25, item 21: allow and retry runs once at --auto high; the status line says
    high while that run is in flight, and the settings' level again once it is over."""
    settings = RunSettings()
    retry = RunState(RunPhase.RUNNING, auto="high")
    assert "auto: high" in RunStatus.of(settings, retry).text(now=0.0)
    after = RunStatus.of(settings, RunState(auto="high"))
    assert after.text(now=0.0) == "model: default · auto: low"
    assert not after.unsafe
