"""zero-tui against Zero's own commands on the same stores (design §4, issue 19).

Each figure is a ratio zero-tui / Zero from paired runs in one go (the two sides alternate
which runs first; the ratio is the median of the pairs' ratios), against the real `zero`
when one is found ($ZERO_BIN, else `zero` on PATH), and else against the same work done
the simplest way, said in the figure's baseline:

1. `zero-tui search WORD --all`, readable output, a word in most sessions, vs `zero search
   WORD` (Zero's default output) — or `grep -rliF` when there is no Zero;
2. the same with two words, vs `zero search W1 W2` — or a `grep -rliF` pipeline;
3. the picker's first rows (start → the newest title of the workspace on screen), warm
   cache, vs Zero's TUI: start, wait for its prompt, type `/resume` Enter, wait for the same
   title — or a Python script doing /resume's reads and printing the titles. Both run in a
   private tmux server polled with `capture-pane`; zero-tui's first frame (the first
   non-blank screen) is reported too, against Zero's;
4. `zero-tui export ID --format txt -o -` of one big session vs `zero usage report
   --session ID` (Zero has no export command; this one reads and decodes the whole log) —
   or a Python loop calling json.loads on every line;
5. `zero-tui sessions --all --json` with no cache vs `zero sessions list --json` — or
   `cat` of every metadata file;
6. the full-text index built cold: `zero-tui search WORD --all` with no cache vs `zero
   search --reindex WORD` (both read every log and write their index; WORD is in no
   session, so neither stops early) — or `grep -rliF` when there is no Zero.

Zero runs with HOME and the XDG folders in the work dir, XDG_DATA_HOME above the store,
ZERO_DISABLE_MODELS_FETCH=1, and (for its TUI, which asks for a provider before it opens)
an OpenAI-compatible provider at an unused local port that nothing ever calls.

    python -m benchmarks.zero_bench [--sessions 10000] [--picker-sessions 1000]
                                    [--big-events 100000] [--repeats 5] [--skip-tui]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from benchmarks import big_session, picker_bench, store_bench
from zero_tui.agent.engine import AgentUnavailable, find_agent
from zero_tui.demo import DemoStore, build_demo_store, demo_sessions_root
from zero_tui.paths import CACHE_DIR_VARIABLE
from zero_tui.store import SessionStore
from zero_tui.store.resumable import filter_resumable

COMMON_WORD = "handler"  # in about 9 of 10 generated sessions
TWO_WORDS = ("parser", "timeout")  # both in one event of most sessions
# The most zero-tui / Zero may be (design §4).
GOAL_SEARCH = 0.8
GOAL_PICKER = 1.5
GOAL_EXPORT = 1.0
GOAL_COLD_LISTING = 0.5
GOAL_INDEX_BUILD = 1.0
ABSENT_WORD = "zyzzogeton"  # in no generated session

SCREEN = (200, 50)
TUI_DEADLINE_SECONDS = 60.0
POLL_SECONDS = 0.002
HANGUP_GRACE_SECONDS = 1.0
ZERO_READY = "describe a task for zero"  # the placeholder of Zero's prompt, once it is up
TITLE_CHARS = 40  # enough of a title to know it; a narrow list may cut the rest
_INHERITED_OUT = ("ZERO_", "OPENAI_", "ANTHROPIC_", "GEMINI_", "GOOGLE_")

# /resume's reads done the simplest way: every metadata file, the workspace's logs parsed
# whole, the newest titles printed.
_SIMPLE_RESUME_LIST = """
import json, os, sys
root, workspace = sys.argv[1], sys.argv[2]
rows = []
for name in os.listdir(root):
    try:
        with open(os.path.join(root, name, "metadata.json"), "rb") as file:
            meta = json.load(file)
        if meta.get("cwd") != workspace or not meta.get("eventCount"):
            continue
        with open(os.path.join(root, name, "events.jsonl"), "rb") as file:
            events = [json.loads(line) for line in file]
    except (OSError, ValueError):
        continue
    rows.append((meta.get("updatedAt", ""), meta.get("title", "")))
for updated, title in sorted(rows, reverse=True)[:20]:
    print(updated, title)
"""
_SIMPLE_LOG_READ = """
import json, sys
with open(sys.argv[1], "rb") as log:
    for line in log:
        json.loads(line)
"""


class BenchmarkFailure(RuntimeError):
    """A timed command failed or a screen never showed what it waited for."""


@dataclass(frozen=True)
class Comparison:
    """One figure: zero-tui's median, the other side's, and the median paired ratio."""

    figure: str
    sessions: int | None  # the store size it was taken at, None for the big session
    ours_s: float
    baseline: str  # what the other side ran
    theirs_s: float
    ratio: float
    goal: float | None  # the most the ratio may be against Zero
    against_zero: bool

    @property
    def within(self) -> bool | None:
        """Whether the goal is met; None without a goal or without Zero to compare with."""
        if self.goal is None or not self.against_zero:
            return None
        return self.ratio <= self.goal


@dataclass
class Versus:
    zero: str | None  # the executable compared with
    zero_version: str
    why_no_zero: str
    comparisons: list[Comparison] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def describe(self) -> str:
        if self.zero is None:
            return f"no Zero ({self.why_no_zero}): against the same work done the simplest way"
        where = "$ZERO_BIN" if os.environ.get("ZERO_BIN", "").strip() else "on PATH"
        return f"against {self.zero_version} ({where})"


def find_zero() -> tuple[str | None, str]:
    """Zero's executable ($ZERO_BIN, else `zero` on PATH), or None and why not."""
    try:
        binary = find_agent(os.environ)
    except AgentUnavailable as error:
        return None, str(error)
    return binary, ""


def _zero_version(binary: str, env: dict[str, str]) -> str:
    result = subprocess.run(
        [binary, "version"], capture_output=True, text=True, env=env, timeout=30, check=False
    )
    return (result.stdout.strip().splitlines() or ["zero"])[0]


def _say(message: str) -> None:
    print(f"[zero_bench] {message}", file=sys.stderr, flush=True)


# --- processes ---------------------------------------------------------------------------


def _timed(command: list[str], env: dict[str, str], *, found_nothing: int = 0) -> float:
    """Wall seconds of one run; a failed run is an error, never a fast figure.
    `found_nothing`: the exit status of a search that matched nothing, also a success."""
    started = time.perf_counter()
    result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    elapsed = time.perf_counter() - started
    if result.returncode not in (0, found_nothing):
        said = result.stderr.decode(errors="replace").strip().splitlines()
        raise BenchmarkFailure(
            f"{shlex.join(command)} exited with {result.returncode}: {said[-1] if said else ''}"
        )
    return elapsed


def _paired(
    ours: Callable[[], float], theirs: Callable[[], float], repeats: int
) -> tuple[float, float, float]:
    """(our median, their median, median of the pairs' ratios); who runs first alternates."""
    ours_times: list[float] = []
    theirs_times: list[float] = []
    for number in range(repeats):
        if number % 2:
            theirs_times.append(theirs())
            ours_times.append(ours())
        else:
            ours_times.append(ours())
            theirs_times.append(theirs())
    ratios = [o / t for o, t in zip(ours_times, theirs_times, strict=True)]
    return statistics.median(ours_times), statistics.median(theirs_times), statistics.median(ratios)


def _unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def sandbox_env(work: Path, data_home: Path) -> dict[str, str]:
    """This environment without provider or Zero settings, HOME and XDG in `work`, the store
    at `data_home`/zero/sessions, and a provider nothing calls (Zero's TUI needs one)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(_INHERITED_OUT)}
    for name in ("home", "config", "cache", "state"):
        (work / name).mkdir(parents=True, exist_ok=True)
    env.update(
        HOME=str(work / "home"),
        XDG_CONFIG_HOME=str(work / "config"),
        XDG_CACHE_HOME=str(work / "cache"),
        XDG_STATE_HOME=str(work / "state"),
        XDG_DATA_HOME=str(data_home),
        ZERO_DISABLE_MODELS_FETCH="1",
        ZERO_PROVIDER="openai",
        OPENAI_API_KEY="not-a-key",
        OPENAI_BASE_URL=f"http://127.0.0.1:{_unused_port()}/v1",
        OPENAI_MODEL="bench-model",
    )
    return env


@dataclass(frozen=True)
class TerminalStores:
    """The two stores the terminal benchmarks run zero-tui on, and the environment."""

    demo: DemoStore
    root: Path  # a generated store
    workspace: Path  # its first workspace, made on disk: a program is started there
    env: dict[str, str]  # sandbox_env with the generated store as Zero's


def terminal_stores(work: Path, sessions: int, events: int) -> TerminalStores:
    """The demo store and a generated store of `sessions` sessions, in `work`."""
    demo = build_demo_store(demo_sessions_root(work / "demo"))
    data = work / "big"
    root = data / "zero" / "sessions"
    _say(f"{sessions:,} sessions: writing the store")
    paths = store_bench.generate_store(
        root, sessions, events, workspace_root=str(work / "workspaces")
    )
    workspace = Path(paths[0])
    workspace.mkdir(parents=True)
    return TerminalStores(demo, root, workspace, sandbox_env(work, data))


def _with_cache(env: dict[str, str], cache: Path) -> dict[str, str]:
    return {**env, CACHE_DIR_VARIABLE: str(cache)}


# --- the terminal ------------------------------------------------------------------------


class Tmux:
    """A private tmux server (its socket at `socket`, no config) whose windows are SCREEN big and
    stay on screen after their program exits, so a crash can be read.

    Commands go through one control-mode client (`tmux -C`), so a poll of the screen costs
    a line on a pipe rather than a process: polling must not take the CPU the programs
    being timed need. The client sits in a session of its own; the programs run in another,
    which no client sizes."""

    def __init__(self, env: dict[str, str], socket: Path) -> None:
        self.base = ["tmux", "-S", str(socket), "-f", "/dev/null"]
        self.env = env
        self.client: subprocess.Popen[bytes] | None = None
        self.hung: list[str] = []  # programs that outlived their closed terminal

    def __enter__(self) -> Tmux:
        width, height = SCREEN
        for name in ("control", "programs"):
            size = ["-x", str(width), "-y", str(height)]
            subprocess.run(
                [*self.base, "new-session", "-d", *size, "-s", name, "sleep 86400"],
                env=self.env,
                check=True,
                capture_output=True,
                timeout=30,
            )
        self.client = subprocess.Popen(
            [*self.base, "-C", "attach", "-t", "control"],
            env=self.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self.run("set-option", "-g", "remain-on-exit", "on")
        return self

    def __exit__(self, *_: object) -> None:
        if self.client is not None:
            assert self.client.stdin is not None
            self.client.stdin.close()
            self.client.wait(timeout=30)
        subprocess.run(
            [*self.base, "kill-server"], env=self.env, capture_output=True, timeout=30, check=False
        )

    def run(self, *args: str) -> str:
        """One tmux command's output. Lines outside a `%begin … 1` block are notifications,
        or the answer to the client's own attach (flags 0)."""
        client = self.client
        if client is None or client.stdin is None or client.stdout is None:
            raise BenchmarkFailure("tmux is not started")
        client.stdin.write((shlex.join(args) + "\n").encode())
        client.stdin.flush()
        lines: list[str] = []
        inside = False
        while raw := client.stdout.readline():
            line = raw.decode(errors="replace").removesuffix("\n")
            if not inside:
                inside = line.startswith("%begin ") and line.endswith(" 1")
            elif line.startswith(("%end ", "%error ")):
                if line.startswith("%error "):
                    raise BenchmarkFailure(f"tmux {args[0]}: {' '.join(lines)}")
                return "\n".join(lines)
            else:
                lines.append(line)
        raise BenchmarkFailure("tmux's control client ended")

    def launch(self, argv: Sequence[str], cwd: Path, env: dict[str, str]) -> tuple[str, int]:
        """Start `argv` in a new window; its pane id and process id."""
        extra = [f"-e{key}={value}" for key, value in env.items() if self.env.get(key) != value]
        window = ["new-window", "-d", "-t", "programs:", "-P", "-F", "#{pane_id} #{pane_pid}"]
        pane, pid = self.run(*window, "-c", str(cwd), *extra, "--", *argv).split()
        return pane, int(pid)

    def screen(self, pane: str) -> str:
        return self.run("capture-pane", "-p", "-t", pane)

    def close(self, pane: str, pid: int) -> bool:
        """Close the pane (a hangup, as a closed terminal sends); True when the program was
        still there a second later and had to be killed."""
        self.run("kill-pane", "-t", pane)
        deadline = time.perf_counter() + HANGUP_GRACE_SECONDS
        while time.perf_counter() < deadline:
            if not _alive(pid):
                return False
            time.sleep(0.01)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        return True


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@dataclass(frozen=True)
class TuiRun:
    first_frame_s: float  # launch → the first non-blank screen
    rows_s: float  # launch → the title on screen


def time_tui(
    tmux: Tmux,
    argv: Sequence[str],
    cwd: Path,
    env: dict[str, str],
    title: str,
    before: tuple[str, Sequence[Sequence[str]]] | None = None,
) -> TuiRun:
    """Launch `argv`, poll its screen; `before` is (what shows it is ready, the send-keys
    arguments to send then, one tmux command each) for a program that must be asked."""
    wanted = title[:TITLE_CHARS]
    started = time.perf_counter()
    pane, pid = tmux.launch(argv, cwd, env)
    try:
        first_frame: float | None = None
        waiting_for = before[0] if before else wanted
        screen = ""
        while time.perf_counter() - started < TUI_DEADLINE_SECONDS:
            screen = tmux.screen(pane)
            now = time.perf_counter() - started
            if first_frame is None and screen.strip():
                first_frame = now
            if waiting_for in screen:
                if waiting_for == wanted:
                    return TuiRun(first_frame or now, now)
                assert before is not None
                for keys in before[1]:
                    tmux.run("send-keys", "-t", pane, *keys)
                waiting_for = wanted
                continue
            time.sleep(POLL_SECONDS)
        raise BenchmarkFailure(f"{shlex.join(argv)} never showed {waiting_for!r}:\n{screen}")
    finally:
        if tmux.close(pane, pid):
            tmux.hung.append(Path(argv[0]).name)


# --- the figures -------------------------------------------------------------------------


def compare_search(
    root: Path, sessions: int, env: dict[str, str], work: Path, zero: str | None, repeats: int
) -> list[Comparison]:
    """Both searches at the store's size, default (readable) output, warm on both sides: one
    run each first (zero-tui builds its index, Zero its per-session index files)."""
    ours_env = _with_cache(env, work / "search-cache")
    zt = store_bench._zero_tui_command()
    results: list[Comparison] = []
    for words in ((COMMON_WORD,), TWO_WORDS):
        ours = [*zt, "search", *words, "--all", "--store", str(root)]
        if zero is not None:
            theirs = [zero, "search", *words]
            label = f"`zero search {' '.join(words)}`"
        elif len(words) == 1:
            theirs = ["grep", "-rliF", "--", words[0], str(root)]
            label = "grep -rliF (no zero)"
        else:
            pipeline = 'grep -rliF -- "$1" "$3" | xargs -r -d "\\n" grep -liF -- "$2"'
            theirs = ["sh", "-c", pipeline, "sh", *words, str(root)]
            label = "grep -rliF | xargs grep -liF (no zero)"
        _timed(ours, ours_env)
        _timed(theirs, env)
        ours_s, theirs_s, ratio = _paired(
            partial(_timed, ours, ours_env), partial(_timed, theirs, env), repeats
        )
        what = "a common word" if len(words) == 1 else "two words"
        results.append(
            Comparison(
                f"vs Zero: `zero-tui search --all` {what}, readable output",
                sessions,
                ours_s,
                label,
                theirs_s,
                ratio,
                GOAL_SEARCH,
                zero is not None,
            )
        )
    return results


def compare_cold_listing(
    root: Path, sessions: int, env: dict[str, str], work: Path, zero: str | None, repeats: int
) -> Comparison:
    cache = work / "listing-cache"
    ours_env = _with_cache(env, cache)
    ours = [*store_bench._zero_tui_command(), "sessions", "--all", "--json", "--store", str(root)]
    if zero is not None:
        theirs = [zero, "sessions", "list", "--json"]
        label = "`zero sessions list --json`"
    else:
        theirs = store_bench.cat_metadata_command(root, work)
        label = "cat metadata (no zero)"

    def cold() -> float:
        shutil.rmtree(cache, ignore_errors=True)
        return _timed(ours, ours_env)

    _timed(theirs, env)  # both read the same files once, so neither meets them first
    cold()
    ours_s, theirs_s, ratio = _paired(cold, partial(_timed, theirs, env), repeats)
    return Comparison(
        "vs Zero: `sessions --all --json`, cold cache",
        sessions,
        ours_s,
        label,
        theirs_s,
        ratio,
        GOAL_COLD_LISTING,
        zero is not None,
    )


def compare_index_build(
    root: Path, sessions: int, env: dict[str, str], work: Path, zero: str | None, repeats: int
) -> Comparison:
    """Both full-text indexes built from nothing, each in its own command (see 6. above)."""
    cache = work / "index-cache"
    ours_env = _with_cache(env, cache)
    ours = [*store_bench._zero_tui_command(), "search", ABSENT_WORD, "--all", "--store", str(root)]
    if zero is not None:
        theirs = [zero, "search", "--reindex", ABSENT_WORD]
        label = f"`zero search --reindex {ABSENT_WORD}`"
    else:
        theirs = ["grep", "-rliF", "--", ABSENT_WORD, str(root)]
        label = "grep -rliF (no zero)"

    def cold() -> float:
        shutil.rmtree(cache, ignore_errors=True)
        return _timed(ours, ours_env, found_nothing=1)  # `zero-tui search` says so by 1

    ours_s, theirs_s, ratio = _paired(cold, partial(_timed, theirs, env, found_nothing=1), repeats)
    return Comparison(
        "vs Zero: full-text index, cold build",
        sessions,
        ours_s,
        label,
        theirs_s,
        ratio,
        GOAL_INDEX_BUILD,
        zero is not None,
    )


def compare_export(
    root: Path, env: dict[str, str], work: Path, zero: str | None, repeats: int
) -> Comparison:
    session_id = big_session.SESSION_ID
    log = SessionStore(root).events_path(session_id)
    ours_env = _with_cache(env, work / "export-cache")
    ours = [
        *store_bench._zero_tui_command(),
        *("export", session_id, "--store", str(root), "--format", "txt", "-o", "-"),
    ]
    if zero is not None:
        theirs = [zero, "usage", "report", "--session", session_id]
        label = "`zero usage report --session`"
    else:
        theirs = [sys.executable, "-c", _SIMPLE_LOG_READ, str(log)]
        label = "json.loads per line (no zero)"
    _timed(ours, ours_env)
    _timed(theirs, env)
    ours_s, theirs_s, ratio = _paired(
        partial(_timed, ours, ours_env), partial(_timed, theirs, env), repeats
    )
    events = sum(1 for _ in log.open("rb"))
    return Comparison(
        f"vs Zero: `export --format txt -o -`, {events:,} events "
        f"({log.stat().st_size / 1e6:.0f} MB)",
        None,
        ours_s,
        label,
        theirs_s,
        ratio,
        GOAL_EXPORT,
        zero is not None,
    )


def compare_picker(
    root: Path,
    sessions: int,
    workspace: Path,
    env: dict[str, str],
    work: Path,
    zero: str | None,
    repeats: int,
    notes: list[str],
) -> list[Comparison]:
    """First rows and first frame of zero-tui's picker (warm cache) against Zero's TUI
    /resume, both started in `workspace`, in one tmux server."""
    store = SessionStore(root)
    title = filter_resumable(store, str(workspace)).sessions[0].title
    cache = work / "picker-cache"
    picker_bench.time_to_first_rows(root, str(workspace), cache, settle=True)  # warms it
    ours_env = _with_cache(env, cache)
    ours = [*store_bench._zero_tui_command(), "--store", str(root), "--cwd", str(workspace)]
    before: tuple[str, Sequence[Sequence[str]]] | None
    if zero is not None:
        theirs: list[str] = [zero]
        before = (ZERO_READY, (("-l", "/resume"), ("Enter",)))
        label = "Zero's TUI `/resume`"
    else:
        script = work / "resume_list.py"  # a file: a command line to tmux is one line
        script.write_text(_SIMPLE_RESUME_LIST)
        theirs = [sys.executable, str(script), str(root), str(workspace)]
        before = None
        label = "python listing the titles (no zero)"
    ours_runs: list[TuiRun] = []
    theirs_runs: list[TuiRun] = []
    with Tmux(env, work / "tmux-socket") as tmux:

        def run_ours() -> float:
            ours_runs.append(time_tui(tmux, ours, workspace, ours_env, title))
            return ours_runs[-1].rows_s

        def run_theirs() -> float:
            theirs_runs.append(time_tui(tmux, theirs, workspace, env, title, before))
            return theirs_runs[-1].rows_s

        run_ours()
        run_theirs()
        ours_runs.clear()
        theirs_runs.clear()
        ours_s, theirs_s, ratio = _paired(run_ours, run_theirs, repeats)
    for program in sorted(set(tmux.hung)):
        runs = tmux.hung.count(program)
        notes.append(
            f"{program} was still running {HANGUP_GRACE_SECONDS:.0f} s after its terminal "
            f"closed in {runs} of {repeats + 1} runs (killed)"
        )
    ours_frames = [run.first_frame_s for run in ours_runs]
    theirs_frames = [run.first_frame_s for run in theirs_runs]
    frame_ratio = statistics.median(o / t for o, t in zip(ours_frames, theirs_frames, strict=True))
    first = "first frame" if zero is not None else "first output"
    return [
        Comparison(
            "vs Zero: picker first rows, warm cache (start → a known title on screen)",
            sessions,
            ours_s,
            label,
            theirs_s,
            ratio,
            GOAL_PICKER,
            zero is not None,
        ),
        Comparison(
            "vs Zero: picker first frame (start → anything on screen)",
            sessions,
            statistics.median(ours_frames),
            f"{label.removesuffix(' `/resume`')} {first}",
            statistics.median(theirs_frames),
            frame_ratio,
            None,
            zero is not None,
        ),
    ]


def run(
    sessions: int = 10_000,
    picker_sessions: int = 1_000,
    events: int = 40,
    workspaces: int = 20,
    big_events: int = big_session.EVENT_COUNT,
    repeats: int = 5,
    tui: bool = True,
) -> Versus:
    zero, why_not = find_zero()
    with tempfile.TemporaryDirectory(prefix="zero-tui-vs-zero-") as temp:
        work = Path(temp).resolve()
        versus = Versus(zero, "", why_not)
        if zero is not None:
            versus.zero_version = _zero_version(zero, sandbox_env(work, work / "empty"))

        data = work / "store-data"
        root = data / "zero" / "sessions"
        _say(f"{sessions:,} sessions: writing the store")
        store_bench.generate_store(root, sessions, events, workspaces)
        env = sandbox_env(work, data)
        _say(f"{sessions:,} sessions: cold listing")
        versus.comparisons.append(compare_cold_listing(root, sessions, env, work, zero, repeats))
        _say(f"{sessions:,} sessions: search")  # after the listing: Zero's adds files
        versus.comparisons += compare_search(root, sessions, env, work, zero, repeats)
        _say(f"{sessions:,} sessions: full-text index, cold build")
        builds = max(1, min(repeats, 3))  # each reads the whole store
        versus.comparisons.append(compare_index_build(root, sessions, env, work, zero, builds))
        shutil.rmtree(data)

        if not tui:
            versus.notes.append("picker vs Zero's TUI skipped (--skip-tui)")
        elif shutil.which("tmux") is None:
            versus.notes.append("picker vs Zero's TUI skipped: tmux is not installed")
        else:
            data = work / "picker-data"
            root = data / "zero" / "sessions"
            _say(f"{picker_sessions:,} sessions: picker first rows, in tmux")
            workspace_root = work / "workspaces"
            paths = store_bench.generate_store(
                root, picker_sessions, events, workspaces, str(workspace_root)
            )
            Path(paths[0]).mkdir(parents=True)
            env = sandbox_env(work, data)
            versus.comparisons += compare_picker(
                root, picker_sessions, Path(paths[0]), env, work, zero, repeats, versus.notes
            )
            shutil.rmtree(data)

        data = work / "export-data"
        root = data / "zero" / "sessions"
        _say(f"export of {big_events:,} events")
        big_session.write_session(root, big_events)
        env = sandbox_env(work, data)
        versus.comparisons.append(compare_export(root, env, work, zero, repeats))
    return versus


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.zero_bench", description=__doc__)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--picker-sessions", type=int, default=1_000)
    parser.add_argument("--events", type=int, default=40, help="events per session")
    parser.add_argument("--workspaces", type=int, default=20)
    parser.add_argument("--big-events", type=int, default=big_session.EVENT_COUNT)
    parser.add_argument("--repeats", type=int, default=5, help="paired runs of each figure")
    parser.add_argument("--skip-tui", action="store_true", help="no picker comparison")
    args = parser.parse_args(argv)
    versus = run(
        args.sessions,
        args.picker_sessions,
        args.events,
        args.workspaces,
        args.big_events,
        args.repeats,
        tui=not args.skip_tui,
    )
    print(versus.describe())
    for item in versus.comparisons:
        goal = "" if item.goal is None else f"  goal ≤ {item.goal}x"
        mark = {None: "", True: " ok", False: " OVER"}[item.within]
        size = "" if item.sessions is None else f" [{item.sessions:,} sessions]"
        print(
            f"{item.figure}{size}: {item.ours_s * 1000:.1f} ms vs {item.baseline} "
            f"{item.theirs_s * 1000:.1f} ms = {item.ratio:.2f}x{goal}{mark}"
        )
    for note in versus.notes:
        print(note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
