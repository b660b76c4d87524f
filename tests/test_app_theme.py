"""config.toml's `theme`, the palette's live switch and what it remembers (Pilot, SVG)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import StoreBuilder, assistant, fixed_clock, no_cursor_blink, settle, user, wait_until
from textual.command import CommandList
from textual.pilot import Pilot

from zero_tui.preferences import Preferences, RememberedTheme, remembered_theme, state_path
from zero_tui.ui.app import ZeroApp, make_app
from zero_tui.ui.screens.picker import PickerScreen

W = "/home/u/proj"
SnapCompare = Callable[..., bool]


def themed_app(
    make_store: Callable[..., StoreBuilder],
    theme: str | None,
    remembered: RememberedTheme | None = None,
) -> ZeroApp:
    builder = make_store()
    builder.add(
        "s1",
        title="Fix the date parser",
        cwd=W,
        model_id="gpt-5",
        updated_at="2026-07-04T11:00:00Z",
        events=[user("The parser rejects offsets."), assistant("Fixed: offsets parse.")],
    )
    builder.add("s2", title="Write the docs", cwd=W, updated_at="2026-07-03T09:00:00Z")
    return make_app(
        builder.store,
        cwd=W,
        clock=fixed_clock(),
        preferences=Preferences(theme=theme),
        remembered=remembered,
    )


def palette_options(pilot: Pilot[Any]) -> str:
    return " ".join(
        str(option.prompt)
        for found in pilot.app.screen.query(CommandList)
        for option in found.options
    )


async def test_the_palettes_switch_applies_at_once_and_is_remembered(
    make_store: Callable[..., StoreBuilder],
) -> None:
    app = themed_app(make_store, "nord")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert app.theme == "nord"
        await pilot.press("f1")
        await pilot.press(*"theme")
        await wait_until(pilot, lambda: "Theme" in palette_options(pilot), "the palette's Theme")
        await pilot.press("enter")
        await pilot.press(*"gruvbox")
        await wait_until(pilot, lambda: "gruvbox" in palette_options(pilot), "gruvbox offered")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.theme == "gruvbox", "the theme switched")
        await wait_until(pilot, state_path().exists, "the choice written")
    assert remembered_theme() == RememberedTheme("gruvbox", "nord")
    assert json.loads(state_path().read_text()) == {"theme": "gruvbox", "configTheme": "nord"}


async def test_a_remembered_theme_starts_the_next_run(
    make_store: Callable[..., StoreBuilder],
) -> None:
    app = themed_app(make_store, "nord", RememberedTheme("gruvbox", "nord"))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert app.theme == "gruvbox"
        assert not state_path().exists()  # starting with it writes nothing


async def test_config_toml_wins_once_it_changes(make_store: Callable[..., StoreBuilder]) -> None:
    app = themed_app(make_store, "dracula", RememberedTheme("gruvbox", "nord"))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert app.theme == "dracula"


async def settled(pilot: Pilot[Any]) -> None:
    await settle(pilot)
    await no_cursor_blink(pilot)


@pytest.mark.parametrize("theme", ["textual-light", "nord"])
def test_snapshot_the_picker_in_a_theme(
    snap_compare: SnapCompare, make_store: Callable[..., StoreBuilder], theme: str, tmp_path: Path
) -> None:
    assert snap_compare(themed_app(make_store, theme), terminal_size=(80, 24), run_before=settled)
