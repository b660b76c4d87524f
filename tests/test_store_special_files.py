"""FIFOs and other non-regular files in the store never block (issue 9, fault 3).

A FIFO opened for reading blocks until a writer comes, forever; a thread stuck there cannot
be stopped, so the picker could not even quit. Every store read opens without blocking and
refuses what is not a regular file, with the reason.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from zero_tui.cli import main
from zero_tui.store import SessionStore, StoreError
from zero_tui.store.resumable import filter_resumable, has_resumable_content
from zero_tui.transcript.log_index import LogIndex

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")

T = TypeVar("T")
HANG_GUARD_SECONDS = 60  # not a timing assertion: only keeps a regression from hanging


def finishes(call: Callable[[], T]) -> T:
    """Run `call` in a daemon thread; fail (instead of hanging the suite) if it blocks."""
    values: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            values.append(call())
        except BaseException as error:  # re-raised in the test's thread
            errors.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(HANG_GUARD_SECONDS)
    assert not thread.is_alive(), "blocked on a FIFO"
    if errors:
        raise errors[0]
    return values[0]


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
