"""Content search in the picker (ctrl+t), driven as a user drives it (Pilot)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import StoreBuilder, assistant, settle, user
from test_app_picker import SIZE, W, picker, picker_app, shown_ids, status, type_text
from textual.pilot import Pilot
from textual.widgets import Static
from textual.worker import WorkerState

from zero_tui.search.catalog import SessionCatalog
from zero_tui.store import SessionStore
from zero_tui.ui.screens.transcript import TranscriptScreen
from zero_tui.ui.widgets import store_feed
from zero_tui.ui.widgets.transcript_view import TranscriptView


@pytest.fixture
def content_store(make_store: Callable[..., StoreBuilder]) -> StoreBuilder:
    builder = make_store()
    builder.add(
        "payments",
        title="Explain the payment flow",
        cwd=W,
        updated_at="2026-07-04T09:00:00Z",
        events=[
            user("How do payments work here?"),
            assistant("Checkout creates a Stripe PaymentIntent."),
            user("Anything fragile?"),
            assistant("The webhook handler is not idempotent: a retried event pays twice."),
        ],
    )
    builder.add(
        "limits",
        title="Add rate limiting",
        cwd=W,
        updated_at="2026-07-04T10:00:00Z",
        events=[user("Add rate limiting"), assistant("A token bucket, 5 requests a second.")],
    )
    builder.add(
        "elsewhere",
        title="Other project",
        cwd="/srv/other",
        updated_at="2026-07-04T11:00:00Z",
        events=[user("is it idempotent?"), assistant("yes, idempotent by key")],
    )
    return builder


def snippet(pilot: Pilot[Any], line: int) -> str:
    found = picker(pilot).session_list.snippet_at(line)
    return "" if found is None else f"{found.where}: {found.text}"


async def test_ctrl_t_searches_what_was_said(content_store: StoreBuilder) -> None:
    async with picker_app(content_store).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_text(pilot, "idempotent")
        assert shown_ids(pilot) == []  # no title holds it
        await pilot.press("ctrl+t")
        await settle(pilot)
        title = str(picker(pilot).query_one("#picker-title", Static).visual)
        assert "searching what was said" in title
        assert shown_ids(pilot) == ["payments"]
        assert snippet(pilot, 0).startswith("assistant #4: ")
        assert "idempotent" in snippet(pilot, 0)
        line = picker(pilot).session_list.snippet_at(0)
        assert line is not None
        assert [line.text[a:b] for a, b in line.spans] == ["idempotent"]
        assert "1 of 2 match" in status(pilot)
        assert "1 in other workspaces" in status(pilot)  # the scope applies as for titles
        assert "content search" in status(pilot)
        await pilot.press("tab")
        await settle(pilot)
        assert shown_ids(pilot) == ["elsewhere", "payments"]
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert "searching" not in str(picker(pilot).query_one("#picker-title", Static).visual)
        assert picker(pilot).session_list.snippet_at(0) is None


async def test_words_any_order_and_a_bad_date(content_store: StoreBuilder) -> None:
    async with picker_app(content_store).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await type_text(pilot, "bucket token")
        assert shown_ids(pilot) == ["limits"]
        for _ in "bucket token":
            await pilot.press("backspace")
        await type_text(pilot, "after:2026-13-01")
        assert shown_ids(pilot) == []
        assert "YYYY-MM-DD" in status(pilot)


async def test_enter_opens_the_transcript_at_the_matching_event(
    content_store: StoreBuilder,
) -> None:
    async with picker_app(content_store).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await type_text(pilot, "idempotent")
        await pilot.press("enter")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, TranscriptScreen)
        assert screen.session_id == "payments"
        view = screen.query_one(TranscriptView)
        assert view.cursor == 3  # the fourth event: the answer that says "idempotent"
        assert view.search_query == "idempotent"


async def test_the_title_keeps_the_search_mode_after_going_up(
    make_store: Callable[..., StoreBuilder], tmp_path: Path
) -> None:
    """alt+up changes the workspace the title names, not the mode it says."""
    project = tmp_path / "webapp"
    (project / "src").mkdir(parents=True)
    builder = make_store()
    builder.add("one", title="First", cwd=str(project), updated_at="2026-07-04T10:00:00Z")
    async with picker_app(builder, cwd=str(project / "src")).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)
        await pilot.press("alt+up")
        await settle(pilot)
        title = str(picker(pilot).query_one("#picker-title", Static).visual)
        assert title == f"Resume a session · {project} · searching what was said (ctrl+t: titles)"
        assert shown_ids(pilot) == ["one"]


async def until(pilot: Pilot[Any], condition: Callable[[], bool]) -> None:
    """Let the app run until `condition` holds (a bounded number of its turns)."""
    for _ in range(2000):
        if condition():
            return
        await pilot.pause(0.01)
    raise AssertionError("the condition never held")


def content_searching(pilot: Pilot[Any]) -> bool:
    return any(
        worker.group == "content" and worker.state in (WorkerState.PENDING, WorkerState.RUNNING)
        for worker in pilot.app.workers
    )


async def test_the_first_results_show_while_the_index_is_built(
    content_store: StoreBuilder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A content query is asked again as the build goes on: the sessions indexed so far show
    before it is done, with its progress on the status line."""
    go_on, finish = threading.Event(), threading.Event()

    def staged_build(
        store: SessionStore,
        cache_dir: Path | None,
        progress: Callable[[int, int], None],
        **_: object,
    ) -> int:
        with SessionCatalog(store, cache_dir) as catalog:
            catalog.refresh()
            go_on.wait(timeout=60)
            catalog.update_content(["payments"])
            progress(1, 3)
            finish.wait(timeout=60)
            catalog.update_content()
        return 3

    monkeypatch.setattr(store_feed, "build_index", staged_build)
    async with picker_app(content_store).run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_text(pilot, "idempotent")
        await pilot.press("ctrl+t")
        await until(pilot, lambda: not content_searching(pilot))
        assert shown_ids(pilot) == []  # nothing indexed yet
        go_on.set()
        await until(pilot, lambda: shown_ids(pilot) == ["payments"])
        assert "indexing 1/3" in status(pilot)
        assert "idempotent" in snippet(pilot, 0)
        finish.set()
        await settle(pilot)
        assert shown_ids(pilot) == ["payments"]
        assert "indexing" not in status(pilot)
