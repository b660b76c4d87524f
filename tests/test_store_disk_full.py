"""A failed append leaves the log exactly as it was (issue 9, fault 9; design §5).

The disk filling up is simulated at the OS call (os.write / os.fsync fail with ENOSPC
part-way) and, where the test may mount one (root, Linux), made real with a 64 KiB tmpfs.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from zero_tui.store import SessionStore, StoreError

ENOSPC = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    store = SessionStore(tmp_path / "sessions")
    store.create("s")
    store.append_events("s", [("message", {"n": 0})])
    return store


def snapshot(store: SessionStore) -> tuple[bytes, bytes]:
    return store.events_path("s").read_bytes(), store.metadata_path("s").read_bytes()


def events_inode(store: SessionStore) -> int:
    return os.stat(store.events_path("s")).st_ino


def failing_write(
    monkeypatch: pytest.MonkeyPatch, fails: Callable[[int], bool], after: int = 0
) -> None:
    """os.write writes `after` bytes of the first matching call, then raises ENOSPC."""
    real_write = os.write
    budget = [after]

    def write(fd: int, data: bytes | memoryview) -> int:
        if not fails(fd):
            return real_write(fd, data)
        if budget[0] > 0:
            part = bytes(data[: budget[0]])
            budget[0] -= len(part)
            return real_write(fd, part)
        raise ENOSPC

    monkeypatch.setattr(os, "write", write)


BATCH = [("message", {"n": n, "content": "x" * 300}) for n in range(1, 4)]


@pytest.mark.parametrize("after", [0, 1, 150, 400, 900])
def test_a_write_failing_mid_batch_leaves_the_log_as_it_was(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch, after: int
) -> None:
    before = snapshot(store)
    inode = events_inode(store)
    with monkeypatch.context() as patch:
        failing_write(patch, lambda fd: os.fstat(fd).st_ino == inode, after)
        with pytest.raises(StoreError, match="no space left on device"):
            store.append_events("s", BATCH)
    assert snapshot(store) == before
    # safe to retry: nothing is duplicated and the sequences go on
    store.append_events("s", BATCH)
    assert [event.sequence for event in store.read_events("s")] == [1, 2, 3, 4]


def test_a_failing_fsync_leaves_the_log_as_it_was(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = snapshot(store)
    inode = events_inode(store)
    real_fsync = os.fsync
    calls = [0]

    def fsync(fd: int) -> None:
        if os.fstat(fd).st_ino == inode and calls[0] == 0:
            calls[0] += 1
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        real_fsync(fd)

    with monkeypatch.context() as patch:
        patch.setattr(os, "fsync", fsync)
        with pytest.raises(StoreError, match="append zero session event"):
            store.append_events("s", BATCH)
    assert snapshot(store) == before


def test_a_failing_metadata_write_takes_the_batch_back_out(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Zero's writer reports "write zero session metadata: no space left on device" with the
    # batch already in the log: a caller that retries duplicates it
    before = snapshot(store)
    inode = events_inode(store)
    with monkeypatch.context() as patch:
        failing_write(patch, lambda fd: os.fstat(fd).st_ino != inode)
        with pytest.raises(StoreError, match=r"write zero session metadata: .*no space left"):
            store.append_events("s", BATCH)
    assert snapshot(store) == before
    assert not [p for p in store.session_dir("s").iterdir() if p.name.endswith(".tmp")]


def test_a_torn_tail_is_put_back_when_the_append_fails(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    with store.events_path("s").open("ab") as log:
        log.write(b'{"id":"s:2","sessionId":"s","seq')  # an append killed mid-line
    before = snapshot(store)
    inode = events_inode(store)
    with monkeypatch.context() as patch:
        failing_write(patch, lambda fd: os.fstat(fd).st_ino == inode, 40)
        with pytest.raises(StoreError):
            store.append_events("s", BATCH)
    assert snapshot(store) == before


# --- a real full disk ---------------------------------------------------------------------------


@pytest.fixture
def tiny_tmpfs(tmp_path: Path) -> Iterator[Path]:
    mount = shutil.which("mount")
    if sys.platform != "linux" or os.geteuid() != 0 or mount is None:
        pytest.skip("mounting a tmpfs needs root on Linux")
    point = tmp_path / "tiny"
    point.mkdir()
    done = subprocess.run(
        [mount, "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(point)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode(errors='replace')}")
    try:
        yield point
    finally:
        subprocess.run(["umount", str(point)], check=False)


def test_a_real_full_disk_never_leaves_part_of_a_batch(tiny_tmpfs: Path) -> None:
    store = SessionStore(tiny_tmpfs / "sessions")
    store.create("s")
    failures = 0
    appended = 0
    for round_number in range(400):
        before = snapshot(store)
        batch = [("message", {"n": round_number, "i": i, "content": "y" * 700}) for i in range(3)]
        try:
            store.append_events("s", batch)
            appended += 3
            continue
        except StoreError as error:
            message = str(error)
        assert "no space left on device" in message
        assert snapshot(store) == before
        failures += 1
        if failures >= 5:
            break
    assert failures >= 5, "the 64 KiB tmpfs never filled up"
    events = store.read_events("s")
    assert [event.sequence for event in events] == list(range(1, appended + 1))
    meta = store.get("s")
    assert meta is not None
    assert meta.event_count == appended
