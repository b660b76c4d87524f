"""Full-text queries over the index: a small query language, ranked sessions, snippets.

    rate limit          every word somewhere in the session, any order (a word matches the
                        words starting with it: `limit` finds "limiting"; one of three
                        characters or more also matches inside other words and in any
                        value of an event, as Zero's search does: `xadorn` finds
                        "paxadornment")
    "exact phrase"      the words next to each other, in this order
    -word  -"a phrase"  leave out the sessions that contain it
    title:T model:M provider:P   case-insensitive substrings of the metadata
    id:PREFIX           the session id starts with it
    after:YYYY-MM-DD    updated on or after that day (local time); before: updated before it
    tag:T  is:pinned  is:archived   zero-tui's own tags, pins and archive (`with_flags`)
    -title:T ...        a filter with `-` leaves out the sessions it would keep

A query of filters alone lists the sessions that pass them, newest first. Sessions are ranked
by relevance (one event holding every word, then every word as a word somewhere, then
the sessions where some word is found only inside other text), then recency; within a
session the best event is FTS5's bm25 rank, among the events holding every word when
there is one.
Every word is handed to FTS5 as a quoted string, so its syntax (`*`, `^`, `NEAR(`, `:`)
is only ever literal text; an unknown `name:` is searched as text, with a notice.
No Textual import.
"""

from __future__ import annotations

import heapq
import json
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, tzinfo
from operator import itemgetter
from typing import TYPE_CHECKING, Protocol

from zero_tui.search.catalog import EVENT_BITS, SessionCatalog
from zero_tui.search.database import sql_lists, trigrams_supported
from zero_tui.store import Metadata
from zero_tui.store.gotext import go_lower
from zero_tui.store.session_flags import FlagBook
from zero_tui.text.labels import parse_rfc3339

if TYPE_CHECKING:  # events are read only for the hits shown
    from zero_tui.search.content import EventText

DEFAULT_LIMIT = 50
MIN_SUBSTRING = 3  # the shortest word also found inside other words (a trigram)
FEW_SESSIONS = 512  # a scope whose keys are looked up one by one rather than all read
FILTERS = ("title", "model", "provider", "id", "after", "before", "tag", "is")
FLAG_STATES = ("pinned", "archived")
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

    def grams(self) -> str | None:
        """The term as a substring, for the trigram index (lower-cased as Zero lowers
        its query); None for a phrase, or a word too short for trigrams."""
        if self.phrase:
            return None
        lowered = go_lower(self.text)
        if len(lowered) < MIN_SUBSTRING:
            return None
        return '"' + lowered.replace('"', '""') + '"'


class Described(Protocol):
    """What a filter reads of a session: its metadata, or a catalog row of it."""

    @property
    def session_id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def model_id(self) -> str: ...
    @property
    def provider(self) -> str: ...
    @property
    def updated_at(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Filter:
    name: str
    value: str
    negated: bool = False
    moment: datetime | None = None  # the local midnight of an after:/before: day
    ids: frozenset[str] = frozenset()  # the sessions a tag:/is: filter matches (`with_flags`)

    def keeps(self, meta: Described) -> bool:
        return self._matches(meta) != self.negated

    def _matches(self, meta: Described) -> bool:
        if self.name in ("tag", "is"):
            return meta.session_id in self.ids
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

    def keeps(self, meta: Described) -> bool:
        return all(item.keeps(meta) for item in self.filters)

    def with_flags(self, book: FlagBook) -> Query:
        """This query with its tag: and is: filters knowing which sessions they match."""
        if not any(item.name in ("tag", "is") for item in self.filters):
            return self
        return replace(self, filters=tuple(_bound(item, book) for item in self.filters))


def _bound(item: Filter, book: FlagBook) -> Filter:
    if item.name == "tag":
        return replace(item, ids=book.ids(lambda flags: flags.has_tag(item.value)))
    if item.name == "is":
        state = item.value.lower()
        return replace(item, ids=book.ids(lambda flags: bool(getattr(flags, state))))
    return item


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
    """Parse the query language; raises QueryError only for a bad date or `is:` state.

    Bytes that are not UTF-8 (a command line's surrogate escapes) are searched as U+FFFD,
    the character Zero's JSON writer stores in their place."""
    text = _CONTROL.sub(" ", text.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))
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
                    if name == "is" and value.strip().lower() not in FLAG_STATES:
                        raise QueryError(f"is: wants pinned or archived, not {value.strip()!r}")
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


def highlight_term(text: str) -> str:
    """What a session opened from the content query `text` highlights: the first term
    ("" with none, or when the query does not parse)."""
    try:
        terms = parse_query(text).terms
    except QueryError:
        return ""
    return terms[0].text if terms else ""


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


def _or_expression(terms: Sequence[Term]) -> str:
    return " OR ".join(term.fts() for term in terms)


def search(
    catalog: SessionCatalog,
    query: Query | str,
    sessions: Sequence[Metadata],
    *,
    limit: int = DEFAULT_LIMIT,
    tz: tzinfo | None = None,
    cancelled: Callable[[], bool] = lambda: False,
    matches: TextMatches | None = None,
) -> SearchResult:
    """The sessions of `sessions` (the scope, newest first) that match, best first.

    `matches`: what `matching_sessions` said of this query, when the caller asked already
    (the index is not asked twice). Raises QueryError for a bad query; sqlite trouble
    yields no hits rather than an error.
    """
    parsed = parse_query(query, tz=tz) if isinstance(query, str) else query
    scope = [meta for meta in sessions if parsed.keeps(meta)] if parsed.filters else sessions
    if not parsed.has_text:
        hits = [SearchHit(meta) for meta in scope[:limit]] if parsed.filters else []
        return SearchResult(hits, len(scope) if parsed.filters else 0, parsed.notices)
    try:
        return _search_text(catalog, parsed, scope, limit, cancelled, matches)
    except sqlite3.Error as error:
        catalog.recover(error)
        notice = f"search index unavailable: {error}"
        return SearchResult([], 0, (*parsed.notices, notice))


@dataclass(frozen=True, slots=True)
class _Scope:
    """A scope keyed by the database's session keys: position (recency) and metadata."""

    sessions: Sequence[Metadata]
    ids_by_key: dict[int, str]
    position: dict[int, int]
    metadata: dict[int, Metadata]
    keys: frozenset[int]


_scope_cache: list[_Scope] = []
_scope_lock = threading.Lock()


def _scope_of(scope: Sequence[Metadata], ids_by_key: dict[int, str]) -> _Scope:
    """The scope by key, remembered for the last scope given (a picker searches one scope
    keystroke after keystroke; callers never mutate a scope they pass)."""
    with _scope_lock:
        if _scope_cache:
            cached = _scope_cache[0]
            if cached.sessions is scope and cached.ids_by_key is ids_by_key:
                return cached
    key_of = {session_id: key for key, session_id in ids_by_key.items()}
    position: dict[int, int] = {}
    metadata: dict[int, Metadata] = {}
    for index, meta in enumerate(scope):
        key = key_of.get(meta.session_id)
        if key is not None and key not in position:
            position[key] = index
            metadata[key] = meta
    prepared = _Scope(scope, ids_by_key, position, metadata, frozenset(position))
    with _scope_lock:
        _scope_cache[:] = [prepared]
    return prepared


def _search_text(
    catalog: SessionCatalog,
    parsed: Query,
    scope: Sequence[Metadata],
    limit: int,
    cancelled: Callable[[], bool],
    matches: TextMatches | None,
) -> SearchResult:
    if len(scope) <= FEW_SESSIONS:
        ids_by_key = catalog.metadata.ids_by_key_of(meta.session_id for meta in scope)
    else:
        ids_by_key = catalog.session_ids_by_key()
    prepared = _scope_of(scope, ids_by_key)
    if matches is None:
        matches = _text_matches(catalog, parsed)
    if matches is None:  # exclusions alone
        candidates = set(prepared.keys)
        if candidates:
            candidates -= _sessions_with_any(catalog, parsed.excluded)
        tiers: tuple[frozenset[int], ...] = ()
    else:
        candidates = set(prepared.keys & matches.keys)
        tiers = matches.tiers
    if cancelled():
        return SearchResult([], 0, parsed.notices)
    # relevance (the tiers, best first), then recency (the scope's order)
    top: list[int] = []
    rest = candidates
    for tier in tiers:
        if len(top) >= limit:
            break
        best = rest & tier
        top += heapq.nsmallest(limit - len(top), best, key=prepared.position.__getitem__)
        rest = rest - best
    if len(top) < limit:
        top += heapq.nsmallest(limit - len(top), rest, key=prepared.position.__getitem__)
    together = matches.one_event if matches is not None else frozenset()
    events = _best_events(catalog, parsed, top, together, prepared.metadata)
    inside = {key: prepared.metadata[key] for key in top if key not in events}
    if inside and parsed.terms:
        events.update(_events_holding(catalog, parsed.terms, inside))
    plans = catalog.compactions(top) if top else {}
    hits = [
        _hit(prepared.metadata[key], events.get(key), plans.get(key), parsed.terms) for key in top
    ]
    return SearchResult(hits, len(candidates), parsed.notices)


# The sessions as one string: sqlite finds them all in one step, without Python's lock. A
# row's text key is its session's while the log is as indexed (else no session's).
_SESSIONS_MATCHING = (
    "SELECT group_concat(key) FROM sessions WHERE text_key IN (SELECT rowid >> "
    f"{EVENT_BITS} FROM event_text WHERE event_text MATCH ?)"
)
_EVENTS_MATCHING = "SELECT rowid FROM event_text WHERE event_text MATCH ?"
_SESSIONS_WITH_GRAMS = (
    "SELECT group_concat(key) FROM sessions WHERE text_key IN (SELECT text_key FROM "
    "word_sessions WHERE word_id IN (SELECT rowid FROM word_grams WHERE word_grams MATCH ?))"
)


@dataclass(frozen=True, slots=True)
class TextMatches:
    """The sessions (their keys) whose text matches a query's words, whatever the scope."""

    one_event: frozenset[int]  # one event holds every word, as words
    words: frozenset[int]  # every word somewhere as a word (or the start of one)
    keys: frozenset[int]  # every word somewhere, also inside other text; none excluded

    @property
    def tiers(self) -> tuple[frozenset[int], ...]:
        """The relevance tiers before the rest of `keys`, best first."""
        return self.one_event, self.words


def _text_matches(catalog: SessionCatalog, parsed: Query) -> TextMatches | None:
    """What the index says of the query's words; None when it has none (filters or
    exclusions alone do not narrow the sessions). The words are asked of the word index
    and, side by side on a second connection, as substrings of the trigram index."""
    if not parsed.terms:
        return None
    terms = parsed.terms
    substrings = _substring_sessions if trigrams_supported() else _no_substrings
    (one_event, as_words), anywhere = catalog.side_by_side(
        lambda connection: _word_sessions(connection, terms),
        lambda connection: substrings(connection, terms),
    )
    words: set[int] | None = None
    every: set[int] | None = None
    for found_as_words, found_anywhere in zip(as_words, anywhere, strict=True):
        words = found_as_words if words is None else words & found_as_words
        found = found_as_words | found_anywhere
        every = found if every is None else every & found
    every = every or set()
    words = (words or set()) & every
    if parsed.excluded and every:
        left_out = _sessions_with_any(catalog, parsed.excluded)
        every -= left_out
        words -= left_out
    return TextMatches(frozenset(one_event & words), frozenset(words), frozenset(every))


def _word_sessions(
    connection: sqlite3.Connection, terms: Sequence[Term]
) -> tuple[set[int], list[set[int]]]:
    """(The sessions one event of which holds every term as words, those holding each term
    as words somewhere.)"""
    if len(terms) <= MATCH_TERMS:
        one_event = _sessions_with(connection, " AND ".join(term.fts() for term in terms))
    else:
        events: set[int] | None = None
        for batch in _batched(terms):
            found = _events_with(connection, " AND ".join(term.fts() for term in batch))
            events = found if events is None else events & found
            if not events:
                break
        one_event = set(_text_keys(connection, {rowid >> EVENT_BITS for rowid in events or ()}))
    if len(terms) == 1:
        return one_event, [one_event]
    return one_event, [_sessions_with(connection, term.fts()) for term in terms]


def _substring_sessions(connection: sqlite3.Connection, terms: Sequence[Term]) -> list[set[int]]:
    """The sessions holding each term as a substring of some value."""
    return [_sessions_with_grams(connection, [term]) for term in terms]


def _no_substrings(connection: sqlite3.Connection, terms: Sequence[Term]) -> list[set[int]]:
    """An sqlite without trigrams: the words alone."""
    return [set() for _ in terms]


MATCH_TERMS = 64
"""The most words one MATCH expression is given: a longer query is asked in batches (one
query per word for the sessions, OR-ed batches for the exclusions), never as one compound
SELECT, which sqlite caps at 500 terms."""


def _batched(terms: Sequence[Term]) -> list[Sequence[Term]]:
    return [terms[start : start + MATCH_TERMS] for start in range(0, len(terms), MATCH_TERMS)]


def _sessions_with(connection: sqlite3.Connection, expression: str) -> set[int]:
    return _keys(connection.execute(_SESSIONS_MATCHING, (expression,)).fetchone())


def _keys(row: tuple[object, ...] | None) -> set[int]:
    """The session keys a `group_concat` gave."""
    joined = row[0] if row else None
    return set(map(int, joined.split(","))) if isinstance(joined, str) else set()


def _text_keys(
    connection: sqlite3.Connection, wanted: Iterable[int], *, of: str = "text_key"
) -> dict[int, int]:
    """session key -> its text key, for the sessions whose text keys (`of` "text_key") or
    keys (`of` "key") are `wanted`."""
    found: dict[int, int] = {}
    for listed in sql_lists(wanted):
        found.update(
            connection.execute(
                f"SELECT key, text_key FROM sessions WHERE {of} IN ({listed}) "
                "AND typeof(text_key) = 'integer'"
            )
        )
    return found


def _events_with(connection: sqlite3.Connection, expression: str) -> set[int]:
    return set(map(itemgetter(0), connection.execute(_EVENTS_MATCHING, (expression,))))


def _sessions_with_grams(connection: sqlite3.Connection, terms: Sequence[Term]) -> set[int]:
    """The sessions holding any of these terms as a substring of some value (none for
    phrases and words too short for trigrams)."""
    expressions = [expression for expression in (term.grams() for term in terms) if expression]
    if not expressions:
        return set()
    return _keys(connection.execute(_SESSIONS_WITH_GRAMS, (" OR ".join(expressions),)).fetchone())


def _sessions_with_any(catalog: SessionCatalog, terms: Sequence[Term]) -> set[int]:
    """The sessions that any of these terms finds (what an exclusion leaves out)."""
    found: set[int] = set()
    grams = trigrams_supported()
    with catalog.lock:
        for batch in _batched(terms):
            found |= _sessions_with(catalog.connection, _or_expression(batch))
            if grams:
                found |= _sessions_with_grams(catalog.connection, batch)
    return found


def matching_sessions(catalog: SessionCatalog, query: Query) -> TextMatches | None:
    """The sessions whose text matches `query`, whatever the scope; None when its words do
    not narrow them (filters or exclusions alone) or the index cannot say. For a caller
    that loads only those sessions before `search` (given them back as `matches`)."""
    try:
        return _text_matches(catalog, query)
    except sqlite3.Error as error:
        catalog.recover(error)
        return None  # `search` says the index is unavailable


def _best_events(
    catalog: SessionCatalog,
    parsed: Query,
    session_keys: list[int],
    together: frozenset[int],
    metadata: dict[int, Metadata],
) -> dict[int, EventText]:
    """session key -> its best event (bm25 over the words), read again from its log: among
    the events holding every word for the sessions that have one (`together`), else among
    those holding any; a query per kind, so that the doclists are read once, not once per
    session."""
    if not parsed.terms or not session_keys:
        return {}
    best: dict[int, tuple[float, int]] = {}
    with catalog.lock:
        connection = catalog.connection
        text_keys = _text_keys(connection, session_keys, of="key")
        pending = [text_keys[key] for key in session_keys if key in text_keys]
        if len(parsed.terms) > 1 and len(parsed.terms) <= MATCH_TERMS:
            every = " AND ".join(term.fts() for term in parsed.terms)
            in_one = [text_key for key, text_key in text_keys.items() if key in together]
            _best_of(connection, every, in_one, best)
            pending = [key for key in pending if key not in best]
        _best_of(connection, _or_expression(parsed.terms), pending, best)
    session_of = {text_key: key for key, text_key in text_keys.items()}
    events: dict[int, EventText] = {}
    for text_key, (_, rowid) in best.items():
        key = session_of[text_key]
        offset = rowid & _OFFSET_MASK
        found = catalog.content.events_at(metadata[key].session_id, [offset]).get(offset)
        if found is not None:
            events[key] = found
    return events


_OFFSET_MASK = (1 << EVENT_BITS) - 1


def _best_of(
    connection: sqlite3.Connection,
    expression: str,
    text_keys: list[int],
    best: dict[int, tuple[float, int]],
) -> None:
    """Note in `best` (text key -> bm25 score, rowid) the best event under each of these
    text keys among those matching `expression`."""
    if not text_keys:
        return
    keys = ",".join(str(int(key)) for key in text_keys)
    for rowid, score in connection.execute(
        "SELECT rowid, bm25(event_text) FROM event_text WHERE event_text MATCH ? "
        f"AND (rowid >> {EVENT_BITS}) IN ({keys})",
        (expression,),
    ):
        text_key = rowid >> EVENT_BITS
        if text_key not in best or score < best[text_key][0]:
            best[text_key] = (score, rowid)


SCAN_EVENTS = 4096
"""The most events of one session read for a word found only inside other text: past them,
the session is listed without a snippet (its word may also be in a value not shown)."""


def _events_holding(
    catalog: SessionCatalog, terms: Sequence[Term], sessions: dict[int, Metadata]
) -> dict[int, EventText]:
    """session key -> its first event whose text holds the most of `terms` (lower-cased, as
    substrings), for sessions where no event holds one as a word; none when only some other
    value of an event holds them. Read from the logs."""
    needles = [go_lower(term.text) for term in terms]
    found: dict[int, EventText] = {}
    for session_key, meta in sessions.items():
        best: EventText | None = None
        most = 0
        for event in catalog.content.first_events(meta.session_id, SCAN_EVENTS):
            lowered = go_lower(event.text)
            held = sum(needle in lowered for needle in needles)
            if held > most:
                best, most = event, held
                if held == len(needles):
                    break
        if best is not None:
            found[session_key] = best
    return found


def _hit(
    meta: Metadata, event: EventText | None, plan: str | None, terms: Sequence[Term]
) -> SearchHit:
    if event is None:
        return SearchHit(meta)
    sequence = event.sequence
    compacted, summary = _compacted(plan, event.event_id, sequence)
    return SearchHit(
        meta,
        sequence,
        event.role or None,
        make_snippet(event.text, terms),
        compacted,
        summary if compacted else sequence,
    )


_TOKEN = re.compile(r"[^\W_]+")
SNIPPET_BEFORE = 50
SNIPPET_AFTER = 110


def _term_pattern(term: Term) -> str | None:
    tokens = _TOKEN.findall(term.text)
    if not tokens:
        return None
    joined = r"[\W_]+".join(map(re.escape, tokens))
    tail = r"(?![^\W_])" if term.phrase else r"[^\W_]*"
    return rf"(?<![^\W_]){joined}{tail}"


def make_snippet(body: str, terms: Sequence[Term]) -> Snippet:
    """The text around the first match of any term, on one line, with every match marked.

    FTS5 found the event; this finds the words again in its text (case-insensitive,
    a word as a prefix, else inside other words), so a snippet costs no extra query."""
    patterns = [pattern for pattern in map(_term_pattern, terms) if pattern]
    matcher = re.compile("|".join(patterns), re.IGNORECASE) if patterns else None
    first = matcher.search(body) if matcher else None
    if first is None:  # found inside other words (or only in values not shown)
        inside = [re.escape(term.text) for term in terms if term.text]
        matcher = re.compile("|".join(inside), re.IGNORECASE) if inside else None
        first = matcher.search(body) if matcher else None
    start = 0 if first is None else max(0, first.start() - SNIPPET_BEFORE)
    end = min(len(body), (first.end() if first else 0) + SNIPPET_AFTER)
    if start > 0:
        space = body.find(" ", start, first.start() if first else end)
        start = space + 1 if space >= 0 else start
    if end < len(body):
        space = body.rfind(" ", first.end() if first else start, end)
        end = space if space > 0 else end
    text = _SPACE.sub(" ", body[start:end]).strip()
    text = ("…" if start > 0 else "") + text + ("…" if end < len(body) else "")
    spans = tuple(match.span() for match in matcher.finditer(text)) if matcher else ()
    return Snippet(text, spans)


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
