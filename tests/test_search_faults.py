"""`zero-tui search` with hostile queries, a busy index, a tampered cache and hidden
matches (issue 18): always an answer or a clear line, never a traceback and never a silent
"no match" for a session that matches."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from zero_tui.cli import main
from zero_tui.search import database
from zero_tui.search.catalog import SessionCatalog
from zero_tui.store import SessionStore

HERE = "/home/dev/here"


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    store = SessionStore(tmp_path / "sessions")
    sessions = (
        ("pay", "Explain the payment flow", "the webhook is not idempotent"),
        ("limit", "Add rate limiting", "a token bucket rate limiter"),
    )
    for session_id, title, answer in sessions:
        store.create(session_id, title=title, cwd=HERE, model_id="gpt-5")
        store.append_events(
            session_id,
            [
                ("message", {"role": "user", "content": f"question about {title}"}),
                ("message", {"role": "assistant", "content": answer}),
            ],
        )
    return store


def run(
    store: SessionStore, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    code = main(["search", "--store", str(store.root), "--cwd", HERE, *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_bytes_that_are_not_utf8_are_searched_not_a_traceback(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    query = b"webhook\xff".decode("utf-8", "surrogateescape")  # as argv delivers it
    code, out, err = run(store, capsys, query)
    assert (code, err) == (0, "")
    assert "pay" in out
    code, _, err = run(store, capsys, b"\xff\xfe".decode("utf-8", "surrogateescape"))
    assert code == 2
    assert err == "zero-tui: search needs words or filters to look for (see zero-tui --help)\n"


def test_a_query_of_hundreds_of_words_is_searched(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    words = " ".join(["rate"] * 600)
    code, out, err = run(store, capsys, words, "--json")
    assert (code, err) == (0, "")
    assert [hit["sessionId"] for hit in json.loads(out)] == ["limit"]
    code, _, err = run(store, capsys, " ".join(["rate", *(f"w{n}" for n in range(600))]))
    assert code == 1
    assert err == "zero-tui: no sessions match in /home/dev/here\n"


def test_hundreds_of_exclusions_are_searched(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    exclusions = " ".join(f"-w{n}" for n in range(700))
    code, out, err = run(store, capsys, f"question {exclusions}", "--json")
    assert (code, err) == (0, "")
    assert sorted(hit["sessionId"] for hit in json.loads(out)) == ["limit", "pay"]
    code, out, _ = run(store, capsys, f"question {exclusions} -bucket", "--json")
    assert [hit["sessionId"] for hit in json.loads(out)] == ["pay"]


@pytest.fixture
def busy_index(store: SessionStore, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The shared index, held by another process in an exclusive transaction."""
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 200)
    with SessionCatalog(store) as catalog:
        catalog.refresh()
        catalog.update_content()
        path = catalog.path
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        yield
    finally:
        holder.execute("ROLLBACK")
        holder.close()


@pytest.mark.usefixtures("busy_index")
def test_a_busy_index_never_answers_no_match(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    store.create("giraffe", title="Zoo", cwd=HERE)
    store.append_events(
        "giraffe",
        [
            ("message", {"role": "user", "content": "the giraffeword"}),
            ("message", {"role": "assistant", "content": "found"}),
        ],
    )
    code, out, err = run(store, capsys, "giraffeword")
    assert code == 0
    assert "giraffe" in out
    assert "the search index is busy (another process is writing it)" in err


def test_a_cached_value_of_the_wrong_type_is_a_cache_miss(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sessions", "--store", str(store.root), "--cwd", HERE, "--json"]) == 0
    truth = json.loads(capsys.readouterr().out)
    with SessionCatalog(store) as catalog:
        path = catalog.path
    tamper = sqlite3.connect(path, isolation_level=None)
    tamper.execute("UPDATE sessions SET updated_at = 5, event_count = '2', title = 7")
    tamper.close()
    assert main(["sessions", "--store", str(store.root), "--cwd", HERE, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == truth


def test_hidden_matches_are_counted_and_include_empty_shows_them(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    store.create("failed", title="Upgrade React", cwd=HERE)
    store.append_events(
        "failed",
        [
            ("message", {"role": "user", "content": "upgrade react"}),
            ("error", {"message": "provider error: connection reset by peer"}),
        ],
    )
    store.create("elsewhere", title="Other", cwd="/home/dev/there")
    store.append_events(
        "elsewhere",
        [
            ("message", {"role": "user", "content": "connection reset again"}),
            ("message", {"role": "assistant", "content": "retrying"}),
        ],
    )
    code, _, err = run(store, capsys, "connection reset")
    assert code == 1
    assert err == (
        "zero-tui: matching but not listed: 1 in other workspaces (--all) · "
        "1 empty run (--include-empty)\n"
        "zero-tui: no sessions match in /home/dev/here\n"
    )
    code, out, _ = run(store, capsys, "connection reset", "--include-empty", "--json")
    assert code == 0
    assert [hit["sessionId"] for hit in json.loads(out)] == ["failed"]
    code, out, err = run(store, capsys, "title:e", "--json")  # filters alone: counted too
    assert code == 0
    assert sorted(hit["sessionId"] for hit in json.loads(out)) == ["limit", "pay"]
    assert err == (
        "zero-tui: matching but not listed: 1 in other workspaces (--all) · "
        "1 empty run (--include-empty)\n"
    )


def test_a_lone_surrogate_escape_in_a_log_is_indexed_as_go_reads_it(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    """JSON allows `\\ud800` alone; Go's decoder reads it as U+FFFD, and sqlite cannot
    store it as it is: the event is indexed, not a traceback."""
    line = (
        '{"id":"pay:\\udc80","sessionId":"pay","sequence":3,"type":"message",'
        '"createdAt":"2026-07-04T09:00:00Z","payload":{"role":"assistant",'
        '"content":"a lone \\ud800 surrogate beside the kestrel"}}\n'
    )
    with open(store.events_path("pay"), "a", encoding="utf-8") as log:
        log.write(line)
    code, out, err = run(store, capsys, "kestrel", "--json")
    assert (code, err) == (0, "")
    (hit,) = json.loads(out)
    assert hit["sessionId"] == "pay"
    assert "\ufffd surrogate beside the kestrel" in hit["snippet"]


WORDS = ("alpha", "bravo", "charlie")


def test_three_first_searches_at_once_each_find_every_match(tmp_path: Path) -> None:
    """Issue 25, item 11: three `zero-tui search` processes started at once on a fresh cache
    dir. One found its word's first session as the index stood when it asked, then found
    every log already indexed by another process, and kept that answer: 1 result of 2."""
    store = SessionStore(tmp_path / "sessions")
    for word in WORDS:
        for number in range(2):
            session_id = f"{word}{number}"
            store.create(session_id, title=f"Session {session_id}", cwd=HERE, model_id="gpt-5")
            store.append_events(
                session_id,
                [
                    ("message", {"role": "user", "content": f"tell me about {word}"}),
                    ("message", {"role": "assistant", "content": f"{word} is a word"}),
                ],
            )
    for number in range(20):
        store.create(f"other{number}", title="Other", cwd=HERE, model_id="gpt-5")
        store.append_events(f"other{number}", [("message", {"role": "user", "content": "x"})])
    command = [sys.executable, "-m", "zero_tui", "search", "--store", str(store.root), "--cwd"]
    for attempt in range(3):  # each fault seen came in at least one of three words at once
        environment = {**os.environ, "ZERO_TUI_CACHE_DIR": str(tmp_path / f"cache{attempt}")}
        searches = {
            word: subprocess.Popen(
                [*command, HERE, "--json", word],
                env=environment,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            for word in WORDS
        }
        for word, process in searches.items():
            out, err = process.communicate(timeout=120)
            assert process.returncode == 0, err.decode()
            found = sorted(hit["sessionId"] for hit in json.loads(out))
            assert found == [f"{word}0", f"{word}1"], (attempt, word, err.decode())
