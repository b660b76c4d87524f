"""`zero-tui search QUERY [--cwd DIR] [--all] [--limit N] [--json]` (design §2)."""

from __future__ import annotations

import json
import os
import re
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from zero_tui import cli
from zero_tui.cli import main
from zero_tui.search import scoped
from zero_tui.search.query import SearchResult
from zero_tui.store import SessionStore

HERE = "/home/dev/here"
THERE = "/home/dev/there"


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    moments = iter(
        datetime(2026, 7, 4, 9, 0, tzinfo=UTC) + timedelta(minutes=n) for n in range(999)
    )
    store = SessionStore(tmp_path / "sessions", clock=lambda: next(moments))
    sessions = (
        ("pay", HERE, "Explain the payment flow", "the webhook is not idempotent"),
        ("limit", HERE, "Add rate limiting", "a token bucket rate limiter"),
        ("far", THERE, "Payments elsewhere", "another idempotent webhook"),
    )
    for session_id, cwd, title, answer in sessions:
        store.create(session_id, title=title, cwd=cwd, model_id="gpt-5")
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


def test_json_lists_hits_best_first_in_the_workspace(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(store, capsys, "idempotent", "--json")
    assert code == 0
    (hit,) = json.loads(out)
    assert {key: hit[key] for key in ("sessionId", "cwd", "sequence", "role")} == {
        "sessionId": "pay",
        "cwd": HERE,
        "sequence": 2,
        "role": "assistant",
    }
    assert "idempotent" in hit["snippet"]
    assert hit["title"] == "Explain the payment flow"
    assert hit["updatedAt"].endswith("Z")


def test_all_widens_the_scope(store: SessionStore, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(store, capsys, "idempotent", "--json", "--all")
    assert code == 0
    assert sorted(hit["sessionId"] for hit in json.loads(out)) == ["far", "pay"]


def test_the_readable_list_shows_the_snippet(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(store, capsys, "token", "bucket")
    assert code == 0
    lines = out.splitlines()
    assert "limit" in lines[0]
    assert "Add rate limiting" in lines[0]
    assert lines[1].startswith("    #2 assistant: ")
    assert "token bucket" in lines[1]


def test_filters_alone_list_sessions(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(store, capsys, "title:payment", "--json", "--all")
    assert code == 0
    assert [hit["sessionId"] for hit in json.loads(out)] == ["far", "pay"]
    assert json.loads(out)[0]["sequence"] is None


def test_no_match_exits_1(store: SessionStore, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(store, capsys, "kangaroo")
    assert (code, out) == (1, "")
    assert err.startswith("zero-tui: no sessions match")
    code, out, _ = run(store, capsys, "kangaroo", "--json")
    assert (code, json.loads(out)) == (1, [])


@pytest.mark.parametrize(
    "args",
    [["after:2026-02-30"], ["--limit", "0", "pay"], ["  "], ["--limit", "x", "pay"], []],
)
def test_usage_errors_exit_2_with_one_line(
    store: SessionStore, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    code, out, err = run(store, capsys, *args)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "args",
    [
        ["question", "-rate"],  # as --help says: -word excludes, unquoted
        ["-rate", "question"],
        ["question", "--", "-rate"],
        ["--json", "question", "-rate"],
        ["question", "--limit", "5", "-rate"],
        ["question", "--lim=5", "-rate"],
        ["-rate", "--all", "question", "-heavy"],  # -h... is a word, not --help's -h
    ],
)
def test_an_unquoted_exclusion_is_a_word_of_the_query(
    store: SessionStore, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    code, out, err = run(store, capsys, "--json", *args)
    assert code == 0, err
    assert sorted(hit["sessionId"] for hit in json.loads(out)) == (
        ["far", "pay"] if "--all" in args else ["pay"]
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["question", "--limit", "-5"], "--limit wants a positive number"),  # a value, not a word
        (["question", "--bogus"], "unrecognized arguments: --bogus"),
        (["--json"], "the following arguments are required: QUERY"),
    ],
)
def test_options_and_their_values_stay_options(
    store: SessionStore, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = run(store, capsys, *args)
    assert (code, out) == (2, "")
    assert message in err


def test_a_dash_letter_that_is_no_option_is_a_word(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    # search has no -n: `-n 5` excludes "n" and wants "5" (no session holds it)
    code, out, _ = run(store, capsys, "question", "-n", "5", "--json")
    assert (code, json.loads(out)) == (1, [])


def test_limit(store: SessionStore, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(store, capsys, "question", "--all", "--limit", "2")
    assert code == 0
    assert len([line for line in out.splitlines() if not line.startswith(" ")]) == 2
    assert "2 of 3 shown" in err


def test_a_slow_build_reports_progress_on_stderr(
    store: SessionStore, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli._IndexProgress, "DELAY", 0.0)
    code, _, err = run(store, capsys, "idempotent")
    assert code == 0
    assert "indexing" in err


def test_search_never_writes_the_store(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    def snapshot() -> dict[str, tuple[bytes, int]]:
        return {
            str(path): (path.read_bytes(), path.stat().st_mtime_ns)
            for path in sorted(store.root.rglob("*"))
            if path.is_file()
        }

    before = snapshot()
    run(store, capsys, "idempotent", "--all")
    run(store, capsys, "webhook", "-token", "model:gpt", "--all", "--json")
    assert snapshot() == before
    assert sorted(os.listdir(store.root)) == ["far", "limit", "pay"]


def test_an_unknown_filter_is_searched_as_text_with_a_notice(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(store, capsys, "modle:gpt", "--all")
    assert code == 1
    assert "modle: is not a filter" in err


def full_path_search(
    store: SessionStore, query: str, workspace: str, all_workspaces: bool, limit: int = 50
) -> SearchResult:
    """What the search finds when every session is loaded first (the picker's way)."""
    from zero_tui.search.catalog import SessionCatalog
    from zero_tui.search.query import search
    from zero_tui.store.resumable import filter_resumable

    with SessionCatalog(store) as catalog:
        listing = filter_resumable(
            store,
            workspace,
            all_workspaces=all_workspaces,
            sessions=catalog.refresh(),
            content_check=catalog.has_content,
        )
        catalog.update_content()
        return search(catalog, query, listing.sessions, limit=limit)


def full_path_hits(
    store: SessionStore, query: str, workspace: str, all_workspaces: bool, limit: int = 50
) -> list[dict[str, object]]:
    result = full_path_search(store, query, workspace, all_workspaces, limit)
    return [hit.to_json() for hit in result.hits]


@pytest.mark.parametrize("all_workspaces", [False, True])
def test_loading_only_the_matches_finds_what_loading_everything_finds(
    store: SessionStore, capsys: pytest.CaptureFixture[str], all_workspaces: bool
) -> None:
    """The command loads only the sessions whose text matches; whatever changed since the
    last run — a new session, an append, a new title, a deletion, an empty run, a
    sub-session — it lists what the full listing would."""
    queries = ["idempotent", "webhook -token", "rate limiter", '"token bucket"', "question"]
    for query in queries:  # a first run builds the index
        run(store, capsys, query, "--json")
    store.append_events("limit", [("message", {"role": "assistant", "content": "idempotent"})])
    store.update_title("pay", "Payments, renamed")
    store.create("sub", title="a sub-session", cwd=HERE, session_kind="subagent")
    store.append_events("sub", [("message", {"role": "assistant", "content": "idempotent"})])
    store.create("empty", title="an empty run", cwd=HERE)
    store.create("new", title="New webhook work", cwd=HERE)
    store.append_events("new", [("message", {"role": "user", "content": "webhook question"})])
    shutil.rmtree(Path(store.root) / "far")
    flags = ["--all"] if all_workspaces else []
    for query in [*queries, "webhook question", "model:gpt idempotent"]:
        code, out, _ = run(store, capsys, query, "--json", *flags)
        expected = full_path_hits(store, query, HERE, all_workspaces)
        assert (json.loads(out) if code == 0 else []) == expected, query
        assert code == (0 if expected else 1)


@pytest.fixture
def crowded(tmp_path: Path) -> SessionStore:
    """300 sessions in three workspaces, updated in an order that is not their ids', each
    matching "alpha beta" in one event, in two, or not at all, with other models, empty
    runs and sub-sessions among them."""
    clock = datetime(2026, 7, 4, 9, 0, tzinfo=UTC)
    moments = iter(clock + timedelta(seconds=(n * 7919) % 100_003) for n in range(99_999))
    store = SessionStore(tmp_path / "sessions", clock=lambda: next(moments))
    for number in range(300):
        session_id = f"s{number:03d}"
        kind = "subagent" if number % 23 == 0 else ""
        model = "gpt-5" if number % 3 else "claude-sonnet"
        cwd = (HERE, THERE, "/home/dev/elsewhere")[number % 3 if number % 5 else 0]
        store.create(session_id, title=f"Session {number}", cwd=cwd, model_id=model)
        if kind:
            store.create(f"{session_id}-sub", title="sub", cwd=cwd, session_kind=kind)
            store.append_events(
                f"{session_id}-sub", [("message", {"role": "assistant", "content": "alpha beta"})]
            )
        if number % 17 == 0:
            continue  # an empty run
        if number % 4 == 0:
            texts = ["alpha and beta together"]
        elif number % 4 == 1:
            texts = ["alpha alone", "and later beta"]
        else:
            texts = ["alpha only"]
        store.append_events(
            session_id,
            [("message", {"role": "user", "content": text}) for text in texts]
            + [("message", {"role": "assistant", "content": "noted"})],
        )
    return store


@pytest.mark.parametrize("batch", [1, scoped.LOAD_BATCH])
@pytest.mark.parametrize("limit", [1, 3, 50, 400])
def test_loading_only_the_best_matches_finds_the_same_best_hits(
    crowded: SessionStore,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    limit: int,
    batch: int,
) -> None:
    """--json loads the matching sessions best first, a batch at a time, and stops once
    it has enough; the text form loads them all for its count: both show what loading
    everything shows, in a narrow scope or a wide one, with filters, after metadata
    changed under the index."""
    monkeypatch.setattr(scoped, "LOAD_BATCH", batch)
    store = crowded
    queries = ["alpha beta", "alpha", "beta -together", "model:claude alpha", '"alpha and"']
    for query in queries:
        run(store, capsys, query, "--json")
    store.update_title("s250", "Renamed, and now updated last")  # to the top of the order
    store.append_events("s012", [("message", {"role": "user", "content": "alpha beta again"})])
    (Path(store.root) / "s101" / "metadata.json").write_text("{ not json")
    for query in queries:
        for flags in ([], ["--all"]):
            expected = full_path_search(store, query, HERE, bool(flags), limit)
            code, out, _ = run(store, capsys, query, "--json", "--limit", str(limit), *flags)
            hits = [hit.to_json() for hit in expected.hits]
            assert (json.loads(out) if code == 0 else []) == hits, (query, flags)
            code, out, err = run(store, capsys, query, "--limit", str(limit), *flags)
            assert code == (0 if hits else 1)
            listed = re.findall(r"^.*?  (s\d{3}(?:-sub)?)  ", out, re.MULTILINE)
            assert listed == [hit["sessionId"] for hit in hits], (query, flags)
            if expected.matched > len(hits):
                assert f"{len(hits)} of {expected.matched:,} shown" in err


@pytest.mark.parametrize("form", [[], ["--json"]])
def test_a_matching_session_that_cannot_be_read_is_said_not_listed(
    store: SessionStore, capsys: pytest.CaptureFixture[str], form: list[str]
) -> None:
    run(store, capsys, "idempotent", "--json")  # catalogued and indexed
    (Path(store.root) / "pay" / "metadata.json").write_text("{ not json")
    code, out, err = run(store, capsys, "idempotent", "--all", *form)
    assert code == 0
    listed = [hit["sessionId"] for hit in json.loads(out)] if form else out.split()
    assert "far" in listed
    assert "pay" not in listed
    assert err.splitlines() == ["zero-tui: 1 unreadable session not listed (see zero-tui check)"]


@pytest.mark.parametrize("limit", [1, 3, 50])
def test_many_matches_are_ranked_and_counted_in_the_index_with_the_same_results(
    crowded: SessionStore,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    limit: int,
) -> None:
    """Past `VERIFY_ALL` matches, the search ranks and counts them from the catalog and
    looks again only at the best: it shows what looking at every match shows, after a
    rename and an append under the index, and gives the same counts, said as the index's."""
    store = crowded
    queries = ["alpha beta", "alpha", "beta -together", "model:claude alpha", "lpha"]
    for query in queries:
        run(store, capsys, query, "--json")
    store.update_title("s250", "Renamed, and now updated last")
    store.append_events("s012", [("message", {"role": "user", "content": "alpha beta again"})])
    for query in queries:
        for flags in ([], ["--all"], ["--include-empty"]):
            answers = []
            for verify_all in (10**9, 0):
                monkeypatch.setattr(scoped, "VERIFY_ALL", verify_all)
                answers.append(run(store, capsys, query, "--limit", str(limit), *flags))
                answers.append(run(store, capsys, query, "--json", "--limit", str(limit), *flags))
            exact, exact_json, ranked, ranked_json = answers
            assert ranked[:2] == exact[:2], (query, flags)
            assert ranked_json == exact_json, (query, flags)
            assert ranked[2] == re.sub(
                r"(\d[\d,]* (?:shown|in other|empty))", r"about \1", exact[2]
            )
            assert "about" not in exact[2]
