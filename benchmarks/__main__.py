"""One benchmark for every budget of design §4, measured in one run, printed as one table.

    python -m benchmarks [--sessions 10000] [--small 1000] [--events 40] [--workspaces 20]
                         [--big-events 100000] [--large] [--repeats 5] [--quick]

It writes its stores through the store layer's encoders in a temp dir: N sessions of E
events across W workspaces (and the same at --small, and at 50,000 with --large, to show how
each figure grows), and one session of --big-events events. Every figure is a ratio against
a baseline taken in the same run on the same machine (an empty store, `cat`, `grep -rl`,
Textual's fuzzy matcher, `fzf --filter` when installed, parsing the same log), because
absolute times on a shared machine say little. The rows "vs Zero" compare with Zero's own
commands on the same stores (benchmarks/zero_bench.py). The table is Markdown, for the
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import (
    export_bench,
    hosts_bench,
    keys_bench,
    live_bench,
    local_sshd,
    picker_bench,
    ranking_bench,
    start_bench,
    store_bench,
    transcript_bench,
    usage_bench,
    zero_bench,
)
from zero_tui.paths import CACHE_DIR_VARIABLE
from zero_tui.search.catalog import RACY_NS, SessionCatalog
from zero_tui.search.query import search
from zero_tui.store import SessionStore
from zero_tui.store.resumable import filter_resumable

LARGE_SESSIONS = 50_000
# A fixed query set: a ticket held by one session, rare and common words, two words in any
# order, a phrase, an exclusion, a prefix, and a filter with a word.
QUERIES = (
    "ZT-1234",
    "websocket",
    "deadlock goroutine",
    "goroutine deadlock",
    '"flaky test"',
    "parser -timeout",
    "idempot",
    "model:gpt schema",
    "regression fixture",
    "handler",
)


QUICK = {
    "sessions": 24,
    "small": 12,
    "events": 6,
    "workspaces": 3,
    "big_events": 120,
    "large": False,
    "repeats": 1,
    "rounds": 1,
    "keys": 2,
    "writes": 3,
    "idle_seconds": 0.2,
}
"""What --quick sets: the sizes the test suite runs the benchmark at."""


def _grep_word(query: str) -> str:
    """The word `grep -rl` is given for a query: its first plain word."""
    for word in query.replace('"', " ").split():
        if ":" not in word and not word.startswith("-"):
            return word
    return query


def _percentile(samples: Sequence[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def _wall(command: list[str], env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - started


def _say(message: str) -> None:
    print(f"[benchmarks] {message}", file=sys.stderr, flush=True)


def measure_search(root: Path, work: Path, repeats: int, rounds: int) -> dict[str, float]:
    """Index build (cold), query latency in-process and as a process vs grep, and the update
    after one session gains 10 events."""
    store = SessionStore(root)
    cache = work / "search-cache"
    catalog = SessionCatalog(store, cache)
    started = time.perf_counter()
    sessions = catalog.refresh()
    report = catalog.update_content()
    build = time.perf_counter() - started
    # let every entry settle (an entry written within RACY_NS of its file is checked again)
    time.sleep(max(0.0, RACY_NS / 1e9 + 0.2 - (time.perf_counter() - started)))
    catalog.refresh()
    scope = filter_resumable(
        store, "", all_workspaces=True, sessions=sessions, content_check=catalog.has_content
    ).sessions
    latencies: list[float] = []
    for _ in range(rounds):
        for query in QUERIES:
            begun = time.perf_counter()
            search(catalog, query, scope)
            latencies.append(time.perf_counter() - begun)
    env = {**os.environ, CACHE_DIR_VARIABLE: str(cache)}
    command = store_bench._zero_tui_command()
    process: list[float] = []
    grep: list[float] = []
    for query in QUERIES:
        process.append(
            statistics.median(
                _wall([*command, "search", query, "--all", "--json", "--store", str(root)], env)
                for _ in range(repeats)
            )
        )
        grep_command = ["grep", "-rl", "-i", "-F", "--", _grep_word(query), str(root)]
        grep.append(statistics.median(_wall(grep_command) for _ in range(repeats)))
    updates: list[float] = []
    names = sorted(meta.session_id for meta in scope)
    for number in range(repeats):
        session_id = names[(number * 7919) % len(names)]
        store.append_events(
            session_id,
            [
                ("message", {"role": "user", "content": f"follow-up {n} about kestrels"})
                for n in range(10)
            ],
        )
        begun = time.perf_counter()
        catalog.refresh()
        catalog.update_content()
        updates.append(time.perf_counter() - begun)
    catalog.close()
    index_bytes = sum(
        os.path.getsize(f"{catalog.path}{suffix}")
        for suffix in ("", "-wal")
        if os.path.exists(f"{catalog.path}{suffix}")
    )
    store_bytes = sum(path.stat().st_size for path in root.glob("*/*") if path.is_file())
    return {
        "index_bytes": float(index_bytes),
        "store_bytes": float(store_bytes),
        "index_vs_store": index_bytes / store_bytes,
        "index_build_s": build,
        "indexed_events": float(report.events),
        "query_p50_s": _percentile(latencies, 0.5),
        "query_p95_s": _percentile(latencies, 0.95),
        "search_process_s": statistics.median(process),
        "grep_s": statistics.median(grep),
        "search_vs_grep": sum(process) / sum(grep),
        "update_10_events_s": statistics.median(updates),
    }


def measure_store(
    sessions: int, events: int, workspaces: int, work: Path, repeats: int, rounds: int
) -> dict[str, float]:
    root = work / "sessions"
    _say(f"{sessions:,} sessions: writing the store")
    paths = store_bench.generate_store(root, sessions, events, workspaces)
    _say(f"{sessions:,} sessions: listing")
    figures: dict[str, float] = dict(store_bench.measure_listing(root, work, repeats))
    _say(f"{sessions:,} sessions: picker first rows")
    figures.update(picker_bench.measure_first_rows(root, paths[0], work, repeats))
    _say(f"{sessions:,} sessions: ranking")
    ranking = ranking_bench.run(sessions, rounds)
    figures.update({f"ranking_{key}": value for key, value in ranking.items()})
    _say(f"{sessions:,} sessions: full-text search")
    figures.update(measure_search(root, work, repeats, rounds))
    return figures


def measure_fzf(rows: int) -> dict[str, float] | None:
    """`fzf --filter` per keystroke over the same labels (a process each), when installed."""
    fzf = shutil.which("fzf")
    if fzf is None:
        return None
    labels = "\n".join(item.label for item in ranking_bench.session_rows(rows)) + "\n"
    timings: list[float] = []
    for query in ranking_bench._keystrokes():
        started = time.perf_counter()
        subprocess.run(
            [fzf, "--filter", query], input=labels.encode(), stdout=subprocess.DEVNULL, check=False
        )
        timings.append(time.perf_counter() - started)
    return {"p50_s": _percentile(timings, 0.5), "p95_s": _percentile(timings, 0.95)}


# --- the table -----------------------------------------------------------------------------


def _time(seconds: float) -> str:
    if math.isnan(seconds):
        return "—"  # nothing to time: never drawn, or not run
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 0.001:
        return f"{seconds * 1000:.1f} ms"
    return f"{seconds * 1e6:.0f} µs"


def _megabytes(size: float) -> str:
    return f"{size / 1e6:.0f} MB"


def _ratio(value: float) -> str:
    return f"{value:.2f}x" if value < 10 else f"{value:.0f}x"


@dataclass(frozen=True)
class Row:
    figure: str
    by_size: dict[int, str]
    baseline: str
    ratio: str
    budget: str
    ok: bool | None


def _sized(
    per_size: dict[int, dict[str, float]],
    main: int,
    figure: str,
    key: str,
    *,
    baseline: tuple[str, str] | None = None,
    ratio: Callable[[dict[str, float]], float] | None = None,
    budget: str = "",
    within: Callable[[dict[str, float]], bool] | None = None,
    fmt: Callable[[float], str] = _time,
) -> Row:
    values = per_size[main]
    shown_baseline = ""
    if baseline is not None:
        label, baseline_key = baseline
        shown_baseline = f"{label} {fmt(values[baseline_key])}"
    return Row(
        figure,
        {size: fmt(figures[key]) for size, figures in per_size.items()},
        shown_baseline,
        _ratio(ratio(values)) if ratio else "",
        budget,
        within(values) if within else None,
    )


def build_rows(
    per_size: dict[int, dict[str, float]],
    main: int,
    ranking_big: dict[str, float],
    big_rows: int,
    fzf: dict[str, float] | None,
    transcript: dict[str, Any],
    export: dict[str, Any],
    live: dict[str, Any] | None = None,
    usage: dict[str, Any] | None = None,
) -> list[Row]:
    m = main
    rows = [
        _sized(
            per_size,
            m,
            "picker first rows, warm cache",
            "warm_first_rows_s",
            baseline=("empty store", "empty_store_first_paint_s"),
            ratio=lambda v: v["warm_vs_empty_ratio"],
            budget="≤ 1.15x",
            within=lambda v: v["warm_vs_empty_ratio"] <= 1.15,
        ),
        _sized(
            per_size,
            m,
            "picker first rows, cold cache",
            "cold_first_rows_s",
            baseline=("warm", "warm_first_rows_s"),
            ratio=lambda v: v["cold_vs_warm_ratio"],
            budget="≤ 2x warm",
            within=lambda v: v["cold_vs_warm_ratio"] <= 2,
        ),
        _sized(
            per_size,
            m,
            "title ranking per keystroke, p50",
            "ranking_ours_p50_ms",
            baseline=("textual.fuzzy", "ranking_textual_p50_ms"),
            ratio=lambda v: v["ranking_ratio_p50"],
            budget="≥ 20x faster",
            within=lambda v: v["ranking_ratio_p50"] >= 20,
            fmt=lambda ms: _time(ms / 1000),
        ),
        _sized(
            per_size,
            m,
            "title ranking per keystroke, p95",
            "ranking_ours_p95_ms",
            baseline=("textual.fuzzy", "ranking_textual_p95_ms"),
            ratio=lambda v: v["ranking_ratio_p95"],
            budget="< 10 ms, ≥ 20x",
            within=lambda v: v["ranking_ours_p95_ms"] < 10 and v["ranking_ratio_p95"] >= 20,
            fmt=lambda ms: _time(ms / 1000),
        ),
    ]
    rows.append(
        Row(
            f"title ranking per keystroke, p95, {big_rows:,} rows",
            {m: _time(ranking_big["ours_p95_ms"] / 1000)},
            f"textual.fuzzy {_time(ranking_big['textual_p95_ms'] / 1000)}",
            _ratio(ranking_big["ratio_p95"]),
            "",
            None,
        )
    )
    if fzf is not None:
        rows.append(
            Row(
                "title ranking vs `fzf --filter` (a process per keystroke), p50",
                {m: _time(per_size[m]["ranking_ours_p50_ms"] / 1000)},
                f"fzf {_time(fzf['p50_s'])}",
                _ratio(fzf["p50_s"] / (per_size[m]["ranking_ours_p50_ms"] / 1000)),
                "",
                None,
            )
        )
    rows += [
        _sized(
            per_size,
            m,
            "`sessions --all --json`, warm",
            "cli_sessions_all_json_s",
            baseline=("cat metadata", "cat_metadata_s"),
            ratio=lambda v: v["cli_vs_cat_ratio"],
        ),
        _sized(
            per_size,
            m,
            "`sessions --all --json`, cold",
            "cli_sessions_all_json_cold_s",
            baseline=("cat metadata", "cat_metadata_s"),
            ratio=lambda v: v["cli_cold_vs_cat_ratio"],
        ),
        _sized(
            per_size,
            m,
            "content query in-process, p50",
            "query_p50_s",
            budget="< 50 ms",
            within=lambda v: v["query_p50_s"] < 0.05,
        ),
        _sized(
            per_size,
            m,
            "content query in-process, p95",
            "query_p95_s",
            budget="< 50 ms",
            within=lambda v: v["query_p95_s"] < 0.05,
        ),
        _sized(
            per_size,
            m,
            "`zero-tui search` process (median)",
            "search_process_s",
            baseline=("grep -rl", "grep_s"),
            ratio=lambda v: v["search_vs_grep"],
            budget="≤ 1x grep",
            within=lambda v: v["search_vs_grep"] <= 1,
        ),
        _sized(per_size, m, "index build, cold", "index_build_s"),
        _sized(
            per_size,
            m,
            "full-text index size (the catalog's file)",
            "index_bytes",
            baseline=("store", "store_bytes"),
            ratio=lambda v: v["index_vs_store"],
            budget="≤ 0.5x store",
            within=lambda v: v["index_vs_store"] <= 0.5,
            fmt=_megabytes,
        ),
        _sized(
            per_size,
            m,
            "index update after +10 events in one session",
            "update_10_events_s",
            budget="< 100 ms",
            within=lambda v: v["update_10_events_s"] < 0.1,
        ),
    ]
    log_mb = transcript["log_bytes"] / 1e6
    rows += [
        Row(
            f"transcript first screen, {transcript['events']:,} events ({log_mb:.0f} MB)",
            {m: _time(transcript["first_screen_s"])},
            f"10-event session {_time(transcript['baseline_first_screen_s'])}",
            _ratio(transcript["first_screen_over_baseline"]),
            "< 0.5 s",
            transcript["first_screen_s"] < 0.5,
        ),
        Row(
            "transcript peak memory (traced)",
            {m: f"{transcript['peak_traced_bytes'] / 1e6:.0f} MB"},
            f"log {log_mb:.0f} MB",
            _ratio(transcript["peak_memory_ratio"]),
            "< 2x the log",
            transcript["peak_memory_ratio"] < 2,
        ),
    ]
    parse_speed = export["log_bytes"] / export["parse_s"] / 1e6
    for fmt in ("txt", "md", "json", "html"):
        if fmt not in export:
            continue
        speed = export["log_bytes"] / export[fmt]["export_s"] / 1e6
        budgeted = fmt in export_bench.BUDGETED_FORMATS
        rows.append(
            Row(
                f"export {fmt} throughput",
                {m: f"{speed:.1f} MB/s"},
                f"parse {parse_speed:.1f} MB/s",
                _ratio(export[fmt]["speed_vs_parse"]),
                "≥ 0.33x parse" if budgeted else "(not budgeted)",
                export[fmt]["within_budget"] if budgeted else None,
            )
        )
    if live is not None:
        rows += live_rows(live, m)
    if usage is not None:
        rows += usage_rows(usage, m)
    return rows


def usage_rows(usage: dict[str, Any], main: int) -> list[Row]:
    """Each session's tokens in the listing and the picker (benchmarks.usage_bench)."""
    rows = [
        Row(
            f"`sessions --all --json` with usage, {cache} cache",
            {main: _time(usage[f"json_with_usage_{cache}_s"])},
            f"without usage {_time(usage[f'json_without_usage_{cache}_s'])}",
            _ratio(usage[f"json_usage_{cache}_ratio"]),
            "",
            None,
        )
        for cache in ("warm", "cold")
    ]
    rows.append(
        Row(
            "picker first rows with the tokens column, warm cache",
            {main: _time(usage["picker_first_rows_with_tokens_s"])},
            f"first rows {_time(usage['picker_first_rows_s'])}",
            _ratio(usage["picker_tokens_ratio"]),
            "",
            None,
        )
    )
    return rows


def live_rows(live: dict[str, Any], main: int) -> list[Row]:
    """The live picker's figures (benchmarks.live_bench)."""
    writes = live["writes"]
    unwatched = live["idle_cpu_per_minute_unwatched_s"]
    rows = [
        Row(
            f"live picker: a write to its row on screen, {label} of {writes}",
            {main: _time(live[key])},
            "",
            "",
            "< 1 s",
            live[key] < 1,
        )
        for label, key in (("p50", "write_to_row_p50_s"), ("p95", "write_to_row_p95_s"))
    ]
    rows += [
        Row(
            f"open picker idle, CPU per minute, {label}",
            {main: _time(live[key])},
            f"no watcher {_time(unwatched)}",
            _ratio(live[key] / unwatched) if unwatched else "",
            "",
            None,
        )
        for label, key in (
            ("file-change notification", "idle_cpu_per_minute_notify_s"),
            ("polling every 1s", "idle_cpu_per_minute_poll_s"),
        )
    ]
    rows.append(
        Row(
            "running mark, one look after a batch",
            {main: _time(live["running_look_s"])},
            f"stat every metadata {_time(live['running_every_metadata_s'])}",
            _ratio(live["running_look_s"] / live["running_every_metadata_s"]),
            "",
            None,
        )
    )
    return rows


def hosts_rows(hosts: dict[str, Any] | None, main: int) -> list[Row]:
    """A host's store mirrored over ssh (benchmarks.hosts_bench); none without sshd."""
    if hosts is None:
        return []
    appended = hosts["appended_bytes"]
    return [
        Row(
            "hosts: first sync over ssh",
            {main: _time(hosts["first_sync_s"])},
            f"`rsync -a` {_time(hosts['plain_rsync_s'])}",
            _ratio(hosts["first_sync_ratio"]),
            "≤ 1.2x",
            hosts["first_sync_ratio"] <= 1.2,
        ),
        Row(
            "hosts: incremental sync, one session +10 events",
            {main: _time(hosts["incremental_sync_s"])},
            f"`rsync -a` {_time(hosts['plain_incremental_s'])}",
            _ratio(hosts["incremental_sync_s"] / hosts["plain_incremental_s"]),
            "≤ 1 s",
            hosts["incremental_sync_s"] <= 1,
        ),
        Row(
            "hosts: data sent for that sync (rsync's literal data)",
            {main: f"{hosts['incremental_literal_bytes']:,} B"},
            f"appended {appended:,} B",
            _ratio(hosts["incremental_bytes_ratio"]),
            "≤ 2x",
            hosts["incremental_bytes_ratio"] <= 2,
        ),
        Row(
            "hosts: `search --host devbox --all` over the mirror (median)",
            {main: _time(hosts["search_s"])},
            f"first, indexing {_time(hosts['search_cold_s'])}",
            "",
            "",
            None,
        ),
        Row(
            "hosts: picker first rows, three hosts of N beside N local, warm",
            {main: _time(hosts["picker_three_hosts_first_rows_s"])},
            f"N local alone {_time(hosts['picker_local_first_rows_s'])}",
            _ratio(hosts["picker_three_hosts_ratio"]),
            "≤ 1.5x",
            hosts["picker_three_hosts_ratio"] <= 1.5,
        ),
        Row(
            "hosts: `search --host all --all` across three hosts and N local (median)",
            {main: _time(hosts["search_three_hosts_s"])},
            "",
            "",
            "",
            None,
        ),
    ]


def versus_zero_rows(versus: zero_bench.Versus, sizes: list[int], main: int) -> list[Row]:
    """zero_bench's comparisons, each in the column of the store size it was taken at."""
    return [
        Row(
            item.figure,
            {item.sessions if item.sessions in sizes else main: _time(item.ours_s)},
            f"{item.baseline} {_time(item.theirs_s)}",
            _ratio(item.ratio),
            "" if item.goal is None else f"≤ {item.goal}x Zero",
            item.within,
        )
        for item in versus.comparisons
    ]


@dataclass(frozen=True)
class KeyRow:
    figures: keys_bench.KeyFigures
    ratio: float | None  # CPU per key against the bare Input app's (None: the app itself)
    ok: bool | None  # within the goal; None where there is no goal (the bare app, Zero)


def keys_rows(figures: Sequence[keys_bench.KeyFigures]) -> list[KeyRow]:
    """The `keys` section: zero-tui's actions are held to keys_bench.GOAL x the bare app."""
    bare = keys_bench.bare_cpu_per_key(figures)
    rows = []
    for item in figures:
        ratio = item.cpu_per_key_s / bare if bare > 0 else None
        held = item.program == "zero-tui" and ratio is not None
        rows.append(
            KeyRow(
                item,
                None if item.program.startswith("bare") else ratio,
                (ratio is not None and ratio <= keys_bench.GOAL) if held else None,
            )
        )
    return rows


def render_keys(rows: Sequence[KeyRow]) -> str:
    """The `keys` table: one line per program, store and action."""
    header = ["Keys: action", "program", "store", "CPU per key", "vs bare Input"]
    header += ["latency p50", "latency p95", "budget", ""]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        item = row.figures
        never = f" ({item.unchanged} of {item.keys} never drawn)" if item.unchanged else ""
        cells = [
            item.action + never,
            item.program,
            item.store,
            _time(item.cpu_per_key_s),
            "" if row.ratio is None else _ratio(row.ratio),
            _time(item.latency_p50_s),
            _time(item.latency_p95_s),
            f"≤ {keys_bench.GOAL}x" if row.ok is not None else "",
            "" if row.ok is None else ("ok" if row.ok else "**over**"),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def render(rows: list[Row], sizes: list[int], main: int) -> str:
    header = ["Figure", *(f"{size:,} sessions" for size in sizes)]
    small = sizes[0]
    header += [f"growth {small:,}→{sizes[-1]:,}", f"baseline ({main:,})", "ratio", "budget", ""]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        cells = [row.figure, *(row.by_size.get(size, "") for size in sizes)]
        growth = ""
        if len(row.by_size) > 1:
            first, last = row.by_size[small], row.by_size[sizes[-1]]
            growth = _growth(first, last)
        mark = "" if row.ok is None else ("ok" if row.ok else "**over**")
        cells += [growth, row.baseline, row.ratio, row.budget, mark]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _seconds(text: str) -> float | None:
    value, _, unit = text.partition(" ")
    scale = {"s": 1.0, "ms": 1e-3, "µs": 1e-6}.get(unit)
    try:
        return float(value) * scale if scale else None
    except ValueError:
        return None


def _growth(first: str, last: str) -> str:
    a, b = _seconds(first), _seconds(last)
    if a is None or b is None or a == 0:
        return ""
    return _ratio(b / a)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--small", type=int, default=1_000, help="the size growth starts from")
    parser.add_argument("--events", type=int, default=40, help="events per session")
    parser.add_argument("--workspaces", type=int, default=20)
    parser.add_argument("--big-events", type=int, default=100_000)
    parser.add_argument("--large", action="store_true", help=f"also {LARGE_SESSIONS:,} sessions")
    parser.add_argument("--repeats", type=int, default=5, help="runs of each process timing")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each keystroke/query")
    parser.add_argument("--skip-tui", action="store_true", help="no picker vs Zero's TUI (tmux)")
    parser.add_argument(
        "--only",
        choices=["keys", "start"],
        help="one section alone: keys = CPU and latency per keystroke (tmux); "
        "start = the picker's first rows beside a bare Textual app's (tmux)",
    )
    parser.add_argument("--keys", type=int, default=20, help="keys sent per keystroke action")
    parser.add_argument("--writes", type=int, default=50, help="writes the live picker follows")
    parser.add_argument(
        "--idle-seconds", type=float, default=15.0, help="how long an idle picker is measured"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="every section at a tiny size, to see that it runs on this Python (never a timing)",
    )
    args = parser.parse_args(argv)
    if args.quick:
        for name, value in QUICK.items():
            setattr(args, name, value)
    if args.only == "keys":
        return print_keys(args.sessions, args.keys, args.events)
    if args.only == "start":
        return print_start(args.sessions, args.events, args.repeats)
    sizes = sorted({args.small, args.sessions} | ({LARGE_SESSIONS} if args.large else set()))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="zero-tui-benchmarks-") as temp:
        work = Path(temp)
        per_size: dict[int, dict[str, float]] = {}
        for size in sizes:
            directory = work / f"store-{size}"
            directory.mkdir()
            per_size[size] = measure_store(
                size, args.events, args.workspaces, directory, args.repeats, args.rounds
            )
            shutil.rmtree(directory, ignore_errors=True)
        big_rows = 10 * args.sessions
        _say(f"ranking over {big_rows:,} rows")
        ranking_big = ranking_bench.run(big_rows, args.rounds, textual_every=4)
        fzf = measure_fzf(args.sessions)
        _say(f"transcript of {args.big_events:,} events")
        transcript = transcript_bench.run(args.big_events)
        _say(f"export of {args.big_events:,} events")
        export = export_bench.run(args.big_events, repeat=max(1, min(3, args.repeats)))
        _say(f"the live picker at {args.sessions:,} sessions")
        live = live_bench.run(
            args.sessions,
            args.events,
            args.workspaces,
            writes=args.writes,
            idle_seconds=args.idle_seconds,
        )
        _say(f"usage at {args.sessions:,} sessions")
        usage = usage_bench.run(args.sessions, args.events, args.repeats)
        _say(f"a host of {args.sessions:,} sessions over ssh")
        hosts = hosts_bench.run(args.sessions, args.events, args.workspaces, args.repeats)
    _say("against Zero's own commands")
    versus = zero_bench.run(
        args.sessions,
        args.small,
        args.events,
        args.workspaces,
        args.big_events,
        args.repeats,
        tui=not args.skip_tui,
    )
    rows = build_rows(
        per_size, args.sessions, ranking_big, big_rows, fzf, transcript, export, live, usage
    )
    rows += hosts_rows(hosts, args.sessions)
    rows += versus_zero_rows(versus, sizes, args.sessions)
    print(render(rows, sizes, args.sessions))
    elapsed = time.perf_counter() - started
    print(
        f"\n{args.events} events per session across {args.workspaces} workspaces; "
        f"{os.cpu_count()} CPUs; taken in {elapsed:.0f} s"
        + ("" if fzf is not None else "; fzf not installed")
        + (
            ""
            if hosts is not None
            else "; no hosts figures: " + ", ".join(local_sshd.missing_tools())
        )
    )
    print("; ".join([f"vs Zero: {versus.describe()}", *versus.notes]))
    if not args.skip_tui and shutil.which("tmux") is not None:
        print()
        print_start(args.sessions, args.events, args.repeats)
        print()
        print_keys(args.sessions, args.keys, args.events)
    return 0


def print_start(sessions: int, events: int, repeats: int) -> int:
    """The `start` section (benchmarks.start_bench), as its own table."""
    _say("the picker's start beside a bare Textual app, in tmux")
    started = time.perf_counter()
    print(start_bench.render(start_bench.run(sessions, events, repeats)))
    print(
        f"\n{repeats} paired runs per store, in tmux; {os.cpu_count()} CPUs; "
        f"taken in {time.perf_counter() - started:.0f} s"
    )
    return 0


def print_keys(sessions: int, keys: int, events: int) -> int:
    """The `keys` section (benchmarks.keys_bench), as its own table."""
    _say("keystrokes, in tmux")
    started = time.perf_counter()
    figures = keys_bench.run(sessions, keys, events)
    print(render_keys(keys_rows(figures)))
    zero = zero_bench.find_zero()[0]
    print(
        f"\n{keys} keys per action, CPU of the process tree less its idle CPU; "
        f"{os.cpu_count()} CPUs; taken in {time.perf_counter() - started:.0f} s"
        + ("" if zero is not None else "; no Zero to compare with")
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
