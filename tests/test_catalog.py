"""The index (catalog + text): a cache that is never the source of truth, and never stale."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from zero_tui.search import catalog as catalog_module
from zero_tui.search import content_index, database, file_identity, metadata_cache, verdicts
from zero_tui.search.catalog import SCHEMA_VERSION, SessionCatalog
from zero_tui.search.query import search
from zero_tui.store import Metadata, SessionStore
from zero_tui.store import store as store_module
from zero_tui.store.resumable import filter_resumable


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "sessions")


def make_session(
    store: SessionStore, session_id: str, *, answered: bool = True, answer: str = "hello"
) -> None:
    store.create(session_id, title=f"title of {session_id}", cwd="/w")
    events: list[tuple[str, object]] = [("message", {"role": "user", "content": "hi"})]
    if answered:
        events.append(("message", {"role": "assistant", "content": answer}))
    store.append_events(session_id, events)


def ids(sessions: list[Metadata]) -> list[str]:
    return [meta.session_id for meta in sessions]


def found(catalog: SessionCatalog, query: str) -> list[str]:
    """Session ids the text index finds for `query`, after bringing it up to date."""
    sessions = catalog.refresh()
    catalog.update_content()
    return sorted(hit.session.session_id for hit in search(catalog, query, sessions).hits)


_LIVE = "rowid >> 32 IN (SELECT text_key FROM sessions)"


def indexed_rows(catalog: SessionCatalog) -> int:
    """The rows of the word index a search can find (under a session's text key)."""
    with catalog.lock:
        row = catalog.connection.execute(f"SELECT count(*) FROM event_text WHERE {_LIVE}")
        return int(row.fetchone()[0])


def check_grams(catalog: SessionCatalog) -> None:
    """The substring index is whole (FTS5's integrity check raises otherwise)."""
    with catalog.lock:
        catalog.connection.execute(
            "INSERT INTO word_grams (word_grams, rank) VALUES ('integrity-check', 1)"
        )


# --- the catalog ---------------------------------------------------------------------------


def test_refresh_equals_the_store_listing_and_survives_a_restart(
    store: SessionStore, tmp_path: Path
) -> None:
    for name in ("a", "b", "c"):
        make_session(store, name)
    catalog = SessionCatalog(store, tmp_path / "cache")
    assert catalog.refresh() == store.list()
    catalog.close()

    reopened = SessionCatalog(store, tmp_path / "cache")
    assert reopened.cached_sessions() == store.list()
    assert reopened.persistent
    assert stat.S_IMODE(reopened.path.stat().st_mode) == 0o600
    with reopened.lock:
        info = dict(reopened.connection.execute("SELECT key, value FROM info").fetchall())
    assert info["schema_version"] == str(SCHEMA_VERSION)


def test_changes_in_the_store_win_over_the_cache(store: SessionStore, tmp_path: Path) -> None:
    make_session(store, "a")
    make_session(store, "b")
    catalog = SessionCatalog(store, tmp_path / "cache")
    catalog.refresh()
    catalog.close()

    store.update_title("a", "Renamed")
    store.append_events("b", [("message", {"role": "assistant", "content": "more"})])
    make_session(store, "c")

    reopened = SessionCatalog(store, tmp_path / "cache")
    listed = reopened.refresh()
    assert listed == store.list()
    assert {meta.session_id: meta.title for meta in listed}["a"] == "Renamed"
    assert next(meta for meta in listed if meta.session_id == "b").event_count == 3


def test_deleted_and_corrupted_sessions_leave_the_listing_and_the_index(
    store: SessionStore, tmp_path: Path
) -> None:
    make_session(store, "a", answer="zebra")
    make_session(store, "b", answer="zebra")
    catalog = SessionCatalog(store, tmp_path / "cache")
    assert found(catalog, "zebra") == ["a", "b"]
    check_grams(catalog)
    store.metadata_path("a").write_text("{not json")
    store.metadata_path("b").unlink()
    assert catalog.refresh() == []
    assert indexed_rows(catalog) == 0
    check_grams(catalog)
    assert found(catalog, "zebra") == []
    assert found(catalog, "ebr") == []


def test_content_verdicts_are_remembered_until_the_log_changes(
    store: SessionStore, tmp_path: Path
) -> None:
    make_session(store, "quiet", answered=False)
    catalog = SessionCatalog(store, tmp_path / "cache")
    listing = filter_resumable(
        store, "/w", sessions=catalog.refresh(), content_check=catalog.has_content
    )
    assert (ids(listing.sessions), listing.empty_runs) == ([], 1)
    catalog.close()

    store.append_events("quiet", [("message", {"role": "assistant", "content": "now"})])
    reopened = SessionCatalog(store, tmp_path / "cache")
    listing = filter_resumable(
        store, "/w", sessions=reopened.refresh(), content_check=reopened.has_content
    )
    assert ids(listing.sessions) == ["quiet"]


def test_many_verdicts_are_remembered_whether_asked_one_by_one_or_all_at_once(
    store: SessionStore, tmp_path: Path
) -> None:
    """The first sessions asked of are looked up one by one, the rest read at once: both
    give what the logs say, and both notice a log that changed."""
    count = verdicts.VERDICTS_ONE_BY_ONE + 40
    for number in range(count):
        make_session(store, f"s{number:03d}", answered=number % 3 != 0)
    with SessionCatalog(store, tmp_path / "cache") as catalog:
        catalog.refresh()
        expected = {f"s{n:03d}": n % 3 != 0 for n in range(count)}
        assert {name: catalog.has_content(name) for name in expected} == expected
    for number in (0, count - 1):  # one asked of early, one late
        store.append_events(
            f"s{number:03d}", [("message", {"role": "assistant", "content": "at last"})]
        )
        expected[f"s{number:03d}"] = True
    with SessionCatalog(store, tmp_path / "cache") as catalog:
        catalog.refresh()
        assert {name: catalog.has_content(name) for name in expected} == expected


def test_a_text_search_looks_again_only_at_what_it_orders_or_loads(
    store: SessionStore, tmp_path: Path
) -> None:
    """`revalidate` catalogues new sessions and drops gone ones without reading the
    others; `sessions_with_keys` sees each session as its file is now."""
    for name in ("a", "b", "c", "d"):
        make_session(store, name)
    with SessionCatalog(store, tmp_path / "cache") as catalog:
        catalog.refresh()
    make_session(store, "e")  # new
    shutil.rmtree(Path(store.root) / "b")  # gone
    store.update_title("a", "a, renamed")  # changed (a rename keeps updatedAt, as in Zero)
    store.append_events("a", [("message", {"role": "user", "content": "more"})])  # now last
    (Path(store.root) / "c" / "metadata.json").write_text("{ not json")  # unreadable
    with SessionCatalog(store, tmp_path / "cache") as catalog:
        catalog.revalidate()
        keys = catalog.session_keys()
        assert sorted(keys) == ["a", "c", "d", "e"]  # c is only looked at when asked for
        in_order = ids(store.list())  # Zero's: a, renamed last, first; c unreadable
        loaded = catalog.sessions_with_keys(keys.values())
        assert ids(loaded) == in_order
        assert loaded[0].title == "a, renamed"
        assert sorted(catalog.session_keys()) == ["a", "d", "e"]
        assert ids(catalog.refresh()) == ids(store.list())


def test_the_sessions_a_listing_may_leave_out_are_read_through_their_own_index(
    store: SessionStore, tmp_path: Path
) -> None:
    """A search sorts its matches out from the few rows a listing may leave out: a partial
    index keeps exactly those (as a scan of every row finds them), whatever changes."""
    make_session(store, "answered")
    make_session(store, "unanswered", answered=False)
    store.create("no-events", title="empty", cwd="/w")
    store.create("subagent", title="other kind", cwd="/w", session_kind="subagent")
    store.append_events("subagent", [("message", {"role": "user", "content": "hi"})])
    scan = metadata_cache._EXCEPTIONS.replace("FROM sessions", "FROM sessions NOT INDEXED")

    def left_out(catalog: SessionCatalog) -> list[str]:
        exceptions, ill_typed = catalog.metadata.listing_exceptions()
        assert not ill_typed
        with catalog.lock:
            plan = catalog.connection.execute(f"EXPLAIN QUERY PLAN {metadata_cache._EXCEPTIONS}")
            assert "sessions_listing_exceptions" in str(plan.fetchall())
            scanned = catalog.connection.execute(scan).fetchall()
        assert sorted(row[0] for row in scanned) == sorted(exceptions)
        return sorted(row.session_id for row in exceptions.values())

    with SessionCatalog(store, tmp_path / "cache") as catalog:
        everyone = ids(catalog.refresh())
        catalog.update_content()
        assert left_out(catalog) == sorted(everyone)  # no verdict yet
        catalog.find_verdicts(everyone)
        catalog.save()
        assert left_out(catalog) == ["no-events", "subagent", "unanswered"]
        store.append_events("unanswered", [("message", {"role": "assistant", "content": "hi"})])
        catalog.refresh()
        catalog.update_content()
        catalog.find_verdicts(["unanswered"])
        catalog.save()
        assert left_out(catalog) == ["no-events", "subagent"]


# --- a damaged, foreign, read-only or locked database ------------------------------------


@pytest.mark.parametrize(
    "damage",
    [
        "garbage",
        "truncated",
        "other-version",
        "other-root",
        "empty-file",
        "wrong-types",
    ],
)
def test_a_damaged_or_foreign_database_is_rebuilt(
    store: SessionStore, tmp_path: Path, damage: str
) -> None:
    make_session(store, "a", answer="walrus")
    catalog = SessionCatalog(store, tmp_path / "cache")
    assert found(catalog, "walrus") == ["a"]
    catalog.close()
    path = catalog.path
    if damage == "garbage":
        path.write_bytes(b"\x00garbage" * 100)
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[:1500])
    elif damage == "empty-file":
        path.write_bytes(b"")
    else:
        connection = sqlite3.connect(path)
        if damage == "other-version":
            connection.execute("UPDATE info SET value = '0' WHERE key = 'schema_version'")
        elif damage == "other-root":
            connection.execute("UPDATE info SET value = '/elsewhere' WHERE key = 'root'")
        else:
            connection.execute("UPDATE sessions SET updated_at = 5, event_count = 'abc'")
        connection.commit()
        connection.close()
    fresh = SessionCatalog(store, tmp_path / "cache")
    fresh.cached_sessions()  # never raises on its own content
    assert fresh.refresh() == store.list()
    assert found(fresh, "walrus") == ["a"]
    assert fresh.persistent


@pytest.mark.parametrize("first_use", ["refresh", "query"])
def test_damage_found_in_use_rebuilds_the_database(
    store: SessionStore, tmp_path: Path, first_use: str
) -> None:
    """Opening checks no pages (that would cost a read of the whole file at every start):
    pages damaged past the schema are found when used, and the file is rebuilt."""
    for number in range(40):
        make_session(store, f"s{number:02}", answer=f"walrus number{number} " + "pad " * 200)
    catalog = SessionCatalog(store, tmp_path / "cache")
    assert len(found(catalog, "walrus")) == 40
    scope = catalog.refresh()
    catalog.close()
    with contextlib.closing(sqlite3.connect(catalog.path)) as probe:
        roots = dict(probe.execute("SELECT name, rootpage FROM sqlite_master"))
    data = catalog.path.read_bytes()
    page = int.from_bytes(data[16:18], "big")
    # a refresh reads the sessions table (its pages come first, damaged on to the end); a
    # query the root pages of the text index
    if first_use == "refresh":
        start, end = (roots["sessions"] - 1) * page, len(data)
    else:
        start, end = (roots["event_text_data"] - 1) * page, roots["event_text_docsize"] * page
    catalog.path.write_bytes(data[:start] + b"\xa5" * (end - start) + data[end:])
    fresh = SessionCatalog(store, tmp_path / "cache")
    if first_use == "query":
        result = search(fresh, "walrus", scope)
        assert result.hits == []
        assert any("search index unavailable" in notice for notice in result.notices)
    assert fresh.refresh() == store.list()
    assert len(found(fresh, "walrus")) == 40
    assert found(fresh, "number7") == ["s07"]
    assert fresh.persistent
    with sqlite3.connect(fresh.path) as check:
        assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_a_read_only_database_is_bypassed_and_left_alone(
    store: SessionStore, tmp_path: Path
) -> None:
    make_session(store, "a", answer="otter")
    catalog = SessionCatalog(store, tmp_path / "cache")
    catalog.refresh()
    catalog.close()
    before = catalog.path.read_bytes()
    catalog.path.chmod(0o400)
    (tmp_path / "cache").chmod(0o500)
    try:
        make_session(store, "b", answer="otter")
        fresh = SessionCatalog(store, tmp_path / "cache")
        assert fresh.refresh() == store.list()
        assert found(fresh, "otter") == ["a", "b"]
        if os.geteuid() != 0:  # root writes anyway; then only the answers matter
            assert not fresh.persistent
            assert catalog.path.read_bytes() == before
    finally:
        (tmp_path / "cache").chmod(0o700)
        catalog.path.chmod(0o600)


def test_an_unwritable_cache_dir_does_not_break_listing(
    store: SessionStore, tmp_path: Path
) -> None:
    make_session(store, "a", answer="heron")
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache dir should be")
    catalog = SessionCatalog(store, blocker)
    assert ids(catalog.refresh()) == ["a"]
    assert found(catalog, "heron") == ["a"]
    assert not catalog.persistent
    assert blocker.read_text() == "a file where the cache dir should be"


def test_a_database_locked_by_another_process_is_waited_for_then_skipped(
    store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_session(store, "a", answer="badger")
    catalog = SessionCatalog(store, tmp_path / "cache")
    catalog.refresh()
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 50)
    holder = sqlite3.connect(catalog.path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        other = SessionCatalog(store, tmp_path / "cache")
        other.connection.execute("PRAGMA busy_timeout = 50")
        assert ids(other.refresh()) == ["a"]  # the listing never waits on the cache
        report = other.update_content()
        assert not report.complete
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert found(catalog, "badger") == ["a"]


# --- never stale (issue 9, fault 8) --------------------------------------------------------


@pytest.fixture
def coarse_timestamps(monkeypatch: pytest.MonkeyPatch) -> None:
    """A filesystem with 1-second timestamps where every rename reuses the inode."""

    def stat_key(info: os.stat_result) -> str:
        return f"7:{info.st_size}:{int(info.st_mtime)}:{int(info.st_ctime)}"

    def changed_ns(info: os.stat_result) -> int:
        return int(max(info.st_mtime, info.st_ctime)) * 1_000_000_000

    monkeypatch.setattr(file_identity, "stat_key", stat_key)
    monkeypatch.setattr(file_identity, "changed_ns", changed_ns)


@pytest.mark.usefixtures("coarse_timestamps")
def test_a_same_size_rewrite_within_the_second_is_seen(store: SessionStore, tmp_path: Path) -> None:
    make_session(store, "a")
    catalog = SessionCatalog(store, tmp_path / "cache")
    for round_number in range(20):
        store.append_events("a", [("message", {"role": "assistant", "content": "x"})])
        assert catalog.refresh() == store.list(), round_number
        title = "first title" if round_number % 2 else "other title"  # the same length
        store.update_title("a", title)
        listed = catalog.refresh()
        assert listed == store.list(), round_number
        assert listed[0].title == title


def test_an_old_entry_is_trusted_on_its_stat_alone(
    store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_session(store, "a")
    catalog = SessionCatalog(store, tmp_path / "cache")
    catalog.refresh()
    reads: list[str] = []
    real_read = store_module.read_regular

    def counting_read(path: str | os.PathLike[str]) -> bytes:
        reads.append(os.fspath(path))
        return real_read(path)

    monkeypatch.setattr(metadata_cache, "read_regular", counting_read)
    catalog.refresh()
    assert reads  # just written: racy, so read again
    later = time.time_ns() + 10 * catalog_module.RACY_NS
    monkeypatch.setattr(time, "time_ns", lambda: later)
    catalog.refresh()  # checked long after the change: settled
    reads.clear()
    catalog.refresh()
    assert reads == []


# --- the text index ------------------------------------------------------------------------


def test_appends_are_indexed_from_where_the_index_stopped(
    store: SessionStore, tmp_path: Path
) -> None:
    make_session(store, "a", answer="first answer about pelicans")
    catalog = SessionCatalog(store, tmp_path / "cache")
    assert found(catalog, "pelicans") == ["a"]
    rows = indexed_rows(catalog)
    store.append_events(
        "a",
        [
            ("message", {"role": "user", "content": "and flamingos?"}),
            ("tool_call", {"id": "c1", "name": "grep", "arguments": '{"pattern":"cormorant"}'}),
            ("tool_result", {"toolCallId": "c1", "name": "grep", "output": "ibis.txt: 3"}),
            ("provider_usage", {"promptTokens": 1}),
            ("error", {"message": "provider error: quota for albatross"}),
        ],
    )
    catalog.refresh()
    report = catalog.update_content()
    assert (report.indexed, report.events) == (1, 4)
    assert indexed_rows(catalog) == rows + 4
    for word in ("pelicans", "flamingos", "cormorant", "ibis", "albatross"):
        assert found(catalog, word) == ["a"], word
    assert catalog.update_content().indexed == 0


def test_a_torn_tail_is_indexed_once_it_is_complete(store: SessionStore, tmp_path: Path) -> None:
    make_session(store, "a")
    catalog = SessionCatalog(store, tmp_path / "cache")
    catalog.refresh()
    catalog.update_content()
    line = (
        b'{"id":"a:3","sessionId":"a","sequence":3,"type":"message","createdAt":'
        b'"2026-07-04T10:00:00Z","payload":{"content":"magpie","role":"assistant"}}'
    )
    with store.events_path("a").open("ab") as log:
        log.write(line[:40])
    assert found(catalog, "magpie") == []
    with store.events_path("a").open("ab") as log:
        log.write(line[40:] + b"\n")
    assert found(catalog, "magpie") == ["a"]


def test_a_title_change_is_seen_by_the_title_filter(store: SessionStore, tmp_path: Path) -> None:
    make_session(store, "a")
    catalog = SessionCatalog(store, tmp_path / "cache")
    assert found(catalog, "title:renamed") == []
    store.update_title("a", "Renamed session")
    assert found(catalog, "title:renamed") == ["a"]


def test_a_rewound_log_drops_what_it_no_longer_holds(store: SessionStore, tmp_path: Path) -> None:
    make_session(store, "a", answer="kept words")
    store.append_events("a", [("message", {"role": "assistant", "content": "rewound words"})])
    catalog = SessionCatalog(store, tmp_path / "cache")
    assert found(catalog, "rewound") == ["a"]
    log = store.events_path("a")
    lines = log.read_bytes().splitlines(keepends=True)
    temp = log.with_name("events.tmp")
    temp.write_bytes(b"".join(lines[:2]))
    os.replace(temp, log)  # shorter, as a rewind leaves it
    assert found(catalog, "rewound") == []
    assert found(catalog, "ewoun") == []  # the substring index let go of it too
    assert found(catalog, "kept") == ["a"]
    assert found(catalog, "ept") == ["a"]
    check_grams(catalog)


def test_an_index_mostly_of_rows_no_session_finds_is_emptied_and_built_again(
    store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(database, "ORPHANS_FLOOR", 1)
    monkeypatch.setattr(content_index, "FULL_CHECK_SECONDS", -1.0)  # every update is full
    for name in "abc":
        make_session(store, name, answer=f"first {name}")
        more = [("message", {"role": "assistant", "content": f"later {name}"})] * 3
        store.append_events(name, more)
    catalog = SessionCatalog(store, tmp_path / "cache")
    assert found(catalog, "later") == ["a", "b", "c"]
    for name in "ab":  # rewound to their first two events: three rows each left behind
        log = store.events_path(name)
        temp = log.with_name("events.tmp")
        temp.write_bytes(b"".join(log.read_bytes().splitlines(keepends=True)[:2]))
        os.replace(temp, log)
    store.metadata_path("c").unlink()  # five rows left behind
    assert found(catalog, "later") == []  # 15 rows no session finds (logs indexed anew), 4 live
    assert found(catalog, "first") == ["a", "b"]  # this full update emptied and rebuilt it
    with catalog.lock:
        every_row = catalog.connection.execute("SELECT count(*) FROM event_text").fetchone()[0]
        left = catalog.connection.execute(
            "SELECT count(*) FROM info WHERE key = 'orphan_events'"
        ).fetchone()[0]
    assert every_row == indexed_rows(catalog) == 4
    assert left == 0
    assert found(catalog, "irs") == ["a", "b"]  # the substring index, rebuilt too
    assert found(catalog, "ater") == []
    check_grams(catalog)


def test_a_log_rewritten_in_place_to_the_same_size_is_indexed_again(
    store: SessionStore, tmp_path: Path
) -> None:
    make_session(store, "a", answer="answer one")
    catalog = SessionCatalog(store, tmp_path / "cache")
    assert found(catalog, "one") == ["a"]
    log = store.events_path("a")
    data = log.read_bytes()
    with log.open("r+b") as handle:  # same inode, same size
        handle.write(data.replace(b"answer one", b"answer two"))
    assert found(catalog, "one") == []
    assert found(catalog, "two") == ["a"]


def test_a_replaced_longer_log_is_indexed_again(store: SessionStore, tmp_path: Path) -> None:
    make_session(store, "a", answer="original")
    catalog = SessionCatalog(store, tmp_path / "cache")
    assert found(catalog, "original") == ["a"]
    other = SessionStore(tmp_path / "elsewhere")
    other.create("a")
    other.append_events(
        "a",
        [
            ("message", {"role": "user", "content": "replacement question, and a long one"}),
            ("message", {"role": "assistant", "content": "replacement answer " * 10}),
        ],
    )
    os.replace(other.events_path("a"), store.events_path("a"))
    assert found(catalog, "original") == []
    assert found(catalog, "replacement") == ["a"]
    assert indexed_rows(catalog) == 2


def test_a_compacted_event_is_found_flagged_and_opens_at_the_summary(
    store: SessionStore, tmp_path: Path
) -> None:
    make_session(store, "a", answer="the quokka answer")
    store.append_events(
        "a",
        [
            (
                "session_compaction",
                {"summary": "We discussed an animal.", "compactedThroughSequence": 2},
            ),
            ("message", {"role": "assistant", "content": "after the quokka summary"}),
        ],
    )
    catalog = SessionCatalog(store, tmp_path / "cache")
    sessions = catalog.refresh()
    catalog.update_content()
    (hit,) = search(catalog, "quokka answer", sessions).hits
    assert (hit.sequence, hit.role, hit.compacted, hit.open_sequence) == (2, "assistant", True, 3)
    (hit,) = search(catalog, "quokka summary", sessions).hits
    assert (hit.sequence, hit.compacted, hit.open_sequence) == (4, False, 4)
    (hit,) = search(catalog, "animal", sessions).hits
    assert (hit.sequence, hit.role, hit.compacted) == (3, "summary", False)


_INDEXER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from zero_tui.search.catalog import SessionCatalog
    from zero_tui.store import SessionStore
    for _ in range(3):
        catalog = SessionCatalog(SessionStore(sys.argv[1]), Path(sys.argv[2]))
        catalog.refresh()
        catalog.update_content()
        catalog.close()
    """
)


def test_two_processes_indexing_at_once_never_duplicate(
    store: SessionStore, tmp_path: Path
) -> None:
    for number in range(30):
        make_session(store, f"s{number}", answer=f"shared word and unique{number}")
    cache = tmp_path / "cache"
    command = [sys.executable, "-c", _INDEXER, str(store.root), str(cache)]
    processes = [subprocess.Popen(command) for _ in range(2)]
    for number in range(30, 40):  # and the store changes meanwhile
        make_session(store, f"s{number}", answer=f"shared word and unique{number}")
    assert [process.wait(timeout=120) for process in processes] == [0, 0]
    catalog = SessionCatalog(store, cache)
    assert catalog.persistent
    assert len(found(catalog, "shared")) == 40
    assert indexed_rows(catalog) == 80  # a question and an answer each, once
    assert found(catalog, "unique7") == ["s7"]


def test_between_full_checks_only_logs_with_changed_metadata_are_looked_at(
    store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_session(store, "a", answer="answer one")
    make_session(store, "b", answer="answer bee")
    catalog = SessionCatalog(store, tmp_path / "cache")
    assert found(catalog, "one") == ["a"]
    later = time.time_ns() + 10 * catalog_module.RACY_NS
    monkeypatch.setattr(time, "time_ns", lambda: later)  # everything has settled
    monkeypatch.setattr(content_index, "FULL_CHECK_SECONDS", 0.0)
    assert found(catalog, "one") == ["a"]  # a full pass, now trusted
    monkeypatch.setattr(content_index, "FULL_CHECK_SECONDS", 3600.0)
    log = store.events_path("a")
    log.write_bytes(log.read_bytes().replace(b"answer one", b"answer two"))  # log only
    assert found(catalog, "two") == []  # not looked at until the next full check
    store.append_events("b", [("message", {"role": "assistant", "content": "wren"})])
    assert found(catalog, "wren") == ["b"]  # its metadata changed: looked at at once
    monkeypatch.setattr(content_index, "FULL_CHECK_SECONDS", 0.0)
    assert found(catalog, "two") == ["a"]
    assert SessionCatalog(store, tmp_path / "cache").update_content().indexed == 0


def test_refresh_tells_how_far_it_has_read(store: SessionStore, tmp_path: Path) -> None:
    for number in range(metadata_cache.PROGRESS_EVERY + 5):
        store.create(f"s{number:04}", title="t", cwd="/w")
    told: list[tuple[int, int]] = []
    catalog = SessionCatalog(store, tmp_path / "cache")
    sessions = catalog.refresh(progress=lambda done, total: told.append((done, total)))
    total = metadata_cache.PROGRESS_EVERY + 5
    assert len(sessions) == total
    assert told == [(0, total), (metadata_cache.PROGRESS_EVERY, total), (total, total)]


def test_without_trigrams_words_are_still_found_and_the_index_is_rebuilt_once_they_come(
    store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An sqlite older than 3.34 has no trigram tokenizer: words are found as words, and
    the first run on an sqlite that has it rebuilds the index with substrings."""
    from zero_tui.search import query as query_module

    make_session(store, "a", answer="the paxadornment")
    for module in (database, content_index, query_module):
        monkeypatch.setattr(module, "trigrams_supported", lambda: False)
    catalog = SessionCatalog(store, tmp_path / "cache")
    assert found(catalog, "paxadorn") == ["a"]
    assert found(catalog, "xadorn") == []
    catalog.close()
    with contextlib.closing(sqlite3.connect(catalog.path)) as check:
        tables = {row[0] for row in check.execute("SELECT name FROM sqlite_master")}
        version = check.execute("SELECT value FROM info WHERE key = 'schema_version'").fetchone()
    assert "word_grams" not in tables
    assert version == (f"{SCHEMA_VERSION}-words",)
    monkeypatch.undo()
    catalog = SessionCatalog(store, tmp_path / "cache")
    assert found(catalog, "xadorn") == ["a"]
    assert catalog.persistent


def test_a_text_search_lists_the_root_again_only_once_it_changed(
    store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`revalidate` remembers the root's stat at a listing: while it is unchanged (no
    session added, removed or renamed), only the directories it could not catalogue then
    (a session being created) are looked at again."""
    make_session(store, "a")
    make_session(store, "b")
    make_session(store, "half")
    metadata = store.metadata_path("half")
    metadata.rename(metadata.with_name("metadata.tmp"))  # as if not written yet
    listings: list[int] = []
    real_listing = SessionStore.iter_session_dirs

    def counted_listing(self: SessionStore) -> Iterator[str]:
        listings.append(1)
        return real_listing(self)

    monkeypatch.setattr(SessionStore, "iter_session_dirs", counted_listing)
    catalog = SessionCatalog(store, tmp_path / "cache")
    catalog.revalidate()  # the root changed just now: listed, not trusted yet
    later = time.time_ns() + 10 * catalog_module.RACY_NS
    monkeypatch.setattr(time, "time_ns", lambda: later)  # everything has settled
    catalog.revalidate()
    assert len(listings) == 2
    assert sorted(catalog.session_keys()) == ["a", "b"]
    metadata.with_name("metadata.tmp").rename(metadata)  # written now: the root is as it was
    catalog.revalidate()
    assert len(listings) == 2
    assert sorted(catalog.session_keys()) == ["a", "b", "half"]
    make_session(store, "c")
    shutil.rmtree(Path(store.root) / "b")
    catalog.revalidate()
    assert len(listings) == 3
    assert sorted(catalog.session_keys()) == ["a", "c", "half"]
    fresh = SessionCatalog(store, tmp_path / "cache")  # another process trusts it too
    fresh.revalidate()
    assert len(listings) == 3
    assert sorted(fresh.session_keys()) == ["a", "c", "half"]


def test_a_value_sqlite_cannot_hold_skips_only_its_session(
    store: SessionStore, tmp_path: Path
) -> None:
    """The metadata are written in one go; a value sqlite cannot store (a lone surrogate)
    costs only its own row, which is read again next time."""
    from zero_tui.store import Metadata

    catalog = SessionCatalog(store, tmp_path / "cache")
    good = Metadata(session_id="good", title="fine", updated_at="2026-07-04T10:00:00Z")
    bad = Metadata(session_id="bad", title="lone \udc80", updated_at="2026-07-04T10:00:00Z")
    verdict = metadata_cache.LogVerdict(resumable=True, log_stat="5:6:7:8", checked_ns=9)
    written = [
        metadata_cache.Remembered(bad, "1:2:3:4", b"digest", 5, verdict),
        metadata_cache.Remembered(good, "1:2:3:4", b"digest", 5, verdict),  # its log's verdict
    ]
    keys = catalog.metadata._remember(metadata_cache._Found(remembered=written))
    assert keys is not None
    assert sorted(keys) == ["good"]
    assert catalog.session_keys() == keys
    with catalog.lock:
        remembered = catalog.connection.execute(
            "SELECT verdict, verdict_stat, verdict_checked_ns FROM sessions"
        ).fetchall()
    assert remembered == [(1, "5:6:7:8", 9)]


def test_two_queries_side_by_side_run_on_two_connections_and_say_their_errors(
    store: SessionStore, tmp_path: Path
) -> None:
    """A search's word and substring queries run at once, each on its own connection (sqlite
    lets go of the GIL); a failure in either is raised once both are done; a database in
    memory runs them one after the other."""
    catalog = SessionCatalog(store, tmp_path / "cache")
    seen: list[tuple[int, str]] = []
    threads_before = threading.active_count()

    def asking(connection: sqlite3.Connection) -> int:
        seen.append((id(connection), threading.current_thread().name))
        return int(connection.execute("SELECT count(*) FROM sessions").fetchone()[0])

    assert catalog.database.side_by_side(asking, asking) == (0, 0)
    assert len({connection for connection, _ in seen}) == 2
    assert len({thread for _, thread in seen}) == 2

    def failing(connection: sqlite3.Connection) -> int:
        raise sqlite3.OperationalError("no such table: nowhere")

    with pytest.raises(sqlite3.OperationalError, match="nowhere"):
        catalog.database.side_by_side(asking, failing)
    assert threading.active_count() == threads_before  # joined: forking still pays
    catalog.database.use_private_index()  # in memory
    seen.clear()
    assert catalog.database.side_by_side(asking, asking) == (0, 0)
    assert len({connection for connection, _ in seen}) == 1
    catalog.close()


def test_the_integer_columns_named_by_hand_are_metadatas_and_goals_integer_fields() -> None:
    from zero_tui.store import Goal, Metadata

    def integers(record: type) -> frozenset[str]:
        return frozenset(field.name for field in dataclasses.fields(record) if field.type == "int")

    assert integers(Metadata) == metadata_cache._INT_COLUMNS
    assert integers(Goal) == metadata_cache._GOAL_INT_FIELDS


def test_the_index_keeps_no_copy_of_the_text_and_snippets_come_from_the_log(
    store: SessionStore, tmp_path: Path
) -> None:
    """The logs are the source of truth: the index holds no text, and a hit's event is read
    again from its log."""
    make_session(store, "a", answer="the heron waits by the water")
    catalog = SessionCatalog(store, tmp_path / "cache")
    catalog.refresh()
    catalog.update_content()
    with catalog.lock:
        kept = catalog.connection.execute("SELECT body FROM event_text").fetchall()
    assert kept
    assert all(body is None for (body,) in kept)
    (hit,) = search(catalog, "heron", catalog.refresh()).hits
    assert (hit.role, hit.sequence) == ("assistant", 2)
    assert hit.snippet.text == "the heron waits by the water"


def test_a_cold_build_commits_many_sessions_at_once_and_a_query_sees_it_go_on(
    store: SessionStore, tmp_path: Path
) -> None:
    """A commit per session made the cold build slow; a query on another connection still
    finds what the build has reported as done."""
    for number in range(150):
        make_session(store, f"s{number:03}", answer=f"shared words of number{number}")
    catalog = SessionCatalog(store, tmp_path / "cache")
    catalog.refresh()
    commits: list[str] = []
    catalog.connection.set_trace_callback(
        lambda sql: commits.append(sql) if sql.strip().upper() == "COMMIT" else None
    )
    seen: dict[int, int] = {}
    reader = SessionCatalog(store, tmp_path / "cache")
    scope = reader.refresh()

    def progress(done: int, total: int) -> None:
        if 0 < done < total:
            seen[done] = len(search(reader, "shared", scope, limit=500).hits)

    catalog.update_content(progress=progress)
    assert len(commits) <= 5
    assert seen
    assert all(found >= done for done, found in seen.items())
    assert len(search(reader, "shared", scope, limit=500).hits) == 150


def test_an_event_whose_line_moved_since_it_was_indexed_is_a_hit_without_a_snippet(
    store: SessionStore, tmp_path: Path
) -> None:
    make_session(store, "a", answer="a grebe dives")
    catalog = SessionCatalog(store, tmp_path / "cache")
    scope = catalog.refresh()
    catalog.update_content()
    log = store.events_path("a")
    log.write_bytes(b"\n" * 7 + log.read_bytes())  # the index not told: lines moved on
    (hit,) = search(catalog, "grebe", scope).hits
    assert hit.session.session_id == "a"
    assert hit.sequence in (None, 2)
