"""One ssh connection for a sync: a ControlMaster that the probe and rsync share, and
ssh's failures said in one line.

zero-tui only runs the `ssh` and `rsync` commands, never an SSH library, so the user's ssh
config, keys, agent, ProxyJump and known_hosts apply as they do in a shell. Two settings:
`$ZERO_TUI_SSH_CONFIG` (passed as `ssh -F`, for a private config) and
`$ZERO_TUI_SSH_TIMEOUT` (ConnectTimeout in seconds, 10 by default). BatchMode is always on:
a sync never stops to ask for a password or to accept a host key."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from types import TracebackType
from typing import NoReturn

from zero_tui.hosts.registry import HostError, SyncStopped, never

SSH_CONFIG_VARIABLE = "ZERO_TUI_SSH_CONFIG"
SSH_TIMEOUT_VARIABLE = "ZERO_TUI_SSH_TIMEOUT"
DEFAULT_TIMEOUT = 10
CONTROL_PERSIST = 60  # seconds the master outlives its last use if `close` never runs
STOP_POLL_SECONDS = 0.1  # how often a child of a sync looks whether it is asked to stop
SSH_FAILED = 255  # ssh's exit status for its own failure (a remote command's is its own)


def _timeout() -> int:
    try:
        return max(1, int(os.environ.get(SSH_TIMEOUT_VARIABLE, "").strip()))
    except ValueError:
        return DEFAULT_TIMEOUT


def ssh_failure(name: str, stderr: str) -> str:
    """ssh's complaint as one line about host `name`."""
    text = stderr.strip()
    lowered = text.lower()
    if "remote host identification has changed" in lowered:
        return (
            f"{name}: its host key changed; refused (someone may be intercepting, or the "
            "host was reinstalled: check, then fix known_hosts, e.g. ssh-keygen -R)"
        )
    if "host key verification failed" in lowered or "no ed25519 host key is known" in lowered:
        return f"{name}: its host key is not known; refused (connect once with ssh to check it)"
    if "connection refused" in lowered:
        return f"{name}: unreachable (connection refused)"
    if "timed out" in lowered:
        return f"{name}: no answer within {_timeout()} s (ConnectTimeout; {SSH_TIMEOUT_VARIABLE})"
    if "could not resolve hostname" in lowered:
        return f"{name}: unknown host name ({_last_line(text)})"
    if "permission denied" in lowered:
        return f"{name}: ssh refused the login (permission denied: keys, agent, user?)"
    dropped = ("connection closed", "closed by remote host", "broken pipe", "reset by peer")
    if any(word in lowered for word in dropped) or "not responding" in lowered:
        return f"{name}: the connection dropped ({_last_line(text)})"
    return f"{name}: ssh failed ({_last_line(text) or 'no message'})"


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def ssh_options() -> list[str]:
    """What every ssh of zero-tui passes: the private config if one is set, BatchMode and
    the ConnectTimeout."""
    config = os.environ.get(SSH_CONFIG_VARIABLE, "").strip()
    return [
        *(["-F", config] if config else []),
        "-o",
        "BatchMode=yes",
        "-o",
        f"ConnectTimeout={_timeout()}",
    ]


def wait_unless_stopped(
    process: subprocess.Popen[bytes], stop: Callable[[], bool], name: str
) -> int:
    """`process`'s exit status; SyncStopped, once it is ended, if `stop()` says so first."""
    while True:
        try:
            return process.wait(timeout=STOP_POLL_SECONDS)
        except subprocess.TimeoutExpired:
            pass
        if stop():
            end_stopped(process, name)


def end_stopped(process: subprocess.Popen[bytes], name: str) -> NoReturn:
    """Terminate `process` and reap it (rsync ends its own ssh): host `name`'s sync was
    asked to stop (SyncStopped)."""
    process.terminate()
    process.wait()
    raise SyncStopped(f"{name}: the sync stopped")


class SshLink:
    """`with SshLink(name, target) as link:` opens one master connection (its socket in a
    private temporary directory, short enough for a Unix socket's path); `run` and
    `rsync_shell` go through it; leaving stops it. `stop`: asked while the connection is
    made (up to ConnectTimeout on a host that is down); True ends it (SyncStopped)."""

    def __init__(self, name: str, target: str, stop: Callable[[], bool] = never) -> None:
        self.name = name
        self.target = target
        self.stop = stop
        self.control_dir = ""

    def options(self) -> list[str]:
        return [
            *ssh_options(),
            "-o",
            # one master per private directory: a short name keeps the socket's path short
            f"ControlPath={os.path.join(self.control_dir, 'm')}",
        ]

    def __enter__(self) -> SshLink:
        self.control_dir = tempfile.mkdtemp(prefix="zt-ssh-")
        # stderr to a file, not a pipe: the master keeps it open after the foreground ssh
        # returns, and a pipe's reader would wait for the master's end
        with tempfile.TemporaryFile() as stderr:
            process = subprocess.Popen(
                [
                    "ssh",
                    *self.options(),
                    "-o",
                    "ControlMaster=yes",
                    "-o",
                    f"ControlPersist={CONTROL_PERSIST}",
                    "-f",
                    "-N",
                    "--",
                    self.target,
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )
            try:
                code = wait_unless_stopped(process, self.stop, self.name)
            except SyncStopped:
                self._remove_control_dir()
                raise
            if code != 0:
                stderr.seek(0)
                message = stderr.read().decode(errors="replace")
                self._remove_control_dir()
                raise HostError(ssh_failure(self.name, message))
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        subprocess.call(
            ["ssh", *self.options(), "-O", "exit", "--", self.target],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self._remove_control_dir()

    def _remove_control_dir(self) -> None:
        shutil.rmtree(self.control_dir, ignore_errors=True)

    def client_command(self) -> list[str]:
        return ["ssh", *self.options(), "-o", "ControlMaster=no"]

    def run(self, script: str) -> subprocess.CompletedProcess[str]:
        """`script` run by the remote login shell, through the master; HostError when ssh
        itself failed (a dropped connection)."""
        done = subprocess.run(
            [*self.client_command(), "--", self.target, script],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            check=False,
        )
        if done.returncode == SSH_FAILED:
            raise HostError(ssh_failure(self.name, done.stderr))
        return done

    def rsync_shell(self) -> str:
        """rsync's `-e`: this ssh, through the master."""
        return shlex.join(self.client_command())
