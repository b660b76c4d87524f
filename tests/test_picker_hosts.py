"""The picker's rows and status line over hosts, without an app or an sshd: a host's rows
merged in Zero's order and tagged, a row's `@NAME` beside its title at 80 columns, and
each host's freshness in one clause of the status line."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from zero_tui.hosts.registry import SessionRef
from zero_tui.picker.host_rows import HostSync, freshness, in_zero_order, on_host
from zero_tui.picker.loader import ScopeLoaded, UsageFound
from zero_tui.picker.row_layout import NaturalWidths, row_layout, row_text
from zero_tui.picker.scopes import HiddenCounts
from zero_tui.picker.session_rows import PickerRow
from zero_tui.picker.state import PickerState

NOW = datetime(2026, 7, 4, 10, 42, 30, tzinfo=UTC)
KEY = (False, False)


def row(session_id: str, updated_at: str, host: str | None = None) -> PickerRow:
    return PickerRow(
        session_id=session_id,
        label=session_id,
        when="10:00:00",
        title=f"title of {session_id}",
        model="m",
        provider="p",
        event_count=2,
        is_fork=False,
        workspace="/w",
        updated_at=updated_at,
        host=host,
    )


def loaded(*rows: PickerRow, hidden: int = 0) -> ScopeLoaded:
    return ScopeLoaded(KEY, list(rows), HiddenCounts(other_workspace=hidden), len(rows), True, True)


def test_a_sessions_key_names_its_host_only_when_it_has_one() -> None:
    assert SessionRef(None, "abc").key == "abc"
    assert SessionRef("devbox", "abc").key == "devbox/abc"
    assert row("abc", "", "devbox").key == "devbox/abc"
    assert row("abc", "").key == "abc"


def test_a_hosts_rows_are_tagged_and_merged_in_zero_order() -> None:
    stage = on_host(
        loaded(row("r1", "2026-07-04T10:00:00Z"), row("r2", "2026-07-04T07:00:00Z")), "devbox"
    )
    assert isinstance(stage, ScopeLoaded)
    assert [found.host for found in stage.rows] == ["devbox", "devbox"]
    host = PickerState("/mirror", "/w")
    state = PickerState("/store", "/w", hosts={"devbox": host})
    state = state.with_stage(loaded(row("l1", "2026-07-04T08:00:00Z"), hidden=2))
    state = state.with_host_stage("devbox", replace(stage, hidden=HiddenCounts(other_workspace=1)))
    scope = state.scope
    assert scope is not None
    assert [(found.host, found.session_id) for found in scope.rows] == [
        ("devbox", "r1"),
        (None, "l1"),
        ("devbox", "r2"),
    ]
    assert scope.hidden.other_workspace == 3
    left = state.without_session("l1").scope
    assert left is not None
    assert [found.session_id for found in left.rows] == ["r1", "r2"]


def test_the_merge_is_stable_for_rows_of_one_time() -> None:
    same = "2026-07-04T10:00:00Z"
    merged = in_zero_order([(row("a", same), row("b", same)), (row("a", same, "ci"),)])
    assert [found.key for found in merged] == ["a", "b", "ci/a"]


def test_the_tag_never_pushes_the_title_off_at_80_columns() -> None:
    layout = row_layout(80, NaturalWidths(model=1, count=4), timed=True)
    long_host = row("r1", "", "a-very-long-host-name-indeed")
    text = row_text(long_host, layout, home="/home/u")
    assert text.host.startswith("@a-very")
    assert text.host.endswith("… ")
    assert len(text.host) <= layout.title // 3
    assert text.title == "title of r1"
    plain = row_text(row("r1", "", "devbox"), layout, home="/home/u")
    assert (plain.host, plain.title) == ("@devbox ", "title of r1")


def test_freshness_says_each_hosts_state_in_one_clause() -> None:
    synced = HostSync("devbox", last_sync="2026-07-04T10:42:22Z")
    assert freshness(synced, NOW, UTC) == "devbox synced 8 s ago"
    assert freshness(replace(synced, syncing=True), NOW, UTC) == "devbox syncing…"
    assert freshness(replace(synced, syncing=True, percent=45), NOW, UTC) == "devbox syncing… 45%"
    down = HostSync(
        "ci",
        last_sync="2026-07-04T10:40:00Z",
        error="ci: unreachable (connection refused)",
        error_at="2026-07-04T10:42:00Z",
    )
    assert freshness(down, NOW, UTC) == "ci unreachable since 10:42 — showing its copy from 10:40"
    key = replace(down, error="ci: its host key changed; refused (check known_hosts)")
    assert freshness(key, NOW, UTC) == (
        "ci: its host key changed; refused (check known_hosts) — showing its copy from 10:40"
    )
    assert freshness(HostSync("new"), NOW, UTC) == "new not synced yet"
    browse = replace(synced, browse_only=True)
    assert freshness(browse, NOW, UTC).endswith("(browse only: no zero there)")


def test_the_hosts_line_says_every_hosts_freshness() -> None:
    state = PickerState(
        "/store",
        "/w",
        hosts={"devbox": PickerState("/mirror", "/w")},
        syncs={"devbox": HostSync("devbox", last_sync="2026-07-04T10:40:30Z")},
        host_time=(NOW, UTC),
    )
    state = state.with_stage(loaded(row("l1", "2026-07-04T08:00:00Z")))
    assert state.hosts_status() == "devbox synced 2 min ago"
    assert "devbox" not in state.status()
    assert not state.empty
    assert replace(state, store_total=0, hosts={}).empty


def test_a_hosts_stage_merges_again_only_the_scope_it_changed() -> None:
    host = PickerState("/mirror", "/w")
    state = PickerState("/store", "/w", hosts={"devbox": host})
    state = state.with_stage(loaded(row("l1", "2026-07-04T08:00:00Z")))
    current = state.merged[KEY]
    other = replace(loaded(row("r1", "2026-07-04T09:00:00Z")), key=(True, False))
    state = state.with_host_stage("devbox", on_host(other, "devbox"))
    assert state.merged[KEY] is current
    assert [found.key for found in state.merged[(True, False)].rows] == ["devbox/r1"]
    tokens = state.with_host_stage("devbox", UsageFound({}))
    assert tokens.merged is state.merged
