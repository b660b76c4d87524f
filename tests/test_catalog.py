"""The listing catalog: a cache that is never the source of truth."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from zero_tui.search.catalog import SessionCatalog
from zero_tui.store import Metadata, SessionStore
from zero_tui.store.resumable import filter_resumable


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "sessions")


def make_session(store: SessionStore, session_id: str, *, answered: bool = True) -> None:
    store.create(session_id, title=f"title of {session_id}", cwd="/w")
    events: list[tuple[str, object]] = [("message", {"role": "user", "content": "hi"})]
    if answered:
        events.append(("message", {"role": "assistant", "content": "hello"}))
    store.append_events(session_id, events)


def ids(sessions: list[Metadata]) -> list[str]:
    return [meta.session_id for meta in sessions]


def test_refresh_equals_the_store_listing_and_survives_a_restart(
    store: SessionStore, tmp_path: Path
) -> None:
    for name in ("a", "b", "c"):
        make_session(store, name)
    catalog = SessionCatalog(store, tmp_path / "cache")
    assert catalog.refresh() == store.list()
    catalog.save()

    reopened = SessionCatalog(store, tmp_path / "cache")
    assert reopened.cached_sessions() == store.list()
    mode = stat.S_IMODE(reopened.path.stat().st_mode)
    assert mode == 0o600


def test_changes_in_the_store_win_over_the_cache(store: SessionStore, tmp_path: Path) -> None:
    make_session(store, "a")
    make_session(store, "b")
    catalog = SessionCatalog(store, tmp_path / "cache")
    catalog.refresh()
    catalog.save()

    store.update_title("a", "Renamed")
    store.append_events("b", [("message", {"role": "assistant", "content": "more"})])
    make_session(store, "c")

    reopened = SessionCatalog(store, tmp_path / "cache")
    listed = reopened.refresh()
    assert listed == store.list()
    assert {meta.session_id: meta.title for meta in listed}["a"] == "Renamed"
    assert next(meta for meta in listed if meta.session_id == "b").event_count == 3


def test_deleted_and_corrupted_sessions_leave_the_listing(
    store: SessionStore, tmp_path: Path
) -> None:
    make_session(store, "a")
    make_session(store, "b")
    catalog = SessionCatalog(store, tmp_path / "cache")
    catalog.refresh()
    store.metadata_path("a").write_text("{not json")
    store.metadata_path("b").unlink()
    assert catalog.refresh() == []


def test_content_verdicts_are_remembered_until_the_log_changes(
    store: SessionStore, tmp_path: Path
) -> None:
    make_session(store, "quiet", answered=False)
    catalog = SessionCatalog(store, tmp_path / "cache")
    listing = filter_resumable(
        store, "/w", sessions=catalog.refresh(), content_check=catalog.has_content
    )
    assert (ids(listing.sessions), listing.empty_runs) == ([], 1)
    catalog.save()

    store.append_events("quiet", [("message", {"role": "assistant", "content": "now"})])
    reopened = SessionCatalog(store, tmp_path / "cache")
    listing = filter_resumable(
        store, "/w", sessions=reopened.refresh(), content_check=reopened.has_content
    )
    assert ids(listing.sessions) == ["quiet"]


def test_a_corrupt_or_foreign_cache_is_ignored(store: SessionStore, tmp_path: Path) -> None:
    make_session(store, "a")
    catalog = SessionCatalog(store, tmp_path / "cache")
    catalog.path.parent.mkdir(parents=True)
    for garbage in (b"\x00garbage", b"[]", json.dumps({"version": 1, "root": "/other"}).encode()):
        catalog.path.write_bytes(garbage)
        fresh = SessionCatalog(store, tmp_path / "cache")
        assert fresh.cached_sessions() == []
        assert fresh.refresh() == store.list()


def test_an_unwritable_cache_dir_does_not_break_listing(
    store: SessionStore, tmp_path: Path
) -> None:
    make_session(store, "a")
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache dir should be")
    catalog = SessionCatalog(store, blocker)
    assert ids(catalog.refresh()) == ["a"]
    catalog.save()  # must not raise
    assert blocker.read_text() == "a file where the cache dir should be"
