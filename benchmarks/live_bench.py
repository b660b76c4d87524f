"""The live picker's figures (issue 17): how soon a write shows in its row, what an open
picker costs while nothing changes, and what one look at the running sessions costs.

    python -m benchmarks.live_bench [--sessions 10000] [--writes 50] [--idle-seconds 15]

The first two run the app headless in fresh processes (a CPU clock of the picker's own):

- write to row: with the picker open and following the store, `--writes` appends, each to
  a session of the workspace through the store layer (one locked append, as Zero does; an
  answer, so that no session looks running afterwards), a pause apart; the time from the
  append's return to the row on the first screen with its new count (median and p95);
- idle CPU: the CPU time of the process and its children (the store's watching process)
  while the open picker waits on an unchanging store,
  given per minute, with file-change notification and with polling (`ZERO_TUI_POLL=1`),
  against the same picker with no store watcher (Textual's own idle: a blinking cursor);
- running mark: one look at which sessions run now as the picker takes it after a batch
  (the run registry, the process table read afresh, Zero's peers, the logs written in the
  last seconds), against the same look with every metadata file stat-ed instead.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.store_bench import generate_store, print_figures
from zero_tui.agent.running import running_sessions
from zero_tui.paths import CACHE_DIR_VARIABLE
from zero_tui.store import SessionStore

_PROBE = """
import asyncio, json, os, random, sys, time
from zero_tui.ui.app import make_app
from zero_tui.ui.screens.picker import PickerScreen
from zero_tui.ui.widgets.store_feed import StoreFeed
from zero_tui.store import SessionStore

root, workspace, mode, pause = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[5])
count = float(sys.argv[4]) if mode.startswith("idle") else int(sys.argv[4])
def family_cpu() -> float:  # this process's CPU time and its children's (the watcher)
    total = time.process_time()
    tick = os.sysconf("SC_CLK_TCK")
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid():
            total += (int(fields[11]) + int(fields[12])) / tick
    return total

if mode == "idle-unwatched":  # the baseline: the same picker, no store watcher
    StoreFeed._start_watching = lambda self: None

async def main() -> None:
    store = SessionStore(root)
    app = make_app(store, cwd=workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        def ready() -> bool:
            screen = app.screen
            if not isinstance(screen, PickerScreen):
                return False
            return screen.state.live and screen.session_list.row_count > 0

        while not ready():
            await pilot.pause(0.01)
        screen = app.screen
        await pilot.pause(3.0)  # what follows a start: the first looks, the catalog's writes
        if mode.startswith("idle"):
            started = family_cpu()
            await asyncio.sleep(count)
            spent = family_cpu() - started
            print(json.dumps({"cpu_s": spent, "mode": screen.state.watch_mode}))
            return
        rng = random.Random(7)
        delays = []
        for _ in range(count):
            session_id = rng.choice(screen.session_list.visible_rows()[1:]).session_id
            before = store.get(session_id).event_count
            store.append_events(session_id, [("message", {"role": "assistant", "content": "live"})])
            written = time.perf_counter()
            wanted = (session_id, before + 1)
            while True:  # on the first screen (a write in the same second may tie with it)
                first = screen.session_list.visible_rows()[:30]
                if wanted in ((row.session_id, row.event_count) for row in first):
                    break
                await pilot.pause(0.002)
            delays.append(time.perf_counter() - written)
            await pilot.pause(pause)
        print(json.dumps({"delays_s": delays, "mode": screen.state.watch_mode}))

asyncio.run(main())
"""


def _probe(
    root: Path, workspace: str, cache: Path, mode: str, count: float, *, poll: bool = False
) -> dict[str, Any]:
    env = {**os.environ, CACHE_DIR_VARIABLE: str(cache)}
    if poll:
        env["ZERO_TUI_POLL"] = "1"
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, str(root), workspace, mode, str(count), "0.3"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=600,
    )
    answer: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return answer


def _percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def measure_running(root: Path, repeats: int = 20) -> dict[str, float]:
    """One look at the running sessions as the picker takes it, and with every metadata file
    stat-ed instead (what a caller without the picker's recent sessions pays)."""
    store = SessionStore(root)
    recent = store.list()[:5]
    for meta in recent:  # written just now: the log's signal reads their tails
        store.append_events(meta.session_id, [("message", {"role": "user", "content": "now"})])
    recent = [store.get(meta.session_id) or meta for meta in recent]
    picker: list[float] = []
    every: list[float] = []
    for _ in range(repeats):
        started = time.perf_counter()
        running_sessions(store, recent=recent, process_age=0)
        picker.append(time.perf_counter() - started)
        started = time.perf_counter()
        running_sessions(store, process_age=0)
        every.append(time.perf_counter() - started)
    return {
        "running_look_s": statistics.median(picker),
        "running_every_metadata_s": statistics.median(every),
    }


def run(
    sessions: int = 10_000,
    events: int = 40,
    workspaces: int = 20,
    *,
    writes: int = 50,
    idle_seconds: float = 15.0,
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="zero-tui-live-bench-") as temp:
        base = Path(temp)
        root = base / "sessions"
        workspace = generate_store(root, sessions, events, workspaces)[0]
        cache = base / "cache"
        delays = _probe(root, workspace, cache, "write", writes)["delays_s"]
        notified = _probe(root, workspace, cache, "idle", idle_seconds)
        polled = _probe(root, workspace, cache, "idle", idle_seconds, poll=True)
        unwatched = _probe(root, workspace, cache, "idle-unwatched", idle_seconds)
        per_minute = 60.0 / idle_seconds
        return {
            "sessions": sessions,
            "writes": len(delays),
            "write_to_row_p50_s": statistics.median(delays),
            "write_to_row_p95_s": _percentile(delays, 0.95),
            "idle_cpu_per_minute_unwatched_s": unwatched["cpu_s"] * per_minute,
            "idle_cpu_per_minute_notify_s": notified["cpu_s"] * per_minute,
            "idle_cpu_per_minute_poll_s": polled["cpu_s"] * per_minute,
            "notify_mode": notified["mode"],
            "poll_mode": polled["mode"],
            **measure_running(root),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--events", type=int, default=40)
    parser.add_argument("--writes", type=int, default=50)
    parser.add_argument("--idle-seconds", type=float, default=15.0)
    args = parser.parse_args()
    figures = run(args.sessions, args.events, writes=args.writes, idle_seconds=args.idle_seconds)
    print_figures(figures)


if __name__ == "__main__":
    main()
