"""The picker over several stores: this machine's and each host's mirror (zero_tui.hosts).

A mirror is loaded and followed by the same loader as the local store; its stages come
tagged with the host (`on_host`: every row they carry names it), and the rows of every
store are shown as one list, in Zero's order (`merged_scope`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import suppress
from dataclasses import dataclass, replace
from datetime import datetime, tzinfo

from zero_tui.hosts.mirror import sync_host
from zero_tui.hosts.registry import Host, HostError, load_state, never
from zero_tui.picker.live import StoreChanged
from zero_tui.picker.loader import LoadStage, RememberedRows, ScopeLoaded
from zero_tui.picker.scopes import HiddenCounts
from zero_tui.picker.session_rows import PickerRow
from zero_tui.text.labels import parse_rfc3339, to_local


def on_host(stage: LoadStage, host: str) -> LoadStage:
    """`stage` of `host`'s mirror, each row it carries tagged with the host."""
    match stage:
        case ScopeLoaded(rows=rows):
            return replace(stage, rows=[replace(row, host=host) for row in rows])
        case RememberedRows(scope=ScopeLoaded() as scope):
            rows = [replace(row, host=host) for row in scope.rows]
            return replace(stage, scope=replace(scope, rows=rows))
        case StoreChanged(changes=changes):
            tagged = tuple(
                replace(change, row=replace(change.row, host=host))
                if change.row is not None
                else change
                for change in changes
            )
            return replace(stage, changes=tagged)
        case _:
            return stage


def in_zero_order(parts: Iterable[tuple[PickerRow, ...]]) -> tuple[PickerRow, ...]:
    """The rows of several stores, each in Zero's order (updatedAt descending, then id),
    as one list in that order: one stable sort, near linear on the sorted runs (rows of
    one time on two stores keep the stores' order)."""
    rows = [row for part in parts for row in part]
    rows.sort(key=lambda row: row.updated_at, reverse=True)
    return tuple(rows)


def hidden_sum(counts: Iterable[HiddenCounts]) -> HiddenCounts:
    total = HiddenCounts()
    for count in counts:
        total = HiddenCounts(
            total.other_workspace + count.other_workspace,
            total.empty_runs + count.empty_runs,
            total.not_resumable + count.not_resumable,
        )
    return total


@dataclass(frozen=True, slots=True)
class HostSync:
    """What the picker knows of a host's mirror: when it was last synced (RFC 3339, UTC),
    the failure since (`error`, one line that starts with the host's name, and when), and
    whether a sync runs now."""

    host: str
    last_sync: str = ""
    error: str = ""
    error_at: str = ""
    syncing: bool = False
    percent: int | None = None  # how far the sync running now is, as rsync says
    browse_only: bool = False  # no `zero` on the host


def freshness(sync: HostSync, now: datetime, tz: tzinfo | None = None) -> str:
    """The status line's word on a host: `devbox synced 8 s ago`, `ci unreachable since
    10:42 — showing its copy from 10:40`, `devbox syncing…`."""
    host = sync.host
    copy = _clock(sync.last_sync, tz)
    if sync.syncing:
        text = f"{host} syncing…" + (f" {sync.percent}%" if sync.percent is not None else "")
    elif sync.error:
        problem = sync.error.removeprefix(f"{host}: ")
        since = _clock(sync.error_at, tz)
        if problem.startswith("unreachable") or problem.startswith("no answer"):
            text = f"{host} unreachable" + (f" since {since}" if since else "")
        else:
            text = f"{host}: {problem}"
        text += f" — showing its copy from {copy}" if copy else " — nothing mirrored yet"
    elif copy:
        text = f"{host} synced {_age(sync.last_sync, now)} ago"
    else:
        text = f"{host} not synced yet"
    return text + (" (browse only: no zero there)" if sync.browse_only else "")


def _clock(instant: str, tz: tzinfo | None) -> str:
    moment = parse_rfc3339(instant)
    return "" if moment is None else to_local(moment, tz).strftime("%H:%M")


def _age(instant: str, now: datetime) -> str:
    moment = parse_rfc3339(instant)
    seconds = 0 if moment is None else max(0, int((now - moment).total_seconds()))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min"
    if seconds < 86400:
        return f"{seconds // 3600} h"
    return f"{seconds // 86400} d"


def last_sync(host: Host) -> HostSync:
    """What the last sync of `host` left (its state file, in zero-tui's cache)."""
    state = load_state(host.name)
    return HostSync(
        host.name, state.last_sync, state.error, state.error_at, browse_only=not host.has_zero
    )


def sync_now(
    host: Host, progress: Callable[[int], None] | None = None, stop: Callable[[], bool] = never
) -> HostSync:
    """Sync `host`'s mirror (zero_tui.hosts.mirror), then what it left; a failure is the
    state's error line, and the mirror keeps what the last sync brought. `progress`: the
    sync's percent done, as it moves; `stop`: True ends the sync where it is (the app
    quits: no wait for rsync, no ssh master left behind)."""
    has_zero = host.has_zero
    with suppress(HostError):
        has_zero = sync_host(host, progress, stop).has_zero
    return replace(last_sync(host), browse_only=not has_zero)
