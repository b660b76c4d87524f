"""Usage benchmark: what each session's tokens cost the listing and the picker.

On a store whose answers are each followed by a `provider_usage` event (as Zero writes
them), measured in one run:

- `zero-tui sessions --all --json`, with its `usage` (the catalog's, counted in the read
  of each log on a cold cache), against the same command with the tokens left out (the
  same process, its catalog counting none and its `session_usage` finding none), warm and
  cold;
- the picker at 120 columns: the time to its first rows with the tokens column filled,
  against the time to its first rows (which never wait for the tokens), warm cache.

    python -m benchmarks.usage_bench [--sessions 10000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.store_bench import _zero_tui_command, generate_store, print_figures, wall_time
from zero_tui.paths import CACHE_DIR_VARIABLE
from zero_tui.search.file_identity import RACY_NS

_LIST = """
import sys
if sys.argv[1] == "without":
    from zero_tui.picker import session_usage
    from zero_tui.search.catalog import SessionCatalog
    session_usage.session_usage = lambda catalog, session_ids: {}
    refresh = SessionCatalog.refresh

    def without_tokens(self, progress=None, *, with_verdicts=False, with_tokens=False):
        return refresh(self, progress, with_verdicts=with_verdicts)

    SessionCatalog.refresh = without_tokens
from zero_tui.cli import run
sys.argv = ["zero-tui", *sys.argv[2:]]
run()
"""
"""The `zero-tui` script's entry, with the tokens (`with`) or without them (`without`)."""

_PICKER_PROBE = """
import time
started = time.perf_counter()
import asyncio, sys
from zero_tui.ui.app import make_app
from zero_tui.store import SessionStore

async def main() -> None:
    app = make_app(SessionStore(sys.argv[1]), cwd=sys.argv[2])
    async with app.run_test(size=(120, 40)) as pilot:
        rows_at = None
        while True:
            screen = app.screen
            session_list = getattr(screen, "session_list", None)
            rows = getattr(session_list, "row_count", 0)
            if rows and rows_at is None:
                rows_at = time.perf_counter() - started
            if rows and session_list.shows_usage:
                first = session_list.visible_rows()[0]
                if session_list.usage_text(first):
                    break
            await pilot.pause(0.002)
        print(f"{rows_at:.6f} {time.perf_counter() - started:.6f}")
        if sys.argv[3] == "settle":
            await app.workers.wait_for_complete()

asyncio.run(main())
"""


def measure_listing(root: Path, work: Path, repeats: int) -> dict[str, float]:
    """`sessions --all --json` with and without the tokens, warm and cold, interleaved."""
    arguments = ["sessions", "--all", "--json", "--store", str(root)]
    _zero_tui_command()  # its modules compiled, as an install compiles them
    commands = {
        name: [sys.executable, "-c", _LIST, name, *arguments] for name in ("with", "without")
    }
    timings: dict[str, list[float]] = {
        f"{name}_{cache}": [] for name in commands for cache in ("cold", "warm")
    }
    for index in range(repeats):
        for name, command in commands.items():
            cache = work / f"listing-{name}-{index}"
            env = {**os.environ, CACHE_DIR_VARIABLE: str(cache)}
            timings[f"{name}_cold"].append(wall_time(command, env))
            timings[f"{name}_warm"].append(wall_time(command, env))
            shutil.rmtree(cache, ignore_errors=True)
    median = {key: statistics.median(values) for key, values in timings.items()}
    return {
        "json_with_usage_warm_s": median["with_warm"],
        "json_without_usage_warm_s": median["without_warm"],
        "json_usage_warm_ratio": median["with_warm"] / median["without_warm"],
        "json_with_usage_cold_s": median["with_cold"],
        "json_without_usage_cold_s": median["without_cold"],
        "json_usage_cold_ratio": median["with_cold"] / median["without_cold"],
    }


def _picker_times(root: Path, workspace: str, cache: Path, *, settle: bool) -> tuple[float, float]:
    env = {**os.environ, CACHE_DIR_VARIABLE: str(cache)}
    result = subprocess.run(
        [sys.executable, "-c", _PICKER_PROBE, str(root), workspace, "settle" if settle else "-"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=600,
    )
    rows, tokens = result.stdout.strip().splitlines()[-1].split()
    return float(rows), float(tokens)


def measure_picker(root: Path, workspace: str, work: Path, repeats: int) -> dict[str, float]:
    """The picker's first rows, and its first rows with the tokens column, warm cache."""
    cache = work / "picker-cache"
    _picker_times(root, workspace, cache, settle=True)  # fills the catalog, tokens too
    rows: list[float] = []
    tokens: list[float] = []
    for _ in range(repeats):
        first, filled = _picker_times(root, workspace, cache, settle=True)
        rows.append(first)
        tokens.append(filled)
    return {
        "picker_first_rows_s": statistics.median(rows),
        "picker_first_rows_with_tokens_s": statistics.median(tokens),
        "picker_tokens_ratio": statistics.median(tokens) / statistics.median(rows),
    }


def run(sessions: int = 10_000, events: int = 40, repeats: int = 5) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="zero-tui-usage-bench-") as temp:
        work = Path(temp)
        root = work / "sessions"
        workspace = generate_store(root, sessions, events, usage=True)[0]
        # a log read within RACY_NS of its last write is read again next time: let them age
        time.sleep(RACY_NS / 1e9 + 0.2)
        return {
            "sessions": sessions,
            **measure_listing(root, work, repeats),
            **measure_picker(root, workspace, work, repeats),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--events", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print_figures(run(args.sessions, args.events, args.repeats))


if __name__ == "__main__":
    main()
