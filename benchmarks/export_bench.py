"""Export budget (design §4): a 100 MB session exports at no less than a third of the speed
of parsing it.

`run()` writes a 100,000-event session straight to a temp store (lines built with
`Event.to_json_line()`, so they are byte-compatible with Zero's), times
`store.read_events()` on it (the parse), then `export_session` to each format — end to end:
read, rehydrate, rows, render, atomic write — and reports each format's speed as a
fraction of the parse speed (`parse_s / export_s`; the budget is >= 1/3).

    python -m benchmarks.export_bench [EVENTS]

Every format is budgeted, html too: its Markdown goes through markdown-it.rs.

The comparison with Zero's own reading of the same log is benchmarks/zero_bench.py's.
"""

from __future__ import annotations

import gc
import json
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from benchmarks.big_session import EVENT_COUNT, SESSION_ID, write_session
from zero_tui.store import SessionStore
from zero_tui.transcript.export import export_session
from zero_tui.transcript.export_formats import EXPORT_FORMATS

BUDGET = 1 / 3
BUDGETED_FORMATS = ("txt", "md", "json", "html")


def _timed(action: Callable[[], object]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) of one call, after a full collection."""
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - wall, time.process_time() - cpu


def run(
    count: int = EVENT_COUNT, formats: tuple[str, ...] = EXPORT_FORMATS, repeat: int = 3
) -> dict[str, Any]:
    """Generate the session, parse it, export it to every format; return the figures.

    Each measurement is the best of `repeat` runs, parse and exports interleaved, so a
    busy machine slows both sides alike. Ratios are given for wall time and for CPU time
    (the latter is steadier when other processes share the cores).
    """
    result: dict[str, Any] = {"events": count, "repeat": repeat}
    with tempfile.TemporaryDirectory(prefix="zero-tui-export-bench-") as directory:
        root = Path(directory)
        data_home = root / "data"  # the store where Zero looks for it under $XDG_DATA_HOME
        log = write_session(data_home / "zero" / "sessions", count)
        log_bytes = log.stat().st_size
        result["log_bytes"] = log_bytes
        store = SessionStore(data_home / "zero" / "sessions")
        out = root / "out"
        out.mkdir()

        def parse() -> None:
            store.read_events(SESSION_ID)

        def export(fmt: str) -> None:
            exported = export_session(
                store,
                SESSION_ID,
                fmt=fmt,
                path=f"x.{fmt}",
                workspace=str(out),
                now=datetime.now(),
            )
            sizes[fmt] = exported.size
            Path(exported.path).unlink()

        sizes: dict[str, int] = {}
        parse_runs: list[tuple[float, float]] = []
        export_runs: dict[str, list[tuple[float, float]]] = {fmt: [] for fmt in formats}
        for _ in range(repeat):
            parse_runs.append(_timed(parse))
            for fmt in formats:
                export_runs[fmt].append(_timed(partial(export, fmt)))
        parse_wall = min(wall for wall, _ in parse_runs)
        parse_cpu = min(cpu for _, cpu in parse_runs)
        result["parse_s"] = round(parse_wall, 3)
        result["parse_cpu_s"] = round(parse_cpu, 3)
        result["parse_mb_per_s"] = round(log_bytes / parse_wall / 1e6, 1)
        for fmt in formats:
            wall = min(w for w, _ in export_runs[fmt])
            cpu = min(c for _, c in export_runs[fmt])
            result[fmt] = {
                "export_s": round(wall, 3),
                "export_cpu_s": round(cpu, 3),
                "output_bytes": sizes[fmt],
                "speed_vs_parse": round(parse_wall / wall, 3),
                "cpu_speed_vs_parse": round(parse_cpu / cpu, 3),
                "within_budget": parse_wall / wall >= BUDGET,
            }
        result["budget_speed_vs_parse"] = round(BUDGET, 3)
        result["budgeted_formats"] = list(BUDGETED_FORMATS)
        result["within_budget"] = all(
            result[fmt]["within_budget"] for fmt in formats if fmt in BUDGETED_FORMATS
        )
    return result


if __name__ == "__main__":
    events = int(sys.argv[1]) if len(sys.argv) > 1 else EVENT_COUNT
    print(json.dumps(run(events), indent=2))
