"""The usage screen's figures (issue 20, part 3): a window of UTC days in two scopes, the
top sessions, a session's own tokens, and Zero's cost estimate asked of Zero."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from zero_tui.agent.zero_commands import estimate_cost
from zero_tui.store import SessionStore
from zero_tui.store.token_counts import Tokens, session_tokens
from zero_tui.text.labels import compact_count, cost_label
from zero_tui.transcript.usage_report import (
    UsageCancelled,
    usage_overviews,
    usage_report,
    window_days,
)

TODAY = date(2026, 7, 4)


def usage(prompt: int, completion: int, **more: object) -> tuple[str, object]:
    payload = {"promptTokens": prompt, "completionTokens": completion}
    return ("provider_usage", {**payload, "totalTokens": prompt + completion, **more})


class Clock:
    """The store's clock, set before each append."""

    def __init__(self) -> None:
        self.moment = datetime(2026, 7, 4, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.moment

    def at(self, day: date, hour: int = 9) -> None:
        self.moment = datetime(day.year, day.month, day.day, hour, tzinfo=UTC)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(tmp_path: Path, clock: Clock) -> SessionStore:
    store = SessionStore(tmp_path / "zero" / "sessions", clock=clock)
    store.create("here-big", title="Big one", cwd="/w", model_id="gpt-5")
    clock.at(TODAY - timedelta(days=2))
    store.append_events("here-big", [usage(3000, 300, cachedInputTokens=2048)])
    clock.at(TODAY)
    store.append_events("here-big", [usage(4000, 400, cachedInputTokens=3072)])
    store.create("here-old", title="Long ago", cwd="/w", model_id="gpt-5")
    clock.at(TODAY - timedelta(days=40))
    store.append_events("here-old", [usage(9000, 900)])
    store.create("there", title="", cwd="/elsewhere", model_id="o3")
    clock.at(TODAY - timedelta(days=29))
    store.append_events("there", [usage(1000, 100, model="o3-pro")])
    return store


def test_the_window_is_today_and_the_days_before() -> None:
    days = window_days(TODAY, 3)
    assert days == ["2026-07-02", "2026-07-03", "2026-07-04"]
    assert len(window_days(TODAY)) == 30
    assert window_days(TODAY)[0] == "2026-06-05"


def test_every_day_of_the_window_even_a_quiet_one(store: SessionStore) -> None:
    overviews = usage_overviews(store, store.list(), "/w", TODAY)
    everywhere = overviews.every_workspace
    assert everywhere.since == "2026-06-05"
    assert len(everywhere.days) == 30
    by_day = {day: tokens.total for day, tokens in everywhere.days}
    assert by_day["2026-07-04"] == 4400
    assert by_day["2026-07-02"] == 3300
    assert by_day["2026-06-05"] == 1100  # the window's first day counts
    assert by_day["2026-07-03"] == 0
    # the 40-day-old session is outside the window: not counted, not listed
    assert everywhere.total.total == 8800
    assert everywhere.sessions == 2
    assert [item.session_id for item in everywhere.top_sessions] == ["here-big", "there"]
    assert everywhere.top_sessions[0].title == "Big one"
    assert [name for name, _tokens in everywhere.models] == ["gpt-5", "o3-pro"]
    assert [cwd for cwd, _tokens in everywhere.workspaces] == ["/w", "/elsewhere"]


def test_the_window_equals_the_report_zero_gives_with_since(store: SessionStore) -> None:
    overview = usage_overviews(store, store.list(), "/w", TODAY).every_workspace
    report = usage_report(store, store.list(), since=overview.since)
    assert overview.total == report.total
    assert {day: t for day, t in overview.days if t.requests} == report.by_day


def test_this_workspace_is_the_picker_s(store: SessionStore) -> None:
    here = usage_overviews(store, store.list(), "/w", TODAY).this_workspace
    assert not here.every_workspace
    assert here.total.total == 7700
    assert [item.session_id for item in here.top_sessions] == ["here-big"]
    assert [cwd for cwd, _tokens in here.workspaces] == ["/w"]
    assert usage_overviews(store, store.list(), "/w", TODAY).scope(False) == here


def test_the_top_sessions_are_cut_largest_first(store: SessionStore, clock: Clock) -> None:
    for number in range(5):
        store.create(f"small-{number}", cwd="/w")
        clock.at(TODAY)
        store.append_events(f"small-{number}", [usage(10 + number, 1)])
    overview = usage_overviews(store, store.list(), "/w", TODAY, top=3).every_workspace
    assert [item.session_id for item in overview.top_sessions] == ["here-big", "there", "small-4"]
    assert overview.sessions == 7


def test_a_day_after_today_is_shown_as_zero_counts_it(store: SessionStore, clock: Clock) -> None:
    store.create("ahead", cwd="/w")
    clock.at(TODAY + timedelta(days=1))
    store.append_events("ahead", [usage(5, 5)])
    overview = usage_overviews(store, store.list(), "/w", TODAY).every_workspace
    assert overview.days[-1][0] == "2026-07-05"
    assert sum(tokens.total for _day, tokens in overview.days) == overview.total.total


def test_an_unreadable_log_is_left_out_once_and_said(store: SessionStore, clock: Clock) -> None:
    store.create("bad", cwd="/w")
    clock.at(TODAY)
    store.append_events("bad", [("provider_usage", {"promptTokens": "many"})])
    overviews = usage_overviews(store, store.list(), "/w", TODAY)
    assert [item.session_id for item in overviews.skipped] == ["bad"]
    assert "cannot unmarshal string" in overviews.skipped[0].reason
    assert overviews.this_workspace.total.total == 7700


def test_a_session_s_tokens(store: SessionStore) -> None:
    tokens = session_tokens(store, "here-big")
    assert (tokens.requests, tokens.input, tokens.output, tokens.cached) == (2, 7000, 700, 5120)
    assert session_tokens(store, "here-old").total == 9900  # every day, not a window


def test_compact_counts_for_the_chart() -> None:
    cases = {
        0: "0",
        999: "999",
        1000: "1k",
        1234: "1.2k",
        9949: "9.9k",
        9950: "10k",
        34184: "34k",
        999_499: "999k",
        999_500: "1M",
        1_250_000: "1.2M",
        12_345_678: "12M",
        1_500_000_000: "1.5B",
    }
    assert {count: compact_count(count) for count in cases} == cases


def test_costs_read_as_zero_writes_them() -> None:
    assert cost_label(1.258) == "$1.2580"
    assert cost_label(0.0042) == "$0.004200"
    assert cost_label(0) == "$0.0000"


def usage_zero(tmp_path: Path, answer: Mapping[str, object]) -> tuple[str, Path]:
    """A fake `zero` that answers `usage report --json` and writes its arguments down."""
    script = tmp_path / "bin" / "zero"
    called = tmp_path / "zero-argv.json"
    script.parent.mkdir(exist_ok=True)
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        f"open({str(called)!r}, 'w').write(json.dumps(sys.argv[1:]))\n"
        f"print(json.dumps({dict(answer)!r}))\n"
    )
    script.chmod(0o755)
    return str(script), called


def test_the_cost_is_zero_s_for_the_window(
    store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    overview = usage_overviews(store, store.list(), "/w", TODAY).every_workspace
    answer = {
        "buckets": [{"date": "2026-07-04", "totalCost": 0.02}],
        "total": {"totalCost": 0.05, "totalTokens": overview.total.total},
    }
    zero, called = usage_zero(tmp_path, answer)
    monkeypatch.setenv("ZERO_BIN", zero)
    estimate = estimate_cost(store, overview.total, since=overview.since, every_workspace=True)
    assert json.loads(called.read_text()) == ["usage", "report", "--json", "--since", "2026-06-05"]
    assert estimate.cost is not None
    assert (estimate.cost.total, estimate.cost.by_day, estimate.note) == (
        0.05,
        {"2026-07-04": 0.02},
        "",
    )


def test_a_cost_zero_counted_otherwise_says_so(
    store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = {"buckets": [], "total": {"totalCost": 0.05, "totalTokens": 1}}
    monkeypatch.setenv("ZERO_BIN", usage_zero(tmp_path, answer)[0])
    estimate = estimate_cost(store, Tokens(1, 5, 5, 10), since="", every_workspace=True)
    assert estimate.cost is not None
    assert estimate.note == (
        "Zero counted 1 tokens where zero-tui counts 10: the store changed between the two reads?"
    )


def test_no_cost_without_zero_or_for_one_workspace(
    store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    used = Tokens(1, 5, 5, 10)
    zero, called = usage_zero(tmp_path, {})
    monkeypatch.setenv("ZERO_BIN", zero)
    scoped = estimate_cost(store, used, since="", every_workspace=False)
    assert (scoped.cost, scoped.out_of_scope) == (None, True)
    assert estimate_cost(store, Tokens(), since="", every_workspace=True).cost is None
    assert not called.exists()  # neither asked Zero
    monkeypatch.setenv("ZERO_BIN", str(tmp_path / "no-such-zero"))
    missing = estimate_cost(store, used, since="", every_workspace=True)
    assert missing.cost is None
    assert missing.note.startswith("no cost estimate: ")


def test_progress_is_told_and_a_cancel_stops_the_reading(
    store: SessionStore, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("zero_tui.transcript.usage_report.PROGRESS_EVERY", 2)
    for number in range(5):
        store.create(f"more-{number}", cwd="/w")
        clock.at(TODAY)
        store.append_events(f"more-{number}", [usage(10, 1)])
    heard: list[int] = []
    usage_overviews(store, store.list(), "/w", TODAY, progress=heard.append)
    assert heard == [2, 4, 6]  # eight logs: told after every second one read
    asked: list[bool] = []

    def cancelled() -> bool:
        asked.append(True)
        return len(asked) == 2

    with pytest.raises(UsageCancelled):
        usage_overviews(store, store.list(), "/w", TODAY, cancelled=cancelled)
