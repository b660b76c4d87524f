"""The picker's start against Textual's own floor (issue 27): zero-tui's first rows, warm
cache, beside a bare Textual app that paints a static list of the same rows.

Both run in a private tmux server (benchmarks.zero_bench.Tmux) and are timed from the
launch to a known text on screen: the newest title of the workspace, which the bare app
shows first of its rows. The bare app is what any Textual program pays before its first
paint — the interpreter, Textual's imports, the app's compose and first frame — so the
ratio is what zero-tui adds to it. Paired runs, who goes first alternating; the ratio is
the median of the pairs'. At the demo store and at a generated store of --sessions.

    python -m benchmarks.start_bench [--sessions 10000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from benchmarks import picker_bench, store_bench, zero_bench
from benchmarks.keys_bench import tree_cpu
from benchmarks.zero_bench import SCREEN, TITLE_CHARS, BenchmarkFailure, Tmux
from zero_tui.paths import CACHE_DIR_VARIABLE
from zero_tui.store import SessionStore
from zero_tui.store.resumable import filter_resumable

GOAL = 1.15  # the most zero-tui's first rows may take against the bare app's first paint

_BARE_LIST_APP = """
import json, sys
from textual.app import App
from textual.widgets import Static

class BareList(App):
    def compose(self):
        with open(sys.argv[1], encoding="utf-8") as rows:
            yield Static("\\n".join(json.load(rows)))

BareList().run()
"""


@dataclass(frozen=True)
class Start:
    """One launch: the wall time to the known text on screen, and the CPU the program had
    used by then (its process tree's), which a busy machine moves far less than the wall."""

    wall_s: float
    cpu_s: float


@dataclass(frozen=True)
class StartFigures:
    store: str
    rows: int  # rows on the first screen, in both programs
    bare_s: float  # the bare Textual app: start → the known text on screen (median)
    ours_s: float  # zero-tui's picker, warm cache: start → the same text (median)
    ratio: float  # the median of the paired runs' ratios
    bare_cpu_s: float  # the CPU each had used by then (median)
    ours_cpu_s: float

    @property
    def within(self) -> bool:
        return self.ratio <= GOAL


def _say(message: str) -> None:
    print(f"[start_bench] {message}", file=sys.stderr, flush=True)


def time_start(tmux: Tmux, argv: Sequence[str], cwd: Path, env: dict[str, str], text: str) -> Start:
    """Launch `argv` and poll its screen until `text` shows; then read its CPU."""
    wanted = text[:TITLE_CHARS]
    started = time.perf_counter()
    pane, pid = tmux.launch(argv, cwd, env)
    try:
        screen = ""
        while time.perf_counter() - started < zero_bench.TUI_DEADLINE_SECONDS:
            screen = tmux.screen(pane)
            if wanted in screen:
                return Start(time.perf_counter() - started, tree_cpu(pid))
            time.sleep(zero_bench.POLL_SECONDS)
        raise BenchmarkFailure(f"{argv[0]} never showed {wanted!r}:\n{screen}")
    finally:
        tmux.close(pane, pid)


def first_screen_titles(root: Path, workspace: Path) -> list[str]:
    """The titles the picker shows first in `workspace`, newest first, as many as fit."""
    sessions = filter_resumable(SessionStore(root), str(workspace)).sessions
    return [meta.title for meta in sessions[: SCREEN[1]]]


def measure(
    tmux: Tmux,
    label: str,
    root: Path,
    workspace: Path,
    work: Path,
    env: dict[str, str],
    repeats: int,
) -> StartFigures:
    titles = first_screen_titles(root, workspace)
    rows_file = work / f"rows-{len(titles)}.json"
    rows_file.write_text(json.dumps(titles))
    script = work / "bare_list.py"
    script.write_text(_BARE_LIST_APP)
    bare = [sys.executable, str(script), str(rows_file)]
    cache = work / f"cache-{label.replace(' ', '-').replace(',', '')}"
    picker_bench.time_to_first_rows(root, str(workspace), cache, settle=True)  # warms it
    ours = [*store_bench._zero_tui_command(), "--store", str(root), "--cwd", str(workspace)]
    ours_env = {**env, CACHE_DIR_VARIABLE: str(cache)}
    wanted = titles[0]
    cpu: dict[str, list[float]] = {"bare": [], "ours": []}

    def timed(side: str, argv: list[str], side_env: dict[str, str]) -> float:
        start = time_start(tmux, argv, workspace, side_env, wanted)
        cpu[side].append(start.cpu_s)
        return start.wall_s

    timed("bare", bare, env)  # once each first: the files in the page cache, the bytecode
    timed("ours", ours, ours_env)
    for samples in cpu.values():
        samples.clear()
    ours_s, bare_s, ratio = zero_bench._paired(
        partial(timed, "ours", ours, ours_env), partial(timed, "bare", bare, env), repeats
    )
    return StartFigures(
        label,
        len(titles),
        bare_s,
        ours_s,
        ratio,
        statistics.median(cpu["bare"]),
        statistics.median(cpu["ours"]),
    )


def run(sessions: int = 10_000, events: int = 40, repeats: int = 5) -> list[StartFigures]:
    """The demo store, then a generated store of `sessions`, in one tmux server."""
    figures: list[StartFigures] = []
    with tempfile.TemporaryDirectory(prefix="zero-tui-start-") as temp:
        work = Path(temp).resolve()
        made = zero_bench.terminal_stores(work, sessions, events)
        stores = (
            ("demo store", made.demo.root, made.demo.workspaces[0]),
            (f"{sessions:,} sessions", made.root, made.workspace),
        )
        with Tmux(made.env, work / "tmux-socket") as tmux:
            for label, root, workspace in stores:
                _say(f"{label}: the bare app and the picker, {repeats} pairs")
                figures.append(measure(tmux, label, root, workspace, work, made.env, repeats))
    return figures


def render(figures: Sequence[StartFigures]) -> str:
    """The `start` table: one line per store."""
    header = ["Start: first rows, warm cache", "store", "rows", "bare Textual app"]
    header += ["zero-tui", "ratio", "budget", "", "CPU by then: bare", "zero-tui", "ratio"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for item in figures:
        cells = [
            "start → a known title on screen",
            item.store,
            str(item.rows),
            f"{item.bare_s * 1000:.1f} ms",
            f"{item.ours_s * 1000:.1f} ms",
            f"{item.ratio:.2f}x",
            f"≤ {GOAL}x",
            "ok" if item.within else "**over**",
            f"{item.bare_cpu_s * 1000:.0f} ms",
            f"{item.ours_cpu_s * 1000:.0f} ms",
            f"{item.ours_cpu_s / item.bare_cpu_s:.2f}x" if item.bare_cpu_s else "",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.start_bench", description=__doc__)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--events", type=int, default=40, help="events per session")
    parser.add_argument("--repeats", type=int, default=5, help="paired runs per store")
    args = parser.parse_args(argv)
    print(render(run(args.sessions, args.events, args.repeats)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
