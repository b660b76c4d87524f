"""SVG snapshots of the picker over hosts: `@NAME` rows beside the local ones, at 80x24
and 160x45, with each host's freshness in the status line (fixed clock; the syncs are
stood in for by their outcome, so no sshd is needed)."""

from __future__ import annotations

import pytest
from conftest import NOW, StoreBuilder, fixed_clock
from test_snapshots_picker import SnapCompare, W, picker_store, settled

from zero_tui.hosts.registry import Host, mirror_root
from zero_tui.picker.host_rows import HostSync
from zero_tui.ui.app import make_app
from zero_tui.ui.widgets import host_syncer

__all__ = ["picker_store"]  # the fixture, used below

HOSTS = (Host("devbox", "devbox", "/home/u/.local/share/zero/sessions"), Host("ci", "ci", "/s"))
OUTCOMES = {
    "devbox": HostSync("devbox", last_sync="2026-07-04T11:59:52Z"),
    "ci": HostSync(
        "ci",
        last_sync="2026-07-04T10:40:00Z",
        error="ci: unreachable (connection refused)",
        error_at="2026-07-04T10:42:00Z",
    ),
}


@pytest.fixture
def mirrors(monkeypatch: pytest.MonkeyPatch) -> None:
    devbox = StoreBuilder(mirror_root("devbox"))
    devbox.store.root.mkdir(parents=True)
    devbox.add(
        "zero_20260704114500_7",
        title="Profile the slow build on the box",
        cwd=W,
        model_id="gpt-5",
        updated_at="2026-07-04T11:45:00Z",
    )
    devbox.add(
        "zero_20260704070000_8",
        title="Rotate the deploy keys",
        cwd=W,
        model_id="claude-sonnet-4-5",
        updated_at="2026-07-04T07:00:00Z",
    )
    ci = StoreBuilder(mirror_root("ci"))
    ci.store.root.mkdir(parents=True)
    ci.add(
        "zero_20260704103000_9", title="Flaky test triage", cwd=W, updated_at="2026-07-04T10:30:00Z"
    )
    assert NOW.isoformat().startswith("2026-07-04T12:00")
    monkeypatch.setattr(host_syncer, "last_sync", lambda host: OUTCOMES[host.name])
    monkeypatch.setattr(host_syncer, "sync_now", lambda host, _progress, stop: OUTCOMES[host.name])


@pytest.mark.usefixtures("mirrors")
@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
def test_snapshot_picker_with_hosts(
    snap_compare: SnapCompare, picker_store: StoreBuilder, size: tuple[int, int]
) -> None:
    app = make_app(picker_store.store, cwd=W, clock=fixed_clock(), hosts=HOSTS, sync_seconds=0)
    assert snap_compare(app, terminal_size=size, run_before=settled)
