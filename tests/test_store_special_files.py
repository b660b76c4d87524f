"""FIFOs and other non-regular files in the store never block (issue 9, fault 3).

A FIFO opened for reading blocks until a writer comes, forever; a thread stuck there cannot
be stopped, so the picker could not even quit. Every store read opens without blocking and
refuses what is not a regular file, with the reason.
"""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path

import pytest
from conftest import finishes

from zero_tui.cli import main
from zero_tui.search.file_identity import regular_stat, stat_key
from zero_tui.store import SessionStore, StoreError
from zero_tui.store.resumable import filter_resumable, has_resumable_content
from zero_tui.store.store import NotRegularFileError, read_regular, read_regular_stat
from zero_tui.transcript.log_index import LogIndex

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZERO_TUI_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    store = SessionStore(tmp_path / "sessions")
    store.create("healthy", title="Healthy")
    store.append_events("healthy", [("message", {"role": "assistant", "content": "fine"})])
    store.create("piped", title="Piped")
    store.append_events("piped", [("message", {"role": "assistant", "content": "x"})])
    return store


def make_fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def test_metadata_fifo_is_reported_unreadable_not_waited_on(store: SessionStore) -> None:
    make_fifo(store.metadata_path("piped"))
    assert [m.session_id for m in finishes(store.list)] == ["healthy"]
    with pytest.raises(StoreError, match=r"metadata piped: .*is a FIFO, not a regular file"):
        finishes(lambda: store.get("piped"))
    scan = finishes(store.scan)
    assert [m.session_id for m in scan.sessions] == ["healthy"]
    assert [(u.session_id, "FIFO" in u.reason) for u in scan.unreadable] == [("piped", True)]
    assert [m.session_id for m in finishes(lambda: filter_resumable(store, "").sessions)] == [
        "healthy"
    ]


def test_events_fifo_is_an_error_for_every_reader(store: SessionStore) -> None:
    make_fifo(store.events_path("piped"))
    for read in (
        lambda: store.read_events("piped"),
        lambda: store.read_rehydrated_events("piped"),
        lambda: store.last_complete_sequence("piped"),
        lambda: LogIndex.open(store.events_path("piped"), "piped"),
        lambda: LogIndex.open_tail(store.events_path("piped"), "piped"),
    ):
        with pytest.raises(StoreError, match="is a FIFO, not a regular file"):
            finishes(read)
    with pytest.raises(StoreError, match="is a FIFO"):
        finishes(lambda: store.append_events("piped", [("message", {"content": "more"})]))
    # a session whose log cannot be read is kept in the list (Zero keeps a failed read)
    assert finishes(lambda: has_resumable_content(store, "piped")) is True


def test_a_directory_in_place_of_a_file_is_reported_too(store: SessionStore) -> None:
    store.events_path("piped").unlink()
    store.events_path("piped").mkdir()
    with pytest.raises(StoreError, match="is a directory, not a regular file"):
        store.read_events("piped")


def test_cli_never_blocks_on_a_fifo(
    store: SessionStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_fifo(store.events_path("piped"))
    root = str(store.root)
    assert finishes(lambda: main(["show", "piped", "--store", root])) == 1
    assert "is a FIFO" in capsys.readouterr().err
    out = str(tmp_path / "out.txt")
    assert finishes(lambda: main(["export", "piped", "-o", out, "--store", root])) == 1
    assert "is a FIFO" in capsys.readouterr().err
    make_fifo(store.metadata_path("piped"))
    assert finishes(lambda: main(["sessions", "--all", "--store", root])) == 0
    captured = capsys.readouterr()
    assert "healthy" in captured.out
    assert "piped" not in captured.out


def _read_the_old_way(path: str) -> tuple[bool, str | None, bytes | None]:
    """A stat, then a read: whether the file is regular, its stat key, its bytes."""
    info = regular_stat(path)
    if info is None:
        return False, None, None
    try:
        return True, stat_key(info), read_regular(path)
    except OSError:
        return True, stat_key(info), None


def _read_in_one_open(path: str) -> tuple[bool, str | None, bytes | None]:
    try:
        info, data = read_regular_stat(path)
    except NotRegularFileError:
        return False, None, None
    except OSError:
        seen = regular_stat(path)
        return seen is not None, None if seen is None else stat_key(seen), None
    return True, stat_key(info), data


def test_a_file_read_in_one_open_is_what_a_stat_and_a_read_find(tmp_path: Path) -> None:
    """A cold listing reads each metadata file with its stat from one open: the same
    answer as a stat then a read, for every kind of file, and never a wait on a FIFO."""
    regular = tmp_path / "regular"
    regular.write_bytes(b'{"sessionId":"a"}\n' * 5000)
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    directory = tmp_path / "directory"
    directory.mkdir()
    link = tmp_path / "link"
    link.symlink_to(regular)
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    for path in (regular, empty, fifo, directory, link, dangling, tmp_path / "missing"):
        found = finishes(partial(_read_in_one_open, str(path)))
        assert found == _read_the_old_way(str(path)), path


def test_a_file_that_grows_while_it_is_read_is_read_to_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "growing"
    path.write_bytes(b"x" * 10)
    real_read = os.read
    reads: list[int] = []

    def growing_read(fd: int, size: int) -> bytes:
        if not reads:
            with path.open("ab") as file:
                file.write(b"y" * 100_000)  # after the fstat, before the first read
        reads.append(size)
        return real_read(fd, size)

    monkeypatch.setattr(os, "read", growing_read)
    info, data = read_regular_stat(str(path))
    assert info.st_size == 10
    assert data == b"x" * 10 + b"y" * 100_000
    assert read_regular(path) == data


def recorded_reads(monkeypatch: pytest.MonkeyPatch, *, first_size: int | None = None) -> list[int]:
    """The sizes `os.read` is asked for from now on; with `first_size`, the first read gives
    at most that many bytes (a read cut short)."""
    real_read = os.read
    reads: list[int] = []

    def recording_read(fd: int, size: int) -> bytes:
        reads.append(size)
        cut = first_size if first_size is not None and len(reads) == 1 else size
        return real_read(fd, min(size, cut))

    monkeypatch.setattr(os, "read", recording_read)
    return reads


def test_a_read_cut_short_is_read_on_to_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A network or FUSE file system may give less than asked before the end."""
    path = tmp_path / "slow"
    path.write_bytes(b"z" * 5000)
    reads = recorded_reads(monkeypatch, first_size=1000)
    assert read_regular_stat(str(path))[1] == b"z" * 5000
    assert reads[0] == 5001


def test_a_file_as_its_stat_says_is_read_in_one_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold listing reads 10,000 metadata files and logs: no second read for the end."""
    path = tmp_path / "still"
    path.write_bytes(b"s" * 3000)
    reads = recorded_reads(monkeypatch)
    assert read_regular_stat(str(path))[1] == b"s" * 3000
    assert reads == [3001]
