"""A cold catalog: every session read in this process, written in one transaction before
the caller goes on, and the same answers as the store; the logs compared with the index in
a thread while a search asks it."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from benchmarks.store_bench import generate_store
from zero_tui.cli import main
from zero_tui.paths import CACHE_DIR_VARIABLE
from zero_tui.search.catalog import SessionCatalog
from zero_tui.search.database import catalog_path
from zero_tui.search.query import matching_sessions, parse_query
from zero_tui.store import SessionStore, StoreError
from zero_tui.store.resumable import filter_resumable, has_resumable_content
from zero_tui.store.token_counts import logged_tokens


def _cold_store(tmp_path: Path, count: int = 12) -> SessionStore:
    store = SessionStore(tmp_path / "sessions")
    for number in range(count):
        session_id = f"s{number:02d}"
        store.create(session_id, title=f"session {number}", cwd="/w")
        store.append_events(
            session_id,
            [
                ("message", {"role": "user", "content": "hi"}),
                ("message", {"role": "assistant", "content": "hello"}),
                ("provider_usage", {"promptTokens": number, "completionTokens": 1}),
            ],
        )
    return store


@pytest.mark.parametrize("with_tokens", [False, True])
def test_a_cold_catalog_lists_and_filters_as_the_store(tmp_path: Path, with_tokens: bool) -> None:
    """With the tokens too, each log is read once for both: the same verdicts, and the
    figures `logged_tokens` finds in it."""
    store = SessionStore(tmp_path / "sessions")
    for number in range(40):
        session_id = f"s{number:02d}"
        store.create(session_id, title=f"session {number}", cwd=f"/w/{number % 3}")
        events: list[tuple[str, object]] = [("message", {"role": "user", "content": "hi"})]
        if number % 4:
            events.append(("message", {"role": "assistant", "content": "hello"}))
        if number % 5:
            events.append(("provider_usage", {"promptTokens": number, "completionTokens": 2}))
        store.append_events(session_id, events)
    (store.root / "s07" / "metadata.json").write_text("{ not json")
    with (store.root / "s11" / "events.jsonl").open("ab") as log:
        log.write(b'{"type":"provider_usage","payload":{"promptTokens":"many"}}\n')
    with SessionCatalog(store, tmp_path / "cache") as catalog:
        sessions = catalog.refresh(with_verdicts=True, with_tokens=with_tokens)
        tokens = catalog.metadata.take_tokens_read()
        assert catalog.metadata.take_tokens_read() == {}  # given once
        counted = {}
        for sid in (meta.session_id for meta in sessions):
            with contextlib.suppress(StoreError):
                counted[sid] = logged_tokens(store.read_log_bytes(sid), sid).figures()
        assert "s11" not in counted
        assert {sid: read.figures for sid, read in tokens.items()} == (
            counted if with_tokens else {}
        )
        assert sessions == store.list()
        assert [item.session_id for item in catalog.unreadable] == ["s07"]
        ids = [meta.session_id for meta in sessions]
        expected = {sid: has_resumable_content(store, sid) for sid in ids}
        with catalog.lock:  # found with the metadata, written with them
            remembered = catalog.connection.execute(
                "SELECT session_id, verdict FROM sessions WHERE verdict IS NOT NULL"
            ).fetchall()
        assert {sid: bool(verdict) for sid, verdict in remembered} == expected
        assert catalog.find_verdicts(ids) == expected
        assert {sid: catalog.has_content(sid) for sid in ids} == expected
        listing = filter_resumable(
            store, "/w/1", sessions=sessions, content_check=catalog.has_content
        )
        assert listing == filter_resumable(store, "/w/1")


def test_a_cold_listing_forks_nothing_and_has_written_every_row_when_it_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No process is forked (SQLite's rule: no connection crosses a fork), even where one
    once was (Linux, two CPUs, one thread, over a thousand sessions); the rows, verdicts and
    tokens are in the database, committed, when the command returns."""
    root = tmp_path / "sessions"
    generate_store(root, 1100, 3, 2)
    store = SessionStore(root)
    cache = tmp_path / "cache"
    monkeypatch.setenv(CACHE_DIR_VARIABLE, str(cache))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    monkeypatch.setattr(os, "fork", lambda: pytest.fail("a process was forked"))
    assert main(["sessions", "--all", "--json", "--store", str(root)]) == 0
    listed = {item["sessionId"] for item in json.loads(capsys.readouterr().out)}
    with contextlib.closing(sqlite3.connect(catalog_path(root, cache))) as database:
        rows = {sid for (sid,) in database.execute("SELECT session_id FROM sessions")}
        judged = {
            sid
            for (sid,) in database.execute(
                "SELECT session_id FROM sessions WHERE verdict IS NOT NULL"
            )
        }
        counted = {sid for (sid,) in database.execute("SELECT session_id FROM session_tokens")}
    assert rows == {meta.session_id for meta in store.list()}
    assert listed <= judged
    assert listed <= counted
    with SessionCatalog(store, cache) as catalog:  # warm: nothing read again
        assert len(catalog.refresh(with_verdicts=True, with_tokens=True)) == len(rows)
        assert catalog.metadata.take_tokens_read() == {}


def test_several_words_match_as_words_or_inside_other_text(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    texts = {
        "words": "the parser timed out",
        "inside": "a reparsering subtimeouts",
        "one": "only the parser",
        "none": "nothing to see",
    }
    for name, text in texts.items():
        store.create(name, cwd="/w")
        store.append_events(name, [("message", {"role": "user", "content": text})])
    with SessionCatalog(store, tmp_path / "cache") as catalog:
        catalog.refresh()
        catalog.update_content()
        keys = {key: name for name, key in catalog.session_keys().items()}
        expected = {
            "parser time": ["inside", "words"],
            "pars tim": ["inside", "words"],
            "parser": ["inside", "one", "words"],
            '"the parser" out': ["words"],
        }
        for text, sessions in expected.items():
            catalog.check_logs_in_background()
            here = matching_sessions(catalog, parse_query(text))
            catalog.update_content()
            assert here is not None
            assert sorted(keys[key] for key in here.keys) == sessions, text


def test_the_logs_compared_in_the_background_are_what_the_update_reads_again(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path / "sessions")
    for name in ("a", "b", "c", "d"):
        store.create(name, cwd="/w")
        store.append_events(name, [("message", {"role": "user", "content": f"hi {name}"})])
    changes: list[Callable[[], object]] = [
        lambda: None,
        lambda: store.append_events("b", [("message", {"role": "assistant", "content": "x"})]),
        lambda: store.events_path("c").unlink(),
        lambda: store.events_path("d").write_bytes(b""),
        lambda: None,
    ]
    changed: list[list[str]] = []
    for change in changes:
        change()
        with SessionCatalog(store, tmp_path / "cache") as catalog:
            catalog.revalidate()
            catalog.check_logs_in_background()
            changed.append(sorted(catalog.update_content().changed))
    assert changed == [["a", "b", "c", "d"], ["b"], ["c"], ["d"], []]
