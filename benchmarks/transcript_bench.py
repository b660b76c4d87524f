"""Transcript budget (design §4): a 100,000-event (~100 MB) session opens in under 0.5 s,
with peak memory under 2x the log size.

`run()` writes the session straight to disk (lines built with `Event.to_json_line()`, so
they are byte-compatible with Zero's), opens the transcript screen headless and reports the
time to the first screen, the same for a 10-event session in the same run (the app's own
start-up on this machine, and the ratio of the two), the events decoded for the first
screen and per page, and the peak memory (tracemalloc, in a second run) against the log
size.
Run it with `python -m benchmarks.transcript_bench` from the repository root.
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path, PurePath
from typing import Any, ClassVar

from textual.app import App

from benchmarks.big_session import EVENT_COUNT, SESSION_ID, write_session
from zero_tui.store import Event, SessionStore
from zero_tui.transcript.log_index import LogIndex
from zero_tui.ui.app import css_paths
from zero_tui.ui.screens.transcript import TranscriptScreen
from zero_tui.ui.widgets.transcript_view import TranscriptView

SIZE = (120, 40)
PAGES = 20
BASELINE_ID = "baseline"
BASELINE_EVENTS = 10
"""A tiny session opened in the same run: the app's own start-up time on this machine."""


class _BenchApp(App[None]):
    CSS_PATH: ClassVar[list[str | PurePath]] = [path for path in css_paths() if path.exists()]

    def __init__(self, store: SessionStore, session_id: str) -> None:
        super().__init__()
        self.store = store
        self.session_id = session_id

    def on_mount(self) -> None:
        self.push_screen(TranscriptScreen(self.store, self.session_id))


def _screen_text(view: TranscriptView) -> str:
    return "\n".join(view.render_line(y).text for y in range(view.size.height))


async def _first_screen(store: SessionStore, session_id: str = SESSION_ID) -> dict[str, Any]:
    decoded: list[int] = []
    original_decode = LogIndex.decode

    def counting_decode(index: LogIndex, line: int) -> Event:
        decoded.append(line)
        return original_decode(index, line)

    setattr(LogIndex, "decode", counting_decode)  # noqa: B010 (counting, restored below)
    try:
        app = _BenchApp(store, session_id)
        started = time.perf_counter()
        async with app.run_test(size=SIZE) as pilot:
            while not (isinstance(app.screen, TranscriptScreen) and app.screen.painted):
                await pilot.pause(0.001)
            finished = time.perf_counter()
            view = app.screen.query_one(TranscriptView)
            shown = view.visible_rows()
            shows_latest = bool(shown) and shown[-1][0] == view.event_count - 1
            decoded_first = len(decoded)
            while not app.screen.loaded:
                await pilot.pause(0.001)
            whole_log = time.perf_counter() - started
            jump_started = time.perf_counter()
            await pilot.press("ctrl+home")
            jump_to_top = time.perf_counter() - jump_started
            top = _screen_text(view)
            decoded.clear()
            scroll_started = time.perf_counter()
            for _ in range(PAGES):
                await pilot.press("pagedown")
            page_scroll = (time.perf_counter() - scroll_started) / PAGES
            decoded_paging = len(decoded)
    finally:
        setattr(LogIndex, "decode", original_decode)  # noqa: B010
    return {
        "first_screen_s": round(finished - started, 3),
        "whole_log_indexed_s": round(whole_log, 3),
        "jump_to_top_s": round(jump_to_top, 3),
        "page_down_s": round(page_scroll, 4),
        "events_decoded_for_first_screen": decoded_first,
        "events_decoded_per_page_down": round(decoded_paging / PAGES, 1),
        "opens_on_latest_row": shows_latest,
        "top_shows_resume_card": "Resumed Zero session" in top,
    }


def _peak_memory(store: SessionStore) -> int:
    """Peak traced allocation while opening the session (a separate, slower run)."""
    tracemalloc.start()
    try:
        asyncio.run(_first_screen(store))
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def run(count: int = EVENT_COUNT) -> dict[str, Any]:
    """Generate the session, open it, and return the measurements."""
    with tempfile.TemporaryDirectory(prefix="zero-tui-bench-") as directory:
        root = Path(directory)
        generated = time.perf_counter()
        log = write_session(root, count)
        generate_s = time.perf_counter() - generated
        log_size = log.stat().st_size
        store = SessionStore(root)
        write_session(root, BASELINE_EVENTS, BASELINE_ID)
        baseline = asyncio.run(_first_screen(store, BASELINE_ID))  # also warms imports up
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        result = asyncio.run(_first_screen(store))
        peak = _peak_memory(store)
        rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result.update(
        baseline_first_screen_s=baseline["first_screen_s"],
        first_screen_over_baseline=round(result["first_screen_s"] / baseline["first_screen_s"], 2),
        events=count,
        log_bytes=log_size,
        generate_s=round(generate_s, 2),
        peak_traced_bytes=peak,
        peak_memory_ratio=round(peak / log_size, 3),
        max_rss_growth_bytes=(rss_after - rss_before) * 1024,
        first_screen_budget_s=0.5,
        memory_budget_ratio=2.0,
    )
    result["within_budget"] = result["first_screen_s"] < 0.5 and result["peak_memory_ratio"] < 2.0
    return result


if __name__ == "__main__":
    events = int(sys.argv[1]) if len(sys.argv) > 1 else EVENT_COUNT
    print(json.dumps(run(events), indent=2))
