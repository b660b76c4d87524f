"""The usage screen and the transcript's token hook, driven as a user drives them (Pilot)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path, PurePath
from typing import Any, ClassVar

import pytest
from conftest import EventSpec, StoreBuilder, assistant, fixed_clock, user, wait_until
from test_app_commands import command, opened, picker_ready
from test_usage_overview import usage_zero
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from zero_tui.store import SessionStore
from zero_tui.store.token_counts import Tokens
from zero_tui.ui.app import ZeroApp, css_paths, make_app
from zero_tui.ui.messages import UsageProgress
from zero_tui.ui.screens.picker import PickerScreen
from zero_tui.ui.screens.transcript import TranscriptScreen
from zero_tui.ui.screens.usage_screen import NO_WORKSPACE_COST, UsageScreen
from zero_tui.ui.widgets.day_chart import DayChart
from zero_tui.ui.widgets.transcript_log import TranscriptLog

SIZE = (110, 36)
HOSTILE = "[bold]Loud[/bold] \x1b[31mred\x1b[0m title"


def usage(prompt: int, completion: int, cached: int = 0) -> EventSpec:
    payload = {"promptTokens": prompt, "completionTokens": completion}
    return ("provider_usage", {**payload, "totalTokens": prompt + completion, **(
        {"cachedInputTokens": cached} if cached else {}
    )})  # fmt: skip


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    path.mkdir()
    return path


@pytest.fixture
def sessions(make_store: Callable[..., StoreBuilder], workspace: Path) -> StoreBuilder:
    builder = make_store("zero/sessions")
    here = str(workspace)
    builder.add(
        "s1",
        title="Fix the parser",
        cwd=here,
        model_id="gpt-5",
        updated_at="2026-07-04T10:00:00Z",
        events=[user("fix it"), usage(20_000, 500, cached=16_000), assistant("done")],
    )
    builder.add(
        "s2",
        title=HOSTILE,
        cwd="/srv/other",
        model_id="o3",
        updated_at="2026-07-02T08:00:00Z",
        events=[user("hi"), usage(3000, 100), assistant("hello")],
    )
    builder.add(
        "s3",
        title="Long ago",
        cwd=here,
        updated_at="2026-05-01T08:00:00Z",
        events=[user("old"), usage(9000, 900), assistant("old answer")],
    )
    return builder


@pytest.fixture
def zero(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fake `zero` whose estimate covers the window's 23,600 tokens."""
    answer = {
        "buckets": [{"date": "2026-07-04", "totalCost": 0.0421}],
        "total": {"totalCost": 0.0512, "totalTokens": 23_600},
    }
    monkeypatch.setenv("ZERO_BIN", usage_zero(tmp_path, answer)[0])


def app_for(builder: StoreBuilder, workspace: Path, **options: Any) -> ZeroApp:
    return make_app(builder.store, cwd=str(workspace), clock=fixed_clock(), **options)


def shown(screen: UsageScreen, widget_id: str) -> str:
    return str(screen.query_one(f"#{widget_id}", Static).render())


async def usage_ready(pilot: Pilot[Any]) -> UsageScreen:
    """The usage screen, its figures and Zero's answer in."""

    def ready() -> bool:
        screen = pilot.app.screen
        return isinstance(screen, UsageScreen) and screen.estimate is not None

    await wait_until(pilot, ready)
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, UsageScreen)
    return screen


@pytest.mark.usefixtures("zero")
async def test_usage_from_the_picker(sessions: StoreBuilder, workspace: Path) -> None:
    app = app_for(sessions, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await picker_ready(pilot)
        await command(pilot, "/usage")
        screen = await usage_ready(pilot)
        assert shown(screen, "usage-title") == (
            "Usage · every workspace · the last 30 days, 2026-06-05 to 2026-07-04 (UTC)"
        )
        assert shown(screen, "usage-summary") == (
            "23,600 tokens · 2 requests · 2 sessions · input 23,000 (16,000 cached) · output 600"
        )
        assert shown(screen, "usage-cost") == "Zero's cost estimate: $0.0512 (zero usage report)"
        assert shown(screen, "usage-day") == (
            "Sat 2026-07-04 · 20,500 tokens · 1 request · input 20,000 (16,000 cached) · "
            "output 500 · Zero's estimate $0.0421"
        )
        await pilot.press("left")
        assert shown(screen, "usage-day") == "Fri 2026-07-03 · no tokens"
        await pilot.press("left", "right", "right")  # never past the window's last day
        assert shown(screen, "usage-day").startswith("Sat 2026-07-04 · 20,500 tokens")
        models = str(screen.query_one("#usage-models").render()).splitlines()
        assert [line.split() for line in models] == [
            ["20,500", "87%", "gpt-5"],
            ["3,100", "13%", "o3"],
        ]

        await pilot.press("tab")  # this workspace: its figures, and no cost (Zero has no filter)
        assert shown(screen, "usage-title").startswith(f"Usage · {workspace} · the last 30")
        assert shown(screen, "usage-summary").startswith("20,500 tokens · 1 request · 1 session")
        assert shown(screen, "usage-cost") == NO_WORKSPACE_COST
        assert "Zero's estimate" not in shown(screen, "usage-day")
        await pilot.press("tab")
        assert shown(screen, "usage-summary").startswith("23,600 tokens")

        await pilot.press("escape")
        assert isinstance(app.screen, PickerScreen)


@pytest.mark.usefixtures("zero")
async def test_usage_from_a_transcript_opens_a_session_and_comes_back(
    sessions: StoreBuilder, workspace: Path
) -> None:
    app = app_for(sessions, workspace, resume="s2")
    async with app.run_test(size=SIZE) as pilot:
        transcript = await opened(pilot, "s2")
        titles = [entry.title for entry in transcript.system_commands()]
        assert "/usage" in titles  # in the palette too
        await command(pilot, "/usage")
        screen = await usage_ready(pilot)
        sessions_list = screen.query_one("#usage-sessions", OptionList)
        assert [sessions_list.get_option_at_index(i).id for i in range(2)] == ["s1", "s2"]
        await pilot.press("enter")  # the top session
        await opened(pilot, "s1")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is transcript)


@pytest.mark.usefixtures("zero")
async def test_session_text_is_shown_never_obeyed(sessions: StoreBuilder, workspace: Path) -> None:
    app = app_for(sessions, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await picker_ready(pilot)
        await command(pilot, "/usage")
        screen = await usage_ready(pilot)
        sessions_list = screen.query_one("#usage-sessions", OptionList)
        hostile = str(sessions_list.get_option_at_index(1).prompt)
        assert "[bold]Loud[/bold] [31mred[0m title · other" in hostile
        assert "\x1b" not in hostile


@pytest.mark.usefixtures("zero")
async def test_a_log_zero_could_not_read_is_not_counted_and_said(
    sessions: StoreBuilder, workspace: Path
) -> None:
    sessions.add(
        "bad",
        cwd=str(workspace),
        updated_at="2026-07-04T09:00:00Z",
        events=[("provider_usage", {"promptTokens": "many"})],
    )
    app = app_for(sessions, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await picker_ready(pilot)
        await command(pilot, "/usage")
        screen = await usage_ready(pilot)
        assert shown(screen, "usage-summary").startswith("23,600 tokens · 2 requests")
        assert shown(screen, "usage-summary").endswith(
            " · 1 not counted (zero-tui usage --all says why)"
        )


async def test_the_cost_says_why_it_is_missing(
    sessions: StoreBuilder, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZERO_BIN", str(tmp_path / "no-zero-here"))
    app = app_for(sessions, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await picker_ready(pilot)
        await command(pilot, "/usage")
        screen = await usage_ready(pilot)
        assert shown(screen, "usage-cost").startswith("no cost estimate: ")
        assert shown(screen, "usage-summary").startswith("23,600 tokens")  # the figures stay


@pytest.mark.usefixtures("zero")
async def test_a_click_on_the_chart_picks_that_day(sessions: StoreBuilder, workspace: Path) -> None:
    app = app_for(sessions, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await picker_ready(pilot)
        await command(pilot, "/usage")
        screen = await usage_ready(pilot)
        chart = screen.query_one(DayChart)
        geometry = chart.geometry
        assert geometry is not None
        left = chart.styles.padding.left
        x = left + geometry.bar_start(27) + geometry.bar // 2  # July 2nd
        await pilot.click(DayChart, offset=(x, chart.size.height - 3))
        await wait_until(pilot, lambda: shown(screen, "usage-day").startswith("Thu 2026-07-02"))
        assert "3,100 tokens" in shown(screen, "usage-day")


async def test_a_big_store_says_how_far_the_reading_is(
    sessions: StoreBuilder, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(UsageScreen, "_load", lambda self, today: None)  # the figures wait
    app = app_for(sessions, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await picker_ready(pilot)
        await command(pilot, "/usage")
        await wait_until(pilot, lambda: isinstance(app.screen, UsageScreen))
        screen = app.screen
        assert isinstance(screen, UsageScreen)
        assert shown(screen, "usage-summary") == "reading the sessions' usage…"
        screen.post_message(UsageProgress(0, 10_000))
        await wait_until(
            pilot, lambda: shown(screen, "usage-summary") == "reading the usage of 10,000 sessions…"
        )
        screen.post_message(UsageProgress(400, 10_000))
        await wait_until(
            pilot,
            lambda: (
                shown(screen, "usage-summary") == "reading the usage of 400 of 10,000 sessions…"
            ),
        )


# --- the transcript's tokens -------------------------------------------------------------


class TranscriptApp(App[None]):
    CSS_PATH: ClassVar[list[str | PurePath]] = [path for path in css_paths() if path.exists()]

    def __init__(self, store: SessionStore) -> None:
        super().__init__()
        self.store = store

    def on_mount(self) -> None:
        self.push_screen(TranscriptScreen(self.store, "s1"))


async def test_the_header_shows_the_tokens_and_follows_the_log(
    sessions: StoreBuilder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("zero_tui.ui.widgets.header_tokens.REREAD_SECONDS", 0.05)
    async with TranscriptApp(sessions.store).run_test(size=SIZE) as pilot:
        log = pilot.app.screen.query_one(TranscriptLog).header
        await wait_until(pilot, lambda: log.session_tokens is not None)
        assert log.session_tokens == Tokens(1, 20_000, 500, 20_500, 16_000)
        facts = log.query_one("#transcript-facts", Static)
        await wait_until(pilot, lambda: "tokens 20k in (16k cached) · 500 out" in str(facts.visual))
        # another process appends: the header's figures follow
        sessions.store.append_events("s1", [usage(1000, 10), usage(2000, 20)])
        await wait_until(
            pilot,
            lambda: log.session_tokens is not None and log.session_tokens.requests == 3,
        )
        assert log.session_tokens.total == 23_530
