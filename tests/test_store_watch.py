"""The store watcher behind the live picker (issue 17, item 1): every kind of change to a
session arrives as its id, with notification and with polling alike."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import HANG_SECONDS

from zero_tui.picker import store_watch
from zero_tui.picker.store_watch import StoreWatcher
from zero_tui.store import SessionStore


class Collected:
    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.lock = threading.Lock()
        self.read_all = 0  # how many times the watcher said "read the whole store again"

    def __call__(self, ids: set[str]) -> None:
        with self.lock:
            self.ids |= ids
            self.read_all += not ids

    def wait_for(self, expected: set[str], timeout: float = HANG_SECONDS) -> set[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if expected <= self.ids:
                    found, self.ids = set(self.ids), set()
                    return found
            time.sleep(0.02)
        with self.lock:
            return set(self.ids)


@pytest.fixture(params=[True, False], ids=["notification", "polling"])
def watching(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[SessionStore, Collected, StoreWatcher]]:
    store = SessionStore(tmp_path / "zero" / "sessions")
    store.create("old", cwd="/w")
    store.create("gone", cwd="/w")
    watcher = StoreWatcher(store.root, interval=0.1, notify=request.param)
    collected = Collected()
    stop = threading.Event()
    thread = threading.Thread(target=watcher.run, args=(collected, stop), daemon=True)
    thread.start()
    wait_until(watcher.in_place.is_set, "the watch in place")  # what changes now is told
    try:
        yield store, collected, watcher
    finally:
        stop.set()
        thread.join(timeout=5)
        assert not thread.is_alive()


def test_every_kind_of_change_is_its_session(
    watching: tuple[SessionStore, Collected, StoreWatcher],
) -> None:
    store, collected, watcher = watching
    assert watcher.mode.startswith(("file-change notification", "polling every 0.1s"))
    store.append_events("old", [("message", {"role": "user", "content": "hi"})])
    assert collected.wait_for({"old"}) >= {"old"}
    store.create("new", cwd="/w")
    assert collected.wait_for({"new"}) >= {"new"}
    store.update_title("old", "Renamed")
    assert "old" in collected.wait_for({"old"})
    shutil.rmtree(store.session_dir("gone"))
    assert "gone" in collected.wait_for({"gone"})


def test_a_store_that_appears_later_is_watched(tmp_path: Path) -> None:
    root = tmp_path / "zero" / "sessions"
    watcher = StoreWatcher(root, interval=0.1, notify=True)
    collected = Collected()
    stop = threading.Event()
    thread = threading.Thread(target=watcher.run, args=(collected, stop), daemon=True)
    thread.start()
    try:
        wait_until(lambda: watcher.mode != "not started", "the watcher started")
        assert watcher.mode == "polling every 0.1s (no store yet)"
        SessionStore(root).create("first", cwd="/w")
        assert "first" in collected.wait_for({"first"})
        wait_until(lambda: watcher.mode == "file-change notification", "notification")
    finally:
        stop.set()
        thread.join(timeout=5)


# --- the watching process (watch_child.py), played by a script of the test's ------------

STAND_IN = """
import os, pathlib, sys, time
root = pathlib.Path(sys.argv[1])
(root.parent / "child.pid").write_text(str(os.getpid()))
while not (root.parent / "go").exists():  # the test says when the watch is "in place"
    time.sleep(0.01)
says = (root.parent / "says").read_bytes()
sys.stdout.buffer.write(says)
sys.stdout.buffer.flush()
if says.startswith(b"\x03"):  # in place: watching until the watcher closes its input
    sys.stdin.buffer.read()
"""


@pytest.fixture
def stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    script = tmp_path / "stand_in.py"
    script.write_text(STAND_IN)
    monkeypatch.setattr(store_watch, "WATCH_CHILD", script)
    return script


def start_watching(root: Path) -> tuple[StoreWatcher, Collected, threading.Event, threading.Thread]:
    watcher = StoreWatcher(root, interval=0.1, notify=True)
    collected = Collected()
    stop = threading.Event()
    thread = threading.Thread(target=watcher.run, args=(collected, stop), daemon=True)
    thread.start()
    return watcher, collected, stop, thread


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + HANG_SECONDS
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def test_what_changes_while_the_watch_is_put_in_place_is_told(
    tmp_path: Path, stand_in: Path
) -> None:
    (tmp_path / "says").write_bytes(b"\x03\0")
    store = SessionStore(tmp_path / "sessions")
    store.create("old", cwd="/w")
    store.create("quiet", cwd="/w")
    watcher, collected, stop, thread = start_watching(store.root)
    try:
        wait_until(lambda: (tmp_path / "child.pid").exists(), "the watching process")
        store.append_events("old", [("message", {"role": "user", "content": "meanwhile"})])
        (tmp_path / "go").touch()
        assert collected.wait_for({"old"}) == {"old"}
        assert watcher.mode == "file-change notification"
    finally:
        stop.set()
        thread.join(timeout=5)
    assert not thread.is_alive()
    pid = int((tmp_path / "child.pid").read_text())
    with pytest.raises(ProcessLookupError):  # ended and reaped when the watch stopped
        os.kill(pid, 0)


@pytest.mark.parametrize(
    ("says", "reason"),
    [
        (b"\x01the inotify watch limit is reached\0", "the inotify watch limit is reached"),
        (b"", "the watching process ended"),
    ],
    ids=["says why", "dies"],
)
def test_a_watch_that_fails_falls_back_to_polling_and_says_why(
    tmp_path: Path, stand_in: Path, says: bytes, reason: str
) -> None:
    (tmp_path / "says").write_bytes(says)
    (tmp_path / "go").touch()
    store = SessionStore(tmp_path / "sessions")
    store.create("old", cwd="/w")
    watcher, collected, stop, thread = start_watching(store.root)
    try:
        wait_until(lambda: watcher.mode.startswith("polling"), "the fallback to polling")
        assert watcher.mode == f"polling every 0.1s (notification failed: {reason})"
        store.append_events("old", [("message", {"role": "user", "content": "polled"})])
        assert collected.wait_for({"old"}) == {"old"}
    finally:
        stop.set()
        thread.join(timeout=5)


# --- issue 25, item 6: the store folder replaced under the watch ---------------------------


def renamed_away(root: Path) -> None:
    root.rename(root.with_name("sessions.old"))
    root.mkdir()


def removed_and_made_again(root: Path) -> None:
    shutil.rmtree(root)
    root.mkdir()


@pytest.mark.parametrize("replace", [renamed_away, removed_and_made_again])
def test_a_store_folder_replaced_under_the_watch_is_watched_anew(
    watching: tuple[SessionStore, Collected, StoreWatcher], replace: Callable[[Path], None]
) -> None:
    """The picker kept the old rows, or said "No Zero sessions yet", forever: the watch
    stayed on the folder renamed away or removed. The watcher says to read the whole store
    again, then follows the folder now in its place (whose inode number may be the old
    one's: the watching process says the watched folder went)."""
    store, collected, watcher = watching
    replace(store.root)
    SessionStore(store.root).create("fresh", cwd="/w")
    # Read all again; polling may see only the sessions come and go (rm -rf and mkdir can
    # give the new folder the old one's inode number), which is as good for a poll.
    wait_until(
        lambda: collected.read_all > 0 or (not watcher.notify and "fresh" in collected.ids),
        "read the new store from the start",
    )
    SessionStore(store.root).create("later", cwd="/w")  # watched in the new folder
    assert "later" in collected.wait_for({"later"})
    SessionStore(store.root).append_events("fresh", [("message", {"role": "user", "content": "x"})])
    assert "fresh" in collected.wait_for({"fresh"})
    assert watcher.mode.startswith(("file-change notification", "polling every 0.1s"))


# --- issue 25, item 7: sessions made past the inotify watch limit ------------------------


def test_sessions_the_watch_leaves_out_are_polled_and_said(tmp_path: Path, stand_in: Path) -> None:
    """watchfiles says nothing when the kernel refuses a new folder's watch: the watching
    process finds it out and says which; those are polled, and the mode says so."""
    limit = b"\x04the inotify watch limit is reached/"
    (tmp_path / "says").write_bytes(b"\x03\0" + limit + b"late\0")
    (tmp_path / "go").touch()
    store = SessionStore(tmp_path / "sessions")
    store.create("early", cwd="/w")
    store.create("late", cwd="/w")
    watcher, collected, stop, thread = start_watching(store.root)
    try:
        expected = (
            "file-change notification, 1 session polled every 0.1s "
            "(the inotify watch limit is reached)"
        )
        wait_until(lambda: watcher.mode == expected, "the mode")
        store.append_events("late", [("message", {"role": "user", "content": "polled"})])
        assert collected.wait_for({"late"}) == {"late"}  # the stand-in tells no change
        shutil.rmtree(store.session_dir("late"))
        assert collected.wait_for({"late"}) == {"late"}
        wait_until(lambda: watcher.mode == "file-change notification", "none polled")
    finally:
        stop.set()
        thread.join(timeout=5)


LIMITED = """
import json, sys, threading, time
from pathlib import Path
from zero_tui.picker.store_watch import StoreWatcher
from zero_tui.store import SessionStore
store = SessionStore(sys.argv[1])
changed = set()
watcher = StoreWatcher(store.root, interval=0.1, notify=True)
stop = threading.Event()
threading.Thread(target=watcher.run, args=(changed.update, stop), daemon=True).start()
def wait(condition):
    deadline = time.monotonic() + 20
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)
wait(watcher.in_place.is_set)  # the watch is in place: what is made now is seen
for number in range(8):  # past the limit: root + 4 sessions + 8 > 10 watches
    store.create(f"late{number}", cwd="/w")
wait(lambda: "polled" in watcher.mode)
changed.clear()
store.append_events("late7", [("message", {"role": "user", "content": "seen?"})])
wait(lambda: "late7" in changed)
stop.set()
print(json.dumps({"mode": watcher.mode, "changed": sorted(changed)}))
"""


def test_the_real_watch_limit_reached_by_sessions_made_later(tmp_path: Path) -> None:
    """The kernel's limit lowered to 10 watches in a user namespace of the test's own (the
    machine's limit is shared with every other process of the user: never reached here)."""
    unshare = shutil.which("unshare")
    if unshare is None or sys.platform != "linux":
        pytest.skip("needs Linux's unshare")
    store = SessionStore(tmp_path / "sessions")
    for number in range(4):
        store.create(f"early{number}", cwd="/w")
    script = tmp_path / "limited.py"
    script.write_text(LIMITED)
    shell = (
        "echo 10 > /proc/sys/user/max_inotify_watches || exit 77; "
        f'exec "{sys.executable}" "{script}" "{store.root}"'
    )
    done = subprocess.run(
        [unshare, "--user", "--map-root-user", "sh", "-c", shell],
        capture_output=True,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])},
    )
    if done.returncode == 77 or b"unshare" in done.stderr:
        pytest.skip(f"no user namespace here: {done.stderr.decode().strip()}")
    assert done.returncode == 0, done.stderr.decode()
    said = json.loads(done.stdout)
    assert said["changed"] == ["late7"]
    assert said["mode"].startswith("file-change notification, ")
    assert said["mode"].endswith(" polled every 0.1s (the inotify watch limit is reached)")
