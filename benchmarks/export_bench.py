"""Export budget (design §4): a 100 MB session exports at no less than a third of the speed
of parsing it.

`run()` writes a 100,000-event session straight to a temp store (lines built with
`Event.to_json_line()`, so they are byte-compatible with Zero's), times
`store.read_events()` on it (the parse), then `export_session` to each format — end to end:
read, rehydrate, rows, render, atomic write — and reports each format's speed as a
fraction of the parse speed (`parse_s / export_s`; the budget is >= 1/3).

    python -m benchmarks.export_bench [EVENTS]

The html export is measured too but is outside the budget: it renders every answer's
Markdown with markdown-it-py, which costs about a millisecond per answer.
"""

from __future__ import annotations

import gc
import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from zero_tui.store import Event, SessionStore
from zero_tui.transcript.export import EXPORT_FORMATS, export_session

SESSION_ID = "bench"
EVENT_COUNT = 100_000
BUDGET = 1 / 3
# html renders every answer through markdown-it-py (~1 ms each): reported, not budgeted
BUDGETED_FORMATS = ("txt", "md", "json")
_CREATED_AT = "2026-06-04T10:00:00Z"
_OUTPUT = "\n".join(
    f"{n:04d} src/module_{n}.go: func Handler{n}(w http.ResponseWriter, r *http.Request)"
    for n in range(40)
)
_ANSWER = (
    "Here is what changed:\n\n- the **parser** now accepts `time.DateOnly`\n"
    "- the tests cover leap days\n\n```go\nfunc ParseDate(s string) (time.Time, error) {\n"
    "\treturn time.Parse(time.DateOnly, s)\n}\n```\n"
) * 3


def _payloads(count: int) -> Iterator[tuple[str, object]]:
    """A realistic mix: prompt, tool call, tool result, usage, answer (about 1 KB a line)."""
    for number in range(count):
        turn, step = divmod(number, 5)
        if step == 0:
            yield (
                "message",
                {"content": f"Turn {turn}: please fix the failing test", "role": "user"},
            )
        elif step == 1:
            arguments = json.dumps({"path": "src", "pattern": f"Handler{turn}"})
            yield "tool_call", {"arguments": arguments, "id": f"call_{turn}", "name": "grep"}
        elif step == 2:
            yield (
                "tool_result",
                {"name": "grep", "output": _OUTPUT, "status": "ok", "toolCallId": f"call_{turn}"},
            )
        elif step == 3:
            yield (
                "provider_usage",
                {"completionTokens": 120, "promptTokens": 6000 + turn, "totalTokens": 6120 + turn},
            )
        else:
            yield "message", {"content": f"Turn {turn}. {_ANSWER}", "role": "assistant"}


def write_session(root: Path, count: int = EVENT_COUNT) -> Path:
    """Create the session through the store, then write its log directly (fast)."""
    store = SessionStore(root)
    store.create(SESSION_ID, title="Benchmark session", model_id="gpt-5", provider="openai")
    path = store.events_path(SESSION_ID)
    with path.open("wb") as log:
        for sequence, (event_type, payload) in enumerate(_payloads(count), start=1):
            raw = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
            event = Event(
                f"{SESSION_ID}:{sequence}", SESSION_ID, sequence, event_type, _CREATED_AT, raw
            )
            log.write(event.to_json_line())
    return path


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
        log = write_session(root / "store", count)
        log_bytes = log.stat().st_size
        result["log_bytes"] = log_bytes
        store = SessionStore(root / "store")
        out = root / "out"
        out.mkdir()

        def parse() -> None:
            store.read_events(SESSION_ID)

        def export(fmt: str) -> None:
            exported = export_session(
                store, SESSION_ID, fmt=fmt, path=f"x.{fmt}", workspace=str(out), now=datetime.now()
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
