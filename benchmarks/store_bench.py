"""Store benchmark: listing a 10,000-session store, and the resume filter for one workspace.

Figures are ratios taken in one run (design §4): `zero-tui sessions --all --json` against
`cat` over every metadata file of the same store (the floor any lister pays), cold (no
catalog cache) and warm, and the resume filter of one 1,000-session workspace.

    python -m benchmarks.store_bench [--sessions 10000] [--events 40]
"""

from __future__ import annotations

import argparse
import compileall
import functools
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import zero_tui
from benchmarks.ranking_bench import _OBJECTS, _VERBS
from zero_tui.paths import CACHE_DIR_VARIABLE
from zero_tui.store import Event, Metadata, SessionStore
from zero_tui.store.gojson import marshal
from zero_tui.store.resumable import filter_resumable

WORKSPACES = 10
_BASE = datetime(2026, 6, 4, 9, 0, 0, tzinfo=UTC)
# Words of the generated answers and tool output, so full-text queries have realistic
# selectivity: each session draws a topic, a few of these, and a ticket number of its own.
_TOPICS = (
    "rate limiter", "websocket reconnect", "flaky test", "sqlite migration", "oauth refresh",
    "retry backoff", "markdown renderer", "config loader", "deadlock", "memory leak",
    "arm64 build", "terraform plan", "docker image", "grpc timeout", "json schema",
    "idempotent webhook", "cache invalidation", "unicode normalization", "cron schedule",
    "tls certificate",
)  # fmt: skip
_FILLERS = (
    "the handler", "the parser", "a goroutine", "the CI matrix", "the session store",
    "the picker", "an index", "the exporter", "the queue", "the lock file", "a fixture",
    "the timeout", "a benchmark", "the schema", "a regression",
)  # fmt: skip


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def session_title(index: int) -> str:
    """The title of generated session `index` (what its first prompt asks)."""
    rng = random.Random(index)
    return f"{rng.choice(_VERBS)} {rng.choice(_OBJECTS)} ({_TOPICS[index % len(_TOPICS)]})"


def _session_events(
    session_id: str, count: int, start: datetime, index: int = 0, *, usage: bool = False
) -> list[Event]:
    """`count` events: a prompt, a tool call, its result, an answer, again; `usage`: each
    answer is followed by the `provider_usage` event Zero writes for the request."""
    rng = random.Random(index)
    topic = _TOPICS[index % len(_TOPICS)]
    ticket = f"ZT-{index + 1000}"
    events: list[Event] = []
    for position in range(count):
        sequence = position + 1
        kind = position % (5 if usage else 4)
        filler = rng.choice(_FILLERS)
        if kind == 4:
            prompt = 2_000 + rng.randrange(40_000)
            completion = 50 + rng.randrange(2_000)
            event_type, payload = (
                "provider_usage",
                {
                    "model": "claude-sonnet-4-5",
                    "promptTokens": prompt,
                    "completionTokens": completion,
                    "totalTokens": prompt + completion,
                    "cachedInputTokens": prompt // 2,
                },
            )
        elif kind == 0:
            content = session_title(index) if position == 0 else f"And {filler}? see {ticket}"
            event_type, payload = "message", {"role": "user", "content": content}
        elif kind == 1:
            event_type = "tool_call"
            arguments = marshal({"pattern": topic.split()[-1], "path": f"src/{filler.split()[-1]}"})
            payload = {"id": f"call_{position}", "name": "grep", "arguments": arguments.decode()}
        elif kind == 2:
            event_type = "tool_result"
            lines = [f"src/{rng.choice(_FILLERS).split()[-1]}_{n}.go: {topic}" for n in range(4)]
            payload = {
                "toolCallId": f"call_{position}",
                "name": "grep",
                "status": "ok",
                "output": "\n".join(lines),
            }
        else:
            event_type = "message"
            content = (
                f"Done: {filler} now handles the {topic} case ({ticket}); "
                f"{rng.choice(_FILLERS)} and {rng.choice(_FILLERS)} are covered by tests."
            )
            payload = {"role": "assistant", "content": content}
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


def generate_store(
    root: Path,
    sessions: int,
    events_per_session: int,
    workspaces: int = WORKSPACES,
    workspace_root: str = "/home/dev",
    *,
    usage: bool = False,
) -> list[str]:
    """Write a store of `sessions` sessions spread over `workspaces` workspaces, named
    `project-N` under `workspace_root` (need not exist; a TUI started in one must have it).

    Files are written directly (an fsync per append would make generation take minutes)
    but with the store's own encoders, so every byte is what Zero would write. Every
    tenth session of a workspace is an empty run (a user message only); every seventh
    ran on gpt-5. `usage`: each answer is followed by a `provider_usage` event.
    """
    root.mkdir(parents=True, exist_ok=True)
    paths = [f"{workspace_root}/project-{index}" for index in range(workspaces)]
    for index in range(sessions):
        session_id = f"zero_20260604090000_{1780563600000000000 + index}_{index + 1}"
        start = _BASE + timedelta(minutes=index)
        empty_run = index % 10 == 9
        count = 1 if empty_run else events_per_session
        events = _session_events(session_id, count, start, index, usage=usage)
        gpt = index % 7 == 3
        meta = Metadata(
            session_id=session_id,
            title=session_title(index),
            cwd=paths[index % workspaces],
            model_id="gpt-5" if gpt else "claude-sonnet-4-5",
            provider="openai" if gpt else "anthropic",
            created_at=_stamp(start),
            updated_at=events[-1].created_at,
            event_count=events[-1].sequence,
            last_event_type=events[-1].type,
        )
        directory = root / session_id
        directory.mkdir(mode=0o700)
        (directory / "metadata.json").write_bytes(meta.to_json_bytes())
        (directory / "events.jsonl").write_bytes(b"".join(e.to_json_line() for e in events))
    return paths


def wall_time(command: list[str], env: dict[str, str] | None = None) -> float:
    """Seconds one run of `command` takes, its output dropped (a failed run is an error)."""
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env, timeout=600)
    return time.perf_counter() - started


def _median_wall(
    command: list[str], repeats: int, env: dict[str, str] | None = None, fresh_cache: bool = False
) -> float:
    timings: list[float] = []
    for _ in range(repeats):
        if fresh_cache and env is not None:
            shutil.rmtree(env[CACHE_DIR_VARIABLE], ignore_errors=True)
        timings.append(wall_time(command, env))
    return statistics.median(timings)


def print_figures(figures: Mapping[str, object]) -> None:
    """A benchmark's figures run alone: one a line, floats to four places."""
    width = max((len(key) for key in figures), default=0) + 1
    for key, value in figures.items():
        shown = f"{value:.4f}" if isinstance(value, float) else str(value)
        print(f"{key:{width}} {shown}")


@functools.cache
def _zero_tui_command() -> list[str]:
    """The installed script, its bytecode compiled first, as an install compiles it: an
    editable install (or PYTHONDONTWRITEBYTECODE) would leave every timed run compiling
    the modules again."""
    compileall.compile_dir(Path(zero_tui.__file__).parent, quiet=1)
    script = shutil.which("zero-tui", path=os.path.dirname(sys.executable))
    return [script] if script else [sys.executable, "-m", "zero_tui"]


def cat_metadata_command(root: Path, work: Path) -> list[str]:
    """A command that reads every metadata file of the store at `root` with `cat`, the floor
    any lister pays; its list of files is written in `work`."""
    metadata_files = [str(path) for path in sorted(root.glob("*/metadata.json"))]
    list_file = work / "metadata-files"
    list_file.write_text("\0".join(metadata_files))
    return ["sh", "-c", f"xargs -0 cat < '{list_file}' > /dev/null"]


def measure_listing(root: Path, work: Path, repeats: int = 5) -> dict[str, float]:
    """`zero-tui sessions --all --json` (cold and warm cache) against `cat` of every
    metadata file of the store at `root`; `work` is a scratch directory."""
    floor = _median_wall(cat_metadata_command(root, work), repeats)
    list_command = [*_zero_tui_command(), "sessions", "--all", "--json", "--store", str(root)]
    env = {**os.environ, CACHE_DIR_VARIABLE: str(work / "listing-cache")}
    cold = _median_wall(list_command, repeats, env, fresh_cache=True)
    warm = _median_wall(list_command, repeats, env)
    return {
        "cat_metadata_s": floor,
        "cli_sessions_all_json_cold_s": cold,
        "cli_sessions_all_json_s": warm,
        "cli_vs_cat_ratio": warm / floor,
        "cli_cold_vs_cat_ratio": cold / floor,
    }


def run(sessions: int = 10_000, events_per_session: int = 40, repeats: int = 5) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="zero-tui-bench-") as temp:
        root = Path(temp) / "sessions"
        workspaces = generate_store(root, sessions, events_per_session)
        listing_figures = measure_listing(root, Path(temp), repeats)
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
            **listing_figures,
            "cli_startup_s": startup,
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
    print_figures(run(args.sessions, args.events, args.repeats))


if __name__ == "__main__":
    main()
