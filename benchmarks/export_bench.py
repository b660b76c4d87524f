"""Export budget (design §4): a 100 MB session exports at no less than a third of the speed
of parsing it.

`run()` writes a 100,000-event session straight to a temp store (lines built with
`Event.to_json_line()`, so they are byte-compatible with Zero's), times
`store.read_events()` on it (the parse), then `export_session` to each format — end to end:
read, rehydrate, rows, render, atomic write — and reports each format's speed as a
fraction of the parse speed (`parse_s / export_s`; the budget is >= 1/3).

    python -m benchmarks.export_bench [EVENTS]

Every format is budgeted, html too: its Markdown goes through markdown-it.rs.

When Zero's own `zero` is on PATH, `zero-tui export ID --format txt` is also timed as a
process against `zero usage report --session ID` on the same store (Zero's command that
reads one whole log with its ReadEvents and little else), in paired runs: the median wall
and CPU times of each, and the medians of the paired ratios (issue 19's figure).
"""

from __future__ import annotations

import gc
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from benchmarks.big_session import EVENT_COUNT, SESSION_ID, write_session
from benchmarks.store_bench import _zero_tui_command
from zero_tui.short_lived import gc_paused
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


def _timed_process(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of `command`, its output discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env, cwd=cwd)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def measure_against_zero(data_home: Path, work: Path, rounds: int = 5) -> dict[str, Any] | None:
    """`zero-tui export SESSION --format txt` against `zero usage report --session SESSION`,
    both reading the store under `data_home` (Zero's $XDG_DATA_HOME); None without `zero`."""
    zero = shutil.which("zero")
    if zero is None:
        return None
    store_root = data_home / "zero" / "sessions"
    cwd = work / "cwd"  # not a git repository: Zero's report skips its diff summary
    cwd.mkdir(exist_ok=True)
    env = {**os.environ, "XDG_DATA_HOME": str(data_home), "HOME": str(work)}
    zero_command = [zero, "usage", "report", "--session", SESSION_ID]
    export_command = [
        *_zero_tui_command(),
        "export",
        SESSION_ID,
        "--store",
        str(store_root),
        "--format",
        "txt",
        "-o",
        str(work / "export.txt"),
        "--force",  # the same file each run
    ]
    _timed_process(zero_command, env, cwd)  # both read the log once before timing
    _timed_process(export_command, env, cwd)
    zero_runs: list[tuple[float, float]] = []
    export_runs: list[tuple[float, float]] = []
    for _ in range(rounds):
        zero_runs.append(_timed_process(zero_command, env, cwd))
        export_runs.append(_timed_process(export_command, env, cwd))
    pairs = list(zip(zero_runs, export_runs, strict=True))
    zero_cpu = statistics.median(cpu for _, cpu in zero_runs)
    export_cpu = statistics.median(cpu for _, cpu in export_runs)
    return {
        "zero_command": " ".join(["zero", *zero_command[1:]]),
        "rounds": rounds,
        "zero_s": round(statistics.median(wall for wall, _ in zero_runs), 3),
        "zero_cpu_s": round(zero_cpu, 3),
        "export_txt_s": round(statistics.median(wall for wall, _ in export_runs), 3),
        "export_txt_cpu_s": round(export_cpu, 3),
        "ratio": round(statistics.median(mine[0] / zeros[0] for zeros, mine in pairs), 2),
        # CPU time is steadier on a shared machine (Zero's collector runs on other threads)
        "cpu_ratio": round(export_cpu / zero_cpu, 2) if zero_cpu > 0 else None,
    }


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
            with gc_paused():  # as `zero-tui export` runs it (the app's worker does not)
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
        result["vs_zero"] = measure_against_zero(data_home, root, rounds=max(3, repeat))
    return result


if __name__ == "__main__":
    events = int(sys.argv[1]) if len(sys.argv) > 1 else EVENT_COUNT
    print(json.dumps(run(events), indent=2))
