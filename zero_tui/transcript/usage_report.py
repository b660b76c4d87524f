"""Token usage from the sessions' `provider_usage` events, counted as Zero counts it.

Zero's `zero usage report` (internal/usage/report.go) reads every event of every session
with ReadEvents (the raw log: events a compaction folded away count too), decodes each
`provider_usage` payload into its `usageEventPayload` struct with encoding/json, and adds
`promptTokens` (which already includes the cached tokens), `completionTokens` and
`totalTokens` per UTC day of the event's `createdAt`; every usage event is one request.
`usage_report` gives the same figures, per day as Zero does and also per model (the event's
`model`, else the session's), per workspace and per session, with the cached, cache-write
and reasoning tokens Zero stores but does not add up. A specialist's roll-up in its parent
is a `provider_usage` event too, so Zero counts a specialist's tokens twice (in the child
and in the parent), and so do these figures, to stay equal to Zero's.

Where Zero's report fails as a whole (a payload of the wrong type), the session is left out
here and counted in `skipped`, with the reason, so the rest is still reported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, timedelta

from zero_tui.store.errors import StoreError
from zero_tui.store.models import Metadata
from zero_tui.store.payload_decoder import decode_payload
from zero_tui.store.payloads import UsagePayload
from zero_tui.store.store import SessionStore, UnreadableSession
from zero_tui.store.token_counts import USAGE_EVENT, Tokens
from zero_tui.store.workspace import workspace_matches
from zero_tui.text.labels import parse_rfc3339

WINDOW_DAYS = 30  # the usage screen's: today (UTC) and the 29 days before
TOP_SESSIONS = 50


@dataclass(frozen=True, slots=True)
class UsageEvent:
    """One `provider_usage` event: its UTC day, the model it ran on (may be ""), tokens."""

    day: str
    model: str
    tokens: Tokens


@dataclass(slots=True)
class UsageReport:
    total: Tokens = field(default_factory=Tokens)
    by_day: dict[str, Tokens] = field(default_factory=dict)
    by_model: dict[str, Tokens] = field(default_factory=dict)
    by_workspace: dict[str, Tokens] = field(default_factory=dict)
    by_session: dict[str, Tokens] = field(default_factory=dict)
    sessions: int = 0  # sessions read
    skipped: list[UnreadableSession] = field(default_factory=list)


def utc_day(created_at: str) -> str:
    """Zero's utcDayBucket: the UTC date of an RFC 3339 time, else its first ten chars."""
    moment = parse_rfc3339(created_at)
    if moment is not None:
        return moment.astimezone(UTC).strftime("%Y-%m-%d")
    return created_at[:10]


def session_usage(store: SessionStore, session_id: str) -> list[UsageEvent]:
    """The usage events of one session's raw log (StoreError: unreadable, or a payload
    Zero's report would fail on)."""
    found: list[UsageEvent] = []
    for event in store.read_events_of_types(session_id, (USAGE_EVENT,)):
        payload = decode_payload(event)
        assert isinstance(payload, UsagePayload)
        if payload.error:
            raise StoreError(f"usage event {event.sequence} of {session_id}: {payload.error}")
        found.append(
            UsageEvent(utc_day(event.created_at), payload.model, Tokens.of_request(payload))
        )
    return found


def usage_report(
    store: SessionStore,
    sessions: Iterable[Metadata],
    *,
    since: str = "",
    events_of: Callable[[str], list[UsageEvent]] | None = None,
) -> UsageReport:
    """Usage of `sessions` from the UTC day `since` (YYYY-MM-DD, inclusive; "" for all).

    `events_of` replaces reading each log (a catalog passes what it remembers)."""
    read = events_of or (lambda session_id: session_usage(store, session_id))
    report = UsageReport()
    for meta in sessions:
        try:
            events = read(meta.session_id)
        except StoreError as error:
            report.skipped.append(UnreadableSession(store.session_dir(meta.session_id), str(error)))
            continue
        report.sessions += 1
        for event in events:
            if since and event.day < since:
                continue
            model = event.model or meta.model_id or "(unknown model)"
            for bucket, key in (
                (report.by_day, event.day),
                (report.by_model, model),
                (report.by_workspace, meta.cwd),
                (report.by_session, meta.session_id),
            ):
                bucket.setdefault(key, Tokens()).add(event.tokens)
            report.total.add(event.tokens)
    return report


def window_days(today: date, days: int = WINDOW_DAYS) -> list[str]:
    """The UTC days of a window that ends today, oldest first: `--days N` of the CLI."""
    return [(today - timedelta(days=back)).isoformat() for back in range(days - 1, -1, -1)]


@dataclass(frozen=True, slots=True)
class SessionUsage:
    """One session's share of a window: what to show of it, and its tokens."""

    session_id: str
    title: str
    cwd: str
    tokens: Tokens


@dataclass(frozen=True, slots=True)
class UsageOverview:
    """A window of days in one scope, as the usage screen shows it: every day of the window
    (a day without usage too, at zero), the totals, the top sessions and every model and
    workspace, largest first."""

    every_workspace: bool
    days: tuple[tuple[str, Tokens], ...]
    total: Tokens
    sessions: int  # the sessions with usage in the window
    top_sessions: tuple[SessionUsage, ...]
    models: tuple[tuple[str, Tokens], ...]
    workspaces: tuple[tuple[str, Tokens], ...]

    @property
    def since(self) -> str:
        return self.days[0][0] if self.days else ""


@dataclass(frozen=True, slots=True)
class UsageOverviews:
    """The same window for every workspace and for this one, from one read of the logs."""

    every_workspace: UsageOverview
    this_workspace: UsageOverview
    skipped: tuple[UnreadableSession, ...]

    def scope(self, every_workspace: bool) -> UsageOverview:
        return self.every_workspace if every_workspace else self.this_workspace


class UsageCancelled(Exception):
    """`usage_overviews` was told to stop (its reader went away)."""


PROGRESS_EVERY = 200  # sessions read between two progress calls


def usage_overviews(
    store: SessionStore,
    sessions: Sequence[Metadata],
    workspace: str,
    today: date,
    *,
    days: int = WINDOW_DAYS,
    top: int = TOP_SESSIONS,
    progress: Callable[[int], None] = lambda done: None,
    cancelled: Callable[[], bool] = lambda: False,
) -> UsageOverviews:
    """The last `days` UTC days up to `today`, over every workspace and over `workspace`
    (the picker's rule: the same folder), each session's log read once. `progress` hears
    how many logs were read, now and then; UsageCancelled once `cancelled()` says so."""
    window = window_days(today, days)
    read: dict[str, list[UsageEvent]] = {}

    def events_of(session_id: str) -> list[UsageEvent]:
        if session_id not in read:
            if len(read) % PROGRESS_EVERY == 0 and read:
                if cancelled():
                    raise UsageCancelled
                progress(len(read))
            read[session_id] = session_usage(store, session_id)
        return read[session_id]

    everywhere = usage_report(store, sessions, since=window[0], events_of=events_of)
    here = [meta for meta in sessions if workspace_matches(meta.cwd, workspace)]
    # the sessions that failed above failed for good: not read twice, not counted twice
    failed = {item.session_id for item in everywhere.skipped}
    readable = [meta for meta in here if meta.session_id not in failed]
    this_one = usage_report(store, readable, since=window[0], events_of=events_of)
    by_id = {meta.session_id: meta for meta in sessions}
    return UsageOverviews(
        _overview(everywhere, window, by_id, top, every_workspace=True),
        _overview(this_one, window, by_id, top, every_workspace=False),
        tuple(everywhere.skipped),
    )


def _is_day(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return len(text) == 10


def _largest_first(buckets: dict[str, Tokens]) -> list[tuple[str, Tokens]]:
    return sorted(buckets.items(), key=lambda item: (-item[1].total, item[0]))


def _overview(
    report: UsageReport,
    window: list[str],
    by_id: dict[str, Metadata],
    top: int,
    *,
    every_workspace: bool,
) -> UsageOverview:
    sessions = [
        SessionUsage(session_id, by_id[session_id].title, by_id[session_id].cwd, tokens)
        for session_id, tokens in _largest_first(report.by_session)[:top]
    ]
    # a day after today (a clock ahead of ours) is counted by Zero's --since: shown too
    later = sorted(day for day in report.by_day if day > window[-1] and _is_day(day))
    return UsageOverview(
        every_workspace=every_workspace,
        days=tuple((day, report.by_day.get(day, Tokens())) for day in window + later),
        total=report.total,
        sessions=len(report.by_session),
        top_sessions=tuple(sessions),
        models=tuple(_largest_first(report.by_model)),
        workspaces=tuple(_largest_first(report.by_workspace)),
    )
