"""The picker's scopes without the UI: the chunked filter, its counts, the empty-list line,
content hits on a scope's rows and the per-scope ranker (zero_tui/search/scopes)."""

from __future__ import annotations

import os
from collections.abc import Callable

from conftest import NOW, StoreBuilder

from zero_tui.picker.head_cache import HEAD_ROWS
from zero_tui.picker.scopes import (
    ALL_SCOPES,
    HiddenCounts,
    RowRanker,
    ScopeChunk,
    ScopeScan,
    empty_list_message,
    first_screen,
    hits_in_rows,
    row_positions,
)
from zero_tui.picker.session_rows import picker_rows
from zero_tui.search.query import SearchHit, highlight_term
from zero_tui.store import Metadata
from zero_tui.store.resumable import filter_resumable
from zero_tui.store.store import METADATA_FILE


def mixed_store(make_store: Callable[..., StoreBuilder]) -> StoreBuilder:
    """Ten sessions here, three elsewhere, two empty runs here, one child session."""
    builder = make_store()
    minute = iter(range(60))
    for number in range(10):
        builder.add(f"here{number}", cwd="/w", updated_at=f"2026-07-04T10:{next(minute):02}:00Z")
    for number in range(3):
        builder.add(f"away{number}", cwd="/x", updated_at=f"2026-07-04T10:{next(minute):02}:00Z")
    for number in range(2):
        builder.add(
            f"empty{number}", cwd="/w", events=[], updated_at=f"2026-07-04T10:{next(minute):02}:00Z"
        )
    builder.add("child", cwd="/w", session_kind="child", updated_at="2026-07-04T11:00:00Z")
    return builder


def ids(sessions: list[Metadata]) -> list[str]:
    return [meta.session_id for meta in sessions]


def test_a_scope_in_chunks_is_the_scope_at_once(make_store: Callable[..., StoreBuilder]) -> None:
    builder = mixed_store(make_store)
    sessions = builder.store.list()
    for key in ALL_SCOPES:
        all_workspaces, include_empty = key
        whole = filter_resumable(
            builder.store, "/w", all_workspaces=all_workspaces, include_empty=include_empty
        )
        scan = ScopeScan(builder.store, "/w", key, sessions, lambda _id: True)
        chunks = list(scan.chunks(4, 5))
        assert all(len(chunk.sessions) <= 5 for chunk in chunks)
        assert [(chunk.first, chunk.last) for chunk in chunks] == [
            (index == 0, index == len(chunks) - 1) for index in range(len(chunks))
        ]
        assert [meta for chunk in chunks for meta in chunk.sessions] == whole.sessions
        expected = HiddenCounts(whole.other_workspace, whole.empty_runs, whole.not_resumable)
        assert chunks[-1].hidden == scan.hidden == expected
        head = scan.head()
        assert [cached.session_id for cached in head.sessions] == ids(whole.sessions)
        counts = (head.other_workspace, head.empty_runs, head.not_resumable)
        assert counts == (expected.other_workspace, expected.empty_runs, expected.not_resumable)
        assert head.store_total == len(sessions) == 16


def test_the_counts_grow_chunk_by_chunk(make_store: Callable[..., StoreBuilder]) -> None:
    builder = mixed_store(make_store)
    sessions = builder.store.list()  # newest first: child, the empty runs, away, here
    scan = ScopeScan(builder.store, "/w", (False, False), sessions, lambda _id: True)
    hidden = [chunk.hidden for chunk in scan.chunks(1, 3)]
    assert hidden[:3] == [
        HiddenCounts(0, 0, 1),  # the child
        HiddenCounts(1, 2, 1),  # the two empty runs, then one session of /x
        HiddenCounts(3, 2, 1),  # the other two of /x, one of here
    ]
    assert hidden[-1] == HiddenCounts(3, 2, 1)


def test_no_sessions_is_one_empty_last_chunk(make_store: Callable[..., StoreBuilder]) -> None:
    builder = make_store()
    scan = ScopeScan(builder.store, "/w", (False, False), [], lambda _id: True)
    chunks = list(scan.chunks(64, 2048))
    assert [(chunk.sessions, chunk.hidden, chunk.first, chunk.last) for chunk in chunks] == [
        ([], HiddenCounts(), True, True)
    ]
    assert scan.head().sessions == ()


def test_a_cancelled_scan_stops_before_the_next_chunk(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = mixed_store(make_store)
    sessions = builder.store.list()
    scan = ScopeScan(builder.store, "/w", (True, True), sessions, lambda _id: True)
    seen: list[ScopeChunk] = []
    for chunk in scan.chunks(2, 2, cancelled=lambda: len(seen) == 2):
        seen.append(chunk)
    assert len(seen) == 2
    assert not seen[-1].last
    assert len(scan.head().sessions) == 3  # two chunks of two, less the child


def test_the_head_keeps_the_first_rows_only(make_store: Callable[..., StoreBuilder]) -> None:
    builder = make_store()
    builder.add("one", cwd="/w")
    meta = builder.store.get("one")
    assert meta is not None
    many = [meta] * (HEAD_ROWS + 30)
    scan = ScopeScan(builder.store, "/w", (False, False), many, lambda _id: True)
    shown = sum(len(chunk.sessions) for chunk in scan.chunks(64, 64))
    assert shown == HEAD_ROWS + 30
    assert len(scan.head().sessions) == HEAD_ROWS


def test_the_content_check_decides_the_empty_runs(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = mixed_store(make_store)
    sessions = builder.store.list()
    scan = ScopeScan(builder.store, "/w", (False, False), sessions, lambda sid: sid != "here3")
    listed = [meta for chunk in scan.chunks(64, 64) for meta in chunk.sessions]
    assert "here3" not in ids(listed)
    assert scan.hidden.empty_runs == 3


def touched_in_order(builder: StoreBuilder, order: list[str]) -> None:
    """Give the sessions' metadata files increasing times in `order` (the last: newest)."""
    for number, session_id in enumerate(order):
        path = builder.root / session_id / METADATA_FILE
        os.utime(path, ns=(1_000_000_000 * (number + 1),) * 2)


def test_a_first_screen_reads_the_newest_files_until_it_has_enough(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = make_store()
    names = [f"s{number}" for number in range(8)]
    for number, name in enumerate(names):
        cwd = "/x" if number in (6, 5) else "/w"
        builder.add(name, cwd=cwd, updated_at=f"2026-07-04T10:0{number}:00Z")
    touched_in_order(builder, names)  # the files' times agree with updatedAt
    found = first_screen(
        builder.store, "/w", (False, False), lambda _id: True, rows=3, reads=100, batch=2
    )
    assert found is not None
    # newest first: s7, s6 (elsewhere) | s5 (elsewhere), s4 | s3, s2: three kept by then
    assert ids(found.sessions) == ["s7", "s4", "s3", "s2"]
    assert found.hidden == HiddenCounts(other_workspace=2)
    assert found.read == 6
    capped = first_screen(
        builder.store, "/w", (False, False), lambda _id: True, rows=3, reads=2, batch=2
    )
    assert capped is not None
    assert (ids(capped.sessions), capped.read) == (["s7"], 2)
    wide = first_screen(
        builder.store, "/w", (True, False), lambda _id: True, rows=3, reads=100, batch=2
    )
    assert wide is not None
    assert ids(wide.sessions) == ["s7", "s6", "s5", "s4"]


def test_no_first_screen_without_rows_or_once_cancelled(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = make_store()
    assert (
        first_screen(
            builder.store, "/w", (False, False), lambda _id: True, rows=3, reads=9, batch=2
        )
        is None
    )
    builder.add("elsewhere", cwd="/x")
    assert (
        first_screen(
            builder.store, "/w", (False, False), lambda _id: True, rows=3, reads=9, batch=2
        )
        is None
    )
    builder.add("here", cwd="/w")
    found = first_screen(
        builder.store, "/w", (False, False), lambda _id: True, rows=3, reads=9, batch=2
    )
    assert found is not None
    assert ids(found.sessions) == ["here"]
    cancelled = first_screen(
        builder.store,
        "/w",
        (False, False),
        lambda _id: True,
        rows=3,
        reads=9,
        batch=2,
        cancelled=lambda: True,
    )
    assert cancelled is None


def test_the_empty_list_says_what_the_keys_would_show() -> None:
    def message(hidden: HiddenCounts | None, **flags: bool) -> str:
        return empty_list_message(
            hidden,
            scanned=flags.get("scanned", True),
            query="fix" if flags.get("query") else "",
            all_workspaces=flags.get("all_workspaces", False),
            include_empty=flags.get("include_empty", False),
        )

    assert message(None) == "scanning the session store…"
    assert message(HiddenCounts(3, 2, 0), scanned=False) == "scanning the session store…"
    assert message(HiddenCounts(3, 2, 0), query=True) == "no matching items"
    assert message(HiddenCounts(3, 2, 0)) == (
        "no sessions in this workspace · Tab shows 3 in other workspaces"
    )
    assert message(HiddenCounts(3, 2, 0), all_workspaces=True) == (
        "only empty runs here · ctrl+e shows 2"
    )
    assert message(HiddenCounts(0, 2, 0), include_empty=True) == "no sessions to resume"
    assert message(HiddenCounts(0, 0, 5)) == "no sessions to resume"


def test_content_hits_land_on_the_scopes_rows(make_store: Callable[..., StoreBuilder]) -> None:
    builder = mixed_store(make_store)
    sessions = builder.store.list()
    rows = picker_rows([meta for meta in sessions if meta.cwd == "/w"], NOW)
    by_id = {meta.session_id: meta for meta in sessions}
    hits = [SearchHit(by_id[sid]) for sid in ("here2", "away1", "here7", "here0")]
    kept, order = hits_in_rows(hits, row_positions(rows))
    assert [hit.session.session_id for hit in kept] == ["here2", "here7", "here0"]
    assert [rows[index].session_id for index in order] == ["here2", "here7", "here0"]
    assert hits_in_rows([], row_positions(rows)) == ([], [])


def test_the_highlight_is_the_first_term() -> None:
    assert highlight_term('"a phrase" word') == "a phrase"
    assert highlight_term("-not title:x word") == "word"
    assert highlight_term("title:x") == ""
    assert highlight_term("after:2026-13-45 word") == ""  # a bad date: no query


def test_the_ranker_reuses_an_index_until_the_rows_change(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = make_store()
    builder.add("a", cwd="/w", title="Fix the parser")
    builder.add("b", cwd="/x/parser", title="Other work", updated_at="2026-07-04T11:00:00Z")
    rows = picker_rows(builder.store.list(), NOW)
    ranker = RowRanker()
    first = ranker.rank((True, False), rows, "parser", with_workspace=True)
    assert [rows[index].session_id for index in first.indices] == ["a", "b"]
    cached = ranker._cached
    ranker.rank((True, False), rows, "fix", with_workspace=True)
    assert ranker._cached is cached  # same scope, same rows: the same index
    titles_only = ranker.rank((False, False), rows, "parser", with_workspace=False)
    assert [rows[index].session_id for index in titles_only.indices] == ["a"]
    assert ranker._cached is not cached
    ranker.forget()
    assert ranker._cached is None


def test_the_picker_filter_matches_the_model_and_the_provider(
    make_store: Callable[..., StoreBuilder],
) -> None:
    """What the user guide promises: `gpt-5` finds the sessions run on it, and `model:` and
    `provider:` filter by them, though neither is in the row's label."""
    builder = make_store()
    builder.add("a", cwd="/w", title="Fix the parser", model_id="gpt-5", provider="openai")
    builder.add(
        "b",
        cwd="/w",
        title="Add a flag",
        model_id="claude-sonnet-4-5",
        provider="anthropic",
        updated_at="2026-07-04T11:00:00Z",
    )
    rows = picker_rows(builder.store.list(), NOW)
    ranker = RowRanker()

    def found(query: str) -> list[str]:
        ranking = ranker.rank((False, False), rows, query, with_workspace=False)
        return [rows[index].session_id for index in ranking.indices]

    assert found("gpt-5") == ["a"]
    assert found("anthropic") == ["b"]
    assert found("model:sonnet") == ["b"]
    assert found("provider:openai") == ["a"]
    assert found("provider:openai flag") == []
