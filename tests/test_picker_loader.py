"""The picker's loader without an app: its stages, in order, cold and warm, and a cancel."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import StoreBuilder, fixed_clock, user

from zero_tui.picker.head_cache import head_path
from zero_tui.picker.loader import (
    FIRST_CHUNK,
    FIRST_SCREEN_ROWS,
    EnclosingFolders,
    LoadStage,
    PickerLoader,
    RememberedRows,
    ScanFailed,
    ScanProgress,
    ScopeLoaded,
    UnreadableFound,
    load_preview,
)
from zero_tui.picker.scopes import ALL_SCOPES, HiddenCounts, ScopeKey
from zero_tui.store import SessionStore
from zero_tui.store.store import METADATA_FILE

W = "/w/app"
HERE: ScopeKey = (False, False)


def loader(builder: StoreBuilder, cache: Path, *, workspace: str = W) -> PickerLoader:
    return PickerLoader(builder.store, workspace, HERE, cache_dir=cache, clock=fixed_clock())


def run_scan(
    picker_loader: PickerLoader, *, shown: bool, cancelled: Callable[[], bool] = lambda: False
) -> list[LoadStage]:
    stages: list[LoadStage] = []
    picker_loader.scan(stages.append, cancelled, shown=shown)
    return stages


def remembered(picker_loader: PickerLoader) -> RememberedRows:
    stages: list[LoadStage] = []
    picker_loader.remembered(stages.append)
    [stage] = stages
    assert isinstance(stage, RememberedRows)
    return stage


def scopes_of(stages: list[LoadStage]) -> list[ScopeLoaded]:
    return [stage for stage in stages if isinstance(stage, ScopeLoaded)]


def ids(stage: ScopeLoaded) -> list[str]:
    return [row.session_id for row in stage.rows]


def mixed_store(make_store: Callable[..., StoreBuilder], sessions_here: int) -> StoreBuilder:
    """`sessions_here` sessions here (newest last), two in `/w`, one empty run here."""
    builder = make_store()
    for number in range(sessions_here):
        stamp = f"2026-07-04T10:{number // 60:02}:{number % 60:02}Z"
        builder.add(f"s{number:03}", title=f"Session {number}", cwd=W, updated_at=stamp)
    builder.add("top1", cwd="/w", updated_at="2026-07-03T10:00:00Z")
    builder.add("top2", cwd="/w", updated_at="2026-07-03T11:00:00Z")
    builder.add("empty", cwd=W, events=[user("hello")], updated_at="2026-07-03T12:00:00Z")
    return builder


def test_a_cold_start_posts_a_first_screen_then_the_store_scope_by_scope(
    make_store: Callable[..., StoreBuilder], tmp_path: Path
) -> None:
    count = FIRST_SCREEN_ROWS + 40
    builder = mixed_store(make_store, count)
    cache = tmp_path / "cache"
    cold = loader(builder, cache)
    assert remembered(cold) == RememberedRows(HERE, None)

    stages = run_scan(cold, shown=False)
    newest_first = [f"s{number:03}" for number in reversed(range(count))]
    first, *rest = scopes_of(stages)
    assert (first.key, first.replace, first.complete) == (HERE, True, False)
    assert FIRST_SCREEN_ROWS <= len(first.rows) < count
    assert ids(first) == newest_first[: len(first.rows)]
    # Nothing catalogued: the metadata files are read with progress, then what they said.
    progress = [stage for stage in stages if isinstance(stage, ScanProgress)]
    assert progress
    assert progress[-1].done == progress[-1].total == count + 3
    kinds = [type(stage) for stage in stages if not isinstance(stage, ScanProgress)]
    assert kinds[1:3] == [UnreadableFound, EnclosingFolders]
    assert UnreadableFound(()) in stages
    assert EnclosingFolders((("/w", 2),)) in stages
    # Then every scope, the current one first, each in one piece (rows are on screen: no
    # list that shrinks while it fills again).
    assert [(stage.key, stage.replace, stage.complete) for stage in rest] == [
        (key, True, True) for key in ALL_SCOPES
    ]
    assert ids(rest[0]) == newest_first
    assert rest[0].hidden == HiddenCounts(other_workspace=2, empty_runs=1)
    assert {stage.store_total for stage in rest} == {count + 3}


def test_the_next_start_shows_the_remembered_rows_and_whole_scopes(
    make_store: Callable[..., StoreBuilder], tmp_path: Path
) -> None:
    builder = mixed_store(make_store, 5)
    cache = tmp_path / "cache"
    run_scan(loader(builder, cache), shown=False)
    assert head_path(cache, builder.store.root, W).exists()

    warm = loader(builder, cache)
    head = remembered(warm).scope
    assert head is not None
    assert (head.replace, head.complete) == (True, False)
    assert ids(head) == ["s004", "s003", "s002", "s001", "s000"]
    assert head.hidden == HiddenCounts(other_workspace=2, empty_runs=1)
    assert head.store_total == 8

    # Rows are on screen: the catalog's rows, then the store's, one piece per scope.
    stages = run_scan(warm, shown=True)
    loaded = scopes_of(stages)
    assert all(stage.replace for stage in loaded)
    assert [(stage.key, stage.complete) for stage in loaded] == [
        (HERE, False),
        *((key, True) for key in ALL_SCOPES),
    ]
    assert not any(isinstance(stage, ScanProgress) for stage in stages)


def test_with_nothing_on_screen_the_catalogs_rows_come_in_chunks(
    make_store: Callable[..., StoreBuilder], tmp_path: Path
) -> None:
    """The catalog knows the store but nothing is remembered: the first chunk of the scope
    comes before the rest of it is filtered."""
    count = FIRST_CHUNK + 5
    builder = mixed_store(make_store, count)
    cache = tmp_path / "cache"
    run_scan(loader(builder, cache), shown=False)
    head_path(cache, builder.store.root, W).unlink()
    first, rest, *store = scopes_of(run_scan(loader(builder, cache), shown=False))
    assert (first.replace, first.complete, len(first.rows)) == (True, False, FIRST_CHUNK)
    assert (rest.replace, rest.complete, len(rest.rows)) == (False, False, 5)
    assert [(stage.key, stage.complete) for stage in store] == [(key, True) for key in ALL_SCOPES]


def test_a_cancelled_scan_stops_and_remembers_nothing(
    make_store: Callable[..., StoreBuilder], tmp_path: Path
) -> None:
    builder = mixed_store(make_store, 3)
    cache = tmp_path / "cache"
    stages: list[LoadStage] = []

    def post(stage: LoadStage) -> None:
        stages.append(stage)

    def cancelled() -> bool:
        return any(isinstance(stage, EnclosingFolders) for stage in stages)

    loader(builder, cache).scan(post, cancelled, shown=False)
    assert isinstance(stages[-1], EnclosingFolders)
    assert not any(isinstance(stage, ScopeLoaded) and stage.complete for stage in stages)
    assert remembered(loader(builder, cache)).scope is None


def test_the_first_screen_is_remembered_as_soon_as_it_is_final(
    make_store: Callable[..., StoreBuilder], tmp_path: Path
) -> None:
    """Issue 19: a picker quit while the other scopes are still filtered (seconds at
    50,000 sessions) must leave the next start warm, not slower than a cold one."""
    builder = mixed_store(make_store, 4)
    cache = tmp_path / "cache"
    path = head_path(cache, builder.store.root, W)
    stages: list[LoadStage] = []
    remembered_before_next_scope: list[bool] = []

    def post(stage: LoadStage) -> None:
        if isinstance(stage, ScopeLoaded) and stage.key != HERE and stage.complete:
            remembered_before_next_scope.append(path.exists())
        stages.append(stage)

    def first_scope_final() -> bool:  # the picker is quit once its first screen is final
        return any(
            isinstance(stage, ScopeLoaded) and stage.key == HERE and stage.complete
            for stage in stages
        )

    loader(builder, cache).scan(post, first_scope_final, shown=False)
    assert not remembered_before_next_scope  # it stopped before the next scope
    head = remembered(loader(builder, cache)).scope
    assert head is not None
    assert ids(head) == ["s003", "s002", "s001", "s000"]

    # A scan left to finish writes the first scope before it posts the next one.
    path.unlink()
    loader(builder, cache).scan(post, shown=False)
    assert remembered_before_next_scope == [True] * (len(ALL_SCOPES) - 1)


def test_unreadable_sessions_and_an_unreadable_store(
    make_store: Callable[..., StoreBuilder], tmp_path: Path
) -> None:
    builder = mixed_store(make_store, 2)
    (Path(builder.store.root) / "s000" / METADATA_FILE).write_text("{not json")
    stages = run_scan(loader(builder, tmp_path / "cache"), shown=False)
    [found] = [stage for stage in stages if isinstance(stage, UnreadableFound)]
    assert [session.session_id for session in found.sessions] == ["s000"]

    not_a_directory = tmp_path / "a-file"
    not_a_directory.write_text("")
    broken = PickerLoader(SessionStore(not_a_directory), W, HERE, cache_dir=tmp_path / "c2")
    stages = run_scan(broken, shown=False)
    assert len(stages) == 1
    assert isinstance(stages[0], ScanFailed)
    assert "read zero session root" in stages[0].error


def test_a_preview_is_built_or_says_why_not(make_store: Callable[..., StoreBuilder]) -> None:
    builder = make_store()
    builder.add("one", title="First", cwd=W, events=[user("hello there")])
    preview = load_preview(builder.store, "one", fixed_clock())
    assert (preview.title, preview.error) == ("First", "")
    assert [exchange.text for exchange in preview.exchanges] == ["hello there"]
    missing = load_preview(builder.store, "gone", fixed_clock())
    assert missing.error == "zero session not found: gone"
