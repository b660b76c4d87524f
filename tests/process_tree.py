"""Helpers for the tests of the agent's process tree: processes found by their argv in
/proc, and a driver process that runs an engine, to be SIGKILLed as zero-tui could be."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LIVENESS = 60.0  # seconds: a bound on a hang, not a timing assertion

DRIVER = """
import asyncio, sys
from pathlib import Path
from zero_tui.agent.engine import ExecEngine, RunRequest
from zero_tui.store import SessionStore

async def main() -> None:
    store, workspace, prompt, session, auto = sys.argv[1:6]
    engine = ExecEngine(SessionStore(Path(store)), grace_seconds=10.0)
    run = await engine.start(RunRequest(prompt, session or None, workspace, auto=auto or None))
    print("started", run.pid, flush=True)
    async for event in run.events():
        print(f"{type(event).__name__} {getattr(event, 'delta', '')}".rstrip(), flush=True)
    await asyncio.sleep(3600)

asyncio.run(main())
"""


def processes_with(marker: bytes) -> list[int]:
    """The live processes whose NUL-separated argv contains `marker`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path("/proc", entry, "cmdline").read_bytes()
        except OSError:
            continue
        if marker in b"\0" + cmdline and alive(int(entry)):
            found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path("/proc", str(pid), "stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


def wait_for_processes_with(marker: bytes) -> list[int]:
    """The processes marked so, once there are some (or LIVENESS has passed)."""
    deadline = time.monotonic() + LIVENESS
    while not (found := processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def left_alive(marker: bytes, *pids: int) -> list[int]:
    """What is still alive, of the processes marked so and `pids`, once all are gone or
    LIVENESS has passed."""
    deadline = time.monotonic() + LIVENESS
    while True:
        left = processes_with(marker) + [pid for pid in pids if alive(pid)]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def agent_marker(workspace: Path) -> bytes:
    """What the argv of an agent run in `workspace` holds (and its supervisor's)."""
    return b"\0--cwd\0" + str(workspace).encode() + b"\0"


def kill_all_with(*markers: bytes) -> None:
    """After a failed test: nothing it started is left running."""
    for marker in markers:
        for pid in processes_with(marker):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def start_driver(
    env: Mapping[str, str],
    store: Path,
    workspace: Path,
    prompt: str,
    *,
    session_id: str = "",
    auto: str = "",
) -> subprocess.Popen[bytes]:
    """A Python process running one run of an engine, printing `started PID` then one
    line per event (its type name and text delta)."""
    return subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(store), str(workspace), prompt, session_id, auto],
        stdout=subprocess.PIPE,
        env={**env, "PYTHONPATH": str(REPO)},
        cwd=workspace,
    )


def read_driver_until(driver: subprocess.Popen[bytes], line: bytes) -> int:
    """Reads the driver's lines until `line`; the agent's pid."""
    assert driver.stdout is not None
    agent = 0
    for received in driver.stdout:
        words = received.split()
        if words[:1] == [b"started"]:
            agent = int(words[1])
        if received.rstrip(b"\n") == line:
            return agent
    raise AssertionError(f"the driver ended before printing {line!r}")
