"""SVG snapshots of the usage screen on the demo store (fixed clock, a fake `zero` for the
cost, the home folder in the temp dir so paths read `~/…`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from conftest import NOW, fixed_clock, no_cursor_blink, wait_until
from test_app_commands import command, picker_ready
from test_usage_overview import usage_zero
from textual.pilot import Pilot

from zero_tui.demo import build_demo_store, demo_sessions_root
from zero_tui.store import SessionStore
from zero_tui.transcript.usage_report import usage_overviews
from zero_tui.ui.app import make_app
from zero_tui.ui.screens.usage_screen import UsageScreen

SnapCompare = Callable[..., bool]


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[SessionStore, str]:
    """The demo store as of the tests' clock, and Zero's estimate for its last 30 days."""
    monkeypatch.setenv("HOME", str(tmp_path))
    built = build_demo_store(demo_sessions_root(tmp_path), now=NOW)
    store = SessionStore(built.root)
    window = usage_overviews(store, store.list(), "", date(2026, 7, 4)).every_workspace
    answer = {
        "buckets": [{"date": "2026-07-04", "totalCost": 0.0431}],
        "total": {"totalCost": 0.7718, "totalTokens": window.total.total},
    }
    monkeypatch.setenv("ZERO_BIN", usage_zero(tmp_path, answer)[0])
    return store, str(built.workspaces[0])


async def open_usage(pilot: Pilot[Any]) -> None:
    await picker_ready(pilot)
    await command(pilot, "/usage")
    await wait_until(
        pilot,
        lambda: isinstance(pilot.app.screen, UsageScreen) and pilot.app.screen.estimate is not None,
    )
    await no_cursor_blink(pilot)


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
def test_usage_screen(
    snap_compare: SnapCompare, demo: tuple[SessionStore, str], size: tuple[int, int]
) -> None:
    store, workspace = demo
    app = make_app(store, cwd=workspace, clock=fixed_clock())
    assert snap_compare(app, terminal_size=size, run_before=open_usage)


def test_usage_screen_this_workspace_a_day_picked(
    snap_compare: SnapCompare, demo: tuple[SessionStore, str]
) -> None:
    async def this_workspace(pilot: Pilot[Any]) -> None:
        await open_usage(pilot)
        await pilot.press("tab", "left", "left", "left", "left", "left", "left")
        await pilot.pause()

    store, workspace = demo
    app = make_app(store, cwd=workspace, clock=fixed_clock())
    assert snap_compare(app, terminal_size=(120, 36), run_before=this_workspace)
