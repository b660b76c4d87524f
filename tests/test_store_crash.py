"""Crash injection: SIGKILL at random points of append_events and update_title (issue 9).

A child process appends batches and renames the session as fast as it can (its writes cut
into small pieces, so a kill lands mid-line often); the test kills it at a random moment
and checks what any reader must find: a log Zero's reader accepts with no repeated or
missing sequence, metadata that parses (never torn), counters at most one batch behind the
log and never ahead, a title that was really written, and a store the next append
continues without a gap or a duplicate. `check --repair` then leaves it healthy.

Runs: ZERO_TUI_CRASH_RUNS (default 24 in the suite; the report's figures use 400).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from zero_tui.store import SessionStore
from zero_tui.store.check import repair_store

REPO = Path(__file__).resolve().parents[1]
RUNS = int(os.environ.get("ZERO_TUI_CRASH_RUNS", "24"))
MAX_BATCH = 3

WRITER = """
import os, random, sys, time
from zero_tui import atomic
from zero_tui.store import SessionStore
from zero_tui.store import store as store_module

def slow_write_all(fd, data):
    view = memoryview(data)
    while view:
        written = os.write(fd, view[:97])
        view = view[written:]

store_module.write_all = slow_write_all
atomic.write_all = slow_write_all
store = SessionStore(sys.argv[1])
sid = sys.argv[2]
rng = random.Random(int(sys.argv[3]))
print("ready", flush=True)
n = 0
while True:
    n += 1
    if rng.random() < 0.3:
        store.update_title(sid, f"title {n} " + "t" * rng.randrange(0, 3000))
    else:
        size = rng.choice([10, 300, 5000, 60000])
        batch = [("message", {"role": "assistant", "n": n, "content": "x" * size})
                 for _ in range(rng.randrange(1, MAX_BATCH + 1))]
        store.append_events(sid, batch)
""".replace("MAX_BATCH", str(MAX_BATCH))


def start_writer(root: Path, seed: int) -> subprocess.Popen[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
    process = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(root), "s", str(seed)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    ready = process.stdout.readline()
    if ready.strip() != "ready":
        process.kill()
        pytest.fail(f"writer did not start: {process.communicate()[1]}")
    return process


def assert_consistent(store: SessionStore, titles_seen: set[str]) -> int:
    events = store.read_events("s")  # never raises: a torn tail is dropped
    sequences = [event.sequence for event in events]
    assert sequences == list(range(1, len(sequences) + 1))
    meta = store.get("s")  # atomic rename: never torn
    assert meta is not None
    last = sequences[-1] if sequences else 0
    assert last - MAX_BATCH <= meta.event_count <= last
    assert meta.title == "" or meta.title.startswith("title ")
    titles_seen.add(meta.title.split(" ")[1] if meta.title else "")
    return last


def test_sigkill_anywhere_never_breaks_the_store(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    store.create("s")
    rng = random.Random(20260704)
    titles_seen: set[str] = set()
    for run in range(RUNS):
        writer = start_writer(store.root, rng.randrange(1 << 30))
        time.sleep(rng.uniform(0.0, 0.08))
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=30)
        last = assert_consistent(store, titles_seen)
        # the next append continues right after the last complete event
        (event,) = store.append_events("s", [("message", {"after_kill": run})])
        assert event.sequence == last + 1
        assert_consistent(store, titles_seen)
    report = repair_store(store)
    assert report.healthy, report.findings
