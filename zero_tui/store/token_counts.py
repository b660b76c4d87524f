"""A session's tokens: the `provider_usage` events of its log, added up.

`logged_tokens` finds them without decoding the other lines: a usage event's line holds
its type either as written (`provider_usage`) or spelled with a `\\u` escape of one of its
letters, and any other line cannot be one. So a listing that counts 10,000 sessions reads
each log once at memory speed and decodes only its usage lines, with Go's rules. A line
damaged elsewhere in the log hides nothing (Zero's `usage report` leaves out a whole
session whose log it cannot read; `transcript.usage_report.usage_report` does so too); a damaged
usage line, or a usage payload Zero's report would fail on, leaves the session without
figures (StoreError), as the tokens it stands for cannot be known.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zero_tui.store.errors import StoreError
from zero_tui.store.events import decode_line_of_types
from zero_tui.store.gojson import INT64_MAX, INT64_MIN
from zero_tui.store.gotext import trim_space_bytes
from zero_tui.store.payload_decoder import decode_payload
from zero_tui.store.payloads import UsagePayload

if TYPE_CHECKING:
    from zero_tui.store.models import Event
    from zero_tui.store.payloads import UsagePayload
    from zero_tui.store.store import SessionStore

USAGE_EVENT = "provider_usage"
_USAGE_TYPES = frozenset({USAGE_EVENT})
_WRITTEN_TYPE = USAGE_EVENT.encode()
# a `\u` escape of a lowercase letter or `_`: what else can spell `provider_usage` in JSON
_ESCAPED_NAME_CHARACTER = re.compile(rb"\\u00(?:5[fF]|6[1-9a-fA-F]|7[0-9aA])")


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

    @classmethod
    def of_request(cls, payload: UsagePayload) -> Tokens:
        """One usage event's figures."""
        return cls(
            1,
            payload.prompt_tokens,
            payload.completion_tokens,
            payload.total_tokens,
            payload.cached_input_tokens,
            payload.cache_write_tokens,
            payload.reasoning_tokens,
        )

    def add(self, other: Tokens) -> None:
        self.requests += other.requests
        self.input += other.input
        self.output += other.output
        self.total += other.total
        self.cached += other.cached
        self.cache_write += other.cache_write
        self.reasoning += other.reasoning

    def figures(self) -> tuple[int, int, int, int, int, int, int]:
        """The figures in field order: `Tokens(*tokens.figures())` is a copy."""
        return (
            self.requests,
            self.input,
            self.output,
            self.total,
            self.cached,
            self.cache_write,
            self.reasoning,
        )

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

    def describe(self) -> str:
        """Every figure `to_json` has, in words: `2 requests · 1,007 input (40 cached) ·
        4 output · 1,011 total`, the cache writes and reasoning when recorded."""
        if not self.requests:
            return "none recorded"
        noun = "request" if self.requests == 1 else "requests"
        cached = f" ({self.cached:,} cached)" if self.cached else ""
        parts = [
            f"{self.requests:,} {noun}",
            f"{self.input:,} input{cached}",
            f"{self.output:,} output",
            f"{self.total:,} total",
        ]
        if self.cache_write:
            parts.append(f"{self.cache_write:,} cache write")
        if self.reasoning:
            parts.append(f"{self.reasoning:,} reasoning")
        return " · ".join(parts)


def session_tokens(store: SessionStore, session_id: str) -> Tokens:
    """The sums of one session's usage events (`logged_tokens`: StoreError when the log
    cannot be read, or one of its usage events)."""
    return logged_tokens(store.read_log_bytes(session_id), session_id)


def logged_tokens(data: bytes, session_id: str) -> Tokens:
    """The sum of the usage events in a log's bytes (see the module's docstring; StoreError
    for a damaged usage line that is not the torn last one, or a payload Zero's report
    would fail on)."""
    tokens = Tokens()
    number, counted_to = 1, 0  # the line number at `counted_to`, counted as the lines come
    for start, end in _candidate_lines(data):
        line = trim_space_bytes(data[start:end])
        if not line:
            continue
        number += data.count(b"\n", counted_to, start)
        counted_to = start
        try:
            event = decode_line_of_types(line, session_id, number, _USAGE_TYPES)
        except StoreError:
            if not data.endswith(b"\n") and not trim_space_bytes(data[end:]):
                continue  # a torn last line: Zero's reader drops it
            raise
        if event is None:
            continue
        request = _plain_request(event.payload)
        if request is None:
            request = _request(event, session_id)
        tokens.add(request)
    return tokens


def _request(event: Event, session_id: str) -> Tokens:
    """One usage event's figures, through Go's rules (StoreError where Zero's report fails)."""
    payload = decode_payload(event)
    assert isinstance(payload, UsagePayload)
    if payload.error:
        raise StoreError(f"usage event {event.sequence} of {session_id}: {payload.error}")
    return Tokens.of_request(payload)


_FIGURE_KEYS = (
    "promptTokens",
    "completionTokens",
    "totalTokens",
    "cachedInputTokens",
    "cacheWriteTokens",
    "reasoningTokens",
)  # Zero's usageEventPayload, in `Tokens`' order after the request
_USAGE_KEYS = frozenset((*_FIGURE_KEYS, "model"))


def _plain_request(payload: object) -> Tokens | None:
    """A usage payload's figures where Go's rules cannot read it otherwise: an object whose
    every key is one of the struct's, spelled as Go writes it, each figure an int64 and the
    model a string. None: only Go's rules can say (`_request`)."""
    if type(payload) is not dict or not _USAGE_KEYS.issuperset(payload):
        return None
    figures = [payload.get(key, 0) for key in _FIGURE_KEYS]
    for value in figures:
        if type(value) is not int or not INT64_MIN <= value <= INT64_MAX:
            return None
    if type(payload.get("model", "")) is not str:
        return None
    return Tokens(1, *figures)


def _candidate_lines(data: bytes) -> list[tuple[int, int]]:
    """The (start, end) of each line that may be a usage event, in order, once each."""
    marks = [
        *_occurrences(data, _WRITTEN_TYPE),
        *(found.start() for found in _ESCAPED_NAME_CHARACTER.finditer(data)),
    ]
    lines: list[tuple[int, int]] = []
    end = -1
    for mark in sorted(marks):
        if mark < end:
            continue  # in the line already taken
        start = data.rfind(b"\n", 0, mark) + 1
        end = data.find(b"\n", mark)
        if end < 0:
            end = len(data)
        lines.append((start, end))
    return lines


def _occurrences(data: bytes, needle: bytes) -> list[int]:
    found: list[int] = []
    at = data.find(needle)
    while at >= 0:
        found.append(at)
        at = data.find(needle, at + len(needle))
    return found
