"""SVG snapshots of pins, tags, marks, the tag dialog and a bulk question (issue 29), at
80x24 and 160x45."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import StoreBuilder, fixed_clock, settle
from test_snapshots_picker import SnapCompare, long_titles_store, picker_store, settled
from textual.pilot import Pilot

from zero_tui.store.session_flags import SessionFlags, update_flags
from zero_tui.ui.app import make_app

W = "/home/u/proj"
SIZES = [(80, 24), (160, 45)]
FIXTURES = (long_titles_store, picker_store)  # used by name below


@pytest.fixture
def kept_store(long_titles_store: StoreBuilder) -> StoreBuilder:
    root = long_titles_store.root
    update_flags(root, ["zero_20251231235959_4"], lambda _f: SessionFlags(True, False, ("cli",)))
    update_flags(
        root,
        ["zero_20260704114500_7"],
        lambda _f: SessionFlags(False, False, ("work", "review", "parser")),
    )
    update_flags(root, ["zero_20260307093000_3"], lambda _f: SessionFlags(archived=True))
    return long_titles_store


def run_keys(*keys: str) -> Any:
    async def run(pilot: Pilot[Any]) -> None:
        await settled(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        await settled(pilot)

    return run


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_pins_tags_and_marks(
    snap_compare: SnapCompare, kept_store: StoreBuilder, size: tuple[int, int]
) -> None:
    app = make_app(kept_store.store, cwd=W, clock=fixed_clock())
    keys = run_keys("down", "ctrl+x", "ctrl+x")
    assert snap_compare(app, terminal_size=size, run_before=keys)


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_the_tag_dialog(
    snap_compare: SnapCompare, kept_store: StoreBuilder, size: tuple[int, int]
) -> None:
    app = make_app(kept_store.store, cwd=W, clock=fixed_clock())
    keys = run_keys("ctrl+x", "ctrl+x", "alt+t", "plus", "w", "o", "r", "k", "space", "a", ",")
    assert snap_compare(app, terminal_size=size, run_before=keys)


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_a_bulk_question(
    snap_compare: SnapCompare, kept_store: StoreBuilder, size: tuple[int, int]
) -> None:
    app = make_app(kept_store.store, cwd=W, clock=fixed_clock())
    keys = run_keys("ctrl+x", "ctrl+x", "ctrl+x", "alt+a")
    assert snap_compare(app, terminal_size=size, run_before=keys)
