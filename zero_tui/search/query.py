"""Full-text queries over the index: a small query language, ranked sessions, snippets.

    rate limit          every word somewhere in the session, any order (a word matches the
                        words starting with it: `limit` finds "limiting")
    "exact phrase"      the words next to each other, in this order
    -word  -"a phrase"  leave out the sessions that contain it
    title:T model:M provider:P   case-insensitive substrings of the metadata
    id:PREFIX           the session id starts with it
    after:YYYY-MM-DD    updated on or after that day (local time); before: updated before it
    -title:T ...        a filter with `-` leaves out the sessions it would keep

A query of filters alone lists the sessions that pass them, newest first. Sessions are ranked
by relevance (one event holding every word first, then the best event's bm25), then recency.
Every word is handed to FTS5 as a quoted string, so its syntax (`*`, `^`, `NEAR(`, `:`)
is only ever literal text; an unknown `name:` is searched as text, with a notice.
No Textual import.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo

from zero_tui.search.catalog import EVENT_BITS, SessionCatalog
from zero_tui.search.rows import parse_rfc3339
from zero_tui.store import Metadata

DEFAULT_LIMIT = 50
FILTERS = ("title", "model", "provider", "id", "after", "before")
_HIGHLIGHT_START = "\x02"
_HIGHLIGHT_END = "\x03"
_SNIPPET_TOKENS = 14
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_FILTER_NAME = re.compile(r"([A-Za-z]+):")
_HAS_TOKEN = re.compile(r"[^\W_]")
_SPACE = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


class QueryError(ValueError):
    """A query that cannot mean anything (a bad date): one line for the user."""


@dataclass(frozen=True, slots=True)
class Term:
    """A word (matched as a prefix) or a phrase (exact words in order)."""

    text: str
    phrase: bool = False

    def fts(self) -> str:
        quoted = '"' + self.text.replace('"', '""') + '"'
        return quoted if self.phrase else quoted + " *"


@dataclass(frozen=True, slots=True)
class Filter:
    name: str
    value: str
    negated: bool = False
    moment: datetime | None = None  # the local midnight of an after:/before: day

    def keeps(self, meta: Metadata) -> bool:
        return self._matches(meta) != self.negated

    def _matches(self, meta: Metadata) -> bool:
        if self.name == "id":
            return meta.session_id.startswith(self.value)
        if self.name in ("after", "before"):
            updated = parse_rfc3339(meta.updated_at)
            if updated is None or self.moment is None:
                return False
            return updated >= self.moment if self.name == "after" else updated < self.moment
        field_value = {"title": meta.title, "model": meta.model_id, "provider": meta.provider}
        return self.value.casefold() in field_value[self.name].casefold()


@dataclass(frozen=True, slots=True)
class Query:
    terms: tuple[Term, ...] = ()
    excluded: tuple[Term, ...] = ()
    filters: tuple[Filter, ...] = ()
    notices: tuple[str, ...] = ()

    @property
    def has_text(self) -> bool:
        return bool(self.terms or self.excluded)

    @property
    def is_empty(self) -> bool:
        return not (self.terms or self.excluded or self.filters)

    def keeps(self, meta: Metadata) -> bool:
        return all(item.keeps(meta) for item in self.filters)


def _local_midnight(text: str, name: str, tz: tzinfo | None) -> datetime:
    match = _DATE.fullmatch(text)
    try:
        if match is None:
            raise ValueError
        year, month, day = (int(part) for part in match.groups())
        naive = datetime(year, month, day)
    except ValueError:
        raise QueryError(f"{name}: wants a date as YYYY-MM-DD, not {text!r}") from None
    return naive.replace(tzinfo=tz) if tz is not None else naive.astimezone()


def _read_quoted(text: str, start: int) -> tuple[str, int]:
    """The text after the quote at `start` up to the closing one (or the end: unbalanced)."""
    end = text.find('"', start + 1)
    if end < 0:
        return text[start + 1 :], len(text)
    return text[start + 1 : end], end + 1


def parse_query(text: str, *, tz: tzinfo | None = None) -> Query:
    """Parse the query language; raises QueryError only for a bad date."""
    text = _CONTROL.sub(" ", text)
    terms: list[Term] = []
    excluded: list[Term] = []
    filters: list[Filter] = []
    notices: list[str] = []
    index = 0
    length = len(text)
    while index < length:
        if text[index].isspace():
            index += 1
            continue
        negated = text[index] == "-" and index + 1 < length and not text[index + 1].isspace()
        if negated:
            index += 1
        if text[index] == '"':
            value, index = _read_quoted(text, index)
            term = Term(_SPACE.sub(" ", value.strip()), phrase=True)
            if _HAS_TOKEN.search(term.text):
                (excluded if negated else terms).append(term)
            continue
        name_match = _FILTER_NAME.match(text, index)
        if name_match is not None:
            name = name_match.group(1).lower()
            value_start = name_match.end()
            if value_start < length and text[value_start] == '"':
                value, index = _read_quoted(text, value_start)
            else:
                end = value_start
                while end < length and not text[end].isspace():
                    end += 1
                value, index = text[value_start:end], end
            if name in FILTERS:
                if value.strip():
                    moment = None
                    if name in ("after", "before"):
                        moment = _local_midnight(value.strip(), name, tz)
                    filters.append(Filter(name, value.strip(), negated, moment))
                continue
            notices.append(f"{name}: is not a filter ({', '.join(FILTERS)}); searched as text")
            words = f"{name_match.group(1)} {value}"
            for word in words.split():
                if _HAS_TOKEN.search(word):
                    (excluded if negated else terms).append(Term(word))
            continue
        end = index
        while end < length and not text[end].isspace() and text[end] != '"':
            end += 1
        word = text[index:end]
        index = end
        if _HAS_TOKEN.search(word):
            (excluded if negated else terms).append(Term(word))
    return Query(tuple(terms), tuple(excluded), tuple(filters), tuple(notices))


# --- results -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Snippet:
    """Text around the match, on one line; `spans` are the matched (start, end) offsets."""

    text: str
    spans: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One session that matched, with its best event (none for a filters-only query)."""

    session: Metadata
    sequence: int | None = None
    role: str | None = None
    snippet: Snippet = field(default_factory=lambda: Snippet(""))
    compacted: bool = False  # the text was replaced by a compaction (still in the log)
    open_sequence: int | None = None  # where to open: the event, or its compaction summary

    def to_json(self) -> dict[str, object]:
        """`zero-tui search --json`'s shape."""
        meta = self.session
        return {
            "sessionId": meta.session_id,
            "title": meta.title,
            "cwd": meta.cwd,
            "updatedAt": meta.updated_at,
            "sequence": self.sequence,
            "role": self.role,
            "snippet": self.snippet.text,
            "compacted": self.compacted,
            "openSequence": self.open_sequence,
        }


@dataclass(frozen=True, slots=True)
class SearchResult:
    hits: list[SearchHit]
    matched: int  # sessions that matched, before the limit
    notices: tuple[str, ...] = ()


def parse_snippet(marked: str) -> Snippet:
    """A snippet from FTS5's marked text: one line, markers turned into spans."""
    flat = _SPACE.sub(" ", marked).strip()
    parts: list[str] = []
    spans: list[tuple[int, int]] = []
    position = 0
    start: int | None = None
    for char in flat:
        if char == _HIGHLIGHT_START:
            start = position
        elif char == _HIGHLIGHT_END:
            if start is not None and position > start:
                spans.append((start, position))
            start = None
        else:
            parts.append(char)
            position += 1
    return Snippet("".join(parts), tuple(spans))


def _or_expression(terms: Sequence[Term]) -> str:
    return " OR ".join(term.fts() for term in terms)


def _key_range(key: int) -> tuple[int, int]:
    low = key << EVENT_BITS
    return low, low + (1 << EVENT_BITS) - 1


def search(
    catalog: SessionCatalog,
    query: Query | str,
    sessions: Sequence[Metadata],
    *,
    limit: int = DEFAULT_LIMIT,
    tz: tzinfo | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> SearchResult:
    """The sessions of `sessions` (the scope, newest first) that match, best first.

    Raises QueryError for a bad query; sqlite trouble yields no hits rather than an error.
    """
    parsed = parse_query(query, tz=tz) if isinstance(query, str) else query
    scope = [meta for meta in sessions if parsed.keeps(meta)]
    if not parsed.has_text:
        hits = [SearchHit(meta) for meta in scope[:limit]] if parsed.filters else []
        return SearchResult(hits, len(scope) if parsed.filters else 0, parsed.notices)
    try:
        return _search_text(catalog, parsed, scope, limit, cancelled)
    except sqlite3.Error as error:
        notice = f"search index unavailable: {error}"
        return SearchResult([], 0, (*parsed.notices, notice))


def _search_text(
    catalog: SessionCatalog,
    parsed: Query,
    scope: list[Metadata],
    limit: int,
    cancelled: Callable[[], bool],
) -> SearchResult:
    keys = catalog.session_keys()
    recency = {meta.session_id: position for position, meta in enumerate(scope)}
    by_key = {keys[meta.session_id]: meta for meta in scope if meta.session_id in keys}
    connection = catalog.connection
    select = "SELECT rowid >> 32 FROM event_text WHERE event_text MATCH ?"
    with catalog.lock:
        if parsed.terms:
            sql = " INTERSECT ".join(select for _ in parsed.terms)
            parameters = [term.fts() for term in parsed.terms]
            candidates = {row[0] for row in connection.execute(sql, parameters)}
            candidates &= by_key.keys()
        else:
            candidates = set(by_key)
        if parsed.excluded and candidates:
            sql = " UNION ".join(select for _ in parsed.excluded)
            parameters = [term.fts() for term in parsed.excluded]
            candidates -= {row[0] for row in connection.execute(sql, parameters)}
        if cancelled():
            return SearchResult([], 0, parsed.notices)
        best: dict[int, tuple[float, int]] = {}
        if parsed.terms:
            together = " AND ".join(term.fts() for term in parsed.terms)
            for session_key, rowid, score in connection.execute(
                "WITH hits AS MATERIALIZED (SELECT rowid AS hit, bm25(event_text) AS score "
                "FROM event_text WHERE event_text MATCH ?) "
                "SELECT hit >> 32, hit, min(score) FROM hits GROUP BY 1",
                (together,),
            ):
                if session_key in candidates:
                    best[session_key] = (score, rowid)

    def rank(session_key: int) -> tuple[int, float, int]:
        position = recency[by_key[session_key].session_id]
        if session_key in best:
            return (0, round(best[session_key][0], 1), position)
        return (1, 0.0, position)

    ordered = sorted(candidates, key=rank)
    hits: list[SearchHit] = []
    for session_key in ordered[:limit]:
        if cancelled():
            break
        hits.append(_hit(catalog, parsed, session_key, by_key[session_key], best.get(session_key)))
    return SearchResult(hits, len(ordered), parsed.notices)


def _hit(
    catalog: SessionCatalog,
    parsed: Query,
    session_key: int,
    meta: Metadata,
    best: tuple[float, int] | None,
) -> SearchHit:
    connection = catalog.connection
    expression = _or_expression(parsed.terms) if parsed.terms else ""
    with catalog.lock:
        if best is None and expression:
            low, high = _key_range(session_key)
            row = connection.execute(
                "SELECT rowid FROM event_text WHERE event_text MATCH ? "
                "AND rowid BETWEEN ? AND ? ORDER BY rank LIMIT 1",
                (expression, low, high),
            ).fetchone()
            best = (0.0, row[0]) if row is not None else None
        if best is None:
            return SearchHit(meta)
        row = connection.execute(
            "SELECT snippet(event_text, 0, ?, ?, '…', ?), sequence, role, event_id "
            "FROM event_text WHERE event_text MATCH ? AND rowid = ?",
            (_HIGHLIGHT_START, _HIGHLIGHT_END, _SNIPPET_TOKENS, expression, best[1]),
        ).fetchone()
        plan_row = connection.execute(
            "SELECT compaction FROM sessions WHERE key = ?", (session_key,)
        ).fetchone()
    if row is None:
        return SearchHit(meta)
    marked, sequence, role, event_id = row
    sequence = sequence if isinstance(sequence, int) else None
    compacted, summary = _compacted(plan_row[0] if plan_row else None, event_id, sequence)
    return SearchHit(
        meta,
        sequence,
        role if isinstance(role, str) else None,
        parse_snippet(marked if isinstance(marked, str) else ""),
        compacted,
        summary if compacted else sequence,
    )


def _compacted(
    plan_json: object, event_id: object, sequence: int | None
) -> tuple[bool, int | None]:
    """Whether the latest compaction replaced this event, and the summary's sequence."""
    if not isinstance(plan_json, str) or sequence is None:
        return False, None
    try:
        plan = json.loads(plan_json)
        summary_id = plan["eventId"]
        summary_sequence = plan["sequence"]
        skip = set(plan["skipIds"])
        through = plan["throughSequence"]
    except (ValueError, KeyError, TypeError):
        return False, None
    if not isinstance(summary_sequence, int) or not isinstance(through, int):
        return False, None
    if event_id == summary_id:
        return False, None
    replaced = event_id in skip if skip else through > 0 and sequence <= through
    return replaced, summary_sequence
