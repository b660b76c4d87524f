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

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC

from zero_tui.store.errors import StoreError
from zero_tui.store.models import Metadata
from zero_tui.store.payload_decoder import decode_payload
from zero_tui.store.payloads import UsagePayload
from zero_tui.store.store import SessionStore, UnreadableSession
from zero_tui.text.labels import parse_rfc3339

USAGE_EVENT = "provider_usage"


@dataclass(slots=True)
class Tokens:
    """Sums of usage events: Zero's requests, input, output and total, and the rest."""

    requests: int = 0
    input: int = 0  # promptTokens: cached tokens included
    output: int = 0
    total: int = 0
    cached: int = 0
    cache_write: int = 0
    reasoning: int = 0

    def add(self, other: Tokens) -> None:
        self.requests += other.requests
        self.input += other.input
        self.output += other.output
        self.total += other.total
        self.cached += other.cached
        self.cache_write += other.cache_write
        self.reasoning += other.reasoning

    def to_json(self) -> dict[str, int]:
        return {
            "requests": self.requests,
            "inputTokens": self.input,
            "outputTokens": self.output,
            "totalTokens": self.total,
            "cachedInputTokens": self.cached,
            "cacheWriteTokens": self.cache_write,
            "reasoningTokens": self.reasoning,
        }


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
    for event in store.read_events(session_id):
        if event.type != USAGE_EVENT:
            continue
        payload = decode_payload(event)
        assert isinstance(payload, UsagePayload)
        if payload.error:
            raise StoreError(f"usage event {event.sequence} of {session_id}: {payload.error}")
        tokens = Tokens(
            1,
            payload.prompt_tokens,
            payload.completion_tokens,
            payload.total_tokens,
            payload.cached_input_tokens,
            payload.cache_write_tokens,
            payload.reasoning_tokens,
        )
        found.append(UsageEvent(utc_day(event.created_at), payload.model, tokens))
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
