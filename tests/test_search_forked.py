"""A cold catalog's reading shared with a forked child (`zero_tui.forked`): the same answers
as reading it all here, and all of it here when the child fails."""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from zero_tui import forked
from zero_tui.search import database, metadata_cache
from zero_tui.search.catalog import SessionCatalog
from zero_tui.search.query import matching_sessions, parse_query, substring_question
from zero_tui.store import SessionStore, StoreError
from zero_tui.store.resumable import filter_resumable, has_resumable_content
from zero_tui.store.usage import logged_tokens

linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the child is forked on Linux only"
)


@pytest.fixture
def shared_always(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forked, "MIN_SHARED", 2)
    monkeypatch.setattr(forked, "_cpus", lambda: 2)
    monkeypatch.setattr(threading, "active_count", lambda: 1)


def squares_with_pids(items: Sequence[int]) -> list[tuple[int, int]]:
    return [(item * item, os.getpid()) for item in items]


@linux_only
def test_the_second_half_is_done_by_a_child_in_order(shared_always: None) -> None:
    """The child's share a little smaller (it also pickles what it found)."""
    results = forked.shared(squares_with_pids, list(range(100)))
    assert [square for square, _ in results] == [n * n for n in range(100)]
    pids = [pid for _, pid in results]
    assert pids[:52] == [os.getpid()] * 52
    assert len(set(pids[52:])) == 1
    assert pids[52] != os.getpid()
    assert forked.their_half(list(range(100))) == list(range(52, 100))


def failing_in_a_child(items: Sequence[int]) -> list[int]:
    if os.getpid() != PARENT:
        raise RuntimeError("the child fails")
    return [item + 1 for item in items]


PARENT = os.getpid()


@linux_only
def test_a_failed_child_leaves_its_half_to_the_parent(shared_always: None) -> None:
    assert forked.shared(failing_in_a_child, list(range(6))) == [1, 2, 3, 4, 5, 6]


def test_few_items_are_done_here() -> None:
    results = forked.shared(squares_with_pids, [1, 2, 3])
    assert {pid for _, pid in results} == {os.getpid()}


@pytest.mark.parametrize("with_tokens", [False, True])
@pytest.mark.parametrize("halves", [True, False])
def test_a_cold_catalog_read_in_halves_lists_and_filters_as_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, halves: bool, with_tokens: bool
) -> None:
    """With the tokens too, each log is read once for both: the same verdicts, and the
    figures `logged_tokens` finds in it."""
    if halves:
        if not sys.platform.startswith("linux"):
            pytest.skip("the child is forked on Linux only")
        monkeypatch.setattr(forked, "MIN_SHARED", 2)
        monkeypatch.setattr(forked, "_forking_pays", lambda: True)
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
        assert {sid: figures for sid, (_, _, figures) in tokens.items()} == (
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


@linux_only
def test_progress_goes_up_to_the_total(
    shared_always: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(forked, "PROGRESS_EVERY", 3)
    told: list[tuple[int, int]] = []
    results = forked.shared(squares_with_pids, list(range(20)), lambda *step: told.append(step))
    assert [square for square, _ in results] == [n * n for n in range(20)]
    assert told[0] == (0, 20)
    assert told[-1] == (20, 20)
    assert [done for done, _ in told] == sorted(done for done, _ in told)


@linux_only
def test_a_process_with_other_threads_does_it_all_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fork copies only the thread that forks: a lock another thread holds would stay
    held in the child."""
    monkeypatch.setattr(forked, "MIN_SHARED", 2)
    monkeypatch.setattr(forked, "_cpus", lambda: 2)
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        results = forked.shared(squares_with_pids, list(range(9)))
    finally:
        release.set()
        other.join()
    assert {pid for _, pid in results} == {os.getpid()}


# --- every log compared with the index, in a child, while the index is asked -----------------


def pid_in_a_child() -> int:
    return os.getpid()


def failing_child() -> int:
    raise RuntimeError("the child fails")


@linux_only
def test_work_in_a_child_is_done_there_and_a_failure_says_so(shared_always: None) -> None:
    pending = forked.in_child(pid_in_a_child)
    assert pending is not None
    assert pending.result() not in (None, os.getpid())
    failed = forked.in_child(failing_child)
    assert failed is not None
    assert failed.result() is None


def test_no_child_where_forking_does_not_pay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forked, "_cpus", lambda: 1)
    assert forked.in_child(pid_in_a_child) is None


def count_sessions(connection: sqlite3.Connection) -> int:
    return int(connection.execute("SELECT count(*) FROM sessions").fetchone()[0])


def _update_after_a_background_check(
    store: SessionStore, cache: Path, asked_first: list[int | None]
) -> tuple[object, ...]:
    """A search process's steps: the logs compared in the background (the child asked a
    question of the index first), then the update."""
    with SessionCatalog(store, cache) as catalog:
        catalog.revalidate()
        first = catalog.check_logs_in_background(count_sessions)
        asked_first.append(first())
        report = catalog.update_content()
        return report.sessions, report.events, sorted(report.changed), report.complete


@linux_only
def test_several_words_match_alike_whether_their_substrings_are_asked_here_or_elsewhere(
    shared_always: None, tmp_path: Path
) -> None:
    """A search of several words has the log check's child ask the substring index for
    them first: what it finds is what asking here finds, and a child that failed to ask
    leaves it to this process."""
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
            query = parse_query(text)
            here = matching_sessions(catalog, query)
            assert here is not None
            assert sorted(keys[key] for key in here.keys) == sessions, text
            told = catalog.check_logs_in_background(substring_question(query))()
            assert told is not None  # the child asked
            elsewhere = matching_sessions(catalog, query, functools.partial(list, told))
            catalog.update_content()
            failed = matching_sessions(catalog, query, lambda: None)
            assert elsewhere == failed == here, text


def failing_check(tell: Callable[[int], None]) -> int:
    raise RuntimeError("the check fails")


@linux_only
@pytest.mark.parametrize("child", ["forked", "failed", "thread"])
def test_a_background_check_in_a_child_updates_as_one_in_a_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, child: str
) -> None:
    store = SessionStore(tmp_path / "sessions")
    for name in ("a", "b", "c", "d"):
        store.create(name, cwd="/w")
        store.append_events(name, [("message", {"role": "user", "content": f"hi {name}"})])
    cache = {"thread": tmp_path / "thread", "other": tmp_path / "other"}
    answers: dict[str, list[tuple[object, ...]]] = {"thread": [], "other": []}
    forks: list[int] = []
    asked_first: dict[str, list[int | None]] = {"thread": [], "other": []}
    real_in_child = forked.in_child_answering_first

    def in_child(work: object) -> object:
        if child == "thread":
            return None
        forks.append(1)
        monkeypatch.setattr(threading, "active_count", lambda: 1)
        if child == "failed":
            return real_in_child(failing_check)
        return real_in_child(work)  # type: ignore[arg-type]

    changes: list[Callable[[], object]] = [
        lambda: None,
        lambda: store.append_events("b", [("message", {"role": "assistant", "content": "x"})]),
        lambda: store.events_path("c").unlink(),
        lambda: store.events_path("d").write_bytes(b""),
        lambda: None,
    ]
    for change in changes:
        change()
        with monkeypatch.context() as patched:
            patched.setattr(forked, "_cpus", lambda: 1)  # no child: a thread
            answers["thread"].append(
                _update_after_a_background_check(store, cache["thread"], asked_first["thread"])
            )
        with monkeypatch.context() as patched:
            patched.setattr(forked, "_cpus", lambda: 2)
            patched.setattr(forked, "in_child_answering_first", in_child)
            answers["other"].append(
                _update_after_a_background_check(store, cache["other"], asked_first["other"])
            )
    assert answers["other"] == answers["thread"]
    # the question asked first is answered by a forked child only (else the caller asks it)
    assert asked_first["thread"] == [None] * len(changes)
    assert asked_first["other"] == [4 if child == "forked" else None] * len(changes)
    assert [answer[2] for answer in answers["thread"]] == [
        ["a", "b", "c", "d"],
        ["b"],
        ["c"],
        ["d"],
        [],
    ]
    assert bool(forks) == (child != "thread")


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


@linux_only
def test_a_cold_catalog_is_written_by_a_child_while_this_process_goes_on(
    tmp_path: Path, shared_always: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its rows, verdicts and tokens are all there at the next use of the database, and
    the child is reaped by then."""
    store = _cold_store(tmp_path)
    forks: list[int] = []
    real_fork = os.fork

    def counted_fork() -> int:
        pid = real_fork()
        if pid:
            forks.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", counted_fork)
    with SessionCatalog(store, tmp_path / "cache") as catalog:
        sessions = catalog.refresh(with_verdicts=True, with_tokens=True)
        assert len(forks) == 2  # the reading shared (that child writes its half), the rest
        assert [meta.session_id for meta in sessions] == [meta.session_id for meta in store.list()]
        assert catalog.session_keys().keys() == {meta.session_id for meta in sessions}
        with pytest.raises(ChildProcessError):
            os.waitpid(-1, os.WNOHANG)  # both children reaped
        with catalog.lock:
            tokens = dict(
                catalog.connection.execute("SELECT session_id, input FROM session_tokens")
            )
            verdicts = dict(catalog.connection.execute("SELECT session_id, verdict FROM sessions"))
    assert tokens == {f"s{number:02d}": number for number in range(12)}
    assert set(verdicts.values()) == {1}
    with SessionCatalog(store, tmp_path / "cache") as catalog:  # warm: nothing read again
        assert catalog.refresh(with_verdicts=True, with_tokens=True) == sessions
        assert len(forks) == 2
        assert catalog.metadata.take_tokens_read() == {}


@linux_only
def test_a_writing_child_that_fails_leaves_the_writing_to_this_process(
    tmp_path: Path, shared_always: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _cold_store(tmp_path)

    def failing(*_: object) -> object:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(database, "write_alone", failing)
    monkeypatch.setattr(metadata_cache, "write_alone", failing)
    with SessionCatalog(store, tmp_path / "cache") as catalog:
        sessions = catalog.refresh(with_verdicts=True, with_tokens=True)
        assert catalog.session_keys().keys() == {meta.session_id for meta in sessions}
    with SessionCatalog(store, tmp_path / "cache") as catalog:
        assert catalog.refresh() == sessions


# --- a child that tells how far it has got, and children given up on ------------------------


def count_to_ten(tell: Callable[[Sequence[int]], None]) -> None:
    tell([1, 2, -3])
    tell(range(4, 11))


def tell_then_hang(tell: Callable[[Sequence[int]], None]) -> None:
    tell([3])
    threading.Event().wait()


def assert_reaped(pid: int) -> None:
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


@linux_only
def test_a_telling_child_is_read_as_it_tells(shared_always: None) -> None:
    told = forked.telling_in_child(count_to_ten)
    assert told is not None
    pid = told._child
    with told:
        assert list(told) == [1, 2, -3, *range(4, 11)]
    assert pid is not None
    assert_reaped(pid)


@linux_only
def test_a_child_given_up_on_is_ended_and_reaped(shared_always: None) -> None:
    told = forked.telling_in_child(tell_then_hang)
    assert told is not None
    assert next(iter(told)) == 3
    pid = told._child
    told.close()
    told.close()  # twice is harmless
    assert pid is not None
    assert_reaped(pid)
    assert list(told) == []
    pending = forked.in_child(lambda: threading.Event().wait())
    assert pending is not None
    pid = pending._child
    pending.close()
    assert pid is not None
    assert_reaped(pid)
    assert pending.result() is None


def answer_early_then_wait_for(release: Path) -> Callable[[Callable[[bytes], None]], int]:
    def work(tell: Callable[[bytes], None]) -> int:
        tell(b"x" * 300_000)  # more than a pipe holds by default
        (release.parent / "told").touch()
        while not release.exists():
            threading.Event().wait(0.01)
        return os.getpid()

    return work


@linux_only
def test_a_child_answering_first_is_read_before_it_has_done(
    shared_always: None, tmp_path: Path
) -> None:
    """The first answer is read while the child still works (it went on at once, even with
    an answer longer than a pipe holds); the result, once it is done."""
    release = tmp_path / "release"
    child = forked.in_child_answering_first(answer_early_then_wait_for(release))
    assert child is not None
    with child:
        told = tmp_path / "told"
        deadline = time.monotonic() + 30
        while not told.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert told.exists()  # it went on before anything was read
        assert child.first() == b"x" * 300_000
        assert child.first() is None  # told once
        release.touch()
        assert child.result() not in (None, os.getpid())


def answer_nothing_first(tell: Callable[[int], None]) -> int:
    return 7


def answer_then_fail(tell: Callable[[int], None]) -> int:
    tell(3)
    raise RuntimeError("the child fails after its first answer")


@linux_only
def test_a_child_that_answers_nothing_first_or_fails_says_so(shared_always: None) -> None:
    quiet = forked.in_child_answering_first(answer_nothing_first)
    assert quiet is not None
    assert (quiet.first(), quiet.result()) == (None, 7)
    failing = forked.in_child_answering_first(answer_then_fail)
    assert failing is not None
    assert (failing.first(), failing.result()) == (3, None)
    unread = forked.in_child_answering_first(answer_then_fail)
    assert unread is not None
    assert unread.result() is None  # the first answer is read past
    hanging = forked.in_child_answering_first(answer_early_then_wait_for(Path("/nonexistent")))
    assert hanging is not None
    pid = hanging._child
    hanging.close()
    assert pid is not None
    assert_reaped(pid)
    assert (hanging.first(), hanging.result()) == (None, None)


@linux_only
def test_the_collector_leaves_what_a_child_shares_alone_until_it_is_reaped(
    shared_always: None,
) -> None:
    """While a child shares this process's pages the collector does not walk what lived at
    the fork (each walk would copy them); once the last child is reaped, it does again."""
    import gc

    sharing = forked._sharing  # children another test left unreaped, if any
    first = forked.in_child(lambda: threading.Event().wait())
    second = forked.in_child(pid_in_a_child)
    assert first is not None
    assert second is not None
    assert forked._sharing == sharing + 2
    assert gc.get_freeze_count() > 0
    assert second.result() not in (None, os.getpid())
    assert gc.get_freeze_count() > 0  # the first still shares them
    first.close()
    assert forked._sharing == sharing
    assert (gc.get_freeze_count() == 0) == (sharing == 0)


def test_no_telling_child_where_forking_does_not_pay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forked, "_cpus", lambda: 1)
    assert forked.telling_in_child(count_to_ten) is None
    assert forked.in_child_answering_first(answer_nothing_first) is None
