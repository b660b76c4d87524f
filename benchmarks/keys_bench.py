"""What a keystroke costs (issue 26): CPU per key and key → screen latency, through a real
terminal, for zero-tui beside a bare Textual `Input` app and Zero's own TUI.

Every program runs in a private tmux server (benchmarks.zero_bench.Tmux). For each action
the keys go one at a time with `send-keys`; after each, the screen (`capture-pane -e`, so
a moved highlight counts) is polled until it changes (the latency) and then until it has
been still for a while (everything the key set going is done). The CPU is the program's
process tree's, from each thread's schedstat in /proc (to the nanosecond), over the whole
action, less what the same program spends idle over the same span (taken before the
keys), divided by the keys sent.

The actions: typing and deleting a query in the picker (titles, and what was said after
ctrl+t), moving the highlight (↓/↑, PgDn/PgUp), and typing and deleting in a transcript's
composer; at the demo store and at a generated store of --sessions sessions (the picker
lists all of them: --all). The bare `Input` app types and deletes the same text: every
ratio is against it. Zero's TUI (when `zero` is on PATH or $ZERO_BIN is set) types the
same text in its prompt, and in its `/resume` picker types, deletes and moves.

    python -m benchmarks.keys_bench [--sessions 10000] [--keys 20]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from benchmarks import store_bench, zero_bench
from benchmarks.zero_bench import BenchmarkFailure, Tmux
from zero_tui.paths import CACHE_DIR_VARIABLE

TYPED = "parser-timeout-regression-fixture"  # cut to --keys characters
# (no spaces: a space typed last changes nothing on the screen but the cursor's place)
STILL_SECONDS = 0.3  # a screen unchanged this long after a key: the key's work is done
READY_STILL_SECONDS = 2.0  # after starting: the scan, the index and the footer are done
IDLE_SECONDS = 3.0
IDLE_SHARE = 0.05  # of a CPU: below it, the program is idle (a cursor blinks)
IDLE_DEADLINE_SECONDS = 300.0
KEY_DEADLINE_SECONDS = 10.0
POLL_SECONDS = 0.005
GOAL = 1.5  # the most a key may cost against the bare Input app's (issue 26)

_BARE_INPUT_APP = """
from textual.app import App
from textual.widgets import Input

class Bare(App):
    def compose(self):
        yield Input(placeholder="bare input ready")

Bare().run()
"""


@dataclass(frozen=True)
class Action:
    name: str
    keys: tuple[tuple[str, ...], ...]  # send-keys arguments, one key each
    before: tuple[tuple[str, ...], ...] = ()  # sent (unmeasured) before the action


@dataclass(frozen=True)
class KeyFigures:
    program: str
    store: str
    action: str
    cpu_per_key_s: float
    latency_p50_s: float
    latency_p95_s: float
    keys: int
    unchanged: int  # keys after which the screen never changed


def typing(text: str) -> tuple[tuple[str, ...], ...]:
    return tuple(("-l", char) for char in text)


def deleting(count: int) -> tuple[tuple[str, ...], ...]:
    return (("BSpace",),) * count


def alternating(first: str, second: str, count: int) -> tuple[tuple[str, ...], ...]:
    """`first` and `second` by turns: each key moves the highlight, at either end of a list."""
    return tuple((first,) if index % 2 == 0 else (second,) for index in range(count))


# --- the process's CPU -----------------------------------------------------------------------


def _reaped_ticks(pid: int) -> int:
    """The CPU of `pid`'s children that have exited, in clock ticks (cutime + cstime)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0
    # after the name: state(1) ppid ... utime(12) stime(13) cutime(14) cstime(15)
    return int(fields[13]) + int(fields[14])


def _threads_cpu(pid: int) -> float:
    """CPU seconds of `pid`'s live threads, to the nanosecond (the first field of each
    thread's schedstat): a key costs a few ms, and utime counts in 10 ms ticks."""
    total = 0
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0.0
    for thread in threads:
        try:
            total += int(Path(f"/proc/{pid}/task/{thread}/schedstat").read_text().split()[0])
        except (OSError, IndexError, ValueError):
            continue  # the thread ended meanwhile
    return total / 1e9


def _descendants(pid: int) -> list[int]:
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            ppid = int(Path(f"/proc/{entry}/stat").read_text().rpartition(")")[2].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        parents.setdefault(ppid, []).append(int(entry))
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def tree_cpu(pid: int) -> float:
    """CPU seconds of `pid`'s threads, of its live descendants' and of its reaped children
    (the program's threads persist: a pool's, the driver's, a watcher child's)."""
    used = _threads_cpu(pid) + _reaped_ticks(pid) / os.sysconf("SC_CLK_TCK")
    return used + sum(_threads_cpu(child) for child in _descendants(pid))


# --- one program on the terminal ---------------------------------------------------------------


class Terminal:
    """One program in a tmux pane: its screen, keys sent to it, its CPU."""

    def __init__(self, tmux: Tmux, pane: str, pid: int) -> None:
        self.tmux = tmux
        self.pane = pane
        self.pid = pid
        # Lines seen changing their colours alone while nothing was typed: a blinking
        # cursor's. A change there counts only when its text changes.
        self.blink_lines: set[int] = set()

    def same(self, before: str, after: str, *, learn: bool = False) -> bool:
        if before == after:
            return True
        old, new = before.split("\n"), after.split("\n")
        if len(old) != len(new):
            return False
        changed = {index for index, (a, b) in enumerate(zip(old, new, strict=True)) if a != b}
        styled = {index for index in changed if _plain(old[index]) == _plain(new[index])}
        if learn and changed == styled and len(styled) == 1:
            self.blink_lines |= styled
        return changed <= (styled & self.blink_lines)

    def screen(self) -> str:
        return self.tmux.run("capture-pane", "-p", "-e", "-t", self.pane)

    def send(self, keys: Sequence[str]) -> None:
        self.tmux.run("send-keys", "-t", self.pane, *keys)

    def wait_for(self, text: str, deadline: float = zero_bench.TUI_DEADLINE_SECONDS) -> None:
        started = time.perf_counter()
        while time.perf_counter() - started < deadline:
            if text in self.tmux.run("capture-pane", "-p", "-t", self.pane):
                return
            time.sleep(POLL_SECONDS)
        raise BenchmarkFailure(f"never showed {text!r}:\n{self.screen()}")

    def wait_still(self, seconds: float, since: str | None = None, *, learn: bool = False) -> str:
        """Poll until the screen has not changed for `seconds` (for a minute at most); the
        last screen. `learn`: nothing is typed meanwhile, so a line whose colours alone
        change is a blinking cursor's."""
        last = self.screen() if since is None else since
        started = still_since = time.perf_counter()
        while time.perf_counter() - still_since < seconds:
            if time.perf_counter() - started > zero_bench.TUI_DEADLINE_SECONDS:
                raise BenchmarkFailure(f"the screen never stood still:\n{last}")
            time.sleep(POLL_SECONDS)
            now = self.screen()
            if not self.same(last, now, learn=learn):
                still_since = time.perf_counter()
            last = now
        return last

    def wait_idle(self) -> None:
        """Wait until the program has stopped working in the background (a scan, an index,
        the tokens of every session): two half seconds in a row under IDLE_SHARE of a CPU."""
        started = time.perf_counter()
        quiet = 0
        while quiet < 2 and time.perf_counter() - started < IDLE_DEADLINE_SECONDS:
            used = tree_cpu(self.pid)
            time.sleep(0.5)
            quiet = quiet + 1 if tree_cpu(self.pid) - used < IDLE_SHARE * 0.5 else 0

    def idle_cpu_rate(self, seconds: float) -> float:
        """CPU seconds per second while nothing is typed."""
        begun, used = time.perf_counter(), tree_cpu(self.pid)
        time.sleep(seconds)
        return (tree_cpu(self.pid) - used) / (time.perf_counter() - begun)

    def measure(self, program: str, store: str, action: Action, idle_rate: float) -> KeyFigures:
        for keys in action.before:
            self.send(keys)
        screen = self.wait_still(READY_STILL_SECONDS, learn=True)
        if action.before:
            self.wait_idle()
        latencies: list[float] = []
        unchanged = 0
        begun, used = time.perf_counter(), tree_cpu(self.pid)
        for keys in action.keys:
            sent = time.perf_counter()
            self.send(keys)
            while True:
                now = self.screen()
                if not self.same(screen, now):
                    latencies.append(time.perf_counter() - sent)
                    break
                if time.perf_counter() - sent > KEY_DEADLINE_SECONDS:
                    unchanged += 1
                    break
                time.sleep(POLL_SECONDS)
            screen = self.wait_still(STILL_SECONDS, now)
        spent = tree_cpu(self.pid) - used - idle_rate * (time.perf_counter() - begun)
        count = len(action.keys)
        return KeyFigures(
            program,
            store,
            action.name,
            max(0.0, spent) / count,
            _percentile(latencies, 0.5),
            _percentile(latencies, 0.95),
            count,
            unchanged,
        )


_ESCAPE = re.compile(r"\x1b\[[0-9;:]*m")


def _plain(line: str) -> str:
    return _ESCAPE.sub("", line)


def _percentile(samples: Sequence[float], fraction: float) -> float:
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


@contextmanager
def launched(tmux: Tmux, argv: Sequence[str], cwd: Path, env: dict[str, str]) -> Iterator[Terminal]:
    pane, pid = tmux.launch(argv, cwd, env)
    try:
        yield Terminal(tmux, pane, pid)
    finally:
        tmux.close(pane, pid)


def run_program(
    tmux: Tmux,
    program: str,
    store: str,
    argv: Sequence[str],
    cwd: Path,
    env: dict[str, str],
    actions: Sequence[Action],
    ready: str,
    before: Sequence[Sequence[str]] = (),
) -> list[KeyFigures]:
    """Start `argv`, wait for `ready` on its screen (then send `before`), and time each
    action in turn on the same run."""
    _say(f"{program}, {store}")
    with launched(tmux, argv, cwd, env) as terminal:
        terminal.wait_for(ready)
        for keys in before:
            terminal.send(keys)
        terminal.wait_still(READY_STILL_SECONDS, learn=True)
        terminal.wait_idle()
        idle_rate = terminal.idle_cpu_rate(IDLE_SECONDS)
        return [terminal.measure(program, store, action, idle_rate) for action in actions]


def _say(message: str) -> None:
    print(f"[keys_bench] {message}", file=sys.stderr, flush=True)


# --- what is measured ----------------------------------------------------------------------


def picker_actions(keys: int) -> list[Action]:
    text = TYPED[:keys]
    return [
        Action("picker: type a query (titles)", typing(text)),
        Action("picker: delete the query (titles)", deleting(len(text))),
        Action("picker: move ↓/↑", alternating("Down", "Up", keys)),
        Action("picker: PgDn/PgUp", alternating("NPage", "PPage", keys)),
        Action("picker: type a query (ctrl+t content)", typing(text), before=(("C-t",),)),
        Action("picker: delete the query (ctrl+t content)", deleting(len(text))),
    ]


def composer_actions(keys: int) -> list[Action]:
    text = TYPED[:keys]
    return [
        Action("transcript composer: type", typing(text)),
        Action("transcript composer: delete", deleting(len(text))),
    ]


def measure_zero_tui(
    tmux: Tmux, store: str, root: Path, workspace: Path, env: dict[str, str], keys: int
) -> list[KeyFigures]:
    command = [*store_bench._zero_tui_command(), "--store", str(root)]
    # the catalog and the text index built first, as on a machine where zero-tui ran before
    search = [*command, "search", "warm", "--all"]
    subprocess.run(search, env=env, capture_output=True, check=False, timeout=600)  # 1: none
    picker = [*command, "--all", "--cwd", str(workspace)]
    figures = run_program(
        tmux, "zero-tui", store, picker, workspace, env, picker_actions(keys), "^q Quit"
    )
    transcript = [*command, "--cwd", str(workspace), "--resume", "latest"]
    figures += run_program(
        tmux,
        "zero-tui",
        store,
        transcript,
        workspace,
        env,
        composer_actions(keys),
        "/ for commands",
    )
    return figures


def measure_zero(
    tmux: Tmux, zero: str, store: str, workspace: Path, env: dict[str, str], keys: int
) -> list[KeyFigures]:
    """Zero's prompt, then its /resume picker (PgDn: when it has the key)."""
    text = TYPED[:keys]
    prompt = [Action("prompt: type", typing(text)), Action("prompt: delete", deleting(len(text)))]
    resume = [
        Action("/resume picker: type a query", typing(text)),
        Action("/resume picker: delete the query", deleting(len(text))),
        Action("/resume picker: move ↓/↑", alternating("Down", "Up", keys)),
        Action("/resume picker: PgDn/PgUp", alternating("NPage", "PPage", keys)),
    ]
    figures: list[KeyFigures] = []
    for actions, before in ((prompt, ()), (resume, (("-l", "/resume"), ("Enter",)))):
        figures += run_program(
            tmux,
            "Zero's TUI",
            store,
            [zero],
            workspace,
            env,
            actions,
            zero_bench.ZERO_READY,
            before,
        )
    return figures


def run(sessions: int = 10_000, keys: int = 20, events: int = 40) -> list[KeyFigures]:
    """Every program and action, in one tmux server; the bare Input app first."""
    zero, _why_not = zero_bench.find_zero()
    figures: list[KeyFigures] = []
    with tempfile.TemporaryDirectory(prefix="zero-tui-keys-") as temp:
        work = Path(temp).resolve()
        made = zero_bench.terminal_stores(work, sessions, events)
        demo, big_root, big_workspace, env = made.demo, made.root, made.workspace, made.env
        big_data = big_root.parents[1]
        bare = work / "bare_input.py"
        bare.write_text(_BARE_INPUT_APP)
        text = TYPED[:keys]
        with Tmux(env, work / "tmux-socket") as tmux:
            figures += run_program(
                tmux,
                "bare Textual Input",
                "",
                [sys.executable, str(bare)],
                work,
                env,
                [Action("Input: type", typing(text)), Action("Input: delete", deleting(len(text)))],
                "bare input ready",
            )
            stores = (
                ("demo store", demo.root, demo.workspaces[0], work / "demo-cache"),
                (f"{sessions:,} sessions", big_root, big_workspace, work / "big-cache"),
            )
            for label, root, workspace, cache in stores:
                cached = {**env, CACHE_DIR_VARIABLE: str(cache)}
                figures += measure_zero_tui(tmux, label, root, workspace, cached, keys)
            if zero is not None:
                zero_env = zero_bench.sandbox_env(work, big_data)
                figures += measure_zero(
                    tmux, zero, f"{sessions:,} sessions", big_workspace, zero_env, keys
                )
    return figures


def bare_cpu_per_key(figures: Sequence[KeyFigures]) -> float:
    """The bare Input app's CPU per key, typing and deleting together."""
    bare = [item.cpu_per_key_s for item in figures if item.program == "bare Textual Input"]
    return statistics.mean(bare) if bare else float("nan")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.keys_bench", description=__doc__)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--keys", type=int, default=20, help="keys sent per action")
    parser.add_argument("--events", type=int, default=40, help="events per session")
    args = parser.parse_args(argv)
    from benchmarks.__main__ import keys_rows, render_keys

    figures = run(args.sessions, args.keys, args.events)
    print(render_keys(keys_rows(figures)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
