"""Store benchmark: listing a 10,000-session store, and the resume filter for one workspace.

Figures are ratios taken in one run (design §4): `zero-tui sessions --all --json` against
`cat` over every metadata file of the same store (the floor any lister pays), cold (no
catalog cache) and warm, and the resume filter of one 1,000-session workspace.

    python -m benchmarks.store_bench [--sessions 10000] [--events 40]
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
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from zero_tui.store import Event, Metadata, SessionStore
from zero_tui.store.gojson import marshal
from zero_tui.store.resumable import filter_resumable

WORKSPACES = 10
_BASE = datetime(2026, 6, 4, 9, 0, 0, tzinfo=UTC)
_PROMPTS = (
    "Fix the flaky date parser test",
    "Add retry with backoff to the HTTP client",
    "Why does the build fail on arm64?",
    "Refactor the config loader into a package",
    "Write a migration for the users table",
)


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _session_events(session_id: str, count: int, start: datetime) -> list[Event]:
    events: list[Event] = []
    for index in range(count):
        sequence = index + 1
        kind = index % 4
        if kind == 0:
            event_type, payload = "message", {"role": "user", "content": _PROMPTS[index % 5]}
        elif kind == 1:
            event_type = "tool_call"
            payload = {"id": f"call_{index}", "name": "read_file", "arguments": '{"path":"a.go"}'}
        elif kind == 2:
            event_type = "tool_result"
            payload = {
                "toolCallId": f"call_{index}",
                "name": "read_file",
                "status": "ok",
                "output": "package main\n\nfunc main() {}\n" * 4,
            }
        else:
            event_type = "message"
            payload = {"role": "assistant", "content": "Done: the parser now uses time.DateOnly."}
        events.append(
            Event(
                f"{session_id}:{sequence}",
                session_id,
                sequence,
                event_type,
                _stamp(start + timedelta(seconds=sequence)),
                marshal(payload),
            )
        )
    return events


def generate_store(root: Path, sessions: int, events_per_session: int) -> list[str]:
    """Write a store of `sessions` sessions spread over WORKSPACES workspaces.

    Files are written directly (an fsync per append would make generation take minutes)
    but with the store's own encoders, so every byte is what Zero would write. Every
    tenth session of a workspace is an empty run (a user message only).
    """
    root.mkdir(parents=True, exist_ok=True)
    workspaces = [f"/home/dev/project-{index}" for index in range(WORKSPACES)]
    for index in range(sessions):
        session_id = f"zero_20260604090000_{1780563600000000000 + index}_{index + 1}"
        start = _BASE + timedelta(minutes=index)
        empty_run = index % 10 == 9
        events = _session_events(session_id, 1 if empty_run else events_per_session, start)
        meta = Metadata(
            session_id=session_id,
            title=f"{_PROMPTS[index % 5]} #{index}",
            cwd=workspaces[index % WORKSPACES],
            model_id="claude-sonnet-4-5",
            provider="anthropic",
            created_at=_stamp(start),
            updated_at=events[-1].created_at,
            event_count=events[-1].sequence,
            last_event_type=events[-1].type,
        )
        directory = root / session_id
        directory.mkdir(mode=0o700)
        (directory / "metadata.json").write_bytes(meta.to_json_bytes())
        (directory / "events.jsonl").write_bytes(b"".join(e.to_json_line() for e in events))
    return workspaces


def _median_wall(
    command: list[str], repeats: int, env: dict[str, str] | None = None, fresh_cache: bool = False
) -> float:
    timings: list[float] = []
    for _ in range(repeats):
        if fresh_cache and env is not None:
            shutil.rmtree(env["ZERO_TUI_CACHE_DIR"], ignore_errors=True)
        started = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
        timings.append(time.perf_counter() - started)
    return statistics.median(timings)


def _zero_tui_command() -> list[str]:
    script = shutil.which("zero-tui", path=os.path.dirname(sys.executable))
    return [script] if script else [sys.executable, "-m", "zero_tui"]


def run(sessions: int = 10_000, events_per_session: int = 40, repeats: int = 5) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="zero-tui-bench-") as temp:
        root = Path(temp) / "sessions"
        workspaces = generate_store(root, sessions, events_per_session)
        metadata_files = [str(path) for path in sorted(root.glob("*/metadata.json"))]
        list_file = Path(temp) / "metadata-files"
        list_file.write_text("\0".join(metadata_files))
        floor = _median_wall(["sh", "-c", f"xargs -0 cat < '{list_file}' > /dev/null"], repeats)
        list_command = [*_zero_tui_command(), "sessions", "--all", "--json", "--store", str(root)]
        env = dict(os.environ, ZERO_TUI_CACHE_DIR=str(Path(temp) / "cache"))
        cli_cold = _median_wall(list_command, repeats, env, fresh_cache=True)
        cli = _median_wall(list_command, repeats, env)
        startup = _median_wall([*_zero_tui_command(), "--version"], repeats)
        store = SessionStore(root)
        filter_timings: list[float] = []
        shown = 0
        for _ in range(repeats):
            started = time.perf_counter()
            listing = filter_resumable(store, workspaces[0])
            filter_timings.append(time.perf_counter() - started)
            shown = len(listing.sessions)
        all_metadata = store.list()
        in_workspace = [meta for meta in all_metadata if meta.cwd == workspaces[0]]
        scoped_timings: list[float] = []
        for _ in range(repeats):
            started = time.perf_counter()
            filter_resumable(store, workspaces[0], sessions=in_workspace)
            scoped_timings.append(time.perf_counter() - started)
        return {
            "sessions": sessions,
            "events_per_session": events_per_session,
            "store_bytes": sum(f.stat().st_size for f in root.glob("*/*")),
            "cat_metadata_s": floor,
            "cli_sessions_all_json_cold_s": cli_cold,
            "cli_sessions_all_json_s": cli,
            "cli_startup_s": startup,
            "cli_vs_cat_ratio": cli / floor,
            "cli_cold_vs_cat_ratio": cli_cold / floor,
            "resume_filter_workspace_s": statistics.median(filter_timings),
            "resume_filter_1000_candidates_s": statistics.median(scoped_timings),
            "resume_filter_shown": shown,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--events", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    for key, value in run(args.sessions, args.events, args.repeats).items():
        shown = f"{value:.4f}" if isinstance(value, float) else str(value)
        print(f"{key:34} {shown}")


if __name__ == "__main__":
    main()
