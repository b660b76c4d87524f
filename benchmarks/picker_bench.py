"""Picker benchmark: time to the first rows with 10,000 sessions, against an empty store.

Each measurement is a fresh Python process (imports included, as a user waits for them)
running the app headless until the picker shows rows, or its empty state for the empty
store. Warm = the catalog cache exists from an earlier run; cold = no cache at all.
Design §4 asks for the warm 10,000-session time within 1.15x of the empty store's.

    python -m benchmarks.picker_bench [--sessions 10000] [--repeats 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.store_bench import generate_store, print_figures
from zero_tui.paths import CACHE_DIR_VARIABLE

_PROBE = """
import time
started = time.perf_counter()
import asyncio, sys
from zero_tui.ui.app import make_app
from zero_tui.hosts.registry import named_hosts
from zero_tui.store import SessionStore

def every_host_in(screen) -> bool:
    # with hosts: each host's mirror has posted rows too (they are merged as they come)
    hosts = getattr(getattr(screen, "state", None), "hosts", {})
    return all(host.scope is not None and host.scope.rows for host in hosts.values())

async def main() -> None:
    names = [name for name in sys.argv[4].split(",") if name]
    hosts = named_hosts(names)
    app = make_app(SessionStore(sys.argv[1]), cwd=sys.argv[2], hosts=hosts)
    async with app.run_test(size=(120, 40)) as pilot:
        while True:
            screen = app.screen
            rows = getattr(getattr(screen, "session_list", None), "row_count", 0)
            empty = screen.query("#empty-state")
            if (rows and every_host_in(screen)) or (empty and empty.first().display):
                break
            await pilot.pause(0.002)
        print(f"{time.perf_counter() - started:.6f}")
        if sys.argv[3] == "settle":  # let the scan finish and save the catalog
            await app.workers.wait_for_complete()

asyncio.run(main())
"""


def time_to_first_rows(
    root: Path,
    workspace: str,
    cache_dir: Path,
    *,
    settle: bool = False,
    hosts: tuple[str, ...] = (),
) -> float:
    """Seconds to the first rows; `hosts`: `--host` each, and until every one's rows are in."""
    env = {**os.environ, CACHE_DIR_VARIABLE: str(cache_dir)}
    settled = "settle" if settle else "-"
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, str(root), workspace, settled, ",".join(hosts)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=120,
    )
    return float(result.stdout.strip().splitlines()[-1])


def measure_first_rows(
    root: Path, workspace: str, work: Path, repeats: int = 7
) -> dict[str, float]:
    """First rows of the store at `root` (cold and warm cache) against an empty store."""
    empty_root = work / "empty"
    empty_root.mkdir(exist_ok=True)
    cold: list[float] = []
    for index in range(max(1, repeats // 3)):
        cold.append(time_to_first_rows(root, workspace, work / f"cold-cache-{index}"))
    warm_cache = work / "warm-cache"
    time_to_first_rows(root, workspace, warm_cache, settle=True)  # fills the cache
    empty: list[float] = []
    warm: list[float] = []
    for _ in range(repeats):  # interleaved, so both see the same machine load
        empty.append(time_to_first_rows(empty_root, workspace, work / "empty-cache"))
        warm.append(time_to_first_rows(root, workspace, warm_cache, settle=True))
    return {
        "empty_store_first_paint_s": statistics.median(empty),
        "warm_first_rows_s": statistics.median(warm),
        "warm_vs_empty_ratio": statistics.median(warm) / statistics.median(empty),
        "cold_first_rows_s": statistics.median(cold),
        "cold_vs_empty_ratio": statistics.median(cold) / statistics.median(empty),
        "cold_vs_warm_ratio": statistics.median(cold) / statistics.median(warm),
    }


def run(sessions: int = 10_000, repeats: int = 7) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="zero-tui-picker-bench-") as temp:
        base = Path(temp)
        big_root = base / "big"
        workspace = generate_store(big_root, sessions, 8)[0]
        return {"sessions": sessions, **measure_first_rows(big_root, workspace, base, repeats)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    print_figures(run(args.sessions, args.repeats))


if __name__ == "__main__":
    main()
