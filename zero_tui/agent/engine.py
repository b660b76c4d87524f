"""Running `zero exec` headless with stream-json, as zero-exec.md §5 and §6 recommend.

One process per prompt, started by a supervisor of its own (zero_tui/agent/supervisor.py,
in a session of its own), which on Linux is the child subreaper of everything the agent
starts. stdout is read line by line, one line up to MAX_LINE_BYTES (a longer one is
dropped and stops the run); stderr is read alongside and only its tail is kept. A run
ends once the agent has exited and its pipes have drained, whoever else still holds
them. Cancel = one SIGINT to exec, keep reading until `run_end`, SIGKILL of the agent and
every process it started if it has not exited after a grace period.

No agent process outlives zero-tui: every live run is registered, `terminate_all` (also
run at interpreter exit) stops them, and should zero-tui die the supervisors cancel their
runs themselves (SIGINT, the grace, then the kill).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import shutil
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from zero_tui.agent.outcome import RunOutcome, describe_outcome, line_too_long_outcome
from zero_tui.agent.preflight import RunGuard, guard_run
from zero_tui.agent.settings import AUTONOMY_LEVELS
from zero_tui.agent.stream import (
    UNREADABLE_TEXT_LIMIT,
    AgentError,
    AgentEvent,
    RunEnd,
    Unreadable,
    line_too_long,
    parse_line,
)
from zero_tui.store import SessionStore, StoreError, default_root, gojson
from zero_tui.store.gotext import clean_path, trim_space

__all__ = [
    "AUTONOMY_LEVELS",
    "MAX_LINE_BYTES",
    "AgentUnavailable",
    "ExecEngine",
    "ExecRun",
    "RunOutcome",
    "RunRequest",
    "agent_environment",
    "autonomy_warning",
    "build_command",
    "check_request",
    "choose_cwd",
    "describe_outcome",
    "find_agent",
    "live_runs",
    "terminate_all",
]

INSTALL_HINT = "go install github.com/Gitlawb/zero/cmd/zero@latest"
ARGV_PROMPT_LIMIT = 32 * 1024  # bytes; Linux caps one argv string at 128 KiB
STDERR_TAIL_BYTES = 64 * 1024
READ_CHUNK = 256 * 1024
# Zero's own cap on a provider's stream line is 16 MiB (providerio.maxSSELineBytes); one
# stream-json line re-encodes at most about that much text, escaped.
MAX_LINE_BYTES = 32 * 1024 * 1024
DEFAULT_GRACE_SECONDS = 10.0
DEFAULT_EXIT_TIMEOUT = 15.0  # after stdout's EOF: exec's shutdown waits on its helpers
# After the agent's exit, a read of its pipes that waits this long for nothing ends them:
# what still holds them is not the agent (Zero gives its bash tools' pipes the same).
DEFAULT_DRAIN_SECONDS = 2.0
START_TIMEOUT = 30.0  # for the supervisor to say it started the agent
KILL_SECONDS = 5.0  # for a supervisor to report after a kill, before it is killed itself
SUPERVISOR = Path(__file__).resolve().with_name("supervisor.py")
# Environment variables holding a path that Zero reads: relative, it would resolve them
# against the workspace it runs in, not where zero-tui (and the user) stand.
PATH_VARIABLES = (
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    "XDG_RUNTIME_DIR",
    "ZERO_OAUTH_TOKENS_PATH",
    "ZERO_MCP_OAUTH_TOKENS_PATH",
    "ZERO_MCP_PERMISSIONS_PATH",
    "ZERO_MODELS_CACHE_PATH",
    "ZERO_SANDBOX_GRANTS_PATH",
    "ZERO_SKILLS_DIR",
    "ZERO_CREDSTORE_HELPER_DIR",
    "ZERO_TRACE",  # a path, or "-" for stderr
)


class AgentUnavailable(Exception):
    """Continuing cannot start; the message is the one line the user sees."""


@dataclass(frozen=True, slots=True)
class RunRequest:
    prompt: str
    session_id: str | None  # None: a new session (no --resume)
    cwd: str
    model: str | None = None
    auto: str | None = None


def find_agent(env: Mapping[str, str]) -> str:
    """The `zero` executable: $ZERO_BIN if set, else `zero` on PATH."""
    configured = trim_space(env.get("ZERO_BIN", ""))
    search_path = env.get("PATH", os.defpath)
    if configured:
        if os.sep in configured:
            # absolute: the process starts in the workspace, not in our cwd
            found = os.path.abspath(configured) if _is_executable(configured) else None
        else:
            found = shutil.which(configured, path=search_path)
        if found is None:
            raise AgentUnavailable(
                f"ZERO_BIN={configured} is not an executable file; point it at Zero's `zero` "
                f"or install Zero with `{INSTALL_HINT}`"
            )
        return found
    found = shutil.which("zero", path=search_path)
    if found is None:
        raise AgentUnavailable(
            f"The Zero agent (`zero`) is not on PATH: install it with `{INSTALL_HINT}` "
            "or set ZERO_BIN"
        )
    return found


def autonomy_warning(auto: str | None) -> str | None:
    """Zero's own warning for a run whose tools will not ask (zero-exec §2.2), or None."""
    if auto is not None and auto.lower() == "high":
        return "Unsafe permissions are active for this run because --auto high was passed."
    return None


def _is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _same_directory(left: Path, right: Path) -> bool:
    if clean_path(os.path.abspath(left)) == clean_path(os.path.abspath(right)):
        return True
    try:
        return os.path.samefile(left, right)
    except OSError:
        return False


def _absolute_paths(env: Mapping[str, str]) -> dict[str, str]:
    """`env` with every relative PATH_VARIABLES value made absolute (from our cwd)."""
    result = dict(env)
    for key in PATH_VARIABLES:
        value = trim_space(env.get(key, ""))  # as Zero reads it
        if value and value != "-" and not os.path.isabs(value):
            result[key] = clean_path(os.path.abspath(value))
    return result


def agent_environment(store_root: Path, env: Mapping[str, str]) -> dict[str, str]:
    """The agent's environment such that Zero's default root is `store_root`.

    Zero writes only its default root. A store at `<X>/zero/sessions` is reached by
    setting XDG_DATA_HOME=<X> (this also moves Zero's other data dirs); any other
    root cannot be continued. Paths are passed absolute: the agent runs elsewhere.
    """
    if _same_directory(store_root, default_root(env)):
        return _absolute_paths(env)
    absolute = Path(clean_path(os.path.abspath(store_root)))
    if absolute.name == "sessions" and absolute.parent.name == "zero":
        return {**_absolute_paths(env), "XDG_DATA_HOME": str(absolute.parent.parent)}
    raise AgentUnavailable(
        f"Continuing needs a store at …/zero/sessions, and {absolute} is not one: "
        "a --store elsewhere is browse-only"
    )


def choose_cwd(recorded: str, fallback: str) -> tuple[str, str | None]:
    """The session's recorded workspace when it is an existing directory, else `fallback`.

    The note (None when nothing needs saying) tells the status line which was chosen.
    """
    if recorded and os.path.isabs(recorded) and os.path.isdir(recorded):
        if _same_directory(Path(recorded), Path(fallback)):
            return recorded, None
        return recorded, f"running in the session's workspace {recorded}"
    if not recorded:
        return fallback, f"the session records no workspace: running in {fallback}"
    return fallback, f"the session's workspace {recorded} is gone: running in {fallback}"


def _needs_stdin(prompt: str) -> bool:
    try:
        encoded = prompt.encode("utf-8")
    except UnicodeEncodeError:
        return True  # lone surrogates cannot go into argv; JSON turns them into U+FFFD
    return len(encoded) > ARGV_PROMPT_LIMIT or prompt.startswith("-") or "\0" in prompt


def build_command(binary: str, request: RunRequest) -> tuple[list[str], bytes | None]:
    """argv per zero-exec.md §6, and the stdin bytes when the prompt goes by stream-json."""
    argv = [binary, "exec", "--output-format", "stream-json"]
    if request.session_id is not None:
        argv.append(f"--resume={request.session_id}")
    argv += ["--cwd", os.path.abspath(request.cwd)]
    if request.model:
        argv += ["--model", request.model]
    if request.auto:
        argv += ["--auto", request.auto.lower()]
    argv += ["--no-completion-gate", "--no-notify"]
    if _needs_stdin(request.prompt):
        argv += ["--input-format", "stream-json"]
        line = gojson.marshal({"content": request.prompt, "schemaVersion": 2, "type": "prompt"})
        return argv, line + b"\n"
    argv += ["--", request.prompt]
    return argv, None


def check_request(store: SessionStore, request: RunRequest) -> None:
    """What exec would refuse, said before anything runs (AgentUnavailable)."""
    check_options(request)
    if not os.path.isdir(request.cwd):
        raise AgentUnavailable(f"cwd must be an existing directory: {os.path.abspath(request.cwd)}")
    if request.session_id is not None:
        check_resumable(store, request.session_id)


def check_options(request: RunRequest) -> None:
    """The prompt, the autonomy level and the model, as exec checks them."""
    if not trim_space(request.prompt):
        raise AgentUnavailable("Nothing to send: the prompt is empty.")
    if request.auto is not None and request.auto.lower() not in AUTONOMY_LEVELS:
        raise AgentUnavailable(
            f"Invalid autonomy level {gojson.encode_string(request.auto)}. "
            "Expected low, medium, or high."
        )
    if request.model is not None and (
        not trim_space(request.model) or request.model.startswith("-")
    ):
        raise AgentUnavailable(f"Invalid model id {gojson.encode_string(request.model)}.")


def check_resumable(store: SessionStore, session_id: str) -> None:
    """The session is in `store` and of a kind `--resume` continues."""
    try:
        meta = store.get(session_id)
    except StoreError as error:
        raise AgentUnavailable(str(error)) from None
    if meta is None:
        raise AgentUnavailable(f"Zero session not found: {session_id}")
    if not meta.is_resumable_kind:
        raise AgentUnavailable(
            f"Zero session is not resumable: {session_id} "
            f"(a {meta.session_kind} session; only regular and forked sessions continue)"
        )


# --- running ----------------------------------------------------------------------

_live_runs: set[ExecRun] = set()
_starting: set[str] = set()  # sessions whose run is being started

Output = tuple[asyncio.StreamReader, asyncio.ReadTransport]


def _check_not_busy(session_id: str | None) -> None:
    if session_id is None:
        return
    busy = any(
        run.request.session_id == session_id and run.running and not _exited(run.supervisor_pid)
        for run in _live_runs
    )
    if session_id in _starting or busy:
        # exec takes no session lock across a run: two would interleave their events
        raise AgentUnavailable(
            f"A run is already in flight on session {session_id}: wait for it, or cancel it first"
        )


def live_runs() -> list[ExecRun]:
    """Runs started and not yet finished by wait() (or terminate_all)."""
    return list(_live_runs)


async def _within(awaitable: Awaitable[object], seconds: float) -> bool:
    """Whether `awaitable` finished within `seconds` (it is cancelled if not)."""
    try:
        await asyncio.wait_for(awaitable, seconds)
    except TimeoutError:
        return False
    return True


async def _open_output(pipe: BinaryIO) -> Output:
    """A pipe's read end as a StreamReader (reading pauses while it holds 2 chunks)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=READ_CHUNK, loop=loop)
    transport, _protocol = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader, loop=loop), pipe
    )
    return reader, transport


async def _next_report(channel: socket.socket, pending: bytearray) -> str | None:
    """The supervisor's next line; None once it is gone."""
    loop = asyncio.get_running_loop()
    while (newline := pending.find(b"\n")) < 0:
        try:
            chunk = await loop.sock_recv(channel, 256)
        except OSError:
            return None
        if not chunk:
            return None
        pending += chunk
    line = pending[:newline].decode("ascii", errors="replace")
    del pending[: newline + 1]
    return line


class ExecRun:
    """One running `zero exec`, used from the event loop's thread.

    Iterate `events()` to the end, then `await wait()` (or use `async with`): every run
    must be waited for, so that its processes, pipes and tasks are gone when it returns.
    """

    def __init__(
        self,
        process: asyncio.subprocess.Process,
        channel: socket.socket,
        agent_pid: int,
        outputs: tuple[Output, Output],
        reports: bytearray,
        argv: list[str],
        stdin_bytes: bytes | None,
        *,
        request: RunRequest,
        grace_seconds: float,
        exit_timeout: float,
        drain_seconds: float,
        line_limit: int,
    ) -> None:
        self._process = process  # the supervisor
        self._channel = channel
        self.argv = argv
        self.request = request
        self.pid = agent_pid
        self.supervisor_pid = process.pid
        self.grace_seconds = grace_seconds
        self.exit_timeout = exit_timeout
        self.drain_seconds = drain_seconds
        self.line_limit = line_limit
        self.cancelled = False
        self.killed = False  # the agent was SIGKILLed while it still ran
        self.line_too_long = False  # a stdout line passed line_limit: the run was stopped
        self.output_cut = False  # stdout ended by the drain: something else still held it
        self.run_end: RunEnd | None = None
        self.notes: list[str] = []  # said under the run once it started (a host's run)
        self.error: AgentError | None = None
        self._events_taken = False
        (self._stdout, self._stdout_transport), (stderr, self._stderr_transport) = outputs
        self._buffer = bytearray()  # stdout read but not yet split into lines
        self._scanned = 0  # bytes at the start of the buffer known to hold no newline
        self._discarding = False  # dropping the rest of a line that was too long
        self._read_in_flight = False
        self._stdout_done = False
        self._outcome: RunOutcome | None = None
        self._agent_exited = asyncio.Event()
        self._agent_returncode: int | None = None
        self._drain_timer: asyncio.TimerHandle | None = None
        self._cut_timer: asyncio.TimerHandle | None = None
        self._stderr_tail = bytearray()
        self._stderr_task = asyncio.create_task(self._read_stderr(stderr))
        self._stdin_task = (
            asyncio.create_task(self._write_stdin(stdin_bytes)) if stdin_bytes is not None else None
        )
        self._follow_task = asyncio.create_task(self._follow(reports))
        _live_runs.add(self)

    @property
    def running(self) -> bool:
        """Whether the agent may still run: its exit has not been reported."""
        return not self._agent_exited.is_set() and self._process.returncode is None

    async def agent_exited(self) -> None:
        """Returns once the agent process has exited (its output may still be draining)."""
        await self._agent_exited.wait()

    async def __aenter__(self) -> ExecRun:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Leaving early (an error, a cancelled task) cancels the run as Esc would."""
        if self._outcome is None:
            if exc is not None:
                self.cancel()
            await asyncio.shield(self.wait())

    async def _write_stdin(self, data: bytes) -> None:
        pipe = self._process.stdin
        assert pipe is not None
        try:
            pipe.write(data)
            await pipe.drain()
        except (BrokenPipeError, ConnectionResetError):
            pass  # exec failed before reading its input: its output says why
        finally:
            pipe.close()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                await pipe.wait_closed()

    async def _read_stderr(self, pipe: asyncio.StreamReader) -> None:
        while chunk := await pipe.read(READ_CHUNK):
            self._stderr_tail += chunk
            if len(self._stderr_tail) > STDERR_TAIL_BYTES:
                del self._stderr_tail[: len(self._stderr_tail) - STDERR_TAIL_BYTES]

    @property
    def stderr_tail(self) -> str:
        return self._stderr_tail.decode("utf-8", errors="replace")

    # -- the agent's exit, and the drain of its pipes --------------------------------

    async def _follow(self, reports: bytearray) -> None:
        """Waits for the supervisor's report of the agent's exit (or its own end)."""
        try:
            while (line := await _next_report(self._channel, reports)) is not None:
                word, _, rest = line.partition(" ")
                code, _, how = rest.partition(" ")
                if word == "exit":
                    with contextlib.suppress(ValueError):
                        self._agent_returncode = int(code)
                    self.killed = self.killed or how == "killed"
                    return
        finally:
            self._agent_has_exited()

    def _agent_has_exited(self) -> None:
        if self._agent_exited.is_set():
            return
        self._agent_exited.set()
        # a holder that writes on and on does not keep the run going either
        self._cut_timer = asyncio.get_running_loop().call_later(self.exit_timeout, self._cut_output)
        self._arm_drain()

    def _arm_drain(self) -> None:
        """Once the agent has exited, a read of stdout that gets nothing for
        drain_seconds ends it: whatever still holds the pipe is not the agent."""
        if self._read_in_flight and self._agent_exited.is_set() and self._drain_timer is None:
            self._drain_timer = asyncio.get_running_loop().call_later(
                self.drain_seconds, self._cut_output
            )

    def _disarm_drain(self) -> None:
        if self._drain_timer is not None:
            self._drain_timer.cancel()
            self._drain_timer = None

    def _cut_output(self) -> None:
        """Stop reading the agent's pipes: their readers see their end."""
        self._disarm_drain()
        if self._cut_timer is not None:
            self._cut_timer.cancel()
            self._cut_timer = None
        if not self._stdout_transport.is_closing():
            self.output_cut = True
            self._stdout_transport.close()
        if not self._stderr_transport.is_closing():
            self._stderr_transport.close()

    # -- stdout --------------------------------------------------------------------

    async def _read_stdout(self) -> bytes:
        self._read_in_flight = True
        self._arm_drain()
        try:
            return await self._stdout.read(READ_CHUNK)
        finally:
            self._read_in_flight = False
            self._disarm_drain()

    async def _read_events(self) -> AsyncIterator[AgentEvent]:
        """stdout's events, one per line. The state lives on self, so that wait() can go
        on where an abandoned events() stopped."""
        buffer = self._buffer
        while not self._stdout_done:
            newline = buffer.find(b"\n", self._scanned)
            if self._discarding:
                self._scanned = 0
                if newline < 0:
                    buffer.clear()
                else:
                    del buffer[: newline + 1]
                    self._discarding = False
                    continue
            elif newline > self.line_limit or (newline < 0 and len(buffer) > self.line_limit):
                yield self._drop_long_line(newline)
                continue
            elif newline >= 0:
                line = bytes(buffer[:newline])
                del buffer[: newline + 1]  # cheap: bytearray drops its head in place
                self._scanned = 0
                if (event := self._parse(line)) is not None:
                    yield event
                continue
            else:
                self._scanned = len(buffer)
            chunk = await self._read_stdout()
            if chunk:
                buffer += chunk
                continue
            self._stdout_done = True
            if buffer and not self._discarding:
                line = bytes(buffer)  # a last line without its newline
                buffer.clear()
                if (event := self._parse(line)) is not None:
                    yield event

    def _drop_long_line(self, newline: int) -> Unreadable:
        """A line over line_limit: its head is shown, the rest dropped up to its newline,
        and the run stopped as Esc would (memory stays bounded meanwhile)."""
        event = line_too_long(bytes(self._buffer[: UNREADABLE_TEXT_LIMIT * 4]), self.line_limit)
        if newline < 0:
            self._buffer.clear()
            self._discarding = True
        else:
            del self._buffer[: newline + 1]
        self._scanned = 0
        if not self.line_too_long:
            self.line_too_long = True
            if not self.cancelled:
                self.cancel()
        return event

    def _parse(self, line: bytes) -> AgentEvent | None:
        event = parse_line(line)
        if isinstance(event, RunEnd):
            self.run_end = event
        elif isinstance(event, AgentError):
            self.error = event
        return event

    async def events(self) -> AsyncIterator[AgentEvent]:
        """Every event of the run, in order, until stdout's end (also after cancel())."""
        if self._events_taken:
            raise RuntimeError("a run's events are read once")
        self._events_taken = True
        async for event in self._read_events():
            yield event

    # -- the end ---------------------------------------------------------------------

    async def wait(self) -> RunOutcome:
        """The outcome, once the agent has exited: reads what is left of stdout, waits
        for the exit (killing the agent after `exit_timeout`) and for the supervisor (it
        kills what the agent left behind), then drops the run's pipes.

        Cancelling the waiting task cancels the run (SIGINT, then the kill after the
        grace period) instead of leaving it running.
        """
        if self._outcome is not None:
            return self._outcome
        try:
            if not self._read_in_flight:
                async for _event in self._read_events():
                    pass
            if not await _within(self._agent_exited.wait(), self.exit_timeout):
                self.kill()
                if not await _within(self._agent_exited.wait(), KILL_SECONDS):
                    self._kill_supervisor()
            if not await _within(self._process.wait(), self.exit_timeout):
                self._kill_supervisor()
                await self._process.wait()
        except asyncio.CancelledError:
            self.cancel()
            raise
        _live_runs.discard(self)
        await self._finish_pipes()
        returncode = self._agent_returncode
        if returncode is None:
            returncode = self._process.returncode  # the supervisor died: the kernel's kill
        if self.line_too_long:
            self._outcome = line_too_long_outcome(self.line_limit, returncode, self.stderr_tail)
        else:
            self._outcome = describe_outcome(
                self.run_end,
                self.error,
                returncode,
                self.stderr_tail,
                self.cancelled,
                killed=self.killed,
            )
        return self._outcome

    async def _finish_pipes(self) -> None:
        """stderr's last bytes (within the drain), then every pipe and task closed."""
        tasks = [task for task in (self._stderr_task, self._stdin_task) if task is not None]
        _done, pending = await asyncio.wait(tasks, timeout=self.drain_seconds)
        self._cut_output()
        for task in [*pending, self._follow_task]:
            task.cancel()
        for task in [*tasks, self._follow_task]:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._channel.close()

    def cancel(self) -> None:
        """First call: SIGINT to exec, then after the grace SIGKILL of it and of every
        process it started; second call: that kill now."""
        if not self.running:
            return
        if self.cancelled:
            self.kill()
            return
        self.cancelled = True
        self._command(b"i")

    def kill(self) -> None:
        """SIGKILL the agent and every process it started, now."""
        if self.running:
            self._command(b"k")

    def _command(self, command: bytes) -> None:
        with contextlib.suppress(OSError):  # the supervisor is gone: so is the agent
            self._channel.send(command)

    def _kill_supervisor(self) -> None:
        """The last resort, for a supervisor that does not answer: the kernel then kills
        the agent (its parent-death signal)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.supervisor_pid, signal.SIGKILL)


class ExecEngine:
    """Starts `zero exec` runs on one store."""

    def __init__(
        self,
        store: SessionStore,
        *,
        env: Mapping[str, str] | None = None,
        grace_seconds: float = DEFAULT_GRACE_SECONDS,
        exit_timeout: float = DEFAULT_EXIT_TIMEOUT,
        drain_seconds: float = DEFAULT_DRAIN_SECONDS,
        line_limit: int = MAX_LINE_BYTES,
    ) -> None:
        self.store = store
        self._env = env
        self.grace_seconds = grace_seconds
        self.exit_timeout = exit_timeout
        self.drain_seconds = drain_seconds
        self.line_limit = line_limit

    @property
    def env(self) -> Mapping[str, str]:
        return os.environ if self._env is None else self._env

    def store_refusal(self) -> str | None:
        """Why no session of this store can be continued (a --store elsewhere than
        `…/zero/sessions`: Zero writes only there), or None."""
        try:
            agent_environment(self.store.root, self.env)
        except AgentUnavailable as error:
            return str(error)
        return None

    def browse_only_status(self) -> str:
        """Why no session can be continued, as short as the status line says it."""
        return "Zero continues only sessions of a store at …/zero/sessions"

    def workspace(self, recorded: str, fallback: str) -> tuple[str, str | None]:
        """Where a run of a session that recorded `recorded` goes (choose_cwd), and the
        note that says so."""
        return choose_cwd(recorded, fallback)

    def guard(self, session_id: str | None, *, quiet_since: float | None = None) -> RunGuard:
        """The one-run claim and the log's check before a run (preflight.guard_run)."""
        return guard_run(self.store, session_id, quiet_since=quiet_since)

    def prepare(self, request: RunRequest) -> tuple[list[str], bytes | None, dict[str, str]]:
        """argv, stdin bytes and environment; AgentUnavailable before anything runs."""
        _check_not_busy(request.session_id)
        return self._prepare(request)

    def _prepare(self, request: RunRequest) -> tuple[list[str], bytes | None, dict[str, str]]:
        binary = find_agent(self.env)
        env = agent_environment(self.store.root, self.env)
        check_request(self.store, request)
        argv, stdin_bytes = build_command(binary, request)
        return argv, stdin_bytes, env

    async def start(self, request: RunRequest) -> ExecRun:
        """prepare() (in a thread: it reads the store), then the agent, under its
        supervisor."""
        _check_not_busy(request.session_id)
        if request.session_id is not None:
            _starting.add(request.session_id)
        try:
            return await self._start(request)
        finally:
            if request.session_id is not None:
                _starting.discard(request.session_id)

    async def _start(self, request: RunRequest) -> ExecRun:
        argv, stdin_bytes, env = await asyncio.to_thread(self._prepare, request)
        workspace = argv[argv.index("--cwd") + 1]
        stdin = asyncio.subprocess.PIPE if stdin_bytes is not None else asyncio.subprocess.DEVNULL
        launched = await launch_supervised(argv, env, workspace, stdin, self.grace_seconds)
        return ExecRun(
            *launched,
            argv,
            stdin_bytes,
            request=request,
            grace_seconds=self.grace_seconds,
            exit_timeout=self.exit_timeout,
            drain_seconds=self.drain_seconds,
            line_limit=self.line_limit,
        )


Launched = tuple[asyncio.subprocess.Process, socket.socket, int, tuple[Output, Output], bytearray]


async def launch_supervised(
    argv: list[str], env: Mapping[str, str], cwd: str, stdin: int, grace_seconds: float
) -> Launched:
    """`argv` started under a supervisor of its own (supervisor.py), its stdin `stdin` (a
    descriptor, PIPE or DEVNULL): the supervisor, its channel, the pid it reported, the
    readers of stdout and stderr and what was read of its reports. AgentUnavailable when it
    could not start."""
    channel, supervisor_end = socket.socketpair()
    stdout_read, stdout_write = os.pipe()
    stderr_read, stderr_write = os.pipe()
    channel.setblocking(False)
    try:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-I",
            "-S",
            str(SUPERVISOR),
            str(supervisor_end.fileno()),
            str(stdout_read),
            str(stderr_read),
            repr(grace_seconds),
            "--",
            *argv,
            stdin=stdin,
            stdout=stdout_write,
            stderr=stderr_write,
            pass_fds=(supervisor_end.fileno(), stdout_read, stderr_read),
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
    except BaseException as error:  # asyncio has killed what it started, if anything
        channel.close()
        os.close(stdout_read)
        os.close(stderr_read)
        if isinstance(error, OSError):
            reason = error.strerror or error
            raise AgentUnavailable(f"cannot start {argv[0]}: {reason}") from None
        raise
    finally:
        supervisor_end.close()
        os.close(stdout_write)
        os.close(stderr_write)
    # the descriptors are the files' from here on; the transports close them
    pipes = [os.fdopen(fd, "rb", buffering=0) for fd in (stdout_read, stderr_read)]
    outputs: list[Output] = []
    reports = bytearray()

    def give_up() -> None:
        _abandon(process, channel, outputs)
        for pipe in pipes:
            pipe.close()

    try:
        for pipe in pipes:
            outputs.append(await _open_output(pipe))
        started = await asyncio.wait_for(_next_report(channel, reports), START_TIMEOUT)
    except TimeoutError:
        give_up()
        await process.wait()
        raise AgentUnavailable(f"cannot start {argv[0]}: its supervisor did not answer") from None
    except BaseException:  # a cancelled start leaves nothing running either
        give_up()
        raise
    word, _, value = (started or "").partition(" ")
    if word != "started" or not value.isdigit():
        give_up()
        await process.wait()
        if word == "error" and value.isdigit():
            reason = os.strerror(int(value))
        else:
            reason = f"its supervisor exited (status {process.returncode})"
        raise AgentUnavailable(f"cannot start {argv[0]}: {reason}")
    return process, channel, int(value), (outputs[0], outputs[1]), reports


def _abandon(
    process: asyncio.subprocess.Process, channel: socket.socket, outputs: list[Output]
) -> None:
    """A start that failed half-way: whatever did start is killed, every pipe closed."""
    with contextlib.suppress(OSError):
        channel.send(b"k")
    channel.close()
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    if process.stdin is not None:
        process.stdin.close()
    for _reader, transport in outputs:
        transport.close()


def _exited(pid: int) -> bool:
    """Whether the child has exited, without reaping it (asyncio's watcher does that)."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True  # already reaped


def _wait_for_supervisors(runs: list[ExecRun], seconds: float) -> list[ExecRun]:
    """The runs whose supervisor is still there after up to `seconds`."""
    deadline = time.monotonic() + seconds
    waiting = [run for run in runs if not _exited(run.supervisor_pid)]
    while waiting and time.monotonic() < deadline:
        time.sleep(0.05)
        waiting = [run for run in waiting if not _exited(run.supervisor_pid)]
    return waiting


def terminate_all(grace_seconds: float = DEFAULT_GRACE_SECONDS) -> None:
    """For app exit (and atexit): SIGINT every live run's agent, wait up to the grace,
    then kill those left, each with every process it started.

    Synchronous, so it works with or without a running event loop.
    """
    runs = [run for run in _live_runs if run.running]
    for run in runs:
        run.cancelled = True
        run._command(b"i")
    waiting = _wait_for_supervisors(runs, grace_seconds)
    for run in waiting:
        run.killed = True
        run._command(b"k")
    for run in _wait_for_supervisors(waiting, KILL_SECONDS):
        run._kill_supervisor()
    _live_runs.clear()  # the rest had exited already (perhaps unreaped by a closed loop)


atexit.register(terminate_all)
