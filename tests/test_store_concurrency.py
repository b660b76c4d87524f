"""Locking and crash safety of appends (store-format §7, §9; §15 cases 12-14).

Cross-process cases use real processes: `flock(1)` stands in for the Go agent (it takes
the same BSD flock on `<session>/session.lock`), and other Python interpreters append
through their own SessionStore.
"""

from __future__ import annotations

import errno
import fcntl
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from zero_tui.store import Event, SessionBusyError, SessionStore, StoreError

REPO = Path(__file__).resolve().parents[1]
FLOCK = shutil.which("flock")

APPEND_ONE = """
import sys
from zero_tui.store import SessionStore
store = SessionStore(sys.argv[1])
print("ready", flush=True)
[event] = store.append_events(sys.argv[2], [("message", {"content": "from the child"})])
print(event.sequence, flush=True)
"""

APPEND_MANY = """
import sys
from zero_tui.store import SessionStore
store = SessionStore(sys.argv[1])
print("ready", flush=True)
sys.stdin.readline()
for n in range(int(sys.argv[3])):
    store.append_events(sys.argv[2], [("message", {"writer": sys.argv[4], "n": n})])
"""

APPEND_FOREVER = """
import os, sys, time
from zero_tui.store import SessionStore
from zero_tui.store import store as store_module
if sys.argv[3] == "slow":
    # a slow disk: the batch goes out in small pieces, so a kill can land mid-line
    def slow_write_all(fd, data):
        view = memoryview(data)
        while view:
            written = os.write(fd, view[:64])
            view = view[written:]
            time.sleep(0.001)
    store_module.write_all = slow_write_all
store = SessionStore(sys.argv[1])
sid = sys.argv[2]
print("ready", flush=True)
n = 0
while True:
    n += 1
    size = 2_000_000 if n % 5 == 0 else 200 * (n % 7)
    batch = [("message", {"n": n, "i": i, "content": "x" * size}) for i in range(1 + n % 3)]
    store.append_events(sid, batch)
"""


def python_process(script: str, *args: str, stdin: int | None = None) -> subprocess.Popen[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        cwd=REPO,
        env=env,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_ready(process: subprocess.Popen[str]) -> None:
    assert process.stdout is not None
    line = process.stdout.readline()
    if line.strip() != "ready":
        process.kill()
        _, err = process.communicate(timeout=10)
        pytest.fail(f"child did not start: {line!r} {err}")


def lock_is_held(path: Path) -> bool:
    """Whether another open file description holds the flock on path."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            if error.errno in (errno.EAGAIN, errno.EACCES):
                return True
            raise
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


class ForeignLock:
    """flock(1) holding session.lock until released (it runs `cat` until stdin closes)."""

    def __init__(self, path: Path) -> None:
        assert FLOCK is not None
        self.process = subprocess.Popen(
            [FLOCK, str(path), "cat"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 10
        while not lock_is_held(path):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.release()
                pytest.fail("flock(1) did not take the lock")
            time.sleep(0.01)

    def release(self) -> None:
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()
        self.process.wait(timeout=10)


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    store = SessionStore(tmp_path / "sessions")
    store.create("s")
    return store


@pytest.fixture
def foreign_lock(store: SessionStore) -> Iterator[ForeignLock]:
    if FLOCK is None:
        pytest.skip("flock(1) is not installed")
    lock = ForeignLock(store.lock_path("s"))
    try:
        yield lock
    finally:
        lock.release()


def sequences(events: list[Event]) -> list[int]:
    return [event.sequence for event in events]


# --- cross-process exclusion (14) ---------------------------------------------------------------


def test_case_14_append_waits_for_a_foreign_flock(
    store: SessionStore, foreign_lock: ForeignLock
) -> None:
    child = python_process(APPEND_ONE, str(store.root), "s")
    try:
        wait_ready(child)
        with pytest.raises(subprocess.TimeoutExpired):
            child.wait(timeout=0.15)
        assert store.events_path("s").read_bytes() == b""  # still blocked after 150 ms
        foreign_lock.release()
        out, err = child.communicate(timeout=10)  # completes promptly once released
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0, err
    assert out.split() == ["1"]  # the sequence it got
    assert sequences(store.read_events("s")) == [1]


def test_busy_timeout_raises_and_writes_nothing(
    store: SessionStore, foreign_lock: ForeignLock
) -> None:
    impatient = SessionStore(store.root, lock_timeout=0.5)
    meta_before = store.metadata_path("s").read_bytes()
    with pytest.raises(SessionBusyError) as caught:
        impatient.append_events("s", [("message", {"content": "x"})])
    message = str(caught.value)
    assert "session s is busy" in message
    assert "0.5s" in message
    assert "\n" not in message
    assert isinstance(caught.value, StoreError)
    assert store.events_path("s").read_bytes() == b""
    assert store.metadata_path("s").read_bytes() == meta_before
    with pytest.raises(SessionBusyError):
        impatient.update_title("s", "new title")
    assert store.metadata_path("s").read_bytes() == meta_before
    foreign_lock.release()
    [event] = impatient.append_events("s", [("message", {"content": "x"})])
    assert event.sequence == 1  # the store is usable again after the busy error


def test_two_store_objects_in_one_process_exclude_each_other(store: SessionStore) -> None:
    other = SessionStore(store.root, lock_timeout=0.3)
    with store.locked("s"), pytest.raises(SessionBusyError):
        other.append_events("s", [("message", {"content": "x"})])
    assert other.append_events("s", [("message", {"content": "y"})])[0].sequence == 1


def test_lock_file_is_kept_empty_after_release(store: SessionStore) -> None:
    store.append_events("s", [("message", {"content": "x"})])
    lock = store.lock_path("s")
    assert lock.is_file()
    assert lock.stat().st_size == 0
    assert not lock_is_held(lock)
    inode = lock.stat().st_ino
    store.update_title("s", "t")
    assert lock.stat().st_ino == inode  # never deleted and re-created


# --- threads (12, 13) ---------------------------------------------------------------------------


@pytest.mark.parametrize("shared_store", [True, False], ids=["one-store", "store-per-thread"])
def test_case_12_concurrent_single_appends(store: SessionStore, shared_store: bool) -> None:
    barrier = threading.Barrier(24)
    results: list[Event] = []
    errors: list[BaseException] = []
    guard = threading.Lock()

    def worker(index: int) -> None:
        target = store if shared_store else SessionStore(store.root)
        try:
            barrier.wait(timeout=10)
            [event] = target.append_events("s", [("message", {"worker": index})])
            with guard:
                results.append(event)
        except BaseException as error:
            with guard:
                errors.append(error)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(24)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert sorted(sequences(results)) == list(range(1, 25))
    logged = store.read_events("s")
    assert sorted(sequences(logged)) == list(range(1, 25))
    assert all(event.id == f"s:{event.sequence}" for event in logged)
    assert sorted(e.payload["worker"] for e in logged) == list(range(24))
    meta = store.get("s")
    assert meta is not None
    assert meta.event_count == 24


def test_case_13_concurrent_batches_stay_contiguous(store: SessionStore) -> None:
    barrier = threading.Barrier(8)
    batches: list[list[int]] = []
    guard = threading.Lock()

    def worker(index: int) -> None:
        barrier.wait(timeout=10)
        events = store.append_events("s", [("message", {"b": index, "i": i}) for i in range(3)])
        with guard:
            batches.append(sequences(events))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(batches) == 8
    for batch in batches:
        assert batch == list(range(batch[0], batch[0] + 3))
    assert sorted(n for batch in batches for n in batch) == list(range(1, 25))
    logged = store.read_events("s")
    assert sequences(logged) == list(range(1, 25))  # file order is sequence order
    for start in range(0, 24, 3):
        assert len({e.payload["b"] for e in logged[start : start + 3]}) == 1


# --- processes ----------------------------------------------------------------------------------


def test_four_processes_append_without_losing_anything(store: SessionStore) -> None:
    writers = [
        python_process(APPEND_MANY, str(store.root), "s", "25", str(w), stdin=subprocess.PIPE)
        for w in range(4)
    ]
    try:
        for writer in writers:
            wait_ready(writer)
        for writer in writers:
            assert writer.stdin is not None
            writer.stdin.write("go\n")
            writer.stdin.close()
        for writer in writers:
            writer.wait(timeout=120)
            assert writer.stderr is not None
            assert writer.returncode == 0, writer.stderr.read()
    finally:
        for writer in writers:
            if writer.poll() is None:
                writer.kill()
                writer.wait()
    logged = store.read_events("s")
    assert sequences(logged) == list(range(1, 101))
    assert len({e.id for e in logged}) == 100
    per_writer = {
        w: [e.payload["n"] for e in logged if e.payload["writer"] == str(w)] for w in range(4)
    }
    assert per_writer == {w: list(range(25)) for w in range(4)}
    meta = store.get("s")
    assert meta is not None
    assert meta.event_count == 100


# --- crash safety -------------------------------------------------------------------------------


def test_killed_writer_never_breaks_the_log_or_reuses_a_sequence(store: SessionStore) -> None:
    rng = random.Random(20260604)
    seen: list[Event] = []
    torn_tails = 0
    started = time.monotonic()
    rounds = 0
    while rounds < 30 and time.monotonic() - started < 15:
        rounds += 1
        mode = "slow" if rounds % 2 else "fast"
        writer = python_process(APPEND_FOREVER, str(store.root), "s", mode)
        try:
            wait_ready(writer)
            time.sleep(rng.uniform(0.0, 0.08))
            writer.send_signal(signal.SIGKILL)
        finally:
            writer.wait(timeout=10)
            if writer.stdout is not None:
                writer.stdout.close()
            if writer.stderr is not None:
                writer.stderr.close()
        torn_tails += not store.events_path("s").read_bytes().endswith(b"\n")
        logged = store.read_events("s")  # never rejected
        numbers = sequences(logged)
        assert numbers == sorted(set(numbers)), f"round {rounds}: duplicate or disorder"
        assert [e.id for e in logged[: len(seen)]] == [e.id for e in seen], "lost events"
        assert store.get("s") is not None  # metadata always complete
        [fresh] = store.append_events("s", [("message", {"content": f"after kill {rounds}"})])
        assert fresh.sequence > max(numbers, default=0)
        seen = store.read_events("s")
        assert seen[-1].id == fresh.id
        assert store.events_path("s").read_bytes().endswith(b"\n")
    assert rounds >= 5
    assert torn_tails > 0  # the repair path was exercised, not only clean kills


# --- torn tails (§7) ----------------------------------------------------------------------------


def complete_line(sequence: int) -> bytes:
    return Event(
        f"s:{sequence}", "s", sequence, "message", "2026-06-04T10:00:00Z", b'{"n":1}'
    ).to_json_line()


def test_torn_tail_is_cut_back_before_appending(store: SessionStore) -> None:
    intact = complete_line(1) + complete_line(2)
    partial = b'{"id":"s:3","sessionId":"s","sequence":3,"type":"message","payload":{"TORN'
    store.events_path("s").write_bytes(intact + partial)
    [event] = store.append_events("s", [("message", {"content": "new"})])
    assert event.sequence == 3
    data = store.events_path("s").read_bytes()
    assert b"TORN" not in data
    assert data == intact + event.to_json_line()
    assert sequences(store.read_events("s")) == [1, 2, 3]


def test_torn_line_followed_by_newline_and_spaces(store: SessionStore) -> None:
    """§7: `…,"seq\\n   ` is read as torn (last byte is a space); cutting after the last
    newline would leave the broken line newline-terminated and the log unreadable."""
    intact = complete_line(1) + complete_line(2)
    store.events_path("s").write_bytes(intact + b'{"id":"s:3","seq\n   ')
    assert sequences(store.read_events("s")) == [1, 2]
    [event] = store.append_events("s", [("message", {"content": "new"})])
    assert event.sequence == 3
    assert store.events_path("s").read_bytes() == intact + event.to_json_line()
    assert sequences(store.read_events("s")) == [1, 2, 3]


def test_valid_last_line_without_newline_is_kept(store: SessionStore) -> None:
    data = complete_line(1) + complete_line(2).rstrip(b"\n")
    store.events_path("s").write_bytes(data)
    assert sequences(store.read_events("s")) == [1, 2]
    [event] = store.append_events("s", [("message", {"content": "new"})])
    assert event.sequence == 3
    assert store.events_path("s").read_bytes() == data + b"\n" + event.to_json_line()


def test_whole_log_torn_is_emptied(store: SessionStore) -> None:
    store.events_path("s").write_bytes(b'{"id":"s:1","sessi')
    assert store.read_events("s") == []
    [event] = store.append_events("s", [("message", {"content": "new"})])
    assert event.sequence == 1
    assert store.events_path("s").read_bytes() == event.to_json_line()


def test_torn_tail_after_a_long_line_is_repaired(store: SessionStore) -> None:
    long = Event(
        "s:1", "s", 1, "message", "2026-06-04T10:00:00Z", b'{"c":"' + b"x" * 200_000 + b'"}'
    ).to_json_line()
    store.events_path("s").write_bytes(long + b'{"id":"s:2","sequ' + b"y" * 100_000)
    [event] = store.append_events("s", [("message", {"content": "new"})])
    assert event.sequence == 2
    assert store.events_path("s").read_bytes() == long + event.to_json_line()


def test_corrupt_complete_last_line_is_left_alone(store: SessionStore) -> None:
    """A newline-terminated bad line is not a torn tail: the store does not delete data."""
    data = complete_line(1) + b"not json\n"
    store.events_path("s").write_bytes(data)
    store.metadata_path("s").write_bytes(
        store.metadata_path("s").read_bytes().replace(b'"eventCount": 0', b'"eventCount": 2')
    )
    [event] = store.append_events("s", [("message", {"content": "new"})])
    assert event.sequence == 3
    assert store.events_path("s").read_bytes() == data + event.to_json_line()
    with pytest.raises(StoreError, match="at line 2"):
        store.read_events("s")


# --- issue 9, fault 5: a holder that re-locks at once cannot starve a waiter --------------------

RELOCKING_HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
hold = float(sys.argv[2])
fcntl.flock(fd, fcntl.LOCK_EX)
print("ready", flush=True)
while True:  # a busy agent: unlock and take the lock again at once
    time.sleep(hold)
    fcntl.flock(fd, fcntl.LOCK_UN)
    fcntl.flock(fd, fcntl.LOCK_EX)
"""


def test_a_relocking_holder_does_not_starve_appends(store: SessionStore) -> None:
    holder = python_process(RELOCKING_HOLDER, str(store.lock_path("s")), "0.005")
    try:
        wait_ready(holder)
        patient = SessionStore(store.root, lock_timeout=20)
        for n in range(10):  # filelock's LOCK_NB poll was "busy" 6 times out of 6
            patient.append_events("s", [("message", {"n": n})])
    finally:
        holder.kill()
        holder.wait(timeout=10)
    assert sequences(store.read_events("s")) == list(range(1, 11))


def test_a_lock_held_past_the_timeout_is_busy_and_never_left_held(
    store: SessionStore, foreign_lock: ForeignLock
) -> None:
    hasty = SessionStore(store.root, lock_timeout=0.2)
    with pytest.raises(SessionBusyError, match="session s is busy"):
        hasty.append_events("s", [("message", {"n": 1})])
    with pytest.raises(SessionBusyError):
        hasty.update_title("s", "renamed")
    assert store.read_events("s") == []
    foreign_lock.release()
    # the abandoned waiters take the lock when it frees and drop it at once: a later
    # append (blocking) gets it, and then nobody holds it
    assert sequences(store.append_events("s", [("message", {"n": 2})])) == [1]
    deadline = time.monotonic() + 60  # a hang guard, not a timing assertion
    while lock_is_held(store.lock_path("s")):
        assert time.monotonic() < deadline, "an abandoned waiter kept the lock"
        time.sleep(0.01)
    meta = store.get("s")
    assert meta is not None
    assert meta.title == ""


def test_without_fcntl_filelock_takes_the_same_lock(
    store: SessionStore, foreign_lock: ForeignLock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Windows path (no fcntl: filelock, imported only there) still waits for Zero's
    lock, says busy, and appends once it is free."""
    from zero_tui.store import store as store_module

    monkeypatch.setattr(store_module, "fcntl", None)
    impatient = SessionStore(store.root, lock_timeout=0.3)
    with pytest.raises(SessionBusyError):
        impatient.append_events("s", [("message", {"content": "x"})])
    assert store.events_path("s").read_bytes() == b""
    foreign_lock.release()
    [event] = impatient.append_events("s", [("message", {"content": "x"})])
    assert event.sequence == 1
