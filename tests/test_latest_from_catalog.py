"""`latest` is the catalog's first row for the workspace, never staler than the files.

`show latest`, `export latest`, `check latest` and `--resume latest` ask the catalog (the
picker's list) rather than reading every metadata file; the catalog looks at each file
again (a stat) before its answer is used.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from zero_tui.cli import main
from zero_tui.search import metadata_cache
from zero_tui.search.catalog import SessionCatalog
from zero_tui.search.file_identity import RACY_NS
from zero_tui.store import SessionStore
from zero_tui.store import store as store_module
from zero_tui.store.resumable import filter_resumable, resolve_session

W = "/w"


def ticking_clock(start: datetime) -> Iterator[datetime]:
    moment = start
    while True:
        yield moment
        moment += timedelta(seconds=1)


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    ticks = ticking_clock(datetime(2026, 7, 4, 9, 0, 0, tzinfo=UTC))
    return SessionStore(tmp_path / "sessions", clock=lambda: next(ticks))


def add(store: SessionStore, session_id: str, *, cwd: str = W, answered: bool = True) -> None:
    store.create(session_id, title=f"title of {session_id}", cwd=cwd)
    events: list[tuple[str, object]] = [("message", {"role": "user", "content": "please"})]
    if answered:
        events.append(("message", {"role": "assistant", "content": f"answer in {session_id}"}))
    store.append_events(session_id, events)


@pytest.fixture
def metadata_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The session directories whose metadata.json is read from now on, by the store or
    the catalog."""
    reads: list[str] = []
    real_read = store_module.read_regular

    def counting_read(path: str | os.PathLike[str]) -> bytes:
        if os.path.basename(path) == "metadata.json":
            reads.append(os.path.basename(os.path.dirname(path)))
        return real_read(path)

    monkeypatch.setattr(store_module, "read_regular", counting_read)
    monkeypatch.setattr(metadata_cache, "read_regular", counting_read)
    return reads


def settle(monkeypatch: pytest.MonkeyPatch, store: SessionStore, cache: Path) -> None:
    """Let time pass until every file is old enough to be trusted on its stat alone, and
    have the catalog look at each once more (a racy entry is checked again)."""
    later = time.time_ns() + 10 * RACY_NS
    monkeypatch.setattr(time, "time_ns", lambda: later)
    with SessionCatalog(store, cache) as catalog:
        catalog.refresh()


def test_latest_from_a_warm_catalog_reads_no_metadata_file(
    store: SessionStore,
    tmp_path: Path,
    metadata_reads: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("a", "b", "c"):
        add(store, name)
    add(store, "elsewhere", cwd="/other")
    add(store, "empty", answered=False)
    settle(monkeypatch, store, tmp_path / "cache")
    metadata_reads.clear()
    with SessionCatalog(store, tmp_path / "cache") as catalog:
        session_id, meta = resolve_session(store, "latest", W, catalog)
    assert metadata_reads == []
    expected = filter_resumable(store, W).sessions[0]
    assert (session_id, meta) == (expected.session_id, expected) == ("c", store.get("c"))


def test_latest_from_the_catalog_is_checked_against_the_files(
    store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("a", "b", "c"):
        add(store, name)
    cache = tmp_path / "cache"
    with SessionCatalog(store, cache) as catalog:
        assert resolve_session(store, "latest", W, catalog)[0] == "c"
    settle(monkeypatch, store, cache)
    store.append_events("a", [("message", {"role": "assistant", "content": "later"})])
    with SessionCatalog(store, cache) as catalog:
        assert resolve_session(store, "latest", W, catalog)[0] == "a"  # updated since
    add(store, "d")
    with SessionCatalog(store, cache) as catalog:
        assert resolve_session(store, "latest", W, catalog)[0] == "d"  # new since
    log = store.events_path("d")
    log.write_bytes(log.read_bytes().splitlines(keepends=True)[0])  # no answer any more
    with SessionCatalog(store, cache) as catalog:
        assert resolve_session(store, "latest", W, catalog)[0] == "a"  # an empty run now


def test_show_latest_asks_the_catalog(
    store: SessionStore,
    private_cache_dir: Path,
    metadata_reads: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for number in range(20):
        add(store, f"s{number:02}")
    arguments = ["show", "latest", "--store", str(store.root), "--cwd", W]
    assert main(arguments) == 0
    settle(monkeypatch, store, private_cache_dir)
    capsys.readouterr()
    metadata_reads.clear()
    assert main(arguments) == 0
    assert "answer in s19" in capsys.readouterr().out
    assert set(metadata_reads) == {"s19"}  # only the session shown is read
