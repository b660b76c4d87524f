"""A run of `zero exec` on the host that owns a mirrored session, streamed back over ssh.

The engine's run, not a copy of it: `RemoteEngine.start` launches `ssh HOST 'sh -c
run_on_host.sh …'` under the same local supervisor that a local `zero exec` gets (so ssh
dies with zero-tui), and `RemoteRun` is an `ExecRun` reading the same stream-json from
ssh's stdout. What differs is the cancel: ssh's stdin is a pipe to the wrapper on the
host, which started zero in the background and holds its pid, so Esc writes `i` there
(zero's own SIGINT, and zero records the cancel) and a second Esc `k` (zero and every
process under it killed). Should the link drop or zero-tui die, the wrapper reads the end
of its stdin: it interrupts zero, and kills it all after the grace period, so nothing is
left running on the host. No `ssh -tt`: a terminal would mangle the JSON stream.

Before zero starts the wrapper checks the one-run rule on that host (a `zero` process
naming the session, zero-tui's claim in that host's run registry) and takes the claim
itself. It is a shell probe, not `agent/running.py`: a host needs no Python and no
zero-tui, so the checks that need them (Zero's TUI peers, a log written just now) are not
made there. After the run the session's folder is synced into the mirror again.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import shlex
import threading
from collections.abc import Mapping
from dataclasses import replace
from importlib import resources
from typing import Any

from zero_tui.agent.engine import (
    DEFAULT_EXIT_TIMEOUT,
    DEFAULT_GRACE_SECONDS,
    KILL_SECONDS,
    STDERR_TAIL_BYTES,
    AgentUnavailable,
    ExecEngine,
    ExecRun,
    RunOutcome,
    RunRequest,
    build_command,
    check_options,
    check_resumable,
    launch_supervised,
)
from zero_tui.agent.preflight import RunGuard, guard_run
from zero_tui.agent.stream import AgentEvent, RunStart
from zero_tui.hosts.mirror import sync_session
from zero_tui.hosts.registry import Host, HostError, mirror_root
from zero_tui.hosts.ssh_link import SSH_FAILED, ssh_failure, ssh_options
from zero_tui.store import SessionStore

WRAPPER_NAME = "zero-tui-remote"
MARKER = b"zero-tui-remote: "
BUSY_EXIT = 75
SERVER_ALIVE = ("-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=3")


def wrapper_script() -> str:
    return resources.files(__package__).joinpath("run_on_host.sh").read_text(encoding="utf-8")


def remote_command(
    mode: str,
    host: Host,
    session_id: str | None,
    arguments: list[str],
    *,
    workspace: str = "",
    has_input: bool = False,
    grace: float = 0.0,
) -> str:
    """The command line ssh sends: the wrapper run by `sh` whatever the login shell."""
    words = [
        mode,
        str(max(0, math.ceil(grace))),
        host.store.rstrip("/"),
        session_id or "",
        workspace,
        "1" if has_input else "0",
        *arguments,
    ]
    return " ".join(
        ["exec sh -c", shlex.quote(wrapper_script()), WRAPPER_NAME, *map(shlex.quote, words)]
    )


def ssh_argv(host: Host, command: str) -> list[str]:
    """ssh with zero-tui's options (BatchMode, the private config), no terminal, and
    keep-alives so that a link that died is noticed within a minute."""
    return ["ssh", *ssh_options(), "-T", *SERVER_ALIVE, "--", host.target, command]


def browse_only(host: Host) -> str | None:
    """Why no session of `host` can be continued, in one line; None when they can."""
    if not host.has_zero:
        return f"{host.name}: no zero on its PATH; its sessions can be browsed only"
    if not host.store.rstrip("/").endswith("/zero/sessions"):
        return (
            f"{host.name}: its store {host.store} is not at …/zero/sessions, where Zero "
            "writes: its sessions can be browsed only"
        )
    return None


def busy_text(host: Host, words: str) -> str:
    """The wrapper's `busy zero-tui 12` as `running on devbox in another zero-tui (pid 12)`."""
    _busy, _, rest = words.partition(" ")
    what, _, pid = rest.partition(" ")
    where = "a `zero` process" if what == "zero-process" else "another zero-tui"
    return f"running on {host.name} in {where}" + (f" (pid {pid})" if pid else "")


def marker_line(host: Host, words: str) -> str:
    """One of the wrapper's lines (`busy zero-tui 12`, `no-zero zero`…) said for the user."""
    kind, _, rest = words.partition(" ")
    if kind == "busy":
        return f"Not sent: this session is {busy_text(host, words)}."
    if kind == "no-zero":
        return f"{host.name}: no zero on its PATH; its sessions can be browsed only"
    if kind == "store-elsewhere":
        return browse_only(replace(host, store="/")) or ""
    return rest if kind == "note" else words


class RemoteRun(ExecRun):
    """An `ExecRun` whose agent is ssh to the wrapper: the cancel goes through ssh's stdin
    (`control`), the wrapper's own stderr lines are taken out of the tail, and the mirror
    is synced once the run has ended (`resync_error`: why it could not be)."""

    def __init__(
        self,
        *args: Any,
        host: Host,
        control: int,
        prompt_line: bytes | None,
        **kwargs: Any,
    ) -> None:
        self.host = host
        self.remote_pid: int | None = None
        self.refusal = ""
        self.session_started: str | None = None
        self.resync_error = ""
        self._control: int | None = control
        self._control_lock = threading.Lock()
        self._answered = asyncio.Event()
        self._link_timer: asyncio.TimerHandle | None = None
        self._remote_outcome: RunOutcome | None = None
        super().__init__(*args, **kwargs)
        self._prompt_task = (
            asyncio.create_task(asyncio.to_thread(self._tell_remote, prompt_line, True))
            if prompt_line is not None
            else None
        )

    async def answered(self) -> None:
        """Returns once the wrapper said it started zero, or refused, or ended."""
        await self._answered.wait()

    # -- the control pipe to the wrapper --------------------------------------------

    def _tell_remote(self, data: bytes, wait: bool = False) -> bool:
        """Write `data` to the wrapper; False when it cannot be (gone, or the prompt is
        still being written and `wait` is not set)."""
        if not self._control_lock.acquire(blocking=wait):
            return False
        try:
            if self._control is None:
                return False
            view = memoryview(data)
            while view:
                view = view[os.write(self._control, view) :]
            return True
        except OSError:
            return False
        finally:
            self._control_lock.release()

    def _command(self, command: bytes) -> None:
        """`i` and `k` go to the wrapper on the host; the local supervisor (which ends the
        ssh, and so the run on the host after the grace) only when that cannot be, or when
        the host has not ended the run a while later."""
        if command in (b"i", b"k") and self._tell_remote(command + b"\n"):
            later = self.grace_seconds + KILL_SECONDS if command == b"i" else KILL_SECONDS
            self._arm_link_timer(later)
            return
        super()._command(command)

    def _arm_link_timer(self, seconds: float) -> None:
        with contextlib.suppress(RuntimeError):  # no loop: terminate_all at exit
            loop = asyncio.get_running_loop()
            if self._link_timer is not None:
                self._link_timer.cancel()
            self._link_timer = loop.call_later(seconds, self._end_link)

    def _end_link(self) -> None:
        if self.running:
            ExecRun._command(self, b"k")

    def _close_control(self) -> None:
        with self._control_lock:
            if self._control is not None:
                os.close(self._control)
                self._control = None

    # -- what the wrapper says -------------------------------------------------------

    async def _read_stderr(self, pipe: asyncio.StreamReader) -> None:
        pending = bytearray()
        try:
            while chunk := await pipe.read(256 * 1024):
                pending += chunk
                *lines, rest = pending.split(b"\n")
                for line in lines:
                    self._stderr_line(bytes(line) + b"\n")
                pending = bytearray(rest)
                if len(pending) > STDERR_TAIL_BYTES and not pending.startswith(MARKER):
                    self._keep_stderr(bytes(pending))
                    pending.clear()
            if pending:
                self._stderr_line(bytes(pending))
        finally:
            self._answered.set()

    def _stderr_line(self, line: bytes) -> None:
        if not line.startswith(MARKER):
            self._keep_stderr(line)
            return
        words = line[len(MARKER) :].decode("utf-8", "replace").strip()
        kind, _, rest = words.partition(" ")
        if kind == "started" and rest.isdigit():
            self.remote_pid = int(rest)
            self._answered.set()
        elif kind == "note":
            self.notes.append(marker_line(self.host, words))
        else:
            self.refusal = marker_line(self.host, words)

    def _keep_stderr(self, data: bytes) -> None:
        self._stderr_tail += data
        if len(self._stderr_tail) > STDERR_TAIL_BYTES:
            del self._stderr_tail[: len(self._stderr_tail) - STDERR_TAIL_BYTES]

    def _parse(self, line: bytes) -> AgentEvent | None:
        event = super()._parse(line)
        if isinstance(event, RunStart) and event.session_id:
            self.session_started = event.session_id
        return event

    # -- the end ---------------------------------------------------------------------

    async def wait(self) -> RunOutcome:
        """The engine's outcome, a dropped link said as ssh's one line, then the
        session's folder synced into the mirror (when zero ran)."""
        if self._remote_outcome is not None:
            return self._remote_outcome
        outcome = await super().wait()
        if self._link_timer is not None:
            self._link_timer.cancel()
        if self._prompt_task is not None:
            with contextlib.suppress(Exception):
                await self._prompt_task
        self._close_control()
        link_failed = self.run_end is None and outcome.exit_code == SSH_FAILED
        if link_failed:
            outcome = replace(outcome, message=ssh_failure(self.host.name, self.stderr_tail))
        self._remote_outcome = outcome
        session_id = self.request.session_id or self.session_started
        if link_failed:  # a sync would wait for the same host: the next one brings it
            self.resync_error = f"{self.host.name}: not synced after the run (the link failed)"
        elif self.remote_pid is not None and session_id is not None:
            self.resync_error = await asyncio.to_thread(resync, self.host, session_id)
            if self.resync_error:  # said under the run (a failed link says so itself)
                self.notes.append(self.resync_error)
        return outcome


def resync(host: Host, session_id: str) -> str:
    """Bring the session's mirror level with the host; the failure's line, or ""."""
    try:
        sync_session(host, session_id)
    except HostError as error:
        return f"{error} (the transcript shows the last sync)"
    return ""


class RemoteEngine(ExecEngine):
    """Starts `zero exec` runs on `host`, on its store; `store` is the host's mirror (what
    the transcript shows, and where a session's kind is checked)."""

    def __init__(
        self,
        host: Host,
        *,
        env: Mapping[str, str] | None = None,
        grace_seconds: float = DEFAULT_GRACE_SECONDS,
        exit_timeout: float = DEFAULT_EXIT_TIMEOUT,
    ) -> None:
        super().__init__(
            SessionStore(mirror_root(host.name)),
            env=env,
            grace_seconds=grace_seconds,
            exit_timeout=exit_timeout,
        )
        self.host = host

    def store_refusal(self) -> str | None:
        return browse_only(self.host)

    def browse_only_status(self) -> str:
        if not self.host.has_zero:
            return f"no zero on {self.host.name}'s PATH"
        return f"{self.host.name}'s store is not at …/zero/sessions"

    def workspace(self, recorded: str, fallback: str) -> tuple[str, str | None]:
        """The session's own workspace, on the host (the wrapper says if it is gone)."""
        if recorded.startswith("/"):
            return recorded, f"running on {self.host.name} in {recorded}"
        return "", f"running on {self.host.name} in its home: the session records no workspace"

    def guard(self, session_id: str | None, *, quiet_since: float | None = None) -> RunGuard:
        """This machine's claim only: the mirror is never written, and the wrapper checks
        the host."""
        return guard_run(self.store, session_id, quiet_since=quiet_since, mirror=True)

    def _prepare(self, request: RunRequest) -> tuple[list[str], bytes | None, dict[str, str]]:
        refusal = browse_only(self.host)
        if refusal is not None:
            raise AgentUnavailable(refusal)
        check_options(request)
        if request.session_id is not None:
            check_resumable(self.store, request.session_id)
        workspace = request.cwd if request.cwd.startswith("/") else ""
        argv, prompt_line = build_command("zero", replace(request, cwd="/"))
        cwd_at = argv.index("--cwd")
        arguments = argv[2:cwd_at] + argv[cwd_at + 2 :]  # the wrapper puts --cwd back
        command = remote_command(
            "run",
            self.host,
            request.session_id,
            arguments,
            workspace=workspace,
            has_input=prompt_line is not None,
            grace=self.grace_seconds,
        )
        return ssh_argv(self.host, command), prompt_line, dict(self.env)

    async def start(self, request: RunRequest) -> RemoteRun:
        run = await super().start(request)
        assert isinstance(run, RemoteRun)
        return run

    async def _start(self, request: RunRequest) -> ExecRun:
        argv, prompt_line, env = await asyncio.to_thread(self._prepare, request)
        control_read, control_write = os.pipe()
        try:
            launched = await launch_supervised(argv, env, "/", control_read, self.grace_seconds)
        except BaseException:
            os.close(control_write)
            raise
        finally:
            os.close(control_read)
        run = RemoteRun(
            *launched,
            argv,
            None,
            request=request,
            grace_seconds=self.grace_seconds,
            exit_timeout=self.exit_timeout,
            drain_seconds=self.drain_seconds,
            line_limit=self.line_limit,
            host=self.host,
            control=control_write,
            prompt_line=prompt_line,
        )
        await run.answered()
        if run.remote_pid is None:
            outcome = await run.wait()
            raise AgentUnavailable(
                run.refusal or outcome.message or f"{self.host.name}: zero did not start"
            )
        return run
