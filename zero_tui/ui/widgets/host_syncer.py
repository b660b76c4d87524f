"""The hosts' mirrors brought up to date while the picker is open: at start, on ctrl+r and
every `ZERO_TUI_SYNC_SECONDS`. A widget with nothing to show.

Each round runs in a thread worker that syncs the hosts one after the other
(zero_tui.picker.host_rows.sync_now: rsync over ssh) and posts `HostSynced` as each starts
and ends; the mirror's files change under the host's `StoreFeed`, which follows them as it
follows the local store. A timer also posts a bare `HostSynced` every few seconds, so that
the status line's `synced 8 s ago` moves on."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from textual import work
from textual.widget import Widget
from textual.worker import get_current_worker

from zero_tui.hosts.registry import Host
from zero_tui.picker.host_rows import HostSync, last_sync, sync_now
from zero_tui.ui.messages import HostSynced

AGE_REFRESH_SECONDS = 5.0


class HostSyncer(Widget):
    """Sync `hosts` at mount, on `sync()` and every `interval` seconds (0: never by time)."""

    DEFAULT_CSS = """
    HostSyncer {
        display: none;
    }
    """

    def __init__(self, hosts: Sequence[Host], *, interval: float, id: str | None = None) -> None:
        super().__init__(id=id)
        self._hosts = tuple(hosts)
        self._interval = interval

    def on_mount(self) -> None:
        self._sync(first=True)
        if self._interval > 0:
            self.set_interval(self._interval, self.sync)
        self.set_interval(AGE_REFRESH_SECONDS, lambda: self.post_message(HostSynced(None)))

    def sync(self) -> None:
        """A round of syncs, unless one runs: it is as fresh as this one would be."""
        if not any(worker.group == "host-sync" for worker in self.workers):
            self._sync(first=False)

    @work(thread=True, group="host-sync", exit_on_error=False)
    def _sync(self, *, first: bool) -> None:
        worker = get_current_worker()
        if first:  # what the last run's syncs left, before this one's
            for host in self._hosts:
                self.post_message(HostSynced(last_sync(host)))
        for host in self._hosts:
            if worker.is_cancelled:
                return
            before = replace(last_sync(host), syncing=True)
            self.post_message(HostSynced(before))

            def moved(percent: int, before: HostSync = before) -> None:
                self.post_message(HostSynced(replace(before, percent=percent)))

            synced = sync_now(host, moved, stop=lambda: worker.is_cancelled)
            self.post_message(HostSynced(synced))
