"""The picker over hosts (issue 28), driven with Pilot against a real sshd on 127.0.0.1
and the real rsync (tests/ssh_host.py): a sync brings a host's sessions in tagged with it,
ctrl+r syncs again, a host that went down is said in the status line and its rows stay,
and a mirrored row opened continues on its host (F8 on it refused)."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from agent_fixtures import write_fake_zero
from conftest import HANG_GUARD_SECONDS, StoreBuilder, chat, fixed_clock, wait_until
from host_fixtures import SESSION
from ssh_host import SshHost, free_port
from ssh_host import ssh_host as ssh_host  # the fixture
from test_app_agent import finished, ready, send
from test_app_live import own_runtime as own_runtime  # no other test's runs (autouse)
from test_app_picker import W, picker, status, type_text
from test_app_turn_actions import dialog_of, notes
from test_transcript_screen import screen_text
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from zero_tui.agent.engine import terminate_all
from zero_tui.agent.zero_commands import allow_always
from zero_tui.cli import main
from zero_tui.hosts.registry import (
    Host,
    SessionRef,
    SyncStopped,
    load_hosts,
    named_hosts,
    never,
    save_hosts,
)
from zero_tui.hosts.ssh_link import STOP_POLL_SECONDS
from zero_tui.picker import host_rows
from zero_tui.picker.session_rows import PickerRow
from zero_tui.remote.host_sessions import refusal, zero_runner_on
from zero_tui.store.store import EVENTS_FILE
from zero_tui.ui.app import ZeroApp, make_app
from zero_tui.ui.screens.picker import PickerScreen
from zero_tui.ui.screens.zero_dialogs import PermissionsDialog

SIZE = (120, 30)
REMOTE_ID = SESSION  # one id per xdist worker (host_fixtures says why)
LATER_ID = "zero_20260704110000_1783162800000000000_4"
LOCAL_ID = "zero_20260704080000_1783152000000000000_3"


@pytest.fixture
def remote(ssh_host: SshHost) -> StoreBuilder:
    builder = StoreBuilder(ssh_host.store)
    builder.add(
        REMOTE_ID,
        title="remote parser fix",
        cwd=W,
        updated_at="2026-07-04T10:00:00Z",
        events=chat("fix the parser on the box"),
    )
    assert main(["hosts", "add", "devbox", ssh_host.alias]) == 0
    return builder


@pytest.fixture
def local(make_store: Callable[..., StoreBuilder]) -> StoreBuilder:
    builder = make_store()
    builder.add(LOCAL_ID, title="local work", cwd=W, updated_at="2026-07-04T08:00:00Z")
    return builder


def hosts_app(local: StoreBuilder) -> ZeroApp:
    return make_app(
        local.store, cwd=W, clock=fixed_clock(), hosts=named_hosts(["devbox"]), sync_seconds=0
    )


def host_status(pilot: Pilot[Any]) -> str:
    return str(picker(pilot).query_one("#host-status", Static).visual)


def tagged_rows(pilot: Pilot[Any]) -> list[tuple[str | None, str]]:
    return [(row.host, row.session_id) for row in picker(pilot).session_list.visible_rows()]


def row_lines(pilot: Pilot[Any]) -> list[str]:
    session_list = picker(pilot).session_list
    return [
        "".join(segment.text for segment in session_list.render_line(y))
        for y in range(len(session_list.visible_rows()))
    ]


async def synced(pilot: Pilot[Any]) -> None:
    await wait_until(pilot, lambda: "devbox synced" in host_status(pilot), "devbox synced")


async def test_a_sync_brings_the_hosts_sessions_in_tagged_beside_the_local_ones(
    remote: StoreBuilder, local: StoreBuilder
) -> None:
    elsewhere = "zero_20260704090000_1783155600000000000_2"
    remote.add(
        elsewhere, title="remote elsewhere", cwd="/srv/other", updated_at="2026-07-04T09:00:00Z"
    )
    async with hosts_app(local).run_test(size=SIZE) as pilot:
        await synced(pilot)
        await wait_until(pilot, lambda: len(tagged_rows(pilot)) == 2, "both rows")
        assert tagged_rows(pilot) == [("devbox", REMOTE_ID), (None, LOCAL_ID)]
        lines = row_lines(pilot)
        assert "@devbox remote parser fix" in lines[0]
        assert "@" not in lines[1]
        assert "devbox synced 0 s ago" in host_status(pilot)  # the fixed clock is behind
        # a host's workspace is the same path there: Tab widens every store alike
        assert "1 in other workspaces" in status(pilot)
        await pilot.press("tab")
        await wait_until(pilot, lambda: len(tagged_rows(pilot)) == 3, "every workspace")
        assert tagged_rows(pilot)[1] == ("devbox", elsewhere)


async def test_ctrl_r_syncs_again_and_the_list_follows_the_mirror(
    remote: StoreBuilder, local: StoreBuilder
) -> None:
    async with hosts_app(local).run_test(size=SIZE) as pilot:
        await synced(pilot)
        await wait_until(pilot, lambda: len(tagged_rows(pilot)) == 2, "both rows")
        remote.add(LATER_ID, title="remote later", cwd=W, updated_at="2026-07-04T11:00:00Z")
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: len(tagged_rows(pilot)) == 3, "the new remote row")
        assert tagged_rows(pilot)[0] == ("devbox", LATER_ID)


async def test_a_host_gone_down_is_said_and_its_rows_stay(
    remote: StoreBuilder, local: StoreBuilder, ssh_host: SshHost
) -> None:
    async with hosts_app(local).run_test(size=SIZE) as pilot:
        await synced(pilot)
        await wait_until(pilot, lambda: len(tagged_rows(pilot)) == 2, "both rows")
        ssh_host.stop()
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: "devbox unreachable" in host_status(pilot), "unreachable")
        assert "— showing its copy from " in host_status(pilot)
        await wait_until(pilot, lambda: len(tagged_rows(pilot)) == 2, "the rows after ctrl+r")
        assert tagged_rows(pilot) == [("devbox", REMOTE_ID), (None, LOCAL_ID)]


async def test_quitting_mid_sync_stops_the_sync(
    local: StoreBuilder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ctrl+q while a host syncs: the sync is asked to stop (tests/test_hosts.py: rsync and
    ssh then end at once) rather than waited for, however long it would take."""
    started, ended = threading.Event(), threading.Event()
    outcome: list[str] = []

    def endless_sync(
        host: Host, progress: Callable[[int], None] | None = None, stop: Callable[[], bool] = never
    ) -> None:
        """A sync that ends only when asked to, polling `stop` as rsync's loop does."""
        started.set()
        given_up = time.monotonic() + HANG_GUARD_SECONDS  # a guard, not a budget
        try:
            while not stop():
                if time.monotonic() > given_up:
                    outcome.append("never asked to stop")
                    return
                time.sleep(STOP_POLL_SECONDS)
            outcome.append("stopped")
            raise SyncStopped(f"{host.name}: the sync stopped")
        finally:
            ended.set()

    monkeypatch.setattr(host_rows, "sync_host", endless_sync)
    app = make_app(local.store, cwd=W, clock=fixed_clock(), hosts=[Host("devbox", "devbox", "/s")])
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, started.is_set, "the sync under way")
        await pilot.press("ctrl+q")
    assert ended.wait(HANG_GUARD_SECONDS)
    assert outcome == ["stopped"]


@pytest.fixture
def continuable(ssh_host: SshHost) -> Iterator[StoreBuilder]:
    """REMOTE_ID on devbox, with the fake zero on its PATH (added after it: `hosts add`
    asks whether a zero is there); no run left behind."""
    write_fake_zero(ssh_host.bin)
    builder = StoreBuilder(ssh_host.store)
    builder.add(REMOTE_ID, title="remote parser fix", cwd=W, events=chat("fix the parser"))
    assert main(["hosts", "add", "devbox", ssh_host.alias]) == 0
    yield builder
    terminate_all(0.0)


async def test_a_mirrored_row_opened_from_the_picker_continues_on_its_host(
    continuable: StoreBuilder, local: StoreBuilder, ssh_host: SshHost
) -> None:
    async with hosts_app(local).run_test(size=SIZE) as pilot:
        await synced(pilot)
        await wait_until(pilot, lambda: len(tagged_rows(pilot)) == 2, "both rows")
        before = remote_row(pilot).event_count
        # Zero has no command to delete a session, and zero-tui keeps no flags of a
        # mirror's: F8, alt+p and ctrl+x are each refused in the one line
        await pilot.press("f8", "alt+p", "ctrl+x")
        lines = [refusal(operation, "devbox") for operation in ("delete", "pin", "mark")]
        await wait_until(pilot, lambda: all(line in notes(pilot) for line in lines), "refused")
        assert picker(pilot).state.marked == frozenset()
        await pilot.press("enter")
        screen = await ready(pilot)
        assert screen.host == load_hosts()["devbox"]  # the registry's host, not only a name
        await send(pilot, "slow 40")
        await wait_until(pilot, lambda: "chunk 1" in screen.live.blocks_text(), "streamed")
        await finished(pilot, screen)
        assert b"chunk 39" in (ssh_host.store / REMOTE_ID / EVENTS_FILE).read_bytes()
        await wait_until(pilot, lambda: "chunk 39" in screen_text(pilot), "the host's log")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, PickerScreen), "back")
        await wait_until(pilot, lambda: remote_row(pilot).event_count > before, "re-synced")


async def test_permissions_on_a_host_row_are_that_hosts_zeros(
    continuable: StoreBuilder, local: StoreBuilder
) -> None:
    allow_always(local.store, "write_file", run=zero_runner_on(load_hosts()["devbox"]))
    async with hosts_app(local).run_test(size=SIZE) as pilot:
        await synced(pilot)
        await wait_until(pilot, lambda: len(tagged_rows(pilot)) == 2, "both rows")
        assert tagged_rows(pilot)[0] == ("devbox", REMOTE_ID)  # highlighted
        assert await picker(pilot).run_text("/permissions")
        dialog = await dialog_of(pilot, PermissionsDialog)
        prompt = dialog.query_one("#grants", OptionList).get_option_at_index(0).prompt
        assert "write_file" in str(prompt)


def remote_row(pilot: Pilot[Any]) -> PickerRow:
    rows = picker(pilot).session_list.visible_rows()
    return next(row for row in rows if row.ref == SessionRef("devbox", REMOTE_ID))


async def test_ctrl_t_searches_what_was_said_on_the_host_too(
    remote: StoreBuilder, local: StoreBuilder
) -> None:
    remote.add(
        LATER_ID,
        title="remote second",
        cwd=W,
        updated_at="2026-07-04T11:00:00Z",
        events=chat("the idempotent retries"),
    )
    local.add("here", title="local idem", cwd=W, events=chat("idempotent here too"))
    async with hosts_app(local).run_test(size=SIZE) as pilot:
        await synced(pilot)
        await wait_until(pilot, lambda: len(tagged_rows(pilot)) == 4, "every row")
        await type_text(pilot, "idempotent")
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: len(tagged_rows(pilot)) == 2, "the two hits")
        assert sorted(tagged_rows(pilot), key=str) == [("devbox", LATER_ID), (None, "here")]
        session_list = picker(pilot).session_list
        snippets = [session_list.snippet_at(line) for line in range(2)]
        assert all(found is not None and "idempotent" in found.text for found in snippets)


async def test_a_changed_host_key_and_a_missing_zero_are_each_one_clause(
    remote: StoreBuilder, local: StoreBuilder, ssh_host: SshHost
) -> None:
    async with hosts_app(local).run_test(size=SIZE) as pilot:
        await synced(pilot)
        await wait_until(pilot, lambda: len(tagged_rows(pilot)) == 2, "both rows")
        ssh_host.regenerate_host_key()
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: "host key changed" in host_status(pilot), "the refusal")
        assert host_status(pilot).startswith("devbox: its host key changed; refused (")
        assert "— showing its copy from " in host_status(pilot)
        await wait_until(pilot, lambda: len(tagged_rows(pilot)) == 2, "the rows after ctrl+r")
        ssh_host.write_known_hosts()
        ssh_host.remove_zero()
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: "browse only" in host_status(pilot), "browse only")
        assert host_status(pilot) == "devbox synced 0 s ago (browse only: no zero there)"


async def test_a_host_down_never_hides_another_hosts_rows(
    remote: StoreBuilder, local: StoreBuilder, ssh_host: SshHost
) -> None:
    ssh_host.write_config({"ci": free_port()})  # nothing listens there
    hosts = load_hosts()
    save_hosts({**hosts, "ci": Host("ci", "ci", "/srv/zero/sessions")})
    app = make_app(
        local.store, cwd=W, clock=fixed_clock(), hosts=named_hosts(["all"]), sync_seconds=0
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "ci unreachable" in host_status(pilot), "ci down")
        await synced(pilot)
        pattern = r"ci unreachable since \d\d:\d\d — nothing mirrored yet · devbox synced 0 s ago"
        assert re.fullmatch(pattern, host_status(pilot))
        await wait_until(pilot, lambda: len(tagged_rows(pilot)) == 2, "devbox's row")
        assert tagged_rows(pilot) == [("devbox", REMOTE_ID), (None, LOCAL_ID)]


async def test_export_of_a_mirrored_session_reads_its_mirror(
    remote: StoreBuilder, local: StoreBuilder, tmp_path: Path
) -> None:
    target = tmp_path / "remote.md"
    async with hosts_app(local).run_test(size=SIZE) as pilot:
        await synced(pilot)
        await wait_until(pilot, lambda: len(tagged_rows(pilot)) == 2, "both rows")
        highlighted = picker(pilot).session_list.highlighted_row
        assert highlighted is not None
        assert highlighted.ref == SessionRef("devbox", REMOTE_ID)
        assert await picker(pilot).run_text(f"/export {target}")
        await wait_until(pilot, target.exists, "the export written")
    assert "fix the parser on the box" in target.read_text()
