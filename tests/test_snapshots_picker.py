"""SVG snapshots of the resume picker (fixed clock, fixed size, no blinking cursor)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import StoreBuilder, assistant, fixed_clock, no_cursor_blink, settle, user
from textual.pilot import Pilot

from zero_tui.agent import running as running_module
from zero_tui.store import SessionStore
from zero_tui.ui.app import make_app

W = "/home/u/proj"
SIZE = (120, 32)

SnapCompare = Callable[..., bool]


async def settled(pilot: Pilot[Any]) -> None:
    await settle(pilot)
    await no_cursor_blink(pilot)


@pytest.fixture
def picker_store(make_store: Callable[..., StoreBuilder]) -> StoreBuilder:
    builder = make_store()
    builder.add(
        "zero_20260704113000_1",
        title="Fix date parser layout",
        cwd=W,
        model_id="claude-sonnet-4-5",
        provider="anthropic",
        updated_at="2026-07-04T11:30:00Z",
        events=[
            user("The date parser rejects 2026-07-04T10:00:00+02:00. Fix it."),
            ("tool_call", {"id": "c1", "name": "grep", "arguments": '{"pattern":"Parse"}'}),
            ("tool_result", {"toolCallId": "c1", "name": "grep", "status": "ok", "output": "x"}),
            assistant("Fixed: the layout now accepts numeric offsets.\nTests pass."),
        ],
    )
    builder.add(
        "zero_20260704090000_2",
        title="[bold]Summarize[/bold] README.md",
        cwd=W,
        model_id="gpt-5",
        provider="openai",
        session_kind="fork",
        updated_at="2026-07-04T09:00:00Z",
    )
    builder.add("zero_20260307093000_3", title="", cwd=W, updated_at="2026-03-07T09:30:00Z")
    builder.add(
        "zero_20251231235959_4",
        title="Add a --version flag to the CLI",
        cwd=W,
        model_id="gpt-5-mini",
        updated_at="2025-12-31T23:59:59Z",
    )
    builder.add(
        "zero_20260704100000_5",
        title="Port the parser to the other service",
        cwd="/srv/other-service",
        model_id="gpt-5",
        updated_at="2026-07-04T10:00:00Z",
    )
    builder.add("zero_20260704080000_6", title="Empty run", cwd=W, events=[user("hello?")])
    return builder


def test_snapshot_empty_store(
    snap_compare: SnapCompare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A relative root, so the empty state names the same store on every machine.
    monkeypatch.chdir(tmp_path)
    app = make_app(SessionStore("sessions"), cwd=W, clock=fixed_clock())
    assert snap_compare(app, terminal_size=SIZE, run_before=settled)


def test_snapshot_picker(snap_compare: SnapCompare, picker_store: StoreBuilder) -> None:
    app = make_app(picker_store.store, cwd=W, clock=fixed_clock())
    assert snap_compare(app, terminal_size=SIZE, run_before=settled)


def test_snapshot_filtered_picker(snap_compare: SnapCompare, picker_store: StoreBuilder) -> None:
    async def type_query(pilot: Pilot[Any]) -> None:
        await settled(pilot)
        await pilot.press(*"parser")
        await settled(pilot)

    app = make_app(picker_store.store, cwd=W, clock=fixed_clock())
    assert snap_compare(app, terminal_size=SIZE, run_before=type_query)


def test_snapshot_a_typo_says_why_it_matched(
    snap_compare: SnapCompare, picker_store: StoreBuilder
) -> None:
    async def type_query(pilot: Pilot[Any]) -> None:
        await settled(pilot)
        await pilot.press(*"snnet")
        await settled(pilot)

    app = make_app(picker_store.store, cwd=W, clock=fixed_clock())
    assert snap_compare(app, terminal_size=SIZE, run_before=type_query)


def test_snapshot_all_workspaces(snap_compare: SnapCompare, picker_store: StoreBuilder) -> None:
    async def widen(pilot: Pilot[Any]) -> None:
        await settled(pilot)
        await pilot.press("tab", "down")
        await settled(pilot)

    app = make_app(picker_store.store, cwd=W, clock=fixed_clock())
    assert snap_compare(app, terminal_size=SIZE, run_before=widen)


@pytest.fixture
def long_titles_store(picker_store: StoreBuilder) -> StoreBuilder:
    picker_store.add(
        "zero_20260704114500_7",
        title="Make the retry loop back off exponentially with jitter",
        cwd=W,
        model_id="claude-sonnet-4-5",
        updated_at="2026-07-04T11:45:00Z",
    )
    picker_store.add(
        "zero_20260704070000_8",
        title="Migrate the billing service to the new event bus",
        cwd="/home/u/work/clients/acme/billing-service-with-a-long-name",
        model_id="gpt-5",
        updated_at="2026-07-04T07:00:00Z",
    )
    return picker_store


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
def test_snapshot_picker_sizes(
    snap_compare: SnapCompare, long_titles_store: StoreBuilder, size: tuple[int, int]
) -> None:
    app = make_app(long_titles_store.store, cwd=W, clock=fixed_clock())
    assert snap_compare(app, terminal_size=size, run_before=settled)


@pytest.mark.parametrize("size", [(80, 24), (200, 60), (160, 40)])
def test_snapshot_all_workspaces_sizes(
    snap_compare: SnapCompare, long_titles_store: StoreBuilder, size: tuple[int, int]
) -> None:
    async def widen(pilot: Pilot[Any]) -> None:
        await settled(pilot)
        await pilot.press("tab")
        await settled(pilot)

    app = make_app(long_titles_store.store, cwd=W, clock=fixed_clock())
    assert snap_compare(app, terminal_size=size, run_before=widen)


def test_snapshot_content_search(snap_compare: SnapCompare, picker_store: StoreBuilder) -> None:
    async def search_content(pilot: Pilot[Any]) -> None:
        await settled(pilot)
        await pilot.press("ctrl+t", *"offsets")
        await settled(pilot)

    app = make_app(picker_store.store, cwd=W, clock=fixed_clock())
    assert snap_compare(app, terminal_size=SIZE, run_before=search_content)


def test_snapshot_a_running_session(
    snap_compare: SnapCompare,
    picker_store: StoreBuilder,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A session a zero-tui runs now: `●` and `running` in its row, the preview says where
    it runs, the status line counts it."""
    (tmp_path / "runtime").mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setattr(running_module, "zero_processes", lambda *_, **__: {})
    claim = running_module.claim_run(picker_store.store, "zero_20260704113000_1")
    app = make_app(picker_store.store, cwd=W, clock=fixed_clock())
    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=settled)
    finally:
        claim.release()


@pytest.fixture
def lineage_store(long_titles_store: StoreBuilder) -> StoreBuilder:
    """Tokens in two sessions and a fork of one of them at its first answer."""
    store = long_titles_store.store
    for session_id, prompt, completion, cached in (
        ("zero_20260704113000_1", 48_200, 1_350, 40_100),
        ("zero_20251231235959_4", 2_300_000, 61_000, 0),
    ):
        payload = {"promptTokens": prompt, "completionTokens": completion}
        payload |= {"totalTokens": prompt + completion, "cachedInputTokens": cached}
        store.append_events(session_id, [("provider_usage", payload)])
    from zero_tui.store.fork import fork_session

    fork_session(
        store,
        "zero_20260704113000_1",
        at_sequence=4,
        title="Fix date parser: keep the old layout",
        session_id="zero_20260704120000_9",
    )
    return long_titles_store


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
def test_snapshot_usage_column_and_a_fork(
    snap_compare: SnapCompare, lineage_store: StoreBuilder, size: tuple[int, int]
) -> None:
    """200 columns: the tokens column, the fork's row naming its parent, the preview's
    tokens and lineage; 80: no tokens column, the fork's lineage cut to fit."""

    async def on_the_fork(pilot: Pilot[Any]) -> None:
        await settled(pilot)
        await pilot.press("down")
        await settled(pilot)

    app = make_app(lineage_store.store, cwd=W, clock=fixed_clock())
    assert snap_compare(app, terminal_size=size, run_before=on_the_fork)


def test_snapshot_delete_dialog(snap_compare: SnapCompare, picker_store: StoreBuilder) -> None:
    """F8 on the row whose title looks like markup: the question names it as text."""

    async def ask(pilot: Pilot[Any]) -> None:
        await settled(pilot)
        await pilot.press("down", "f8")
        await settled(pilot)

    app = make_app(picker_store.store, cwd=W, clock=fixed_clock())
    assert snap_compare(app, terminal_size=SIZE, run_before=ask)
