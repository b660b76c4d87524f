"""Agent-run budgets (design §4), with the fake `zero` (tests/fake_zero.py):

(a) Enter to the first streamed character on screen, within 50 ms of the agent's first
    text line. In-process, headless: the transcript screen sends a prompt (Enter handled:
    `send_prompt` entered), the engine parses the first `text` line, the live turn's
    text view has taken it in, and the screen's next refresh after that (call_after_refresh)
    is the paint. Median over `--runs` prompts.
(b) 200 text deltas per second (`deltas 2000 200`, one character each) without falling
    behind: the event-loop thread's CPU time per delta, over a baseline run in flight that
    streams nothing for as long (`hang`, cancelled); every delta's lag from its line being
    parsed to the paint that first shows it; and at `run_end`, how many characters were
    still waiting to be painted.

    python -m benchmarks.agent_bench [--runs 10] [--deltas 2000] [--rate 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from bisect import bisect_left
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any, ClassVar

from textual.app import App
from textual.pilot import Pilot

from zero_tui.agent.engine import ExecEngine, ExecRun, RunRequest
from zero_tui.agent.stream import AgentEvent, RunEnd, TextDelta
from zero_tui.agent.turn import TextBlock
from zero_tui.store import SessionStore
from zero_tui.ui.app import css_paths
from zero_tui.ui.screens.transcript import TranscriptScreen
from zero_tui.ui.widgets.live_turn import LiveTextView

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from agent_fixtures import write_fake_zero  # the tests' fake `zero`, found on the path above

SIZE = (120, 40)
SESSION = "zero_bench"
FIRST_CHAR_BUDGET_MS = 50.0
DEADLINE_SECONDS = 120.0  # bounds a hang; nothing here is a pass/fail on machine speed
FLOOD_DEADLINE_SECONDS = 900.0


@dataclass
class Timeline:
    """What happened when, for the run in flight (perf_counter seconds)."""

    enter: float = 0.0
    first_line: float = 0.0  # the engine parsed the first `text` line
    first_paint: float = 0.0  # the refresh after the first characters reached the text view
    run_end: float = 0.0  # the engine parsed `run_end`
    parsed: list[float] = field(default_factory=list)  # when delta k's line was parsed
    parsed_chars: list[int] = field(default_factory=list)  # characters streamed up to k
    painted: list[tuple[float, int]] = field(default_factory=list)  # (paint, characters)
    appended_chars: int = 0
    chars_at_run_end: tuple[int, int] = (0, 0)  # (streamed, in the text view) at run_end
    ended: asyncio.Event = field(default_factory=asyncio.Event)  # set at run_end


class TimedEngine(ExecEngine):
    """ExecEngine whose runs timestamp the lines they parse."""

    timeline = Timeline()

    async def start(self, request: RunRequest) -> ExecRun:
        run = await super().start(request)
        parse = run._parse
        timeline = self.timeline

        def timed_parse(line: bytes) -> AgentEvent | None:
            event = parse(line)
            now = time.perf_counter()
            if isinstance(event, TextDelta):
                if not timeline.parsed:
                    timeline.first_line = now
                streamed = (timeline.parsed_chars or [0])[-1] + len(event.delta)
                timeline.parsed.append(now)
                timeline.parsed_chars.append(streamed)
            elif isinstance(event, RunEnd):
                timeline.run_end = now
                streamed = (timeline.parsed_chars or [0])[-1]
                timeline.chars_at_run_end = (streamed, timeline.appended_chars)
                timeline.ended.set()
            return event

        setattr(run, "_parse", timed_parse)  # noqa: B010 (timing only)
        return run


def watch_live_text(engine: TimedEngine) -> Callable[[], None]:
    """Timestamp every time the live turn's text view takes in streamed text, and the
    refresh that shows it."""
    original = LiveTextView.catch_up

    async def timed_catch_up(self: LiveTextView, block: TextBlock) -> None:
        before = self.taken
        await original(self, block)
        timeline = engine.timeline
        timeline.appended_chars += self.taken - before
        shown = timeline.appended_chars

        def painted() -> None:
            now = time.perf_counter()
            if not timeline.first_paint:
                timeline.first_paint = now
            timeline.painted.append((now, shown))

        if self.taken != before:
            self.call_after_refresh(painted)

    setattr(LiveTextView, "catch_up", timed_catch_up)  # noqa: B010 (undone by the return)
    return lambda: setattr(LiveTextView, "catch_up", original)


class BenchApp(App[None]):
    CSS_PATH: ClassVar[list[str | PurePath]] = [path for path in css_paths() if path.exists()]

    def __init__(self, store: SessionStore, engine: ExecEngine, workspace: Path) -> None:
        super().__init__()
        self.store = store
        self.engine = engine
        self.workspace = workspace

    def on_mount(self) -> None:
        self.push_screen(
            TranscriptScreen(self.store, SESSION, workspace=str(self.workspace), engine=self.engine)
        )


async def until(
    pilot: Pilot[Any],
    condition: Callable[[], bool],
    what: str,
    seconds: float = DEADLINE_SECONDS,
) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"gave up waiting for {what}")
        await pilot.pause(0.005)


def time_enter(screen: TranscriptScreen, engine: TimedEngine) -> None:
    """The timeline's start: the editor's Enter handled, the prompt about to be sent."""
    send_prompt = screen.send_prompt

    async def timed_send(text: str) -> bool:
        engine.timeline.enter = time.perf_counter()
        return await send_prompt(text)

    setattr(screen, "send_prompt", timed_send)  # noqa: B010 (timing only)


async def send(
    pilot: Pilot[Any], screen: TranscriptScreen, prompt: str, engine: TimedEngine
) -> None:
    """Put `prompt` in the editor and press Enter, on a fresh timeline."""
    engine.timeline = Timeline()
    screen.composer.replace_text(prompt)
    await pilot.press("enter")


def run_over(screen: TranscriptScreen) -> bool:
    """The run has ended and the rows are rebuilt (a cancelled one keeps its partial answer)."""
    return not screen.running and (not screen.live.shown or screen.live.kept) and screen.loaded


async def finished(pilot: Pilot[Any], screen: TranscriptScreen) -> None:
    await until(pilot, lambda: run_over(screen), "run end")


def ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def first_character(
    pilot: Pilot[Any], screen: TranscriptScreen, engine: TimedEngine, runs: int
) -> dict[str, Any]:
    to_paint, line_to_paint, to_line = [], [], []
    for number in range(runs):
        await send(pilot, screen, f"first character {number}", engine)
        await finished(pilot, screen)
        timeline = engine.timeline
        to_line.append(timeline.first_line - timeline.enter)
        line_to_paint.append(timeline.first_paint - timeline.first_line)
        to_paint.append(timeline.first_paint - timeline.enter)
    median_line_to_paint = ms(statistics.median(line_to_paint))
    return {
        "runs": runs,
        "enter_to_first_paint_ms_median": ms(statistics.median(to_paint)),
        "enter_to_agent_first_text_line_ms_median": ms(statistics.median(to_line)),
        "first_text_line_to_paint_ms_median": median_line_to_paint,
        "first_text_line_to_paint_ms_max": ms(max(line_to_paint)),
        "budget_ms": FIRST_CHAR_BUDGET_MS,
        "within_budget": median_line_to_paint <= FIRST_CHAR_BUDGET_MS,
    }


async def main_thread_cpu(action: Callable[[], Awaitable[None]]) -> tuple[float, float]:
    """(CPU seconds of this thread — the event loop's —, wall seconds) spent in `action`."""
    cpu, wall = time.thread_time(), time.perf_counter()
    await action()
    return time.thread_time() - cpu, time.perf_counter() - wall


async def delta_rate(
    pilot: Pilot[Any], screen: TranscriptScreen, engine: TimedEngine, deltas: int, rate: int
) -> dict[str, Any]:
    # Waited for on an event, not polled: the measurement is the app's work, not ours.
    async def streaming() -> None:
        await send(pilot, screen, f"deltas {deltas} {rate}", engine)
        await asyncio.wait_for(engine.timeline.ended.wait(), DEADLINE_SECONDS)

    stream_cpu, stream_wall = await main_thread_cpu(streaming)
    timeline = engine.timeline
    await finished(pilot, screen)

    async def idle_run() -> None:
        await asyncio.sleep(stream_wall)

    await send(pilot, screen, "hang", engine)
    await until(
        pilot, lambda: screen.agent.exec_run is not None and bool(engine.timeline.parsed), "hang"
    )
    idle_cpu, idle_wall = await main_thread_cpu(idle_run)
    await pilot.press("escape")
    await finished(pilot, screen)

    paint_times = [when for when, _chars in timeline.painted]
    paint_chars = [chars for _when, chars in timeline.painted]
    lags = []
    for parsed_at, streamed in zip(timeline.parsed, timeline.parsed_chars, strict=True):
        # the first paint at or after this delta's parse that shows its characters
        first = bisect_left(paint_times, parsed_at)
        while first < len(paint_chars) and paint_chars[first] < streamed:
            first += 1
        if first < len(paint_times):
            lags.append(paint_times[first] - parsed_at)
    baseline_cpu = idle_cpu * stream_wall / idle_wall
    per_delta_ms = (stream_cpu - baseline_cpu) / deltas * 1000
    streamed, in_markdown = timeline.chars_at_run_end
    all_painted = bool(paint_chars) and paint_chars[-1] >= deltas
    painted_after_end = paint_times[-1] - timeline.run_end if paint_times else float("nan")
    first_parse, last_parse = timeline.parsed[0], timeline.parsed[-1]
    return {
        "deltas": deltas,
        "rate_asked_per_s": rate,
        "rate_received_per_s": round((len(timeline.parsed) - 1) / (last_parse - first_parse), 1),
        "paints": len(timeline.painted),
        "deltas_per_paint": round(deltas / max(1, len(timeline.painted)), 1),
        "loop_cpu_per_delta_ms": round(per_delta_ms, 3),
        "loop_cpu_share_while_streaming": round(stream_cpu / stream_wall, 3),
        "loop_cpu_share_idle_run": round(idle_cpu / idle_wall, 3),
        "delta_to_paint_ms_median": ms(statistics.median(lags)) if lags else None,
        "delta_to_paint_ms_p95": ms(percentile(lags, 0.95)) if lags else None,
        "delta_to_paint_ms_max": ms(max(lags)) if lags else None,
        "deltas_never_painted": deltas - len(lags),
        "chars_waiting_at_run_end": streamed - in_markdown,
        "last_paint_after_run_end_ms": ms(painted_after_end),
        "kept_up": all_painted and len(lags) == deltas,
    }


class LoopWatch:
    """The longest the event loop went without running a task that wakes every TICK."""

    TICK = 0.01

    def __init__(self) -> None:
        self.longest = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _watch(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(self.TICK)
            now = time.perf_counter()
            self.longest = max(self.longest, now - last - self.TICK)
            last = now

    def __enter__(self) -> LoopWatch:
        self._task = asyncio.get_running_loop().create_task(self._watch())
        return self

    def __exit__(self, *_: object) -> None:
        if self._task is not None:
            self._task.cancel()


async def delta_flood(
    pilot: Pilot[Any],
    screen: TranscriptScreen,
    engine: TimedEngine,
    deltas: int,
    scenario: str = "deltas",
) -> dict[str, Any]:
    with LoopWatch() as watch:
        await send(pilot, screen, f"{scenario} {deltas}", engine)
        await asyncio.wait_for(engine.timeline.ended.wait(), FLOOD_DEADLINE_SECONDS)
        await until(pilot, lambda: run_over(screen), "the rows rebuilt", FLOOD_DEADLINE_SECONDS)
        rows = time.perf_counter()
    timeline = engine.timeline
    return {
        "deltas": deltas,
        "text": "one paragraph" if scenario == "deltas" else "a paragraph break every 50",
        "enter_to_rows_s": round(rows - timeline.enter, 2),
        "enter_to_run_end_parsed_s": round(timeline.run_end - timeline.enter, 2),
        "longest_loop_wait_ms": ms(watch.longest),
    }


async def measure(runs: int, deltas: int, rate: int, floods: list[int]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="zero-tui-agent-bench-") as directory:
        root = Path(directory)
        workspace = root / "workspace"
        workspace.mkdir()
        store = SessionStore(root / "data" / "zero" / "sessions")
        store.create(SESSION, cwd=str(workspace), title="benchmark")
        store.append_events(
            SESSION,
            [
                ("message", {"role": "user", "content": "hello"}),
                ("message", {"role": "assistant", "content": "hi"}),
            ],
        )
        env = {
            **os.environ,
            "HOME": str(root),
            "XDG_DATA_HOME": str(root / "data"),
            "XDG_CONFIG_HOME": str(root / "config"),
            "ZERO_BIN": str(write_fake_zero(root / "bin")),
        }
        engine = TimedEngine(store, env=env)
        undo = watch_live_text(engine)
        try:
            app = BenchApp(store, engine, workspace)
            async with app.run_test(size=SIZE) as pilot:
                await until(
                    pilot,
                    lambda: isinstance(app.screen, TranscriptScreen) and app.screen.loaded,
                    "the transcript",
                )
                screen = app.screen
                assert isinstance(screen, TranscriptScreen)
                time_enter(screen, engine)
                await send(pilot, screen, "warm-up", engine)
                await finished(pilot, screen)
                first = await first_character(pilot, screen, engine, runs)
                stream = await delta_rate(pilot, screen, engine, deltas, rate)
                flooded = [
                    await delta_flood(pilot, screen, engine, size, scenario)
                    for size in floods
                    for scenario in ("deltas", "paragraphs")
                ]
        finally:
            undo()
    result: dict[str, Any] = {"first_character": first, "delta_stream": stream}
    if flooded:
        result["delta_floods"] = flooded
    return result


def flood_sizes(text: str) -> list[int]:
    """`25000,100000` -> [25000, 100000]; `none` -> []."""
    if text.strip().lower() in ("", "none"):
        return []
    return [int(part) for part in text.split(",")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--deltas", type=int, default=2000)
    parser.add_argument("--rate", type=int, default=200)
    parser.add_argument(
        "--flood", type=flood_sizes, default=[25_000, 100_000, 200_000], help="or none"
    )
    args = parser.parse_args()
    measured = measure(args.runs, args.deltas, args.rate, args.flood)
    print(json.dumps(asyncio.run(measured), indent=2))


if __name__ == "__main__":
    main()
