"""Lock benchmark: how long `append_events` waits for session.lock against a holder that
releases and re-takes it at once (a busy agent), and how often it gives up.

    python -m benchmarks.lock_bench [--appends 200] [--hold-ms 5] [--timeout 5]

The holder is another process running flock(LOCK_EX) / sleep / flock(LOCK_UN) in a loop
with no pause between unlock and lock. Prints the wait's p50, p95 and max, and the number
of "busy" errors.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from zero_tui.store import SessionBusyError, SessionStore

HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
hold = float(sys.argv[2])
fcntl.flock(fd, fcntl.LOCK_EX)
print("ready", flush=True)
while True:
    time.sleep(hold)
    fcntl.flock(fd, fcntl.LOCK_UN)
    fcntl.flock(fd, fcntl.LOCK_EX)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=200)
    parser.add_argument("--hold-ms", type=float, default=5.0)
    parser.add_argument("--timeout", type=float, default=5.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        store = SessionStore(Path(directory) / "sessions", lock_timeout=args.timeout)
        store.create("s")
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(store.lock_path("s")), str(args.hold_ms / 1000)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert holder.stdout is not None
        holder.stdout.readline()
        waits: list[float] = []
        busy = 0
        try:
            for n in range(args.appends):
                started = time.perf_counter()
                try:
                    with store.locked("s"):
                        waits.append(time.perf_counter() - started)
                    store.append_events("s", [("message", {"n": n})])
                except SessionBusyError:
                    busy += 1
        finally:
            holder.kill()
            holder.wait()
    waits.sort()
    p95 = waits[int(len(waits) * 0.95)] if waits else float("nan")
    print(
        f"lock waits against a re-locking holder (hold {args.hold_ms:g} ms): "
        f"{len(waits)} acquired, {busy} busy; p50 {statistics.median(waits) * 1000:.1f} ms, "
        f"p95 {p95 * 1000:.1f} ms, max {waits[-1] * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
