"""The store watcher behind the live picker (issue 17, item 1): every kind of change to a
session arrives as its id, with notification and with polling alike."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from zero_tui.picker.store_watch import StoreWatcher
from zero_tui.store import SessionStore


class Collected:
    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.lock = threading.Lock()

    def __call__(self, ids: set[str]) -> None:
        with self.lock:
            self.ids |= ids

    def wait_for(self, expected: set[str], timeout: float = 10.0) -> set[str]:
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
    time.sleep(0.5)  # the watch is in place
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
        time.sleep(0.3)
        assert watcher.mode == "polling every 0.1s (no store yet)"
        SessionStore(root).create("first", cwd="/w")
        assert "first" in collected.wait_for({"first"})
        deadline = time.monotonic() + 5
        while watcher.mode != "file-change notification" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert watcher.mode == "file-change notification"
    finally:
        stop.set()
        thread.join(timeout=5)
