"""The parent of one `zero exec` run, so that none of the run's processes outlives it.

zero-tui starts `python -I -S supervisor.py CHANNEL STDOUT STDERR GRACE -- ARGV…` in a
session of its own, with the agent's pipes as its stdin, stdout and stderr. It starts ARGV
(the agent) in a process group of its own, to be SIGKILLed by the kernel should the
supervisor die, and on Linux it is the child subreaper of everything the agent starts:
Zero runs each bash tool in a process group of its own (a tool can also make a session
of its own, or fork and exit), so a kill of the agent's group misses them — orphaned,
they are re-parented here instead of to init, and can still be found and killed.

CHANNEL is a socket shared with zero-tui. In: the byte `i` (SIGINT to the agent, then
after GRACE seconds kill it and everything under it) and `k` (kill it all now). Out, one
line each: `started PID`, `error ERRNO` (the agent could not be started), `exit
RETURNCODE` (` killed` added when the supervisor killed it). Its end of file means zero-tui
is gone: the supervisor does as for `i`, and reads and drops the agent's output
meanwhile (STDOUT and STDERR are the read ends of its pipes), so that Zero records the
cancel instead of dying of a broken pipe. Once the agent has exited, every process left
under the supervisor is killed, and it exits.

Standard library only, imported by no other module: it runs in a fresh interpreter.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import signal
import socket
import subprocess
import sys
import time
from types import FrameType

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
SWEEP_SECONDS = 10.0  # at most, for the processes left once the agent has exited
EXIT_SPAWN_FAILED = 127
EXIT_USAGE = 2


def _load_libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


_LIBC = _load_libc()


def _prctl(option: int, value: int) -> bool:
    try:
        return _LIBC is not None and int(_LIBC.prctl(option, value, 0, 0, 0)) == 0
    except AttributeError:
        return False


def _die_with_the_supervisor() -> None:
    """In the agent, before its exec: the kernel kills it if the supervisor dies."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def live_children(parent: int) -> list[int]:
    """The processes whose parent is `parent`, zombies left out (Linux /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 1 and int(fields[1]) == parent and fields[0] not in (b"Z", b"X"):
            found.append(int(entry))
    return found


class Supervisor:
    def __init__(self, channel: socket.socket, outputs: list[int], grace: float) -> None:
        self.channel: socket.socket | None = channel
        self.outputs = outputs
        self.grace = grace
        self.agent_pid = 0
        self.returncode: int | None = None
        self.killed = False
        self.kill_at: float | None = None
        self.parent_gone = False
        self.stop_signalled = False
        self.subreaper = _prctl(PR_SET_CHILD_SUBREAPER, 1) and os.path.isdir("/proc")
        self.wake_read, wake_write = os.pipe()
        os.set_blocking(self.wake_read, False)
        os.set_blocking(wake_write, False)
        signal.set_wakeup_fd(wake_write)
        signal.signal(signal.SIGCHLD, lambda _signum, _frame: None)  # wakes select()
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, self._on_stop_signal)

    def _on_stop_signal(self, _signum: int, _frame: FrameType | None) -> None:
        self.stop_signalled = True

    def report(self, line: str) -> None:
        if self.channel is not None:
            with contextlib.suppress(OSError):  # zero-tui is gone: nobody to tell
                self.channel.sendall(line.encode("ascii") + b"\n")

    def run(self, argv: list[str]) -> int:
        try:
            agent = subprocess.Popen(argv, process_group=0, preexec_fn=_die_with_the_supervisor)
        except OSError as error:
            self.report(f"error {error.errno or 0}")
            return EXIT_SPAWN_FAILED
        self.agent_pid = agent.pid
        self.report(f"started {agent.pid}")
        _let_go_of_the_agents_pipes()
        while self.returncode is None:
            self.step()
        agent.returncode = self.returncode  # reaped here: Popen must not wait for it
        self.report(f"exit {self.returncode}" + (" killed" if self.killed else ""))
        self.sweep()
        return 0

    def step(self) -> None:
        """Wait for a command, a signal, a child's exit, output to drop, or the kill time."""
        watched = [self.wake_read]
        if self.channel is not None:
            watched.append(self.channel.fileno())
        if self.parent_gone:
            watched += self.outputs
        timeout = None if self.kill_at is None else max(0.0, self.kill_at - time.monotonic())
        ready, _, _ = select.select(watched, [], [], timeout)
        if self.wake_read in ready:
            with contextlib.suppress(BlockingIOError):
                while os.read(self.wake_read, 512):
                    pass
        if self.channel is not None and self.channel.fileno() in ready:
            try:
                commands = self.channel.recv(64)
            except OSError:  # reset: zero-tui died with our reports unread
                commands = b""
            self.on_commands(commands)
        for descriptor in [fd for fd in self.outputs if fd in ready]:
            with contextlib.suppress(BlockingIOError):
                if not os.read(descriptor, 65536):
                    self.outputs.remove(descriptor)
        if self.stop_signalled:
            self.stop_signalled = False
            self.interrupt()
        self.reap()
        if (
            self.returncode is None
            and self.kill_at is not None
            and time.monotonic() >= self.kill_at
        ):
            self.kill_all()

    def on_commands(self, data: bytes) -> None:
        if not data:
            assert self.channel is not None
            self.channel.close()
            self.channel = None
            self.parent_gone = True
            self.interrupt()
        for command in data:
            if command == ord("i"):
                self.interrupt()
            elif command == ord("k"):
                self.kill_all()

    def interrupt(self) -> None:
        """SIGINT to the agent (once), and a kill of everything after the grace."""
        if self.returncode is None and self.kill_at is None and not self.killed:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.agent_pid, signal.SIGINT)  # unreaped until we reap it
            self.kill_at = time.monotonic() + self.grace

    def kill_all(self) -> None:
        self.kill_at = None
        if self.returncode is None:
            self.killed = True
        self.kill_children()

    def kill_children(self) -> None:
        """SIGKILL every live child: their own children are re-parented here, to be
        killed in turn. Only the supervisor reaps its children, so none of these pids can
        have been reused by another process meanwhile."""
        if not self.subreaper:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.agent_pid, signal.SIGKILL)
            return
        for pid in live_children(os.getpid()):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == self.agent_pid:
                self.returncode = os.waitstatus_to_exitcode(status)

    def sweep(self) -> None:
        """Kill what the agent left behind, until no child is left alive."""
        deadline = time.monotonic() + SWEEP_SECONDS
        while time.monotonic() < deadline:
            self.reap()
            if not self.subreaper:
                self.kill_children()  # the agent's group: all that can be found here
                return
            if not live_children(os.getpid()):
                return
            self.kill_children()
            select.select([self.wake_read], [], [], 0.05)
            with contextlib.suppress(BlockingIOError):
                os.read(self.wake_read, 512)


def _let_go_of_the_agents_pipes() -> None:
    """The supervisor never writes to the agent's stdout nor reads its stdin (stderr is
    kept, for a traceback of its own)."""
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)


def main(argv: list[str]) -> int:
    try:
        separator = argv.index("--")
        channel_fd, stdout_fd, stderr_fd, grace = argv[:separator]
        command = argv[separator + 1 :]
        supervisor = Supervisor(
            socket.socket(fileno=int(channel_fd)),
            [int(stdout_fd), int(stderr_fd)],
            float(grace),
        )
    except ValueError:
        sys.stderr.write("usage: supervisor.py CHANNEL STDOUT STDERR GRACE -- ARGV…\n")
        return EXIT_USAGE
    if not command:
        sys.stderr.write("supervisor.py: no command\n")
        return EXIT_USAGE
    return supervisor.run(command)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
