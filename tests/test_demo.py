"""The demo store: written only through SessionStore, readable, deterministic."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from zero_tui.demo import HOSTILE_TITLE, DemoStore, build_demo_store, demo_environment
from zero_tui.paths import default_cache_dir
from zero_tui.search.catalog import SessionCatalog
from zero_tui.store import SessionStore
from zero_tui.store.resumable import event_shows_progress, filter_resumable
from zero_tui.transcript.render_text import render_transcript_text
from zero_tui.transcript.rows import RowKind, collapse_for_display, rows_from_events

NOW = datetime(2026, 7, 4, 12, 0, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoStore:
    return build_demo_store(tmp_path_factory.mktemp("demo") / "sessions", now=NOW)


def test_store_lists_every_session(demo: DemoStore) -> None:
    listed = SessionStore(demo.root).list()
    assert len(listed) == len(demo.session_ids) >= 35
    assert {meta.session_id for meta in listed} == set(demo.session_ids)


def test_workspaces_are_real_directories(demo: DemoStore) -> None:
    projects = demo.root.parent / "projects"
    assert [path.name for path in demo.workspaces] == ["webapp", "cli-tool", "infra"]
    assert all(path.is_dir() and path.parent == projects for path in demo.workspaces)
    cwds = {meta.cwd for meta in SessionStore(demo.root).list()}
    assert {str(path) for path in demo.workspaces} <= cwds
    default = str(demo.default_workspace)
    assert sum(meta.cwd == default for meta in SessionStore(demo.root).list()) >= 15


def test_every_log_reads_back_and_matches_metadata(demo: DemoStore) -> None:
    store = SessionStore(demo.root)
    for meta in store.list():
        events = store.read_events(meta.session_id)
        assert [event.sequence for event in events] == list(range(1, len(events) + 1))
        assert meta.event_count == len(events)
        if events:
            assert meta.updated_at == events[-1].created_at
            assert meta.last_event_type == events[-1].type
        rehydrated = store.read_rehydrated_events(meta.session_id)
        sequences = {event.sequence for event in rehydrated}
        rows = rows_from_events(rehydrated)
        assert all(set(row.sequences) <= sequences for row in rows)
        assert bool(rows) == any(event.type == "message" for event in rehydrated)


def test_sessions_spread_over_months_and_today(demo: DemoStore) -> None:
    updated = [
        datetime.strptime(meta.updated_at, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
        for meta in SessionStore(demo.root).list()
    ]
    assert max(updated) <= NOW
    assert min(updated) <= NOW - timedelta(days=60)
    assert any(moment.date() == NOW.date() for moment in updated)


def test_compacted_session_rehydrates(demo: DemoStore) -> None:
    store = SessionStore(demo.root)
    raw = store.read_events(demo.compacted_session_id)
    compaction = next(event for event in raw if event.type == "session_compaction")
    payload = compaction.payload
    assert list(payload)[:4] == ["summary", "preserveLast", "compactableCount", "preservedCount"]
    compacted_ids = [ref["id"] for ref in payload["compactableEvents"]]
    assert payload["compactedThroughEventId"] == compacted_ids[-1]
    assert payload["compactableCount"] == len(compacted_ids)
    rehydrated = store.read_rehydrated_events(demo.compacted_session_id)
    assert rehydrated[0].id == compaction.id
    assert not {event.id for event in rehydrated} & set(compacted_ids)
    rows = rows_from_events(rehydrated)
    assert rows[0].kind is RowKind.SUMMARY


def test_fork_copies_parent_events(demo: DemoStore) -> None:
    store = SessionStore(demo.root)
    parent = store.get(demo.fork_parent_session_id)
    fork = store.get(demo.fork_session_id)
    assert parent is not None
    assert fork is not None
    assert fork.session_kind == "fork"
    assert fork.parent_session_id == parent.session_id
    assert fork.title == f"{parent.title} (fork)"
    parent_events = store.read_events(parent.session_id)
    fork_events = store.read_events(fork.session_id)
    copied = [event for event in parent_events if event.type != "provider_usage"]
    assert [e.payload_raw for e in fork_events[: len(copied)]] == [e.payload_raw for e in copied]
    marker = fork_events[len(copied)]
    assert marker.type == "session_fork"
    assert marker.payload == {
        "copiedEventCount": len(copied),
        "forkedFromEventId": parent_events[-1].id,
        "forkedFromSequence": parent_events[-1].sequence,
        "parentEventCount": len(parent_events),
        "parentSessionId": parent.session_id,
    }
    assert fork.forked_from_event_id == parent_events[-1].id


def test_child_session_and_specialist_card(demo: DemoStore) -> None:
    store = SessionStore(demo.root)
    child = store.get(demo.child_session_id)
    assert child is not None
    assert (child.session_kind, child.tag, child.depth) == ("child", "specialist", 1)
    assert child.parent_session_id == demo.specialist_parent_session_id
    assert child.session_id not in {meta.session_id for meta in store.list_resumable()}
    rows = rows_from_events(store.read_events(demo.specialist_parent_session_id))
    cards = [row for row in rows if row.kind is RowKind.SPECIALIST]
    assert len(cards) == 1
    assert cards[0].specialist is not None
    assert cards[0].specialist.status == "completed"
    assert not any(row.tool == "Task" for row in rows)


def test_demo_covers_the_interesting_rows(demo: DemoStore) -> None:
    store = SessionStore(demo.root)
    all_rows = [
        row
        for meta in store.list()
        for row in rows_from_events(store.read_rehydrated_events(meta.session_id))
    ]
    kinds = {row.kind for row in all_rows}
    assert {RowKind.USER, RowKind.ASSISTANT, RowKind.ERROR, RowKind.PERMISSION} <= kinds
    assert {RowKind.ASK_USER, RowKind.TOOL_RESULT, RowKind.SYSTEM} <= kinds
    assert any(row.kind is RowKind.FORK for row in all_rows)
    assert any(row.status == "error" for row in all_rows if row.kind is RowKind.TOOL_RESULT)
    denied = [row for row in all_rows if row.permission and row.permission.action == "deny"]
    assert denied
    assert any(row.tool == "peer" for row in all_rows)
    assert any(
        "```" in row.text and "|" in row.text for row in all_rows if row.kind is RowKind.ASSISTANT
    )
    assert any(meta.goal is not None and meta.goal.status == "active" for meta in store.list())


def test_empty_runs_exist(demo: DemoStore) -> None:
    store = SessionStore(demo.root)
    assert len(demo.empty_run_session_ids) >= 3
    for session_id in demo.empty_run_session_ids:
        assert not any(event_shows_progress(event) for event in store.read_events(session_id))
    meta = store.get(demo.empty_run_session_ids[-1])
    assert meta is not None
    assert meta.event_count == 0


def test_hostile_session_is_data(demo: DemoStore) -> None:
    store = SessionStore(demo.root)
    meta = store.get(demo.hostile_session_id)
    assert meta is not None
    assert meta.title == HOSTILE_TITLE
    rows = rows_from_events(store.read_events(demo.hostile_session_id))
    answer = next(row for row in rows if row.kind is RowKind.ASSISTANT)
    assert "\x1b[31m" in answer.text
    assert "<script>alert(1)</script>" in answer.text
    text = render_transcript_text(meta, collapse_for_display(rows))
    assert "\x1b" not in text
    assert "<script>alert(1)</script>" in text


def _logs(root: Path) -> dict[str, bytes]:
    return {path.parent.name: path.read_bytes() for path in root.glob("*/events.jsonl")}


def test_deterministic_for_a_given_now(demo: DemoStore, tmp_path: Path) -> None:
    again = build_demo_store(tmp_path / "sessions", now=NOW)
    assert again.session_ids == demo.session_ids
    assert _logs(again.root) == _logs(demo.root)
    titles = [(meta.session_id, meta.title) for meta in SessionStore(again.root).list()]
    assert titles == [(meta.session_id, meta.title) for meta in SessionStore(demo.root).list()]


def test_the_demo_store_can_be_continued(tmp_path: Path) -> None:
    """The agent writes only Zero's default root: the demo's layout lets it write there."""
    from zero_tui.agent.engine import agent_environment
    from zero_tui.demo import demo_sessions_root

    root = demo_sessions_root(tmp_path)
    built = build_demo_store(root, now=NOW)
    env = agent_environment(built.root, {"HOME": str(tmp_path / "home")})
    assert env["XDG_DATA_HOME"] == str(tmp_path)
    assert all(tmp_path in workspace.parents for workspace in built.workspaces)


def test_the_demo_keeps_its_cache_in_its_temp_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    user_cache = tmp_path / "user-cache"
    monkeypatch.setenv("ZERO_TUI_CACHE_DIR", str(user_cache))
    with demo_environment(now=NOW) as demo:
        temp_dir = demo.root.parents[1]  # the store is <temp dir>/zero/sessions
        cache = default_cache_dir()
        assert cache.is_relative_to(temp_dir)
        catalog = SessionCatalog(SessionStore(demo.root))
        catalog.refresh()
        catalog.save()
        assert any(cache.iterdir())
    assert not temp_dir.exists()
    assert not user_cache.exists()  # nothing of the demo's in the user's cache
    assert default_cache_dir() == user_cache  # and the setting is back


def test_the_readme_counts_the_demo_as_the_picker_shows_it(demo: DemoStore) -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    store = SessionStore(demo.root)
    every = filter_resumable(store, str(demo.default_workspace), all_workspaces=True)
    workspaces = {meta.cwd for meta in every.sessions}
    words = {3: "three", 4: "four", 5: "five"}
    assert f"{len(store.list())} sessions in {words[len(workspaces)]} workspaces" in readme
