"""The picker following the store live (issue 17, items 1 and 3), without an app: a batch of
changed sessions read again gives the same scopes as a whole new scan would."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import StoreBuilder, assistant, chat, fixed_clock, spy, user

from zero_tui.agent import running as running_module
from zero_tui.picker import content_search
from zero_tui.picker.content_search import ContentSearch
from zero_tui.picker.live import (
    RunningFound,
    SessionFacts,
    StoreChanged,
    session_facts,
)
from zero_tui.picker.loader import (
    ChangesDone,
    LoadStage,
    PickerLoader,
    ScanDone,
    ScopeLoaded,
    UsageFound,
)
from zero_tui.picker.scopes import ALL_SCOPES, ScopeKey, filter_scope
from zero_tui.picker.state import PickerState
from zero_tui.search.catalog import SessionCatalog
from zero_tui.store import SessionStore
from zero_tui.store.resumable import has_resumable_content
from zero_tui.store.session_flags import FlagBook, SessionFlags
from zero_tui.store.store import METADATA_FILE
from zero_tui.store.token_counts import Tokens

W = "/w/app"
REAL_ZERO_PROCESSES = running_module.zero_processes
HERE: ScopeKey = (False, False)


@pytest.fixture(autouse=True)
def no_runs_elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A runtime folder of the test's own (no other zero-tui's runs, no Zero TUI peers) and
    no `zero` process of another test on this machine."""
    (tmp_path / "runtime").mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setattr(running_module, "zero_processes", lambda *_, **__: {})


def varied_store(make_store: Callable[..., StoreBuilder]) -> StoreBuilder:
    """Sessions of every kind of place: here, elsewhere, empty runs of both, a kind Zero
    does not resume, one whose log is gone, one unreadable."""
    builder = make_store()
    builder.add("here1", title="Here one", cwd=W, updated_at="2026-07-04T10:00:00Z")
    builder.add("here2", title="Here two", cwd=W, updated_at="2026-07-04T09:00:00Z")
    builder.add("away1", title="Away", cwd="/srv/other", updated_at="2026-07-04T08:00:00Z")
    builder.add("empty1", cwd=W, events=[user("hello?")], updated_at="2026-07-04T07:00:00Z")
    builder.add(
        "awayempty", cwd="/srv/other", events=[user("hi")], updated_at="2026-07-04T06:00:00Z"
    )
    builder.add("special", cwd=W, session_kind="specialist", updated_at="2026-07-04T05:00:00Z")
    builder.add("nolog", title="No log", cwd=W, updated_at="2026-07-04T04:00:00Z")
    os.unlink(builder.store.events_path("nolog"))
    builder.add("above", title="Above", cwd="/w", updated_at="2026-07-04T03:00:00Z")
    broken = builder.root / "broken"
    broken.mkdir(mode=0o700)
    (broken / METADATA_FILE).write_bytes(b"{not json")
    return builder


def scan(picker_loader: PickerLoader) -> tuple[PickerState, list[LoadStage]]:
    stages: list[LoadStage] = []
    picker_loader.scan(stages.append, shown=False)
    state = PickerState(str(picker_loader._store.root), W)
    for stage in stages:
        if isinstance(stage, ScopeLoaded):
            state = state.with_rows(stage)
    return state, stages


def follow(picker_loader: PickerLoader, state: PickerState, *ids: str) -> list[LoadStage]:
    stages: list[LoadStage] = []
    picker_loader.changes(frozenset(ids), stages.append)
    return stages


def apply(state: PickerState, stages: list[LoadStage]) -> PickerState:
    for stage in stages:
        if isinstance(stage, StoreChanged):
            state = state.with_changes(stage)
    return state


def scopes(state: PickerState) -> dict[ScopeKey, tuple[list[str], object]]:
    return {
        key: ([row.session_id for row in scope.rows], scope.hidden)
        for key, scope in state.scopes.items()
    }


def make_loader(builder: StoreBuilder, cache: Path) -> PickerLoader:
    return PickerLoader(builder.store, W, HERE, cache_dir=cache, clock=fixed_clock())


def test_facts_place_every_session_as_the_scope_filter_does(
    make_store: Callable[..., StoreBuilder],
) -> None:
    builder = varied_store(make_store)
    store = builder.store
    sessions = store.list()

    def check(session_id: str) -> bool:
        return has_resumable_content(store, session_id)

    facts = {meta.session_id: session_facts(store, meta, W, check) for meta in sessions}
    assert facts["nolog"] == SessionFacts(resumable=True, here=True, empty=False)
    assert facts["awayempty"] == SessionFacts(resumable=True, here=False, empty=True)
    for key in ALL_SCOPES:
        found = filter_scope(store, W, key, sessions, check)
        listed = [sid for sid, fact in facts.items() if fact.placement(key) == "listed"]
        assert sorted(listed) == sorted(meta.session_id for meta in found.sessions), key
        for counted in ("other_workspace", "empty_runs", "not_resumable", "other_empty_runs"):
            placed = [sid for sid, fact in facts.items() if fact.placement(key) == counted]
            assert len(placed) == getattr(found, counted), (key, counted)


def test_changes_read_again_give_the_scopes_a_new_scan_gives(
    make_store: Callable[..., StoreBuilder], tmp_path: Path
) -> None:
    builder = varied_store(make_store)
    store = builder.store
    picker_loader = make_loader(builder, tmp_path / "cache")
    state, stages = scan(picker_loader)
    done = next(index for index, stage in enumerate(stages) if isinstance(stage, ScanDone))
    assert all(isinstance(stage, UsageFound) for stage in stages[done + 1 :])
    assert len(state.scopes) == len(ALL_SCOPES)

    store.append_events("here2", [user("and one more thing"), assistant("done too")])
    builder.add("new1", title="Brand new", cwd=W, updated_at="2026-07-04T11:00:00Z")
    store.update_title("here1", "Here one, renamed")
    shutil.rmtree(store.session_dir("away1"))
    store.append_events("empty1", [assistant("an answer at last")])  # no longer empty
    builder.add("newaway", cwd="/srv/other", events=[user("q")])  # an empty run elsewhere
    (store.session_dir("here2") / METADATA_FILE).write_bytes(b"[]")  # unreadable now
    shutil.rmtree(builder.root / "broken")  # gone: no longer unreadable
    changed = ("here1", "here2", "away1", "empty1", "new1", "newaway", "broken", "untouched")
    stages = follow(picker_loader, state, *changed)
    [change] = [stage for stage in stages if isinstance(stage, StoreChanged)]
    kinds = {item.session_id: item.kind for item in change.changes}
    assert kinds == {
        "here1": "changed",
        "here2": "removed",  # unreadable: no longer listed
        "away1": "removed",
        "empty1": "changed",
        "new1": "new",
        "newaway": "new",
    }
    assert isinstance(stages[-1], ChangesDone)
    followed = apply(state, stages)
    assert [entry.session_id for entry in followed.unreadable] == ["here2"]

    fresh, _ = scan(make_loader(builder, tmp_path / "cache-fresh"))
    assert scopes(followed) == scopes(fresh)
    assert followed.store_total == fresh.store_total
    here = followed.scopes[HERE].rows
    assert {"new1", "empty1", "here1", "nolog"} == {row.session_id for row in here}
    renamed = next(row for row in here if row.session_id == "here1")
    assert renamed.title == "Here one, renamed"
    assert set(followed.sessions or {}) == {meta.session_id for meta in store.list()}


def test_nothing_changed_posts_no_change(
    make_store: Callable[..., StoreBuilder], tmp_path: Path
) -> None:
    builder = varied_store(make_store)
    cache = tmp_path / "cache"
    picker_loader = make_loader(builder, cache)
    state, _ = scan(picker_loader)
    with SessionCatalog(builder.store, cache) as catalog:
        catalog.refresh()
        catalog.update_content()
    (builder.root / "not a session!").mkdir()  # no valid id: the scan does not list it either
    stages = follow(picker_loader, state, "here1", "nosuch", "not a session!")
    assert not [stage for stage in stages if isinstance(stage, StoreChanged)]
    assert isinstance(stages[-1], ChangesDone)
    assert not stages[-1].indexed


def test_no_changes_before_a_scan_is_done(
    make_store: Callable[..., StoreBuilder], tmp_path: Path
) -> None:
    builder = varied_store(make_store)
    stages: list[LoadStage] = []
    make_loader(builder, tmp_path / "cache").changes(frozenset({"here1"}), stages.append)
    assert stages == []


def test_the_text_index_takes_in_new_and_appended_sessions(
    make_store: Callable[..., StoreBuilder], tmp_path: Path
) -> None:
    builder = varied_store(make_store)
    cache = tmp_path / "cache"
    picker_loader = make_loader(builder, cache)
    state, _ = scan(picker_loader)
    with SessionCatalog(builder.store, cache) as catalog:
        catalog.refresh()
        catalog.update_content()
    builder.add("new1", title="Kestrels", cwd=W, events=chat("where do kestrels nest", "cliffs"))
    builder.store.append_events("here1", [user("a note on ospreys")])
    stages = follow(picker_loader, state, "new1", "here1")
    assert ChangesDone(indexed=True) in stages
    followed = apply(state, stages)
    search = ContentSearch(builder.store, cache)
    rows = followed.scopes[HERE].rows
    for word, expected in (("kestrels", "new1"), ("ospreys", "here1")):
        outcome = search.search(word, rows, scan=followed.scan, sessions=followed.sessions)
        assert [hit.session.session_id for hit in outcome.hits] == [expected]


def indexed_osprey_store(
    make_store: Callable[..., StoreBuilder], cache: Path
) -> tuple[StoreBuilder, PickerState]:
    """The varied store with a note on ospreys in here1, scanned, its text indexed."""
    builder = varied_store(make_store)
    builder.store.append_events("here1", [user("a note on ospreys and osprey nests")])
    state, _ = scan(make_loader(builder, cache))
    with SessionCatalog(builder.store, cache) as catalog:
        catalog.refresh()
        catalog.update_content()
    return builder, state


def test_content_queries_over_the_same_rows_prepare_their_scope_once(
    make_store: Callable[..., StoreBuilder], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The picker hands the same rows key after key: every query searches the metadata
    list the first one made (the query layer keeps its index of the scope by it) and the
    rows' places it found; other rows make them again. The hits are a fresh search's."""
    cache = tmp_path / "cache"
    builder, state = indexed_osprey_store(make_store, cache)
    searched = spy(monkeypatch, content_search, "search")
    placed = spy(monkeypatch, content_search, "row_positions")
    search = ContentSearch(builder.store, cache)
    rows = state.scopes[HERE].rows
    typed = [
        search.search(text, rows, scan=state.scan, sessions=state.sessions)
        for text in ("os", "osp", "ospr", "ospreys")
    ]
    assert [hit.session.session_id for hit in typed[-1].hits] == ["here1"]
    assert len({id(args[2]) for args, _ in searched}) == 1  # one metadata list
    assert len(placed) == 1
    fresh = ContentSearch(builder.store, cache)
    again = fresh.search("ospreys", list(rows), scan=state.scan, sessions=state.sessions)
    assert (again.order, again.hits) == (typed[-1].order, typed[-1].hits)
    search.search("ospreys", list(rows), scan=state.scan, sessions=state.sessions)
    assert len(placed) == 3  # the fresh search's rows, then other rows here


def test_a_query_asked_again_over_the_same_rows_is_answered_from_before(
    make_store: Callable[..., StoreBuilder], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Backspace asks again what was typed before: over the same rows, the same index and
    the same flags, the answer kept is given without searching; a write to the index (on
    another connection, as the picker's index worker writes) or new flags ask anew."""
    cache = tmp_path / "cache"
    builder, state = indexed_osprey_store(make_store, cache)
    searched = spy(monkeypatch, content_search, "search")
    search = ContentSearch(builder.store, cache)
    rows = state.scopes[HERE].rows

    def found(text: str) -> list[str]:
        outcome = search.search(text, rows, scan=state.scan, sessions=state.sessions)
        return [hit.session.session_id for hit in outcome.hits]

    typed = [found(text) for text in ("os", "osp", "ospr", "osp", "os")]
    assert typed[-2:] == typed[1::-1]
    assert len(searched) == 3  # os, osp, ospr; then both from before
    builder.store.append_events("here2", [user("ospreys again, by the river")])
    with SessionCatalog(builder.store, cache) as catalog:
        catalog.update_content()
    assert found("ospr") == ["here2", "here1"]  # the index changed: searched again
    assert len(searched) == 4
    search.flags = FlagBook({"here2": SessionFlags(tags=("birds",))})
    assert found("ospr") == ["here2", "here1"]
    assert found("ospr tag:birds") == ["here2"]
    assert len(searched) == 6  # new flags: nothing kept


def test_a_cancelled_content_search_is_not_kept(
    make_store: Callable[..., StoreBuilder], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search the next key cancelled may have stopped short: asked again, it runs."""
    builder = varied_store(make_store)
    cache = tmp_path / "cache"
    state, _ = scan(make_loader(builder, cache))
    searched = spy(monkeypatch, content_search, "search")
    search = ContentSearch(builder.store, cache)
    rows = state.scopes[HERE].rows
    for cancelled in (lambda: True, lambda: False, lambda: False):
        search.search("here", rows, scan=state.scan, sessions=state.sessions, cancelled=cancelled)
    assert len(searched) == 2


def test_running_now_is_posted_after_each_batch(
    make_store: Callable[..., StoreBuilder], tmp_path: Path
) -> None:
    builder = varied_store(make_store)
    picker_loader = make_loader(builder, tmp_path / "cache")
    state, _ = scan(picker_loader)
    quiet = follow(picker_loader, state)  # no session: only which run now
    assert [stage for stage in quiet if isinstance(stage, RunningFound)] == [RunningFound({})]
    # written just now, its last event a prompt: a run in flight (the log's signal)
    store = SessionStore(builder.root)  # the real clock
    store.create("live1", cwd=W, title="Running now")
    store.append_events("live1", [user("go on")])
    stages = follow(picker_loader, state, "live1")
    [found] = [stage for stage in stages if isinstance(stage, RunningFound)]
    assert {sid: item.kind for sid, item in found.running.items()} == {"live1": "recent"}
    followed = apply(state, stages)
    assert "live1" in {row.session_id for row in followed.scopes[HERE].rows}
    store.append_events("live1", [assistant("done")])  # the run's last event
    stages = follow(picker_loader, state, "live1")
    [found] = [stage for stage in stages if isinstance(stage, RunningFound)]
    assert dict(found.running) == {}


def test_a_registry_entry_of_another_zero_tui_marks_its_session(
    make_store: Callable[..., StoreBuilder], tmp_path: Path
) -> None:
    builder = varied_store(make_store)
    picker_loader = make_loader(builder, tmp_path / "cache")
    state, _ = scan(picker_loader)
    assert "empty1" not in {row.session_id for row in state.scopes[HERE].rows}
    claims = [running_module.claim_run(builder.store, sid) for sid in ("here1", "empty1")]
    try:
        stages = follow(picker_loader, state)
    finally:
        for claim in claims:
            claim.release()
    [found] = [stage for stage in stages if isinstance(stage, RunningFound)]
    assert {sid: item.kind for sid, item in found.running.items()} == {
        "here1": "zero-tui",
        "empty1": "zero-tui",
    }
    # an empty run that runs is listed: it is a conversation starting, not a failed run
    running = apply(state, stages)
    assert "empty1" in {row.session_id for row in running.scopes[HERE].rows}
    assert running.scopes[HERE].hidden.empty_runs == state.scopes[HERE].hidden.empty_runs - 1
    # and hidden again once it stopped without an answer
    stopped = apply(running, follow(picker_loader, running))
    assert scopes(stopped) == scopes(state)


def test_a_zero_started_just_after_the_last_look_is_seen_at_the_next_batch(
    make_store: Callable[..., StoreBuilder], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The processes are looked at afresh for each batch: a write means something may
    have just started (a scan of /proc kept for a second missed it)."""
    # the real process signal, over a process table of the test's own
    monkeypatch.setattr(running_module, "zero_processes", REAL_ZERO_PROCESSES)
    monkeypatch.setattr(running_module, "_process_scan", None)
    table: list[tuple[int, list[str]]] = []
    monkeypatch.setattr(running_module, "_command_lines", lambda: iter(table))
    builder = varied_store(make_store)
    picker_loader = make_loader(builder, tmp_path / "cache")
    state, _ = scan(picker_loader)
    assert [stage for stage in follow(picker_loader, state) if isinstance(stage, RunningFound)] == [
        RunningFound({})
    ]
    table.append((4242, ["zero", "exec", "--resume", "here1", "--", "go on"]))
    stages = follow(picker_loader, state, "here1")
    [found] = [stage for stage in stages if isinstance(stage, RunningFound)]
    assert found.running["here1"] == running_module.Running("here1", "zero-process", 4242)


def usage_event(prompt: int, completion: int, cached: int = 0) -> tuple[str, object]:
    payload = {"promptTokens": prompt, "completionTokens": completion}
    return (
        "provider_usage",
        payload | {"totalTokens": prompt + completion, "cachedInputTokens": cached},
    )


def found_usage(stages: list[LoadStage]) -> tuple[list[str], dict[str, Tokens]]:
    """The sessions in the order their tokens came, and every session's tokens."""
    order: list[str] = []
    usage: dict[str, Tokens] = {}
    for stage in stages:
        if isinstance(stage, UsageFound):
            order += list(stage.usage)
            usage |= stage.usage
    return order, usage


def test_with_a_warm_catalog_the_rows_shown_get_their_tokens_before_the_scan_goes_on(
    make_store: Callable[..., StoreBuilder], tmp_path: Path
) -> None:
    """The tokens column filled seconds after the first rows at 10,000 sessions: tokens
    came once every scope was filtered. Now the rows shown from the catalog get theirs at
    once, and the first scope's again as soon as it is final."""
    builder = varied_store(make_store)
    builder.store.append_events("here2", [usage_event(2000, 300, 1500)])
    scan(make_loader(builder, tmp_path / "cache"))  # the catalog remembers every session
    builder.store.append_events("here1", [usage_event(50, 5)])  # changed since: read again
    _, stages = scan(make_loader(builder, tmp_path / "cache"))
    kinds = [type(stage).__name__ for stage in stages]
    first_tokens = kinds.index("UsageFound")
    assert first_tokens < kinds.index("UnreadableFound")  # before the catalog is refreshed
    tokens = stages[first_tokens]
    assert isinstance(tokens, UsageFound)
    assert tokens.usage["here2"] == Tokens(1, 2000, 300, 2300, 1500)
    assert tokens.usage["here1"] == Tokens(1, 50, 5, 55, 0)
    order, _ = found_usage(stages)
    assert len(order) == len(set(order))  # each once


def test_a_scan_then_says_each_listed_session_s_tokens_this_workspace_s_first(
    make_store: Callable[..., StoreBuilder], tmp_path: Path
) -> None:
    builder = varied_store(make_store)
    store = builder.store
    store.append_events("away1", [usage_event(900, 100)])
    store.append_events("here2", [usage_event(2000, 300, 1500), usage_event(10, 1)])
    picker_loader = make_loader(builder, tmp_path / "cache")
    state, stages = scan(picker_loader)
    order, usage = found_usage(stages)
    here = [row.session_id for row in state.scopes[HERE].rows]
    assert order[: len(here)] == here  # the scope shown first
    assert len(order) == len(set(order))  # each once
    assert "special" not in order  # a kind Zero does not resume is listed nowhere
    assert usage["here2"] == Tokens(2, 2010, 301, 2311, 1500)
    assert usage["away1"] == Tokens(1, 900, 100, 1000, 0)
    assert usage["here1"] == Tokens()
    assert (
        PickerState().with_usage(usage).with_usage({"x": Tokens(1)}).usage["here2"]
        == usage["here2"]
    )

    # a session that changes says its new figures
    store.append_events("here1", [usage_event(5, 5)])
    _, changed = found_usage(follow(picker_loader, state, "here1"))
    assert changed == {"here1": Tokens(1, 5, 5, 10, 0)}


def test_a_fork_s_row_names_its_parent_from_the_sessions_the_scan_read(
    make_store: Callable[..., StoreBuilder], tmp_path: Path
) -> None:
    from zero_tui.store.fork import fork_session

    builder = varied_store(make_store)
    store = builder.store
    fork = fork_session(store, "here1", at_sequence=2, title="Try another way")
    orphan = fork_session(store, "here2", title="Orphan")
    shutil.rmtree(store.session_dir("here2"))
    builder.add(  # a fork here of a session in another workspace: its parent is not listed
        "crossfork",
        title="Cross",
        cwd=W,
        session_kind="fork",
        parent_session_id="away1",
        forked_from_sequence=2,
        updated_at="2026-07-04T11:00:00Z",
    )
    state, _ = scan(make_loader(builder, tmp_path / "cache"))
    rows = {row.session_id: row for row in state.scopes[(True, True)].rows}
    assert rows[fork.session_id].lineage == "⑂ fork of “Here one” at event #2"
    assert rows[orphan.session_id].lineage == "⑂ fork of here2 at event #2"
    assert rows["here1"].lineage == ""
    assert rows["crossfork"].lineage == "⑂ fork of “Away” at event #2"

    # the picker's next start shows the remembered rows the same way
    remembered: list[LoadStage] = []
    make_loader(builder, tmp_path / "cache").remembered(remembered.append)
    [first] = remembered
    assert first.scope is not None  # type: ignore[union-attr]
    again = {row.session_id: row for row in first.scope.rows}  # type: ignore[union-attr]
    for session_id in (fork.session_id, orphan.session_id, "crossfork"):
        assert again[session_id].lineage == rows[session_id].lineage, session_id


def test_a_session_deleted_here_leaves_every_scope_at_once(
    make_store: Callable[..., StoreBuilder], tmp_path: Path
) -> None:
    state, _ = scan(make_loader(varied_store(make_store), tmp_path / "cache"))
    gone = state.without_session("here1")
    for key, scope in gone.scopes.items():
        before = [row.session_id for row in state.scopes[key].rows]
        assert [row.session_id for row in scope.rows] == [sid for sid in before if sid != "here1"]
        assert scope.hidden == state.scopes[key].hidden
